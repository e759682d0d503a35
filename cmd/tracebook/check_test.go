package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// The pure parts: limits, windows, the noise and the verdict, against hand derivations.
func TestCheckParseFraction(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string
	}{
		{"5%", 0.05, ""}, {"0.05", 0.05, ""}, {" 12.5 % ", 0.125, ""}, {"150%", 1.5, ""}, {"0", 0, ""},
		{"5", 0, "ambiguous"}, {"abc", 0, "not a percentage"}, {"-1%", 0, "negative"}, {"NaN", 0, "not a percentage"},
	} {
		got, err := parseFraction(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseFraction(%q) = %v, %v; want an error mentioning %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("parseFraction(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if w, err := parseWindow("2s:10s"); err != nil || w[0].Seconds() != 2 || w[1].Seconds() != 10 {
		t.Errorf("parseWindow(2s:10s) = %v, %v", w, err)
	}
	for _, bad := range []string{"2s", "x:1s", "1s:y", "5s:1s", "1s:1s"} {
		if _, err := parseWindow(bad); err == nil {
			t.Errorf("parseWindow(%q): no error", bad)
		}
	}
}

func TestCheckNoise(t *testing.T) {
	// a = 1,2,3,4: mean 2.5, sample variance (2.25+0.25+0.25+2.25)/3 = 5/3, /4 = 5/12;
	// b = 2,4,6,8: sample variance 20/3, /4 = 5/3; 2*sqrt(5/12 + 5/3) = 2*sqrt(25/12).
	n, ok := welchNoise([]float64{1, 2, 3, 4}, []float64{2, 4, 6, 8})
	if want := 2 * math.Sqrt(25.0/12); !ok || math.Abs(n-want) > 1e-12 {
		t.Errorf("welchNoise = %v, %v; want %v", n, ok, want)
	}
	// one value on a side: no estimate from it; the other side's term alone
	n, ok = welchNoise([]float64{7}, []float64{2, 4, 6, 8})
	if want := 2 * math.Sqrt(5.0/3); ok || math.Abs(n-want) > 1e-12 {
		t.Errorf("welchNoise with one value = %v, %v; want %v, false", n, ok, want)
	}
	if n, ok := welchNoise([]float64{7}, []float64{9}); ok || n != 0 {
		t.Errorf("welchNoise of single values = %v, %v; want 0, false", n, ok)
	}
	if s := spreadNoise([]float64{10, 13, 11.5}); s != 3 {
		t.Errorf("spreadNoise = %v, want 3", s)
	}
	share := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		base, run, noise float64
		share            *float64
		want             string
	}{
		{100, 106, 0, nil, statusFail},              // 6% > 5%, noise 0
		{100, 106, 5, nil, statusFail},              // change 6 > noise 5
		{100, 106, 6, nil, statusNoise},             // change 6 not above noise 6
		{100, 105, 0, nil, statusOK},                // exactly the limit is allowed
		{100, 80, 0, nil, statusOK},                 // faster
		{0, 10, 1, nil, statusFail},                 // new in the run: over any limit
		{100, 200, 0, share(0.005), statusMinShare}, // under 1% of the run
		{100, 200, 0, share(0.02), statusFail},
	} {
		s := &Subject{BaselineNs: c.base, RunNs: c.run, NoiseNs: c.noise, Share: c.share}
		judge(s, 0.05, 0.01)
		if s.Status != c.want || s.ChangeNs != c.run-c.base {
			t.Errorf("judge(base %v, run %v, noise %v) = %q, change %v; want %q", c.base, c.run, c.noise, s.Status, s.ChangeNs, c.want)
		}
	}
	// repeated baselines: the spread of the baselines' means is the noise, the first is compared
	s, ok := evaluate(subjectInput{name: "f", base: [][]float64{{100, 100}, {110, 114}, {104, 104}}, run: []float64{115, 115}}, 0.05, 0.01)
	if !ok || s.BaselineNs != 100 || s.NoiseNs != 12 || s.Status != statusFail {
		t.Errorf("evaluate with three baselines: base %v noise %v status %q; want 100, 12 (112-100), FAIL", s.BaselineNs, s.NoiseNs, s.Status)
	}
}

// buildCheck builds the binary once for the tests of this file.
var buildCheck = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "tracebook-check")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "tracebook")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
})

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// runBin runs the binary and returns stdout, stderr and the exit status.
func runBin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	bin, err := buildCheck()
	if err != nil {
		t.Fatalf("go build: %v", err)
	}
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine ") {
		t.Fatalf("%v panicked:\n%s", args, errb.String())
	}
	return out.String(), errb.String(), code
}

// genConfig is the generated run of these tests: 8 ranks, 20 iterations, unit 10 µs.
func genConfig(seed int64) synth.GenConfig {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Seed = 8, 20, seed
	return cfg
}

// save writes tr as an Arrow events table (the writer of `tracebook convert`).
func save(t *testing.T, tr *trace.Trace, p string) string {
	t.Helper()
	ev := tr.Events()
	defer ev.Release()
	if err := write(p, ev); err != nil {
		t.Fatal(err)
	}
	return p
}

