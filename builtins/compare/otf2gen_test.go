package compare

import (
	"fmt"
	"math"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
)

// genRun writes an spmd run with the OTF2 reference library (otf2gen.py) and reads it back:
// the comparison on traces it did not write itself.
func genRun(t *testing.T, name string, args ...string) *trace.Trace {
	t.Helper()
	anchor, _ := tooltest.Generate(t, t.TempDir(), append([]string{"spmd", "--iters", "6", "--noise", "0"}, args...)...)
	tr, err := trace.Load(anchor)
	if err != nil {
		t.Fatal(err)
	}
	tr.SetName(name)
	return tr
}

// The same program written by the reference library at 16 and 32 ranks: every group equal and
// every process of both runs in one; variant B (apply_bc removed, compute_flux_correction
// added) found in the tree and the table; a rank slowed by 2 found as the max of its group.
func TestOTF2GenRuns(t *testing.T) {
	tooltest.RequireGen(t)
	a16 := genRun(t, "a16", "--procs", "16")
	a32 := genRun(t, "a32", "--procs", "32")
	t.Run("scale", func(t *testing.T) {
		r := Runs(a16, a32)
		na, nb := 0, 0
		for i := 0; i < r.NumGroups(); i++ {
			if r.State(i) != Equal {
				t.Errorf("G%d: %v, want equal", i, r.State(i))
			}
			ga, gb := r.Group(i)
			na, nb = na+len(ga), nb+len(gb)
		}
		if na != 16 || nb != 32 {
			t.Errorf("%d and %d processes in groups, want 16 and 32", na, nb)
		}
		for _, w := range r.TreeRows() {
			if w.State != "equal" {
				t.Errorf("tree %s: %s %s", w.Path, w.State, w.Note)
			}
		}
	})
	t.Run("variant", func(t *testing.T) {
		b := genRun(t, "b16", "--procs", "16", "--variant", "B")
		r := Runs(a16, b)
		seen := map[string]string{}
		for _, w := range r.FunctionRows() {
			if w.Function == "apply_bc" || w.Function == "compute_flux_correction" {
				seen[w.Function] = w.Verdict
			}
		}
		if seen["apply_bc"] != "only in A" || seen["compute_flux_correction"] != "only in B" {
			t.Errorf("verdicts %v, want apply_bc only in A, compute_flux_correction only in B", seen)
		}
		var onlyB bool
		for _, w := range r.TreeRows() {
			onlyB = onlyB || w.Function == "compute_flux_correction" && w.State == "only in B"
		}
		if !onlyB {
			t.Error("no tree row compute_flux_correction only in B")
		}
	})
	t.Run("slow rank", func(t *testing.T) {
		b := genRun(t, "slow", "--procs", "16", "--slow", "5:2")
		r := Runs(a16, b)
		// rank 5's own time in compute_flux in run A, from its call tree
		var want int64
		p := a16.Process(5)
		ct := p.CallTree()
		for i := 1; i < ct.Len(); i++ {
			if p.RegionName(ct.Region[i]) == "compute_flux" {
				want += ct.Exclusive(i)
			}
		}
		var found bool
		for _, w := range r.FunctionRows() {
			if w.Function != "compute_flux" || w.MaxProcess[1] != "rank 5" {
				continue
			}
			found = true
			if got := float64(w.Max[1]) / float64(want); math.Abs(got-2) > 1e-3 {
				t.Errorf("compute_flux on rank 5: %d ns in B, %d in A: ratio %v, want 2", w.Max[1], want, got)
			}
		}
		if !found {
			t.Errorf("no group has rank 5 as compute_flux's max in B:\n%s", fmt.Sprint(r.Functions()))
		}
	})
}
