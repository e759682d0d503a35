package main

// `tracebook check`: a regression check for CI. A run is compared with a baseline by
// compare.Runs; subjects (the whole run, functions, processes) fail when they are slower than
// the baseline by more than a limit and by more than the noise. The command parses flags, loads
// and prints; the subjects, the noise and the verdicts are pure functions below it.

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

func init() { extraCommands["check"] = runCheck }

const checkUsage = `usage: tracebook check --baseline BASE [--baseline BASE2 ...] --run NEW
                       [--max-slowdown 5%] [--function GLOB ...] [--per-process]
                       [--window T0:T1 | --main] [--min-share 1%] [--top 10]
                       [--json] [--junit FILE]

Compares the run NEW with the baseline BASE (compare.Runs) and fails when it got slower.
Traces are any format tracebook reads (OTF2 anchor, .parquet/.arrow/.csv events table, ...).

Subjects. Without --function: the whole run, its time per process in instrumented regions
without set-up and tear-down (MPI_Init, MPI_Finalize, ...: launch skew is noise); the table
lists the functions ranked by what their change costs and the headline names the costliest.
--function GLOB (repeatable): one subject per matching function, its exclusive time per
process; in GLOB, * matches any run of characters (/ included: function names are not paths),
? one character, [abc] one of a class, \ quotes the next character. Functions of role set-up
and tear-down (MPI_Init, ...) are left out unless a GLOB without wildcards names them.
--per-process: one subject per process (or per process and matching function), processes
matched by rank and thread; the runs need equal process counts.

A subject FAILS when (run - baseline) / baseline > --max-slowdown and run - baseline > noise.
Noise: with one baseline, twice the standard error of the difference of the per-process means
(Welch: 2*sqrt(sA²/nA + sB²/nB) over the subject's per-process values; a side with a single
process adds no term, so the noise is the other side's term, 0 when both have one); with
--baseline given more than once, the largest difference of the subject's value between the
baseline runs (the first baseline is the one compared). The functions table uses the same rule. A function whose
larger of baseline and run time is below --min-share of the baseline's time per process (on
that process with --per-process) never fails.
--window T0:T1 needs --function: every process's time in a window is the window's length, so
the whole run (or a process) in a window cannot get slower; its functions' shares can.
Statuses: ok, FAIL, within noise (over the limit, not over the noise), below min share.

Exit status: 0 pass, 1 a limit exceeded, 2 usage or load error, or a trace (baseline or run)
with no time to compare: none in instrumented regions, calls never left (a crashed run),
negative times (overflowing timestamps).

Flags:
`

// checkConfig is what the flags ask for.
type checkConfig struct {
	baselines  []string
	run        string
	limit      float64 // relative, 0.05 for 5%
	minShare   float64 // relative
	functions  []string
	perProcess bool
	window     *[2]time.Duration
	main       bool
	json       bool
	junit      string
	top        int
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// fractionFlag is a relative limit written "5%" or "0.05".
type fractionFlag struct{ v *float64 }

func (f fractionFlag) String() string {
	if f.v == nil {
		return ""
	}
	return percent(*f.v)
}

func (f fractionFlag) Set(s string) error {
	v, err := parseFraction(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

// parseFraction reads "5%" or "0.05" as 0.05. A bare number of 1 or more is refused: "5" is
// more likely 5% than 500%, and a CI limit must not be guessed (write "150%" for 1.5).
func parseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is not a percentage (5%%) or a fraction (0.05)", s)
	case v < 0:
		return 0, fmt.Errorf("%q is negative", s)
	case pct:
		return v / 100, nil
	case v >= 1:
		return 0, fmt.Errorf("%q is ambiguous: write %s%% for %s percent, or %s%% for %s times", s, t, t, strconv.FormatFloat(v*100, 'g', -1, 64), t)
	}
	return v, nil
}

// parseWindow reads "T0:T1" as two Go durations from the trace's start.
func parseWindow(s string) ([2]time.Duration, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return [2]time.Duration{}, fmt.Errorf("--window %q: want T0:T1, two Go durations such as 2s:10s", s)
	}
	t0, err := time.ParseDuration(strings.TrimSpace(a))
	if err != nil {
		return [2]time.Duration{}, fmt.Errorf("--window %q: start: %v", s, err)
	}
	t1, err := time.ParseDuration(strings.TrimSpace(b))
	if err != nil {
		return [2]time.Duration{}, fmt.Errorf("--window %q: end: %v", s, err)
	}
	if t0 < 0 || t1 <= t0 {
		return [2]time.Duration{}, fmt.Errorf("--window %q: need 0 <= T0 < T1", s)
	}
	return [2]time.Duration{t0, t1}, nil
}

