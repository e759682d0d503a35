// Package fold folds many event timelines into one (Weber 2016, 6.1):
// every stream (a process, thread or GPU stream) is sampled at each pixel
// of a timeline, and a selection operation turns the pixel's states of all
// streams into one, so that thousands of timelines read as one strip of
// dominant behaviour (Max), outliers (Min), divergence (Diff) or
// accelerator idle time (Idle). GPUUtilisation measures device idle time
// exactly, per device and window.
//
//	f := fold.Timeline(tr, fold.Max, 1600)                  // all processes
//	f = fold.Timeline(tr, fold.Diff, 800, fold.WithProcesses(group...), fold.WithRange(t0, t1))
//	f = fold.Timeline(tr, fold.Idle, 1200, fold.WithDevice(0)) // the streams of GPU 0
//	f.Table()                                               // pixel, start, end, state, share
//	fold.GPUUtilisation(tr, fold.WithWindows(20)).Table()
//
// States. The state of a stream at time t is the top of its call stack
// after every event at or before t: the region of an Enter, after a Leave
// the region of the call it returns to, NoState outside every call (6.1).
// Stacks are repaired as trace.CallTree repairs them (trace.LeaveDepth:
// a Leave of an enclosing call closes the calls inside it, a Leave of no
// open call is ignored, calls never left are closed at the stream's last
// event), so the state at t is the innermost call-tree node with
// Enter <= t < Leave. An Index keeps each stream's state changes (8.5 bytes
// each) and answers the state at t by binary search, O(log k) for k
// events; a fold samples pixel times in increasing order with a forward
// (stepping, then galloping) search per stream, streams in groups of 8
// searched in lockstep so that their cache misses overlap.
//
// Pixels. Pixel x of width over [t0, t1) covers [t0 + x*(t1-t0)/width,
// t0 + (x+1)*(t1-t0)/width) in integer ns (products in 128 bits, quotients
// truncated) and takes every stream's state at its start time.
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
// Ties are broken by a total order on states: region id ascending, NoState
// greatest, the smallest state winning (Figure 6.2, pixel 1: b from
// (a, b, no-state) when b's region id is below a's). If nothing remains
// after excluding NoState the result is NoState.
//
// Hierarchical folding (6.1.3). Counts holds each pixel's full state-count
// vector for a set of streams; Merge adds the counts of matching states,
// and selecting from merged Counts equals folding all streams at once, for
// every Op. The seed's size-1 partial vector for select_min (keep only each
// partition's least frequent state) is not exact in general: partition A
// {a:1, b:5} keeps a, partition B {a:5, b:1} keeps b, but the global counts
// are a:6, b:6 and the minimum is a by the order, which the kept entries
// (a:1, b:1) reach only by chance; with A {a:1, b:2} and B {a:5, b:1}
// the kept entries say a:1, b:1 while the global counts a:6, b:3 give b.
// So this package always merges full vectors (their length is the number
// of distinct states, small in practice).
//
// Cost. Timeline caches the Index of the last process set it built (one
// entry, shared with GPUUtilisation; a subset of the cached set reuses
// it), so zooming and switching operations cost only the fold: sampling
// k streams at w pixels, O(w k log(events/w)), and counting, O(w k), both
// spread over the cores (work.Parallel). Long work reports progress and
// stops at an interrupt (builtins/work). Bad arguments panic with an
// *Error naming the function.
package fold
