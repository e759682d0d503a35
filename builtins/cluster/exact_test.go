package cluster

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Three groups whose pairsims are all exactly 3/5 (4 pairs each, 3 shared)
// merge into one at σ = 0.6. With 3 and 4 processes in the first two
// groups, the process-weighted mean (3·0.6 + 4·0.6)/7 is
// 0.59999999999999987 in floating point.
func TestMergeAtExactThreshold(t *testing.T) {
	var specs []string
	for range 3 {
		specs = append(specs, "main(c d a)")
	}
	for range 4 {
		specs = append(specs, "main(c d b)")
	}
	specs = append(specs, "main(c d x)")
	c := Structural(callTrace(specs...))
	if c.NumGroups() != 3 {
		t.Fatalf("%d groups, want 3", c.NumGroups())
	}
	for i := range 3 {
		for j := range 3 {
			if i != j && c.Matrix().At(i, j) != 0.6 {
				t.Fatalf("pairsim(%d, %d) = %v, want 3/5", i, j, c.Matrix().At(i, j))
			}
		}
	}
	if got := fmt.Sprint(c.Coarsen(0.6).Parts); got != "[[0 1 2]]" {
		t.Errorf("Coarsen(0.6) = %s, want [[0 1 2]]: the merged similarity is exactly 3/5", got)
	}
	if got := fmt.Sprint(c.Coarsen(0.6000000000000001).Parts); got != "[[0] [1] [2]]" {
		t.Errorf("Coarsen(0.6000000000000001) = %s, want no merge", got)
	}
	if !strings.Contains(c.String(), "merged at σ = 0.83 (SC VIII.B): 3 groups") {
		t.Errorf("summary %q", c.String())
	}
}

// Two processes at exactly 70% similarity (10 pairs, 7 shared) are
// neighbours at eps = 0.3 (Weber 5.3.1: "70% structural similarity").
func TestDBSCANKeepsExactlySeventyPercent(t *testing.T) {
	c := Structural(callTrace("main(c1 c2 c3 c4 c5 c6)", "main(c1 c2 c3 c4 c5 c6 a1 a2 a3)", "z"))
	if v := c.Matrix().At(0, 1); v != 0.7 {
		t.Fatalf("pairsim = %v, want 7/10", v)
	}
	db := DBSCAN(c, 0.3, 2)
	if got := fmt.Sprint(db.Labels()); got != "[0 0 -1]" {
		t.Errorf("DBSCAN(0.3, 2) labels %s, want [0 0 -1]: pairs at exactly 70%% are neighbours", got)
	}
	db = DBSCAN(c, 0.29999999999999993, 2)
	if got := fmt.Sprint(db.Labels()); got != "[-1 -1 -1]" {
		t.Errorf("DBSCAN(0.29999999999999993, 2) labels %s, want all noise", got)
	}
}

// exactMerge is the greedy merge of SC VIII.B in exact rational arithmetic,
// without any bookkeeping: every step recomputes the similarity of every
// two current groups as the process-weighted mean of their parts'
// similarities, and merges the largest pair (ties: the pair of groups
// whose lowest parts are lexicographically least) while it is >= σ.
func exactMerge(num, den [][]int64, sizes []int, sigma *big.Rat) [][]int {
	var groups [][]int
	for i := range num {
		groups = append(groups, []int{i})
	}
	sim := func(a, b []int) *big.Rat {
		s, w := new(big.Rat), int64(0)
		for _, x := range a {
			for _, y := range b {
				wxy := int64(sizes[x] * sizes[y])
				s.Add(s, new(big.Rat).SetFrac64(wxy*num[x][y], den[x][y]))
				w += wxy
			}
		}
		return s.Quo(s, new(big.Rat).SetInt64(w))
	}
	for {
		bi, bj := -1, -1
		var best *big.Rat
		for i := range groups {
			for j := i + 1; j < len(groups); j++ {
				v := sim(groups[i], groups[j])
				if best == nil || v.Cmp(best) > 0 {
					best, bi, bj = v, i, j
				}
			}
		}
		if best == nil || best.Cmp(sigma) < 0 {
			break
		}
		groups[bi] = append(groups[bi], groups[bj]...)
		slices.Sort(groups[bi])
		groups = slices.Delete(groups, bj, bj+1)
	}
	return groups
}

// randomFractions returns a symmetric g x g matrix of fractions p/q with
// q <= maxDen (1 on the diagonal), a few distinct values so that ties and
// exact thresholds are frequent.
func randomFractions(r *rand.Rand, g, maxDen int) (num, den [][]int64) {
	num, den = make([][]int64, g), make([][]int64, g)
	for i := range g {
		num[i], den[i] = make([]int64, g), make([]int64, g)
		num[i][i], den[i][i] = 1, 1
	}
	for i := range g {
		for j := i + 1; j < g; j++ {
			q := int64(1 + r.IntN(maxDen))
			p := int64(r.IntN(int(q) + 1))
			num[i][j], den[i][j] = p, q
			num[j][i], den[j][i] = p, q
		}
	}
	return num, den
}

func floats(num, den [][]int64) [][]float64 {
	out := make([][]float64, len(num))
	for i := range num {
		out[i] = make([]float64, len(num))
		for j := range num {
			out[i][j] = float64(num[i][j]) / float64(den[i][j])
		}
	}
	return out
}

