package align

// Wavefront alignment (WFA, gap-linear) and its bidirectional linear-memory
// variant (BiWFA): the modern form of the output-sensitive O(ns) method of
// Ukkonen and Myers that Weber describes in 3.2.2 (Algorithm 1, Figs.
// 3.12-3.15). Costs are the edit form of the scoring (match 0, mismatch X,
// gap G; see Scoring.costs). For a score s and diagonal k = j - i the
// wavefront holds the furthest column j reachable with cost s; it is built
// from the wavefronts s-X (mismatch) and s-G (gaps) and then extended along
// runs of matches, so only O(n + s^2) cells are touched.

const nullOff = int32(-1 << 30)

type wavefront struct {
	lo, hi int32   // diagonal range; empty if lo > hi
	off    []int32 // off[k-lo]
}

func (w *wavefront) get(k int32) int32 {
	if w == nil || k < w.lo || k > w.hi {
		return nullOff
	}
	return w.off[k-w.lo]
}

type wfaRun struct {
	a, b   []int32
	n, m   int32
	X, G   int32
	fronts []*wavefront // indexed by score; old ones dropped when keep > 0
	keep   int          // number of recent wavefronts kept (0: all)
	work   int64
	budget int64 // abort (return false) beyond this work; 0: no limit
}

func newWFARun(a, b []int32, c costs) *wfaRun {
	r := &wfaRun{a: a, b: b, n: int32(len(a)), m: int32(len(b)), X: c.X, G: c.G}
	w := &wavefront{lo: 0, hi: 0, off: []int32{r.extend(0, 0)}}
	r.fronts = append(r.fronts, w)
	return r
}

func (r *wfaRun) extend(k, h int32) int32 {
	v, h0 := h-k, h
	a, b := r.a, r.b
	for v < r.n && h < r.m && a[v] == b[h] {
		v++
		h++
	}
	r.work += int64(h-h0) / 8
	return h
}

func (r *wfaRun) front(s int) *wavefront {
	if s < 0 || s >= len(r.fronts) {
		return nil
	}
	return r.fronts[s]
}

// candidate returns the furthest valid offset on diagonal k before extension
// and which transition gives it (priority on ties: GapB, GapA, mismatch).
func (r *wfaRun) candidate(s int, k int32) (int32, Op) {
	best, op := nullOff, Op(255)
	if g := r.front(s - int(r.G)); g != nil {
		if h := g.get(k + 1); h != nullOff && h-k <= r.n && h > best { // A[i] alone
			best, op = h, OpGapB
		}
		if h := g.get(k - 1); h != nullOff && h+1 <= r.m && h+1 > best { // B[j] alone
			best, op = h+1, OpGapA
		}
	}
	if x := r.front(s - int(r.X)); x != nil {
		if h := x.get(k); h != nullOff && h+1 <= r.m && h+1-k <= r.n && h+1 > best {
			best, op = h+1, OpDiag
		}
	}
	return best, op
}

// next computes the wavefront of score s = len(fronts). It reports false
// when the work budget is exhausted.
func (r *wfaRun) next() bool {
	s := len(r.fronts)
	x, g := r.front(s-int(r.X)), r.front(s-int(r.G))
	lo, hi := int32(1<<30), int32(-1<<30)
	if x != nil && x.lo <= x.hi {
		lo, hi = x.lo, x.hi
	}
	if g != nil && g.lo <= g.hi {
		lo, hi = min(lo, g.lo-1), max(hi, g.hi+1)
	}
	lo, hi = max(lo, -r.n), min(hi, r.m)
	var w *wavefront
	if lo <= hi {
		off := make([]int32, hi-lo+1)
		first, last := int32(-1), int32(-1)
		for k := lo; k <= hi; k++ {
			h, _ := r.candidate(s, k)
			if h != nullOff {
				h = r.extend(k, h)
				if first < 0 {
					first = k - lo
				}
				last = k - lo
			}
			off[k-lo] = h
		}
		r.work += int64(hi - lo + 1)
		if first >= 0 {
			w = &wavefront{lo: lo + first, hi: lo + last, off: off[first : last+1]}
		}
	}
	r.fronts = append(r.fronts, w)
	if r.keep > 0 && s-r.keep >= 0 {
		r.fronts[s-r.keep] = nil
	}
	return r.budget == 0 || r.work <= r.budget
}

func (r *wfaRun) done() bool {
	w := r.fronts[len(r.fronts)-1]
	return w.get(r.m-r.n) == r.m
}

