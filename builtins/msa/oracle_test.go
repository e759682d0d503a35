package msa

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/align"
)

func randSeq(rng *rand.Rand, n, alpha int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(rng.IntN(alpha))
	}
	return s
}

// bruteMaxK: Algorithm 6 with every admissible choice of the K most
// frequent characters of each sequence; the largest score.
func bruteMaxK(a, b []int32, k int) int64 {
	choices := func(s []int32) [][]int32 {
		cnt := map[int32]int64{}
		for _, x := range s {
			cnt[x]++
		}
		var syms []int32
		for x := range cnt {
			syms = append(syms, x)
		}
		slices.Sort(syms)
		if len(syms) <= k {
			return [][]int32{syms}
		}
		var out [][]int32
		// every subset of size k that is a valid top-k: no unchosen
		// symbol has a larger count than a chosen one
		var rec func(i int, cur []int32)
		rec = func(i int, cur []int32) {
			if len(cur) == k {
				minIn := int64(1 << 62)
				for _, x := range cur {
					minIn = min(minIn, cnt[x])
				}
				for _, x := range syms {
					if !slices.Contains(cur, x) && cnt[x] > minIn {
						return
					}
				}
				out = append(out, slices.Clone(cur))
				return
			}
			if i == len(syms) {
				return
			}
			rec(i+1, append(cur, syms[i]))
			rec(i+1, cur)
		}
		rec(0, nil)
		return out
	}
	count := func(s []int32, x int32) (n int64) {
		for _, y := range s {
			if y == x {
				n++
			}
		}
		return
	}
	best := int64(0)
	for _, ca := range choices(a) {
		for _, cb := range choices(b) {
			var sc int64
			for _, x := range ca {
				if slices.Contains(cb, x) {
					sc += count(a, x) + count(b, x)
				}
			}
			best = max(best, sc)
		}
	}
	return best
}

func TestMaxKFreqHashingOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 3000; it++ {
		k := 1 + rng.IntN(3)
		a := randSeq(rng, rng.IntN(9), 1+rng.IntN(6))
		b := randSeq(rng, rng.IntN(9), 1+rng.IntN(6))
		if got, want := MaxKFreqHashing(a, b, k), bruteMaxK(a, b, k); got != want {
			t.Fatalf("MaxK(%v, %v, K=%d) = %d, brute force %d", a, b, k, got, want)
		}
		if MaxKFreqHashing(a, b, k) != MaxKFreqHashing(b, a, k) {
			t.Fatalf("not symmetric: %v %v", a, b)
		}
	}
}

// naiveGuide follows Table 5.2 literally: after each addition the
// postponed list is rescanned from its start.
func naiveGuide(n int, ps []pairSim) []Step {
	if n < 2 {
		return nil
	}
	in := make([]bool, n)
	var steps []Step
	var postponed []int
	addFrom := func(p pairSim) {
		partner, nw := p.i, p.j
		if in[nw] {
			partner, nw = nw, partner
		}
		in[nw] = true
		steps = append(steps, Step{Partner: int(partner), New: int(nw), Score: p.score})
	}
	retry := func() {
		for again := true; again; {
			again = false
			for qi, q := range postponed {
				p := ps[q]
				if in[p.i] && in[p.j] {
					postponed = slices.Delete(postponed, qi, qi+1)
					again = true
					break
				}
				if in[p.i] != in[p.j] {
					postponed = slices.Delete(postponed, qi, qi+1)
					addFrom(p)
					again = true
					break
				}
			}
		}
	}
	for k, p := range ps {
		switch {
		case len(steps) == 0:
			in[p.i], in[p.j] = true, true
			steps = append(steps, Step{Partner: int(p.i), New: int(p.j), Score: p.score})
		case in[p.i] && in[p.j]:
		case !in[p.i] && !in[p.j]:
			postponed = append(postponed, k)
			continue
		default:
			addFrom(p)
		}
		retry()
	}
	return steps
}

func TestGuideOrderOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 2000; it++ {
		n := 1 + rng.IntN(12)
		tops := make([]topK, n)
		var c counter
		for i := range tops {
			tops[i] = topOf(c.count(randSeq(rng, rng.IntN(10), 1+rng.IntN(5)), nil), 2)
		}
		ps := matrixOrder(tops)
		got, want := guideFromPairs(n, ps), naiveGuide(n, ps)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: guide %v, naive %v", n, got, want)
		}
		if len(got) != max(0, n-1) {
			t.Fatalf("n=%d: %d steps", n, len(got))
		}
		in := map[int]bool{}
		for i, s := range got {
			if i == 0 {
				in[s.Partner] = true
			}
			if !in[s.Partner] || in[s.New] {
				t.Fatalf("step %d %+v: partner must be in the block, new not", i, s)
			}
			in[s.New] = true
		}
	}
}

func blockOf(seqs [][]int32, g Guide) ([][]int32, *Block) {
	w := make([]int64, len(seqs))
	for i := range w {
		w[i] = 1
	}
	o := collect("test", []Option{WithGuide(g)})
	b := newBlock(seqs, w, o)
	names := make([]string, 64)
	for i := range names {
		names[i] = string(rune('a' + i))
	}
	b.names = names
	return b.grid(), b
}

// For two sequences the MSA is the pairwise alignment, ties included
// (align's rule).
func TestTwoSequencesArePairwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 1000; it++ {
		a := randSeq(rng, rng.IntN(30), 1+rng.IntN(5))
		b := randSeq(rng, rng.IntN(30), 1+rng.IntN(5))
		g, _ := blockOf([][]int32{a, b}, GuideMatrix)
		var ops []align.Op
		for c := range g[0] {
			switch {
			case g[0][c] >= 0 && g[1][c] >= 0:
				ops = append(ops, align.OpDiag)
			case g[0][c] >= 0:
				ops = append(ops, align.OpGapB)
			case g[1][c] >= 0:
				ops = append(ops, align.OpGapA)
			default:
				t.Fatalf("all-gap column")
			}
		}
		if want := align.Align(a, b).Ops; !slices.Equal(ops, want) {
			t.Fatalf("%v / %v: block %v, pairwise %v", a, b, ops, want)
		}
		sp := sumOfPairs(g, align.DefaultScoring)
		if want := align.Align(a, b).Score; sp != int64(want) {
			t.Fatalf("%v / %v: sum of pairs %d, optimum %d", a, b, sp, want)
		}
	}
}

// checkBlock: removing the gaps of each row gives its sequence back, and
// no column is all gaps.
func checkBlock(t *testing.T, seqs, g [][]int32) {
	t.Helper()
	for r, row := range g {
		var back []int32
		for _, x := range row {
			if x >= 0 {
				back = append(back, x)
			}
		}
		if !slices.Equal(back, seqs[r]) && !(len(back) == 0 && len(seqs[r]) == 0) {
			t.Fatalf("row %d reads %v, input %v", r, back, seqs[r])
		}
	}
	for c := range g[0] {
		all := true
		for r := range g {
			all = all && g[r][c] < 0
		}
		if all {
			t.Fatalf("column %d is all gaps in %v", c, g)
		}
	}
}

