package align

import (
	"encoding/binary"
	"math/bits"

	"github.com/tracebook/tracebook/builtins/work"
)

// Wavefront alignment (WFA, gap-linear) and its bidirectional linear-memory
// variant (BiWFA): the modern form of the output-sensitive O(ns) method of
// Ukkonen and Myers that Weber describes in 3.2.2 (Algorithm 1, Figs.
// 3.12-3.15). Costs are the edit form of the scoring (match 0, mismatch X,
// gap G; see Scoring.costs). For a score s and diagonal k = j - i the
// wavefront holds the furthest column j reachable with cost s; it is built
// from the wavefronts s-X (mismatch) and s-G (gaps) and then extended along
// runs of matches, so only O(n + s^2) cells are touched.
//
// The layout follows the published WFA2-lib design (Marco-Sola et al.,
// Bioinformatics 2021 and 2023): offsets live in flat reusable slices (an
// arena for the full WFA, a ring of the last max(X, G)+1 wavefronts for
// BiWFA), the next wavefront is computed in one branch-light pass over the
// diagonals both sources cover, and matches are extended by comparing
// 8 bytes of symbol codes at a time.

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

// seqCodes hold a sequence as codes of 1 << sh bytes per symbol (little
// endian), followed by 16 symbols of padding, so that the 8 bytes from any
// symbol up to 8 past the end can be read as one word and compared at once.
// The extension never trusts the padding: it clamps to the sequence's end.
type seqCodes struct {
	c  []byte
	sh uint
}

// word returns the 8 bytes of c from byte i. (A 32-bit index spares the
// overflow check of i+8.)
func word(c []byte, i uint32) uint64 {
	j := uint(i)
	return binary.LittleEndian.Uint64(c[j : j+8])
}

// rawCodes encodes symbols as their 4 bytes (two symbols per word).
func rawCodes(a []int32) seqCodes {
	c := make([]byte, 4*(len(a)+16))
	for i, x := range a {
		binary.LittleEndian.PutUint32(c[4*i:], uint32(x))
	}
	return seqCodes{c: c, sh: 2}
}

// wfaCodes encodes a and b (and, with rev, their reversals) with one byte
// per symbol (denseCodes) if at most 256 distinct symbols occur, else as
// raw 4-byte symbols.
func wfaCodes(a, b []int32, rev bool) (ac, bc, arc, brc seqCodes) {
	da, db, sigma := denseCodes(a, b)
	if sigma > 256 {
		ac, bc = rawCodes(a), rawCodes(b)
		if rev {
			arc, brc = rawCodes(reversed(a)), rawCodes(reversed(b))
		}
		return ac, bc, arc, brc
	}
	enc := func(s []int32, reverse bool) seqCodes {
		c := make([]byte, len(s)+16)
		for i, x := range s {
			if reverse {
				i = len(s) - 1 - i
			}
			c[i] = byte(x)
		}
		return seqCodes{c: c}
	}
	ac, bc = enc(da, false), enc(db, false)
	if rev {
		arc, brc = enc(da, true), enc(db, true)
	}
	return ac, bc, arc, brc
}

// from returns the codes from symbol i on.
func (s seqCodes) from(i int32) seqCodes {
	return seqCodes{c: s.c[int(i)<<s.sh:], sh: s.sh}
}

type wfaRun struct {
	a, b   []int32 // the sequences, for the traceback (nil in BiWFA's runs)
	ac, bc seqCodes
	n, m   int32
	X, G   int32
	keep   int // number of recent wavefronts kept (0: all); at least max(X, G)+1
	count  int // wavefronts computed so far: the next score
	// fronts holds the wavefronts by score, or by score modulo keep once
	// ring is set (keep > 0): each ring slot has its own reusable buffer.
	fronts []wavefront
	ring   bool
	bufs   [][]int32
	arena  []int32 // the full WFA's offsets, in chunks never moved
	work   int64
	budget int64 // abort (return false) beyond this work; 0: no limit
}

