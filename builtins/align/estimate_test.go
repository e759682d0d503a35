package align

import (
	"math"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"
)

// The k-mer estimate tracks the edit rate of mutated sequences (mutate's
// rate counts substitutions, insertions and deletions) and reads random
// pairs as mostly edited, for small and large alphabets.
func TestEstimateEdits(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, sigma := range []int{4, 20, 1000} {
		for _, rate := range []float64{0, 0.02, 0.1, 0.3} {
			a := randomSeq(r, 20000, sigma)
			b := mutate(r, a, rate, sigma)
			_, _, sig := denseCodes(a, b)
			e := estimateEdits(a, b, sig)
			if math.Abs(e.rate-rate) > 0.35*rate+0.01 {
				t.Errorf("sigma %d rate %.2f: estimated %v", sigma, rate, e)
			}
		}
		e := estimateEdits(randomSeq(r, 20000, sigma), randomSeq(r, 20000, sigma), sigma)
		if e.rate < 0.6 {
			t.Errorf("sigma %d random pair: estimated %v", sigma, e)
		}
	}
}

// Auto picks the wavefront for similar inputs and the DP for dissimilar
// ones, and says so; when the estimate misleads it (blocks of b permuted:
// every k-mer shared, yet the cost is high) the wavefront gives up at its
// budget and the DP's optimum is returned.
func TestAutoChoice(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	a := randomSeq(r, 3000, 20)
	check := func(name string, b []int32, want Method, why string) {
		t.Helper()
		res := flatResult("test", a, b, nil, nil)
		if res.Method() != want.String() || !strings.Contains(res.Why(), why) {
			t.Errorf("%s: ran %s because %q; want %v, %q", name, res.Method(), res.Why(), want, why)
		}
		if nw := NWScore(a, b, DefaultScoring); res.Score() != nw {
			t.Errorf("%s: score %d, optimum %d", name, res.Score(), nw)
		}
	}
	check("similar", mutate(r, a, 0.02, 20), WFA, "wavefront:")
	check("random", randomSeq(r, 3000, 20), BitParallel, "bit-vector DP:")
	var swapped []int32
	for i := 9; i >= 0; i-- {
		swapped = append(swapped, a[i*300:(i+1)*300]...)
	}
	check("blocks permuted", swapped, BitParallel, "gave up at its budget")
}

// Auto against the best exact method on a grid of inputs, best of three
// runs each (a measurement, not a test). Opt-in:
//
//	TRACEBOOK_AUTOBENCH=1 go test -run AutoVsBest -v ./builtins/align/
func TestAutoVsBest(t *testing.T) {
	if os.Getenv("TRACEBOOK_AUTOBENCH") == "" {
		t.Skip("set TRACEBOOK_AUTOBENCH=1")
	}
	r := rand.New(rand.NewSource(3))
	timeOf := func(a, b []int32, m Method) time.Duration {
		best := time.Duration(1 << 62)
		for i := 0; i < 3; i++ {
			t0 := time.Now()
			Align(a, b, WithMethod(m))
			best = min(best, time.Since(t0))
		}
		return best
	}
	worst := 0.0
	for _, sigma := range []int{4, 20} {
		for _, rate := range []float64{0.005, 0.02, 0.05, 0.1, 0.2, 0.4, 1} {
			a := randomSeq(r, 20000, sigma)
			b := mutate(r, a, rate, sigma)
			if rate == 1 {
				b = randomSeq(r, 20000, sigma)
			}
			ta, tb, tw := timeOf(a, b, Auto), timeOf(a, b, BitParallel), timeOf(a, b, BiWFA)
			ratio := float64(ta) / float64(min(tb, tw))
			worst = max(worst, ratio)
			t.Logf("sigma %2d edits %5.1f%%: Auto %v (%v), BitParallel %v, BiWFA %v: Auto/best %.2f",
				sigma, 100*rate, ta, Align(a, b).Method, tb, tw, ratio)
		}
	}
	t.Logf("worst Auto/best: %.2f", worst)
}
