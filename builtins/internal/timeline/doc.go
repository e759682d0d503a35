// Package timeline builds the master timeline of a trace (issue 36, item 1): the data of
// plotting.LiveTimeline, which its interactive view draws. Importing it registers the builder
// that (*trace.Trace).Timeline calls; the kernel links it.
//
//	tr.Timeline()                               // every location, stacked call levels
//	tr.Window(2e9, 3e9).Timeline()              // a window: the clipped calls as they are
//	tr.Timeline(trace.WithTopLevel())           // outermost calls only
//	tr.Timeline(trace.WithExpand(3))            // group 3 of a folded timeline as its member lanes
//	tr.Timeline(trace.WithGroupSize(8))         // 8 ranks per folded strip
//	tr.Timeline(trace.WithProcesses(ps...))     // some locations
//	tr.Timeline(trace.WithBudget(5 << 20))      // bytes the view may embed
//
// # What is drawn
//
// Lanes, in the trace's order of locations:
//   - a CPU location (Process.Label: "rank 3", "rank 3 thread 1") is a LaneCalls lane with one
//     bar per node of its call tree (trace.CallTree: the repaired stacks, calls never left
//     closed at the location's last event), Level the call depth from 0, Label the region name;
//     a window's clipped calls are drawn as the window clipped them;
//   - an accelerator stream ("GPU 0 stream 7") is a LaneAccelerator lane with the same bars;
//   - the metrics a location records itself (PAPI counters of Score-P) follow its lane as
//     LaneCounter lanes, one per metric ("rank 0 · PAPI_TOT_CYC"), the values as recorded
//     (an accumulated counter rises); the trace's metric streams (OTF2 METRIC locations,
//     trace.MetricStreams) come last, one LaneCounter lane per stream and metric, with the
//     metric's unit. A window keeps the samples inside it.
//
// Messages are the point-to-point messages matched by profile.Messages (the one matcher,
// internal/p2p, MPI's non-overtaking rule; a window's messages matched in the whole run): a
// line from the send record's time on the sender's lane to the receive's completion on the
// receiver's. Collective operations are markers from each location's MpiCollectiveBegin to
// its MpiCollectiveEnd, labelled with the operation, communicator, root and bytes. The
// intervals in which a location's measurement was off (Process.MeasurementOffIntervals) are
// shaded on its lane.
//
// # Folding
//
// Above MaxLanes locations the locations are folded: groups of consecutive ranks with all
// their threads, or GPUs with all their streams (WithGroupSize ranks, by default the smallest
// number giving at most MaxLanes groups), each become one LaneFolded strip, named
// "group 3: rank 48–63" ("rank 3 (4 locations)" for one rank's threads), whose bars are the stretches of the
// group's dominant function per column: fold.Max over the members' states (the innermost
// call) sampled at the start of each of FoldColumns columns over the timeline's range, ties
// to the smaller region id, outside every call (fold.NoState) not drawn. The strip is exact at
// that resolution only; its Info names the members and how to expand it. Messages between
// two folded groups are drawn between their strips; messages inside one group, collectives
// and counters of folded locations are left out; measurement-off intervals of a member are
// shaded on its strip. The timeline's Notes say what was folded and left out.
//
// # Cost
//
// Building reads every location's call tree once (computed and cached by trace), matches the
// messages (profile.Messages) and, when folding, indexes the folded locations' states
// (fold.NewIndex): linear in the events. A bar costs about 64 bytes; the memory is checked
// (work.Reserve) before the bars are allocated, progress is shown and an interrupt stops the
// build (builtins/work). The interactive view bounds what it embeds (Budget), not the
// builder. A distributed trace (a skeleton whose events the ranks of an MPI job hold) is
// refused with an *Error naming the first location whose events are not here: the timeline
// does not run distributed yet. Locations whose events were brought here (dist.Fetch) are
// drawn with WithProcesses, without messages (matching needs every location).
package timeline
