package imbalance

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// Hand-written locations: calls as {region, enter, leave} in pre-order (tracetest).
type call = tracetest.Call

var procOf, traceOf = tracetest.Process, tracetest.Trace

// seedTrace is the example of Weber Figures 6.9 and 6.10: three processes run main (18 time
// steps each, 54 in all) with three invocations of a (durations 6, 3, 3: 36 in all, 9
// invocations), each a calc followed by a synchronisation MPI; in the first iteration process 0
// computes for 5 steps, process 1 for 3 and process 2 for 1 and waits in MPI for the rest.
// After the iterations each process calls i, which calls b and c.
func seedTrace() *trace.Trace {
	names := []string{"main", "i", "a", "b", "c", "calc", "MPI"}
	const main, i, a, b, c, calc, mpi = 0, 1, 2, 3, 4, 5, 6
	var procs []*trace.Process
	for _, first := range []int64{5, 3, 1} {
		procs = append(procs, procOf(
			call{main, 0, 18},
			call{a, 0, 6}, call{calc, 0, first}, call{mpi, first, 6},
			call{a, 6, 9}, call{calc, 6, 8}, call{mpi, 8, 9},
			call{a, 9, 12}, call{calc, 9, 11}, call{mpi, 11, 12},
			call{i, 12, 17}, call{b, 12, 14}, call{c, 14, 16},
		))
	}
	return traceOf(names, procs...)
}

func TestSeedFigures69And610(t *testing.T) {
	tr := seedTrace()
	r := Analyze(tr, WithSync(trace.DefaultSync().Include("MPI")))
	if got := r.Function(); got != "a" {
		t.Fatalf("dominant function %q, want a (Fig. 6.9)", got)
	}
	// Fig. 6.9: main has the most inclusive time (54) but only 3 = p invocations; a has 36 in 9.
	// The candidates lead with a; main, which does not qualify, comes after the ones that do.
	cand := r.Candidates()
	names := must(cand.Strings("Function"))
	incl := must(cand.Int64s("Inclusive (ns)"))
	calls := must(cand.Int64s("Invocations"))
	elig := must(cand.Bools("Invoked >= 2p"))
	dom := must(cand.Bools("Segments the Run"))
	if names[0] != "a" || incl[0] != 36 || calls[0] != 9 || !elig[0] || !dom[0] {
		t.Errorf("first candidate %s %d ns %d calls eligible %v dominant %v, want a 36 9 true true", names[0], incl[0], calls[0], elig[0], dom[0])
	}
	if want := []string{"a", "calc", "main", "MPI", "i", "b", "c"}; !slices.Equal(names, want) {
		t.Errorf("candidates %v, want %v", names, want)
	}
	if incl[2] != 54 || calls[2] != 3 || elig[2] || dom[2] {
		t.Errorf("main: %d ns %d calls eligible %v dominant %v, want 54 3 false false", incl[2], calls[2], elig[2], dom[2])
	}
	// Fig. 6.10: durations 6, 3, 3; SOS-time of process 0 is 5 and of process 2 is 1 in the first iteration.
	want := []Segment{
		{0, 0, 0, 0, 6, 1}, {0, 1, 1, 6, 9, 1}, {0, 2, 2, 9, 12, 1},
		{1, 0, 0, 0, 6, 3}, {1, 1, 1, 6, 9, 1}, {1, 2, 2, 9, 12, 1},
		{2, 0, 0, 0, 6, 5}, {2, 1, 1, 6, 9, 1}, {2, 2, 2, 9, 12, 1},
	}
	if got := r.SegmentList(); !slices.Equal(got, want) {
		t.Fatalf("segments\n%v, want\n%v", got, want)
	}
	if s := r.SegmentList(); s[0].SOS() != 5 || s[6].SOS() != 1 || s[1].Duration() != 3 {
		t.Errorf("SOS-times %d and %d, want 5 and 1", s[0].SOS(), s[6].SOS())
	}
	it := r.IterationList()
	if len(it) != 3 {
		t.Fatalf("%d iterations", len(it))
	}
	if x := it[0]; x.MaxSOS != 5 || x.MeanSOS != 3 || x.Culprit != 0 || x.AtMax != 1 || x.Recoverable != 2 || x.Sync != 9 || x.Start != 0 || x.End != 6 || x.Processes != 3 {
		t.Errorf("iteration 0: %+v", x)
	}
	if x := it[1]; x.MaxSOS != 2 || x.Ratio() != 1 || x.Culprit != -1 || x.AtMax != 3 || x.Recoverable != 0 {
		t.Errorf("iteration 1 (balanced: a tie, no culprit): %+v", x)
	}
	if c := r.Culprit(); c == nil || c.Index != 0 {
		t.Errorf("culprit %v, want rank 0", c)
	}
	if w, _ := r.Worst(); w.Index != 0 {
		t.Errorf("worst iteration %d, want 0", w.Index)
	}
	if s := r.String(); !strings.Contains(s, "dominant function a: 9 invocations on 3 processes") || !strings.Contains(s, "worst iteration 0 (max/mean SOS-time 1.67, culprit rank 0") ||
		!strings.Contains(s, "rank 0 is the slowest in 1 of 3 iterations") || !strings.Contains(s, "2 of 3 iterations tied") {
		t.Errorf("headline %q", s)
	}
	// Without MPI counted as synchronisation, SOS-time is the duration.
	plain := Analyze(tr)
	if s := plain.SegmentList()[6]; s.SOS() != 6 {
		t.Errorf("SOS-time without synchronisation regions %d, want 6", s.SOS())
	}
	// Segmented by the synchronisation itself, nothing is computed and no one is the culprit.
	byMPI := Analyze(tr, WithSync(trace.DefaultSync().Include("MPI")), WithFunction("MPI"))
	if w, _ := byMPI.Worst(); w.Culprit != -1 || byMPI.Culprit() != nil || !strings.Contains(byMPI.String(), "every SOS-time is 0: MPI runs only synchronisation") {
		t.Errorf("segmented by MPI: worst %+v, headline %q", w, byMPI.String())
	}
	// WithFunction: segments by calc instead.
	byCalc := Analyze(tr, WithFunction("calc"))
	if byCalc.Function() != "calc" || len(byCalc.SegmentList()) != 9 || byCalc.SegmentList()[3].SOS() != 3 {
		t.Errorf("WithFunction(calc): %s, %v", byCalc.Function(), byCalc.SegmentList())
	}
}

