package tracetest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Process writes the calls' events in time order, properly nested: its
// call tree gives back the calls, with nothing repaired.
func TestProcessRoundTrip(t *testing.T) {
	calls := []Call{{0, 0, 110}, {1, 10, 40}, {2, 40, 70}, {3, 45, 60}, {1, 70, 75}, {4, 80, 100}, {5, 120, 130}}
	p := Process(calls...)
	if !slices.IsSorted(p.Time) || len(p.Kind) != 2*len(calls) {
		t.Fatalf("events %v %v", p.Kind, p.Time)
	}
	tr := Trace([]string{"main", "compute", "MPI_Allreduce", "MPI_Wait", "MPI_Barrier", "tail"}, p)
	ct := tr.Process(0).CallTree()
	var got []Call
	for i := 1; i < ct.Len(); i++ {
		got = append(got, Call{int64(ct.Region[i]), ct.Enter[i], ct.Leave[i]})
	}
	if !slices.Equal(got, calls) || !ct.Repairs.IsZero() {
		t.Errorf("call tree %v (repairs %v), want %v", got, ct.Repairs, calls)
	}
	if p.Label() != "rank 0" || tr.RegionName(3) != "MPI_Wait" {
		t.Errorf("label %q, region 3 %q", p.Label(), tr.RegionName(3))
	}
}

// RandomTrace is deterministic, respects its bounds, and its locations
// need every kind of repair the generator promises somewhere.
func TestRandomTrace(t *testing.T) {
	a := RandomTrace(rand.New(rand.NewPCG(1, 2)), 40, 60, false)
	b := RandomTrace(rand.New(rand.NewPCG(1, 2)), 40, 60, false)
	var repairs trace.CallRepairs
	sends := 0
	for i, p := range a.Processes() {
		q := b.Process(i)
		if !slices.Equal(p.Kind, q.Kind) || !slices.Equal(p.Time, q.Time) || !slices.Equal(p.Ref, q.Ref) {
			t.Fatalf("process %d differs between two runs of the same seed", i)
		}
		if p.Len() > 60 || !slices.IsSorted(p.Time) {
			t.Fatalf("process %d: %d events, times %v", i, p.Len(), p.Time)
		}
		for _, k := range p.Kind {
			if k == trace.MpiSend {
				sends++
			}
		}
		repairs = repairs.Add(p.CallRepairs())
	}
	if sends == 0 || repairs.OpenAtEnd == 0 || repairs.LeavesWithoutCall+repairs.UnmatchedLeaves == 0 {
		t.Errorf("sends %d, repairs %+v: a kind of event is missing", sends, repairs)
	}
	d := RandomTrace(rand.New(rand.NewPCG(3, 4)), 3, 200, true)
	for _, p := range d.Processes() {
		for j := 1; j < p.Len(); j++ {
			if p.Time[j] == p.Time[j-1] {
				t.Fatalf("distinct: two events at %d", p.Time[j])
			}
		}
	}
}