// stretch makes every call of fn on every process d ns longer, shifting everything after
// it: the call's exclusive time and each process's time grow by d per call, and since every
// rank shifts alike, no wait changes.
func stretch(tr *trace.Trace, fn string, d int64) {
	for _, p := range tr.Processes() {
		var shift int64
		for i := range p.Time {
			p.Time[i] += shift
			if p.Kind[i] == trace.Leave && p.RegionName(p.Ref[i]) == fn {
				p.Time[i] += d
				shift += d
			}
		}
	}
}

// regionTime is the oracle: the summed duration of fn's calls on p, from its Enter and Leave
// events (fn is not recursive in the generated runs).
func regionTime(p *trace.Process, fn string) (ns int64, calls int) {
	var open int64
	for i, k := range p.Kind {
		if p.RegionName(p.Ref[i]) != fn {
			continue
		}
		switch k {
		case trace.Enter:
			open = p.Time[i]
		case trace.Leave:
			ns += p.Time[i] - open
			calls++
		}
	}
	return ns, calls
}

// runTime is the oracle of the run subject: per process main's time less MPI_Init's and
// MPI_Finalize's (leaves in the generated runs), averaged.
func runTime(tr *trace.Trace) float64 {
	var s float64
	for _, p := range tr.Processes() {
		m, _ := regionTime(p, "main")
		i, _ := regionTime(p, "MPI_Init")
		f, _ := regionTime(p, "MPI_Finalize")
		s += float64(m - i - f)
	}
	return s / float64(tr.NumProcesses())
}

func decodeReport(t *testing.T, out string) *Report {
	t.Helper()
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("the JSON does not parse: %v\n%s", err, out)
	}
	return &rep
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// A run whose apply_bc got 5 units (50 µs) slower on every rank, same seed otherwise: exit 1,
// apply_bc named, the run's change exactly 20 iterations x 50 µs per process.
func TestCheckKnownSlowdown(t *testing.T) {
	dir := t.TempDir()
	baseTr := synth.Generate(genConfig(1))
	runTr := synth.Generate(genConfig(1))
	const d = 50000
	stretch(runTr, "apply_bc", d)
	base := save(t, baseTr, filepath.Join(dir, "base.arrow"))
	run := save(t, runTr, filepath.Join(dir, "run.arrow"))
	wantBase, wantRun := runTime(baseTr), runTime(runTr)
	if wantRun-wantBase != 20*d {
		t.Fatalf("oracle: the run's change is %v, want %v", wantRun-wantBase, 20*d)
	}
	wantChange := (wantRun - wantBase) / wantBase
	if wantChange <= 0.05 {
		t.Fatalf("the test needs a change above the limit, got %v", wantChange)
	}

	out, errOut, code := runBin(t, "check", "--baseline", base, "--run", run, "--max-slowdown", "5%")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	first := strings.SplitN(out, "\n", 2)[0]
	if want := "FAIL: run " + strings.TrimPrefix(signedPercent(wantChange), "+") + " slower than baseline (limit 5%"; !strings.HasPrefix(first, want) {
		t.Errorf("headline %q, want it to start with %q", first, want)
	}
	if !strings.Contains(first, "most in apply_bc ("+signedPercent(wantChange)+")") {
		t.Errorf("headline %q does not name apply_bc with its %s", first, signedPercent(wantChange))
	}
	if !strings.Contains(out, noiseWelch) {
		t.Errorf("the output does not state the noise rule:\n%s", out)
	}

	out, _, code = runBin(t, "check", "--baseline", base, "--run", run, "--json", "--junit", filepath.Join(dir, "junit.xml"))
	rep := decodeReport(t, out)
	if code != 1 || rep.Verdict != "FAIL" || rep.Failed != 1 || len(rep.Subjects) != 1 {
		t.Fatalf("exit %d, report %+v", code, rep)
	}
	s := rep.Subjects[0]
	if !near(s.BaselineNs, wantBase, 1e-12) || !near(s.RunNs, wantRun, 1e-12) || s.Change == nil || !near(*s.Change, wantChange, 1e-9) {
		t.Errorf("run subject: baseline %v run %v change %v; the events give %v, %v, %v", s.BaselineNs, s.RunNs, s.Change, wantBase, wantRun, wantChange)
	}
	if len(rep.Functions) == 0 || rep.Functions[0].Name != "apply_bc" || !near(*rep.Functions[0].CostNs, 20*d, 1e-6) {
		t.Errorf("the costliest function is %+v, want apply_bc costing %v", rep.Functions[0], 20*d)
	}
	if rep.Limit != 0.05 || rep.NoiseRule != noiseWelch {
		t.Errorf("limit %v, noise rule %q", rep.Limit, rep.NoiseRule)
	}

	// --function: one subject per match, the stretched one fails by d per call over its own time
	out, _, code = runBin(t, "check", "--baseline", base, "--run", run, "--function", "apply_*", "--function", "compute_flux", "--json")
	rep = decodeReport(t, out)
	if code != 1 || len(rep.Subjects) != 2 || rep.Failed != 1 {
		t.Fatalf("--function: exit %d, %d subjects, %d failed\n%s", code, len(rep.Subjects), rep.Failed, out)
	}
	s = rep.Subjects[0]
	var wantFn float64
	var calls int
	for _, p := range baseTr.Processes() {
		ns, c := regionTime(p, "apply_bc")
		wantFn, calls = wantFn+float64(ns), calls+c
	}
	wantFn /= float64(baseTr.NumProcesses())
	perProc := float64(calls) / float64(baseTr.NumProcesses()) * d
	if s.Name != "apply_bc" || s.Status != statusFail || !near(s.BaselineNs, wantFn, 1e-12) || !near(s.ChangeNs, perProc, 1e-12) {
		t.Errorf("apply_bc: %+v; want baseline %v, change %v", s, wantFn, perProc)
	}
	if c := rep.Subjects[1]; c.Name != "compute_flux" || c.Status != statusOK || c.ChangeNs != 0 {
		t.Errorf("compute_flux: %+v, want ok and unchanged", c)
	}
	checkJUnit(t, filepath.Join(dir, "junit.xml"), 1, []string{"run"}) // last: it skips without Python
}