// brute computes the calls and segments from the call tree: invocations not inside an
// invocation of the same region, and the synchronisation time of a segment as the length of the
// union of the synchronisation calls' intervals clipped to it.
func brute(tr *trace.Trace, procs []*trace.Process, sync []bool, fn int32) (count, incl []int64, segs []Segment, dom int32) {
	n := len(tr.Defs.Regions)
	count, incl = make([]int64, n), make([]int64, n)
	type iv struct{ a, b int64 }
	for _, p := range procs {
		ct := p.CallTree()
		for v := 1; v < ct.Len(); v++ {
			r := ct.Region[v]
			if r < 0 {
				continue
			}
			outer := true
			for u := ct.Parent[v]; u > 0; u = ct.Parent[u] {
				if ct.Region[u] == r {
					outer = false
				}
			}
			if outer {
				count[r]++
				incl[r] += ct.Inclusive(v)
			}
		}
	}
	// dominant by the definition, over all regions
	dom = -1
	for r := range n {
		if count[r] == 0 || count[r] < 2*int64(len(procs)) {
			continue
		}
		if dom < 0 || incl[r] > incl[dom] || incl[r] == incl[dom] && count[r] > count[dom] {
			dom = int32(r)
		}
	}
	if fn < 0 {
		fn = dom
	}
	for _, p := range procs {
		ct := p.CallTree()
		var syncs []iv
		for v := 1; v < ct.Len(); v++ {
			if r := ct.Region[v]; r >= 0 && sync[r] {
				syncs = append(syncs, iv{ct.Enter[v], ct.Leave[v]})
			}
		}
		k := 0
		for v := 1; v < ct.Len(); v++ {
			if ct.Region[v] != fn {
				continue
			}
			outer := true
			for u := ct.Parent[v]; u > 0; u = ct.Parent[u] {
				if ct.Region[u] == fn {
					outer = false
				}
			}
			if !outer {
				continue
			}
			a, b := ct.Enter[v], ct.Leave[v]
			var clip []iv
			for _, s := range syncs {
				if x, y := max(s.a, a), min(s.b, b); x < y {
					clip = append(clip, iv{x, y})
				}
			}
			slices.SortFunc(clip, func(x, y iv) int { return int(x.a - y.a) })
			var union, end int64 = 0, math.MinInt64
			for _, c := range clip {
				if c.a > end {
					union += c.b - c.a
					end = c.b
				} else if c.b > end {
					union += c.b - end
					end = c.b
				}
			}
			segs = append(segs, Segment{Location: p.Index, Invocation: k, Iteration: k, Start: a, End: b, Sync: union})
			k++
		}
	}
	return count, incl, segs, dom
}

