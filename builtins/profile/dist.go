package profile

import (
	"math"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// Dist summarises a sample of durations in ns: the number of measurements, their sum, the
// smallest and the largest, and the five percentiles of Brendel's box plot (2nd, 25th, 50th,
// 75th and 98th; linear interpolation, see the package notes). The zero Dist is the empty sample;
// its percentiles are NaN.
type Dist struct {
	Count                  int64
	Sum, Min, Max          int64
	P2, P25, P50, P75, P98 float64
}

// Mean returns Sum/Count (NaN for an empty sample).
func (d Dist) Mean() float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	return float64(d.Sum) / float64(d.Count)
}

// Percentiles returns P2, P25, P50, P75 and P98 in this order.
func (d Dist) Percentiles() [5]float64 { return [5]float64{d.P2, d.P25, d.P50, d.P75, d.P98} }

func (d *Dist) setPercentiles(p [5]float64) {
	d.P2, d.P25, d.P50, d.P75, d.P98 = p[0], p[1], p[2], p[3], p[4]
}

// boxPercentiles are the percentiles of a Dist, in per cent.
var boxPercentiles = [5]int64{2, 25, 50, 75, 98}

// rankOf returns, for the p-th percentile of n values, the rank k (from 0) and the fraction f
// towards rank k+1: h = (n-1) p / 100, k = floor(h), f = h - k, in integers so that no rounding
// can move k.
func rankOf(n, p int64) (k int64, f float64) {
	h := (n - 1) * p
	return h / 100, float64(h%100) / 100
}

// lerp interpolates between a and b as numpy.percentile does (its _lerp): a + (b-a) f, computed
// from b for f >= 0.5, so that the result is exact at both ends.
func lerp(a, b int64, f float64) float64 {
	fa, fb := float64(a), float64(b)
	d := fb - fa
	if f >= 0.5 {
		return fb - d*(1-f)
	}
	return fa + d*f
}

// summarize returns the Dist of x, permuting x (selection, not a full sort).
func summarize(x []int64) Dist {
	d := Dist{Count: int64(len(x))}
	if len(x) == 0 {
		d.setPercentiles([5]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()})
		return d
	}
	d.Min, d.Max = x[0], x[0]
	for _, v := range x {
		d.Sum += v
		d.Min = min(d.Min, v)
		d.Max = max(d.Max, v)
	}
	ks := neededRanks(d.Count)
	ranks := make([]int, len(ks))
	for i, k := range ks {
		ranks[i] = int(k)
	}
	selectRanks(x, ranks)
	var ps [5]float64
	for i, p := range boxPercentiles {
		k, f := rankOf(d.Count, p)
		if f == 0 {
			ps[i] = float64(x[k])
		} else {
			ps[i] = lerp(x[k], x[k+1], f)
		}
	}
	d.setPercentiles(ps)
	return d
}

// selectRanks permutes x so that x[k] is the k-th smallest value (from 0) for every k of ranks
// (ascending, distinct, within x): a multi-way quickselect with three-way partitioning, so that
// equal values cost one pass, falling back to sorting the part after too many unbalanced
// partitions (so the worst case is O(n log n)).
func selectRanks(x []int64, ranks []int) {
	selectIn(x, 0, ranks, 2*bitsLen(len(x))+8)
}

func bitsLen(n int) int {
	l := 0
	for n > 0 {
		n >>= 1
		l++
	}
	return l
}

// selectIn is selectRanks on x, whose first element has rank base in the whole.
func selectIn(x []int64, base int, ranks []int, budget int) {
	for len(ranks) > 0 {
		if len(x) >= 1<<16 {
			work.Check() // a long selection stops at an interrupt too
		}
		if len(x) <= 16 || budget == 0 {
			slices.Sort(x)
			return
		}
		budget--
		p := pivot(x)
		lt, gt := partition3(x, p)
		// x[:lt] < p, x[lt:gt] == p, x[gt:] > p
		i := 0
		for i < len(ranks) && ranks[i]-base < lt {
			i++
		}
		j := i
		for j < len(ranks) && ranks[j]-base < gt {
			j++
		}
		// ranks[:i] lie below, ranks[j:] above; the smaller side recurses, the larger loops
		below, above := ranks[:i], ranks[j:]
		if lt < len(x)-gt {
			selectIn(x[:lt], base, below, budget)
			x, base, ranks = x[gt:], base+gt, above
		} else {
			selectIn(x[gt:], base+gt, above, budget)
			x, ranks = x[:lt], below
		}
	}
}

// pivot returns the median of three samples (of nine for long slices).
func pivot(x []int64) int64 {
	n := len(x)
	m3 := func(a, b, c int64) int64 {
		if a > b {
			a, b = b, a
		}
		if b > c {
			b = c
		}
		return max(a, b)
	}
	if n < 128 {
		return m3(x[0], x[n/2], x[n-1])
	}
	s := n / 8
	return m3(m3(x[0], x[s], x[2*s]), m3(x[3*s], x[n/2], x[5*s]), m3(x[6*s], x[7*s], x[n-1]))
}

// partition3 rearranges x into < p, == p, > p and returns the bounds of the middle part.
func partition3(x []int64, p int64) (lt, gt int) {
	lt, i, gt := 0, 0, len(x)
	for i < gt {
		switch v := x[i]; {
		case v < p:
			x[lt], x[i] = v, x[lt]
			lt++
			i++
		case v > p:
			gt--
			x[gt], x[i] = v, x[gt]
		default:
			i++
		}
	}
	return lt, gt
}
