// Package p2p matches MPI point-to-point sends and receives (Knüpfer
// 3.4.5, 4.5.5, 5.5): the one matcher of ccg.Messages (driven from a
// graph's iterators) and profile.Messages (driven from a trace's event
// columns).
//
// # Method
//
// Knüpfer 3.4.5: "Messages match according to sender, receiver,
// communicator and tag parameters and according to temporal order. If
// sender, receiver, communicator and tag are equal for successive
// messages, then they must be delivered in same order as sent." The MPI
// standard (3.5, "Order") states the order for both sides: a receive
// "cannot receive the second message if the first one is still pending",
// and "if a receiver posts two receives in succession, and both match the
// same message, then the second receive operation cannot be satisfied by
// this message, if the first one is still pending". So the k-th send
// posted by rank a to rank b on communicator c with tag t is received by
// the k-th receive that b posted for (a, c, t): both sides in POSTING
// order.
//
// OTF2 records a non-blocking receive twice: MpiIrecvRequest (request id
// only) where it is posted, MpiIrecv (envelope and request id) where it
// completes, in MPI_Wait, MPI_Waitany, MPI_Test... Completion order is not
// posting order (MPI_Waitany returns any completed request), so Match first
// puts each location's records into posting order (the posting stage): a
// send is posted at its record (MpiSend, MpiIsend); a receive at its
// MpiIrecvRequest, with the envelope of the MpiIrecv of the same request
// id, or at its own record when blocking (MpiRecv) or when no
// MpiIrecvRequest with its id is pending (counted in Result.Unposted:
// its order is then that of its completion). Wildcards (MPI_ANY_SOURCE,
// MPI_ANY_TAG) are resolved in the completion record, as 3.4.5 requires
// of the measurement. A request is pending from its creating record
// (MpiIsend, MpiIrecvRequest) to its completion (MpiIsendComplete,
// MpiIrecv) or cancellation (MpiRequestCancelled), after which its id may
// be reused.
//
// Choices where neither the seed nor MPI decides:
//   - A cancelled request (MpiRequestCancelled while pending) was never
//     sent or received: it is dropped and counted (CancelledSends,
//     CancelledRecvs). A non-blocking send goes to the matcher only when
//     its completion (or cancellation) is read or the location's records
//     end, since a later cancellation must keep it out.
//   - A non-blocking send whose completion is never recorded (freed with
//     MPI_Request_free, or the trace ends) was posted: it is matched.
//   - A receive posted (MpiIrecvRequest) that neither completes nor is
//     cancelled has no envelope: it takes no message and is listed in
//     Result.Incomplete.
//   - Request records that fit no pending request (a completion or
//     cancellation of an unknown or finished id, an id reused while
//     pending, a completion of the other kind) are counted in Strays; a
//     request so overtaken is settled as above.
//   - Several locations of one rank (threads): MPI orders the operations
//     of one thread only ("the semantics of thread execution may not
//     define a relative order between two send operations executed by two
//     distinct threads"); Match takes a rank's operations in the order of
//     their posting times, ties by location (in the callers' order) and
//     then by their order in the location.
//
// Mismatches are reported, never absorbed: a match whose receive has other
// bytes than its send (Result.Mismatched) or completes before the send was
// posted (Reversed) is counted, and the callers list them; operations left
// without a partner are listed in Result.Pending.
//
// # Matching
//
// Knüpfer 4.5.5 replays the streams with one FIFO of pending events per
// (sender, receiver, communicator, tag, issuer), visiting the locations in
// phases of h events so that the pending events stay proportional to h
// (Fig. 5.34). The result here holds every message anyway, so Match
// computes the same relation as a join instead, which runs on all cores:
//
//  1. per rank (in parallel; the per-process part): the posting stage, for
//     each operation its channel (partner, communicator, tag, issuer) and
//     its ordinal k on that channel, and its receives stored by channel
//     and ordinal;
//  2. the channels joined: each send channel (a, b, c, t) of rank a meets
//     the receive channel (a, b, c, t) of rank b (a radix sort of the
//     channel keys, no rank reads another rank's tables);
//  3. all sends by time (a parallel radix sort, stable, so ties stay by
//     location and order), and the k-th send of each channel written with
//     the k-th receive of its channel to its row, each core writing the
//     rows of one range of times.
//
// Operations without a partner are the sends and receives beyond the
// shorter side of their channel. Every step polls work.Check. Besides the
// result's columns (48 bytes a message, 64 with RecvBytes and the Refs),
// the matching holds 24 bytes a send and 36 a receive (8 more each with
// the Refs), and the send order's radix sort 24 bytes a send for a moment.
//
// # Many machines
//
// Step 1 is per rank and needs nothing else: a machine holding some ranks
// computes their channels and ordinals, and the join (steps 2-3) merges the
// parts of any subsets (ccg.Messages of graphs built elsewhere matches
// their locations together). Messages whose partner is outside the subset
// are left pending.
package p2p
