// Package compare compares two runs of any scale in one call: the same program at 32 and 64
// ranks, or two code versions. Both runs' processes are grouped by call structure together,
// the groups are matched across the runs, and every view compares matched groups per process,
// ranked by what the change costs, so that the first row is the answer.
//
//	r := compare.Runs(a, b) // headline: what changed and what it cost; the ranked changes; the figure
//	r.Groups()              // the groups of both runs, matched: equal, similar (pairsim), only in A, only in B
//	r.Tree()                // the call trees of matched groups diffed, with only-in-A/B and different callees
//	r.Functions()           // per function and group: time per process in each run, change, cost, verdict
//	r.Comm()                // per group: messages, bytes and partners per process in each run
//	r.Where()               // representatives aligned: the single calls whose time changed most
//	r.Plot()                // group sizes per run, the diffed tree coloured by change, the costliest changes
//	r.Table()               // the main table: Functions
//
// # Method
//
// Groups (Weber 2016, 5.1; structural clustering, SC IV-VIII). Each process of either run is
// described by its caller->callee pairs with the virtual root ε, by function name (Weber eq.
// 5.2), so processes of two runs and of two code versions are comparable. Processes of both
// runs with equal pair sets form one group: its state is "equal". This is hash clustering
// (Weber 5.1.2) over the union of both runs' processes, identified by (run, rank, thread); the
// Hash columns are cluster.Structural's. Groups of one run left unmatched are then matched to
// groups of the other by pairsim (Weber eq. 5.2, cluster.Jaccard of the groups' pair sets),
// the most similar pair first, each group at most once, while pairsim is at least σ
// (WithSigma, default cluster.DefaultSigma = 0.83: the σ of SC VIII.B): "similar". The rest
// are "only in A" or "only in B", with the most similar group of the other run named in
// Groups. Comparing matched groups rather than whole runs is SC VIII.C's differential
// profiling ("a performance comparison of two executions then compares matching pairs of
// behavior groups"). WithMapping matches by a key of the user's instead (Intel Trace Analyzer's
// way); WithMatchByRank pairs the locations of equal rank and thread.
//
// The similarity of two groups is computed directly from their pair sets: it is the value the
// concept lattice of SC VI.B gives (the lattice only makes it cheaper for thousands of groups;
// a comparison has few).
//
// Per process. Every quantity is per process of a group: its mean over the group's processes
// (with 0 for a process that never calls the function) and its maximum with the process of
// the maximum, so runs of different sizes compare. Time is exclusive time for functions
// (Functions) and inclusive time for call paths (Tree), from each process's call tree (the
// intervals in which the measurement was off are not subtracted here). Cost is the change per
// process weighted by the group's share of the processes (the mean of its shares in the two
// runs): a change on one process of thousands ranks below the same change on all of them.
// Rows of set-up and tear-down (trace.SetUp: MPI_Init, MPI_Finalize, ...) rank last: their
// differences are mostly launch skew. The headline splits the change of the runs' time per
// process by role (computation, synchronisation, set-up; trace.DefaultSync), exactly: per run
// each role's time over all processes divided by the run's processes.
//
// Scaling efficiency, for runs of different process counts: strong scaling T_A·P_A / (T_B·P_B)
// with T the group's mean time per process and P the run's processes (1 is perfect scaling,
// 0.5 means twice the total time); WithWeakScaling gives T_A / T_B.
//
// Verdict: a two-sided Wilcoxon-Mann-Whitney rank-sum test of the per-process times of the two
// runs at the 1% level, only when both sides have at least MinVerdictProcesses processes
// ("few processes" otherwise); "only in A" and "only in B" for functions of one run.
//
// The diffed tree follows hatchet's diff of call-tree profiles (the union of the call paths,
// marked only in A or B), with the state of Weber 5.2's merged tree: a path whose callees, or
// the order of their first calls, differ between the runs is "different", and Note lists both.
//
// Where (Weber ch. 3-4, SC VIII.D): per matched group, the process of the median time of each
// run is chosen as its representative, the two are aligned hierarchically (align.Pair), and
// the aligned calls of the same function are ranked by the change of their exclusive time.
//
// # Many machines
//
// The per-process part is the method "compare.summary" of the partial contract
// (builtins/part, SummaryMethod): per process its call paths by name with calls, inclusive and
// exclusive time and order of first call, and its message and collective counts; summaries of
// disjoint subsets merge exactly. Runs computes both runs' summaries with part.Run (one subset
// per core); everything after works on the two merged summaries, whose size is processes x
// distinct call paths. WithMapping calls the user's function on each process at the root.
//
// A distributed run (a skeleton trace whose events are on the ranks of a job, part.Remote)
// compares like a local one, with the same result: its summary is computed on the job (one
// round) and Where brings the events of every matched group's representative of that run to
// the notebook first (part.Fetch, one round for all of them).
package compare
