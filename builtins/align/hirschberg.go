package align

import (
	"sync"

	"github.com/tracebook/tracebook/builtins/work"
)

// Hirschberg's linear-space divide and conquer (Weber 3.2.2, Figs. 3.8-3.11),
// with either a scalar row kernel or the bit-parallel one.

const leafCells = 1 << 12 // below this, subproblems are solved by full NW

// hirschbergParallelCells is the size (n*m) from which a subproblem's rows
// and its two halves run on two cores (a variable for the tests).
var hirschbergParallelCells = 1 << 22

type hirschberg struct {
	a, b, ar, br     []int32    // the sequences; reversed for the scalar kernel
	ac, bc, arc, brc []byte     // byte codes for the byte-lane kernel
	dc, dr           [2][]int32 // dense codes of a, b and of their reversals
	s                Scoring
	kernel           rowKernel
	wM, wX           uint8 // byte-lane kernel weights
	g                int   // bit-vector kernel: scale of its units
	pool             sync.Pool
	cells            *work.Job // progress (nil: none)
	noVector         bool      // tests and benchmarks: the pure-Go kernel
}

// rowKernel is the kernel that computes Hirschberg's middle rows.
type rowKernel uint8

const (
	kernScalar rowKernel = iota // eq. 3.2, one cell at a time
	kernBytes                   // eight cells per word (swar.go)
	kernBits                    // 64 cells per word (bitpar.go)
)

// newHirschberg prepares a divide and conquer over a and b. With fast set it
// uses the bit-vector kernel if the scoring's D is at most bpMaxD, else the
// byte-lane kernel if the symbols and weights fit bytes, else the scalar one.
func newHirschberg(a, b []int32, s Scoring, fast bool, cells *work.Job) *hirschberg {
	// Coded and reversed copies of both sequences, two rows of scores.
	reserve("Hirschberg rows and sequence copies", 16*int64(len(a)+len(b))+48*int64(len(b)))
	h := &hirschberg{a: a, b: b, s: s, cells: cells}
	if fast && (h.useBits() || h.useBytes()) {
		return h
	}
	h.ar, h.br = reversed(a), reversed(b)
	return h
}

// useBits selects the bit-vector kernel if the scoring's D allows it.
func (h *hirschberg) useBits() bool {
	d, wx, g, ok := bpDims(h.s)
	if !ok {
		return false
	}
	ac, bc, sigma := denseCodes(h.a, h.b)
	h.kernel, h.g = kernBits, g
	h.dc = [2][]int32{ac, bc}
	h.dr = [2][]int32{reversed(ac), reversed(bc)}
	if step := lanesStep(d, wx); step != nil && !h.noVector {
		h.pool.New = func() any {
			k := newLanesKernel(d, wx, sigma)
			k.stepFast = step
			return k
		}
		return true
	}
	h.pool.New = func() any { return newBPKernel(d, wx, sigma) }
	return true
}

// lastRower is a bit-vector kernel: bpKernel, or lanesKernel where the CPU
// has its vector loop.
type lastRower interface {
	lastRow(a, b []int32, out []int64, cells *work.Job)
}

// useBytes selects the byte-lane kernel if the symbols and weights fit bytes.
func (h *hirschberg) useBytes() bool {
	ac, bc, ok := byteCodes(h.a, h.b)
	wM, wX := h.s.maxForm()
	if !ok || wM >= 128 {
		return false
	}
	h.kernel = kernBytes
	h.ac, h.bc = ac, bc
	h.arc, h.brc = reversed(ac), reversed(bc)
	h.wM, h.wX = uint8(wM), uint8(wX)
	h.pool.New = func() any { return &swarKernel{wM: h.wM, wX: h.wX} }
	return true
}

func reversed[T any](a []T) []T {
	r := make([]T, len(a))
	for i, x := range a {
		r[len(a)-1-i] = x
	}
	return r
}

// byteCodes maps the symbols of a and b to bytes 0..253 (denseCodes), if
// there are at most 254 distinct ones.
func byteCodes(a, b []int32) ([]byte, []byte, bool) {
	da, db, sigma := denseCodes(a, b)
	if sigma > 254 {
		return nil, nil, false
	}
	return toBytes(da), toBytes(db), true
}

// toBytes narrows codes below 256 to bytes.
func toBytes(c []int32) []byte {
	out := make([]byte, len(c))
	for i, x := range c {
		out[i] = byte(x)
	}
	return out
}

