package imbalance

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteMatchCost is the least sum of |s_i - ref_j| over all order-preserving matchings of
// min(len(s), len(ref)) pairs, by trying every subset of the longer sequence.
func bruteMatchCost(s, ref []int64) int64 {
	long, short := s, ref
	if len(s) < len(ref) {
		long, short = ref, s
	}
	best := int64(-1)
	var rec func(i, j int, cost int64)
	rec = func(i, j int, cost int64) {
		if j == len(short) {
			if best < 0 || cost < best {
				best = cost
			}
			return
		}
		if len(long)-i < len(short)-j {
			return
		}
		rec(i+1, j+1, cost+absDiff(long[i], short[j]))
		rec(i+1, j, cost)
	}
	rec(0, 0, 0)
	return best
}

// matchCost checks that m (matchStarts' result) matches min(len(s), len(ref)) pairs in order
// and returns their cost.
func matchCost(t *testing.T, s, ref []int64, m []int) int64 {
	t.Helper()
	var cost int64
	pairs, last := 0, -1
	for i, j := range m {
		if j < 0 {
			continue
		}
		if j <= last || j >= len(ref) {
			t.Fatalf("s %v ref %v: match %v not in order", s, ref, m)
		}
		last = j
		pairs++
		cost += absDiff(s[i], ref[j])
	}
	if pairs != min(len(s), len(ref)) {
		t.Fatalf("s %v ref %v: %d pairs in %v", s, ref, pairs, m)
	}
	return cost
}

func sortedStarts(rng *rand.Rand, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(rng.IntN(100))
	}
	slices.Sort(v)
	return v
}

// The banded programme finds a least-cost matching (against trying all), and the greedy
// fallback a valid one.
func TestMatchStartsAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 31))
	for range 3000 {
		s, ref := sortedStarts(rng, rng.IntN(9)), sortedStarts(rng, 1+rng.IntN(9))
		m := matchStarts(s, ref)
		if got, want := matchCost(t, s, ref, m), bruteMatchCost(s, ref); got != want {
			t.Fatalf("s %v ref %v: match %v costs %d, the best %d", s, ref, m, got, want)
		}
		long, short := s, ref
		if len(s) < len(ref) {
			long, short = ref, s
		}
		g := greedyMatch(long, short)
		for j := range g {
			if g[j] < 0 || g[j] >= len(long) || j > 0 && g[j] <= g[j-1] {
				t.Fatalf("greedy %v for %v %v", g, long, short)
			}
		}
	}
	// Ties: equal starts leave the later invocation unmatched.
	if m := matchStarts([]int64{5, 5, 5}, []int64{5, 5}); !slices.Equal(m, []int{0, 1, -1}) {
		t.Fatalf("ties: %v, want [0 1 -1]", m)
	}
	if m := matchStarts([]int64{5}, []int64{5, 5}); !slices.Equal(m, []int{0}) {
		t.Fatalf("ties: %v, want [0]", m)
	}
}

// Processes run m iterations that start together (every 100 ns, a few ns of jitter); a
// minority have extra invocations (set-up calls before the loop, or calls between
// iterations) or miss iterations (not both: a process with as many extra invocations as
// missed iterations has the common count and is aligned by index, see the package comment).
// The alignment puts every iteration's invocations in one iteration, and each extra
// invocation in one of its own.
func TestAlignRecoversIterations(t *testing.T) {
	t.Run("banded", func(t *testing.T) { testAlignRecovers(t) })
	t.Run("greedy", func(t *testing.T) { // beyond the budget of the banded programme
		defer func(b int64) { alignBudget = b }(alignBudget)
		alignBudget = 0
		testAlignRecovers(t)
	})
}

func testAlignRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 31))
	for trial := range 300 {
		m := 1 + rng.IntN(12)
		p := 3 + rng.IntN(6)
		var segs []Segment
		truth := map[[2]int]int{} // (location, invocation) -> true iteration, -1 for an extra
		for loc := range p {
			type inv struct {
				start int64
				iter  int
			}
			var invs []inv
			odd := loc < (p-1)/2 // a minority changes its invocations: misses some, or has extras
			miss := odd && rng.IntN(2) == 0
			for k := range m {
				if miss && rng.IntN(4) == 0 {
					continue // a missed iteration
				}
				invs = append(invs, inv{int64(1000+100*k) + int64(rng.IntN(6)), k})
			}
			if odd && !miss {
				for range rng.IntN(3) {
					k := rng.IntN(m + 1) // an extra call in the gap before iteration k (k = m: after the last)
					invs = append(invs, inv{int64(1000+100*k) - 50 + int64(rng.IntN(6)), -1})
				}
				if rng.IntN(2) == 0 {
					invs = append(invs, inv{int64(rng.IntN(100)), -1}) // set-up
				}
			}
			slices.SortFunc(invs, func(a, b inv) int { return int(a.start - b.start) })
			for k, v := range invs {
				segs = append(segs, Segment{Location: loc, Invocation: k, Start: v.start, End: v.start + 20})
				truth[[2]int{loc, k}] = v.iter
			}
		}
		n := align(segs)
		checkAligned(t, segs, n)
		iterOf := map[int]int{} // true iteration -> aligned
		members := make([]int, n)
		for _, s := range segs {
			members[s.Iteration]++
		}
		for _, s := range segs {
			k := truth[[2]int{s.Location, s.Invocation}]
			if k < 0 {
				if members[s.Iteration] != 1 {
					t.Fatalf("trial %d: the extra invocation %+v shares iteration %d", trial, s, s.Iteration)
				}
				continue
			}
			if a, ok := iterOf[k]; ok && a != s.Iteration {
				t.Fatalf("trial %d: iteration %d aligned to %d and %d", trial, k, a, s.Iteration)
			}
			iterOf[k] = s.Iteration
		}
		for k := 1; k < m; k++ {
			if iterOf[k] <= iterOf[k-1] {
				t.Fatalf("trial %d: iterations %d and %d aligned to %d and %d", trial, k-1, k, iterOf[k-1], iterOf[k])
			}
		}
	}
}
