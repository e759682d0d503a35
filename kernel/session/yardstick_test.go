package session

// The yardstick: Go's own runnable test programs, every
// $(go env GOROOT)/test/*.go and test/typeparam/*.go whose first line is
// "// run", each run through a fresh Session in its own process (a re-exec
// of the test binary) with a timeout: the file as one cell (its package
// clause blanked, "main()" appended), then the same cell again in the same
// session. A run passes when it ends without an error, a panic or a
// timeout, prints no BUG or FAIL, and prints what the program's .out file
// holds, where there is one.
//
// A program that cannot apply to an interpreter is excluded, for a reason
// read from its source (yardstickExclusion). testdata/yardstick/pass.txt
// lists the programs expected to pass both runs: one that fails is a
// regression and fails the test; one that passes and is not listed is
// reported, so the list can grow (TRACEBOOK_YARDSTICK_UPDATE=1 rewrites it).
//
// It runs when TRACEBOOK_YARDSTICK=1 (make test-yardstick, part of make
// test); it takes a few minutes. TRACEBOOK_YARDSTICK_ONLY=substring narrows
// it to some files (no list check then), TRACEBOOK_YARDSTICK_OUT=file writes
// one JSON line per program, TRACEBOOK_YARDSTICK_MODES=session,evalpath
// also measures the bare interpreter (interp.EvalPath of the file).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/kernel"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

const (
	yardstickRunTimeout   = 20 * time.Second // one run of the cell
	yardstickChildTimeout = 60 * time.Second // the child process, both runs
	yardstickPassList     = "testdata/yardstick/pass.txt"
	// yardstickRetryScale multiplies both timeouts for the one retry of a
	// program that timed out among the parallel runs: a busy machine makes
	// a program slow, not wrong (its output is checked all the same).
	yardstickRetryScale = 3
)

// ysTimeoutScale is the factor a child process applies to
// yardstickRunTimeout (TRACEBOOK_YARDSTICK_SCALE, set for retries).
func ysTimeoutScale() time.Duration {
	if n, err := strconv.Atoi(os.Getenv("TRACEBOOK_YARDSTICK_SCALE")); err == nil && n > 1 {
		return time.Duration(n)
	}
	return 1
}

