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
// posting order (MPI_Waitany returns any completed request), so Run first
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
//     of one thread only; the matcher takes their operations in its
//     visiting order (below).
//
// Mismatches are reported, never absorbed: a match whose receive has other
// bytes than its send (SizeMismatches) or completes before the send was
// posted (Reversed) is counted, and the callers list them; operations left
// without a partner are listed in Result.Pending.
//
// # Matching
//
// Run keeps one FIFO of pending operations per (sender, receiver,
// communicator, tag) (eq. 4.33 keys them by issuer too; one list never
// holds both): an operation takes the oldest pending partner, or is
// queued itself when there is none. Each location keeps its own map from
// (partner, communicator, tag, issuer) to the list, so the shared map is
// consulted once per channel and location. The locations are visited in
// phases of h operations each, round robin, so the pending operations
// stay proportional to h (Fig. 5.34); with one location per rank the
// matches do not depend on h. The posting stage holds, per location, the
// operations posted since its oldest unresolved request (a window of one
// exchange in practice; the whole rest of the location when a request is
// never resolved).
//
// Results are the callers' own columns: match hands each message over
// once, and StableOrder (a radix sort) orders them by send time without
// a comparison sort.
//
// # Many machines
//
// The posting stage is per location; the matcher merges the streams of
// any subset of locations (ccg.Messages of graphs built elsewhere).
// Messages whose partner is outside the subset are left pending.
package p2p