// randomTrace makes nprocs locations of random nested calls over nreg regions (recursion
// included), with a few Leaves that do not nest (repaired like the call tree) and calls left
// open at the end.
func randomTrace(rng *rand.Rand, nprocs, nreg int) *trace.Trace {
	names := make([]string, nreg)
	for i := range names {
		names[i] = fmt.Sprintf("f%d", i)
	}
	var procs []*trace.Process
	for range nprocs {
		p := &trace.Process{}
		var stack []int32
		t := int64(rng.IntN(5))
		for range 20 + rng.IntN(200) {
			t += int64(rng.IntN(4))
			switch x := rng.IntN(10); {
			case x < 5 || len(stack) == 0:
				r := int32(rng.IntN(nreg))
				stack = append(stack, r)
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, t), append(p.Ref, r)
			case x == 9: // a Leave of a random region: outer call, unmatched or innermost
				r := int32(rng.IntN(nreg))
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, r)
				for d := len(stack) - 1; d >= 0; d-- {
					if stack[d] == r {
						stack = stack[:d]
						break
					}
				}
			default:
				r := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if rng.IntN(40) == 0 {
					r = -1 // a Leave without its region closes the innermost call
				}
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, r)
			}
			if rng.IntN(20) == 0 { // a non-call event in between
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.ProgramBegin), append(p.Time, t), append(p.Ref, -1)
			}
		}
		procs = append(procs, p)
	}
	return traceOf(names, procs...)
}

