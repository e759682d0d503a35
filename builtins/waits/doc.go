// Package waits says why time is lost, not only where: the wait states of a
// run's MPI operations with the location that caused each one, the delays
// on those locations that caused them, and the critical path of the run.
//
//	r := waits.Analyze(tr)  // headline, waiting per kind and call path, heatmap of waiting over time
//	r.Instances()           // every wait state: kind, call, waiting time, culprit
//	r.Processes()           // per location: waiting per kind, waiting it caused, time on the critical path
//	r.Delays()              // per kind and call path on the culprits: the waiting their excess time caused
//	r.CriticalPath()        // per call path: time on the critical path, its mean per location, imbalance
//	r.Segments()            // the critical path, piece by piece
//	r.Timeline()            // the trace's timeline with the critical path shaded
//	waits.Explain(c)        // which differences of compare.Runs lie on the critical path
//	waits.ExplainAlignment(a) // the same for align.Runs
//
// # Wait states
//
// The definitions are Scalasca's performance properties (the "MPI" patterns
// of Scalasca's trace analyser SCOUT; Geimer, Wolf, Wylie, Ábrahám, Becker,
// Mohr, "The Scalasca performance toolset architecture", Concurrency and
// Computation 22(6), 2010; the properties are documented with Scalasca as
// "Scalasca performance properties"). Each is measured on one MPI call of
// one location, the innermost region instance enclosing the operation's
// record whose region is MPI (paradigm "mpi", or a name beginning with
// "MPI_"); a record outside every MPI call is a call of its own, of no
// duration (it cannot wait). Times are the calls' Enter and Leave.
//
//   - Late Sender: a receive call (MPI_Recv, MPI_Wait*, MPI_Sendrecv...; not
//     MPI_Test*) entered before the call of its message's send:
//     min(send Enter, receive Leave) - receive Enter. A call completing
//     several messages (MPI_Waitall) counts once, for the latest sender.
//   - Late Receiver: a send that completes in a blocking call (MPI_Send,
//     MPI_Ssend, MPI_Rsend, MPI_Sendrecv; an MPI_Isend completed by
//     MPI_Wait), entered before the receive was posted, when that call was
//     still running then: receive posting Enter - send call Enter. OTF2
//     does not record the send mode or the protocol, so whether a send had
//     to wait is inferred, as Scalasca does, from the overlap; MPI_Bsend
//     never waits; an MPI_Isend completed by MPI_Waitall is not counted.
//   - Wait at Barrier: MPI_Barrier until the last participant entered.
//     Barrier Completion: after the first participant left (no culprit).
//   - Wait at N×N (MPI_Allreduce, MPI_Allgather(v), MPI_Alltoall,
//     MPI_Reduce_scatter(_block)): until the last participant that sends
//     data entered; participants that receive nothing do not wait. N×N
//     Completion: of the participants that send and receive, after the
//     first of them to leave. MPI_Alltoallv and
//     MPI_Alltoallw have none (their counts may be zero), as in Scalasca.
//   - Late Broadcast (MPI_Bcast, MPI_Scatter(v)): a receiving participant
//     until the root entered.
//   - Early Reduce (MPI_Reduce, MPI_Gather(v)): the root until the first
//     sending participant entered.
//   - Early Scan (MPI_Scan, MPI_Exscan): until the last of the ranks up to
//     one's own entered.
//
// When several participants enter last at the same time, the culprit is
// the first of them in location order. Every waiting time is cut at the
// call's Leave; a wait whose culprit entered after it (clocks out of step)
// is marked Clipped. Messages are
// matched in posting order by the matcher of profile.Messages (package
// internal/p2p: the k-th send to a rank on a communicator and tag meets
// that rank's k-th receive posted for it). A collective instance is the
// k-th collective operation of every location on one communicator (MPI
// requires the same order on all members); instances whose participants
// record different operations or roots, or that miss members of the
// communicator's group (a window or a subset of the processes), are left
// out and counted (Skipped).
//
// # Delay
//
// Böhme, Geimer, Wolf, Arnold, "Identifying the root causes of wait states
// in large-scale parallel applications" (ICPP 2010): a wait state is caused
// by a delay, excess time on the culprit in the synchronisation interval
// before the operation. Here the interval on each side runs from the two
// locations' previous synchronisation point (the latest earlier message
// between them, or collective instance they both took part in, that comes
// before the wait on both sides; of several messages ending in the waiter's
// call, the one with the culprit's latest call) to the operation's call.
// The culprit's excess is, per call path, its execution time minus the
// waiter's (the waiting portions of calls, [Enter, Enter+wait] of their
// waits with a culprit, are not execution time), and its waiting time minus
// the waiter's: a culprit late because it waited itself passes the cost on.
// Each wait's cost, its waiting time plus what later waits passed on to it,
// is split in proportion to the culprit's positive excesses: the shares of
// the call paths are its delay costs (short-term for the wait's own time,
// long-term for what was passed on to it; Delays shows their sum, under
// the kind of the wait the delay caused directly), the share of the
// waiting goes to the culprit's waits in the interval, in proportion to
// their waiting times. Waits are taken latest end first (ties by location,
// call, kind); integer ns, floors, each remainder to the largest share
// (ties by call path name, or the first wait). The culprit's excess
// waiting counts all its waits with a culprit; what passes on is shared
// among those that are not clipped. A cost whose culprit has no excess, or
// whose culprit's waits in the interval are all clipped, is not attributed
// (Unattributed): the costs and it sum to the waiting that has
// a culprit. Delay Cost per location (Processes) are the root causes: a
// slow rank whose neighbours wait for it, and make others wait in turn,
// carries the cost of all of it.
//
// # Critical path
//
// Böhme, de Supinski, Geimer, Schulz, Wolf, "Scalable critical-path based
// performance analysis" (IPDPS 2012): the path is found by a backward replay
// from the run's last event. On a location the path runs back to the end
// of the latest wait that has a culprit, jumps to the culprit at the time
// it entered its call, and continues there with the calls before it, until
// a location's first event. So the path holds no waiting that has a
// culprit (clipped waits and the completion times are not followed and
// stay on it), and its length is the run's length from the first event of
// the location where it begins. The path's time per call path (CriticalPath) sums to its length;
// Imbalance divides it by the call path's mean time per location: a call
// path whose critical-path time exceeds its mean holds the run up by its
// imbalance (Böhme et al.'s critical-path imbalance indicator, as a ratio).
// A test checks the replay against the exhaustive longest path of the run's
// dependency graph on small random runs.
//
// # Many machines
//
// The per-location part (method "waits.calls" of the partial contract:
// each location's communicating MPI calls, its point-to-point and
// collective records, and its time per call path between the calls) is
// computed where the events are, on every core or on the ranks of an MPI
// job, and merged. The matching, the wait states, the delays and the
// replay need every location's partners, so they run where the merged part
// is; what they read is a small fraction of the events (Replay).
package waits