// The generator's slow rank: rank 3's kernels run 1.8 times longer. Every rank waits for it,
// so the run fails; --per-process --function compute_flux names rank 3's compute_flux, its
// change 80% of its baseline time up to the noise of the two seeds.
func TestCheckSlowRank(t *testing.T) {
	dir := t.TempDir()
	baseTr := synth.Generate(genConfig(1))
	cfg := genConfig(2)
	cfg.SlowRank, cfg.SlowFactor = 3, 1.8
	runTr := synth.Generate(cfg)
	base := save(t, baseTr, filepath.Join(dir, "base.parquet"))
	run := save(t, runTr, filepath.Join(dir, "run.parquet"))

	out, errOut, code := runBin(t, "check", "--baseline", base, "--run", run, "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	rep := decodeReport(t, out)
	s := rep.Subjects[0]
	wantBase, wantRun := runTime(baseTr), runTime(runTr)
	if !near(s.BaselineNs, wantBase, 1e-12) || !near(s.RunNs, wantRun, 1e-12) {
		t.Errorf("run: %v -> %v, the events give %v -> %v", s.BaselineNs, s.RunNs, wantBase, wantRun)
	}
	// each iteration waits for rank 3's extra 0.8 x (10+13+16) units; noise of the seeds aside
	if gen := 0.8 * 39 * 10000 * 20; !near(s.ChangeNs, gen, 0.1) {
		t.Errorf("run change %v, the generator's parameters give about %v", s.ChangeNs, gen)
	}

	text, errOut, code := runBin(t, "check", "--baseline", base, "--run", run, "--per-process", "--function", "compute_flux")
	if code != 1 {
		t.Fatalf("--per-process: exit %d, want 1\n%s%s", code, text, errOut)
	}
	if !strings.Contains(text, "no noise estimate") {
		t.Errorf("--per-process with one baseline: no note on the missing noise estimate:\n%s", text)
	}
	junit := filepath.Join(dir, "junit.xml")
	out, _, _ = runBin(t, "check", "--baseline", base, "--run", run, "--per-process", "--function", "compute_flux", "--json", "--junit", junit)
	rep = decodeReport(t, out)
	var names []string
	for _, s := range rep.Subjects {
		names = append(names, s.Name)
	}
	if len(names) != 8 {
		t.Fatalf("%d subjects, want one per rank", len(names))
	}
	s = rep.Subjects[0]
	var pb, pr *trace.Process
	for _, p := range baseTr.Processes() {
		if p.Label() == "rank 3" {
			pb = p
		}
	}
	for _, p := range runTr.Processes() {
		if p.Label() == "rank 3" {
			pr = p
		}
	}
	b, _ := regionTime(pb, "compute_flux")
	r, _ := regionTime(pr, "compute_flux")
	if want := "FAIL: 1 of 8 process functions slower than the limit (5%) and the noise: rank 3 compute_flux " + signedPercent(float64(r-b)/float64(b)) + "\n"; !strings.HasPrefix(text, want) {
		t.Errorf("--per-process output does not start with %q:\n%s", want, text)
	}
	if s.Name != "rank 3 compute_flux" || s.BaselineNs != float64(b) || s.RunNs != float64(r) || !near(*s.Change, 0.8, 0.05) {
		t.Errorf("first subject %+v; the events give %d -> %d, about +80%%", s, b, r)
	}
	checkJUnit(t, junit, 1, names) // last: it skips without Python
}

// Without a slowdown (the same configuration, another noise seed) the check passes, whole,
// per function and per process.
func TestCheckNoSlowdown(t *testing.T) {
	dir := t.TempDir()
	base := save(t, synth.Generate(genConfig(1)), filepath.Join(dir, "base.arrow"))
	run := save(t, synth.Generate(genConfig(2)), filepath.Join(dir, "run.arrow"))
	for _, extra := range [][]string{nil, {"--function", "*"}, {"--per-process"}, {"--main"}, {"--window", "1ms:5ms", "--function", "*"}} {
		args := append([]string{"check", "--baseline", base, "--run", run}, extra...)
		out, errOut, code := runBin(t, args...)
		if code != 0 || !strings.HasPrefix(out, "ok: ") {
			t.Errorf("%v: exit %d\n%s%s", extra, code, out, errOut)
		}
	}
}

// Repeated baselines: their spread is the noise. A run slower than the first baseline by less
// than the baselines differ is within the noise (exit 0); with two close baselines it fails.
func TestCheckRepeatedBaselines(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, seed int64, slow float64) string {
		cfg := genConfig(seed)
		if slow > 0 {
			cfg.SlowRank, cfg.SlowFactor = 3, slow
		}
		return save(t, synth.Generate(cfg), filepath.Join(dir, name+".arrow"))
	}
	b1, b2, b3 := gen("b1", 1, 0), gen("b2", 2, 2.0), gen("b3", 3, 0)
	run := gen("run", 4, 1.6)
	out, errOut, code := runBin(t, "check", "--baseline", b1, "--baseline", b2, "--run", run, "--json")
	rep := decodeReport(t, out)
	if code != 0 || rep.Subjects[0].Status != statusNoise || rep.NoiseRule != noiseSpread {
		t.Errorf("slow second baseline: exit %d, %+v\n%s", code, rep.Subjects[0], errOut)
	}
	// the noise is the difference of the two baselines' run subjects, from the events
	t1, _ := trace.Load(b1)
	t2, _ := trace.Load(b2)
	if want := math.Abs(runTime(t2) - runTime(t1)); !near(rep.Subjects[0].NoiseNs, want, 1e-12) {
		t.Errorf("noise %v, the baselines' events give %v", rep.Subjects[0].NoiseNs, want)
	}
	out, errOut, code = runBin(t, "check", "--baseline", b1, "--baseline", b3, "--run", run, "--per-process")
	if code != 1 || !strings.Contains(out, "rank 3") || strings.Contains(out, "no noise estimate") {
		t.Errorf("close baselines: exit %d\n%s%s", code, out, errOut)
	}
}