func TestAgainstBruteForceOnRandomTraces(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 6))
	for trial := range 400 {
		nreg := 2 + rng.IntN(6)
		tr := randomTrace(rng, 1+rng.IntN(5), nreg)
		sync := make([]bool, nreg)
		var pats []string
		for r := range nreg {
			if rng.IntN(3) == 0 {
				sync[r] = true
				pats = append(pats, fmt.Sprintf("f%d", r))
			}
		}
		sc := trace.DefaultSync().Include(pats...)
		procs := tr.Processes()
		count, incl, want, dom := brute(tr, procs, sync, -1)
		calls := CountCalls(procs)
		if !slices.Equal(calls.Count, count) || !slices.Equal(calls.Inclusive, incl) {
			t.Fatalf("trial %d: counts %v %v, want %v %v", trial, calls.Count, calls.Inclusive, count, incl)
		}
		if got := calls.Dominant(nil); got != dom {
			t.Fatalf("trial %d: dominant %d, want %d", trial, got, dom)
		}
		// Among the regions that are not synchronisation (Analyze's default).
		domNS := int32(-1)
		for r := range int32(nreg) {
			if sync[r] || count[r] == 0 || count[r] < 2*int64(len(procs)) {
				continue
			}
			if domNS < 0 || incl[r] > incl[domNS] || incl[r] == incl[domNS] && count[r] > count[domNS] {
				domNS = r
			}
		}
		if got := calls.Dominant(sync); got != domNS {
			t.Fatalf("trial %d: dominant without synchronisation %d, want %d", trial, got, domNS)
		}
		if domNS >= 0 {
			if got := Analyze(tr, WithSync(sc)).Function(); got != tr.RegionName(domNS) {
				t.Fatalf("trial %d: Analyze chose %s, want f%d", trial, got, domNS)
			}
		}
		fn := dom
		if fn < 0 {
			fn = int32(rng.IntN(nreg))
			if count[fn] == 0 {
				continue
			}
			_, _, want, _ = brute(tr, procs, sync, fn)
		}
		r := Analyze(tr, WithSync(sc), WithFunction(tr.RegionName(fn)))
		got := r.SegmentList()
		noIter := func(x []Segment) []Segment {
			x = slices.Clone(x)
			for i := range x {
				x[i].Iteration = 0
			}
			return x
		}
		if !slices.Equal(noIter(got), noIter(want)) {
			t.Fatalf("trial %d (function f%d, sync %v):\n got %v\nwant %v", trial, fn, sync, got, want)
		}
		checkAligned(t, got, len(r.IterationList()))
		// Per-iteration summaries against a direct computation over the aligned iterations.
		for _, it := range r.IterationList() {
			var mx, sum, syn int64 = -1, 0, 0
			n, atMax, culprit := 0, 0, -1
			for _, s := range got {
				if s.Iteration != it.Index {
					continue
				}
				n++
				sum += s.SOS()
				syn += s.Sync
				switch {
				case s.SOS() > mx:
					mx, atMax, culprit = s.SOS(), 1, s.Location
				case s.SOS() == mx:
					atMax++
				}
			}
			if mx <= 0 || atMax > 1 || n < 2 {
				culprit = -1
			}
			if it.Processes != n || it.MaxSOS != mx || it.AtMax != atMax || it.Culprit != culprit || it.Sync != syn || math.Abs(it.MeanSOS-float64(sum)/float64(n)) > 1e-9 {
				t.Fatalf("trial %d iteration %d: %+v, want n %d max %d at max %d culprit %d sync %d mean %g", trial, it.Index, it, n, mx, atMax, culprit, syn, float64(sum)/float64(n))
			}
		}
	}
}

// checkAligned checks the shape of an alignment: iterations 0..n-1 all used, at most one
// segment per process and iteration, and each process's iterations increasing with its
// invocations.
func checkAligned(t *testing.T, segs []Segment, n int) {
	t.Helper()
	used := make([]bool, n)
	last := map[int]int{}
	seen := map[[2]int]bool{}
	for _, s := range segs {
		if s.Iteration < 0 || s.Iteration >= n {
			t.Fatalf("segment %+v: iteration out of [0, %d)", s, n)
		}
		used[s.Iteration] = true
		if seen[[2]int{s.Location, s.Iteration}] {
			t.Fatalf("two segments of location %d in iteration %d", s.Location, s.Iteration)
		}
		seen[[2]int{s.Location, s.Iteration}] = true
		if l, ok := last[s.Location]; ok && s.Iteration <= l {
			t.Fatalf("location %d: iteration %d after %d", s.Location, s.Iteration, l)
		}
		last[s.Location] = s.Iteration
	}
	for i, u := range used {
		if !u {
			t.Fatalf("iteration %d of %d has no segment", i, n)
		}
	}
}

// TestMergeOfSubsets is the many-machines path: counts of disjoint process subsets merged, and
// segments computed process by process in any order and summarised, equal the whole analysis.
func TestMergeOfSubsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial := range 50 {
		tr := randomTrace(rng, 2+rng.IntN(8), 4)
		procs := tr.Processes()
		all := CountCalls(procs)
		perm := rng.Perm(len(procs))
		cut := 1 + rng.IntN(len(procs)-1)
		var a, b []*trace.Process
		for i, j := range perm {
			if i < cut {
				a = append(a, procs[j])
			} else {
				b = append(b, procs[j])
			}
		}
		m := CountCalls(b)
		if err := m.Merge(CountCalls(a)); err != nil {
			t.Fatalf("trial %d: Merge: %v", trial, err)
		}
		if !slices.Equal(m.Count, all.Count) || !slices.Equal(m.Inclusive, all.Inclusive) || m.Processes != len(procs) || m.Events != all.Events {
			t.Fatalf("trial %d: merged %+v, want %+v", trial, m, all)
		}
		fn := m.Ranked()[0]
		sync := []bool{false, true, false, true}
		whole := Analyze(tr, WithFunction(tr.RegionName(fn)), WithSync(trace.DefaultSync().Include("f1", "f3")))
		var segs []Segment
		for _, j := range perm {
			segs = append(segs, SegmentsOf(procs[j], fn, sync)...)
		}
		part := Summarize(tr, procs, fn, segs)
		if !slices.Equal(part.SegmentList(), whole.SegmentList()) || !slices.Equal(part.IterationList(), whole.IterationList()) || !slices.Equal(part.ProcessList(), whole.ProcessList()) {
			t.Fatalf("trial %d: summarised partial segments differ from the whole analysis", trial)
		}
	}
}

