package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// The convert and info commands, run as the built binary.
func TestConvertAndInfo(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracebook")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	anchor := filepath.Join("..", "..", "test", "data", "traces", "ping-pong-otf2", "traces.otf2")
	src, err := trace.Load(anchor)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	for _, ext := range []string{"parquet", "arrow", "csv"} {
		out := filepath.Join(dir, "events."+ext)
		if msg, err := run("convert", anchor, out); err != nil {
			t.Fatalf("convert to %s: %v\n%s", ext, err, msg)
		}
		back, err := trace.Load(out)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if back.NumEvents() != src.NumEvents() || back.NumProcesses() != src.NumProcesses() {
			t.Fatalf("%s: %d events in %d locations, want %d in %d", ext, back.NumEvents(), back.NumProcesses(), src.NumEvents(), src.NumProcesses())
		}
		info, err := run("info", out)
		if err != nil || !strings.Contains(info, "2 locations") {
			t.Fatalf("info %s: %v\n%s", ext, err, info)
		}
	}
	info, err := run("info", anchor)
	if err != nil || info != src.Summary() {
		t.Fatalf("info of the OTF2 trace: %v\n%q\nwant %q", err, info, src.Summary())
	}
	// wrong arguments and missing files: a non-zero exit and a message naming the problem
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", anchor}, "need IN and OUT"},
		{[]string{"info"}, "need one TRACE"},
		{[]string{"info", filepath.Join(dir, "nosuch.otf2")}, "nosuch.otf2"},
		{[]string{"convert", anchor, filepath.Join(dir, "out.xyz")}, "xyz"},
	} {
		msg, err := run(c.args...)
		if err == nil || !strings.Contains(msg, c.want) {
			t.Errorf("%v: err %v, output %q; want a failure mentioning %q", c.args, err, msg, c.want)
		}
	}
}

// writeOTF2 has the reference OTF2 library (python3-otf2, through the
// Recorder of test/tools/otf2gen.py, whose own modes close every call)
// write the locations given as Python lists of (ticks, "Enter"|"Leave",
// region) to dir/trace; it skips when the library is missing, unless
// TRACEBOOK_REQUIRE_TOOLS=1.
func writeOTF2(t *testing.T, dir string, locations []string) string {
	t.Helper()
	tools, err := filepath.Abs(filepath.Join("..", "..", "test", "tools"))
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("/usr/bin/python3", "-I", "-c", "import otf2").Run(); err != nil {
		if os.Getenv("TRACEBOOK_REQUIRE_TOOLS") == "1" {
			t.Fatalf("python3-otf2 is missing: %v", err)
		}
		t.Skip("python3-otf2 is missing (apt-get install python3-otf2)")
	}
	var b strings.Builder
	b.WriteString("import sys\nsys.path.insert(0, sys.argv[1])\nimport otf2gen\n" +
		"rec = otf2gen.Recorder(sys.argv[2], 10**9, None)\n")
	b.WriteString("rec.make_locations(" + strconv.Itoa(len(locations)) + ", 0)\n")
	for i, l := range locations {
		b.WriteString("rec.write_location(" + strconv.Itoa(i) + ", [(t, k, {'region': r}) for t, k, r in " + l + "])\n")
	}
	b.WriteString("rec.close()\n")
	script := filepath.Join(dir, "write.py")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "trace")
	if msg, err := exec.Command("/usr/bin/python3", "-I", script, tools, out).CombinedOutput(); err != nil {
		t.Fatalf("writing the OTF2 trace: %v\n%s", err, msg)
	}
	return filepath.Join(out, "traces.otf2")
}

// `tracebook info` of OTF2 traces with calls never left (as a killed Score-P
// run leaves them) and mismatched Leaves: after the summary with the totals,
// each repaired location when there are at most 10 of them, else the 10 with
// the most repairs.
func TestInfoReportsRepairs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracebook")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	few := writeOTF2(t, filepath.Join(dir, "few"), []string{
		`[(10, "Enter", "main"), (20, "Enter", "a"), (30, "Leave", "a"), (40, "Leave", "main")]`,
		`[(10, "Enter", "main"), (20, "Enter", "a"), (30, "Enter", "b")]`,
		`[(5, "Leave", "b"), (10, "Enter", "main"), (20, "Enter", "a"), (30, "Enter", "b"), (40, "Leave", "main"),
		  (50, "Enter", "a"), (60, "Leave", "b"), (70, "Leave", "a")]`,
	})
	// location i < 12 enters i+1 nested calls and leaves none; location 12 is properly nested
	var many []string
	for i := 0; i < 12; i++ {
		many = append(many, "[(10*j, 'Enter', 'f') for j in range("+strconv.Itoa(i+1)+")]")
	}
	many = append(many, `[(0, "Enter", "f"), (1, "Leave", "f")]`)
	manyPath := writeOTF2(t, filepath.Join(dir, "many"), many)
	// exactly 10 repaired locations, the last with the most: listed in location order
	var ten []string
	tenLines := "call stack repairs by location:\n"
	for i := 0; i < 10; i++ {
		open := "1 call" // location 9 has 2
		if i == 9 {
			open = "2 calls"
		}
		ten = append(ten, "[(10*j, 'Enter', 'f') for j in range("+open[:1]+")]")
		tenLines += "  rank " + strconv.Itoa(i) + ": " + open + " left open at the end (closed at the last event)\n"
	}
	tenPath := writeOTF2(t, filepath.Join(dir, "ten"), ten)

	for _, c := range []struct {
		path, total, locations string
	}{
		{few, "call stacks repaired on 2 of 3 locations: 3 calls left open at the end (closed at the last event), " +
			"1 Leave of an enclosing call (closing 2 calls never left inside), 1 Leave matching no open call (ignored), " +
			"1 Leave with no call open (ignored)\n",
			`call stack repairs by location:
  rank 1: 3 calls left open at the end (closed at the last event)
  rank 2: 1 Leave of an enclosing call (closing 2 calls never left inside), 1 Leave matching no open call (ignored), 1 Leave with no call open (ignored)
`},
		{manyPath, "call stacks repaired on 12 of 13 locations: 78 calls left open at the end (closed at the last event)\n",
			`call stack repairs, the 10 of 12 repaired locations with the most:
  rank 11: 12 calls left open at the end (closed at the last event)
  rank 10: 11 calls left open at the end (closed at the last event)
  rank 9: 10 calls left open at the end (closed at the last event)
  rank 8: 9 calls left open at the end (closed at the last event)
  rank 7: 8 calls left open at the end (closed at the last event)
  rank 6: 7 calls left open at the end (closed at the last event)
  rank 5: 6 calls left open at the end (closed at the last event)
  rank 4: 5 calls left open at the end (closed at the last event)
  rank 3: 4 calls left open at the end (closed at the last event)
  rank 2: 3 calls left open at the end (closed at the last event)
`},
		{tenPath, "call stacks repaired on 10 of 10 locations: 11 calls left open at the end (closed at the last event)\n", tenLines},
	} {
		tr, err := trace.Load(c.path)
		if err != nil {
			t.Fatal(err)
		}
		sum := tr.Summary()
		if !strings.Contains(sum, "\n"+c.total) {
			t.Errorf("%s: summary lacks %q:\n%s", c.path, c.total, sum)
		}
		out, err := exec.Command(bin, "info", c.path).CombinedOutput()
		if err != nil || string(out) != sum+c.locations {
			t.Errorf("info %s: %v\n%s\nwant the summary and\n%s", c.path, err, out, c.locations)
		}
	}
}
