package profile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// permutedRegions returns a copy of tr whose regions are defined in another order, so that
// the same names have other region ids.
func permutedRegions(tr *trace.Trace, rng *rand.Rand) *trace.Trace {
	n := len(tr.Defs.Regions)
	perm := rng.Perm(n)
	defs := &trace.Definitions{Regions: make([]trace.Region, n)}
	for old, nw := range perm {
		defs.Regions[nw] = tr.Defs.Regions[old]
	}
	var procs []*trace.Process
	for _, p := range tr.Processes() {
		q := &trace.Process{Rank: p.Rank, Name: p.Name, Kind: p.Kind, Time: p.Time, Ref: make([]int32, len(p.Ref))}
		for i, r := range p.Ref {
			q.Ref[i] = r
			if (p.Kind[i] == trace.Enter || p.Kind[i] == trace.Leave) && r >= 0 {
				q.Ref[i] = int32(perm[r])
			}
		}
		procs = append(procs, q)
	}
	return trace.NewTrace(defs, procs)
}

func TestCompareMatchesByName(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for it := range 20 {
		a := randomTrace(rng, 1+rng.IntN(4), 2+rng.IntN(5), 50+rng.IntN(300))
		// b: another random run over the same names plus one more, regions in another order
		b0 := randomTrace(rng, 1+rng.IntN(4), len(a.Defs.Regions)+1, 50+rng.IntN(300))
		b := permutedRegions(b0, rng)
		c := Compare(a, b)
		ba, bb := Boxes(a), Boxes(b)
		names := map[string]bool{}
		for _, r := range ba.Rows {
			names[r.Function] = true
		}
		for _, r := range bb.Rows {
			names[r.Function] = true
		}
		if len(c.Rows) != len(names) {
			t.Fatalf("it %d: %d rows for %d names", it, len(c.Rows), len(names))
		}
		for _, r := range c.Rows {
			wa, okA := ba.Row(r.Function, 0)
			wb, okB := bb.Row(r.Function, 0)
			if okA != (r.A.Count > 0) || okB != (r.B.Count > 0) {
				t.Fatalf("it %d %s: presence A %v B %v, rows %+v", it, r.Function, okA, okB, r)
			}
			if okA && !sameDist(r.A, wa.Exclusive) || okB && !sameDist(r.B, wb.Exclusive) {
				t.Fatalf("it %d %s: A %+v (want %+v), B %+v (want %+v)", it, r.Function, r.A, wa.Exclusive, r.B, wb.Exclusive)
			}
			if r.Change != r.B.Sum-r.A.Sum || r.Verdict != verdict(r.A, r.B) {
				t.Fatalf("it %d %s: change %d verdict %v", it, r.Function, r.Change, r.Verdict)
			}
		}
		if !slices.IsSortedFunc(c.Rows, func(x, y CompareRow) int { return int(abs(y.Change) - abs(x.Change)) }) {
			t.Fatalf("it %d: rows not by |change|", it)
		}
		if tb := c.Table(); tb.NumRows() != len(c.Rows) {
			t.Fatalf("table %d rows", tb.NumRows())
		}
	}
}

// twoRuns builds runs A and B of "main { work; comm }" (25 iterations: enough calls for a
// verdict) on two processes where B's work is slower by shift ns on process 1 only.
func twoRuns(shift int64) (*trace.Trace, *trace.Trace) {
	build := func(shift int64) *trace.Trace {
		defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "work"}, {Name: "comm"}}}
		var procs []*trace.Process
		for pi := range 2 {
			p := &trace.Process{Rank: int32(pi), Name: fmt.Sprintf("MPI Rank %d", pi)}
			add := func(k trace.EventKind, t int64, r int32) {
				p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, t), append(p.Ref, r)
			}
			var t int64
			add(trace.Enter, t, 0)
			for i := range 25 {
				d := int64(100 + i) // work takes 100..124 ns
				if pi == 1 {
					d += shift
				}
				add(trace.Enter, t+1, 1)
				add(trace.Leave, t+1+d, 1)
				add(trace.Enter, t+2+d, 2)
				add(trace.Leave, t+12+d, 2) // comm 10 ns
				t += 20 + d
			}
			add(trace.Leave, t, 0)
			procs = append(procs, p)
		}
		return trace.NewTrace(defs, procs)
	}
	return build(0), build(shift)
}

