// Package tooltest runs the external reference tools the trace tests
// compare against: otf2gen.py (python3-otf2), otf2-print (otf2-tools) and
// the C library (libotf2-trace-dev). Tests skip when a tool is missing,
// unless TRACEBOOK_REQUIRE_TOOLS=1, which turns the skip into a failure
// naming the package to install.
package tooltest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Apt is the command that installs every tool.
const Apt = "apt-get install python3-otf2 otf2-tools libotf2-trace-dev gcc"

// Python is the interpreter with python3-otf2.
const Python = "/usr/bin/python3"

// root is the repository root.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	// builtins/internal/tooltest -> repository root
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Gen is otf2gen.py (a copy of the team's shared tool lives in test/tools).
func Gen() string { return filepath.Join(root(), "test", "tools", "otf2gen.py") }

// Traces is the folder of real Score-P traces (test/data/traces, MIT, from LLNL pipit).
func Traces() string { return filepath.Join(root(), "test", "data", "traces") }

func missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("TRACEBOOK_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s is missing; install the reference tools: %s", what, Apt)
	}
	t.Skipf("%s is missing (install: %s)", what, Apt)
}

// RequireGen skips (or fails) unless otf2gen.py can run.
func RequireGen(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(Gen()); err != nil {
		missing(t, Gen())
	}
	// -I: the working directory (a Go package dir with an otf2/ folder) must
	// not pass for the Python module as a namespace package
	if err := exec.Command(Python, "-I", "-c", "import otf2").Run(); err != nil {
		missing(t, "python3-otf2 ("+Python+" -c 'import otf2')")
	}
}

// RequireBinary skips (or fails) unless the program is on PATH.
func RequireBinary(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, name)
	}
	return p
}

// Generate runs otf2gen.py with args plus --out dir/trace and --expect
// dir/expect.jsonl and returns the anchor path and the expected events.
func Generate(t testing.TB, dir string, args ...string) (anchor string, expect []Expected) {
	t.Helper()
	RequireGen(t)
	out := filepath.Join(dir, "trace")
	exp := filepath.Join(dir, "expect.jsonl")
	cmd := exec.Command(Python, append(append([]string{Gen()}, args...), "--out", out, "--expect", exp)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("otf2gen %v: %v\n%s", args, err, b)
	}
	f, err := os.Open(exp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e Expected
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		expect = append(expect, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, "traces.otf2"), expect
}

// Expected is one line of otf2gen.py --expect.
type Expected struct {
	Loc      int    `json:"loc"`
	T        uint64 `json:"t"`
	Kind     string `json:"kind"`
	Region   string `json:"region"`
	Peer     uint32 `json:"peer"`
	Comm     string `json:"comm"`
	Tag      uint32 `json:"tag"`
	Bytes    uint64 `json:"bytes"`
	Req      uint64 `json:"req"`
	Op       string `json:"op"`
	Root     uint32 `json:"root"`
	Sent     uint64 `json:"sent"`
	Received uint64 `json:"received"`
}

// ByLoc groups expected events by location, keeping their order.
func ByLoc(exp []Expected) map[int][]Expected {
	m := map[int][]Expected{}
	for _, e := range exp {
		m[e.Loc] = append(m[e.Loc], e)
	}
	return m
}

// BenchTrace returns the anchor of a large otf2gen.py spmd trace (8 ranks,
// 4000 iterations, about 1M events), written once into the temporary
// directory and reused by later benchmark runs.
func BenchTrace(b testing.TB) string {
	b.Helper()
	RequireGen(b)
	dir := filepath.Join(os.TempDir(), "tracebook-bench-spmd-8x4000")
	anchor := filepath.Join(dir, "traces.otf2")
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return anchor
	}
	cmd := exec.Command(Python, Gen(), "spmd", "--procs", "8", "--iters", "4000", "--seed", "1", "--out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("otf2gen: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
	return anchor
}
