package align

import (
	"math/rand"
	"testing"
)

// The bit-vector kernel's last row equals the scalar recurrence's on random
// inputs: lengths across word and strip boundaries, alphabets 1-64, every
// D the kernel takes.
func TestBitParallelLastRow(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	scorings := []Scoring{DefaultScoring, {1, 0, 0}, {1, -1, -1}, {2, 1, 0}, {3, -2, -2}, {5, 1, -1}, {4, 4, -1}, {0, -5, -1}, {6, 0, -1}, {2, -5, -1}, {6, 1, -1}}
	// Every generated step: D = Match+2, Wx = Mismatch+2 with gap -1.
	for d := 1; d <= bpMaxD; d++ {
		for wx := 0; wx <= d; wx++ {
			if bpColumns[d][wx] != nil {
				scorings = append(scorings, Scoring{d - 2, wx - 2, -1})
			}
		}
	}
	lengths := []int{0, 1, 2, 7, 63, 64, 65, 127, 128, 129, 300}
	for iter := 0; iter < 3000; iter++ {
		s := scorings[iter%len(scorings)]
		d, wx, g, ok := bpDims(s)
		if !ok || bpColumns[d][wx] == nil {
			t.Fatalf("%+v: kernel does not apply", s)
		}
		var n, m int
		if iter%3 == 0 {
			n, m = lengths[r.Intn(len(lengths))], lengths[r.Intn(len(lengths))]
		} else {
			n, m = r.Intn(400), r.Intn(400)
		}
		if iter%97 == 0 {
			n = 64*bpStripWords + r.Intn(200) - 100 // across a strip boundary
		}
		sigma := 1 + r.Intn(64)
		a, b := randomSeq(r, n, sigma), randomSeq(r, m, sigma)
		if iter%5 == 0 {
			b = mutate(r, a, 0.1, sigma)
			m = len(b)
		}
		ac, bc, nsym := denseCodes(a, b)
		want := make([]int, m+1)
		scoreRow(a, b, s, want, nil)
		for _, generated := range []bool{true, false} {
			k := newBPKernel(d, wx, nsym)
			if !generated {
				k.col = k.bpColumn
			}
			got := make([]int64, m+1)
			k.lastRow(ac, bc, got, nil)
			for j := range want {
				if v := g*int(got[j]) + s.Gap*(n+j); v != want[j] {
					t.Fatalf("%+v generated=%v n=%d m=%d sigma=%d: column %d: %d, want %d", s, generated, n, m, sigma, j, v, want[j])
				}
			}
		}
	}
}
