package profile

import (
	"fmt"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// Stage 2 and later: refining the histogram bins that hold a needed rank until every needed
// rank's value is known exactly. Each round walks the events once more. A value range [lo, hi]
// with few values in it collects them (and selection then gives the ranks); a crowded one is
// counted in up to 65,536 equal sub-ranges, and the sub-range of each rank is refined in the
// next round, until sub-ranges are single values. Counts merge by adding and collected values
// by concatenation, so every round runs on subsets of the processes (cores, machines) and
// merges.

// collectLimit is the most values of one range that a round collects rather than counts, and
// subRanges the number of sub-ranges a crowded range is counted in (variables for the tests,
// which make every path run on small inputs).
var (
	collectLimit int64 = 1 << 18
	subRanges    int64 = 1 << 16
)

// On a distributed trace a pass's partial crosses the network: a span's values or counts are
// sent from every rank, so the limits are lower (a span sends at most about 1,024 values or
// non-zero counters, whatever the size of the trace, at the price of a pass more: a bin of
// 2^16 ns narrows to 64 ns in one pass). On a generated trace of 64 ranks and 820,000 events
// distributed to 4 ranks, Boxes' refinement sent 477 kB in one pass with the local limits and
// sends 42 kB in two with these.
var (
	remoteCollectLimit int64 = 1 << 10
	remoteSubRanges    int64 = 1 << 10
)

// span is a value range being refined for the ranks in it.
type span struct {
	lo, hi int64   // values within, inclusive
	below  int64   // values of the bucket below lo
	n      int64   // values within
	ranks  []int64 // needed ranks in it
	step   int64   // width of a counted sub-range; 0: collect the values
	slot   int     // index of the span's counts or values in a worker's state
}

// neededRanks returns the ranks (ascending, distinct) the five percentiles of n values read.
func neededRanks(n int64) []int64 {
	var ks []int64
	for _, p := range boxPercentiles {
		k, f := rankOf(n, p)
		ks = append(ks, k)
		if f > 0 {
			ks = append(ks, k+1)
		}
	}
	slices.Sort(ks) // k and k+1 of one percentile may pass the next percentile's k
	return slices.Compact(ks)
}

// percentilesOf computes the five percentiles of n values from the values of their ranks.
func percentilesOf(n int64, at map[int64]int64) [5]float64 {
	var ps [5]float64
	for i, p := range boxPercentiles {
		k, f := rankOf(n, p)
		if f == 0 {
			ps[i] = float64(at[k])
		} else {
			ps[i] = lerp(at[k], at[k+1], f)
		}
	}
	return ps
}

// binRange returns the values of histogram bin b, inclusive.
func binRange(b int) (lo, hi int64) {
	if b < sub {
		if b == 0 {
			return -1 << 63, 0
		}
		return int64(b), int64(b)
	}
	e := uint((b - sub) / sub) // the shift of binOf
	lo = int64(sub+(b-sub)%sub) << e
	return lo, lo + 1<<e - 1
}

// spansOfHist returns the spans of the histogram bins that hold the needed ranks of the n
// values counted in hist, all within [vmin, vmax].
func spansOfHist(hist []uint32, n, vmin, vmax int64) []*span {
	var out []*span
	splitRanks(hist, 0, neededRanks(n), func(b int, below, c int64, in []int64) {
		lo, hi := binRange(b)
		out = append(out, &span{lo: max(lo, vmin), hi: min(hi, vmax), below: below, n: c, ranks: in})
	})
	return out
}

// splitRanks calls f for every bin i of counts (whose first bin has below values under it)
// that holds some of the ranks ks (ascending): the bin, the values under it, its count and its
// ranks. It panics if ranks lie beyond the last bin.
func splitRanks(counts []uint32, below int64, ks []int64, f func(i int, below, n int64, in []int64)) {
	for i, c := range counts {
		if c == 0 {
			continue
		}
		j := 0
		for j < len(ks) && ks[j] < below+int64(c) {
			j++
		}
		if j > 0 {
			f(i, below, int64(c), ks[:j:j])
			ks = ks[j:]
		}
		below += int64(c)
	}
	if len(ks) > 0 {
		panic(fmt.Sprintf("profile: ranks %v beyond the %d values counted", ks, below))
	}
}

// spanSet is the open spans of one bucket and metric in a compact, pointer-free form for the
// walk's inner loop: at most 10 spans (one per needed rank), ascending and disjoint.
type spanSet struct {
	n      int
	lo, hi [10]int64
	step   [10]int64
	slot   [10]int32
}

func newSpanSet(list []*span) spanSet {
	var ss spanSet
	for i, sp := range list {
		ss.lo[i], ss.hi[i], ss.step[i], ss.slot[i] = sp.lo, sp.hi, sp.step, int32(sp.slot)
	}
	ss.n = len(list)
	return ss
}

// refine finds the values of every needed rank of every bucket (cells, then the functions:
// funcOf maps a cell to its function or -1) and metric: vals[series][bucket][metric][rank].
// A bucket b with same[s][b] >= 0 holds the same values as bucket same[s][b] in series s (a
// function called from one cell only) and shares its result.
func (e *engine) refine(c *cells, funcOf []int32, buckets [][]acc, same [][]int) [][][2]map[int64]int64 {
	nc := len(c.keys)
	vals := make([][][2]map[int64]int64, e.nseries)
	open := make([][][2][]*span, e.nseries) // spans still to refine
	pending := 0
	for s := range buckets {
		vals[s] = make([][2]map[int64]int64, len(buckets[s]))
		open[s] = make([][2][]*span, len(buckets[s]))
		for b := range buckets[s] {
			for m := range 2 {
				vals[s][b][m] = map[int64]int64{}
				if a := &buckets[s][b]; a.count > 0 && same[s][b] < 0 {
					open[s][b][m] = spansOfHist(a.hist[m], a.count, a.min[m], a.max[m])
					pending += len(open[s][b][m])
				}
			}
		}
	}
	for round := 0; pending > 0; round++ {
		limit, ranges := collectLimit, subRanges
		if e.tr != nil {
			limit, ranges = min(limit, remoteCollectLimit), min(ranges, remoteSubRanges)
		}
		spans, sets := planRound(open, limit, ranges)
		var need int64
		for _, sp := range spans {
			if sp.step == 0 {
				need += 8 * sp.n
			} else {
				need += 4 * ((sp.hi-sp.lo)/sp.step + 1) * int64(e.workers())
			}
		}
		if err := work.Reserve("percentile refinement", need); err != nil {
			panic(err)
		}
		var counts [][]uint32
		var collected [][]int64
		if e.tr != nil {
			counts, collected = e.refineRemote(c, funcOf, sets, spans)
		} else {
			counts, collected = e.refineRound(round, c, funcOf, sets, spans, nc)
		}
		pending = 0
		for s := range open {
			for b := range open[s] {
				for m := range 2 {
					var next []*span
					for _, sp := range open[s][b][m] {
						next = append(next, resolve(sp, counts[sp.slot], collected[sp.slot], vals[s][b][m])...)
					}
					open[s][b][m] = next
					pending += len(next)
				}
			}
		}
	}
	for s := range same {
		for b, o := range same[s] {
			if o >= 0 {
				vals[s][b] = vals[s][o]
			}
		}
	}
	return vals
}

// planRound numbers the open spans (open[series][bucket][metric]) in slots and decides for
// each whether a round collects its values (a range of at most limit values, or one narrower
// than ranges values) or counts them in at most ranges sub-ranges; it returns the spans by
// slot and the span sets the walk looks values up in.
func planRound(open [][][2][]*span, limit, ranges int64) ([]*span, [][][2]spanSet) {
	var spans []*span
	for s := range open {
		for b := range open[s] {
			for m := range 2 {
				for _, sp := range open[s][b][m] {
					sp.slot = len(spans)
					spans = append(spans, sp)
					if sp.n <= limit || sp.hi-sp.lo < ranges {
						sp.step = 0
						if sp.n > limit { // a narrow range: count single values
							sp.step = 1
						}
					} else {
						sp.step = (sp.hi-sp.lo)/ranges + 1
					}
				}
			}
		}
	}
	sets := make([][][2]spanSet, len(open))
	for s := range open {
		sets[s] = make([][2]spanSet, len(open[s]))
		for b := range open[s] {
			for m := range 2 {
				sets[s][b][m] = newSpanSet(open[s][b][m])
			}
		}
	}
	return spans, sets
}

// resolve records the ranks a round resolved in at and returns the narrower spans of the ranks
// it did not.
func resolve(sp *span, counts []uint32, collected []int64, at map[int64]int64) []*span {
	if sp.step == 0 {
		if int64(len(collected)) != sp.n {
			panic(fmt.Sprintf("profile: collected %d values in [%d, %d], the histogram counted %d", len(collected), sp.lo, sp.hi, sp.n))
		}
		rs := make([]int, len(sp.ranks))
		for i, k := range sp.ranks {
			rs[i] = int(k - sp.below)
		}
		selectRanks(collected, rs)
		for i, k := range sp.ranks {
			at[k] = collected[rs[i]]
		}
		return nil
	}
	var out []*span
	splitRanks(counts, sp.below, sp.ranks, func(i int, below, c int64, in []int64) {
		lo := sp.lo + int64(i)*sp.step
		if sp.step == 1 {
			for _, k := range in {
				at[k] = lo
			}
			return
		}
		out = append(out, &span{lo: lo, hi: min(lo+sp.step-1, sp.hi), below: below, n: c, ranks: in})
	})
	return out
}

// refineRound walks every process once and counts or collects the values of the open spans,
// one state per worker, merged.
func (e *engine) refineRound(round int, c *cells, funcOf []int32, open [][][2]spanSet, spans []*span, nc int) ([][]uint32, [][]int64) {
	type state struct {
		counts    [][]uint32
		collected [][]int64
	}
	states := make([]state, e.workers())
	walkers := make([]*walker, len(states))
	for w := range states {
		states[w] = state{counts: make([][]uint32, len(spans)), collected: make([][]int64, len(spans))}
		for i, sp := range spans {
			if sp.step > 0 {
				states[w].counts[i] = make([]uint32, (sp.hi-sp.lo)/sp.step+1)
			} else if w == 0 {
				states[w].collected[i] = make([]int64, 0, sp.n)
			}
		}
		walkers[w] = newWalker(c.view(), e.closure)
	}
	e.pass(fmt.Sprintf("exact percentiles, pass %d", round+2), func(w, i int, job *work.Job) {
		st := &states[w]
		sp := open[e.series[i]]
		add := func(ss *spanSet, v int64) {
			for j := range ss.n {
				if v < ss.lo[j] {
					return
				}
				if v <= ss.hi[j] {
					switch step := ss.step[j]; step {
					case 0:
						st.collected[ss.slot[j]] = append(st.collected[ss.slot[j]], v)
					case 1:
						st.counts[ss.slot[j]][v-ss.lo[j]]++
					default:
						st.counts[ss.slot[j]][(v-ss.lo[j])/step]++
					}
					return
				}
			}
		}
		walkers[w].walk(e.procs[i], job, func(recs []record) {
			for _, r := range recs {
				cs := &sp[r.cell]
				add(&cs[mExc], r.exc)
				add(&cs[mInc], r.inc)
				if f := funcOf[r.cell]; f >= 0 {
					fs := &sp[nc+int(f)]
					add(&fs[mExc], r.exc)
					add(&fs[mInc], r.inc)
				}
			}
		})
	})
	out := states[0]
	for _, st := range states[1:] {
		for i := range spans {
			if st.counts[i] != nil {
				for j, n := range st.counts[i] {
					out.counts[i][j] += n
				}
			}
			out.collected[i] = append(out.collected[i], st.collected[i]...)
		}
	}
	return out.counts, out.collected
}
