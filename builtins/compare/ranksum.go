package compare

import (
	"math"
	"slices"
)

// MinVerdictProcesses is the fewest processes each run's side of a group needs for a "slower"
// or "faster" verdict. The verdict is a two-sided Wilcoxon-Mann-Whitney rank-sum test of the
// per-process times at the 1% level (normal approximation with the tie correction and a
// continuity correction); with 8 processes a side, the approximation's level is within a
// fraction of a percent of the exact permutation test's (TestRankSumAgainstPermutations).
// Fewer processes give "few processes": the rows still rank by cost, without a verdict.
const MinVerdictProcesses = 8

// verdictLevel is the significance level of the rank-sum test.
const verdictLevel = 0.01

// rankSum returns the Mann-Whitney U statistic of a (the number of pairs (x in a, y in b) with
// x > y, ties counting one half) and the two-sided p-value of the normal approximation; p is 1
// when every value is equal.
func rankSum(a, b []int64) (u, p float64) {
	na, nb := len(a), len(b)
	sa, sb := sortedInts(a), sortedInts(b)
	n := float64(na + nb)
	// the pooled values in order, a run of equal values at a time: ranks pos+1 .. pos+t
	var rankA, ties float64
	i, j, pos := 0, 0, 0
	for i < na || j < nb {
		var v int64
		switch {
		case j == nb || (i < na && sa[i] <= sb[j]):
			v = sa[i]
		default:
			v = sb[j]
		}
		ca, cb := 0, 0
		for i < na && sa[i] == v {
			i++
			ca++
		}
		for j < nb && sb[j] == v {
			j++
			cb++
		}
		t := ca + cb
		mid := float64(pos+pos+t+1) / 2 // mean of the ranks
		for range ca {
			rankA += mid
		}
		ft := float64(t)
		ties += ft*ft*ft - ft
		pos += t
	}
	u = rankA - float64(na)*float64(na+1)/2
	mean := float64(na) * float64(nb) / 2
	v := float64(na) * float64(nb) / 12 * ((n + 1) - ties/(n*(n-1)))
	if v <= 0 {
		return u, 1
	}
	z := math.Abs(u-mean) - 0.5
	if z < 0 {
		z = 0
	}
	z /= math.Sqrt(v)
	return u, math.Erfc(z / math.Sqrt2)
}

// sortedInts returns v sorted, v unchanged: a least-significant-digit radix sort by bytes for
// long inputs (the per-process times of groups of thousands of processes), which passes over
// the bytes all values share; slices.Sort for short ones.
func sortedInts(v []int64) []int64 {
	out := slices.Clone(v)
	if len(out) < 256 {
		slices.Sort(out)
		return out
	}
	const flip = uint64(1) << 63 // signed order as unsigned
	tmp := make([]int64, len(out))
	var count [8][256]int
	for _, x := range out {
		u := uint64(x) ^ flip
		for d := range 8 {
			count[d][byte(u>>(8*d))]++
		}
	}
	src, dst := out, tmp
	for d := range 8 {
		c := &count[d]
		if c[byte((uint64(src[0])^flip)>>(8*d))] == len(src) {
			continue // every value has this byte
		}
		pos := 0
		for i := range c {
			c[i], pos = pos, pos+c[i]
		}
		for _, x := range src {
			b := byte((uint64(x) ^ flip) >> (8 * d))
			dst[c[b]] = x
			c[b]++
		}
		src, dst = dst, src
	}
	return src
}