// parseCheckFlags reads the command line; errors are usage errors (exit status 2).
func parseCheckFlags(args []string, stderr io.Writer) (*checkConfig, error) {
	cfg := &checkConfig{limit: 0.05, minShare: 0.01}
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var baselines, functions multiFlag
	var window string
	fs.Var(&baselines, "baseline", "baseline trace `BASE` (repeat for repeated baseline runs: their spread is the noise)")
	fs.StringVar(&cfg.run, "run", "", "the `NEW` run's trace")
	fs.Var(fractionFlag{&cfg.limit}, "max-slowdown", "the largest slowdown allowed, `5%` or 0.05")
	fs.Var(fractionFlag{&cfg.minShare}, "min-share", "functions whose larger of baseline and run time is below this share (`1%`) of the baseline's time per process never fail")
	fs.Var(&functions, "function", "check the functions matching `GLOB` (* any characters, ? one; repeatable)")
	fs.BoolVar(&cfg.perProcess, "per-process", false, "one subject per process, matched by rank (runs of equal process count)")
	fs.StringVar(&window, "window", "", "compare the window `T0:T1` of each trace (Go durations from its start, e.g. 2s:10s; needs --function)")
	fs.BoolVar(&cfg.main, "main", false, "compare between set-up and tear-down (trace.Main)")
	fs.BoolVar(&cfg.json, "json", false, "write a JSON object instead of the table")
	fs.StringVar(&cfg.junit, "junit", "", "also write JUnit XML to `FILE`")
	fs.IntVar(&cfg.top, "top", 10, "rows of the table besides failures")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), checkUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (the traces are given with --baseline and --run)", fs.Arg(0))
	}
	cfg.baselines, cfg.functions = baselines, functions
	if len(cfg.baselines) == 0 {
		return nil, errors.New("missing --baseline BASE")
	}
	if cfg.run == "" {
		return nil, errors.New("missing --run NEW")
	}
	for _, g := range cfg.functions {
		if _, err := globMatch(g, ""); err != nil {
			return nil, fmt.Errorf("--function %q: %v", g, err)
		}
	}
	if window != "" {
		if cfg.main {
			return nil, errors.New("--window and --main exclude each other")
		}
		if len(cfg.functions) == 0 {
			return nil, errors.New("--window needs --function GLOB: every process's time in a window is the window's length, so the whole run (or a process) cannot get slower there; check the functions in the window (--function '*'), or the whole run between set-up and tear-down (--main)")
		}
		w, err := parseWindow(window)
		if err != nil {
			return nil, err
		}
		cfg.window = &w
	}
	if cfg.top < 0 {
		return nil, fmt.Errorf("--top %d: need 0 or more", cfg.top)
	}
	return cfg, nil
}

// runCheck implements `tracebook check`; it exits with the check's status.
func runCheck(args []string) error {
	if code := check(args, os.Stdout, os.Stderr); code != 0 {
		return exitError{code} // the message is written
	}
	return nil
}

// check runs the command and returns its exit status: 0 pass, 1 a limit exceeded, 2 usage or
// load error (said on stderr).
func check(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseCheckFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "tracebook check: %v\n", err)
		return 2
	}
	rep, err := runCheckConfig(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "tracebook check: %v\n", err)
		return 2
	}
	if cfg.json {
		err = writeJSON(stdout, rep)
	} else {
		err = writeText(stdout, rep, cfg.top)
	}
	if err == nil && cfg.junit != "" {
		err = writeJUnitFile(cfg.junit, rep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tracebook check: %v\n", err)
		return 2
	}
	if rep.Failed > 0 {
		return 1
	}
	return 0
}

