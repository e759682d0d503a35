package align

import (
	"github.com/tracebook/tracebook/builtins/work"
)

// The 64-cells-per-word kernel: the DP of eq. 3.2 in difference form with
// every difference held in bit-vectors, in the manner of BitPAl (Loving,
// Hernandez and Benson 2014); Myers' and Hyyrö's unit-cost method is the
// case D = 1.
//
// With the gap weight moved out (Scoring.maxForm, divided by the gcd g of
// its weights): H[i][j] = max(H[i-1][j], H[i][j-1], H[i-1][j-1] + w) with
// w = D for a match and w = Wx for a mismatch, borders 0. The vertical
// differences V[i][j] = H[i][j]-H[i-1][j] and the horizontal ones
// x_i = H[i][j]-H[i][j-1] lie in [0, D]. With Vin = V[i][j-1] and
// xp = x_{i-1} (both in column j), the cell gives
//
//	x_i  = max(w - Vin, 0, xp - Vin)
//	Vout = max(w - xp, 0, Vin - xp)
//
// A column of a (the rows, 64 per word) is processed at once for one
// symbol of b. Each value v is held as D threshold vectors [v >= t],
// t = 1..D. The thresholds of x satisfy X_t[i] = A_t[i] | C_t[i]&X_t[i-1]
// with A_t = [w - Vin >= t] and C_t = [Vin = 0 or xp >= t + Vin, given
// xp >= t]: a carry chain solved by one addition, from t = D down since C_t
// reads the thresholds above t. Vout's thresholds then follow without a
// chain. Cost: O(D^2) word operations per 64 cells.
//
// Rows are processed in strips of bpStripWords words, each over all columns,
// so the table of match masks holds only the strip's symbols (bounded
// memory for any alphabet); the thresholds of x at a strip's bottom row are
// the carries into the next strip, one byte per column.

// bpMaxD is the largest D the bit-vector kernel takes; beyond it (about
// D^2 operations per word) the byte-lane kernel is faster.
const bpMaxD = 8

// bpStripWords is the height of a strip in words (4,096 rows).
const bpStripWords = 64

// bpDims reports the kernel's D and Wx for a scoring, ok if it applies.
func bpDims(s Scoring) (d, wx int, g int, ok bool) {
	wM, wX := s.maxForm()
	g = gcd(wM, wX)
	if g == 0 {
		return 0, 0, 0, false
	}
	d, wx = wM/g, wX/g
	return d, wx, g, d >= 1 && d <= bpMaxD
}

// bpKernel computes last rows; its buffers are reused between calls.
type bpKernel struct {
	d, wx int
	vg    []uint64     // vg[w*d+t-1] = [V >= t] of word w of the strip
	peq   []uint64     // match masks: peq[l*bpStripWords+w] for local symbol l
	carry []uint8      // per column: bit t-1 = [x >= t] at the strip's bottom row
	col   bpColumnFunc // nil: the generated step for d, wx (tests: bpColumn)
	stripSymbols
}

// bpColumnFunc advances the words of a strip by one column: vg holds the
// thresholds of V (d per word) and is updated, peq the match masks, cin
// the thresholds of x above the first row (bit t-1 for t). It returns the
// thresholds of x at the last word's top bit (the carries out) and the
// value of x at bit bottom of the last word.
type bpColumnFunc func(vg, peq []uint64, cin uint64, bottom uint) (cout uint64, x int64)

//go:generate go run gen_bitpar.go

// bpColumn is the column step written with loops over the thresholds: the
// reference of the generated steps (bitpar_cols.go), which unroll it.
func (k *bpKernel) bpColumn(vg, peq []uint64, cin uint64, bottom uint) (uint64, int64) {
	d := k.d
	var x int64
	for w, mm := range peq {
		var xs [bpMaxD + 1]uint64
		cin = bpWord(vg[w*d:w*d+d:w*d+d], mm, ^mm, cin, k.wx, &xs)
		if w == len(peq)-1 {
			for t := 1; t <= d; t++ {
				x += int64((xs[t] >> bottom) & 1)
			}
		}
	}
	return cin, x
}

// bpWord advances one word by one column: v holds the word's thresholds of
// V (v[t-1] = [V >= t], len(v) = D) and is updated; mm marks the rows whose
// symbol matches the column's, nm those that mismatch (rows in neither,
// such as padding, weigh 0); cin packs the thresholds of x above the
// word's first row (bit t-1 for t). It returns the thresholds of x at the
// word's last row, packed the same way, and sets xs[t] = [x >= t].
func bpWord(v []uint64, mm, nm, cin uint64, wx int, xs *[bpMaxD + 1]uint64) uint64 {
	d := len(v)
	var shx [bpMaxD + 2]uint64 // [xp >= t], indexed by threshold 1..d
	var nv [bpMaxD + 1]uint64
	for t := d; t >= 1; t-- {
		ci := (cin >> uint(t-1)) & 1
		// A_t = [w - Vin >= t]
		at := mm &^ v[d-t]
		if t <= wx {
			at |= nm &^ v[wx-t]
		}
		// C_t = [Vin <= D-t] & AND_{u=1}^{D-t} (Vin < u | xp >= t+u)
		ct := ^v[d-t]
		for u := 1; u <= d-t; u++ {
			ct &= ^v[u-1] | shx[t+u]
		}
		g := at | (ct & ci)
		q := ct | g
		x := (((q + g) ^ q) & q) | g
		xs[t] = x
		shx[t] = x<<1 | ci
	}
	// Vout = max(w - xp, 0, Vin - xp), threshold by threshold.
	for u := 1; u <= d; u++ {
		b1 := mm &^ shx[d-u+1]
		if u <= wx {
			b1 |= nm &^ shx[wx-u+1]
		}
		b2 := v[u-1] &^ shx[d-u+1]
		for t := 1; t <= d-u; t++ {
			b2 &= ^shx[t] | v[u+t-1]
		}
		nv[u] = b1 | b2
	}
	var cout uint64
	for t := 1; t <= d; t++ {
		v[t-1] = nv[t]
		cout |= (xs[t] >> 63) << uint(t-1)
	}
	return cout
}

