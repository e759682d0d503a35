package align

import (
	"fmt"
	"html"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/intern"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Result is the alignment of two sequences or processes with the metrics
// of Weber chapter 4. Rows ("pairs") follow the flat alignment; for
// processes they are call-tree nodes in pre-order of the aligned tree.
type Result struct {
	LabelA, LabelB string
	names          []string // symbol -> function name
	a, b           []int32  // symbol sequences
	ia, ib         []int32  // per pair: position in a / b, -1 for a gap
	state          []State
	depth          []int32 // call level per pair (1 for sequences)
	end            []int32 // one past the subtree's last pair
	// per position of a / b; nil for plain sequences
	enterA, leaveA, enterB, leaveB []int64
	score                          int
	scoring                        Scoring
	method                         Method
	why                            string
	heuristic                      bool
	hier                           *Hier
	treeA, treeB                   *Tree
	opts                           Options
	sides                          sides     // run and process names for figures
	optimum, preOptimum            *int      // FlatOptimum and the pre-order optimum, once computed
	vt                             []float64 // the aligned time axis (axis), once computed
	stepA, stepB                   []int64   // per element, enter to the next enter (steps), with vt
}

// symbols maps names to a shared symbol space (identity across traces is
// by name).
type symbols struct{ *intern.Table }

func newSymbols() *symbols { return &symbols{intern.New()} }

// encode maps names to symbols.
func (s *symbols) encode(names []string) []int32 {
	out := make([]int32, len(names))
	for i, x := range names {
		out[i] = s.ID(x)
	}
	return out
}

// Strings aligns two strings, one symbol per rune (Weber's worked examples).
func Strings(a, b string, opts ...Option) *Result {
	sy := newSymbols()
	enc := func(s string) []int32 {
		var out []int32
		for _, r := range s {
			out = append(out, sy.ID(string(r)))
		}
		return out
	}
	return flatResult("align.Strings", enc(a), enc(b), sy.Names, opts)
}

// Sequences aligns two sequences of function names.
func Sequences(a, b []string, opts ...Option) *Result {
	sy := newSymbols()
	return flatResult("align.Sequences", sy.encode(a), sy.encode(b), sy.Names, opts)
}

func flatResult(fn string, a, b []int32, names []string, opts []Option) *Result {
	o := collect(fn, opts)
	al := flatJob(fn, a, b, o)
	r := &Result{LabelA: "A", LabelB: "B", names: names, a: a, b: b, scoring: o.Scoring,
		score: al.Score, method: al.Method, why: al.Why, heuristic: al.Heuristic, opts: o}
	r.fromOps(al.Ops)
	return r
}

func (r *Result) fromOps(ops []Op) {
	n := len(ops)
	r.ia, r.ib = make([]int32, n), make([]int32, n)
	r.state = make([]State, n)
	r.depth, r.end = make([]int32, n), make([]int32, n)
	i, j := int32(0), int32(0)
	for k, op := range ops {
		r.depth[k], r.end[k] = 1, int32(k+1)
		switch op {
		case OpDiag:
			r.ia[k], r.ib[k] = i, j
			if r.a[i] == r.b[j] {
				r.state[k] = Equal
			} else {
				r.state[k] = Diff
			}
			i, j = i+1, j+1
		case OpGapA:
			r.ia[k], r.ib[k], r.state[k] = -1, j, GapA
			j++
		case OpGapB:
			r.ia[k], r.ib[k], r.state[k] = i, -1, GapB
			i++
		}
	}
}

// treeOf converts a process's call tree to symbols of sy.
func treeOf(p *trace.Process, sy *symbols) (*Tree, *trace.CallTree) {
	ct := p.CallTree()
	t := &Tree{Sym: make([]int32, ct.Len()), End: ct.End}
	cache := map[int32]int32{}
	t.Sym[0] = -1
	for i := 1; i < ct.Len(); i++ {
		reg := ct.Region[i]
		id, ok := cache[reg]
		if !ok {
			id = sy.ID(p.RegionName(reg))
			cache[reg] = id
		}
		t.Sym[i] = id
	}
	return t, ct
}

// Pair aligns two processes: hierarchically (Algorithm 2) by default,
// flat over the pre-order sequences with FlatAlignment().
func Pair(p, q *trace.Process, opts ...Option) *Result {
	if p == nil || q == nil {
		fail("align.Pair", "nil process")
	}
	o := collect("align.Pair", opts)
	defer work.RecoverAs("align.Pair")
	label := "align.Pair: " + p.Label() + " vs " + q.Label()
	if o.Flat {
		o.cells = work.Start(label, 0, "cells")
		defer o.cells.Done()
	} else {
		o.nodes = work.Start(label, int64(p.CallTree().Len()+q.CallTree().Len()-2), "nodes")
		defer o.nodes.Done()
	}
	return pair(p, q, o)
}

func pair(p, q *trace.Process, o Options) *Result {
	sy := newSymbols()
	ta, ca := treeOf(p, sy)
	tb, cb := treeOf(q, sy)
	// processes of two runs are named with their runs ("v1 · rank 3"), as in the figures
	sd := sidesOf(p, q)
	r := &Result{LabelA: sd.lane(true, p.Label()), LabelB: sd.lane(false, q.Label()), names: sy.Names, scoring: o.Scoring, opts: o, sides: sd,
		a: ta.Preorder(), b: tb.Preorder(), treeA: ta, treeB: tb,
		enterA: ca.Enter[1:], leaveA: ca.Leave[1:], enterB: cb.Enter[1:], leaveB: cb.Leave[1:]}
	if o.Flat {
		al := alignWith(r.a, r.b, o)
		r.score, r.method, r.why, r.heuristic = al.Score, al.Method, al.Why, al.Heuristic
		r.fromOps(al.Ops)
		depA := ca.Depth[1:]
		depB := cb.Depth[1:]
		for k := range r.state {
			if r.ia[k] >= 0 {
				r.depth[k] = depA[r.ia[k]]
			} else {
				r.depth[k] = depB[r.ib[k]]
			}
		}
		return r
	}
	r.fromHier(hierarchical(ta, tb, o))
	return r
}

// fromHier fills the pairs of a hierarchical result from its aligned tree.
func (r *Result) fromHier(h *Hier) {
	r.hier = h
	r.method, r.heuristic = Auto, h.Heuristic
	n := len(h.State)
	r.ia, r.ib = make([]int32, n), make([]int32, n)
	for k := 0; k < n; k++ {
		r.ia[k], r.ib[k] = h.NodeA[k]-1, h.NodeB[k]-1 // node i is position i-1
		if h.NodeA[k] < 0 {
			r.ia[k] = -1
		}
		if h.NodeB[k] < 0 {
			r.ib[k] = -1
		}
	}
	r.state, r.depth, r.end = h.State, h.Depth, h.End
	r.score = h.Score(r.scoring)
}

// Score is the alignment score (for hierarchical results: of the flat
// pre-order alignment the aligned tree yields, comparable to flat scores).
func (r *Result) Score() int { return r.score }

// Hierarchical reports the aligned call tree, nil for flat results.
func (r *Result) Hierarchical() *Hier { return r.hier }

// Heuristic reports whether the result may be non-optimal.
func (r *Result) Heuristic() bool { return r.heuristic || r.hier != nil }

// Method is the flat method used ("Hierarchical" for hierarchical results).
func (r *Result) Method() string {
	if r.hier != nil {
		return "Hierarchical"
	}
	return r.method.String()
}

// Why says why Method ran: "selected" (WithMethod), or Auto's reasons (a
// special case, or its estimate of the edits and of both exact methods'
// times); for hierarchical results, the methods of the sub-alignments.
func (r *Result) Why() string {
	if h := r.hier; h != nil {
		var parts []string
		for m := Auto; m <= Special; m++ {
			if c := h.Methods[m]; c > 0 {
				parts = append(parts, fmt.Sprintf("%v %d", m, c))
			}
		}
		return fmt.Sprintf("hierarchical alignment (Weber Algorithm 2) of %d sub-alignments: %s", h.SubAlignments, strings.Join(parts, ", "))
	}
	return r.why
}

// Len is the number of aligned pairs.
func (r *Result) Len() int { return len(r.state) }

// Counts returns the number of Equal, Diff, GapA and GapB pairs.
func (r *Result) Counts() (equal, diff, gapA, gapB int) {
	for _, s := range r.state {
		switch s {
		case Equal:
			equal++
		case Diff:
			diff++
		case GapA:
			gapA++
		default:
			gapB++
		}
	}
	return
}

// Similarity is Weber's eq. 4.1-4.5: the score placed between Score_min
// (eq. 4.3: differences and the necessary gaps) and Score_max (eq. 4.1),
// scaled to [0, 1]. For the default scoring this is (Score/Score_max +
// 0.5) / 1.5; for other scorings the same linear map of [Score_min,
// Score_max]. Clamped to [0, 1] (a heuristic alignment may score below
// Score_min).
func (r *Result) Similarity() float64 {
	return similarity(r.score, len(r.a), len(r.b), r.scoring)
}

func similarity(score, m, n int, s Scoring) float64 {
	hi := s.Match * max(m, n)
	lo := s.Mismatch*min(m, n) + s.Gap*abs(m-n)
	if hi == lo {
		return 1
	}
	v := float64(score-lo) / float64(hi-lo)
	return min(1, max(0, v))
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// CorrectedScore is the score Weber 3.5.3 compares with the flat optimum:
// for hierarchical results the HA score with the gap correction of 3.4.2,
// taken in the Euler-form flat sequences (Tree.Euler: a function listed on
// entry and again after each of its calls returns; Hier.EulerScore); for
// flat results the score itself.
func (r *Result) CorrectedScore() int {
	if r.hier != nil {
		return r.hier.EulerScore(r.scoring, true)
	}
	return r.score
}

// FlatOptimum is the exact optimal score of a flat alignment of the
// sequences CorrectedScore is measured on: the Euler-form sequences for
// hierarchical results (Weber 3.4.2, 3.5.3), the pre-order sequences for
// flat ones. Computed once, as interruptible long work with a progress bar
// (an exact alignment of the whole processes: may take long).
func (r *Result) FlatOptimum() int {
	if r.optimum == nil {
		a, b := r.a, r.b
		if r.hier != nil {
			a, b = r.treeA.Euler(), r.treeB.Euler()
		}
		v := r.exactScore("align.Result.FlatOptimum", a, b)
		r.optimum = &v
	}
	return *r.optimum
}

func (r *Result) exactScore(fn string, a, b []int32) int {
	o := r.opts
	o.Method, o.Budget = Auto, 1<<62
	return flatJob(fn, a, b, o).Score
}

// HAError is Weber's error of 3.5.3: (FlatOptimum - CorrectedScore) /
// |FlatOptimum| (ScoreError), 0 for exact flat results. For C(IKK)C
// against C(JIK)C it is 0.2 (corrected HA 8, optimum 10); Weber reports
// 10.3% for AMG2006 and 12% for ParaDiS.
func (r *Result) HAError() float64 { return ScoreError(r.CorrectedScore(), r.FlatOptimum()) }

// PreorderError is the error of the uncorrected score of the aligned tree
// (Score) against the optimal flat alignment of the pre-order sequences:
// a different measure from Weber's, kept for comparison (for C(IKK)C
// against C(JIK)C it is 0: the pre-order sequences hide the parent parts).
func (r *Result) PreorderError() float64 {
	if r.hier == nil {
		return r.HAError()
	}
	if r.preOptimum == nil {
		v := r.exactScore("align.Result.PreorderError", r.a, r.b)
		r.preOptimum = &v
	}
	return ScoreError(r.score, *r.preOptimum)
}

func (r *Result) name(seq []int32, pos int32) string {
	if pos < 0 {
		return ""
	}
	return r.names[seq[pos]]
}

// Table has one row per aligned pair: state, functions, call level, and
// for processes enter/leave times and durations (ns) on both sides.
func (r *Result) Table() *arrowio.Table {
	n := len(r.state)
	st := make([]string, n)
	fa, fb := make([]string, n), make([]string, n)
	va, vb := make([]bool, n), make([]bool, n)
	depth := make([]int32, n)
	cols := []arrowio.Column{}
	for k := 0; k < n; k++ {
		st[k] = r.state[k].String()
		fa[k], va[k] = r.name(r.a, r.ia[k]), r.ia[k] >= 0
		fb[k], vb[k] = r.name(r.b, r.ib[k]), r.ib[k] >= 0
		depth[k] = r.depth[k]
	}
	cols = append(cols, arrowio.Dict("state", st), arrowio.NullableDict("function_a", fa, va),
		arrowio.NullableDict("function_b", fb, vb), arrowio.Int32("level", depth))
	if r.enterA != nil {
		side := func(idx []int32, enter, leave []int64) ([]int64, []int64, []int64) {
			e, l, d := make([]int64, n), make([]int64, n), make([]int64, n)
			for k, i := range idx {
				if i >= 0 {
					e[k], l[k], d[k] = enter[i], leave[i], leave[i]-enter[i]
				}
			}
			return e, l, d
		}
		ea, la, da := side(r.ia, r.enterA, r.leaveA)
		eb, lb, db := side(r.ib, r.enterB, r.leaveB)
		cols = append(cols,
			arrowio.NullableInt64("enter_a_ns", ea, va), arrowio.NullableInt64("leave_a_ns", la, va),
			arrowio.NullableInt64("duration_a_ns", da, va),
			arrowio.NullableInt64("enter_b_ns", eb, vb), arrowio.NullableInt64("leave_b_ns", lb, vb),
			arrowio.NullableInt64("duration_b_ns", db, vb))
	}
	return arrowio.MustTable(cols...)
}

// DissimilarityWindow is the sliding-window width of the Dissimilarity
// timeline as a fraction of the aligned time axis (Weber 4.2: 10%).
const DissimilarityWindow = 0.10

// DissimilarityPoints is the largest number of equidistant time points at
// which the Dissimilarity timeline is sampled.
const DissimilarityPoints = 1000

// axis returns the aligned (virtual) time axis of Weber Fig. 4.2: pair k
// spans [vt[k], vt[k+1]). For processes a pair lasts as long as the longer
// of its two sides, a side's element lasting from its enter to the next
// element's enter in pre-order (the last one to the process's last leave),
// so the elements of each side tile its run and a gap lasts as long as
// the call it stands for; without times (sequences) every pair lasts 1.
// Computed once.
func (r *Result) axis() []float64 {
	if r.vt != nil {
		return r.vt
	}
	n := len(r.state)
	vt := make([]float64, n+1)
	r.stepA, r.stepB = steps(r.enterA, r.leaveA), steps(r.enterB, r.leaveB)
	stepA, stepB := r.stepA, r.stepB
	for k := 0; k < n; k++ {
		d := 0.0
		if stepA != nil {
			if i := r.ia[k]; i >= 0 {
				d = float64(stepA[i])
			}
			if j := r.ib[k]; j >= 0 {
				d = max(d, float64(stepB[j]))
			}
		} else {
			d = 1
		}
		vt[k+1] = vt[k] + d
	}
	if n > 0 && vt[n] == 0 { // no time passes at all: pair units
		for k := range vt {
			vt[k] = float64(k)
		}
	}
	r.vt = vt
	return vt
}

// steps returns, per element, the time from its enter to the next
// element's enter (the last one: to the latest leave); nil without times.
func steps(enter, leave []int64) []int64 {
	if enter == nil {
		return nil
	}
	st := make([]int64, len(enter))
	var end int64
	for _, l := range leave {
		end = max(end, l)
	}
	for i := range enter {
		next := end
		if i+1 < len(enter) {
			next = enter[i+1]
		}
		st[i] = max(0, next-enter[i])
	}
	return st
}

// dissimilarity returns the timeline of 4.2 at pts equidistant points of
// the aligned time axis (the ends included): the pair under each point,
// the point's axis value, and the share of the time under a window of 10%
// of the axis centred on the point (shifted inside the axis at its ends)
// that Diff and Gap pairs take. Weber sums the scores of the Diff and Gap
// pairs under the window and normalises to [0, 1], 1 when all pairs are
// Diff or Gap; his scores weigh a Diff and a Gap alike, so the share of
// time is that metric under every scoring. Linear in pairs plus points.
func (r *Result) dissimilarity(pts int) (pos []int64, at, val []float64) {
	n := len(r.state)
	if n == 0 || pts <= 0 {
		return nil, nil, nil
	}
	vt := r.axis()
	T := vt[n]
	// ne[k] = Diff/Gap time before pair k; F(t) interpolates it.
	ne := make([]float64, n+1)
	for k, st := range r.state {
		ne[k+1] = ne[k]
		if st != Equal {
			ne[k+1] += vt[k+1] - vt[k]
		}
	}
	w := T * DissimilarityWindow
	// Three monotone cursors over the pairs: the window's two ends and the
	// point itself.
	locate := func(k *int, t float64) {
		for *k < n-1 && vt[*k+1] <= t {
			*k++
		}
	}
	F := func(c *int, t float64) float64 {
		locate(c, t)
		k := *c
		if t >= vt[k+1] {
			return ne[k+1]
		}
		f := ne[k]
		if r.state[k] != Equal {
			f += t - vt[k]
		}
		return f
	}
	var lo, hi, mid int
	pos, at, val = make([]int64, pts), make([]float64, pts), make([]float64, pts)
	for p := 0; p < pts; p++ {
		t := T / 2
		if pts > 1 {
			t = T * float64(p) / float64(pts-1)
		}
		a, b := t-w/2, t+w/2
		if a < 0 {
			a, b = 0, w
		}
		if b > T {
			a, b = T-w, T
		}
		locate(&mid, t)
		pos[p], at[p] = int64(mid), t
		if w > 0 {
			val[p] = (F(&hi, b) - F(&lo, a)) / w
		} else if r.state[mid] != Equal {
			val[p] = 1
		}
		val[p] = min(1, max(0, val[p]))
	}
	return pos, at, val
}

// Dissimilarity is the Dissimilarity timeline (4.2) at min(1000, Len())
// equidistant points of the aligned time axis (at least 2; both ends
// included): position is the pair under the point;
// for processes aligned_time_ns is the point on the aligned (virtual) time
// axis of Fig. 4.2, and time_a_ns and time_b_ns the real times of each run
// there (ns from the trace's start).
func (r *Result) Dissimilarity() *arrowio.Table {
	pos, at, val := r.dissimilarity(min(DissimilarityPoints, max(2, len(r.state))))
	cols := []arrowio.Column{arrowio.Int64("position", pos)}
	if r.enterA != nil {
		vt := r.axis()
		ta, tb := make([]int64, len(pos)), make([]int64, len(pos))
		ca, cb := &sideClock{enter: r.enterA, step: r.stepA, idx: r.ia, last: -1}, &sideClock{enter: r.enterB, step: r.stepB, idx: r.ib, last: -1}
		t := make([]int64, len(pos))
		for i, k := range pos {
			t[i] = int64(at[i] + 0.5)
			ta[i] = ca.at(int(k), at[i]-vt[k])
			tb[i] = cb.at(int(k), at[i]-vt[k])
		}
		cols = append(cols, arrowio.Int64("aligned_time_ns", t), arrowio.Int64("time_a_ns", ta), arrowio.Int64("time_b_ns", tb))
	}
	cols = append(cols, arrowio.Float64("dissimilarity", val))
	return arrowio.MustTable(cols...)
}

// sideClock maps a point of the aligned axis to one side's real time:
// inside a pair with an element of the side, its enter plus the time into
// the pair (at most the element's step); in a pair without one, the end
// of the side's last element before it. Queries must come in pair order
// (each call is amortised O(1)).
type sideClock struct {
	enter []int64
	idx   []int32
	step  []int64
	k     int   // pairs scanned
	last  int32 // the side's last element before pair k, -1 for none
}

func (c *sideClock) at(k int, into float64) int64 {
	for ; c.k <= k; c.k++ {
		if i := c.idx[c.k]; i >= 0 {
			c.last = i
		}
	}
	i := c.last
	switch {
	case i < 0:
		if len(c.enter) == 0 {
			return 0
		}
		return c.enter[0]
	case c.idx[k] == i:
		return c.enter[i] + min(c.step[i], int64(into+0.5))
	}
	return c.enter[i] + c.step[i]
}

// skew returns, for the Equal pairs, the runtime skew: enter time in B
// minus enter time in A, each relative to its process's first call (4.3).
func (r *Result) skew() (pos []int64, ta, tb, sk []int64) {
	if len(r.enterA) == 0 || len(r.enterB) == 0 {
		return
	}
	a0, b0 := r.enterA[0], r.enterB[0]
	for k, st := range r.state {
		if st != Equal {
			continue
		}
		ea, eb := r.enterA[r.ia[k]]-a0, r.enterB[r.ib[k]]-b0
		pos = append(pos, int64(k))
		ta = append(ta, ea)
		tb = append(tb, eb)
		sk = append(sk, eb-ea)
	}
	return
}

// Skew is the Runtime skew timeline (4.3): for every Equal pair the
// difference of the invocation times, B minus A, each measured from its
// process's first call; positive when B runs behind. Empty for sequences
// without times.
func (r *Result) Skew() *arrowio.Table {
	pos, ta, tb, sk := r.skew()
	return arrowio.MustTable(arrowio.Int64("position", pos), arrowio.Int64("time_a_ns", ta),
		arrowio.Int64("time_b_ns", tb), arrowio.Int64("skew_ns", sk))
}

// FunctionTimeDiff is the Function time difference table (4.4): per
// function over its aligned Equal invocations, how often it was faster in
// A than in B (No.+) and the time gained (Δ+, ns), how often slower (No.-)
// and the time lost (Δ-, ns), by inclusive duration. Sorted by the net
// difference, largest first.
func (r *Result) FunctionTimeDiff() *arrowio.Table {
	type acc struct{ np, nm, dp, dm int64 }
	per := map[int32]*acc{}
	if r.enterA != nil {
		for k, st := range r.state {
			if st != Equal {
				continue
			}
			i, j := r.ia[k], r.ib[k]
			d := (r.leaveB[j] - r.enterB[j]) - (r.leaveA[i] - r.enterA[i])
			x := per[r.a[i]]
			if x == nil {
				x = &acc{}
				per[r.a[i]] = x
			}
			switch {
			case d > 0:
				x.np++
				x.dp += d
			case d < 0:
				x.nm++
				x.dm += -d
			}
		}
	}
	keys := make([]int32, 0, len(per))
	for k := range per {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ni, nj := abs64(per[keys[i]].dp-per[keys[i]].dm), abs64(per[keys[j]].dp-per[keys[j]].dm)
		if ni != nj {
			return ni > nj
		}
		return r.names[keys[i]] < r.names[keys[j]]
	})
	fn := make([]string, len(keys))
	np, dp, nm, dm, net := make([]int64, len(keys)), make([]int64, len(keys)), make([]int64, len(keys)), make([]int64, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		x := per[k]
		fn[i], np[i], dp[i], nm[i], dm[i], net[i] = r.names[k], x.np, x.dp, x.nm, x.dm, x.dp-x.dm
	}
	return arrowio.MustTable(arrowio.String("function", fn), arrowio.Int64("no_plus", np),
		arrowio.Int64("delta_plus_ns", dp), arrowio.Int64("no_minus", nm), arrowio.Int64("delta_minus_ns", dm),
		arrowio.Int64("net_ns", net))
}

// Plot draws the two aligned timelines with call levels and the state bar
// (Equal / Diff / GapA / GapB, in colours no function has), with the
// Dissimilarity (on its full scale, 0 to 1) and Runtime skew timelines
// beneath (Weber Figs. 4.6-4.8). The x axis is the aligned (virtual) time
// of Fig. 4.2 for processes (each pair as long as its longer side), the
// alignment position for sequences. Lanes are named by run and process
// ("v1 · rank 3"; see Runs for the run names).
func (r *Result) Plot() *plotting.Figure {
	n := len(r.state)
	laneA, laneB := r.sides.lane(true, r.LabelA), r.sides.lane(false, r.LabelB)
	runA, runB := r.sides.run(true, r.LabelA), r.sides.run(false, r.LabelB)
	// x: the aligned time axis (Fig. 4.2) in s for processes, pairs for sequences.
	scale, xlabel, xunit := 1.0, "alignment position", plotting.Unit{}
	if r.enterA != nil {
		scale, xlabel, xunit = 1e-9, "aligned time (virtual: each pair as long as its longer side)", plotting.Seconds
	}
	x := make([]float64, n+1)
	for k, v := range r.axis() {
		x[k] = v * scale
	}
	var la, lb []plotting.Bar
	minW := x[n] / 4000 // keep the figure bounded for huge alignments
	for k := 0; k < n; k++ {
		start, end := x[k], x[r.end[k]]
		if end-start < minW && r.depth[k] > 2 {
			continue
		}
		lvl := int(r.depth[k]) - 1
		if i := r.ia[k]; i >= 0 {
			la = append(la, plotting.Bar{Start: start, End: end, Level: lvl, Label: r.names[r.a[i]], Color: -1})
		}
		if j := r.ib[k]; j >= 0 {
			lb = append(lb, plotting.Bar{Start: start, End: end, Level: lvl, Label: r.names[r.b[j]], Color: -1})
		}
	}
	ls := stateBars(r.state, stateNames(runA, runB), x)
	tl := plotting.Timeline("alignment", []plotting.Lane{{Name: laneA, Bars: la}, {Name: "state", Bars: ls, FullHeight: true}, {Name: laneB, Bars: lb}},
		plotting.WithXLabel(xlabel), plotting.WithXUnit(xunit))
	_, at, val := r.dissimilarity(DissimilarityPoints)
	dx := make([]float64, len(at))
	for i, t := range at {
		dx[i] = t * scale
	}
	parts := []*plotting.Figure{tl, plotting.Lines("dissimilarity (window 10% of the aligned time)", xlabel, "dissimilarity",
		plotting.Series{X: dx, Y: val}).YRange(0, 1).XUnit(xunit).Resize(640, 170)}
	if sp, _, _, sk := r.skew(); len(sp) > 0 {
		step := max(1, len(sp)/2000)
		var sx, sy []float64
		for i := 0; i < len(sp); i += step {
			sx = append(sx, x[sp[i]])
			sy = append(sy, float64(sk[i])/1e6)
		}
		parts = append(parts, plotting.Lines(fmt.Sprintf("runtime skew: %s − %s (positive: %[1]s behind)", runB, runA),
			xlabel, "skew", plotting.Series{X: sx, Y: sy}).YRange(0, 0).XUnit(xunit).YUnit(plotting.Milliseconds).Resize(640, 170))
	}
	title := laneA + " vs " + laneB
	if s := r.sides; s.procA != "" && s.procA == s.procB && s.runA != "" {
		title = fmt.Sprintf("%s: %s vs %s", s.procA, s.runA, s.runB)
	}
	return plotting.Stack(title, parts...)
}

// AlignedStrings renders the alignment as two rows and a state row
// ('=' Equal, '!' Diff, '-' gap), each symbol's name padded to a column.
func (r *Result) AlignedStrings() (string, string, string) {
	ca, cb, cs := r.alignedCells()
	return strings.Join(ca, ""), strings.Join(cb, ""), strings.Join(cs, "")
}

// alignedCells returns, per aligned pair, its column of the A row, the B row and the state
// row, equally wide; each but the first starts with its separator (a blank between
// multi-character names, none between single characters).
func (r *Result) alignedCells() (ca, cb, cs []string) {
	ca, cb, cs = make([]string, len(r.state)), make([]string, len(r.state)), make([]string, len(r.state))
	for k, st := range r.state {
		na, nb := r.name(r.a, r.ia[k]), r.name(r.b, r.ib[k])
		w := max(utf8.RuneCountInString(na), utf8.RuneCountInString(nb), 1)
		pad := func(s string) string {
			if s == "" {
				s = "-"
			}
			return s + strings.Repeat(" ", w-utf8.RuneCountInString(s))
		}
		sep := ""
		if w > 1 && k > 0 {
			sep = " "
		}
		ca[k] = sep + pad(na)
		cb[k] = sep + pad(nb)
		cs[k] = sep + stateMark[st] + strings.Repeat(" ", w-1)
	}
	return ca, cb, cs
}

// stateMark is the state row's character of each state.
var stateMark = map[State]string{Equal: "=", Diff: "!", GapA: "-", GapB: "-"}

// textWidth is the width in columns of the aligned rows in the text form.
const textWidth = 80

// alignedText is the A row, the state row and the B row, labelled "A " and "B ", in blocks of
// at most width columns separated by a blank line, so a front end that wraps long lines never
// moves the state marks away from the pairs they mark. A name wider than a block gets a block
// of its own.
func (r *Result) alignedText(width int) string {
	ca, cb, cs := r.alignedCells()
	var b strings.Builder
	for k := 0; k < len(ca); {
		e, w := k, 0
		for e < len(ca) {
			cw := utf8.RuneCountInString(ca[e])
			if e == k {
				cw = utf8.RuneCountInString(strings.TrimPrefix(ca[e], " "))
			}
			if e > k && 2+w+cw > width {
				break
			}
			w += cw
			e++
		}
		row := func(cells []string) string {
			return strings.TrimRight(strings.TrimPrefix(strings.Join(cells[k:e], ""), " "), " ")
		}
		if k > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "A %s\n  %s\nB %s\n", row(ca), row(cs), row(cb))
		k = e
	}
	return b.String()
}