// runCheckConfig loads the traces and computes the report.
func runCheckConfig(cfg *checkConfig) (rep *Report, err error) {
	paths := append([]string{cfg.run}, cfg.baselines...)
	traces := make([]*trace.Trace, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() { traces[i], errs[i] = loadForCheck(p, cfg) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	run, bases := traces[0], traces[1:]
	defer func() {
		if r := recover(); r != nil {
			rep, err = nil, fmt.Errorf("comparing %s with %s: %v", cfg.run, cfg.baselines[0], r)
		}
	}()
	return buildReport(cfg, bases, run)
}

// loadForCheck loads one trace and cuts it as the flags ask; a panic of a reader or a cut is
// returned as an error naming the file.
func loadForCheck(p string, cfg *checkConfig) (tr *trace.Trace, err error) {
	defer func() {
		if r := recover(); r != nil {
			tr, err = nil, fmt.Errorf("%s: %v", p, r)
		}
	}()
	tr, err = trace.Load(p)
	if err != nil {
		return nil, err
	}
	if tr.NumProcesses() == 0 {
		return nil, fmt.Errorf("%s: the trace has no processes", p)
	}
	switch {
	case cfg.window != nil:
		tr = tr.Window(cfg.window[0], cfg.window[1])
	case cfg.main:
		tr = tr.Main()
	}
	tr.SetName(p)
	return tr, nil
}

// runValues is one run reduced to what the check compares: per process its time in
// instrumented regions without set-up and tear-down, and per function its exclusive time.
type runValues struct {
	labels []string             // per process, Process.Label: the key of --per-process
	total  []float64            // per process: ns in instrumented regions less set-up/tear-down
	excl   map[string][]float64 // per function: exclusive ns per process (0 where not called)
	setUp  map[string]bool      // functions of role set-up/tear-down (trace.DefaultSync)
	open   []int64              // per process: calls never left (CallRepairs.OpenAtEnd)
}

// valuesOf sums each process's call tree (the one compare.Runs has built and cached): a call's
// inclusive time is added to its function and taken from its caller's, as compare does, so
// the means agree with compare's table.
func valuesOf(tr *trace.Trace) *runValues {
	ps := tr.Processes()
	roles := trace.DefaultSync().Roles(tr)
	v := &runValues{labels: make([]string, len(ps)), total: make([]float64, len(ps)),
		excl: map[string][]float64{}, setUp: map[string]bool{}, open: make([]int64, len(ps))}
	perProc := make([][]int64, len(ps)) // [process][region id] exclusive ns
	tops := make([]int64, len(ps))
	work.Each(len(ps), func(_, j int) {
		perProc[j], tops[j] = exclusiveByRegion(ps[j])
		v.open[j] = ps[j].CallTree().Repairs.OpenAtEnd
	})
	for j, p := range ps {
		v.labels[j] = p.Label()
		t := float64(tops[j])
		for id, x := range perProc[j] {
			if x == 0 {
				continue
			}
			name := p.RegionName(int32(id))
			col := v.excl[name]
			if col == nil {
				col = make([]float64, len(ps))
				v.excl[name] = col
			}
			col[j] += float64(x)
			if id < len(roles) && roles[id] == trace.SetUp {
				v.setUp[name] = true
				t -= float64(x)
			}
		}
		v.total[j] = t
	}
	return v
}

// exclusiveByRegion returns p's exclusive ns per region id and its time inside top-level calls.
func exclusiveByRegion(p *trace.Process) ([]int64, int64) {
	ct := p.CallTree()
	var n int32
	for _, r := range ct.Region[1:] {
		n = max(n, r+1)
	}
	excl := make([]int64, n)
	var top int64
	for i := 1; i < ct.Len(); i++ {
		inc := ct.Leave[i] - ct.Enter[i]
		if r := ct.Region[i]; r >= 0 {
			excl[r] += inc
		}
		if par := ct.Parent[i]; par > 0 {
			if r := ct.Region[par]; r >= 0 {
				excl[r] -= inc
			}
		} else {
			top += inc
		}
	}
	return excl, top
}

// Subject is one thing the check judges (or, with Checked false, a function listed to explain
// the run's change): its baseline and run values per process, the change and the noise.
type Subject struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"` // "run", "function", "process", "process function"
	Checked    bool     `json:"checked"`
	Process    string   `json:"process,omitempty"`
	Function   string   `json:"function,omitempty"`
	Processes  [2]int   `json:"processes"`   // values of the baseline and of the run
	BaselineNs float64  `json:"baseline_ns"` // mean per process
	RunNs      float64  `json:"run_ns"`
	ChangeNs   float64  `json:"change_ns"`
	Change     *float64 `json:"change"` // (run - baseline) / baseline; null when the baseline is 0
	Ratio      *float64 `json:"ratio"`  // run / baseline; null when the baseline is 0
	NoiseNs    float64  `json:"noise_ns"`
	Share      *float64 `json:"share,omitempty"`          // of the baseline's time per process (functions)
	OfRun      *float64 `json:"of_run,omitempty"`         // a listed function's cost over the run's baseline time per process
	CostNs     *float64 `json:"cost_ns,omitempty"`        // compare's cost, summed over its groups
	RankSum    string   `json:"rank_sum,omitempty"`       // compare's verdict for the function's costliest group
	Status     string   `json:"status"`                   // "ok", "FAIL", "within noise", "below min share"; "" for a listed function
	SetUp      bool     `json:"set_up,omitempty"`         // a listed function of role set-up/tear-down (never the culprit)
	Culprit    string   `json:"culprit,omitempty"`        // run and process subjects: the function whose change costs most
	CulpritOf  *float64 `json:"culprit_change,omitempty"` // its change over the subject's baseline time
}

// Subject statuses.
const (
	statusOK       = "ok"
	statusFail     = "FAIL"
	statusNoise    = "within noise"
	statusMinShare = "below min share"
)

// Report is the outcome of a check.
type Report struct {
	Baselines []string   `json:"baselines"`
	Run       string     `json:"run"`
	Limit     float64    `json:"limit"`
	MinShare  float64    `json:"min_share"`
	Cut       string     `json:"cut,omitempty"`
	NoiseRule string     `json:"noise_rule"`
	Verdict   string     `json:"verdict"` // "ok" or "FAIL"
	Headline  string     `json:"headline"`
	Failed    int        `json:"failed"`
	Subjects  []*Subject `json:"subjects"`  // ranked: failures first, then by change
	Functions []*Subject `json:"functions"` // without --function: the functions by compare's cost
	Notes     []string   `json:"notes"`
	Compare   string     `json:"compare"` // compare.Runs's headline
}

// Noise rules, as stated in the output.
const (
	noiseWelch  = "noise = 2*sqrt(sA²/nA + sB²/nB) over the subject's per-process values (Welch's standard error of the difference of the means, twice)"
	noiseSpread = "noise = the largest difference of the subject's value between the baseline runs (run-to-run spread); the first baseline is compared"
)

// welchNoise returns twice the standard error of the difference of the means of a and b, and
// whether both sides had the two values a variance needs (a side with one value adds 0).
func welchNoise(a, b []float64) (float64, bool) {
	var v float64
	ok := true
	for _, x := range [][]float64{a, b} {
		if len(x) < 2 {
			ok = false
			continue
		}
		v += sampleVariance(x) / float64(len(x))
	}
	return 2 * math.Sqrt(v), ok
}

func sampleVariance(x []float64) float64 {
	m := mean(x)
	var s float64
	for _, y := range x {
		s += (y - m) * (y - m)
	}
	return s / float64(len(x)-1)
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, y := range x {
		s += y
	}
	return s / float64(len(x))
}

// spreadNoise returns the largest difference between the values of the baseline runs.
func spreadNoise(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return slices.Max(v) - slices.Min(v)
}

// judge sets s's status: below min share (a function under minShare of the baseline's time per
// process, share given), FAIL (slower by more than limit and by more than the noise), within
// noise (slower by more than the limit, not by more than the noise), else ok.
func judge(s *Subject, limit, minShare float64) {
	s.ChangeNs = s.RunNs - s.BaselineNs
	s.Change, s.Ratio = nil, nil
	if s.BaselineNs > 0 {
		c, r := s.ChangeNs/s.BaselineNs, s.RunNs/s.BaselineNs
		s.Change, s.Ratio = &c, &r
	}
	over := s.ChangeNs > 0 && (s.Change == nil || *s.Change > limit) // a function new in the run is over any limit
	switch {
	case s.Share != nil && *s.Share < minShare:
		s.Status = statusMinShare
	case over && s.ChangeNs > s.NoiseNs:
		s.Status = statusFail
	case over:
		s.Status = statusNoise
	default:
		s.Status = statusOK
	}
}

// subjectInput is one subject's values: per process in the compared baseline (base[0]), in
// the other baselines, and in the run.
type subjectInput struct {
	name, kind, process, function string
	base                          [][]float64 // per baseline run, per process
	run                           []float64
	shareOf                       []float64 // per baseline run: the time per process the share is of (nil: no share)
	culprit                       string    // a process: the function whose time on it grew most
	culpritNs                     float64
}

// processCulprit returns the function (set-up and tear-down aside) whose exclusive time grew
// most from process jb of b to process jr of r, "" if none grew.
func processCulprit(b *runValues, jb int, r *runValues, jr int) (string, float64) {
	best, bestNs := "", 0.0
	for name, col := range r.excl {
		if r.setUp[name] || b.setUp[name] {
			continue
		}
		if d := col[jr] - b.column(name)[jb]; d > bestNs || (d == bestNs && d > 0 && name < best) {
			best, bestNs = name, d
		}
	}
	return best, bestNs
}

// evaluate makes the subject of in: means, noise and status.
func evaluate(in subjectInput, limit, minShare float64) (*Subject, bool) {
	s := &Subject{Name: in.name, Kind: in.kind, Checked: true, Process: in.process, Function: in.function}
	b := in.base[0]
	s.Processes = [2]int{len(b), len(in.run)}
	s.BaselineNs, s.RunNs = mean(b), mean(in.run)
	estimated := true
	if len(in.base) > 1 {
		means := make([]float64, len(in.base))
		for i, v := range in.base {
			means[i] = mean(v)
		}
		s.NoiseNs = spreadNoise(means)
	} else {
		s.NoiseNs, estimated = welchNoise(b, in.run)
	}
	if in.shareOf != nil {
		if d := mean(in.shareOf); d > 0 {
			sh := max(s.BaselineNs, s.RunNs) / d
			s.Share = &sh
		}
	}
	judge(s, limit, minShare)
	if in.culprit != "" && s.BaselineNs > 0 {
		c := in.culpritNs / s.BaselineNs
		s.Culprit, s.CulpritOf = in.culprit, &c
	}
	return s, estimated
}

// buildReport computes the subjects of cfg on the loaded traces (bases[0] is compared).
func buildReport(cfg *checkConfig, bases []*trace.Trace, run *trace.Trace) (*Report, error) {
	rep := &Report{Baselines: cfg.baselines, Run: cfg.run, Limit: cfg.limit, MinShare: cfg.minShare, NoiseRule: noiseWelch,
		Subjects: []*Subject{}, Functions: []*Subject{}, Notes: []string{}}
	if len(bases) > 1 {
		rep.NoiseRule = noiseSpread
	}
	switch {
	case cfg.window != nil:
		rep.Cut = fmt.Sprintf("Window(%v, %v)", cfg.window[0], cfg.window[1])
	case cfg.main:
		rep.Cut = "Main()"
	}
	var opts []compare.Option
	if cfg.perProcess {
		for _, b := range bases {
			if err := sameProcesses(b, run); err != nil {
				return nil, err
			}
		}
		opts = append(opts, compare.WithMatchByRank())
	}
	cr := compare.Runs(bases[0], run, opts...) // builds every process's call tree, which valuesOf reuses
	rep.Compare = cr.Headline()
	bv := make([]*runValues, len(bases))
	for i, b := range bases {
		bv[i] = valuesOf(b)
	}
	rv := valuesOf(run)
	fnRows := functionsByCost(cr.FunctionRows())

	// The run is validated as the baselines are: a crashed run with no time in it is not
	// "100% faster".
	for i, b := range bv {
		if err := checkTime(cfg.baselines[i], b, rep.Cut); err != nil {
			return nil, err
		}
	}
	if err := checkTime(cfg.run, rv, rep.Cut); err != nil {
		return nil, err
	}
	var ins []subjectInput
	if cfg.perProcess {
		ins = perProcessInputs(cfg, bv, rv)
	} else {
		ins = runInputs(cfg, bv, rv)
	}
	var setUp []string
	if len(cfg.functions) > 0 {
		_, setUp = functionNames(cfg.functions, append(slices.Clone(bv), rv)...)
	}
	if len(ins) == 0 {
		also := ""
		if len(setUp) > 0 {
			also = fmt.Sprintf(" (besides set-up and tear-down, %s, which a GLOB must name without wildcards)", quoteNames(setUp))
		}
		return nil, fmt.Errorf("no function of %s or %s matches --function %s%s", cfg.baselines[0], cfg.run, strings.Join(cfg.functions, " --function "), also)
	}
	if len(setUp) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("set-up and tear-down left out as launch skew (name them in --function without wildcards to check them): %s", quoteNames(setUp)))
	}
	noEstimate, noNoise := 0, 0
	for _, in := range ins {
		s, ok := evaluate(in, cfg.limit, cfg.minShare)
		if !ok && len(bases) == 1 {
			noEstimate++
			if s.NoiseNs == 0 {
				noNoise++
			}
		}
		if s.Kind == "function" {
			if r, found := fnRows[s.Function]; found {
				s.CostNs, s.RankSum = r.costNs, r.rankSum
			}
		}
		rep.Subjects = append(rep.Subjects, s)
		if s.Status == statusFail {
			rep.Failed++
		}
	}
	rankSubjects(rep.Subjects)
	if noEstimate > 0 {
		// Welch's rule adds a side's term only when it has two values: with one process on a
		// side the noise is the other side's term alone, 0 when both have one.
		what := "noise 0"
		switch {
		case noNoise == 0:
			what = "the noise is the other side's term alone, the single process's spread unknown"
		case noNoise < noEstimate:
			what = fmt.Sprintf("noise 0 for %d, the other side's term alone for %d", noNoise, noEstimate-noNoise)
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d %s a single process on a side: no noise estimate from the spread between processes (%s); give --baseline two or more times to use the run-to-run spread", noEstimate, len(ins), plural(len(ins), "subject has", "subjects have"), what))
	}
	if len(cfg.functions) == 0 {
		rep.Functions = listedFunctions(fnRows, bv, rv)
	}
	rep.Verdict, rep.Headline = headline(cfg, rep)
	return rep, nil
}