// Bad input: exit 2 and a message naming what was wrong, never a panic.
func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	base := save(t, synth.Generate(genConfig(1)), filepath.Join(dir, "base.arrow"))
	cfg := genConfig(1)
	cfg.Ranks = 4
	small := save(t, synth.Generate(cfg), filepath.Join(dir, "small.arrow"))
	corrupt := filepath.Join(dir, "corrupt.parquet")
	if err := os.WriteFile(corrupt, []byte("PAR1 this is not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--baseline", filepath.Join(dir, "nosuch.otf2"), "--run", base}, "nosuch.otf2"},
		{[]string{"--baseline", base, "--run", corrupt}, "corrupt.parquet"},
		{[]string{"--baseline", base}, "missing --run"},
		{[]string{"--run", base}, "missing --baseline"},
		{[]string{"--baseline", base, "--run", base, "--max-slowdown", "lots"}, "lots"},
		{[]string{"--baseline", base, "--run", base, "--max-slowdown", "5"}, "ambiguous"},
		{[]string{"--baseline", base, "--run", base, "--frobnicate"}, "frobnicate"},
		{[]string{"--baseline", base, "--run", base, "extra"}, "extra"},
		{[]string{"--baseline", base, "--run", base, "--window", "5s:1s"}, "--window"},
		{[]string{"--baseline", base, "--run", base, "--window", "1s:5s", "--main"}, "exclude"},
		{[]string{"--baseline", base, "--run", base, "--function", "[x"}, "--function"},
		{[]string{"--baseline", base, "--run", base, "--function", "no_such_fn"}, "no_such_fn"},
		{[]string{"--baseline", base, "--run", small, "--per-process"}, "equal process count"},
		{[]string{"--baseline", base, "--run", base, "--junit", filepath.Join(dir, "no", "dir", "j.xml")}, "--junit"},
		{[]string{"--baseline", base, "--run", base, "--window", "100s:200s", "--function", "*"}, "no time in instrumented regions in Window(1m40s, 3m20s)"},
		{[]string{"--baseline", base, "--run", base, "--window", "1ms:5ms"}, "--window needs --function"},
		{[]string{"--baseline", base, "--run", base, "--window", "1ms:5ms", "--per-process"}, "--window needs --function"},
	} {
		out, errOut, code := runBin(t, append([]string{"check"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q (stdout %q); want exit 2 and %q", c.args, code, errOut, out, c.want)
		}
	}
	if out, _, code := runBin(t, "check", "-h"); code != 0 || out != "" {
		t.Errorf("check -h: exit %d, stdout %q", code, out)
	}
}

// checkJUnit reads the JUnit XML back with Python's xml.etree: the suite's name, one test case
// per subject, the failing ones with a failure element.
func checkJUnit(t *testing.T, p string, failures int, cases []string) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 is missing: the JUnit XML is not read back")
	}
	script := `import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuite" and root.get("name") == "tracebook check", root.attrib
cases = root.findall("testcase")
fails = [c for c in cases if c.find("failure") is not None]
for c in fails:
    assert c.find("failure").get("message"), "a failure without a message"
print(len(cases), len(fails), root.get("tests"), root.get("failures"))
print("\n".join(c.get("name") for c in cases))
`
	out, err := exec.Command("/usr/bin/python3", "-I", "-c", script, p).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 xml.etree: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	n, f := len(cases), failures
	if want := strings.Join([]string{strconv.Itoa(n), strconv.Itoa(f), strconv.Itoa(n), strconv.Itoa(f)}, " "); lines[0] != want {
		t.Errorf("JUnit counts %q, want %q", lines[0], want)
	}
	if got := strings.Join(lines[1:], ","); got != strings.Join(cases, ",") {
		t.Errorf("JUnit test cases %q, want %q", got, strings.Join(cases, ","))
	}
}