func newWFARun(a, b []int32, c costs) *wfaRun {
	r := &wfaRun{a: a, b: b}
	ac, bc, _, _ := wfaCodes(a, b, false)
	r.reset(ac, bc, int32(len(a)), int32(len(b)), c)
	return r
}

// reset starts a run over new sequences of lengths n and m, keeping the
// ring buffers.
func (r *wfaRun) reset(ac, bc seqCodes, n, m int32, c costs) {
	r.ac, r.bc, r.n, r.m, r.X, r.G = ac, bc, n, m, c.X, c.G
	r.count, r.work = 0, 0
	r.fronts = r.fronts[:0]
	if r.ring {
		r.fronts = r.fronts[:r.keep]
		for i := range r.fronts {
			r.fronts[i] = wavefront{lo: 0, hi: -1}
		}
	}
	h := r.extendFrom(0, 0)
	off := r.alloc(0, 1)
	off[0] = h
	r.store(0, wavefront{lo: 0, hi: 0, off: off, maxH: h})
	r.count = 1
}

// extendFrom returns the end of the run of matches on diagonal k from
// offset h, a valid cell.
func (r *wfaRun) extendFrom(k, h int32) int32 {
	off := []int32{h}
	extendWords(off, k, r.n, r.m, r.ac.c, r.bc.c, r.ac.sh)
	return off[0]
}

// front returns the wavefront of score s, or nil if it is empty or no
// longer kept.
func (r *wfaRun) front(s int) *wavefront {
	if s < 0 || s >= r.count || (r.ring && s < r.count-r.keep) {
		return nil
	}
	i := s
	if r.ring {
		i = s % r.keep
	}
	w := &r.fronts[i]
	if w.lo > w.hi {
		return nil
	}
	return w
}

// alloc returns room for n offsets of the wavefront of score s.
func (r *wfaRun) alloc(s, n int) []int32 {
	if r.ring {
		i := s % r.keep
		if cap(r.bufs[i]) < n {
			r.bufs[i] = make([]int32, n+n/4+64)
		}
		return r.bufs[i][:n]
	}
	if cap(r.arena)-len(r.arena) < n {
		size := max(n, min(2*cap(r.arena), 1<<22), 1<<10)
		if size >= 1<<16 { // the full WFA keeps every wavefront: check memory
			reserve("WFA wavefronts", 4*int64(size))
		}
		r.arena = make([]int32, 0, size)
	}
	l := len(r.arena)
	r.arena = r.arena[:l+n]
	return r.arena[l : l+n : l+n]
}

func (r *wfaRun) store(s int, w wavefront) {
	if r.ring {
		r.fronts[s%r.keep] = w
	} else {
		r.fronts = append(r.fronts, w)
	}
}

// startRing switches to keeping the last keep wavefronts only.
func (r *wfaRun) startRing() {
	p := int(max(r.X, r.G))
	r.keep = max(r.keep, p+1)
	ring := make([]wavefront, r.keep)
	for i := range ring {
		ring[i] = wavefront{lo: 0, hi: -1}
	}
	for s := max(0, r.count-r.keep); s < r.count; s++ {
		ring[s%r.keep] = r.fronts[s]
	}
	r.fronts, r.ring = ring, true
	r.bufs = make([][]int32, r.keep)
}

// next computes the wavefront of score s = the number computed so far. It
// reports false when the work budget is exhausted.
func (r *wfaRun) next() bool {
	work.Check()
	if r.keep > 0 && !r.ring {
		r.startRing()
	}
	s := r.count
	x, g := r.front(s-int(r.X)), r.front(s-int(r.G))
	lo, hi := int32(1<<30), int32(-1<<30)
	if x != nil {
		lo, hi = x.lo, x.hi
	}
	if g != nil {
		lo, hi = min(lo, g.lo-1), max(hi, g.hi+1)
	}
	lo, hi = max(lo, -r.n), min(hi, r.m)
	w := wavefront{lo: 0, hi: -1}
	if lo <= hi {
		off := r.alloc(s, int(hi-lo+1))
		w = r.compute(off, lo, x, g)
	}
	r.store(s, w)
	r.count++
	return r.budget == 0 || r.work <= r.budget
}

