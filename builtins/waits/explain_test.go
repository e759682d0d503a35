package waits

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
)

// fakePath is a critical path given by hand: its length and its time per
// function; the rest is outside every region.
type fakePath struct {
	length int64
	times  map[string]int64
}

func (f fakePath) PathLength() int64          { return f.length }
func (f fakePath) PathTime(name string) int64 { return f.times[name] }

// TestExplainByHand checks the method on hand-made critical paths, the
// expected values derived by hand in the comments.
func TestExplainByHand(t *testing.T) {
	// A: 100 long, f 30, g 20, h 10, outside 40. B: 155 long, f 70, g 25,
	// k 5, outside 55. B is slower by 55. Path changes (B - A): f +40, g +5,
	// h -10, k +5, outside +15; they sum to 55.
	a := fakePath{100, map[string]int64{"f": 30, "g": 20, "h": 10}}
	b := fakePath{155, map[string]int64{"f": 70, "g": 25, "k": 5}}
	regions := [2][]string{{"f", "g", "h"}, {"f", "g", "k"}}
	diffs := []difference{{"h", "only in A", -3}, {"f", "slower", 7}, {"k", "only in B", 2}}
	e := explain("test", [2]string{"A", "B"}, regions, [2]pathTimes{a, b}, diffs)

	if pa, pb := e.PathLengths(); pa != 100 || pb != 155 || e.Slowdown() != 55 {
		t.Fatalf("path lengths %d, %d, slowdown %d; want 100, 155, 55", pa, pb, e.Slowdown())
	}
	want := []ExplainRow{ // ranked by path change: f, k, h; g is no difference
		{"f", "slower", 7, true, [2]int64{30, 70}, 40, 40.0 / 55},
		{"k", "only in B", 2, true, [2]int64{0, 5}, 5, 5.0 / 55},
		{"h", "only in A", -3, false, [2]int64{10, 0}, -10, -10.0 / 55},
	}
	if got := e.Rows(); !slices.Equal(got, want) {
		t.Errorf("rows\n%+v\nwant\n%+v", got, want)
	}
	if fns, out := e.Remainder(); fns != 5 || out != 15 {
		t.Errorf("remainder %d, %d; want 5 (g), 15 (outside)", fns, out)
	}
	h := e.Headline()
	for _, s := range []string{"B is slower", "55 ns longer", "Of the 3 differences, 2 have time on the critical path (f, k): 81.8% of the slowdown; the other 1, without (h): -18.2%",
		"other functions 9.1% (most: g 9.1%)", "time outside every region 27.3%"} {
		if !strings.Contains(h, s) {
			t.Errorf("headline lacks %q:\n%s", s, h)
		}
	}
	tab := e.Table()
	if tab.NumRows() != 3 || tab.NumCols() != 8 {
		t.Fatalf("table %d×%d, want 3×8", tab.NumRows(), tab.NumCols())
	}
	var names []string
	for _, f := range tab.Schema().Fields() {
		names = append(names, f.Name)
	}
	wantNames := []string{"Function", "Verdict", "Change (ns)", "On Critical Path", "Path A (ns)", "Path B (ns)", "Path Change (ns)", "Share of Slowdown"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("columns %q, want %q", names, wantNames)
	}
	if err := arrowio.CheckColumnNames(tab); err != nil {
		t.Error(err)
	}
	if m := e.MIMEBundle(); m["text/html"] == nil {
		t.Errorf("MIMEBundle without HTML: %v", m)
	}

	// The same runs the other way round: A is the slower run, the changes
	// are A - B.
	e = explain("test", [2]string{"A", "B"}, [2][]string{regions[1], regions[0]}, [2]pathTimes{b, a}, diffs)
	if e.Slowdown() != 55 || !strings.HasPrefix(e.Headline(), "A is slower") {
		t.Errorf("swapped: slowdown %d, headline %q", e.Slowdown(), e.Headline())
	}
	if r := e.Rows()[0]; r.Function != "f" || r.PathChange != 40 || r.Path != [2]int64{70, 30} || !r.OnPath {
		t.Errorf("swapped: first row %+v, want f with path change 40", r)
	}

	// Equally long paths: no slowdown, shares undefined (null), the path
	// changes taken as B - A (B counts as the slower run on ties).
	a = fakePath{100, map[string]int64{"f": 30}}
	b = fakePath{100, map[string]int64{"f": 50}}
	e = explain("test", [2]string{"A", "B"}, [2][]string{{"f"}, {"f"}}, [2]pathTimes{a, b}, []difference{{"f", "slower", 1}})
	r := e.Rows()[0]
	if e.Slowdown() != 0 || r.PathChange != 20 || !math.IsNaN(r.Share) || !r.OnPath {
		t.Errorf("tie: slowdown %d, row %+v", e.Slowdown(), r)
	}
	if !strings.HasPrefix(e.Headline(), "No slowdown") {
		t.Errorf("tie: headline %q", e.Headline())
	}
	if col := e.Table().Record().Column(7); col.IsValid(0) {
		t.Errorf("tie: share is not null")
	}
}

