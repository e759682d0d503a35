package ccg

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
)

// The contract itself (random splits merged in random orders equal the
// whole) is checked by builtins/part's TestEveryRegisteredMethod; these
// tests check what it cannot: the refusals and the result's layout.

func partTrace() *trace.Trace {
	rng := rand.New(rand.NewPCG(3, 4))
	var procs []*trace.Process
	for range 4 {
		procs = append(procs, randProc(rng, 4, 8, 1))
	}
	return traceOf(8, procs...)
}

func TestGraphMergeRefusesMismatches(t *testing.T) {
	tr := partTrace()
	ps := tr.Processes()
	m := BuildMethod(Lossless)
	compute := func(m part.Method, procs ...*trace.Process) *Graph {
		p, err := m.Compute(tr, procs, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p.(*Graph)
	}
	var we *Error
	if err := compute(m, ps[0], ps[1]).Merge(compute(m, ps[1], ps[2])); !errors.As(err, &we) || !strings.Contains(err.Error(), "in both graphs") {
		t.Errorf("overlapping locations: got %v", err)
	}
	lossy := BuildMethod(Bounds{Abs: 10})
	if err := compute(m, ps[0]).Merge(compute(lossy, ps[1])); !errors.As(err, &we) || !strings.Contains(err.Error(), "bounds") {
		t.Errorf("other bounds: got %v", err)
	}
	if err := compute(m, ps[0]).Merge(compute(BuildMethod(Lossless, WithBranching(3)), ps[1])); err == nil {
		t.Errorf("other branching factor: no error")
	}
	if err := compute(m, ps[0]).Merge((*Graph)(nil)); err == nil {
		t.Errorf("nil graph: no error")
	}
	// A graph of other parameters does not decode as the method's partial.
	b, _ := compute(lossy, ps[0]).MarshalBinary()
	if _, err := m.Decode(0, b); err == nil {
		t.Errorf("Decode of a graph of other bounds: no error")
	}
}

// Merged partials order their locations by index, whatever the merge
// order, and answer queries as BuildTrace's graph does.
func TestGraphMergeOrdersLocations(t *testing.T) {
	tr := partTrace()
	ps := tr.Processes()
	m := BuildMethod(Lossless)
	a, _ := m.Compute(tr, []*trace.Process{ps[3], ps[1]}, 0, nil)
	b, _ := m.Compute(tr, []*trace.Process{ps[2], ps[0]}, 0, nil)
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	g, whole := a.(*Graph), BuildTrace(tr, Lossless)
	for i, l := range g.Locations() {
		if l.Index != i {
			t.Fatalf("location %d has index %d", i, l.Index)
		}
		sameProcess(t, "merged", whole.Process(i), g.Process(i))
	}
	if got, want := g.Stats().Nodes, whole.Stats().Nodes; got != want {
		t.Errorf("merged lossless graph holds %d nodes, BuildTrace's %d", got, want)
	}
}

func TestBuildMethodParams(t *testing.T) {
	m := BuildMethod(Bounds{Abs: 5, Rel: 0.1, MPIRel: 1e-9, Requests: -1}, WithShards(2), WithSearch(7))
	r, err := part.Lookup(m.Name(), m.Params())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.(*buildMethod); got.b != m.(*buildMethod).b || got.o != m.(*buildMethod).o {
		t.Errorf("rebuilt %+v, want %+v", got, m)
	}
	if _, err := part.Lookup(m.Name(), m.Params()[:3]); err == nil {
		t.Errorf("truncated parameters: no error")
	}
	bad := BuildMethod(Lossless, WithBranching(3)).Params()
	bad[len(bad)-3] = 1 // branching factor 1
	if _, err := part.Lookup(m.Name(), bad); err == nil {
		t.Errorf("branching factor 1: no error")
	}
}