// compute sets off[k-lo] to the furthest offset of diagonal k reachable
// from x by a mismatch or from g by a gap, extended along its run of
// matches, null if none or if it lies outside the matrix, and returns the
// wavefront, its null ends trimmed. An offset out of bounds is the best
// candidate only where the diagonal's end is already reached with a lower
// cost, so the other candidates need not be kept.
func (r *wfaRun) compute(off []int32, lo int32, x, g *wavefront) wavefront {
	hi := lo + int32(len(off)) - 1
	n, m := r.n, r.m
	// The fast range: every source defined.
	flo, fhi := lo, hi
	if g != nil {
		flo, fhi = max(flo, g.lo+1), min(fhi, g.hi-1)
	}
	if x != nil {
		flo, fhi = max(flo, x.lo), min(fhi, x.hi)
	}
	if x == nil || g == nil || flo > fhi {
		flo, fhi = hi+1, hi
	}
	for k := lo; k <= hi; k++ {
		if k == flo {
			k = fhi
			continue
		}
		h := max(g.get(k+1), g.get(k-1)+1, x.get(k)+1)
		if uint32(h) > uint32(m) || uint32(h-k) > uint32(n) {
			h = nullOff
		}
		off[k-lo] = h
	}
	var maxH int32
	var ext int64
	if flo <= fhi {
		// The edges first, then the fused kernel on the fast range.
		maxH, ext = extendWords(off[:flo-lo], lo, n, m, r.ac.c, r.bc.c, r.ac.sh)
		mh, e := extendWords(off[fhi+1-lo:], fhi+1, n, m, r.ac.c, r.bc.c, r.ac.sh)
		maxH, ext = max(maxH, mh), ext+e
		out := off[flo-lo : fhi-lo+1]
		gs := g.off[flo-1-g.lo : fhi+2-g.lo]
		xs := x.off[flo-x.lo : fhi+1-x.lo]
		if r.ac.sh == 0 {
			mh, e = nextBytes(out, gs, xs, flo, n, m, r.ac.c, r.bc.c)
		} else {
			mh, e = nextWords(out, gs, xs, flo, n, m, r.ac.c, r.bc.c, r.ac.sh)
		}
		maxH, ext = max(maxH, mh), ext+e
	} else {
		maxH, ext = extendWords(off, lo, n, m, r.ac.c, r.bc.c, r.ac.sh)
	}
	r.work += ext + int64(len(off))
	first, last := 0, len(off)-1
	for first <= last && off[first] < 0 {
		first++
	}
	for last >= first && off[last] < 0 {
		last--
	}
	if first > last {
		return wavefront{lo: 0, hi: -1}
	}
	return wavefront{lo: lo + int32(first), hi: lo + int32(last), off: off[first : last+1], maxH: maxH}
}

// nextBytes is the kernel of compute for one-byte codes where both sources
// are defined: for diagonal k = k0+i, out[i] is the best of the gaps from
// gs[i] and gs[i+2] (diagonals k-1 and k+1) and the mismatch from xs[i],
// extended 8 symbols per comparison. It returns the largest offset and the
// work of the comparisons beyond the first of each diagonal.
func nextBytes(out, gs, xs []int32, k0, n, m int32, ac, bc []byte) (maxH int32, ext int64) {
	maxH = -1
	gs = gs[:len(out)+2]
	xs = xs[:len(out)]
	k := k0 - 1
	for i := range out {
		k++
		h := max(gs[i+2], gs[i]+1, xs[i]+1)
		end := min(m, n+k)
		if uint32(h) > uint32(end) {
			out[i] = nullOff
			continue
		}
		x := word(ac, uint32(h-k)) ^ word(bc, uint32(h))
		if x != 0 {
			h += int32(bits.TrailingZeros64(x) >> 3)
			h = min(h, end)
		} else {
			h0 := h
			h = min(extendRun(ac, bc, h-k, h, end, 0), end)
			ext += int64(h-h0) >> 3
		}
		out[i] = h
		maxH = max(maxH, h)
	}
	return maxH, ext
}

