// Package imbalance finds where a run loses time to imbalance and who causes it: the runtime
// imbalance analysis of Weber 2016, section 6.2 (shared/seeds/weber-2016-structural-performance-
// comparison.txt).
//
//	r := imbalance.Analyze(tr) // dominant function, SOS-times, summaries; renders with a heatmap
//	r.Candidates()             // the chosen function, then the others ranked for the choice of 6.2.1
//	r.Segments()               // one row per invocation of the dominant function
//	r.Iterations()             // per iteration: max/mean SOS-time, culprit, time lost to waiting
//	r.Processes()              // per process: how often it is the slowest
//	r.Plot()                   // rank x time heatmap of SOS-time with the imbalance per iteration
//	r.Table()                  // the main table: Iterations
//
// # Method
//
// Time-dominant function (6.2.1): for p analysed processing elements, the function invoked at
// least 2p times with the largest aggregated inclusive time. An invocation of a function inside
// another invocation of the same function (recursion) is part of the outer one: it is neither
// counted again nor added to the inclusive time again, so that invocations, the segments of the
// run, never overlap. Ties go to more invocations, then to the lower region id.
//
// Synchronisation functions are not candidates. The seed's rule alone picks MPI_Send on the
// ping-pong traces of test/data/traces (OTF2, OTF2 with PAPI counters, pipit's CSV; they have
// no computing loop), and a synchronisation call's SOS-time is 0 by definition (6.2.2
// subtracts it), so such a choice shows no imbalance at all. The set is the one SOS-time subtracts: trace.SyncClassifier
// (WithSync; by default trace.DefaultSync(): MPI waits, collectives and blocking
// point-to-point calls, OpenMP barriers and taskwait, CUDA/HIP/OpenCL synchronise calls,
// thread joins and barriers; its doc lists every name). WithSyncCandidates keeps them, and
// WithFunction names any function. A function qualifies when it is invoked at least 2p times
// and is not left out as synchronisation; Candidates lists the chosen function first, then the
// others that qualify, then those that do not, each part by aggregated inclusive time, with
// the reason in its columns.
//
// Segments and SOS-time (6.2.2): each invocation of the dominant function is a segment. A
// segment's SOS-time (synchronisation-oblivious segment time) is its inclusive time minus the
// time inside it spent in synchronisation calls, as trace.SyncClassifier decides (configurable
// by name pattern with WithSync). A synchronisation call inside another one is counted once:
// the synchronisation time is the length of the union of the synchronisation calls' intervals
// within the segment.
//
// Roles of time (trace.TimeRole): SOS-time subtracts synchronisation only, as the seed defines
// it; set-up and tear-down calls (MPI_Init, MPI_Finalize, ...) are neither subtracted nor left
// out as candidates. They run once per process, so they never qualify as the dominant function
// (2p invocations) and lie before and after the iterations that segments are made of; a
// segment that does hold one (WithFunction("main")) counts it as segment time. Time outside
// every instrumented region inside a segment cannot occur (a segment is a call).
//
// Iterations, aligned by time (the seed compares "the runtimes of its individual invocations"
// and says nothing about processes that invoke the function a different number of times).
// When every process invokes it equally often, its k-th invocation on every process is
// iteration k. Otherwise the processes with the most common number of invocations m (the
// larger on ties) give m reference start times, per k the median start of their k-th
// invocations; every other process's invocations are matched in order to the reference starts
// so that the sum of the distances between matched start times is least (a banded dynamic
// programme, O(n d) for n invocations d away from m; a greedy nearest-start matching beyond
// 16M cells; on equal sums the later invocations are the unmatched ones). An invocation left
// unmatched, such as one extra set-up call on one rank, becomes an iteration of its own, right
// after the iteration of that process's previous invocation; a process with fewer invocations
// leaves some iterations out. So one extra call on one rank shifts nothing on the others.
// Alignment by time needs iterations that start at about the same time on every process (as a
// synchronising loop's do); alignment by call path was not chosen because a set-up call made
// from the loop's own call site (main calling solve once before its loop) has the same path.
// Left unresolved: a process with as many extra invocations as missed iterations has the
// common count and is aligned by index.
//
// Summaries beyond the seed: per iteration the largest and the mean SOS-time over the processes
// that have that iteration, their ratio (1 is perfect balance), the recoverable time max - mean
// (the wall time a perfect balance of the iteration's work would save), the number of processes
// at the largest SOS-time, the culprit, and the synchronisation time summed over the processes
// (time lost to waiting); per process in how many iterations it is the culprit and in how many
// it ties for the largest SOS-time. Ties are ties: the culprit of an iteration is the one
// process whose SOS-time is larger than every other's, and there is none when two or more share
// the largest (a perfectly balanced run has no culprit in any iteration), when the iteration
// has one process, or when every SOS-time is 0. The culprit of the run (Culprit, the headline)
// is the process that is the culprit of the most iterations, none when several are equally
// often; the headline names them all and counts the tied iterations.
//
// By default the analysed processing elements are the trace's CPU locations (MPI ranks and
// threads); accelerator streams run kernels, not the application's iterations, and are left out
// unless named with WithProcesses.
//
// # Many machines
//
// Both passes are per process. Under the per-process contract (builtins/part) the analysis is
// the registered two-round method "imbalance.analyze" (Method(tr, opts...)): in round 0 each
// subset of the processes counts its calls (partial *Calls; CountCalls runs this round), and
// Calls.Merge adds disjoint subsets; between the rounds the root picks the dominant function
// from the merged counts exactly as Analyze does (Calls.Dominant with the synchronisation
// regions left out, or the function WithFunction names); in round 1 each subset cuts its
// processes into segments given that function (partial *SegmentSet; SegmentsOf does it for one
// process), and SegmentSet.Merge unites disjoint subsets. The summaries, with the alignment of
// the iterations, are built from all segments (Summarize). Merges of overlapping subsets, of
// other functions or of other kinds of partials are errors. Analyze itself runs exactly these
// rounds, one subset of the processes per core (part.RunRound); on a distributed trace
// (part.Remote: a skeleton whose events the ranks of an MPI job hold) part.RunRound hands both
// rounds to the job, and the summaries are built from the merged segments on the notebook,
// identical to the local analysis. Compute refuses processes whose events are not held where
// it runs, and SegmentsOf panics for them (trace.Process.NeedEvents).
//
// Bad arguments panic with an *Error naming the function; an interrupted analysis stops within
// a few milliseconds.
package imbalance
