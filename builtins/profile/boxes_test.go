package profile

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
)

// oraclePercentile is numpy.percentile's default (linear) on a sorted slice, with the fraction
// computed exactly (numpy's (n-1)*0.98 may round it in the last bit).
func oraclePercentile(sorted []int64, p int64) float64 {
	n := int64(len(sorted))
	k, rem := (n-1)*p/100, (n-1)*p%100 // h = (n-1)p/100 in integers: no rounding moves k
	if rem == 0 {
		return float64(sorted[k])
	}
	return lerp(sorted[k], sorted[k+1], float64(rem)/100)
}

func oracleDist(vals []int64) Dist {
	if len(vals) == 0 {
		return summarize(nil)
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	d := Dist{Count: int64(len(s)), Min: s[0], Max: s[len(s)-1]}
	for _, v := range s {
		d.Sum += v
	}
	var ps [5]float64
	for i, p := range boxPercentiles {
		ps[i] = oraclePercentile(s, p)
	}
	d.setPercentiles(ps)
	return d
}

func sameDist(a, b Dist) bool {
	if a.Count != b.Count || a.Sum != b.Sum || a.Count > 0 && (a.Min != b.Min || a.Max != b.Max) {
		return false
	}
	pa, pb := a.Percentiles(), b.Percentiles()
	for i := range pa {
		if pa[i] != pb[i] && !(math.IsNaN(pa[i]) && math.IsNaN(pb[i])) {
			return false
		}
	}
	return true
}

func TestSummarizeAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 3000 {
		n := rng.IntN(60)
		if it%10 == 0 {
			n = rng.IntN(5000)
		}
		span := int64(1 + rng.IntN(4))
		if it%3 == 0 {
			span = 1 << 40
		}
		x := make([]int64, n)
		for i := range x {
			x[i] = rng.Int64N(span) - span/4
		}
		want := oracleDist(x)
		got := summarize(slices.Clone(x))
		if !sameDist(got, want) {
			t.Fatalf("n=%d span=%d: got %+v want %+v (x=%v)", n, span, got, want, x[:min(n, 20)])
		}
	}
}

func TestSummarizeSmall(t *testing.T) {
	// one call: every percentile is the value; two calls: the median is their mean
	if d := summarize([]int64{7}); d.P2 != 7 || d.P50 != 7 || d.P98 != 7 || d.Sum != 7 {
		t.Fatalf("one value: %+v", d)
	}
	d := summarize([]int64{10, 20})
	// h = p/100: P2 = 10.2, P25 = 12.5, P50 = 15, P75 = 17.5, P98 = 19.8
	want := [5]float64{10.2, 12.5, 15, 17.5, 19.8}
	got := d.Percentiles()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("two values: got %v want %v", got, want)
		}
	}
	if e := summarize(nil); e.Count != 0 || !math.IsNaN(e.P50) {
		t.Fatalf("empty: %+v", e)
	}
}

func TestBinOfMonotone(t *testing.T) {
	prev := -1
	for _, v := range []int64{-5, 0, 1, sub - 1, sub, sub + 1, 2*sub - 1, 2 * sub, 2*sub + 1, 1000, 1 << 20, 1<<40 + 3, math.MaxInt64} {
		b := binOf(v)
		if b < prev || b >= nbins {
			t.Fatalf("binOf(%d) = %d after %d", v, b, prev)
		}
		prev = b
	}
	// every bin's range maps back to it, and consecutive ranges touch
	next := int64(1)
	for b := 1; b < nbins; b++ {
		lo, hi := binRange(b)
		if lo != next || binOf(lo) != b || binOf(hi) != b || hi < lo {
			t.Fatalf("bin %d: range [%d, %d], expected to start at %d; binOf %d, %d", b, lo, hi, next, binOf(lo), binOf(hi))
		}
		next = hi + 1
	}
	if next != math.MinInt64 { // the last bin ends at MaxInt64
		t.Fatalf("last bin ends before MaxInt64: next %d", next)
	}
}

// randomTrace builds a trace of random calls over nreg regions: nesting with repairs (Leaves of
// outer calls, Leaves of nothing, calls open at the end), tied and widely spread durations.
func randomTrace(rng *rand.Rand, nproc, nreg, nev int) *trace.Trace {
	defs := &trace.Definitions{}
	for r := range nreg {
		defs.Regions = append(defs.Regions, trace.Region{Name: fmt.Sprintf("f%d", r)})
	}
	var procs []*trace.Process
	for pi := range nproc {
		p := &trace.Process{Rank: int32(pi), Name: fmt.Sprintf("MPI Rank %d", pi)}
		var stack []int32
		var t int64
		wide := rng.IntN(2) == 0
		for range nev + rng.IntN(nev+1) {
			if wide {
				t += rng.Int64N(1 << uint(rng.IntN(30)))
			} else {
				t += rng.Int64N(3)
			}
			switch c := rng.IntN(20); {
			case c < 9 || len(stack) == 0 && c < 18:
				r := int32(rng.IntN(nreg))
				stack = append(stack, r)
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, t), append(p.Ref, r)
			case c < 17:
				r := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, r)
			case c < 18 && len(stack) > 1: // leave an outer call
				d := rng.IntN(len(stack) - 1)
				r := stack[d]
				stack = stack[:d]
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, r)
			case c < 19: // a Leave of nothing open
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, int32(rng.IntN(nreg)))
			default: // another event
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.ProgramBegin), append(p.Time, t), append(p.Ref, -1)
			}
		}
		procs = append(procs, p)
	}
	return trace.NewTrace(defs, procs)
}