// wfaAlign is WFA with all wavefronts kept and a traceback; memory O(s^2).
// It returns nil if the budget is exceeded.
func wfaAlign(a, b []int32, c costs, budget int64) []Op {
	r := newWFARun(a, b, c)
	r.budget = budget
	for !r.done() {
		if !r.next() {
			return nil
		}
	}
	return r.traceback()
}

func (r *wfaRun) traceback() []Op {
	s := len(r.fronts) - 1
	k, h := r.m-r.n, r.m
	ops := make([]Op, 0, r.n+r.m)
	for s > 0 {
		pre, op := r.candidate(s, k)
		ops = appendN(ops, OpDiag, int(h-pre))
		ops = append(ops, op)
		switch op {
		case OpDiag:
			h, s = pre-1, s-int(r.X)
		case OpGapA:
			k, h, s = k-1, pre-1, s-int(r.G)
		case OpGapB:
			k, h, s = k+1, pre, s-int(r.G)
		default:
			panic("align: wfa traceback lost the path")
		}
	}
	ops = appendN(ops, OpDiag, int(h))
	reverseOps(ops)
	return ops
}

// biwfa aligns in memory linear in the input plus O(s) per wavefront: the
// forward and the reverse wavefronts grow alternately until they overlap on
// a diagonal; the overlap with the least total cost is a breakpoint on an
// optimal path, and both halves are solved recursively.
type biwfa struct {
	c      costs
	budget int64
	work   int64
	failed bool
}

func (bw *biwfa) solve(a, b []int32, ops []Op) []Op {
	if bw.failed {
		return ops
	}
	// Common prefix and suffix are part of an optimal alignment (3.2.3).
	p := commonPrefix(a, b)
	ops = appendN(ops, OpDiag, p)
	a, b = a[p:], b[p:]
	q := commonSuffix(a, b)
	a, b = a[:len(a)-q], b[:len(b)-q]
	switch {
	case len(a) == 0:
		ops = appendN(ops, OpGapA, len(b))
	case len(b) == 0:
		ops = appendN(ops, OpGapB, len(a))
	case len(a)*len(b) <= leafCells:
		ops = append(ops, nwCost(a, b, bw.c)...)
	default:
		ops = bw.split(a, b, ops)
	}
	return appendN(ops, OpDiag, q)
}

func (bw *biwfa) split(a, b []int32, ops []Op) []Op {
	n, m := int32(len(a)), int32(len(b))
	P := int(max(bw.c.X, bw.c.G))
	fw := newWFARun(a, b, bw.c)
	rv := newWFARun(reversed(a), reversed(b), bw.c)
	fw.keep, rv.keep = P+2, P+2
	best := int(1 << 62)
	var bpK, bpH int32
	var bpP int
	check := func(fs, rs int) {
		wf, wr := fw.front(fs), rv.front(rs)
		if wf == nil || wr == nil {
			return
		}
		if fs+rs >= best {
			return
		}
		for k := wf.lo; k <= wf.hi; k++ {
			hf := wf.off[k-wf.lo]
			if hf == nullOff {
				continue
			}
			hr := wr.get((m - n) - k)
			if hr != nullOff && hf+hr >= m {
				best, bpK, bpH, bpP = fs+rs, k, hf, fs
				return
			}
		}
	}
	sf, sr := 0, 0
	check(0, 0)
	for best == 1<<62 || sf+sr < best+P-1 {
		if sf <= sr {
			fw.next()
			sf++
			for s := max(0, sr-P); s <= sr; s++ {
				check(sf, s)
			}
		} else {
			rv.next()
			sr++
			for s := max(0, sf-P); s <= sf; s++ {
				check(s, sr)
			}
		}
		if bw.budget > 0 && bw.work+fw.work+rv.work > bw.budget {
			bw.failed = true
			return ops
		}
	}
	bw.work += fw.work + rv.work
	v, h := bpH-bpK, bpH
	if best <= 4*P || (v == 0 && h == 0) || (v == n && h == m) || bpP == 0 || bpP == best {
		// Small cost or a degenerate breakpoint: full WFA, memory O(best^2).
		sub := wfaAlign(a, b, bw.c, 0)
		return append(ops, sub...)
	}
	ops = bw.solve(a[:v], b[:h], ops)
	return bw.solve(a[v:], b[h:], ops)
}

// nwCost is Needleman-Wunsch for the cost form (small leaves of BiWFA).
func nwCost(a, b []int32, c costs) []Op {
	// Any scoring with these costs has the same optima; pick one.
	s := Scoring{Match: 2 * int(c.G), Mismatch: 2*int(c.G) - int(c.X), Gap: 0}
	ops, _ := needlemanWunsch(a, b, s)
	return ops
}

func commonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

func commonSuffix(a, b []int32) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
