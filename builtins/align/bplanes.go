package align

import (
	"math/bits"

	"github.com/tracebook/tracebook/builtins/work"
)

// The bit-vector kernel with four words at once (AVX2 on amd64, for the
// default scoring's D = 4, Wx = 1): strips of 256 rows, the four words of a
// strip in the four 64-bit lanes of a vector register. Word l works on
// column t-l at step t, so the carries of x it needs from the word above
// (column t-l, computed by word l-1 at step t-1) come from the previous
// step: a one-lane shift. The thresholds of V stay in registers for the
// whole strip. The first strip is padded at its top: a padding row has
// neither matches nor mismatches (weight 0), so it keeps H = 0, the border
// value, and the strip's last row is always the last bit of the last lane,
// whose carries are then the bottom row's x.

const laneRows = 256

// lanesState is the state between calls of the step loop: v[(t-1)*4+l] =
// [V >= t] of lane l, then the packed carries of x out of each lane at the
// last step (bit t-1 for t), then scratch.
type lanesState [bpMaxD*4 + 8]uint64

// lanesKernel computes last rows with the four-lane step loop.
type lanesKernel struct {
	d, wx    int
	st       lanesState
	peq      []uint64 // 4 words per local symbol, then a zero row
	rowoff   []int32  // per step t: byte offset in peq of b[t]'s row (zero row past the end)
	cin      []uint8  // per step t: packed carries into lane 0 (column t)
	cout     []uint8  // per step t: packed carries out of lane 3 (column t-3)
	real     [4]uint64
	stepFast func(k *lanesKernel, from, to int) // nil: stepGo only
	stripSymbols
}

func newLanesKernel(d, wx, alphabet int) *lanesKernel {
	return &lanesKernel{d: d, wx: wx, stripSymbols: newStripSymbols(alphabet)}
}

// lastRow is bpKernel.lastRow's contract.
func (k *lanesKernel) lastRow(a, b []int32, out []int64, cells *work.Job) {
	n, m := len(a), len(b)
	clear(out)
	if n == 0 || m == 0 {
		return
	}
	steps := m + 3
	k.rowoff = grow(k.rowoff, steps)
	k.cin = grow(k.cin, steps)
	k.cout = grow(k.cout, steps)
	clear(k.cin)
	pad := (laneRows - n%laneRows) % laneRows
	var counted int64
	for s0 := -pad; s0 < n; s0 += laneRows {
		k.strip(a, b, s0)
		// The 3 steps that fill the pipeline in Go, the rest fast.
		k.stepGo(0, min(3, steps))
		for t := 3; t < steps; t += 4096 {
			work.Check()
			if k.stepFast != nil {
				k.stepFast(k, t, min(steps, t+4096))
			} else {
				k.stepGo(t, min(steps, t+4096))
			}
		}
		copy(k.cin, k.cout[3:])
		clear(k.cin[m:])
		if cells != nil {
			done := int64(min(n, s0+laneRows)) * int64(m)
			cells.Add(done - counted)
			counted = done
		}
	}
	var acc int64
	for j := 0; j < m; j++ {
		acc += int64(bits.OnesCount8(k.cin[j]))
		out[j+1] = acc
	}
}

// strip prepares the strip of rows s0..s0+laneRows (rows before 0 are
// padding): match masks, the row offsets of b's symbols, the lanes' real
// rows and a zero state.
func (k *lanesKernel) strip(a, b []int32, s0 int) {
	lo, hi := max(s0, 0), min(len(a), s0+laneRows)
	symbols := k.number(a[lo:hi])
	k.peq = grow(k.peq, 4*(symbols+1))
	clear(k.peq)
	for i := lo; i < hi; i++ {
		pos := i - s0
		k.peq[4*int(k.local[a[i]])+pos/64] |= 1 << (pos % 64)
	}
	zero := int32(32 * symbols)
	for t, c := range b {
		if l := k.local[c]; l >= 0 {
			k.rowoff[t] = 32 * l
		} else {
			k.rowoff[t] = zero
		}
	}
	for t := len(b); t < len(k.rowoff); t++ {
		k.rowoff[t] = zero
	}
	for l := range k.real {
		first := lo - s0 - 64*l // real rows of lane l start at this bit
		switch {
		case first <= 0:
			k.real[l] = ^uint64(0)
		case first >= 64:
			k.real[l] = 0
		default:
			k.real[l] = ^uint64(0) << first
		}
	}
	clear(k.st[:])
}

// stepGo runs steps from..to-1 one lane at a time (the reference of the
// vector loop, and its pipeline fill: lane l starts at step l).
func (k *lanesKernel) stepGo(from, to int) {
	d := k.d
	st := &k.st
	var v [bpMaxD]uint64
	var xs [bpMaxD + 1]uint64
	for t := from; t < to; t++ {
		cin := [4]uint64{uint64(k.cin[t]), st[bpMaxD*4], st[bpMaxD*4+1], st[bpMaxD*4+2]}
		for l := 0; l < 4; l++ {
			if t < l { // not started: x = 0, state unchanged
				st[bpMaxD*4+l] = 0
				continue
			}
			mm := k.peq[int(k.rowoff[t-l])/8+l]
			for u := 0; u < d; u++ {
				v[u] = st[u*4+l]
			}
			st[bpMaxD*4+l] = bpWord(v[:d], mm, ^mm&k.real[l], cin[l], k.wx, &xs)
			for u := 0; u < d; u++ {
				st[u*4+l] = v[u]
			}
		}
		k.cout[t] = uint8(st[bpMaxD*4+3])
	}
}