// The greedy merge equals the exact oracle on small fractions, with σ the
// decimals an analyst types (k/10, k/20, k/100) and the exact merged
// similarities themselves (when they are decimals): the thresholds and the
// ties that floating point gets wrong.
func TestGreedyMergeEqualsExactOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 9))
	trials, atThreshold := 20000, 0
	for trial := range trials {
		g := 2 + r.IntN(5)
		num, den := randomFractions(r, g, []int{2, 5, 10, 12}[r.IntN(4)])
		sizes := make([]int, g)
		for i := range sizes {
			sizes[i] = 1 + r.IntN(12)
		}
		var sigma float64
		switch r.IntN(3) {
		case 0:
			sigma = float64(r.IntN(11)) / 10
		case 1:
			sigma = float64(r.IntN(21)) / 20
		default:
			sigma = float64(r.IntN(101)) / 100
		}
		sr := decimalRat(sigma)
		want := exactMerge(num, den, sizes, sr)
		got := greedyMerge(floats(num, den), fracsOf(num, den), sizes, sigma)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d σ=%v: %v, want %v\nfractions %v / %v sizes %v", trial, sigma, got, want, num, den, sizes)
		}
		if len(want) < g {
			atThreshold++
		}
	}
	t.Logf("%d of %d trials merged something", atThreshold, trials)
}

// fracsOf returns the exact value function of a fraction matrix.
func fracsOf(num, den [][]int64) func(i, j int) (int64, int64) {
	return func(i, j int) (int64, int64) { return num[i][j], den[i][j] }
}

// DBSCAN's neighbourhood on a clustering is decided exactly: on random
// groups of random pair sets it equals DBSCAN (Algorithm 4 taken
// literally) on the exact rational distances, with eps a decimal.
func TestDBSCANExactOnRandomClusterings(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 10))
	for trial := range 300 {
		n := 2 + r.IntN(8)
		specs := make([]string, n)
		for i := range specs {
			var calls []string
			for k := range 10 {
				if r.IntN(3) > 0 {
					calls = append(calls, fmt.Sprintf("f%d", k))
				}
			}
			specs[i] = "main(" + strings.Join(calls, " ") + ")"
			if len(calls) == 0 {
				specs[i] = "main"
			}
		}
		c := Structural(callTrace(specs...))
		eps := float64(r.IntN(11)) / 10
		minPts := 1 + r.IntN(3)
		epsR := decimalRat(eps)
		near := func(i, j int) bool {
			a, b := StructureOf(c.procs[i]).Pairs, StructureOf(c.procs[j]).Pairs
			inter := intersectCount(a, b)
			union := len(a) + len(b) - inter
			d := big.NewRat(int64(union-inter), int64(max(union, 1)))
			return d.Cmp(epsR) <= 0
		}
		want := algorithm4Near(n, near, minPts)
		got := DBSCAN(c, eps, minPts).label
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d %q eps %v minPts %d: %v, want %v", trial, specs, eps, minPts, got, want)
		}
	}
}

// algorithm4Near is Weber's Algorithm 4 with a neighbourhood predicate.
func algorithm4Near(n int, near func(i, j int) bool, minPts int) []int32 {
	label := make([]int32, n)
	visited := make([]bool, n)
	for i := range label {
		label[i] = -2 // unassigned
	}
	region := func(p int) []int {
		var out []int
		for q := range n {
			if q != p && near(p, q) {
				out = append(out, q)
			}
		}
		return out
	}
	c := int32(0)
	for p := range n {
		if visited[p] {
			continue
		}
		visited[p] = true
		nb := region(p)
		if len(nb) < minPts-1 {
			label[p] = -1
			continue
		}
		label[p] = c
		for k := 0; k < len(nb); k++ {
			q := nb[k]
			if !visited[q] {
				visited[q] = true
				if nq := region(q); len(nq) >= minPts-1 {
					nb = append(nb, nq...)
				}
			}
			if label[q] < 0 {
				label[q] = c
			}
		}
		c++
	}
	return label
}

// The residue arithmetic modulo 2^61 - 1 agrees with math/big.
func TestResiduesModP(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 11))
	p := new(big.Int).SetUint64(modP)
	for range 100000 {
		a, b := r.Uint64N(modP), r.Uint64N(modP)
		if r.IntN(10) == 0 {
			a = modP - 1 - r.Uint64N(3)
		}
		want := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
		want.Mod(want, p)
		if got := mulMod(a, b); got != want.Uint64() {
			t.Fatalf("mulMod(%d, %d) = %d, want %d", a, b, got, want)
		}
		if got, want := addMod(a, b), (a+b)%modP; got != want {
			t.Fatalf("addMod(%d, %d) = %d, want %d", a, b, got, want)
		}
	}
	for _, q := range []int64{1, 2, 3, 10, 12345, 1 << 40} {
		num := int64(7)
		res, ok := ratResidue(big.NewRat(num, q))
		inv := map[int64]uint64{}
		if !ok || res != residue(num/gcd(num, q), q/gcd(num, q), inv) || mulMod(res, uint64(q)%modP) != uint64(num) {
			t.Fatalf("residue of %d/%d: %d", num, q, res)
		}
	}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
