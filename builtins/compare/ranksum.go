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
	type obs struct {
		v    int64
		side int8
	}
	all := make([]obs, 0, na+nb)
	for _, v := range a {
		all = append(all, obs{v, 0})
	}
	for _, v := range b {
		all = append(all, obs{v, 1})
	}
	slices.SortFunc(all, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	n := float64(na + nb)
	var rankA, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		t := float64(j - i)
		mid := float64(i+j+1) / 2 // mean of the ranks i+1 .. j
		for k := i; k < j; k++ {
			if all[k].side == 0 {
				rankA += mid
			}
		}
		ties += t*t*t - t
		i = j
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