// checkTime refuses a trace with no time to compare: a process ending inside calls it never
// left (a crashed or truncated run: its time would look short), no time in instrumented
// regions (only set-up, only empty calls), or a process with a negative or non-finite time
// (timestamps that overflow int64).
func checkTime(name string, v *runValues, cut string) error {
	for j, n := range v.open {
		if n > 0 {
			return fmt.Errorf("%s: %s ends with %d %s never left: a crashed or truncated run is not compared", name, v.labels[j], n, plural(int(n), "call", "calls"))
		}
	}
	for j, t := range v.total {
		if t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("%s: %s has a negative time in instrumented regions (%.0f ns): timestamps out of order or overflowing", name, v.labels[j], t)
		}
	}
	if m := mean(v.total); !(m > 0) || math.IsInf(m, 0) {
		return fmt.Errorf("%s: no time in instrumented regions%s", name, cutText(cut))
	}
	return nil
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quoteNames joins names for a message, escaped as the table escapes them.
func quoteNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = printable(n)
	}
	return strings.Join(out, ", ")
}

// printable returns name with control and other non-printable characters (an ESC sequence in
// a function name must not drive the terminal) escaped as strconv.Quote escapes them, without
// the quotes; a printable name is returned as it is.
func printable(name string) string {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return !strconv.IsPrint(r) }) {
		q := strconv.Quote(name)
		return q[1 : len(q)-1]
	}
	return name
}