// TestCompareDifferences checks how compare's rows become differences: a
// function of several groups is one difference, its verdicts joined in
// row order and its costs summed; "similar" and "few processes" rows are
// none.
func TestCompareDifferences(t *testing.T) {
	rows := []compare.FunctionRow{
		{Group: 1, Function: "f", Verdict: "slower", Cost: 10},
		{Group: 1, Function: "g", Verdict: "similar", Cost: 50},
		{Group: 2, Function: "h", Verdict: "only in B", Cost: 4},
		{Group: 0, Function: "f", Verdict: "only in A", Cost: -3},
		{Group: 3, Function: "f", Verdict: "slower", Cost: 2},
		{Group: 0, Function: "g", Verdict: "few processes", Cost: 7},
		{Group: 2, Function: "k", Verdict: "faster", Cost: -1},
	}
	want := []difference{{"f", "slower, only in A", 9}, {"h", "only in B", 4}, {"k", "faster", -1}}
	if got := compareDifferences(rows); !slices.Equal(got, want) {
		t.Errorf("differences %+v, want %+v", got, want)
	}
}

// TestExplainNil checks that nil comparisons fail with an *Error naming the function.
func TestExplainNil(t *testing.T) {
	for fn, f := range map[string]func(){
		"waits.Explain":          func() { Explain(nil) },
		"waits.ExplainAlignment": func() { ExplainAlignment(nil) },
	} {
		err := work.Try(f)
		var we *work.Error
		if !errors.As(err, &we) || we.Func != fn || !strings.Contains(we.Msg, "nil") {
			t.Errorf("%s(nil): %v, want an *Error of %s about nil", fn, err, fn)
		}
	}
}