// String is a one-line summary (labels, pair counts, score, similarity to four decimals,
// method) followed, for alignments of up to 120 pairs, by the aligned rows (see AlignedStrings)
// as A, state marks, B in blocks of at most 80 columns.
func (r *Result) String() string {
	e, d, ga, gb := r.Counts()
	s := fmt.Sprintf("alignment %s vs %s: %d pairs (equal %d, diff %d, gapA %d, gapB %d), score %d, similarity %.4f, method %s",
		r.LabelA, r.LabelB, len(r.state), e, d, ga, gb, r.score, r.Similarity(), r.Method())
	if r.heuristic {
		s += " (heuristic)"
	}
	if n := len(r.state); n > 0 && n <= 120 {
		s += "\n" + strings.TrimSuffix(r.alignedText(textWidth), "\n")
	}
	return s
}

// MIMEBundle renders a compact HTML summary and the text form. The aligned rows are one
// unwrapped <pre> that scrolls sideways, so the state marks stay under their pairs.
func (r *Result) MIMEBundle() map[string]any {
	e, d, ga, gb := r.Counts()
	var h strings.Builder
	fmt.Fprintf(&h, "<div><b>alignment</b> %s vs %s: %d pairs, score %d, similarity %.4f, method %s",
		html.EscapeString(r.LabelA), html.EscapeString(r.LabelB), len(r.state), r.score, r.Similarity(), r.Method())
	fmt.Fprintf(&h, "<br>equal %d · diff %d · gap A %d · gap B %d", e, d, ga, gb)
	if w := r.Why(); w != "" {
		fmt.Fprintf(&h, "<br><small>why %s: %s</small>", r.Method(), html.EscapeString(w))
	}
	if n := len(r.state); n > 0 && n <= 120 {
		a, b, st := r.AlignedStrings()
		fmt.Fprintf(&h, `<pre style="white-space:pre;overflow-x:auto">A %s`+"\n  %s\nB %s</pre>",
			html.EscapeString(a), html.EscapeString(st), html.EscapeString(b))
	}
	h.WriteString("</div>")
	return map[string]any{"text/html": h.String(), "text/plain": r.String()}
}

// frac is the position of pair k's start on the aligned time axis as a
// fraction in [0, 1] (k == Len() gives 1): the x axis of the run heatmaps.
func (r *Result) frac(k int) float64 { return r.fracAt(r.axis()[k]) }

// fracAt is the point t of the aligned time axis as a fraction in [0, 1].
func (r *Result) fracAt(t float64) float64 {
	vt := r.axis()
	if len(vt) < 2 || vt[len(vt)-1] == 0 {
		return 0
	}
	return t / vt[len(vt)-1]
}