func cutText(cut string) string {
	if cut == "" {
		return " (set-up and tear-down aside)"
	}
	return " in " + cut + " (set-up and tear-down aside)"
}

// sameProcesses checks that --per-process can match a's processes with b's by label.
func sameProcesses(a, b *trace.Trace) error {
	if a.NumProcesses() != b.NumProcesses() {
		return fmt.Errorf("--per-process needs runs of equal process count: %s has %d processes, %s has %d", a.Name(), a.NumProcesses(), b.Name(), b.NumProcesses())
	}
	have := map[string]bool{}
	for _, p := range a.Processes() {
		have[p.Label()] = true
	}
	for _, p := range b.Processes() {
		if !have[p.Label()] {
			return fmt.Errorf("--per-process: %s has %s, %s has not", b.Name(), p.Label(), a.Name())
		}
	}
	return nil
}

// slashStandIn replaces '/' before path.Match, whose * and ? never match its separator:
// function names are not paths (operator/(V const&)). U+FFFF is a noncharacter, never in a
// name a tool wrote on purpose.
const slashStandIn = "\uFFFF"

// globMatch reports whether name matches the glob pattern g: path.Match's syntax with * and ?
// matching '/' too.
func globMatch(g, name string) (bool, error) {
	return path.Match(strings.ReplaceAll(g, "/", slashStandIn), strings.ReplaceAll(name, "/", slashStandIn))
}

