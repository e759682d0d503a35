// Package profile is what an analyst opens first, for one run and for two runs side by side:
// distribution profiles and call matrices (Brendel 2018, shared/seeds/brendel-2018-visualising-
// differences.txt, sections 3.1 and 3.2) and the communication views of LLNL pipit.
//
//	profile.Boxes(tr)                // per function: count, sum, min, max, 2/25/50/75/98th percentiles
//	profile.CallMatrix(tr)           // caller x callee buckets of the same distributions
//	profile.Compare(a, b)            // two runs: change of count and of each percentile per function
//	profile.CommMatrix(tr)           // sender x receiver messages and bytes
//	profile.MessageHistogram(tr, 20) // message sizes
//	profile.Messages(tr)             // matched sends and receives with latency
//
// Options are named WithX: WithInclusive / WithExclusive (what is plotted and ranked),
// WithPerProcess, WithGroups and WithNamedGroups (series), WithProcesses, WithFunctions and
// WithCaller (restrictions), WithTop and WithSortBy (ranking), WithClosure (the transitive call
// matrix); WithRanks for CommMatrix. Every result has Table(), String() and, where there is a
// figure, Plot(). Two runs are named by (*trace.Trace).Name(), "A" and "B" when unnamed.
//
// # Method
//
// Percentiles (Brendel 3.1) are exact, by linear interpolation between the closest ranks (Hyndman
// and Fan's type 7, the default of numpy.percentile and pandas.quantile): for n sorted values
// x[0..n-1] the p-th percentile is x[k] + f (x[k+1] - x[k]) with h = (n-1) p/100, k = floor(h), f =
// h - k. The median of an even number of values is the mean of the two middle ones, as Brendel
// describes it. They are computed by selection, never by sorting a whole sample.
//
// Every call is one measurement, recursive calls included; calls are built from the Enter and Leave
// events with the call-stack repairs of trace.CallTree (calls still open at the end close at the
// process's last event).
//
// Call matrix (Brendel 3.2): the direct matrix counts each call in the cell (immediate caller,
// callee); calls made outside any other call have the virtual root (region -1, name "") as caller.
// The transitive closure counts each call once in the cell (f, callee) of every distinct function f
// on the call stack below it, and in the root's cell: so a function's root cell holds all its
// calls, and runs in which a function was inlined still compare cell by cell.
//
// WithCaller and WithFunctions (Brendel 3.2, Figs. 16-18): WithCaller keeps the rows of the named
// callers (Fig. 17, the calls main makes); WithFunctions keeps the columns of the named callees
// and, without WithCaller, the rows of the root and of the named functions. Together they give Fig.
// 18, the calls main makes to the functions that do real work, without naming main in
// WithFunctions. Example runs the seed's walk-through (Figs. 16-19) on the ping-pong trace.
//
// Comparing runs: Compare and CompareGroups match functions by name and rank them by the change of
// their summed time. The verdict is a hint with a stated rule (Brendel compares box plots by eye):
// "slower" or "faster" only when each run has at least MinVerdictCalls (20) calls of the function
// and the middle halves of the two distributions (25th to 75th percentile) do not overlap; "too few
// calls" below 20 on either side. Under no change (both runs drawing from one continuous
// distribution) this rule gives a verdict in 0.18% of comparisons at 20 calls each and less with
// more calls; see MinVerdictCalls. The headline's "most changed" is the row of largest absolute
// change over all group pairs.
//
// Exact percentiles over many processes: a series of one process (WithPerProcess) collects that
// process's values whole and selects. A series of many processes is computed in stages that run on
// subsets of the processes and merge: stage 1 counts every (series, cell) bucket in a log-linear
// histogram (16 bins per power of two) with its count, sum, minimum and maximum, merged by adding;
// from the merged histograms the bins that hold each needed rank are known, and further passes
// count the values in these bins in up to 65,536 sub-ranges (merged by adding) or, when few values
// fall in a bin, collect them (merged by concatenation), until every needed rank's value is exact.
// Function rows are the merged histograms of their cells. Every analysis runs this way on the
// cores, each taking the next process from a shared counter.
//
// Boxes and CallMatrix keep the result of the last run: a CallMatrix after a Boxes of the same
// processes and series (or the other way round) does not read the events again.
//
// Communication: CommMatrix counts, for each pair of ranks (location groups, Process.Rank; the
// threads of a rank add into it), the point-to-point messages and bytes from sender to receiver.
// Like pipit's comm_matrix it counts each send event (MpiSend, MpiIsend) once, with the bytes of
// its message record; the receiver is the record's partner rank resolved to a global rank through
// its communicator's group (trace.RankResolver; pipit takes the communicator rank as global).
// Receive events are not counted. Collective operations are counted apart, per rank (operations,
// bytes sent, bytes received from the MpiCollectiveEnd records), because OTF2 does not record who
// received from whom in a collective. MessageHistogram is numpy.histogram of the send sizes:
// equal-width bins from the smallest to the largest size, the last bin closed, all sizes equal to v
// giving the range v-0.5 to v+0.5. Messages matches each send with its receive by MPI's
// non-overtaking rule, both sides in posting order: the k-th send posted on (sender, receiver,
// communicator, tag) with the k-th receive posted for it, a non-blocking receive posted at its
// MpiIrecvRequest (not where MPI_Waitany happened to complete it), cancelled requests left out (the
// matcher of ccg.Messages, package internal/p2p, which states the choices). It gives each message's
// latency, receive completion minus send, and reports what does not fit: unmatched sends and
// receives, sizes that differ, receives never completed, messages received before they were sent
// (Problems, and the headline). Its result is columns (Len, Message(i)) ordered by send time; it
// runs on all cores. CommMatrix and MessageHistogram count every send record as pipit does, a
// cancelled MPI_Isend included.
//
// # Many machines
//
// The per-process parts run under the contract of package part (a partial per subset of the
// processes, merged by p.Merge(o) error, encoded by MarshalBinary, methods registered by name).
// A partial depends only on the processes it is given and the trace's definitions, so a rank
// of an MPI job that holds a share of the trace computes the same partial as the whole trace
// would:
//
//	"profile.comm"   CommMethod(opts...): CommMatrixOf(tr, procs), a *Comm; without WithRanks
//	                 its rows are the ranks of procs, merged by uniting the rows and adding
//	                 cells (sends to a rank another part holds become cells when it merges in)
//	"profile.sizes"  SizesMethod(bins): round 0 MessageSizeRange(procs), a *SizeRange; the root
//	                 decides the bins from the merged range; round 1 MessageHistogramOf(procs,
//	                 bins, r), a *Histogram, merged by adding counts in the same bins
//	"profile.boxes"  BoxesMethod(series, closure): stage 1 of Boxes and CallMatrix, per series
//	                 and cell the count, sum, extremes and log-linear histogram, merged by adding
//	"profile.refine" one refinement pass with its plan (cells, spans per series and bucket):
//	                 per span the counts of its sub-ranges (added) or its values (concatenated)
//	"profile.single" series of one process each (WithPerProcess): each process's values
//	                 collected and selected where they are, the distributions concatenated
//
// On this machine MessageHistogram runs "profile.sizes" with part.Run, one subset per core.
// CommMatrix cuts the ranks into one subset per core of about equal events and concatenates
// their cells (a pairwise merge would copy them once more). Boxes and CallMatrix take processes
// from a shared counter on every core (the processes differ in length) and then refine the
// bins that hold the percentiles (refine.go) in passes over the same workers.
//
// On a distributed trace (part.Remote: a skeleton whose events the ranks of an MPI job hold)
// every pass runs where the events are, through part.Run, and the result is built from the
// merged partials and the trace's definitions, identical to the local one: CommMatrix is one
// round of "profile.comm" over the trace's ranks; MessageHistogram the two rounds of
// "profile.sizes"; Boxes, CallMatrix and Compare (per run) one round of "profile.single" for
// series of one process, else "profile.boxes" and then one round of "profile.refine" per
// refinement pass (one on typical traces: few values fall in a percentile's bin, and they are
// collected). Messages matches sends with receives across all processes and does not run
// distributed: on a distributed trace it panics with an *Error saying so. The functions of
// one subset (CommMatrixOf, MessageSizeRange, MessageHistogramOf) need the events of their
// processes here and panic (trace.Process.NeedEvents) for processes whose events are not.
// Merging partials of other parameters (other ranks, bins, series, plans) or of processes
// present in both returns an error.
//
// Bad arguments panic with an *Error naming the function; interrupted work stops within a few
// milliseconds.
package profile