// The means of valuesOf agree with compare's table: per function, the groups' means weighted
// by their processes (compare rounds each group's mean to the ns).
func TestCheckValuesAgreeWithCompare(t *testing.T) {
	cfg := genConfig(5)
	cfg.Master = synth.Master{MasterWork: 3} // rank 0 in a group of its own
	a := synth.Generate(cfg)
	cfg.Seed, cfg.SlowRank, cfg.SlowFactor = 6, 2, 1.3
	b := synth.Generate(cfg)
	cr := compare.Runs(a, b)
	va, vb := valuesOf(a), valuesOf(b)
	sum := map[string][2]float64{}
	groups := map[string]int{}
	for _, r := range cr.FunctionRows() {
		s := sum[r.Function]
		s[0] += float64(r.Mean[0]) * float64(r.Processes[0])
		s[1] += float64(r.Mean[1]) * float64(r.Processes[1])
		sum[r.Function] = s
		groups[r.Function]++
	}
	if cr.NumGroups() < 2 || len(sum) != len(va.excl) {
		t.Fatalf("%d groups, %d functions in compare, %d in valuesOf", cr.NumGroups(), len(sum), len(va.excl))
	}
	for fn, s := range sum {
		tol := 0.5 * float64(groups[fn]) // ns: compare's rounding
		if ga, gb := s[0]/float64(a.NumProcesses()), s[1]/float64(b.NumProcesses()); math.Abs(ga-mean(va.column(fn))) > tol || math.Abs(gb-mean(vb.column(fn))) > tol {
			t.Errorf("%s: compare %v, %v; valuesOf %v, %v", fn, ga, gb, mean(va.column(fn)), mean(vb.column(fn)))
		}
	}
	if got, want := mean(va.total), runTime(a); !near(got, want, 1e-12) {
		t.Errorf("run subject %v, the events give %v", got, want)
	}
}

// One process and one baseline: no noise estimate, said in a note; noise 0.
func TestCheckOneProcess(t *testing.T) {
	cfg := genConfig(1)
	cfg.Ranks = 1
	base := synth.Generate(cfg)
	cfg.Seed, cfg.UnitNs = 2, cfg.UnitNs*11/10 // everything 10% slower
	run := synth.Generate(cfg)
	rep, err := buildReport(&checkConfig{baselines: []string{"base"}, run: "run", limit: 0.05, minShare: 0.01}, []*trace.Trace{base}, run)
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Subjects[0]
	if s.NoiseNs != 0 || s.Status != statusFail || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "no noise estimate") {
		t.Errorf("subject %+v, notes %q", s, rep.Notes)
	}
	if want := (runTime(run) - runTime(base)) / runTime(base); !near(*s.Change, want, 1e-12) {
		t.Errorf("change %v, the events give %v", *s.Change, want)
	}
}

// The repository's two ping-pong traces (OTF2, the second recorded with PAPI counters): the
// run subject, its verdict and the culprit follow from the events — per process main's time
// less MPI_Init's and MPI_Finalize's, and the function whose summed exclusive time grew most
// (the leaves MPI_Send, MPI_Recv, MPI_Comm_*; main's exclusive time is main less its callees).
func TestCheckPingPong(t *testing.T) {
	dir := filepath.Join("..", "..", "test", "data", "traces")
	base, run := filepath.Join(dir, "ping-pong-otf2", "traces.otf2"), filepath.Join(dir, "ping-pong-otf2-papi", "traces.otf2")
	const mainFn = "int main(int, char**)"
	oracle := func(p string) (total float64, excl map[string]float64) {
		tr, err := trace.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		excl = map[string]float64{}
		n := float64(tr.NumProcesses())
		for _, pr := range tr.Processes() {
			m, _ := regionTime(pr, mainFn)
			callees := 0.0
			for _, fn := range []string{"MPI_Init", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Comm_size", "MPI_Comm_rank"} {
				ns, _ := regionTime(pr, fn)
				excl[fn] += float64(ns) / n
				callees += float64(ns)
			}
			excl[mainFn] += (float64(m) - callees) / n
			i, _ := regionTime(pr, "MPI_Init")
			f, _ := regionTime(pr, "MPI_Finalize")
			total += float64(m-i-f) / n
		}
		return total, excl
	}
	tb, eb := oracle(base)
	tr, er := oracle(run)
	change := (tr - tb) / tb
	culprit, most := "", 0.0
	for fn, v := range er {
		if fn != "MPI_Init" && fn != "MPI_Finalize" && v-eb[fn] > most {
			culprit, most = fn, v-eb[fn]
		}
	}
	out, errOut, code := runBin(t, "check", "--baseline", base, "--run", run, "--json")
	rep := decodeReport(t, out)
	s := rep.Subjects[0]
	wantCode := 0
	if change > 0.05 && s.ChangeNs > s.NoiseNs {
		wantCode = 1
	}
	if code != wantCode || !near(s.BaselineNs, tb, 1e-12) || !near(s.RunNs, tr, 1e-12) {
		t.Errorf("exit %d (want %d), run %v -> %v; the events give %v -> %v\n%s", code, wantCode, s.BaselineNs, s.RunNs, tb, tr, errOut)
	}
	if s.Culprit != culprit || math.Abs(*s.CulpritOf*tb-most) > 1 { // compare rounds its means to the ns
		t.Errorf("culprit %s %v, the events give %s %v", s.Culprit, *s.CulpritOf, culprit, most/tb)
	}
}