// exactSP is the optimal sum-of-pairs score by dynamic programming over
// all k sequences at once (O(n^k 2^k): tiny inputs only).
func exactSP(seqs [][]int32, s align.Scoring) int64 {
	k := len(seqs)
	dims := make([]int, k)
	size := 1
	for i, q := range seqs {
		dims[i] = len(q) + 1
		size *= dims[i]
	}
	const neg = -1 << 60
	d := make([]int64, size)
	for i := range d {
		d[i] = neg
	}
	d[0] = 0
	pos := make([]int, k)
	col := make([]int32, k)
	for idx := 0; idx < size; idx++ {
		// decode idx
		x := idx
		for i := 0; i < k; i++ {
			pos[i] = x % dims[i]
			x /= dims[i]
		}
		if d[idx] == neg {
			continue
		}
		for mask := 1; mask < 1<<k; mask++ {
			ok := true
			next, stride := 0, 1
			for i := 0; i < k; i++ {
				p := pos[i]
				if mask>>i&1 != 0 {
					if p == len(seqs[i]) {
						ok = false
						break
					}
					col[i] = seqs[i][p]
					p++
				} else {
					col[i] = -1
				}
				next += p * stride
				stride *= dims[i]
			}
			if !ok {
				continue
			}
			var sc int64
			for i := 0; i < k; i++ {
				for j := i + 1; j < k; j++ {
					switch x, y := col[i], col[j]; {
					case x < 0 && y < 0:
					case x < 0 || y < 0:
						sc += int64(s.Gap)
					case x == y:
						sc += int64(s.Match)
					default:
						sc += int64(s.Mismatch)
					}
				}
			}
			d[next] = max(d[next], d[idx]+sc)
		}
	}
	return d[size-1]
}

// Small random groups: valid blocks; the progressive score against the
// exhaustive optimum (a heuristic: the gap is reported, never hidden).
func TestSmallGroupsAgainstExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases, optimal := 0, 0
	var lost, total int64
	for it := 0; it < 400; it++ {
		k := 3 + rng.IntN(3)
		maxLen := map[int]int{3: 7, 4: 5, 5: 3}[k]
		alpha := 1 + rng.IntN(4)
		seqs := make([][]int32, k)
		base := randSeq(rng, maxLen, alpha)
		for i := range seqs {
			// related sequences: mutations of one base
			s := slices.Clone(base)
			for j := 0; j < len(s); j++ {
				if rng.IntN(3) == 0 {
					s[j] = int32(rng.IntN(alpha))
				}
			}
			if len(s) > 0 && rng.IntN(2) == 0 {
				j := rng.IntN(len(s))
				s = slices.Delete(s, j, j+1)
			}
			seqs[i] = s
		}
		for _, g := range []Guide{GuideMatrix, GuideRanking} {
			grid, _ := blockOf(seqs, g)
			checkBlock(t, seqs, grid)
			sp := sumOfPairs(grid, align.DefaultScoring)
			opt := exactSP(seqs, align.DefaultScoring)
			if sp > opt {
				t.Fatalf("%v: progressive %d above the exhaustive optimum %d", seqs, sp, opt)
			}
			cases++
			if sp == opt {
				optimal++
			}
			lost += opt - sp
			total += opt
		}
	}
	t.Logf("progressive MSA reaches the exhaustive sum-of-pairs optimum in %d of %d cases; summed shortfall %d of %d", optimal, cases, lost, total)
	if optimal == 0 {
		t.Fatalf("never optimal: the comparison is broken")
	}
}

// New symbols against gaps of the partner go into existing columns that
// hold the same symbol, as many as possible in order (a longest common
// subsequence, not the first match).
func TestPlaceReusesColumnsByLCS(t *testing.T) {
	const x, y = 1, 2
	b := newBuilder(nil, &aligner{})
	c1 := b.newColumn(0, y)
	c2 := b.newColumn(c1, y)
	c3 := b.newColumn(c2, x)
	out := make([]int32, 3)
	b.place([]int32{x, y, y}, out, 0, -1)
	if out[1] != c1 || out[2] != c2 || out[0] == c3 {
		t.Fatalf("placed x, y, y in columns %v; want a new one, %d, %d (c3 = %d)", out, c1, c2, c3)
	}
	var order []int32
	for c := b.next[0]; c != -1; c = b.next[c] {
		order = append(order, c)
	}
	if want := []int32{out[0], c1, c2, c3}; !slices.Equal(order, want) {
		t.Fatalf("columns %v, want %v (the new x right before the next matched column)", order, want)
	}
}