// scoreRow sets out[j] = score(a, b[:j]) by the recurrence of eq. 3.2,
// counting its cells in cells (nil: none) row by row.
func scoreRow(a, b []int32, s Scoring, out []int, cells *work.Job) {
	for j := range out {
		out[j] = j * s.Gap
	}
	for i := 1; i <= len(a); i++ {
		work.Check()
		if cells != nil {
			cells.Add(int64(len(b)))
		}
		diag := out[0]
		out[0] = i * s.Gap
		ai := a[i-1]
		for j := 1; j <= len(b); j++ {
			d := diag + s.Mismatch
			if ai == b[j-1] {
				d = diag + s.Match
			}
			if v := out[j] + s.Gap; v > d {
				d = v
			}
			if v := out[j-1] + s.Gap; v > d {
				d = v
			}
			diag = out[j]
			out[j] = d
		}
	}
}

// row: out[j] = score(A[alo:ahi], B[blo:blo+j]) (forward) or
// score(A[alo:ahi], B[bhi-j:bhi]) (backward).
func (h *hirschberg) row(alo, ahi, blo, bhi int, backward bool, out []int) {
	n, m := len(h.a), len(h.b)
	rows := ahi - alo
	switch h.kernel {
	case kernBits:
		k := h.pool.Get().(lastRower)
		tmp := make([]int64, bhi-blo+1)
		if backward {
			k.lastRow(h.dr[0][n-ahi:n-alo], h.dr[1][m-bhi:m-blo], tmp, h.cells)
		} else {
			k.lastRow(h.dc[0][alo:ahi], h.dc[1][blo:bhi], tmp, h.cells)
		}
		h.pool.Put(k)
		for j, x := range tmp {
			out[j] = h.g*int(x) + h.s.Gap*(rows+j)
		}
		return
	case kernBytes:
		k := h.pool.Get().(*swarKernel)
		tmp := make([]int32, bhi-blo+1)
		if backward {
			k.lastRow(h.arc[n-ahi:n-alo], h.bc[blo:bhi], tmp, h.cells)
		} else {
			k.lastRow(h.ac[alo:ahi], h.brc[m-bhi:m-blo], tmp, h.cells)
		}
		h.pool.Put(k)
		for j, x := range tmp {
			out[j] = int(x) + h.s.Gap*(rows+j)
		}
		return
	}
	if backward {
		scoreRow(h.ar[n-ahi:n-alo], h.br[m-bhi:m-blo], h.s, out, h.cells)
	} else {
		scoreRow(h.a[alo:ahi], h.b[blo:bhi], h.s, out, h.cells)
	}
}

func (h *hirschberg) solve(alo, ahi, blo, bhi int, ops []Op) []Op {
	n, m := ahi-alo, bhi-blo
	switch {
	case n == 0:
		return appendN(ops, OpGapA, m)
	case m == 0:
		return appendN(ops, OpGapB, n)
	case n*m <= leafCells || n == 1:
		sub, _ := needlemanWunsch(h.a[alo:ahi], h.b[blo:bhi], h.s)
		return append(ops, sub...)
	}
	mid := alo + n/2
	fwd, bwd := make([]int, m+1), make([]int, m+1)
	if n*m >= hirschbergParallelCells {
		work.Parallel(2, func(w int) { // a panic of either (an interrupt) is the caller's
			if w == 0 {
				h.row(alo, mid, blo, bhi, false, fwd)
			} else {
				h.row(mid, ahi, blo, bhi, true, bwd)
			}
		})
	} else {
		h.row(alo, mid, blo, bhi, false, fwd)
		h.row(mid, ahi, blo, bhi, true, bwd)
	}
	// The first column of the best total: the tie rule's alignment (the
	// lower envelope of the optimal paths) crosses the middle row there,
	// and both halves' own tie-rule alignments are its two parts.
	best, split := fwd[0]+bwd[m], 0
	for j := 1; j <= m; j++ {
		if v := fwd[j] + bwd[m-j]; v > best {
			best, split = v, j
		}
	}
	if n*m < hirschbergParallelCells {
		ops = h.solve(alo, mid, blo, blo+split, ops)
		return h.solve(mid, ahi, blo+split, bhi, ops)
	}
	// The two halves on two cores (their own rows are parallel too while
	// they are big): the lower levels keep both cores busy.
	var second []Op
	work.Parallel(2, func(w int) {
		if w == 0 {
			ops = h.solve(alo, mid, blo, blo+split, ops)
		} else {
			second = h.solve(mid, ahi, blo+split, bhi, nil)
		}
	})
	return append(ops, second...)
}