// isLiteral reports whether the glob g has no wildcard (*, ?, [) outside a backslash escape.
func isLiteral(g string) bool {
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return false
		}
	}
	return true
}

// matchFunction reports whether name matches one of the globs.
func matchFunction(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := globMatch(g, name); ok {
			return true
		}
	}
	return false
}

// functionNames returns the functions of the runs matching globs, sorted, and, apart, the
// functions of role set-up/tear-down that only a glob with wildcards matches: they are left
// out as the whole-run subject leaves them out (launch skew), unless a literal glob names them.
func functionNames(globs []string, vs ...*runValues) (names, setUp []string) {
	var literal []string
	for _, g := range globs {
		if isLiteral(g) {
			literal = append(literal, g)
		}
	}
	seen := map[string]bool{}
	for _, v := range vs {
		for name := range v.excl {
			if _, done := seen[name]; done || !matchFunction(globs, name) {
				continue
			}
			role := false
			for _, w := range vs {
				role = role || w.setUp[name]
			}
			seen[name] = !role || matchFunction(literal, name)
		}
	}
	for name, in := range seen {
		if in {
			names = append(names, name)
		} else {
			setUp = append(setUp, name)
		}
	}
	sort.Strings(names)
	sort.Strings(setUp)
	return names, setUp
}

// column returns the function's exclusive ns per process of v (zeros when v never calls it).
func (v *runValues) column(fn string) []float64 {
	if c, ok := v.excl[fn]; ok {
		return c
	}
	return make([]float64, len(v.total))
}

// runInputs returns the subjects of the whole runs: the run, or each matching function.
func runInputs(cfg *checkConfig, bv []*runValues, rv *runValues) []subjectInput {
	totals := make([][]float64, len(bv))
	for i, b := range bv {
		totals[i] = b.total
	}
	if len(cfg.functions) == 0 {
		return []subjectInput{{name: "run", kind: "run", base: totals, run: rv.total}}
	}
	var out []subjectInput
	fns, _ := functionNames(cfg.functions, append(slices.Clone(bv), rv)...)
	for _, fn := range fns {
		in := subjectInput{name: fn, kind: "function", function: fn, run: rv.column(fn), shareOf: totals[0]}
		for _, b := range bv {
			in.base = append(in.base, b.column(fn))
		}
		out = append(out, in)
	}
	return out
}

// perProcessInputs returns one subject per process (or per process and matching function),
// processes matched by label (sameProcesses has checked that every label is in every run).
func perProcessInputs(cfg *checkConfig, bv []*runValues, rv *runValues) []subjectInput {
	at := make([]map[string]int, len(bv))
	for i, b := range bv {
		at[i] = map[string]int{}
		for j, l := range b.labels {
			at[i][l] = j
		}
	}
	fns, _ := functionNames(cfg.functions, append(slices.Clone(bv), rv)...)
	var out []subjectInput
	for j, label := range rv.labels {
		if len(cfg.functions) == 0 {
			in := subjectInput{name: label, kind: "process", process: label, run: []float64{rv.total[j]}}
			for i, b := range bv {
				in.base = append(in.base, []float64{b.total[at[i][label]]})
			}
			in.culprit, in.culpritNs = processCulprit(bv[0], at[0][label], rv, j)
			out = append(out, in)
			continue
		}
		for _, fn := range fns {
			in := subjectInput{name: label + " " + fn, kind: "process function", process: label, function: fn,
				run: []float64{rv.column(fn)[j]}, shareOf: []float64{bv[0].total[at[0][label]]}}
			for i, b := range bv {
				in.base = append(in.base, []float64{b.column(fn)[at[i][label]]})
			}
			out = append(out, in)
		}
	}
	return out
}

// rankSubjects orders failures first, then within noise, then by relative change, largest
// first (a function new in the run first), then by name.
func rankSubjects(ss []*Subject) {
	order := map[string]int{statusFail: 0, statusNoise: 1, statusOK: 2, statusMinShare: 3}
	rel := func(s *Subject) float64 {
		if s.Change == nil {
			if s.ChangeNs > 0 {
				return math.Inf(1)
			}
			return 0
		}
		return *s.Change
	}
	sort.SliceStable(ss, func(i, j int) bool {
		a, b := ss[i], ss[j]
		if order[a.Status] != order[b.Status] {
			return order[a.Status] < order[b.Status]
		}
		if ra, rb := rel(a), rel(b); ra != rb {
			return ra > rb
		}
		return a.Name < b.Name
	})
}

// fnCost is compare's view of one function: its cost summed over the groups and the rank-sum
// verdict of its costliest group.
type fnCost struct {
	costNs  *float64
	rankSum string
	setUp   bool
	best    int64 // |cost| of the group whose verdict rankSum is
}

