// Package fold folds many event timelines into one, so that thousands of them read as one
// strip of dominant behaviour, outliers, divergence or accelerator idle time: the timeline
// folding of Weber 2016, section 6.1 (shared/seeds/weber-2016-structural-performance-
// comparison.txt). Every stream (a process, thread or GPU stream) gets a state at each pixel
// of a timeline, and a selection operation (Max, Min, Diff, Idle) turns the pixel's states
// of all streams into one; GPUUtilisation measures device idle time exactly, per device and
// window.
//
//	f := fold.Timeline(tr, fold.Max, 1600)                  // all processes
//	f = fold.Timeline(tr, fold.Diff, 800, fold.WithProcesses(group...), fold.WithRange(t0, t1))
//	f = fold.Timeline(tr, fold.Idle, 1200, fold.WithDevice(0)) // the streams of GPU 0, by time share
//	f = fold.Timeline(tr, fold.Max, 1600, fold.WithTimeShare(true))
//	f.Table()                                               // Pixel, Start (ns), End (ns), State, Share
//	f.Plot()                                                // the folded strip above up to 32 unfolded streams
//	fold.GPUUtilisation(tr, fold.WithWindows(20)).Table()
//	ix := fold.NewIndex(tr); ix.StateAt(3, t)               // the state index behind every fold
//
// # Method
//
// States. The state of a stream at time t is the top of its call stack
// after every event at or before t: the region of an Enter, after a Leave
// the region of the call it returns to, NoState outside every call (6.1).
// Stacks are repaired as trace.CallTree repairs them (trace.LeaveDepth:
// a Leave of an enclosing call closes the calls inside it, a Leave of no
// open call is ignored, calls never left are closed at the stream's last
// event), so the state at t is the innermost call-tree node with
// Enter <= t < Leave. NoState is named by the streams it is on
// (Folded.NoStateName): on accelerator streams it is device idle time
// ("idle", Weber's select_idle); on CPU streams it is time "outside
// instrumented regions" (trace.OutsideRegions) — code the trace does not
// show, such as an MPI-only trace's application computation between MPI
// calls — neither idle nor computation; a fold of both kinds names it so
// too. An Index keeps each stream's state changes (8.5 bytes
// each) and answers the state at t by binary search, O(log k) for k
// events; a fold samples pixel times in increasing order with a forward
// (stepping, then galloping) search per stream, streams in groups of 8
// searched in lockstep so that their cache misses overlap.
//
// Pixels. Pixel x of width over [t0, t1) covers [t0 + x*(t1-t0)/width,
// t0 + (x+1)*(t1-t0)/width) in integer ns (products in 128 bits, quotients
// truncated). A stream's state at a pixel is either sampled, its state at
// the pixel's start (the seed's sampling, 6.1: "the first event e with a
// timestamp t_e <= t"), or by time share, the state it spends the most ns
// in within the pixel (the seed's t_p mapping of 6.1, "the activity s
// where for all s' holds t_p(s') <= t_p(s)"; ties by the order below). A
// pixel of no length (more pixels than ns) takes the sampled state.
// Max, Min and Diff sample by default (what a timeline viewer shows);
// Idle goes by time share, see below; WithTimeShare chooses either for
// any Op.
//
// Selection (eq. 6.1-6.4) over the pixel's states s_0..s_n with occurrence
// counts count(s):
//   - Max: the state of largest count.
//   - Min: the state of smallest count among the states present.
//   - Diff: NoState when all streams are in the same state; otherwise Min
//     over the states other than NoState.
//   - Idle: NoState when all streams are in NoState; otherwise Max over the
//     states other than NoState.
//
// Idle by time share (its default). The seed's PIConGPU case (6.1.4) folds a
// device's streams so that "for the corresponding time interval of each
// visualized pixel ... this operation identifies the most prominent activity
// (highest time share) across all device streams. Idle time (no-state) is
// only selected when no CUDA device stream computes any kernel." Sampling
// each pixel's start instead can draw a GPU that is busy 90% of the time
// 100% idle, when its kernels start just after the pixels do. So Idle takes
// the device's busy time within the pixel, the union of its streams' busy
// (not NoState) time: the pixel is NoState when the device is busy for less
// than half of it, and otherwise the state with the most ns summed over
// the streams (ties by the order). Its Share is the share of the pixel's
// time the device is idle (NoState) or busy. The seed's sentence read
// literally (idle only when no kernel runs anywhere in the pixel) would draw
// a GPU busy 10% of the time in short kernels 100% busy; the majority of
// the pixel's time keeps the strip near the utilisation GPUUtilisation
// measures (each pixel off by at most half its length).
//
// Ties are broken by a total order on states: region id ascending, NoState
// greatest, the smallest state winning (Figure 6.2, pixel 1: b from
// (a, b, no-state) when b's region id is below a's). If nothing remains
// after excluding NoState the result is NoState.
//
// Measurement off. Where a stream's measurement was switched off
// (trace.Process.MeasurementOffIntervals, OTF2 MEASUREMENT_ON_OFF), Plot
// draws a grey bar labelled OffLabel over its unfolded lane, as Vampir greys
// such times; the states sampled and folded there are still those of the
// calls open across the gap (the trace records nothing inside it, and
// inventing a state would change what the fold counts).
//
// Cost. Timeline caches the Index of the last process set it built (one
// entry, shared with GPUUtilisation; a subset of the cached set reuses
// it), so zooming and switching operations cost only the fold: sampling
// k streams at w pixels, O(w k log(events/w)), and counting, O(w k), both
// spread over the cores (work.Parallel). By time share every stream walks
// its state changes within the range once instead, O(w k + changes), and
// Idle merges the streams' busy intervals in time order, O(changes log k). Long work reports progress and
// stops at an interrupt (builtins/work). Bad arguments panic with an
// *Error naming the function.
//
// # Many machines
//
// Hierarchical folding (6.1.3): Counts holds each pixel's full state-count
// vector for a set of streams; Merge adds the counts of matching states,
// and selecting from merged Counts equals folding all streams at once, for
// every Op. By time share (Index.CountsByTime) the vectors also hold each
// state's ns summed over the streams, added by Merge, and the union of the
// streams' busy intervals, united by Merge (its length per pixel cannot be
// merged from two lengths). The seed's size-1 partial vector for select_min (keep only each
// partition's least frequent state) is not exact in general: partition A
// {a:1, b:5} keeps a, partition B {a:5, b:1} keeps b, but the global counts
// are a:6, b:6 and the minimum is a by the order, which the kept entries
// (a:1, b:1) reach only by chance; with A {a:1, b:2} and B {a:5, b:1}
// the kept entries say a:1, b:1 while the global counts a:6, b:3 give b.
// So this package always merges full vectors (their length is the number
// of distinct states, small in practice).
//
// Under the per-process contract (builtins/part) this is the registered method "fold.counts"
// (CountsMethod(t0, t1, width, byTime); partial *Counts): Compute indexes a subset of the
// processes and counts their states on the grid, Counts.Merge absorbs the counts of a
// disjoint subset (other grids, sampled with by time share, or streams in both are an error),
// and the encoding is canonical (pairs in the order of states, busy intervals united), so
// any order of merges gives the same bytes. Timeline itself folds on all cores from one
// cached index, spreading streams and pixels over the cores rather than subsets of processes.
//
// On a distributed trace (part.Remote: a skeleton whose events the ranks of an MPI job hold),
// Timeline and GPUUtilisation compute where the events are, through part.Run, and build the
// same results from the merged partials: "fold.span" (the trace's first and last event, one
// round, unless WithRange gives the range), "fold.counts" (one round), and for a fold of at
// most 32 streams "fold.lanes" (one round: each stream's own state per pixel, run-length
// encoded, and its measurement-off intervals; an interval still open at a stream's last event
// is extended to the whole trace's last event on the notebook, as MeasurementOffIntervals
// does). GPUUtilisation runs "fold.busy" (per device the union of its streams' busy
// intervals, united by Merge), and its Plot "fold.strips" (per device the counts by time
// share of its streams), one round each for all devices; a partial that holds all of a
// device's streams (the method knows how many there are) reduces them to the busy time per
// window, or to the strip's states, so the bytes sent do not grow with the kernels. NewIndex needs the events of its processes here and panics
// (trace.Process.NeedEvents) for processes whose events are not.
package fold