// oracleCalls lists every call of p from its CallTree: caller and callee region, exclusive
// and inclusive time.
type oracleCall struct {
	caller, callee int32
	exc, inc       int64
	ancestors      []int32 // distinct regions below the call, and -1
}

func oracleCalls(p *trace.Process) []oracleCall {
	c := p.CallTree()
	var out []oracleCall
	for i := 1; i < c.Len(); i++ {
		anc := []int32{-1}
		for j := c.Parent[i]; j > 0; j = c.Parent[j] {
			if !slices.Contains(anc, c.Region[j]) {
				anc = append(anc, c.Region[j])
			}
		}
		out = append(out, oracleCall{caller: c.Region[c.Parent[i]], callee: c.Region[i],
			exc: c.Exclusive(i), inc: c.Inclusive(i), ancestors: anc})
	}
	return out
}

// oracleBoxes is the profile by brute force: per series and function, all values sorted.
func oracleBoxes(procs [][]*trace.Process) []map[int32][2]Dist {
	out := make([]map[int32][2]Dist, len(procs))
	for s, ps := range procs {
		exc, inc := map[int32][]int64{}, map[int32][]int64{}
		for _, p := range ps {
			for _, c := range oracleCalls(p) {
				exc[c.callee] = append(exc[c.callee], c.exc)
				inc[c.callee] = append(inc[c.callee], c.inc)
			}
		}
		out[s] = map[int32][2]Dist{}
		for r := range exc {
			out[s][r] = [2]Dist{oracleDist(exc[r]), oracleDist(inc[r])}
		}
	}
	return out
}

func checkBoxes(t *testing.T, b *BoxProfile, want []map[int32][2]Dist) {
	t.Helper()
	n := 0
	for _, w := range want {
		n += len(w)
	}
	if len(b.Rows) != n {
		t.Fatalf("%d rows, want %d", len(b.Rows), n)
	}
	for _, r := range b.Rows {
		w, ok := want[r.Series][r.Region]
		if !ok {
			t.Fatalf("row %s in series %d not expected", r.Function, r.Series)
		}
		if !sameDist(r.Exclusive, w[0]) || !sameDist(r.Inclusive, w[1]) {
			t.Fatalf("%s series %d:\n got exc %+v inc %+v\nwant exc %+v inc %+v", r.Function, r.Series,
				r.Exclusive, r.Inclusive, w[0], w[1])
		}
	}
}

// smallRefinement makes the refinement count crowded ranges in 4 sub-ranges beyond 3 values,
// so that small inputs take several rounds, until the test ends.
func smallRefinement(t *testing.T) {
	cl, sr := collectLimit, subRanges
	collectLimit, subRanges = 3, 4
	forget() // a cached result would skip the refinement
	t.Cleanup(func() { collectLimit, subRanges = cl, sr; forget() })
}

func TestBoxesAgainstBruteForce(t *testing.T) {
	t.Run("refine", func(t *testing.T) {
		smallRefinement(t)
		testBoxesAgainstBruteForce(t)
	})
	testBoxesAgainstBruteForce(t)
}

func testBoxesAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 60 {
		tr := randomTrace(rng, 1+rng.IntN(6), 1+rng.IntN(7), 10+rng.IntN(400))
		procs := tr.Processes()
		t.Run(fmt.Sprint(it), func(t *testing.T) {
			checkBoxes(t, Boxes(tr), oracleBoxes([][]*trace.Process{procs}))
			per := make([][]*trace.Process, len(procs))
			for i, p := range procs {
				per[i] = []*trace.Process{p}
			}
			checkBoxes(t, Boxes(tr, WithPerProcess()), oracleBoxes(per))
			// two groups, the second leaving out process 0 when there are several
			g0, g1 := procs[:len(procs)/2+1], procs[len(procs)/2+1:]
			if len(g1) > 0 {
				checkBoxes(t, Boxes(tr, WithGroups(g0, g1)), oracleBoxes([][]*trace.Process{g0, g1}))
			}
		})
	}
}

// TestBoxesBinsWithManyValues makes the two-stage path select within crowded histogram bins:
// 20,000 calls of one function with durations in a narrow range, spread over 4 processes.
func TestBoxesBinsWithManyValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "solve"}}}
	var procs []*trace.Process
	for pi := range 4 {
		p := &trace.Process{Rank: int32(pi), Name: fmt.Sprintf("MPI Rank %d", pi)}
		var t int64
		p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, t), append(p.Ref, 0)
		for range 5000 {
			t += 3
			p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, t), append(p.Ref, 1)
			t += 1_000_000 + rng.Int64N(40_000) // all within one or two bins of 1/16 octave
			p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, 1)
		}
		p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t+5), append(p.Ref, 0)
		procs = append(procs, p)
	}
	tr := trace.NewTrace(defs, procs)
	checkBoxes(t, Boxes(tr), oracleBoxes([][]*trace.Process{procs}))
	smallRefinement(t)
	checkBoxes(t, Boxes(tr), oracleBoxes([][]*trace.Process{procs}))
}

func TestBoxesOptionsAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	tr := randomTrace(rng, 3, 5, 300)
	b := Boxes(tr, WithTop(2), WithSortBy("count"))
	fs := map[string]bool{}
	for _, r := range b.Rows {
		fs[r.Function] = true
	}
	if len(fs) != 2 {
		t.Fatalf("WithTop(2): %d functions", len(fs))
	}
	all := Boxes(tr, WithSortBy("count"))
	// the two kept are the two most called
	if all.Rows[0].Function != b.Rows[0].Function || all.Rows[1].Function != b.Rows[1].Function {
		t.Fatalf("WithTop(2) kept %s, %s; ranking says %s, %s", b.Rows[0].Function, b.Rows[1].Function, all.Rows[0].Function, all.Rows[1].Function)
	}
	for i := 1; i < len(all.Rows); i++ {
		if all.Rows[i].Exclusive.Count > all.Rows[i-1].Exclusive.Count {
			t.Fatalf("WithSortBy(count): row %d has %d calls after %d", i, all.Rows[i].Exclusive.Count, all.Rows[i-1].Exclusive.Count)
		}
	}
	only := Boxes(tr, WithFunctions("f1"))
	for _, r := range only.Rows {
		if r.Function != "f1" {
			t.Fatalf("WithFunctions(f1) returned %s", r.Function)
		}
	}
	for _, bad := range []struct {
		opts []Option
		msg  string
	}{
		{[]Option{WithTop(-1)}, "profile.Boxes: WithTop(-1): need n >= 0"},
		{[]Option{WithSortBy("median")}, `profile.Boxes: WithSortBy("median"): unknown measure; want one of sum, count, mean, min, p2, p25, p50, p75, p98, max`},
		{[]Option{WithFunctions("nope")}, `profile.Boxes: no function "nope" in the trace`},
		{[]Option{WithPerProcess(), WithGroups(tr.Processes())}, "profile.Boxes: WithPerProcess and WithGroups exclude each other"},
		{[]Option{WithGroups(tr.Processes()[:2], tr.Processes()[1:])}, "profile.Boxes: process MPI Rank 1 is in groups 0 and 1; groups must be disjoint"},
	} {
		func() {
			defer func() {
				e, ok := recover().(*Error)
				if !ok || e.Error() != bad.msg {
					t.Fatalf("got %v, want %q", e, bad.msg)
				}
			}()
			Boxes(tr, bad.opts...)
		}()
	}
}

// TestBoxParts: the contract suite on stage 1 ("profile.boxes") over random traces with call
// repairs, for one series, a series per process and groups, direct and closure; and the
// method's partial of all processes is the engine's stage 1, whose function totals are Boxes'.
func TestBoxParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for it := range 12 {
		tr := randomTrace(rng, 2+rng.IntN(6), 2+rng.IntN(5), 50+rng.IntN(200))
		procs := tr.Processes()
		n := len(procs)
		all, each, groups := make([]int, n), make([]int, n), make([]int, n)
		for i := range n {
			each[i], groups[i] = i, rng.IntN(3)-1
		}
		closure := it%2 == 1
		for _, series := range [][]int{all, each, groups} {
			parttest.Check(t, tr, BoxesMethod(series, closure), parttest.Config{Seed: uint64(it + 1)})
		}
		got, err := part.Run(tr, procs, BoxesMethod(all, closure))
		if err != nil {
			t.Fatal(err)
		}
		e := &engine{fn: "test", procs: procs, series: make([]int, n), nseries: 1, nreg: len(tr.Defs.Regions), closure: closure}
		whole := &boxPart{nreg: len(tr.Defs.Regions), events: tr.NumEvents(), p: mergePartials(len(tr.Defs.Regions), e.stage1())}
		x, _ := got.MarshalBinary()
		y, _ := whole.MarshalBinary()
		if !bytes.Equal(x, y) {
			t.Fatalf("it %d: the method's partial differs from the engine's stage 1", it)
		}
		// the function rows of Boxes are the sums of their cells (direct matrix: every cell)
		if closure {
			continue
		}
		b := got.(*boxPart).p
		count, sum := map[int32]int64{}, map[int32]int64{}
		for c, k := range b.cells.keys {
			if c < len(b.acc[0]) {
				count[k.callee] += b.acc[0][c].count
				sum[k.callee] += b.acc[0][c].sum[mExc]
			}
		}
		forget()
		for _, r := range Boxes(tr).Rows {
			if r.Exclusive.Count != count[r.Region] || r.Exclusive.Sum != sum[r.Region] {
				t.Fatalf("it %d %s: Boxes %d calls %d ns, the partial %d calls %d ns", it, r.Function,
					r.Exclusive.Count, r.Exclusive.Sum, count[r.Region], sum[r.Region])
			}
		}
	}
}