// ysRun is what one run of a program printed and how it ended.
type ysRun struct {
	Combined string `json:"combined"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Err      string `json:"err,omitempty"`
	GoPanic  string `json:"go_panic,omitempty"`
	TimedOut bool   `json:"timed_out,omitempty"`
}

// ysResult is the verdict on one program in one mode.
type ysResult struct {
	File    string   `json:"file"` // relative to GOROOT: test/x.go
	Mode    string   `json:"mode"`
	Status  string   `json:"status"` // pass, fail, excluded
	Reason  string   `json:"reason,omitempty"`
	Runs    []string `json:"runs,omitempty"` // per run: "" (pass) or why it failed
	Detail  string   `json:"detail,omitempty"`
	Seconds float64  `json:"seconds"`
}

// ysTee records one stream and the interleaving of both.
type ysTee struct {
	mu        *sync.Mutex
	own, comb *bytes.Buffer
}

func (t ysTee) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.own.Write(p)
	t.comb.Write(p)
	return len(p), nil
}

// yardstickCell is the program as a cell: the package clause blanked (line
// numbers stay those of the file) and main called last.
func yardstickCell(src string) string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "package ") {
			lines[i] = ""
			break
		}
	}
	return strings.Join(lines, "\n") + "\nmain()\n"
}

// TestYardstickChild runs one program in this process (the parent starts
// it) and writes the runs as JSON to TRACEBOOK_YARDSTICK_RESULT.
func TestYardstickChild(t *testing.T) {
	file := os.Getenv("TRACEBOOK_YARDSTICK_FILE")
	if file == "" {
		t.Skip("started by TestYardstick")
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var runs []ysRun
	switch mode := os.Getenv("TRACEBOOK_YARDSTICK_MODE"); mode {
	case "session":
		var mu sync.Mutex
		var out, errb, comb bytes.Buffer
		panics := make(chan string, 16)
		s, err := New(Options{IO: kernel.Frontend{Stdout: ysTee{&mu, &out, &comb}, Stderr: ysTee{&mu, &errb, &comb},
			Error: func(e *kernel.ExecError) {
				select {
				case panics <- e.Name + ": " + e.Value:
				default:
				}
			}}, Symbols: symbols.Symbols, Preimport: []string{"github.com/tracebook/tracebook/builtins/display"}})
		if err != nil {
			t.Fatal(err)
		}
		cell := yardstickCell(string(src))
		for run := 0; run < 2; run++ {
			mu.Lock()
			out.Reset()
			errb.Reset()
			comb.Reset()
			mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), yardstickRunTimeout*ysTimeoutScale())
			r := s.Execute(ctx, cell)
			s.Sync()
			var res ysRun
			res.TimedOut = ctx.Err() != nil
			cancel()
			if r.Err != nil {
				res.Err = r.Err.Name + ": " + r.Err.Value
				if tb := strings.Join(r.Err.Traceback, "\n"); tb != "" {
					res.Err += "\n" + tb
				}
			}
			select {
			case p := <-panics:
				res.GoPanic = p
			case <-time.After(20 * time.Millisecond):
			}
			mu.Lock()
			res.Combined, res.Stdout, res.Stderr = comb.String(), out.String(), errb.String()
			mu.Unlock()
			runs = append(runs, res)
			if res.TimedOut {
				break // the program may still run; a second run would race it
			}
		}
	case "evalpath":
		var mu sync.Mutex
		var out, errb, comb bytes.Buffer
		i := interp.New(interp.Options{Stdout: ysTee{&mu, &out, &comb}, Stderr: ysTee{&mu, &errb, &comb}, GoPath: os.TempDir()})
		if err := i.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- fmt.Errorf("host panic: %v", r)
				}
			}()
			_, err := i.EvalPath(file)
			done <- err
		}()
		var res ysRun
		select {
		case err := <-done:
			if err != nil {
				res.Err = err.Error()
			}
		case <-time.After(yardstickRunTimeout * ysTimeoutScale()):
			res.TimedOut = true
		}
		mu.Lock()
		res.Combined, res.Stdout, res.Stderr = comb.String(), out.String(), errb.String()
		mu.Unlock()
		runs = append(runs, res)
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	b, err := json.Marshal(runs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("TRACEBOOK_YARDSTICK_RESULT"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // goroutines of the program may still run
}

// ysSourceExclusions are the uses of compiled-code internals that exclude a
// program.
var ysSourceExclusions = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`runtime\.SetFinalizer|runtime\.AddCleanup`), "finalizers: when the GC runs them depends on compiled code's allocation"},
	{regexp.MustCompile(`runtime\.ReadMemStats|runtime\.MemProfileRate|runtime\.MemProfile\(`), "GC statistics of compiled code"},
	{regexp.MustCompile(`runtime\.Callers\(|runtime\.CallersFrames|runtime\.FuncForPC|runtime\.Stack\(`), "stack frames and program counters of compiled code"},
	{regexp.MustCompile(`func checkLinear\(`), "its verdict is a wall-clock measurement (checkLinear times f(n) against f(2n)): on a busy machine it fails or times out whatever the interpreter does"},
}

// yardstickExclusion says why a program does not apply to an interpreter,
// from its source, or "".
func yardstickExclusion(src []byte) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return ""
	}
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		switch {
		case p == "unsafe":
			return "imports unsafe: memory layout and pointer arithmetic of compiled code"
		case p == "syscall":
			return "imports syscall: the kernel's sandbox has no syscall package"
		case p == "os/exec":
			return "imports os/exec: runs the Go toolchain or itself as a subprocess"
		case p == "runtime/debug":
			return "imports runtime/debug: GC and stack internals of compiled code"
		case strings.HasPrefix(p, "internal/") || strings.Contains(p, "/internal/"):
			return "imports " + p + ": internal packages of the standard library"
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "package ") {
			break
		}
		if constraint.IsGoBuild(l) {
			x, err := constraint.Parse(l)
			if err == nil && !x.Eval(func(tag string) bool {
				switch tag {
				case runtime.GOOS, runtime.GOARCH, "gc", "unix", "cgo":
					return true
				}
				return strings.HasPrefix(tag, "go1.")
			}) {
				return "build constraint " + strings.TrimPrefix(l, "//go:build ") + " excludes " + runtime.GOOS + "/" + runtime.GOARCH
			}
		}
	}
	for _, m := range ysSourceExclusions {
		if m.re.Match(src) {
			return m.why
		}
	}
	return ""
}

// yardstickFiles lists the "// run" programs, relative to GOROOT.
func yardstickFiles(t *testing.T, root string) []string {
	var files []string
	for _, dir := range []string{"test", "test/typeparam"} {
		m, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimRight(first, "\r ") == "// run" {
				rel, _ := filepath.Rel(root, f)
				files = append(files, filepath.ToSlash(rel))
			}
		}
	}
	sort.Strings(files)
	return files
}

var (
	ysBug   = regexp.MustCompile(`BUG|FAIL`)
	ysExit0 = regexp.MustCompile(`^(panic: )?os\.Exit\(0\)( \(cell line [0-9:]+\))?$`)
)

// yardstickJudge says why a run failed, or "".
func yardstickJudge(want []byte, haveOut bool, r ysRun) string {
	if r.TimedOut {
		return "timeout"
	}
	// os.Exit(0) ends a program normally (the session reports it as an error)
	if first := strings.SplitN(r.Err, "\n", 2)[0]; r.Err != "" && !ysExit0.MatchString(first) {
		return "error: " + firstLines(r.Err, 3)
	}
	if r.GoPanic != "" {
		return "goroutine panic: " + firstLines(r.GoPanic, 2)
	}
	if haveOut {
		w := string(want)
		if r.Combined == w || r.Stdout+r.Stderr == w || r.Stderr+r.Stdout == w {
			return ""
		}
		return "output differs from .out: want " + strconv.Quote(firstLines(w, 3)) + ", got " + strconv.Quote(firstLines(r.Combined, 3))
	}
	if strings.Contains(r.Combined, "panic:") {
		return "panic printed: " + firstLines(r.Combined, 3)
	}
	if ysBug.MatchString(r.Combined) {
		return "BUG/FAIL printed: " + firstLines(r.Combined, 3)
	}
	return ""
}

func firstLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = append(ls[:n], "...")
	}
	return strings.Join(ls, "\n")
}

func yardstickRunChild(root, rel, mode, tmp string, scale int) ysResult {
	r := ysResult{File: rel, Mode: mode}
	file := filepath.Join(root, rel)
	resPath := filepath.Join(tmp, strings.NewReplacer("/", "_", ".", "_").Replace(rel)+"-"+mode+".json")
	ctx, cancel := context.WithTimeout(context.Background(), yardstickChildTimeout*time.Duration(scale))
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestYardstickChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TRACEBOOK_YARDSTICK_FILE="+file, "TRACEBOOK_YARDSTICK_MODE="+mode,
		"TRACEBOOK_YARDSTICK_RESULT="+resPath, "TRACEBOOK_YARDSTICK=", fmt.Sprintf("TRACEBOOK_YARDSTICK_SCALE=%d", scale))
	cmd.Dir = filepath.Dir(file)
	var cout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &cout, &cout
	start := time.Now()
	err := cmd.Run()
	r.Seconds = time.Since(start).Seconds()
	b, rerr := os.ReadFile(resPath)
	if rerr != nil {
		r.Status = "fail"
		if ctx.Err() != nil {
			r.Reason = "timeout (child killed)"
		} else {
			r.Reason = fmt.Sprintf("process died (%v)", err)
		}
		r.Detail = firstLines(cout.String(), 8)
		return r
	}
	var runs []ysRun
	if err := json.Unmarshal(b, &runs); err != nil {
		r.Status, r.Reason = "fail", "bad result file: "+err.Error()
		return r
	}
	want, werr := os.ReadFile(strings.TrimSuffix(file, ".go") + ".out")
	r.Status = "pass"
	for i, run := range runs {
		why := yardstickJudge(want, werr == nil, run)
		r.Runs = append(r.Runs, why)
		if why != "" && r.Status == "pass" {
			r.Status, r.Reason = "fail", fmt.Sprintf("run %d: %s", i+1, why)
		}
	}
	if mode == "session" && len(runs) < 2 && r.Status == "pass" {
		r.Status, r.Reason = "fail", "no second run"
	}
	return r
}

func TestYardstick(t *testing.T) {
	if os.Getenv("TRACEBOOK_YARDSTICK") != "1" {
		t.Skip("set TRACEBOOK_YARDSTICK=1 (make test-yardstick)")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	files := yardstickFiles(t, root)
	if len(files) < 200 {
		t.Fatalf("only %d \"// run\" programs under %s/test: is the Go distribution complete?", len(files), root)
	}
	only := os.Getenv("TRACEBOOK_YARDSTICK_ONLY")
	modes := strings.Split(os.Getenv("TRACEBOOK_YARDSTICK_MODES"), ",")
	if modes[0] == "" {
		modes = []string{"session"}
	}
	tmp := t.TempDir()

	type job struct {
		rel, mode string
		excl      string
	}
	var jobs []job
	for _, rel := range files {
		if only != "" && !strings.Contains(rel, only) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		excl := yardstickExclusion(src)
		for _, m := range modes {
			jobs = append(jobs, job{rel, m, excl})
		}
	}
	results := make([]ysResult, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	workers := runtime.NumCPU()
	if workers > 4 {
		workers = 4
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				if j.excl != "" {
					results[i] = ysResult{File: j.rel, Mode: j.mode, Status: "excluded", Reason: j.excl}
					continue
				}
				results[i] = yardstickRunChild(root, j.rel, j.mode, tmp, 1)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	// A program that timed out among the parallel runs is run once more,
	// alone, with yardstickRetryScale times the time: it still has to print
	// the right output, only the machine's load is taken out of the verdict.
	for i, r := range results {
		if r.Status == "fail" && strings.Contains(r.Reason, "timeout") {
			again := yardstickRunChild(root, jobs[i].rel, jobs[i].mode, tmp, yardstickRetryScale)
			fmt.Printf("yardstick: %s %s timed out among the parallel runs; alone with %dx the time: %s %s\n",
				r.Mode, r.File, yardstickRetryScale, again.Status, again.Reason)
			results[i] = again
		}
	}

	if p := os.Getenv("TRACEBOOK_YARDSTICK_OUT"); p != "" {
		var b bytes.Buffer
		for _, r := range results {
			line, _ := json.Marshal(r)
			b.Write(append(line, '\n'))
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Counts per mode and directory, and per run for the session.
	for _, m := range modes {
		for _, dir := range []string{"test/", "test/typeparam/"} {
			var applicable, pass, excluded int
			runPass := [2]int{}
			for _, r := range results {
				if r.Mode != m || !strings.HasPrefix(r.File, dir) || (dir == "test/" && strings.HasPrefix(r.File, "test/typeparam/")) {
					continue
				}
				if r.Status == "excluded" {
					excluded++
					continue
				}
				applicable++
				if r.Status == "pass" {
					pass++
				}
				for k := 0; k < 2 && k < len(r.Runs); k++ {
					if r.Runs[k] == "" {
						runPass[k]++
					}
				}
			}
			if applicable == 0 {
				continue
			}
			line := fmt.Sprintf("yardstick %s %s: %d/%d pass (%.0f%%), %d excluded", m, strings.TrimSuffix(dir, "/"),
				pass, applicable, 100*float64(pass)/float64(applicable), excluded)
			if m == "session" {
				line += fmt.Sprintf("; run 1 %d, run 2 %d", runPass[0], runPass[1])
			}
			fmt.Println(line)
		}
	}
	for _, r := range results {
		if r.Status == "fail" && testing.Verbose() {
			fmt.Printf("FAILS %s %s: %s\n", r.Mode, r.File, firstLines(r.Reason, 2))
		}
	}
	if only != "" {
		return
	}

	// The checked-in list of programs that pass through the session.
	var passing []string
	got := map[string]ysResult{}
	for _, r := range results {
		if r.Mode != "session" {
			continue
		}
		got[r.File] = r
		if r.Status == "pass" {
			passing = append(passing, r.File)
		}
	}
	if len(got) == 0 {
		return
	}
	if os.Getenv("TRACEBOOK_YARDSTICK_UPDATE") == "1" {
		b := "# Go test programs that pass through the session, both runs (kernel/session/yardstick_test.go).\n" +
			"# Checked by make test-yardstick; rewritten by TRACEBOOK_YARDSTICK_UPDATE=1. " + runtime.Version() + "\n" +
			strings.Join(passing, "\n") + "\n"
		if err := os.WriteFile(yardstickPassList, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d programs to %s", len(passing), yardstickPassList)
		return
	}
	listB, err := os.ReadFile(yardstickPassList)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(string(listB), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			listed[l] = true
		}
	}
	for f := range listed {
		r, ok := got[f]
		switch {
		case !ok:
			t.Logf("%s is listed but not in this Go distribution (%s)", f, runtime.Version())
		case r.Status == "excluded":
			t.Errorf("%s is listed as passing but now excluded: %s", f, r.Reason)
		case r.Status != "pass":
			t.Errorf("regression: %s passed before, now %s\n%s", f, r.Reason, r.Detail)
		}
	}
	var fresh []string
	for _, f := range passing {
		if !listed[f] {
			fresh = append(fresh, f)
		}
	}
	if len(fresh) > 0 {
		fmt.Printf("yardstick: %d programs pass that %s does not list (add them: TRACEBOOK_YARDSTICK_UPDATE=1 make test-yardstick):\n  %s\n",
			len(fresh), yardstickPassList, strings.Join(fresh, "\n  "))
	}
}