// functionsByCost sums compare's function rows over the groups.
func functionsByCost(rows []compare.FunctionRow) map[string]*fnCost {
	out := map[string]*fnCost{}
	for _, r := range rows {
		f := out[r.Function]
		if f == nil {
			c := 0.0
			f = &fnCost{costNs: &c, best: -1, setUp: r.Role == trace.SetUp}
			out[r.Function] = f
		}
		*f.costNs += float64(r.Cost)
		if a := max(r.Cost, -r.Cost); a > f.best {
			f.best, f.rankSum = a, r.Verdict
		}
	}
	return out
}

// listedFunctions returns the functions explaining the run's change, ranked by compare's cost
// (set-up and tear-down last, as compare ranks them), with their means and noise by the
// report's rule: Welch's with one baseline, the baselines' spread with more (bs[0] compared).
func listedFunctions(fn map[string]*fnCost, bs []*runValues, r *runValues) []*Subject {
	b := bs[0]
	base := mean(b.total)
	out := []*Subject{}
	for name, f := range fn {
		s := &Subject{Name: name, Kind: "function", Function: name, Processes: [2]int{len(b.total), len(r.total)},
			BaselineNs: mean(b.column(name)), RunNs: mean(r.column(name)), CostNs: f.costNs, RankSum: f.rankSum, SetUp: f.setUp}
		if len(bs) > 1 {
			means := make([]float64, len(bs))
			for i, v := range bs {
				means[i] = mean(v.column(name))
			}
			s.NoiseNs = spreadNoise(means)
		} else {
			s.NoiseNs, _ = welchNoise(b.column(name), r.column(name))
		}
		judge(s, math.Inf(1), 0)
		s.Status = ""
		if base > 0 {
			o := *f.costNs / base
			s.OfRun = &o
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.SetUp != b.SetUp {
			return !a.SetUp
		}
		if ca, cb := math.Abs(*a.CostNs), math.Abs(*b.CostNs); ca != cb {
			return ca > cb
		}
		return a.Name < b.Name
	})
	return out
}

// culprit returns the function whose change costs most (set-up and tear-down excluded), nil if
// no function got slower.
func culprit(fns []*Subject) *Subject {
	var c *Subject
	for _, f := range fns {
		if f.CostNs == nil || *f.CostNs <= 0 || f.SetUp {
			continue
		}
		if c == nil || *f.CostNs > *c.CostNs {
			c = f
		}
	}
	return c
}

// headline returns the verdict and the line that says it.
func headline(cfg *checkConfig, rep *Report) (string, string) {
	verdict := "ok"
	if rep.Failed > 0 {
		verdict = "FAIL"
	}
	limit := percent(cfg.limit)
	if len(cfg.functions) == 0 && !cfg.perProcess {
		s := rep.Subjects[0]
		line := fmt.Sprintf("%s: run %s than baseline (limit %s, noise %s)", verdict, slowerText(s), limit, noiseText(s))
		if c := culprit(rep.Functions); c != nil && s.ChangeNs > 0 && c.OfRun != nil {
			s.Culprit, s.CulpritOf = c.Name, c.OfRun
			line += fmt.Sprintf(", most in %s (%s)", printable(c.Name), signedPercent(*c.OfRun))
		}
		if s.Status == statusNoise {
			line += "; the change is within the noise"
		}
		return verdict, line
	}
	var what string
	n := len(rep.Subjects)
	switch {
	case cfg.perProcess && len(cfg.functions) > 0:
		what = plural(n, "process function", "process functions")
	case cfg.perProcess:
		what = plural(n, "process", "processes")
	default:
		what = plural(n, "function", "functions")
	}
	if rep.Failed > 0 {
		var worst []string
		for _, s := range rep.Subjects {
			if s.Status == statusFail && len(worst) < 3 {
				w := fmt.Sprintf("%s %s", printable(s.Name), changeText(s))
				if s.Culprit != "" {
					w += fmt.Sprintf(" (most in %s, %s)", printable(s.Culprit), signedPercent(*s.CulpritOf))
				}
				worst = append(worst, w)
			}
		}
		more := ""
		if rep.Failed > len(worst) {
			more = ", ..."
		}
		return verdict, fmt.Sprintf("FAIL: %d of %d %s slower than the limit (%s) and the noise: %s%s",
			rep.Failed, len(rep.Subjects), what, limit, strings.Join(worst, ", "), more)
	}
	s := rep.Subjects[0]
	return verdict, fmt.Sprintf("ok: %d %s within the limit (%s) or the noise; largest change %s %s",
		n, what, limit, printable(s.Name), changeText(s))
}

func percent(x float64) string {
	return strconv.FormatFloat(100*x, 'g', 4, 64) + "%"
}

func signedPercent(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }

// changeText is a subject's relative change, "+12.3%", or "new" for a function new in the run.
func changeText(s *Subject) string {
	if s.Change == nil {
		if s.RunNs > 0 {
			return "new"
		}
		return "0"
	}
	return signedPercent(*s.Change)
}

func slowerText(s *Subject) string {
	if s.Change == nil {
		return "not comparable (no time in the baseline)"
	}
	c := *s.Change
	if c < 0 {
		return fmt.Sprintf("%.1f%% faster", -100*c)
	}
	return fmt.Sprintf("%.1f%% slower", 100*c)
}

