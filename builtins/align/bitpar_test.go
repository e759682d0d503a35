package align

import (
	"math/rand"
	"testing"
)

// stepScorings returns one scoring for every generated kernel step with
// D <= maxD: D = Match+2, Wx = Mismatch+2 with gap -1.
func stepScorings(maxD int) []Scoring {
	var out []Scoring
	for d := 1; d <= maxD; d++ {
		for wx := 0; wx <= d; wx++ {
			if bpColumns[d][wx] != nil {
				out = append(out, Scoring{d - 2, wx - 2, -1})
			}
		}
	}
	return out
}

// rowCase draws a pair of lengths n and m over 1-64 symbols (for every
// fifth iter, b is a 10% mutation of a) and returns its dense codes and the
// scalar recurrence's last row under s.
func rowCase(r *rand.Rand, iter, n, m int, s Scoring) (ac, bc []int32, sigma int, want []int) {
	k := 1 + r.Intn(64)
	a, b := randomSeq(r, n, k), randomSeq(r, m, k)
	if iter%5 == 0 {
		b = mutate(r, a, 0.1, k)
	}
	ac, bc, sigma = denseCodes(a, b)
	want = make([]int, len(b)+1)
	scoreRow(a, b, s, want, nil)
	return ac, bc, sigma, want
}

// The bit-vector kernel's last row equals the scalar recurrence's on random
// inputs: lengths across word and strip boundaries, alphabets 1-64, every
// D the kernel takes.
func TestBitParallelLastRow(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	scorings := []Scoring{DefaultScoring, {1, 0, 0}, {1, -1, -1}, {2, 1, 0}, {3, -2, -2}, {5, 1, -1}, {4, 4, -1}, {0, -5, -1}, {6, 0, -1}, {2, -5, -1}, {6, 1, -1}}
	scorings = append(scorings, stepScorings(bpMaxD)...)
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
		ac, bc, nsym, want := rowCase(r, iter, n, m, s)
		m = len(bc)
		for _, generated := range []bool{true, false} {
			k := newBPKernel(d, wx, nsym)
			if !generated {
				k.col = k.bpColumn
			}
			got := make([]int64, m+1)
			k.lastRow(ac, bc, got, nil)
			for j := range want {
				if v := g*int(got[j]) + s.Gap*(n+j); v != want[j] {
					t.Fatalf("%+v generated=%v n=%d m=%d symbols=%d: column %d: %d, want %d", s, generated, n, m, nsym, j, v, want[j])
				}
			}
		}
	}
}

// Every exact method against the brute-force score on thousands of random
// pairs: lengths 0-2,000 with the word boundaries, alphabets 1-64, the
// default and random scorings and one of every generated kernel step;
// checkAll also checks the path is valid, scores what it reports and (but
// for BiWFA) is the tie rule's.
func TestExactMethodsWide(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	steps := stepScorings(bpMaxD)
	boundaries := []int{0, 1, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257, 511, 512, 513}
	// BiWFA's and Hirschberg's halves on two cores from small sizes on, so
	// that the parallel paths are tested.
	defer func(c, h int) { biwfaParallelCost, hirschbergParallelCells = c, h }(biwfaParallelCost, hirschbergParallelCells)
	biwfaParallelCost, hirschbergParallelCells = 32, 1<<10
	iters := 2000
	if testing.Short() {
		iters = 200
	}
	for it := 0; it < iters; it++ {
		sigma := 1 + r.Intn(64)
		length := func() int {
			switch x := r.Intn(10); {
			case x < 6:
				return r.Intn(300)
			case x < 9:
				return boundaries[r.Intn(len(boundaries))]
			default:
				return r.Intn(2001)
			}
		}
		a := randomSeq(r, length(), sigma)
		var b []int32
		if r.Intn(2) == 0 {
			b = randomSeq(r, length(), sigma)
		} else {
			b = mutate(r, a, []float64{0.01, 0.05, 0.2, 0.5}[r.Intn(4)], sigma)
		}
		var s Scoring
		switch it % 3 {
		case 0:
			s = DefaultScoring
		case 1:
			s = randomScoring(r)
		default:
			s = steps[r.Intn(len(steps))]
		}
		checkAll(t, a, b, s, exactMethods)
	}
}

// The four-lane kernel (its Go steps, and the vector loop where the CPU
// has it) equals the scalar recurrence, across strip and word boundaries.
func TestLanesLastRow(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	lengths := []int{1, 2, 63, 64, 65, 255, 256, 257, 511, 512, 513, 700}
	steps := stepScorings(4) // every vector loop
	for iter := 0; iter < 3000; iter++ {
		s := DefaultScoring
		switch iter % 4 {
		case 2:
			s = steps[r.Intn(len(steps))]
		case 3:
			s = randomScoring(r)
		}
		d, wx, g, ok := bpDims(s)
		if !ok || d > 4 {
			continue
		}
		n, m := r.Intn(800), r.Intn(300)
		if iter%3 == 0 {
			n, m = lengths[r.Intn(len(lengths))], lengths[r.Intn(len(lengths))]
		}
		ac, bc, nsym, want := rowCase(r, iter, n, m, s)
		m = len(bc)
		for _, fast := range []bool{false, true} {
			k := newLanesKernel(d, wx, nsym)
			if fast {
				if k.stepFast = lanesStep(d, wx); k.stepFast == nil {
					continue
				}
			}
			got := make([]int64, m+1)
			k.lastRow(ac, bc, got, nil)
			for j := range want {
				if v := g*int(got[j]) + s.Gap*(n+j); v != want[j] {
					t.Fatalf("%+v fast=%v n=%d m=%d symbols=%d: column %d: %d, want %d", s, fast, n, m, nsym, j, v, want[j])
				}
			}
		}
	}
}