func TestDefaultsAndBadArguments(t *testing.T) {
	tr := synth.Generate(synth.PIConGPUConfig(3, 0, 2))
	r := Analyze(tr)
	for _, p := range r.procs {
		if gpu, _, _ := p.Place(); gpu {
			t.Fatalf("GPU stream %s analysed by default", p)
		}
	}
	if len(r.procs) != 3 || r.Function() != "solve" {
		t.Errorf("%d processes, function %s; want the 3 ranks and solve", len(r.procs), r.Function())
	}
	expectErr := func(what, want string, f func()) {
		t.Helper()
		defer func() {
			v := recover()
			var e *Error
			if err, ok := v.(error); !ok || !errors.As(err, &e) || !strings.Contains(e.Error(), want) {
				t.Errorf("%s: panic %v, want an *Error containing %q", what, v, want)
			}
		}()
		f()
	}
	expectErr("unknown function", `imbalance.Analyze: WithFunction: no region named "nope"`, func() { Analyze(tr, WithFunction("nope")) })
	other := seedTrace()
	expectErr("foreign process", "is not a process of this trace", func() { Analyze(tr, WithProcesses(other.Process(0))) })
	one := traceOf([]string{"main"}, procOf(call{0, 0, 5}))
	expectErr("no eligible function", "no function is invoked at least 2p = 2 times on the p = 1 analysed processes", func() { Analyze(one) })
	expectErr("nil trace", "the trace is nil", func() { Analyze(nil) })
	expectErr("bad region id", "region id 9 is not a region", func() { SegmentsOf(one.Process(0), 9, nil) })
	expectErr("never invoked", `"b" is never invoked`, func() {
		Analyze(traceOf([]string{"a", "b"}, procOf(call{0, 0, 1}, call{0, 1, 2})), WithFunction("b"))
	})
}