// nextWords is nextBytes for codes of 1 << sh bytes.
func nextWords(out, gs, xs []int32, k0, n, m int32, ac, bc []byte, sh uint) (maxH int32, ext int64) {
	gs = gs[:len(out)+2]
	xs = xs[:len(out)]
	k := k0
	for i := range out {
		h := max(gs[i+2], gs[i]+1, xs[i]+1)
		if uint32(h) > uint32(m) || uint32(h-k) > uint32(n) {
			h = nullOff
		}
		out[i] = h
		k++
	}
	return extendWords(out, k0, n, m, ac, bc, sh)
}

// extendWords extends the diagonals of off (from lo on), comparing the
// words of ac and bc: 8 >> sh symbols at once. It returns the largest offset and the work of the comparisons
// beyond the first of each diagonal.
func extendWords(off []int32, lo, n, m int32, ac, bc []byte, sh uint) (maxH int32, ext int64) {
	maxH = -1
	k := lo - 1
	for i, h := range off {
		k++
		if h < 0 {
			continue
		}
		x := word(ac, uint32(h-k)<<sh) ^ word(bc, uint32(h)<<sh)
		if x != 0 {
			h += int32(bits.TrailingZeros64(x) >> (3 + sh))
		} else {
			end := min(m, n+k)
			h0 := h
			h = extendRun(ac, bc, h-k, h, end, sh)
			ext += int64(h-h0) >> 3
		}
		h = min(h, m, n+k)
		off[i] = h
		maxH = max(maxH, h)
	}
	return maxH, ext
}

// extendRun continues a run of matches from a[v], b[h], the first word
// equal, up to column end (or a few columns beyond).
func extendRun(ac, bc []byte, v, h, end int32, sh uint) int32 {
	step := int32(8 >> sh)
	for {
		v, h = v+step, h+step
		if h >= end {
			return h
		}
		x := word(ac, uint32(v)<<sh) ^ word(bc, uint32(h)<<sh)
		if x != 0 {
			return h + int32(bits.TrailingZeros64(x)>>(3+sh))
		}
	}
}