func noiseText(s *Subject) string {
	if s.BaselineNs > 0 {
		return fmt.Sprintf("%.1f%%", 100*s.NoiseNs/s.BaselineNs)
	}
	return dur(s.NoiseNs)
}

// dur formats ns as the tables of the builtins do (arrowio.FormatDuration):
// 789 ns, 45.60 µs, 12.34 ms, 1.234 s.
func dur(ns float64) string {
	if math.IsNaN(ns) || math.IsInf(ns, 0) || math.Abs(ns) > math.MaxInt64/2 {
		return fmt.Sprintf("%g ns", ns)
	}
	return arrowio.FormatDuration(int64(math.Round(ns)))
}

func signedDur(ns float64) string {
	if ns >= 0 {
		return "+" + dur(ns)
	}
	return dur(ns)
}

// writeText writes the headline, the subjects and the listed functions as a table.
func writeText(w io.Writer, rep *Report, top int) error {
	var b strings.Builder
	b.WriteString(rep.Headline + "\n")
	fmt.Fprintf(&b, "baseline %s", strings.Join(rep.Baselines, ", "))
	fmt.Fprintf(&b, "; run %s; limit %s", rep.Run, percent(rep.Limit))
	if rep.Cut != "" {
		fmt.Fprintf(&b, "; cut %s", rep.Cut)
	}
	fmt.Fprintf(&b, "\n%s\n", rep.NoiseRule)
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	b.WriteString("\n")
	rows := [][]string{{"SUBJECT", "BASELINE", "RUN", "CHANGE", "RATIO", "NOISE", "STATUS"}}
	shown := 0
	for _, s := range rep.Subjects {
		if s.Status != statusFail && shown >= top {
			continue
		}
		if s.Status != statusFail {
			shown++
		}
		rows = append(rows, []string{printable(s.Name), dur(s.BaselineNs), dur(s.RunNs),
			signedDur(s.ChangeNs) + " (" + changeText(s) + ")", ratioText(s), dur(s.NoiseNs), s.Status})
	}
	if len(rows) > 1 { // --top 0 and no failure: no table, only the line below
		writeTable(&b, rows)
	}
	if hidden := len(rep.Subjects) - rep.Failed - shown; hidden > 0 {
		fmt.Fprintf(&b, "... %d more %s not failing (--top %d; --json lists all)\n", hidden, plural(hidden, "subject", "subjects"), top)
	}
	if len(rep.Functions) > 0 && top > 0 {
		b.WriteString("\nfunctions by what their change costs (exclusive time per process; OF RUN: cost over the run's baseline time per process; RANK-SUM: compare's verdict):\n")
		rows := [][]string{{"FUNCTION", "BASELINE", "RUN", "CHANGE", "RATIO", "NOISE", "COST", "OF RUN", "RANK-SUM"}}
		for i, f := range rep.Functions {
			if i == top {
				break
			}
			ofRun := ""
			if f.OfRun != nil {
				ofRun = signedPercent(*f.OfRun)
			}
			rows = append(rows, []string{printable(f.Name), dur(f.BaselineNs), dur(f.RunNs),
				signedDur(f.ChangeNs), ratioText(f), dur(f.NoiseNs), signedDur(*f.CostNs), ofRun, f.RankSum})
		}
		writeTable(&b, rows)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes rows as columns two spaces apart: the first left-aligned, the others
// right-aligned (numbers), the last left-aligned (words).
func writeTable(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case i == 0:
				line.WriteString(c + pad)
			case i == len(r)-1:
				line.WriteString("  " + c)
			default:
				line.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func ratioText(s *Subject) string {
	if s.Ratio == nil {
		if s.RunNs > 0 {
			return "new"
		}
		return "-"
	}
	return fmt.Sprintf("%.3f", *s.Ratio)
}

// writeJSON writes the report as one JSON object.
func writeJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// JUnit XML: one test suite, one test case per subject, a failure element for each failure.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
	Out      string      `xml:"system-out,omitempty"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Out       string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitXML returns the report as JUnit XML.
func junitXML(rep *Report) ([]byte, error) {
	suite := junitSuite{Name: "tracebook check", Tests: len(rep.Subjects), Failures: rep.Failed,
		Out: rep.Headline + "\n" + rep.NoiseRule + "\n" + strings.Join(rep.Notes, "\n")}
	for _, s := range rep.Subjects {
		line := fmt.Sprintf("%s: baseline %s, run %s, change %s (%s), noise %s, limit %s: %s",
			s.Name, dur(s.BaselineNs), dur(s.RunNs), signedDur(s.ChangeNs), changeText(s), dur(s.NoiseNs), percent(rep.Limit), s.Status)
		c := junitCase{Name: s.Name, Classname: "tracebook.check." + strings.ReplaceAll(s.Kind, " ", "_"), Out: line}
		if s.Status == statusFail {
			c.Failure = &junitFailure{Message: line, Type: "slowdown", Text: line}
		}
		suite.Cases = append(suite.Cases, c)
	}
	out, err := xml.MarshalIndent(suite, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

func writeJUnitFile(p string, rep *Report) error {
	b, err := junitXML(rep)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return fmt.Errorf("--junit: %v", err)
	}
	return nil
}