// writeCSV writes a pipit CSV events table; rows are "time,kind,name,process".
func writeCSV(t *testing.T, p string, rows ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("Timestamp (ns),Event Type,Name,Thread,Process\n")
	for _, r := range rows {
		f := strings.SplitN(r, ",", 4)
		fmt.Fprintf(&b, "%s,%s,%s,0,%s\n", f[0], f[1], strconv.Quote(f[2]), f[3])
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A run with no time to compare (a crashed nightly run) is refused with exit 2 naming it, as
// a baseline is, never "ok: run 100% faster".
func TestCheckRunWithoutTime(t *testing.T) {
	dir := t.TempDir()
	base := save(t, synth.Generate(genConfig(1)), filepath.Join(dir, "base.arrow"))
	for _, c := range []struct {
		name string
		rows []string
		want string
	}{
		{"zero.csv", []string{"10,Enter,main,0", "10,Leave,main,0"}, "no time in instrumented regions"},
		{"init.csv", []string{"0,Enter,MPI_Init,0", "50,Leave,MPI_Init,0"}, "no time in instrumented regions"},
		{"open.csv", []string{"0,Enter,main,0", "40,Enter,solve,0", "90,Enter,solve,0"}, "3 calls never left"},
		{"overflow.csv", []string{"-9223372036854775000,Enter,main,0", "9223372036854775000,Leave,main,0"}, "negative time"},
	} {
		run := writeCSV(t, filepath.Join(dir, c.name), c.rows...)
		for _, args := range [][]string{{"--baseline", base, "--run", run}, {"--baseline", run, "--run", base}} {
			for _, extra := range [][]string{nil, {"--function", "*"}} {
				out, errOut, code := runBin(t, append(append([]string{"check"}, args...), extra...)...)
				if code != 2 || !strings.Contains(errOut, c.name+": ") || !strings.Contains(errOut, c.want) {
					t.Errorf("%s %v: exit %d, stderr %q, stdout %q; want exit 2 naming %s: %s", c.name, extra, code, errOut, out, c.name, c.want)
				}
			}
		}
	}
}

// --window compares the functions in the window (the whole run's time in a window is the
// window's length): a run whose apply_bc got slower fails in a window over the slowed part,
// apply_bc named, its clipped exclusive time grown as the events say.
func TestCheckWindowSlowdown(t *testing.T) {
	dir := t.TempDir()
	baseTr, runTr := synth.Generate(genConfig(1)), synth.Generate(genConfig(1))
	stretch(runTr, "apply_bc", 50000)
	base := save(t, baseTr, filepath.Join(dir, "base.arrow"))
	run := save(t, runTr, filepath.Join(dir, "run.arrow"))
	// oracle: apply_bc's time clipped to the window (a leaf: exclusive = inclusive; times are
	// from the trace's start, as trace.Window takes them), per process
	clipped := func(tr *trace.Trace, t0, t1 int64) float64 {
		var s float64
		for _, p := range tr.Processes() {
			var open int64
			for i, k := range p.Kind {
				if p.RegionName(p.Ref[i]) != "apply_bc" {
					continue
				}
				if k == trace.Enter {
					open = p.Time[i]
				} else if k == trace.Leave {
					lo, hi := max(open, t0), min(p.Time[i], t1)
					if hi > lo {
						s += float64(hi - lo)
					}
				}
			}
		}
		return s / float64(tr.NumProcesses())
	}
	wantBase, wantRun := clipped(baseTr, 1e6, 5e6), clipped(runTr, 1e6, 5e6)
	if (wantRun-wantBase)/wantBase <= 0.05 {
		t.Fatalf("the test needs apply_bc over the limit in the window: %v -> %v", wantBase, wantRun)
	}
	out, errOut, code := runBin(t, "check", "--baseline", base, "--run", run, "--window", "1ms:5ms", "--function", "*", "--json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	rep := decodeReport(t, out)
	s := rep.Subjects[0]
	if s.Name != "apply_bc" || s.Status != statusFail || !near(s.BaselineNs, wantBase, 1e-12) || !near(s.RunNs, wantRun, 1e-12) {
		t.Errorf("first subject %+v; want apply_bc failing, %v -> %v as the events clipped to the window give", s, wantBase, wantRun)
	}
	if rep.Cut != "Window(1ms, 5ms)" {
		t.Errorf("cut %q", rep.Cut)
	}
}

// Function names are not paths: * and ? match '/' too; [ ] and \ keep path.Match's meaning.
func TestCheckGlob(t *testing.T) {
	for _, c := range []struct {
		glob, name string
		want       bool
	}{
		{"*", "operator/(V const&)", true},
		{"operator*", "operator/(V const&)", true},
		{"operator?(V const&)", "operator/(V const&)", true},
		{"*/*", "a/b/c", true},
		{"a/b", "a/b", true},
		{"solve*", "solver/step", true},
		{"solve?", "solve", false},
		{"*x", "a/b", false},
		{"[ab]/c", "b/c", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
	} {
		if got, err := globMatch(c.glob, c.name); err != nil || got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, %v; want %v", c.glob, c.name, got, err, c.want)
		}
	}
	if _, err := globMatch("[x", "x"); err == nil {
		t.Errorf("globMatch([x): no error")
	}
	for g, want := range map[string]bool{"MPI_Init": true, "MPI_*": false, "f?": false, "[ab]": false, `a\*b`: true, "op/x": true} {
		if isLiteral(g) != want {
			t.Errorf("isLiteral(%q) = %v, want %v", g, !want, want)
		}
	}
}

// twoProcs returns the CSV rows of two identical processes (noise 0) running main for mainNs
// with fn inside it for fnNs.
func twoProcs(fn string, mainNs, fnNs int) []string {
	var rows []string
	for p := range 2 {
		rows = append(rows, fmt.Sprintf("0,Enter,main,%d", p), fmt.Sprintf("100,Enter,%s,%d", fn, p),
			fmt.Sprintf("%d,Leave,%s,%d", 100+fnNs, fn, p), fmt.Sprintf("%d,Leave,main,%d", mainNs, p))
	}
	return rows
}

// A function whose name holds '/' is checked by --function '*': operator/ got 80% slower
// (500 ns -> 900 ns of exclusive time on each of two identical processes: noise 0) and fails.
func TestCheckGlobSlash(t *testing.T) {
	dir := t.TempDir()
	const fn = "operator/(V const&)"
	base := writeCSV(t, filepath.Join(dir, "base.csv"), twoProcs(fn, 1000, 500)...)
	run := writeCSV(t, filepath.Join(dir, "run.csv"), twoProcs(fn, 1400, 900)...)
	out, errOut, code := runBin(t, "check", "--baseline", base, "--run", run, "--function", "*", "--json")
	rep := decodeReport(t, out)
	if code != 1 || len(rep.Subjects) != 2 {
		t.Fatalf("exit %d, %d subjects\n%s%s", code, len(rep.Subjects), out, errOut)
	}
	s := rep.Subjects[0]
	if s.Name != fn || s.BaselineNs != 500 || s.RunNs != 900 || s.Change == nil || !near(*s.Change, 0.8, 1e-12) || s.Status != statusFail {
		t.Errorf("first subject %+v; want %s 500 -> 900 ns (+80%%), FAIL", s, fn)
	}
	// main's exclusive time: 1000-500 = 500 -> 1400-900 = 500, unchanged
	if m := rep.Subjects[1]; m.Name != "main" || m.BaselineNs != 500 || m.RunNs != 500 || m.Status != statusOK {
		t.Errorf("second subject %+v; want main 500 -> 500 ns, ok", m)
	}
}

// A name with control characters (an ESC sequence) is escaped in the text output, not sent to
// the terminal raw; a printable name is printed as it is.
func TestCheckControlCharacters(t *testing.T) {
	if got, want := printable("red\x1b[31m\tx"), `red\x1b[31m\tx`; got != want {
		t.Errorf("printable = %q, want %q", got, want)
	}
	for _, n := range []string{"operator/(V const&)", `say "hi"\n`, "µs ü"} {
		if got := printable(n); got != n {
			t.Errorf("printable(%q) = %q, want it unchanged", n, got)
		}
	}
	dir := t.TempDir()
	const fn = "evil\x1b[2J\x1b[31mname"
	base := writeCSV(t, filepath.Join(dir, "base.csv"), twoProcs(fn, 1000, 500)...)
	run := writeCSV(t, filepath.Join(dir, "run.csv"), twoProcs(fn, 1400, 900)...)
	for _, extra := range [][]string{nil, {"--function", "*"}, {"--per-process", "--function", "*"}} {
		out, errOut, code := runBin(t, append([]string{"check", "--baseline", base, "--run", run}, extra...)...)
		if code != 1 || strings.ContainsRune(out, 0x1b) || !strings.Contains(out, `evil\x1b[2J\x1b[31mname`) {
			t.Errorf("%v: exit %d, output %q%s; want exit 1 and the name escaped", extra, code, out, errOut)
		}
	}
}

// Set-up and tear-down (MPI_Init, MPI_Finalize) are left out of --function globs with
// wildcards, as the whole-run subject leaves them out, and said in a note; a glob without
// wildcards checks them.
func TestCheckFunctionSetUp(t *testing.T) {
	dir := filepath.Join("..", "..", "test", "data", "traces")
	base, run := filepath.Join(dir, "ping-pong-otf2", "traces.otf2"), filepath.Join(dir, "ping-pong-otf2-papi", "traces.otf2")
	// the functions of the ping-pong traces (TestCheckPingPong), set-up and tear-down apart
	want := []string{"MPI_Comm_rank", "MPI_Comm_size", "MPI_Recv", "MPI_Send", "int main(int, char**)"}
	out, errOut, _ := runBin(t, "check", "--baseline", base, "--run", run, "--function", "*", "--json")
	rep := decodeReport(t, out)
	var names []string
	for _, s := range rep.Subjects {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("--function '*' checks %q, want %q\n%s", names, want, errOut)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "MPI_Finalize, MPI_Init") {
		t.Errorf("notes %q; want one naming MPI_Finalize, MPI_Init", rep.Notes)
	}
	out, _, _ = runBin(t, "check", "--baseline", base, "--run", run, "--function", "MPI_Init", "--function", "MPI_*", "--json")
	rep = decodeReport(t, out)
	names = nil
	for _, s := range rep.Subjects {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	if w := []string{"MPI_Comm_rank", "MPI_Comm_size", "MPI_Init", "MPI_Recv", "MPI_Send"}; !slices.Equal(names, w) {
		t.Errorf("--function MPI_Init --function 'MPI_*' checks %q, want %q", names, w)
	}
	if _, errOut, code := runBin(t, "check", "--baseline", base, "--run", run, "--function", "MPI_Fin*"); code != 2 || !strings.Contains(errOut, "MPI_Finalize") {
		t.Errorf("--function 'MPI_Fin*': exit %d, stderr %q; want exit 2 naming MPI_Finalize", code, errOut)
	}
}

// One process on one side only: Welch's rule adds the other side's term, and the note says so
// rather than "noise 0".
func TestCheckOneProcessOneSide(t *testing.T) {
	cfg := genConfig(1)
	cfg.Ranks = 1
	base := synth.Generate(cfg)
	run := synth.Generate(genConfig(2)) // 8 ranks
	rep, err := buildReport(&checkConfig{baselines: []string{"base"}, run: "run", limit: 0.05, minShare: 0.01}, []*trace.Trace{base}, run)
	if err != nil {
		t.Fatal(err)
	}
	// oracle: the run's per-process values (main less MPI_Init and MPI_Finalize), their
	// sample variance over 8, twice the root
	var v []float64
	for _, p := range run.Processes() {
		m, _ := regionTime(p, "main")
		i, _ := regionTime(p, "MPI_Init")
		f, _ := regionTime(p, "MPI_Finalize")
		v = append(v, float64(m-i-f))
	}
	var mu, ss float64
	for _, x := range v {
		mu += x / float64(len(v))
	}
	for _, x := range v {
		ss += (x - mu) * (x - mu)
	}
	want := 2 * math.Sqrt(ss/float64(len(v)-1)/float64(len(v)))
	s := rep.Subjects[0]
	if want == 0 || !near(s.NoiseNs, want, 1e-9) {
		t.Errorf("noise %v, the run's spread gives %v", s.NoiseNs, want)
	}
	if len(rep.Notes) != 1 || strings.Contains(rep.Notes[0], "noise 0") || !strings.Contains(rep.Notes[0], "the other side's term alone") ||
		!strings.Contains(rep.Notes[0], "1 of 1 subject has a single process") {
		t.Errorf("notes %q; want one saying the noise is the other side's term, in the singular", rep.Notes)
	}
}

// The minor points of the output: JSON lists are [] not null, --top 0 prints no empty table,
// counts of one are singular, the functions table's noise follows the stated rule.
func TestCheckOutputDetails(t *testing.T) {
	dir := t.TempDir()
	base := save(t, synth.Generate(genConfig(1)), filepath.Join(dir, "base.arrow"))
	run := save(t, synth.Generate(genConfig(2)), filepath.Join(dir, "run.arrow"))
	out, _, code := runBin(t, "check", "--baseline", base, "--run", run, "--function", "compute_flux", "--json")
	if code != 0 || !strings.Contains(out, `"functions": []`) || !strings.Contains(out, `"notes": []`) {
		t.Errorf("exit %d; want \"functions\": [] and \"notes\": [] in\n%s", code, out)
	}
	out, _, code = runBin(t, "check", "--baseline", base, "--run", run, "--function", "compute_flux", "--top", "0")
	if code != 0 || strings.Contains(out, "SUBJECT") || !strings.HasPrefix(out, "ok: 1 function within") ||
		!strings.Contains(out, "... 1 more subject not failing") {
		t.Errorf("--top 0: exit %d\n%s", code, out)
	}
	out, _, _ = runBin(t, "check", "--baseline", base, "--run", run, "--top", "0")
	if strings.Contains(out, "SUBJECT") || strings.Contains(out, "FUNCTION") {
		t.Errorf("--top 0 prints a table header:\n%s", out)
	}
	if !strings.Contains(checkUsage, "larger of baseline and run time is below --min-share") {
		t.Errorf("the usage text does not say min-share is of the larger of baseline and run")
	}

	// repeated baselines: a listed function's noise is the spread of its baseline means
	b2Tr := synth.Generate(genConfig(3))
	b2 := save(t, b2Tr, filepath.Join(dir, "b2.arrow"))
	b1Tr, err := trace.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ = runBin(t, "check", "--baseline", base, "--baseline", b2, "--run", run, "--json")
	rep := decodeReport(t, out)
	perProc := func(tr *trace.Trace, fn string) float64 {
		var s float64
		for _, p := range tr.Processes() {
			ns, _ := regionTime(p, fn)
			s += float64(ns)
		}
		return s / float64(tr.NumProcesses())
	}
	found := false
	for _, f := range rep.Functions {
		if f.Name != "compute_flux" { // a leaf: exclusive = inclusive
			continue
		}
		found = true
		if want := math.Abs(perProc(b2Tr, "compute_flux") - perProc(b1Tr, "compute_flux")); want == 0 || !near(f.NoiseNs, want, 1e-9) {
			t.Errorf("compute_flux's noise %v, the baselines' spread is %v", f.NoiseNs, want)
		}
	}
	if !found {
		t.Errorf("compute_flux is not listed")
	}
}