func newBPKernel(d, wx, alphabet int) *bpKernel {
	return &bpKernel{d: d, wx: wx, stripSymbols: newStripSymbols(alphabet)}
}

// stripSymbols numbers the symbols of a strip of rows 0, 1, ...: each gets
// a row of match masks, other symbols none.
type stripSymbols struct {
	local []int32 // local[code] = the symbol's row, or -1
	used  []int32 // the codes with a row, in row order
}

func newStripSymbols(alphabet int) stripSymbols {
	l := make([]int32, alphabet)
	for i := range l {
		l[i] = -1
	}
	return stripSymbols{local: l}
}

// number forgets the previous strip's symbols and numbers those of rows;
// it returns how many there are.
func (s *stripSymbols) number(rows []int32) int {
	for _, c := range s.used {
		s.local[c] = -1
	}
	s.used = s.used[:0]
	for _, c := range rows {
		if s.local[c] < 0 {
			s.local[c] = int32(len(s.used))
			s.used = append(s.used, c)
		}
	}
	return len(s.used)
}

// lastRow sets out[j] = H[len(a)][j] for j = 0..len(b) (max form, units of
// g), a and b given as dense codes below len(k.local). It counts its cells
// in cells (nil: none).
func (k *bpKernel) lastRow(a, b []int32, out []int64, cells *work.Job) {
	n, m := len(a), len(b)
	clear(out)
	if n == 0 || m == 0 {
		return
	}
	k.carry = grow(k.carry, m)
	clear(k.carry)
	for s0 := 0; s0 < n; s0 += 64 * bpStripWords {
		s1 := min(n, s0+64*bpStripWords)
		last := s1 == n
		k.strip(a[s0:s1], b, last, out, cells)
	}
}

// denseCodes numbers the symbols of a and b 0, 1, ... in order of first
// occurrence; it returns the coded sequences and the number of symbols. A
// table over the symbols' range replaces the map when the range is small.
func denseCodes(a, b []int32) ([]int32, []int32, int) {
	lo, hi := int32(1<<31-1), int32(-1<<31)
	for _, s := range [2][]int32{a, b} {
		for _, x := range s {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	out := [2][]int32{make([]int32, len(a)), make([]int32, len(b))}
	n := int32(0)
	if int64(hi)-int64(lo) < 1<<20 {
		table := make([]int32, max(0, int(int64(hi)-int64(lo)+1))) // code+1; 0: unseen
		for k, s := range [2][]int32{a, b} {
			o := out[k]
			for i, x := range s {
				c := table[x-lo]
				if c == 0 {
					n++
					c = n
					table[x-lo] = c
				}
				o[i] = c - 1
			}
		}
		return out[0], out[1], int(n)
	}
	table := make(map[int32]int32)
	for k, s := range [2][]int32{a, b} {
		o := out[k]
		for i, x := range s {
			c, ok := table[x]
			if !ok {
				c = n
				n++
				table[x] = c
			}
			o[i] = c
		}
	}
	return out[0], out[1], int(n)
}

// strip runs rows a (at most 64*bpStripWords) over all columns b, reading
// and writing k.carry; for the last strip it writes the bottom row's
// prefix sums into out[1..].
func (k *bpKernel) strip(a, b []int32, last bool, out []int64, cells *work.Job) {
	d, wx := k.d, k.wx
	words := (len(a) + 63) / 64
	// Match masks of the strip's symbols.
	symbols := k.number(a)
	k.peq = grow(k.peq, (symbols+1)*bpStripWords)
	clear(k.peq)
	for i, c := range a {
		k.peq[int(k.local[c])*bpStripWords+i/64] |= 1 << (i % 64)
	}
	zero := symbols * bpStripWords // the all-zero mask of other symbols
	k.vg = grow(k.vg, words*d)
	clear(k.vg)
	vg := k.vg[:words*d]
	bottom := uint((len(a) - 1) % 64)
	col := k.col
	if col == nil {
		col = bpColumns[d][wx]
	}
	var acc, counted int64
	for j, c := range b {
		if j&255 == 0 {
			work.Check()
			if cells != nil && j > 0 {
				cells.Add(int64(j)*int64(len(a)) - counted)
				counted = int64(j) * int64(len(a))
			}
		}
		off := zero
		if l := k.local[c]; l >= 0 {
			off = int(l) * bpStripWords
		}
		cout, x := col(vg, k.peq[off:off+words], uint64(k.carry[j]), bottom)
		if last {
			acc += x
			out[j+1] = acc
		} else {
			k.carry[j] = uint8(cout)
		}
	}
	if cells != nil {
		cells.Add(int64(len(b))*int64(len(a)) - counted)
	}
}