func TestTablesAndRendering(t *testing.T) {
	tr := seedTrace()
	r := Analyze(tr, WithSync(trace.DefaultSync().Include("MPI")))
	seg := r.Segments()
	if seg.NumRows() != 9 || must(seg.Int64s("SOS-time (ns)"))[6] != 1 || must(seg.Strings("Process"))[6] != "rank 2" {
		t.Errorf("segments table:\n%v", seg)
	}
	it := r.Iterations()
	if it.NumRows() != 3 || must(it.Strings("Culprit"))[0] != "rank 0" || must(it.Int64s("Recoverable (ns)"))[0] != 2 || must(it.Int64s("Sync (ns)"))[0] != 9 {
		t.Errorf("iterations table:\n%v", it)
	}
	pr := r.Processes()
	if got := must(pr.Int64s("Slowest in")); !slices.Equal(got, []int64{1, 0, 0}) {
		t.Errorf("slowest in %v, want [1 0 0]", got)
	}
	if got := must(pr.Int64s("Tied in")); !slices.Equal(got, []int64{2, 2, 2}) {
		t.Errorf("tied in %v, want [2 2 2]", got)
	}
	if got := must(pr.Int64s("SOS-time (ns)")); !slices.Equal(got, []int64{9, 7, 5}) {
		t.Errorf("summed SOS-times %v, want [9 7 5]", got)
	}
	mb := r.MIMEBundle()
	h, _ := mb["text/html"].(string)
	if !strings.Contains(h, "<img src=\"data:image/png;base64,") || !strings.Contains(h, "dominant function a") {
		t.Errorf("HTML lacks the headline or the plot: %.300s", h)
	}
	if f := r.Plot(); f.Title() != "runtime imbalance: a" {
		t.Errorf("plot title %q", f.Title())
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A Leave without its region (Ref -1, as hand-built or converted traces have) closes the
// innermost call; a location with one must not take the stackless path.
func TestLeaveWithoutRegion(t *testing.T) {
	p := &trace.Process{}
	ev := func(k trace.EventKind, tm int64, r int32) {
		p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, tm), append(p.Ref, r)
	}
	for it := range int64(2) {
		ev(trace.Enter, 10*it, 0)
		ev(trace.Enter, 10*it+2, 1)
		ev(trace.Leave, 10*it+5, -1) // closes MPI_Barrier
		ev(trace.Leave, 10*it+9, 0)
	}
	tr := traceOf([]string{"step", "MPI_Barrier"}, p)
	want := []Segment{{0, 0, 0, 0, 9, 3}, {0, 1, 1, 10, 19, 3}}
	if got := Analyze(tr).SegmentList(); !slices.Equal(got, want) {
		t.Errorf("segments %v, want %v", got, want)
	}
}

// The generated COSMO-SPECS-like run: kernels grow over the iterations around rank 54 (the
// centre of a 10 x 10 grid), and rank 20's iteration 6 (of 12) runs 4 times longer.
func TestCOSMOSPECSCulprits(t *testing.T) {
	cfg := synth.COSMOSPECSConfig(100, 12)
	if cfg.GrowthCenter != 54 || cfg.OutlierRank != 20 || cfg.OutlierIter != 6 {
		t.Fatalf("preset changed: %+v", cfg)
	}
	tr := synth.Generate(cfg)
	r := Analyze(tr)
	if r.Function() != "solve" {
		t.Fatalf("dominant %s", r.Function())
	}
	if c := r.Culprit(); c == nil || c.Label() != "rank 54" {
		t.Errorf("culprit %v, want rank 54", c)
	}
	if w, _ := r.Worst(); w.Index != 6 || tr.Process(w.Culprit).Label() != "rank 20" {
		t.Errorf("worst iteration %d by %d, want 6 by rank 20", w.Index, w.Culprit)
	}
	its := r.IterationList()
	if its[0].Ratio() > 1.2 || its[11].Ratio() < 2 {
		t.Errorf("imbalance first %.3g, last %.3g: it does not grow", its[0].Ratio(), its[11].Ratio())
	}
}

// The heatmap's grid: one row per process, or the maximum of k consecutive processes when
// there are more than the rows allowed, so the slowest process of each bin shows.
func TestPlotGrid(t *testing.T) {
	tr := flatTrace(10, 2) // steps [0, 9] and [10, 19], SOS-time 6 each
	p := tr.Process(4)
	for i := range p.Time {
		p.Time[i] *= 2 // rank 4: SOS-times 12
	}
	r := Analyze(tr)
	labels, values := r.grid(0, 40, 4, 4) // k = 3: rows ranks 0-2, 3-5, 6-8, 9
	if want := []string{"rank 0 – rank 2", "rank 3 – rank 5", "rank 6 – rank 8", "rank 9"}; !slices.Equal(labels, want) {
		t.Errorf("labels %q, want %q", labels, want)
	}
	nan := math.NaN()
	want := [][]float64{ // columns of 10 ns; SOS-times in ms
		{6e-6, 6e-6, nan, nan}, {12e-6, 12e-6, 12e-6, 12e-6}, {6e-6, 6e-6, nan, nan}, {6e-6, 6e-6, nan, nan},
	}
	for i := range want {
		for j := range want[i] {
			if g, w := values[i][j], want[i][j]; !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("cell %d,%d = %g, want %g", i, j, g, w)
			}
		}
	}
	if f := r.Plot(); f.Title() != "runtime imbalance: step" {
		t.Errorf("title %q", f.Title())
	}
}