// pathByName is the oracle of the critical path's partition: its time per
// region name (exclusive: the innermost open region) and outside every
// region, from the segments and the events alone.
func pathByName(tr *trace.Trace, segs []Segment) (map[string]int64, int64) {
	by := map[string]int64{}
	var outside int64
	for _, s := range segs {
		p := tr.Processes()[s.Process]
		var stack []int32
		var covered int64
		for i := 0; i < p.Len(); i++ {
			switch p.Kind[i] {
			case trace.Enter:
				stack = append(stack, p.Ref[i])
			case trace.Leave:
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 0 || i+1 == p.Len() {
				continue
			}
			if lo, hi := max(p.Time[i], s.Start), min(p.Time[i+1], s.End); hi > lo {
				by[p.RegionName(stack[len(stack)-1])] += hi - lo
				covered += hi - lo
			}
		}
		outside += s.End - s.Start - covered
	}
	return by, outside
}

// checkPartition checks e against the oracle: per run the partition of
// the critical path (segments) over region names and outside time sums to
// its length, PathTime agrees with it per name, the rows' path times are
// its times, and the per-function path changes (all functions, plus the
// outside time) sum to the slowdown exactly.
func checkPartition(t *testing.T, e *Explanation, a, b *trace.Trace) {
	t.Helper()
	var by [2]map[string]int64
	var outside, length [2]int64
	for k, tr := range []*trace.Trace{a, b} {
		r := Analyze(tr)
		segs := r.SegmentRows()
		for _, s := range segs {
			length[k] += s.End - s.Start
		}
		by[k], outside[k] = pathByName(tr, segs)
		sum := outside[k]
		for name, v := range by[k] {
			sum += v
			if got := r.PathTime(name); got != v {
				t.Errorf("run %d: PathTime(%s) = %d, the segments hold %d", k, name, got, v)
			}
		}
		if sum != length[k] || r.PathLength() != length[k] {
			t.Errorf("run %d: segments %d ns, partition %d ns, PathLength %d", k, length[k], sum, r.PathLength())
		}
	}
	if pa, pb := e.PathLengths(); pa != length[0] || pb != length[1] {
		t.Errorf("PathLengths %d, %d; segments %d, %d", pa, pb, length[0], length[1])
	}
	slow := 1
	if length[0] > length[1] {
		slow = 0
	}
	slowdown := length[slow] - length[1-slow]
	changes := outside[slow] - outside[1-slow]
	names := map[string]bool{}
	for k := range by {
		for name := range by[k] {
			names[name] = true
		}
	}
	for name := range names {
		changes += by[slow][name] - by[1-slow][name]
	}
	if changes != slowdown || e.Slowdown() != slowdown {
		t.Errorf("per-function path changes sum to %d, the slowdown is %d, Explanation says %d", changes, slowdown, e.Slowdown())
	}
	fns, out := e.Remainder()
	explained := fns + out
	for _, r := range e.Rows() {
		if r.Path != [2]int64{by[0][r.Function], by[1][r.Function]} {
			t.Errorf("%s: path times %v, the segments hold %d, %d", r.Function, r.Path, by[0][r.Function], by[1][r.Function])
		}
		if r.OnPath != (by[slow][r.Function] > 0) {
			t.Errorf("%s: on the path %v, time on the slower run's path %d", r.Function, r.OnPath, by[slow][r.Function])
		}
		explained += r.PathChange
	}
	if explained != slowdown || out != outside[slow]-outside[1-slow] {
		t.Errorf("rows and remainder explain %d of %d ns; outside %d, want %d", explained, slowdown, out, outside[slow]-outside[1-slow])
	}
}

var kernels = []string{"compute_flux", "update_cells", "apply_bc"}

// checkKernelsExplain checks that the slow kernels are the first three
// differences, on the critical path, and explain most of the slowdown.
func checkKernelsExplain(t *testing.T, e *Explanation) {
	t.Helper()
	rows := e.Rows()
	if len(rows) < 3 {
		t.Fatalf("%d differences, want the three kernels at least:\n%s", len(rows), e)
	}
	var share float64
	for _, r := range rows[:3] {
		if !slices.Contains(kernels, r.Function) || !r.OnPath || r.Verdict != "slower" {
			t.Errorf("row %+v: want a slower kernel on the critical path", r)
		}
		share += r.Share
	}
	if share < 0.8 {
		t.Errorf("the kernels explain %.3f of the slowdown, want most (> 0.8):\n%s", share, e)
	}
}

func slowRuns(ranks int, imbalance float64) (a, b *trace.Trace) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = ranks, 20
	a = synth.Generate(cfg)
	cfg.SlowRank, cfg.SlowFactor, cfg.Imbalance = 3, 2, imbalance
	b = synth.Generate(cfg)
	return a, b
}

// TestExplainCompareSlowRank: run B's kernels are slower on every rank but
// 0 (a linear imbalance, so that compare's rank-sum test calls them
// slower) and twice as slow on rank 3, which so lies on B's critical path.
func TestExplainCompareSlowRank(t *testing.T) {
	a, b := slowRuns(16, 0.5)
	c := compare.Runs(a, b)
	e := Explain(c)
	// The differences, independently: the functions with a row of such a verdict.
	want := map[string]bool{}
	for _, w := range c.FunctionRows() {
		switch w.Verdict {
		case "slower", "faster", "only in A", "only in B":
			want[w.Function] = true
		}
	}
	cost := map[string]int64{}
	for _, w := range c.FunctionRows() {
		if want[w.Function] && w.Verdict != "similar" && w.Verdict != "few processes" {
			cost[w.Function] += w.Cost
		}
	}
	got := map[string]bool{}
	for _, r := range e.Rows() {
		if got[r.Function] {
			t.Errorf("%s is two rows", r.Function)
		}
		got[r.Function] = true
		if r.Change != cost[r.Function] {
			t.Errorf("%s: change %d, its differing rows cost %d", r.Function, r.Change, cost[r.Function])
		}
	}
	if len(got) != len(want) {
		t.Errorf("differences %v, want %v", got, want)
	}
	for f := range want {
		if !got[f] {
			t.Errorf("difference %s missing", f)
		}
	}
	if _, nb := c.Names(); !strings.HasPrefix(e.Headline(), nb+" is slower") {
		t.Errorf("headline %q", e.Headline())
	}
	checkKernelsExplain(t, e)
	checkPartition(t, e, a, b)
}

