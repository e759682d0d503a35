package align

// The comparison in the Chrome/Perfetto Trace Event Format.

import (
	"math"
	"strconv"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// WriteChrome writes the alignment to path in the Trace Event Format (see
// trace.WriteChrome for the file's conventions; gzip when path ends in
// ".gz") as Plot draws it, on the aligned (virtual) time axis of Plot
// (Weber Fig. 4.2: each pair as long as the longer of its two sides; for
// sequences every pair lasts 1 µs): three tracks of one process
// "alignment", in order
//
//   - A's calls (thread named as Plot names the lane, "v1 · rank 3"): one
//     complete event per element of A, over its pair and its subtree's
//     pairs, args {"level": call level from 0, "state": its pair's state};
//   - "alignment states": one complete event per run of pairs of one
//     state, named "Equal", "Diff", "GapA: only in B" or "GapB: only in
//     A" (Plot's legend), args {"level":0,"pairs":count};
//   - B's calls, as A's.
//
// A write that fails panics with a *work.Error naming
// "align.Result.WriteChrome" and the path, like trace.WriteChrome.
func (r *Result) WriteChrome(path string) {
	const fn = "align.Result.WriteChrome"
	defer work.RecoverAs(fn)
	if r == nil {
		work.Fail(fn, "nil result")
	}
	n := len(r.state)
	scale := 1.0
	if r.enterA == nil {
		scale = 1000 // sequences: a pair is 1 µs
	}
	vt := r.axis()
	x := make([]int64, n+1)
	for k, v := range vt {
		x[k] = int64(math.Round(v * scale))
	}
	laneA, laneB := r.sides.lane(true, r.LabelA), r.sides.lane(false, r.LabelB)
	runA, runB := r.sides.run(true, r.LabelA), r.sides.run(false, r.LabelB)
	names := stateNames(runA, runB)
	var sa, sb, ss []trace.ChromeSlice
	for k := 0; k < n; k++ {
		st := trace.ChromeArg{Key: "state", Value: names[r.state[k]]}
		lvl := int(r.depth[k]) - 1
		if i := r.ia[k]; i >= 0 {
			sa = append(sa, trace.ChromeSlice{Name: r.names[r.a[i]], Cat: "A", Start: x[k], End: x[r.end[k]], Level: lvl, Args: []trace.ChromeArg{st}})
		}
		if j := r.ib[k]; j >= 0 {
			sb = append(sb, trace.ChromeSlice{Name: r.names[r.b[j]], Cat: "B", Start: x[k], End: x[r.end[k]], Level: lvl, Args: []trace.ChromeArg{st}})
		}
	}
	stateRuns(r.state, func(k, e int, s State) {
		ss = append(ss, trace.ChromeSlice{Name: names[s], Cat: "state", Start: x[k], End: x[e],
			Args: []trace.ChromeArg{{Key: "pairs", Value: strconv.Itoa(e - k)}}})
	})
	if err := work.Try(func() {
		trace.WriteChrome(nil, path, trace.WithTracks(
			trace.ChromeTrack{Process: "alignment", Name: laneA, Slices: sa},
			trace.ChromeTrack{Process: "alignment", Name: "alignment states", Slices: ss},
			trace.ChromeTrack{Process: "alignment", Name: laneB, Slices: sb}))
	}); err != nil {
		work.FailErr(fn, err) // named as this function, its cause (trace.WriteChrome's) kept
	}
}
