package trace

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// unclosedOTF2 has the reference OTF2 library (python3-otf2, through
// otf2gen.py's Recorder; otf2gen's own modes always close every call) write
// three locations: properly nested; main{a{b and an MpiSend, never left (a
// killed run); a Leave before any call, then main{a{b} left by main's Leave,
// then a{ left by b's and a's Leaves.
const unclosedOTF2 = `
import sys
sys.path.insert(0, sys.argv[1])
import otf2gen
rec = otf2gen.Recorder(sys.argv[2], 10**9, None)
rec.make_locations(3, 0)
E, L = "Enter", "Leave"
def ev(t, k, r): return (t, k, {"region": r})
rec.write_location(0, [ev(10, E, "main"), ev(20, E, "a"), ev(30, L, "a"), ev(40, L, "main")])
rec.write_location(1, [ev(10, E, "main"), ev(20, E, "a"), ev(30, E, "b"), (35, "MpiSend", {"peer": 0, "tag": 1, "bytes": 8})])
rec.write_location(2, [ev(5, L, "b"), ev(10, E, "main"), ev(20, E, "a"), ev(30, E, "b"), ev(40, L, "main"),
                       ev(50, E, "a"), ev(60, L, "b"), ev(70, L, "a")])
rec.close()
`

// A trace with unclosed and mismatched calls written by the reference
// library reads into repaired call trees with the exact counts.
func TestRepairsOfReferenceOTF2(t *testing.T) {
	tooltest.RequireGen(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "unclosed.py")
	if err := os.WriteFile(script, []byte(unclosedOTF2), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tooltest.Python, "-I", script, filepath.Dir(tooltest.Gen()), filepath.Join(dir, "trace")).CombinedOutput(); err != nil {
		t.Fatalf("writing the trace: %v\n%s", err, out)
	}
	tr, err := Load(filepath.Join(dir, "trace", "traces.otf2"))
	if err != nil {
		t.Fatal(err)
	}
	want := []CallRepairs{{}, {OpenAtEnd: 3}, {LeavesWithoutCall: 1, OuterLeaves: 1, ClosedInside: 2, UnmatchedLeaves: 1}}
	if tr.NumProcesses() != len(want) {
		t.Fatalf("%d locations", tr.NumProcesses())
	}
	for i, w := range want {
		p := tr.Process(i)
		if got := p.CallTree().Repairs; got != w {
			t.Errorf("location %d: tree repairs %+v, want %+v", i, got, w)
		}
		if got := p.CallRepairs(); got != w {
			t.Errorf("location %d: CallRepairs %+v, want %+v", i, got, w)
		}
	}
	// location 1: main, a, b all closed at the MpiSend's time, 25 ns after main's Enter
	c := tr.Process(1).CallTree()
	for i, name := range []string{"main", "a", "b"} {
		n := i + 1
		if tr.RegionName(c.Region[n]) != name || c.Leave[n]-c.Enter[1] != 25 || c.End[n] != 4 || c.Depth[n] != int32(n) {
			t.Errorf("location 1 node %d: %s leave %d end %d depth %d; want %s main's enter+25 4 %d", n, tr.RegionName(c.Region[n]), c.Leave[n], c.End[n], c.Depth[n], name, n)
		}
	}
}

func TestLeaveDepth(t *testing.T) {
	stack := []int32{1, 2, 3}
	for _, c := range []struct {
		stack  []int32
		region int32
		want   int
		rep    CallRepairs
	}{
		{stack, 3, 2, CallRepairs{}},
		{stack, -1, 2, CallRepairs{}},
		{stack, 2, 1, CallRepairs{OuterLeaves: 1, ClosedInside: 1}},
		{stack, 1, 0, CallRepairs{OuterLeaves: 1, ClosedInside: 2}},
		{stack, 9, -1, CallRepairs{UnmatchedLeaves: 1}},
		{nil, 3, -1, CallRepairs{LeavesWithoutCall: 1}},
		{nil, -1, -1, CallRepairs{LeavesWithoutCall: 1}},
	} {
		var rep CallRepairs
		if got := LeaveDepth(c.stack, c.region, &rep); got != c.want || rep != c.rep {
			t.Errorf("LeaveDepth(%v, %d) = %d, %+v; want %d, %+v", c.stack, c.region, got, rep, c.want, c.rep)
		}
	}
}
