// Package imbalance finds where a run loses time to imbalance and who causes it: the runtime
// imbalance analysis of Weber 2016, section 6.2 (shared/seeds/weber-2016-structural-performance-
// comparison.txt).
//
//	r := imbalance.Analyze(tr) // dominant function, SOS-times, summaries; renders with a heatmap
//	r.Candidates()             // the functions ranked for the choice of 6.2.1
//	r.Segments()               // one row per invocation of the dominant function
//	r.Iterations()             // per iteration: max/mean SOS-time, culprit, time lost to waiting
//	r.Processes()              // per process: how often it is the slowest
//	r.Plot()                   // rank x time heatmap of SOS-time with the imbalance per iteration
//
// # Method
//
// Time-dominant function (6.2.1): for p analysed processing elements, the function invoked at
// least 2p times with the largest aggregated inclusive time. An invocation of a function inside
// another invocation of the same function (recursion) is part of the outer one: it is neither
// counted again nor added to the inclusive time again, so that invocations, the segments of the
// run, never overlap. Ties go to more invocations, then to the lower region id.
//
// Segments and SOS-time (6.2.2): each invocation of the dominant function is a segment; the
// k-th segment of every process is iteration k (counted from 0). A segment's SOS-time
// (synchronisation-oblivious segment time) is its inclusive time minus the time inside it spent
// in synchronisation calls, as trace.SyncClassifier decides (OTF2 roles and the blocking MPI,
// OpenMP, CUDA/HIP and thread calls; configurable by name pattern with WithSync). A
// synchronisation call inside another one is counted once: the synchronisation time is the
// length of the union of the synchronisation calls' intervals within the segment.
//
// Summaries beyond the seed: per iteration the largest and the mean SOS-time over the processes
// that have that iteration, their ratio (1 is perfect balance), the recoverable time max - mean
// (the wall time a perfect balance of the iteration's work would save), the culprit (the
// process with the largest SOS-time, the lowest index on ties) and the synchronisation time
// summed over the processes (time lost to waiting); per process how often it is the culprit.
//
// By default the analysed processing elements are the trace's CPU locations (MPI ranks and
// threads); accelerator streams run kernels, not the application's iterations, and are left out
// unless named with WithProcesses.
//
// # Many machines
//
// Both passes are per process: CountCalls computes the invocation counts and inclusive times of
// a subset of processes, and Calls.Merge adds subsets (the dominant function is chosen from the
// merged counts); SegmentsOf computes one process's segments given the chosen function, and
// the summaries are built from the concatenated segments (Summarize). Analyze itself runs
// exactly this way, one subset per core.
//
// Bad arguments panic with an *Error naming the function; an interrupted analysis stops within
// a few milliseconds.
package imbalance
