package align

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// wfaCase is one random pair for the wavefront methods.
type wfaCase struct {
	a, b []int32
	c    costs
	name string
}

// wfaCases draws pairs of lengths 0-2000 (word-boundary lengths often),
// alphabets of 1-64 symbols and beyond 256 (the raw 4-byte codes), random
// or 95%-similar, with costs including X > 2G.
func wfaCases(r *rand.Rand, count int) []wfaCase {
	costList := []costs{{X: 3, G: 2}, {X: 1, G: 1}, {X: 1, G: 2}, {X: 2, G: 1}, {X: 5, G: 2}, {X: 7, G: 3}, {X: 4, G: 1}, {X: 2, G: 3}}
	boundary := []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129}
	length := func() int {
		switch r.Intn(4) {
		case 0:
			return boundary[r.Intn(len(boundary))]
		case 1:
			return r.Intn(2001)
		default:
			return r.Intn(300)
		}
	}
	var out []wfaCase
	for i := 0; i < count; i++ {
		sigma := 1 + r.Intn(64)
		wide := r.Intn(8) == 0
		if wide {
			sigma = 300 + r.Intn(700)
		}
		a := randomSeq(r, length(), sigma)
		var b []int32
		kind := r.Intn(4)
		switch kind {
		case 0:
			b = randomSeq(r, length(), sigma)
		case 1:
			b = mutate(r, a, 0.05, sigma)
		case 2:
			b = mutate(r, a, 0.2, sigma)
		default:
			b = mutate(r, a, 0.01, sigma)
			if len(b) > 0 && r.Intn(2) == 0 { // a word-boundary shift of b
				b = b[r.Intn(min(len(b), 9)):]
			}
		}
		if wide && r.Intn(2) == 0 { // symbols far apart: the map path of denseCodes
			for _, s := range [2][]int32{a, b} {
				for j := range s {
					s[j] = s[j]*1_000_003 - 5
				}
			}
		}
		c := costList[r.Intn(len(costList))]
		c.ok = true
		out = append(out, wfaCase{a: a, b: b, c: c,
			name: fmt.Sprintf("%d: n=%d m=%d sigma=%d kind=%d X=%d G=%d", i, len(a), len(b), sigma, kind, c.X, c.G)})
	}
	return out
}

// costScoring is a scoring whose optimal paths are those of the costs c:
// its score is G*(n+m) minus the cost.
func costScoring(c costs) Scoring {
	return Scoring{Match: 2 * int(c.G), Mismatch: 2*int(c.G) - int(c.X), Gap: 0}
}

// TestWFARandom compares WFA (the tie rule's path itself) and BiWFA (a
// path of the optimal score) with Needleman-Wunsch.
func TestWFARandom(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	count := 1500
	if testing.Short() {
		count = 200
	}
	for _, tc := range wfaCases(r, count) {
		s := costScoring(tc.c)
		ref, best := needlemanWunsch(tc.a, tc.b, s)
		ops := wfaAlign(tc.a, tc.b, tc.c, 0)
		if !slices.Equal(ops, ref) {
			sc, err := ScorePath(tc.a, tc.b, ops, s)
			t.Fatalf("%s: WFA path differs from NW's (score %d, %v; want %d)", tc.name, sc, err, best)
		}
		bw := &biwfa{c: tc.c}
		ops = bw.solve(tc.a, tc.b, nil)
		if sc, err := ScorePath(tc.a, tc.b, ops, s); err != nil || sc != best {
			t.Fatalf("%s: BiWFA score %d, %v; want %d", tc.name, sc, err, best)
		}
	}
}

// TestBiWFASimilarLong checks BiWFA's recursion on longer similar pairs,
// where it splits several levels deep, against the DP score.
func TestBiWFASimilarLong(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	for i := 0; i < 12; i++ {
		sigma := []int{2, 4, 20, 64, 400}[i%5]
		a := randomSeq(r, 3000+r.Intn(3000), sigma)
		b := mutate(r, a, []float64{0.02, 0.05, 0.1}[i%3], sigma)
		c := []costs{{X: 3, G: 2, ok: true}, {X: 5, G: 2, ok: true}, {X: 1, G: 1, ok: true}}[i%3]
		s := costScoring(c)
		_, best := needlemanWunsch(a, b, s)
		bw := &biwfa{c: c}
		ops := bw.solve(a, b, nil)
		if sc, err := ScorePath(a, b, ops, s); err != nil || sc != best {
			t.Fatalf("case %d (n=%d m=%d sigma=%d): BiWFA score %d, %v; want %d", i, len(a), len(b), sigma, sc, err, best)
		}
	}
}

// TestWFASubrangeEnds runs the wavefronts on prefixes of longer sequences
// that go on matching past the prefixes' ends, as BiWFA's subproblems do:
// no offset may pass the end of its diagonal, and the path is still NW's.
func TestWFASubrangeEnds(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	for i := 0; i < 300; i++ {
		sigma := []int{1, 2, 4, 20, 500}[i%5]
		x := randomSeq(r, r.Intn(200), sigma)
		y := mutate(r, x, 0.1, sigma)
		if i%3 == 0 {
			y = randomSeq(r, r.Intn(200), sigma)
		}
		tail := randomSeq(r, 1+r.Intn(40), sigma)
		a, b := append(slices.Clip(x), tail...), append(slices.Clip(y), tail...)
		c := []costs{{X: 3, G: 2, ok: true}, {X: 5, G: 2, ok: true}, {X: 1, G: 1, ok: true}}[i%3]
		ac, bc, _, _ := wfaCodes(a, b, false)
		run := &wfaRun{a: x, b: y}
		run.reset(ac, bc, int32(len(x)), int32(len(y)), c)
		limit := int(c.G) * (len(x) + len(y) + 1)
		for !run.done() {
			if run.count > limit {
				t.Fatalf("case %d: no end reached by cost %d", i, limit)
			}
			run.next()
		}
		for s := 0; s < run.count; s++ {
			w := run.front(s)
			if w == nil {
				continue
			}
			for k := w.lo; k <= w.hi; k++ {
				if h := w.get(k); h > min(run.m, run.n+k) {
					t.Fatalf("case %d: score %d diagonal %d: offset %d past the end", i, s, k, h)
				}
			}
		}
		ref, _ := needlemanWunsch(x, y, costScoring(c))
		if ops := run.traceback(); !slices.Equal(ops, ref) {
			t.Fatalf("case %d: path differs from NW's", i)
		}
	}
}
