package imbalance

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// Iterations are aligned by time (see the package comment): the k-th invocation of every
// process is iteration k when all processes invoke the function equally often; otherwise the
// processes with the most common number of invocations m (the larger on ties) give m
// reference start times, the median of their k-th invocations' starts, and every other
// process's invocations are matched, in order, to the reference starts with the least summed
// distance between matched starts. A process with more than m invocations leaves its extra
// ones unmatched; each becomes an iteration of its own (one process, so no culprit and nothing
// recoverable). A process with fewer leaves some reference iterations out.

// alignBudget bounds the banded alignment's table (cells): a process whose invocations
// differ from the reference by d is aligned in O(n d) time and memory; beyond the budget a
// greedy nearest-start matching in O(n) takes over.
var alignBudget int64 = 1 << 24

// align sets the Iteration of every segment of segs (sorted by location and invocation) and
// returns the number of iterations.
func align(segs []Segment) int {
	type run struct{ lo, hi int } // a process's segments
	var runs []run
	for lo := 0; lo < len(segs); {
		hi := lo + 1
		for hi < len(segs) && segs[hi].Location == segs[lo].Location {
			hi++
		}
		runs = append(runs, run{lo, hi})
		lo = hi
	}
	freq := map[int]int{}
	for _, r := range runs {
		freq[r.hi-r.lo]++
	}
	m, best := 0, 0
	for n, f := range freq {
		if f > best || f == best && n > m {
			m, best = n, f
		}
	}
	if len(freq) <= 1 { // every process invokes the function m times
		for i := range segs {
			segs[i].Iteration = segs[i].Invocation
		}
		return m
	}
	// Reference starts: per k, the median start of the k-th invocation over the processes with m.
	ref := make([]int64, m)
	col := make([]int64, 0, best)
	for k := range m {
		col = col[:0]
		for _, r := range runs {
			if r.hi-r.lo == m {
				col = append(col, segs[r.lo+k].Start)
			}
		}
		slices.Sort(col)
		ref[k] = col[len(col)/2]
		if len(col)%2 == 0 {
			ref[k] = col[len(col)/2-1] + (col[len(col)/2]-col[len(col)/2-1])/2
		}
	}
	// Slots: the m reference iterations and one per unmatched invocation. An unmatched
	// invocation comes right after the reference iteration its process's previous invocation
	// matched (before the first if none), so that every process's iterations keep its order;
	// unmatched invocations in one place go by start, then location.
	type slot struct {
		after int // reference slot k itself, or the one an unmatched invocation follows (-1: none)
		extra bool
		start int64
		loc   int
		seg   int
	}
	slots := make([]slot, m, m+8)
	for k := range m {
		slots[k] = slot{after: k}
	}
	slotOf := make([]int, len(segs)) // index into slots
	starts := make([]int64, 0, m)
	for _, r := range runs {
		n := r.hi - r.lo
		if n == m {
			for k := range n {
				slotOf[r.lo+k] = k
			}
			continue
		}
		work.Check()
		starts = starts[:0]
		for i := r.lo; i < r.hi; i++ {
			starts = append(starts, segs[i].Start)
		}
		prev := -1
		for k, j := range matchStarts(starts, ref) {
			if j < 0 {
				j = len(slots)
				slots = append(slots, slot{after: prev, extra: true, start: segs[r.lo+k].Start, loc: segs[r.lo+k].Location, seg: r.lo + k})
			} else {
				prev = j
			}
			slotOf[r.lo+k] = j
		}
	}
	order := make([]int, len(slots))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := slots[a], slots[b]
		if c := cmp.Compare(x.after, y.after); c != 0 {
			return c
		}
		if x.extra != y.extra {
			if x.extra {
				return 1
			}
			return -1
		}
		if c := cmp.Compare(x.start, y.start); c != 0 {
			return c
		}
		if c := cmp.Compare(x.loc, y.loc); c != 0 {
			return c
		}
		return cmp.Compare(x.seg, y.seg)
	})
	index := make([]int, len(slots))
	for i, s := range order {
		index[s] = i
	}
	for i := range segs {
		segs[i].Iteration = index[slotOf[i]]
	}
	return len(slots)
}

// matchStarts matches the starts s (ascending) in order to the reference starts ref
// (ascending): min(len(s), len(ref)) pairs, skipping |len(s) - len(ref)| elements of the
// longer one, with the least sum of |s_i - ref_j| over the pairs. It returns, per element of
// s, its reference index or -1 (unmatched). On equal sums the earlier elements are matched
// (the later ones are the extra or missing ones).
func matchStarts(s, ref []int64) []int {
	out := make([]int, len(s))
	long, short := s, ref
	if len(s) < len(ref) {
		long, short = ref, s
	}
	d := len(long) - len(short)
	var pair []int // per element of short, its index in long
	if int64(len(long))*int64(d+1) <= alignBudget {
		pair = bandedMatch(long, short)
	} else {
		pair = greedyMatch(long, short)
	}
	for i := range out {
		out[i] = -1
	}
	for j, i := range pair {
		if len(s) >= len(ref) {
			out[i] = j
		} else {
			out[j] = i
		}
	}
	return out
}

func absDiff(a, b int64) int64 {
	if a < b {
		return b - a
	}
	return a - b
}

// bandedMatch is matchStarts' dynamic programme: cost[i][j] is the least cost of matching the
// first j elements of short within the first i of long, with i - j <= d skipped; j runs over
// the band [i-d, i]. It returns, per element of short, the index of its partner in long.
func bandedMatch(long, short []int64) []int {
	nl, ns := len(long), len(short)
	d := nl - ns
	w := d + 1 // band width: j = i - s for s in [0, d]
	const inf = int64(1) << 62
	prev, cur := make([]int64, w), make([]int64, w)
	took := make([]bool, (nl+1)*w) // took[i*w+s]: cell (i, i-s) was reached by a match
	for s := range w {
		prev[s] = inf
	}
	prev[0] = 0 // (0, 0)
	for i := 1; i <= nl; i++ {
		for s := range w {
			j := i - s
			cur[s] = inf
			if j < 0 || j > ns {
				continue
			}
			// match long[i-1] with short[j-1]: from (i-1, j-1), the same skip count s
			if j >= 1 && prev[s] < inf {
				cur[s] = prev[s] + absDiff(long[i-1], short[j-1])
				took[i*w+s] = true
			}
			// skip long[i-1]: from (i-1, j), skip count s-1; a skip wins ties, so that the
			// later elements are skipped and the earlier ones matched
			if s >= 1 && prev[s-1] < inf && prev[s-1] <= cur[s] {
				cur[s] = prev[s-1]
				took[i*w+s] = false
			}
		}
		prev, cur = cur, prev
	}
	pair := make([]int, ns)
	for i, s := nl, d; i > 0; i-- {
		if took[i*w+s] {
			pair[i-s-1] = i - 1
		} else {
			s--
		}
	}
	return pair
}

// greedyMatch matches each element of short, in order, to the nearest remaining element of
// long that leaves enough for the rest: linear time, for alignments beyond alignBudget.
func greedyMatch(long, short []int64) []int {
	pair := make([]int, len(short))
	i := 0
	for j, v := range short {
		last := len(long) - (len(short) - j) // the latest long index j may take
		for i < last && (long[i+1] <= v || absDiff(long[i+1], v) < absDiff(long[i], v)) {
			i++
		}
		pair[j] = i
		i++
	}
	return pair
}
