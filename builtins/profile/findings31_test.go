package profile

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Issue 31, finding 8: Brendel Fig. 17 -> 18. Fig. 17 is the call matrix restricted to the
// calls made by main; Fig. 18 restricts it further to the functions that do real work. The
// caller named by Caller stays a row whether or not it is among Functions.
func TestCallMatrixCallerWithFunctions(t *testing.T) {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "MPI_Init"}, {Name: "sleep"},
		{Name: "MPI_Send"}, {Name: "MPI_Recv"}, {Name: "MPI_Finalize"}}}
	var procs []*trace.Process
	for pi := range 2 {
		p := &trace.Process{Rank: int32(pi), Name: fmt.Sprintf("MPI Rank %d", pi)}
		var t int64
		call := func(r int32, d int64) {
			p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter, trace.Leave), append(p.Time, t, t+d), append(p.Ref, r, r)
			t += d + 1
		}
		p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, t), append(p.Ref, 0)
		t++
		call(1, 500)
		for range 8 {
			call(3, 10)
			call(4, 12)
			call(2, 100)
		}
		call(5, 50)
		p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, 0)
		procs = append(procs, p)
	}
	tr := trace.NewTrace(defs, procs)
	fig17 := CallMatrix(tr, WithCaller("main"), WithInclusive())
	if len(fig17.Cells) != 5 {
		t.Fatalf("Fig. 17 (WithCaller(main)): %d cells, want the 5 functions main calls: %+v", len(fig17.Cells), fig17.Cells)
	}
	fig18 := CallMatrix(tr, WithCaller("main"), WithFunctions("MPI_Send", "MPI_Recv"), WithInclusive())
	got := map[string]int64{}
	for _, c := range fig18.Cells {
		if c.Caller != "main" {
			t.Fatalf("Fig. 18: a row other than main: %+v", c)
		}
		got[c.Callee] = c.Inclusive.Count
	}
	if len(got) != 2 || got["MPI_Send"] != 16 || got["MPI_Recv"] != 16 {
		t.Fatalf("Fig. 18 (WithCaller(main), WithFunctions(MPI_Send, MPI_Recv)): %v, want MPI_Send and MPI_Recv, 16 calls each", got)
	}
	// Naming main in Functions as well changes nothing but adds no cell: main is called only
	// by the root, which WithCaller(main) leaves out.
	if both := CallMatrix(tr, WithCaller("main"), WithFunctions("main", "MPI_Send", "MPI_Recv")); len(both.Cells) != 2 {
		t.Fatalf("with main in Functions too: %+v", both.Cells)
	}
	// The same in the transitive closure and per process (Fig. 19).
	if cl := CallMatrix(tr, WithCaller("main"), WithFunctions("MPI_Send"), WithClosure(), WithPerProcess()); len(cl.Cells) != 2 || cl.Cells[0].Inclusive.Count != 8 {
		t.Fatalf("closure per process: %+v", cl.Cells)
	}
}

// Issue 31, finding 8: a verdict needs enough calls on both sides. One call each, 46 ns
// apart, is not "slower".
func TestCompareVerdictNeedsEnoughCalls(t *testing.T) {
	one := func(d int64) *trace.Trace {
		p := &trace.Process{Name: "MPI Rank 0", Kind: []trace.EventKind{trace.Enter, trace.Enter, trace.Leave, trace.Leave},
			Time: []int64{0, 1, 1 + d, 2 + d}, Ref: []int32{0, 1, 1, 0}}
		return trace.NewTrace(&trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "init"}}}, []*trace.Process{p})
	}
	c := Compare(one(1000), one(1046))
	r, _ := c.Row("init", 0)
	if r.Verdict != FewCalls || r.Verdict.String() != "too few calls" {
		t.Fatalf("one call each, +46 ns: verdict %q, want %q", r.Verdict, "too few calls")
	}
	if strings.Contains(c.Headline(), "slower") {
		t.Fatalf("headline %q gives a verdict on one call each", c.Headline())
	}
	// The boundary: MinVerdictCalls on each side with disjoint middle halves gives a verdict,
	// one fewer on either side does not.
	n := MinVerdictCalls
	xs := func(n int, base int64) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = base + int64(i)
		}
		return v
	}
	if v := verdict(summarize(xs(n, 100)), summarize(xs(n, 1000))); v != Slower {
		t.Fatalf("%d calls each, shifted: %v", n, v)
	}
	if v := verdict(summarize(xs(n-1, 100)), summarize(xs(n, 1000))); v != FewCalls {
		t.Fatalf("%d and %d calls: %v", n-1, n, v)
	}
	if v := verdict(summarize(xs(n, 1000)), summarize(xs(n-1, 100))); v != FewCalls {
		t.Fatalf("%d and %d calls: %v", n, n-1, v)
	}
}

