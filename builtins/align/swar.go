package align

import (
	"encoding/binary"

	"github.com/tracebook/tracebook/builtins/work"
)

// The bit-parallel kernel: the DP of eq. 3.2 in its difference form, eight
// cells per 64-bit word (SWAR), anti-diagonal by anti-diagonal so that the
// cells of one word do not depend on each other.
//
// With the gap weight moved out (Scoring.maxForm: H = score - Gap*(i+j)),
// H[i][j] = max(H[i-1][j], H[i][j-1], H[i-1][j-1] + w) with w in {wM, wX}
// and the borders 0. Both differences v = H[i][j]-H[i-1][j] and
// h = H[i][j]-H[i][j-1] lie in [0, wM], so they fit a byte lane. For a cell
// with corner c = H[i-1][j-1]: z = max(w, v_left, h_up) is H[i][j]-c, and
// the new differences are z-h_up and z-v_left, never negative, so no borrow
// crosses lanes. Symbols are compared eight at a time on byte codes
// (alphabets of at most 254 symbols per pair).

const (
	lanesLow  = 0x7f7f7f7f7f7f7f7f
	lanesHigh = 0x8080808080808080
	lanesOne  = 0x0101010101010101
)

func le64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i : i+8]) }
func st64(b []byte, i int, v uint64) {
	binary.LittleEndian.PutUint64(b[i:i+8], v)
}

// max8 is the lane-wise maximum of byte lanes below 128.
func max8(x, y uint64) uint64 {
	d := ((x | lanesHigh) - y) & lanesHigh
	m := (d >> 7) * 0xff
	return y ^ ((x ^ y) & m)
}

// swarKernel holds reusable buffers.
type swarKernel struct {
	wM, wX       uint8
	v, h, ap, bp []byte
}

// grow returns b with length n, reallocated if its capacity is short
// (the contents are not kept).
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// lastRow sets out[j] = H[len(a)][j] (difference form) for j = 0..len(b),
// for rows a and the reversed columns brev (byte codes). It counts its
// cells in cells (nil: none) every 64 anti-diagonals.
func (k *swarKernel) lastRow(a, brev []byte, out []int32, cells *work.Job) {
	n, m := len(a), len(brev)
	out[0] = 0
	if n == 0 || m == 0 {
		for j := range out {
			out[j] = 0
		}
		return
	}
	size := n + 24
	k.v = grow(k.v, size)
	k.h = grow(k.h, size)
	clear(k.v)
	clear(k.h)
	k.ap = grow(k.ap, n+24)
	for i := range k.ap {
		k.ap[i] = 0xfe
	}
	copy(k.ap[9:], a) // row i (1..n) compares a[i-1], stored at 8+i
	k.bp = grow(k.bp, m+24)
	for i := range k.bp {
		k.bp[i] = 0xff
	}
	copy(k.bp[8:], brev)
	v, h, ap, bp := k.v, k.h, k.ap, k.bp
	wX := uint64(k.wX) * lanesOne
	dw := uint64(k.wM - k.wX)
	acc := int32(0)
	var done int64 // cells since the last count
	for d := 2; d <= n+m; d++ {
		if d&63 == 0 {
			work.Check()
			if cells != nil {
				cells.Add(done)
			}
			done = 0
		}
		lo, hi := d-m, d-1
		if lo < 1 {
			lo = 1
		}
		if hi > n {
			hi = n
		}
		done += int64(hi - lo + 1)
		boff := 8 + m - d // column code of row i at bp[boff+i]
		for i0 := hi &^ 7; i0 >= lo&^7; i0 -= 8 {
			vw := le64(v, 8+i0)
			hup := le64(h, 7+i0)
			x := le64(ap, 8+i0) ^ le64(bp, boff+i0)
			t := ^(((x & lanesLow) + lanesLow) | x | lanesLow) // high bit where byte == 0
			w := wX + (t>>7)*dw
			z := max8(max8(w, vw), hup)
			nv, nh := z-hup, z-vw
			if i0+7 > hi {
				nv &= (uint64(1) << (8 * uint(hi-i0+1))) - 1
			}
			if i0 == 0 {
				nh &^= 0xff
			}
			st64(v, 8+i0, nv)
			st64(h, 8+i0, nh)
		}
		if d > n {
			acc += int32(h[8+n])
			out[d-n] = acc
		}
	}
	if cells != nil {
		cells.Add(done)
	}
}