func TestCompareVerdictsAndGroups(t *testing.T) {
	a, b := twoRuns(1000)
	c := Compare(a, b)
	w, _ := c.Row("work", 0)
	// B's work on process 1 is 1000 ns longer in each of 25 calls
	if w.Change != 25_000 || c.Rows[0].Function != "work" {
		t.Fatalf("work change %d, first row %s", w.Change, c.Rows[0].Function)
	}
	// 50 calls: A 100..124 twice; B 100..124 and 1100..1124: B's p25 (112.25) is below A's p75
	// (118), so the whole-run hint says similar; per process group 1 it says slower
	if w.Verdict != Similar {
		t.Fatalf("whole-run verdict %v", w.Verdict)
	}
	cm, _ := c.Row("comm", 0)
	if cm.Change != 0 || cm.Verdict != Similar {
		t.Fatalf("comm %+v", cm)
	}
	pa, pb := a.Processes(), b.Processes()
	g := CompareGroups(a, b, [][]*trace.Process{pa[:1], pa[1:]}, [][]*trace.Process{pb[:1], pb[1:]})
	if r, _ := g.Row("work", 1); r.Verdict != Slower || r.Change != 25_000 {
		t.Fatalf("group 1 work: %+v", r)
	}
	if r, _ := g.Row("work", 0); r.Verdict != Similar || r.Change != 0 {
		t.Fatalf("group 0 work: %+v", r)
	}
	// the reverse comparison says faster
	if r, _ := CompareGroups(b, a, [][]*trace.Process{pb[1:]}, [][]*trace.Process{pa[1:]}).Row("work", 0); r.Verdict != Faster {
		t.Fatalf("reverse: %+v", r)
	}
	// only in one run
	if v := verdict(summarize(nil), summarize([]int64{3})); v != OnlyB {
		t.Fatalf("verdict of a function only in B: %v", v)
	}
	for _, bad := range []struct {
		f   func()
		msg string
	}{
		{func() { Compare(a, b, WithPerProcess()) }, "profile.Compare: WithProcesses, WithPerProcess, WithGroups, WithNamedGroups, WithClosure and WithCaller do not apply; CompareGroups compares parts of the runs"},
		{func() { Compare(a, b, WithFunctions("nope")) }, `profile.Compare: no function "nope" in either run`},
		{func() { Compare(a, nil) }, "profile.Compare: a trace is nil"},
		{func() { CompareGroups(a, b, [][]*trace.Process{pa}, nil) }, "profile.CompareGroups: 1 groups of a and 0 of b: need the same number, at least one"},
		{func() { CompareGroups(a, b, [][]*trace.Process{pb}, [][]*trace.Process{pa}) }, "profile.CompareGroups: process MPI Rank 0 of group 0 is not among the analysed processes"},
	} {
		func() {
			defer func() {
				e, ok := recover().(*Error)
				if !ok || e.Error() != bad.msg {
					t.Fatalf("got %v, want %q", e, bad.msg)
				}
			}()
			bad.f()
		}()
	}
}

// TestCompareNamesRuns: two Score-P runs (both anchors traces.otf2) are named
// by their directories, or by trace.Named, in the headline and the figure;
// they used to be "A" and "B" (issue 32, point 6).
func TestCompareNamesRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := randomTrace(rng, 2, 4, 100)
	b := randomTrace(rng, 2, 4, 100)
	a.Path, b.Path = "runs/traces-32/traces.otf2", "runs/traces-64/traces.otf2"
	if got := Compare(a, b).Runs; got != [2]string{"traces-32", "traces-64"} {
		t.Errorf("runs named %q, want their directories", got)
	}
	a.SetName("before")
	b.SetName("after")
	c := Compare(a, b)
	if got := c.Runs; got != [2]string{"before", "after"} {
		t.Errorf("runs named %q, want their Names", got)
	}
	if s := c.String(); !strings.HasPrefix(s, "before vs after") {
		t.Errorf("headline %q does not name the runs", s)
	}
	b.SetName("before")
	if got := Compare(a, b).Runs; got[0] == got[1] {
		t.Errorf("two runs of one name are both %q", got[0])
	}
}
