package align

import "github.com/tracebook/tracebook/builtins/work"

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
	maxH   int32   // the largest offset, for BiWFA's cheap overlap test
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
	free   [][]int32
}

func newWFARun(a, b []int32, c costs) *wfaRun {
	r := &wfaRun{a: a, b: b, n: int32(len(a)), m: int32(len(b)), X: c.X, G: c.G}
	h := r.extend(0, 0)
	w := &wavefront{lo: 0, hi: 0, off: []int32{h}, maxH: h}
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

// next computes the wavefront of score s = len(fronts). It reports false
// when the work budget is exhausted. Each source wavefront is applied in its
// own tight loop (GapB, then GapA, then mismatch), then every diagonal is
// extended along its run of matches.
func (r *wfaRun) next() bool {
	work.Check()
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
		off := r.alloc(int(hi - lo + 1))
		for i := range off {
			off[i] = nullOff
		}
		n, m := r.n, r.m
		if g != nil {
			// GapB: A[i] alone, from diagonal k+1, same column
			for kk := max(g.lo, lo+1); kk <= min(g.hi, hi+1); kk++ {
				h := g.off[kk-g.lo]
				k := kk - 1
				if h != nullOff && h-k <= n && h > off[k-lo] {
					off[k-lo] = h
				}
			}
			// GapA: B[j] alone, from diagonal k-1, next column
			for kk := max(g.lo, lo-1); kk <= min(g.hi, hi-1); kk++ {
				h := g.off[kk-g.lo]
				k := kk + 1
				if h != nullOff && h+1 <= m && h+1 > off[k-lo] {
					off[k-lo] = h + 1
				}
			}
		}
		if x != nil {
			for k := max(x.lo, lo); k <= min(x.hi, hi); k++ {
				h := x.off[k-x.lo]
				if h != nullOff && h+1 <= m && h+1-k <= n && h+1 > off[k-lo] {
					off[k-lo] = h + 1
				}
			}
		}
		first, last, maxH := int32(-1), int32(-1), int32(-1)
		a, b := r.a, r.b
		var ext int64
		for i, h := range off {
			if h == nullOff {
				continue
			}
			k := lo + int32(i)
			v, h0 := h-k, h
			for v < n && h < m && a[v] == b[h] {
				v++
				h++
			}
			ext += int64(h - h0)
			off[i] = h
			maxH = max(maxH, h)
			if first < 0 {
				first = int32(i)
			}
			last = int32(i)
		}
		r.work += ext/8 + int64(hi-lo+1)
		if first >= 0 {
			w = &wavefront{lo: lo + first, hi: lo + last, off: off[first : last+1], maxH: maxH}
		}
	}
	r.fronts = append(r.fronts, w)
	if r.keep > 0 && s-r.keep >= 0 {
		if old := r.fronts[s-r.keep]; old != nil {
			r.free = append(r.free, old.off[:cap(old.off)])
		}
		r.fronts[s-r.keep] = nil
	}
	return r.budget == 0 || r.work <= r.budget
}

// alloc returns an offset slice of length n, reusing the slices of dropped
// wavefronts (BiWFA keeps only the last few).
func (r *wfaRun) alloc(n int) []int32 {
	for len(r.free) > 0 {
		f := r.free[len(r.free)-1]
		r.free = r.free[:len(r.free)-1]
		if cap(f) >= n {
			return f[:n]
		}
	}
	return make([]int32, n, n+n/4+16)
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

// traceback walks from the end to the start cell by cell, taking of the
// predecessors on an optimal path GapA first, then the diagonal, then GapB:
// the package's tie rule, as in needlemanWunsch. Whether a cell (i, j) can
// be reached with cost c is read from the wavefronts: the cost D(i, j) does
// not decrease along a diagonal, and the wavefront of cost c holds the
// furthest cell of cost c on each diagonal, so D(i, j) <= c holds exactly
// when some wavefront c' <= c reaches column j on diagonal j-i; on the
// path, where D(i, j) >= c is known, the wavefront c alone decides.
func (r *wfaRun) traceback() []Op {
	c := len(r.fronts) - 1
	i, j := r.n, r.m
	ops := make([]Op, 0, r.n+r.m)
	reach := func(c int, i, j int32) bool {
		w := r.front(c)
		return i >= 0 && j >= 0 && w != nil && w.get(j-i) >= j
	}
	for i > 0 || j > 0 {
		switch {
		case j > 0 && reach(c-int(r.G), i, j-1):
			ops = append(ops, OpGapA)
			j, c = j-1, c-int(r.G)
		case i > 0 && j > 0 && r.a[i-1] == r.b[j-1]:
			ops = append(ops, OpDiag)
			i, j = i-1, j-1
		case i > 0 && j > 0 && reach(c-int(r.X), i-1, j-1):
			ops = append(ops, OpDiag)
			i, j, c = i-1, j-1, c-int(r.X)
		case i > 0 && reach(c-int(r.G), i-1, j):
			ops = append(ops, OpGapB)
			i, c = i-1, c-int(r.G)
		default:
			panic("align: wfa traceback lost the path")
		}
	}
	if c != 0 {
		panic("align: wfa traceback ended with a cost left")
	}
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
	cells  *work.Job // progress: wavefront work, as DP cells
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
		if fs+rs >= best || wf.maxH+wr.maxH < m {
			return // no diagonal can overlap
		}
		// forward diagonal k meets reverse diagonal (m-n)-k
		d := m - n
		klo, khi := max(wf.lo, d-wr.hi), min(wf.hi, d-wr.lo)
		offF, offR := wf.off, wr.off
		for k := klo; k <= khi; k++ {
			hf, hr := offF[k-wf.lo], offR[d-k-wr.lo]
			if hf != nullOff && hr != nullOff && hf+hr >= m {
				best, bpK, bpH, bpP = fs+rs, k, hf, fs
				return
			}
		}
	}
	sf, sr := 0, 0
	check(0, 0)
	var counted int64 // work already reported as progress
	for best == 1<<62 || sf+sr < best+P-1 {
		if w := fw.work + rv.work; bw.cells != nil && w-counted >= 1<<16 {
			bw.cells.Add(w - counted)
			counted = w
		}
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
	if bw.cells != nil {
		bw.cells.Add(fw.work + rv.work - counted)
	}
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