// The rule's false-alarm rate: two samples of one continuous distribution, at least
// MinVerdictCalls values each, get a verdict in well under 1% of comparisons (the doc says
// below 0.5%); a real shift of one interquartile range on the same sizes is found most of the
// time.
func TestCompareVerdictFalseAlarmRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 8))
	draw := func(n int, shift float64) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(1e6*(rng.ExpFloat64()+shift)) + 1000
		}
		return v
	}
	const trials = 4000
	alarms, found := 0, 0
	for range trials {
		n, m := MinVerdictCalls+rng.IntN(40), MinVerdictCalls+rng.IntN(40)
		if v := verdict(summarize(draw(n, 0)), summarize(draw(m, 0))); v == Slower || v == Faster {
			alarms++
		}
		// exponential(1): IQR = ln 3 ≈ 1.1; a shift of 2 moves the middle half past it
		if v := verdict(summarize(draw(n, 0)), summarize(draw(m, 2))); v == Slower {
			found++
		}
	}
	if float64(alarms)/trials > 0.005 {
		t.Errorf("false alarms in %d of %d comparisons of equal distributions (%.2f%%)", alarms, trials, 100*float64(alarms)/trials)
	}
	if float64(found)/trials < 0.9 {
		t.Errorf("a shift of 2 IQR found in only %d of %d comparisons", found, trials)
	}
	t.Logf("false alarms %d / %d, shift found %d / %d", alarms, trials, found, trials)
	// At exactly MinVerdictCalls on both sides, the worst case: about 0.18% (the doc's figure).
	alarms = 0
	const exact = 40000
	for range exact {
		if v := verdict(summarize(draw(MinVerdictCalls, 0)), summarize(draw(MinVerdictCalls, 0))); v == Slower || v == Faster {
			alarms++
		}
	}
	if rate := float64(alarms) / exact; rate > 0.003 {
		t.Errorf("%d calls each: false alarms in %.3f%% of comparisons, the doc says 0.18%%", MinVerdictCalls, 100*rate)
	}
	t.Logf("%d calls each: false alarms %d / %d", MinVerdictCalls, alarms, exact)
}

// Issue 31, finding 8: the headline's "most changed" is the row with the largest change over
// all group pairs, not group 0's first row.
func TestCompareGroupsHeadlineNamesLargestChange(t *testing.T) {
	a, b := twoRuns(1000) // process 1's work is 1000 ns slower per call in B
	pa, pb := a.Processes(), b.Processes()
	g := CompareGroups(a, b, [][]*trace.Process{pa[:1], pa[1:]}, [][]*trace.Process{pb[:1], pb[1:]})
	var best CompareRow
	for _, r := range g.Rows {
		if abs(r.Change) > abs(best.Change) {
			best = r
		}
	}
	if best.Group != 1 || best.Function != "work" {
		t.Fatalf("largest change %+v, want work in group 1", best)
	}
	h := g.Headline()
	if want := "most changed: work in group 1 " + signedDuration(best.Change); !strings.Contains(h, want) {
		t.Fatalf("headline %q, want it to contain %q", h, want)
	}
}