func (r *wfaRun) done() bool {
	return r.front(r.count-1).get(r.m-r.n) == r.m
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
// path, where D(i, j) >= c is known, the wavefront c alone decides. (The
// cells compute drops, beyond a diagonal's end reached more cheaply, are on
// no optimal path and are never asked for.)
func (r *wfaRun) traceback() []Op {
	c := r.count - 1
	i, j := r.n, r.m
	ops := make([]Op, 0, r.n+r.m)
	reach := func(c int, i, j int32) bool {
		return i >= 0 && j >= 0 && r.front(c).get(j-i) >= j
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

	// Set by solve for the whole input: the sequences' codes forward and
	// reversed, and the two runs whose ring buffers every split reuses.
	a, b             []int32
	ac, bc, arc, brc seqCodes
	fw, rv           *wfaRun
}

// solve appends to ops an optimal alignment of a and b.
func (bw *biwfa) solve(a, b []int32, ops []Op) []Op {
	bw.a, bw.b, bw.fw, bw.rv = a, b, nil, nil
	return bw.solveAt(0, int32(len(a)), 0, int32(len(b)), ops)
}

// prepare encodes the input and makes the two runs, at the first split
// (inputs equal up to a common prefix and suffix need neither).
func (bw *biwfa) prepare() {
	if bw.ac.c == nil {
		bw.ac, bw.bc, bw.arc, bw.brc = wfaCodes(bw.a, bw.b, true)
	}
	keep := int(max(bw.c.X, bw.c.G)) + 1
	bw.fw = &wfaRun{keep: keep, X: bw.c.X, G: bw.c.G}
	bw.rv = &wfaRun{keep: keep, X: bw.c.X, G: bw.c.G}
	bw.fw.startRing()
	bw.rv.startRing()
}

// solveAt appends an optimal alignment of a[v0:v1] and b[h0:h1].
func (bw *biwfa) solveAt(v0, v1, h0, h1 int32, ops []Op) []Op {
	if bw.failed {
		return ops
	}
	a, b := bw.a[v0:v1], bw.b[h0:h1]
	// Common prefix and suffix are part of an optimal alignment (3.2.3).
	p := commonPrefix(a, b)
	ops = appendN(ops, OpDiag, p)
	a, b = a[p:], b[p:]
	q := commonSuffix(a, b)
	a, b = a[:len(a)-q], b[:len(b)-q]
	v0, h0 = v0+int32(p), h0+int32(p)
	v1, h1 = v1-int32(q), h1-int32(q)
	switch {
	case len(a) == 0:
		ops = appendN(ops, OpGapA, len(b))
	case len(b) == 0:
		ops = appendN(ops, OpGapB, len(a))
	case len(a)*len(b) <= leafCells:
		ops = append(ops, nwCost(a, b, bw.c)...)
	default:
		ops = bw.split(v0, v1, h0, h1, ops)
	}
	return appendN(ops, OpDiag, q)
}

func (bw *biwfa) split(v0, v1, h0, h1 int32, ops []Op) []Op {
	n, m := v1-v0, h1-h0
	N, M := int32(len(bw.a)), int32(len(bw.b))
	P := int(max(bw.c.X, bw.c.G))
	if bw.fw == nil {
		bw.prepare()
	}
	fw, rv := bw.fw, bw.rv
	fw.reset(bw.ac.from(v0), bw.bc.from(h0), n, m, bw.c)
	rv.reset(bw.arc.from(N-v1), bw.brc.from(M-h1), n, m, bw.c)
	best := int(1 << 62)
	var bpK, bpH int32
	var bpP int
	d := m - n
	check := func(fs, rs int) {
		wf, wr := fw.front(fs), rv.front(rs)
		if wf == nil || wr == nil {
			return
		}
		if fs+rs >= best || wf.maxH+wr.maxH < m {
			return // no diagonal can overlap
		}
		// forward diagonal k meets reverse diagonal (m-n)-k
		klo, khi := max(wf.lo, d-wr.hi), min(wf.hi, d-wr.lo)
		if klo > khi {
			return
		}
		offF := wf.off[klo-wf.lo : khi-wf.lo+1]
		offR := wr.off[d-khi-wr.lo : d-klo-wr.lo+1]
		last := len(offR) - 1
		for i, hf := range offF {
			if hr := offR[last-i]; hf >= 0 && hr >= 0 && hf+hr >= m {
				best, bpK, bpH, bpP = fs+rs, klo+int32(i), hf, fs
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
		sub := wfaAlign(bw.a[v0:v1], bw.b[h0:h1], bw.c, 0)
		return append(ops, sub...)
	}
	if best < biwfaParallelCost {
		ops = bw.solveAt(v0, v0+v, h0, h0+h, ops)
		return bw.solveAt(v0+v, v1, h0+h, h1, ops)
	}
	// The two halves on two cores: the second with runs of its own and the
	// budget that is left (both spend it at the same time).
	other := &biwfa{c: bw.c, cells: bw.cells, a: bw.a, b: bw.b, ac: bw.ac, bc: bw.bc, arc: bw.arc, brc: bw.brc}
	if bw.budget > 0 {
		other.budget = max(1, bw.budget-bw.work)
	}
	var second []Op
	work.Parallel(2, func(w int) {
		if w == 0 {
			ops = bw.solveAt(v0, v0+v, h0, h0+h, ops)
		} else {
			second = other.solveAt(v0+v, v1, h0+h, h1, nil)
		}
	})
	bw.work += other.work
	bw.failed = bw.failed || other.failed
	return append(ops, second...)
}

// biwfaParallelCost is the alignment cost from which BiWFA solves the two
// halves of a split on two cores (below it the halves take well under a
// millisecond).
var biwfaParallelCost = 2048

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