// TestExplainCompareMissesSlowRank: with one slow rank of 8, compare has
// no verdict on the kernels (its test needs more processes), so no kernel
// is a difference: the functions that are no difference explain most of
// the slowdown, and the headline names a kernel as the one that explains most.
func TestExplainCompareMissesSlowRank(t *testing.T) {
	a, b := slowRuns(8, 0)
	e := Explain(compare.Runs(a, b))
	for _, r := range e.Rows() {
		if slices.Contains(kernels, r.Function) {
			t.Errorf("kernel %s is a difference: %+v", r.Function, r)
		}
	}
	fns, _ := e.Remainder()
	if float64(fns) < 0.8*float64(e.Slowdown()) {
		t.Errorf("other functions explain %d of %d ns, want most:\n%s", fns, e.Slowdown(), e)
	}
	if !strings.Contains(e.Headline(), "(most: apply_bc") {
		t.Errorf("headline does not name apply_bc (the longest kernel):\n%s", e.Headline())
	}
	checkPartition(t, e, a, b)
}

// exclusiveByName is the oracle of ExplainAlignment's differences: per
// region name, its exclusive time summed over all processes, and its calls.
func exclusiveByName(tr *trace.Trace) (excl, calls map[string]int64) {
	excl, calls = map[string]int64{}, map[string]int64{}
	for _, p := range tr.Processes() {
		var stack []int32
		for i := 0; i < p.Len(); i++ {
			if len(stack) > 0 && i > 0 {
				excl[p.RegionName(stack[len(stack)-1])] += p.Time[i] - p.Time[i-1]
			}
			switch p.Kind[i] {
			case trace.Enter:
				stack = append(stack, p.Ref[i])
				calls[p.RegionName(p.Ref[i])]++
			case trace.Leave:
				stack = stack[:len(stack)-1]
			}
		}
	}
	return excl, calls
}

// TestExplainAlignmentSlowRank: run B's rank 3 computes twice as long.
func TestExplainAlignmentSlowRank(t *testing.T) {
	a, b := slowRuns(8, 0)
	e := ExplainAlignment(align.Runs(a, b))
	ea, ca := exclusiveByName(a)
	eb, cb := exclusiveByName(b)
	want := map[string]ExplainRow{}
	for _, m := range []map[string]int64{ca, cb} {
		for f := range m {
			r := ExplainRow{Function: f, Change: eb[f] - ea[f]}
			switch {
			case cb[f] == 0:
				r.Verdict = "only in A"
			case ca[f] == 0:
				r.Verdict = "only in B"
			case r.Change > 0:
				r.Verdict = "slower"
			case r.Change < 0:
				r.Verdict = "faster"
			default:
				continue
			}
			want[f] = r
		}
	}
	rows := e.Rows()
	if len(rows) != len(want) {
		t.Errorf("%d differences, want %d: %v", len(rows), len(want), want)
	}
	for _, r := range rows {
		if w, ok := want[r.Function]; !ok || w.Verdict != r.Verdict || w.Change != r.Change {
			t.Errorf("row %s %q %d, want %+v", r.Function, r.Verdict, r.Change, w)
		}
	}
	checkKernelsExplain(t, e)
	checkPartition(t, e, a, b)
}

// TestExplainIdentical: two runs generated alike (or one run with itself)
// have the same critical path: Explain says "No slowdown ... the
// comparison finds no differences", with no rows and nothing to explain.
func TestExplainIdentical(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 8, 20
	a, b := synth.Generate(cfg), synth.Generate(cfg)
	for name, e := range map[string]*Explanation{"compare": Explain(compare.Runs(a, b)), "align": ExplainAlignment(align.Runs(a, b)),
		"compare, one trace": Explain(compare.Runs(a, a)), "align, one trace": ExplainAlignment(align.Runs(a, a))} {
		pa, pb := e.PathLengths()
		fns, out := e.Remainder()
		if pa != pb || pa <= 0 || e.Slowdown() != 0 || len(e.Rows()) != 0 || fns != 0 || out != 0 {
			t.Errorf("%s: paths %d, %d, slowdown %d, %d rows, remainder %d, %d; want equal paths and nothing else:\n%s",
				name, pa, pb, e.Slowdown(), len(e.Rows()), fns, out, e)
		}
		if h := e.Headline(); !strings.HasPrefix(h, "No slowdown") || !strings.HasSuffix(h, "the comparison finds no differences") {
			t.Errorf("%s: headline %q", name, h)
		}
		if strings.HasSuffix(name, "one trace") {
			checkPartition(t, e, a, a)
		} else {
			checkPartition(t, e, a, b)
		}
	}
}
