package ccg

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Message matching (Knüpfer 3.4.5, 5.5; the matcher of package
// internal/p2p, shared with profile.Messages) and collective matching
// (3.4.6) across the locations of one or more graphs.
//
// Messages follows MPI's non-overtaking rule with both sides in posting
// order: the k-th send posted on (sender, receiver, communicator, tag) is
// received by the k-th receive posted for it, a non-blocking receive being
// posted at its MpiIrecvRequest (OTF2 writes MpiIrecv when MPI_Wait or
// MPI_Waitany completes it, in any order) and taking its envelope from its
// MpiIrecv of the same request id; cancelled requests (MpiRequestCancelled)
// take no part. This needs exact request ids: on a graph built with
// Requests: -1 the ids may be another call's, so they are ignored there,
// receives are matched in completion order and counted in Unposted
// (cancellations are then unknown). 4.5.5 replays the locations in phases
// of h events to bound the pending events; the result holds every message
// anyway, so the matcher computes the same pairs as a parallel join of
// channels and ordinals (internal/p2p), reading each location once, its
// iterators running in parallel. Sizes that differ, messages received
// before they are sent (lossy bounds can reverse them: Reversed), sends
// and receives without partner and receives never completed are counted
// and listed (Pending), never absorbed.
//
// Identity of senders and receivers: a message record's Peer is the
// partner's rank in the record's communicator. It is resolved to the
// partner's global rank through the communicator's group by
// trace.RankResolver (a "comm_group" lists, for each communicator rank, the
// rank in MPI_COMM_WORLD; a "comm_locations" group is MPI_COMM_WORLD
// itself; a "comm_self" group's rank 0 is the issuing location), and a
// global rank is taken to be the location group (Location.Rank) of that
// number, as in the traces Score-P writes. When the communicator or the
// rank cannot be resolved (no definitions, an undefined communicator, a
// rank outside its group), Peer is taken as the global rank and the event
// is counted in Unresolved.

// Message is one matched point-to-point message: a row of MessageMatch.
type Message struct {
	Sender, Receiver int   // indices into MessageMatch.Locations
	SendSeq, RecvSeq int64 // ordinal (from 0) of the send record and of the receive's completion record among their location's point-to-point records (MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiIsendComplete, MpiIrecvRequest, MpiRequestCancelled)
	Comm, Tag        int32
	Bytes            int64 // bytes of the send record
	RecvBytes        int64 // bytes of the receive record
	Send             int64 // time of the send (MpiSend, MpiIsend), ns
	RecvPosted       int64 // when the receive was posted (MpiIrecvRequest; the receive's own time when blocking), ns
	Recv             int64 // when the receive completed (MpiRecv, MpiIrecv), ns
}

// PendingEvent is a send or receive left without a partner, or a receive
// posted that never completed (Kind MpiIrecvRequest; Peer, Comm and Tag
// -1).
type PendingEvent struct {
	Location  int   // index into MessageMatch.Locations
	Seq       int64 // ordinal among the location's point-to-point records
	Kind      trace.EventKind
	Peer      int32 // the partner's global rank
	Comm, Tag int32
	Bytes     int64
	Time      int64 // ns
}

// MessageMatch is the result of Messages: the matched messages as columns,
// one entry per message, by send time, then sender and its order
// (Message(i) gives row i as one value), and what does not fit.
type MessageMatch struct {
	Sender, Receiver []int32 // indices into Locations
	SendSeq, RecvSeq []int64
	Comm, Tag        []int32
	Bytes, RecvBytes []int64
	Send, RecvPosted []int64
	Recv             []int64

	Pending   []PendingEvent // unmatched sends and receives, receives never completed; by location and posting time
	Locations []string       // names of the locations of the graphs, in argument order

	Events         int64 // point-to-point records visited
	SizeMismatches int64 // messages whose receive has other bytes than the send
	Reversed       int64 // messages received before they were sent (their times out of order: clocks, or lossy bounds)
	CancelledSends int64 // sends cancelled (MpiRequestCancelled): not matched
	CancelledRecvs int64 // receives cancelled
	Unposted       int64 // non-blocking receives without a posting record (Bounds.Requests -1 drops the ids): matched in completion order
	Strays         int64 // request records that fit no pending request
	Unresolved     int64 // records whose peer rank was taken as a global rank (see the package notes on identity)
	// Messages cut by a window (graphs built from a trace.Trace.Window,
	// Between, Main...: matched in the whole run): sent inside it and
	// received outside (CutSends), received inside and sent outside
	// (CutRecvs). Not in the table, not pending.
	CutSends, CutRecvs int64

	defs  *trace.Definitions
	ranks []int32 // the global rank of each location
}

// Len returns the number of matched messages.
func (m *MessageMatch) Len() int { return len(m.Send) }

// Message returns matched message i (0 <= i < Len()).
func (m *MessageMatch) Message(i int) Message {
	return Message{Sender: int(m.Sender[i]), Receiver: int(m.Receiver[i]), SendSeq: m.SendSeq[i], RecvSeq: m.RecvSeq[i], Comm: m.Comm[i],
		Tag: m.Tag[i], Bytes: m.Bytes[i], RecvBytes: m.RecvBytes[i], Send: m.Send[i], RecvPosted: m.RecvPosted[i], Recv: m.Recv[i]}
}

// Messages matches the point-to-point messages of all locations of the
// given graphs (of one trace) by MPI's non-overtaking rule, receives in
// posting order (the matcher of package internal/p2p, shared with
// profile.Messages; see the package notes on messages).
func Messages(gs ...*Graph) *MessageMatch { return match("ccg.Messages", gs) }

// mloc is one location taking part in a matching.
type mloc struct {
	g    *Graph
	l    *Location
	j    int     // index of l in g.locs
	cnt  []int64 // events of interest below each node of l's store
	rank int32
}

// locationsOf lists the locations of gs and the counts of the events of
// interest (want) below each node, one count array per store.
func locationsOf(fn string, gs []*Graph, want func(trace.EventKind) bool) ([]mloc, []string) {
	if len(gs) == 0 {
		fail(fn, "no graphs")
	}
	counts := map[*store][]int64{}
	type id struct {
		st   *store
		root uint32
		idx  int
	}
	seen := map[id]int{}
	var locs []mloc
	var names []string
	for i, g := range gs {
		if g == nil {
			fail(fn, "graph %d is nil", i)
		}
		c, ok := counts[g.st]
		if !ok {
			c = eventCounts(g.st, want)
			counts[g.st] = c
		}
		for j := range g.locs {
			l := &g.locs[j]
			k := id{g.st, l.Root, l.Index}
			if prev, dup := seen[k]; dup {
				fail(fn, "location %s (graph %d) is given twice (already as location %d)", l.Name, i, prev)
			}
			seen[k] = len(locs)
			locs = append(locs, mloc{g: g, l: l, j: j, cnt: c, rank: l.Rank})
			names = append(names, l.Name)
		}
	}
	return locs, names
}

// eventCounts counts, for every node of s, the atomic events below it
// whose kind want accepts. Children are stored before their parents.
func eventCounts(s *store, want func(trace.EventKind) bool) []int64 {
	c := make([]int64, len(s.nodes))
	for i := range s.nodes {
		if i&(1<<16-1) == 0 {
			work.Check()
		}
		nd := &s.nodes[i]
		if nd.kind == kAtomic {
			if want(trace.EventKind(nd.ev)) {
				c[i] = 1
			}
			continue
		}
		var n int64
		for _, k := range s.children(nd) {
			if int(k) >= i {
				panic(fmt.Sprintf("ccg: node %d has child %d stored after it", i, k))
			}
			n += c[k]
		}
		c[i] = n
	}
	return c
}

func isP2P(k trace.EventKind) bool {
	switch k {
	case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv, trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
		return true
	}
	return false
}

func match(fn string, gs []*Graph) *MessageMatch {
	defer work.RecoverAs(fn)
	locs, names := locationsOf(fn, gs, isP2P)
	defs := gs[0].defs
	m := &MessageMatch{Locations: names, defs: defs}
	var total int64
	for i := range locs {
		total += locs[i].cnt[locs[i].l.Root]
	}
	job := work.Start(fn, total, "events")
	defer job.Done()

	ranks := trace.NewRankResolver(defs)
	its := make([]*Iter, len(locs)) // made here: read runs them in parallel
	own := make([]int32, len(locs))
	free := make([]bool, len(locs)) // request ids free (Bounds.Requests < 0): not to be trusted
	for i := range locs {
		free[i] = locs[i].g.bounds.Requests < 0
		own[i] = locs[i].rank
		if locs[i].cnt[locs[i].l.Root] > 0 {
			its[i] = locs[i].g.Iter(locs[i].j)
		}
	}
	var unresolved atomic.Int64
	msgs, res := p2p.Match(own, func(i int, emit func(*p2p.Record)) {
		c := locs[i].l.clip
		if c != nil && c.Whole() {
			c = nil
		}
		if c != nil { // a window's location: the whole run's records before it, outside it
			outsideRecords(c.Source, 0, c.Lo, -int64(c.Lo)-1, ranks, own[i], free[i], emit)
		}
		it := its[i]
		if it == nil {
			if c != nil {
				outsideRecords(c.Source, c.Hi, len(c.Source.Kind), 1<<40, ranks, own[i], free[i], emit)
			}
			return
		}
		var rec p2p.Record
		var seq, since, unres int64
		defer func() {
			if c != nil { // and after it
				outsideRecords(c.Source, c.Hi, len(c.Source.Kind), 1<<40, ranks, own[i], free[i], emit)
			}
		}()
		for {
			e, ok := it.next(locs[i].cnt)
			if !ok {
				break
			}
			tick(job, &since)
			rec = p2p.Record{Kind: e.Kind, Peer: -1, Comm: -1, Tag: -1, Request: e.Request, Time: e.Time, Ref: seq}
			if free[i] { // the ids may be another call's: receives in completion order, cancellations unknown
				rec.Request = 0
				if e.Kind != trace.MpiSend && e.Kind != trace.MpiRecv && e.Kind != trace.MpiIsend && e.Kind != trace.MpiIrecv {
					seq++
					continue
				}
			}
			switch e.Kind {
			case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
				peer, ok := ranks.Global(e.Comm, e.Peer, own[i])
				if !ok {
					unres++
				}
				rec.Peer, rec.Comm, rec.Tag, rec.Bytes = peer, e.Comm, e.Tag, e.Bytes
			}
			emit(&rec)
			seq++
		}
		if err := job.Add(since); err != nil {
			panic(err)
		}
		unresolved.Add(unres)
	}, p2p.Columns{RecvBytes: true, Refs: true})
	m.Sender, m.Receiver, m.SendSeq, m.RecvSeq = msgs.SendLoc, msgs.RecvLoc, msgs.SendRef, msgs.RecvRef
	m.Comm, m.Tag, m.Bytes, m.RecvBytes = msgs.Comm, msgs.Tag, msgs.Bytes, msgs.RecvBytes
	m.Send, m.RecvPosted, m.Recv = msgs.Send, msgs.RecvPost, msgs.Recv
	m.Events, m.Unresolved, m.ranks = res.Records, unresolved.Load(), own
	m.CutSends, m.CutRecvs = res.CutSends, res.CutRecvs
	m.SizeMismatches, m.Reversed = int64(len(res.Mismatched)), res.Reversed
	m.CancelledSends, m.CancelledRecvs, m.Unposted, m.Strays = res.CancelledSends, res.CancelledRecvs, res.Unposted, res.Strays
	m.Pending = make([]PendingEvent, 0, len(res.Pending)+len(res.Incomplete))
	for _, list := range [][]p2p.End{res.Pending, res.Incomplete} {
		for _, p := range list {
			m.Pending = append(m.Pending, PendingEvent{Location: int(p.Loc), Seq: p.Ref, Kind: p.Kind, Peer: p.Peer, Comm: p.Comm, Tag: p.Tag,
				Bytes: p.Bytes, Time: p.Time})
		}
	}
	slices.SortStableFunc(m.Pending, func(a, b PendingEvent) int {
		return cmp.Or(cmp.Compare(a.Location, b.Location), cmp.Compare(a.Time, b.Time), cmp.Compare(a.Seq, b.Seq))
	})
	return m
}

// Unmatched returns the numbers of sends and receives left without a
// partner, and of receives posted that never completed.
func (m *MessageMatch) Unmatched() (sends, recvs, incomplete int64) {
	for _, p := range m.Pending {
		switch p.Kind {
		case trace.MpiSend, trace.MpiIsend:
			sends++
		case trace.MpiIrecvRequest:
			incomplete++
		default:
			recvs++
		}
	}
	return sends, recvs, incomplete
}

// Table returns one row per matched message, in the columns of
// profile.Messages (one builder, internal/p2p): Sender, Receiver (global
// ranks), Send Process, Recv Process (location names), Comm, Tag, Bytes
// (B) (sent), Send (ns), Recv Posted (ns), Recv (ns) and Latency (ns)
// (receive completion - send).
func (m *MessageMatch) Table() *arrowio.Table { return m.table(m.Len()) }

func (m *MessageMatch) table(n int) *arrowio.Table {
	return p2p.Table{SendLoc: m.Sender, RecvLoc: m.Receiver, Comm: m.Comm, Tag: m.Tag, Bytes: m.Bytes, Send: m.Send,
		RecvPost: m.RecvPosted, Recv: m.Recv, Ranks: m.ranks, Names: m.Locations, CommName: m.defs.CommName}.Build(n)
}

// PendingTable returns one row per unmatched send or receive and per
// receive never completed: location, kind ("send", "receive", "receive
// never completed"), partner rank, communicator, tag, bytes and time.
func (m *MessageMatch) PendingTable() *arrowio.Table {
	n := len(m.Pending)
	loc, kind, comm := make([]string, n), make([]string, n), make([]string, n)
	peer, tag := make([]int32, n), make([]int32, n)
	known := make([]bool, n)
	bytes, at := make([]int64, n), make([]int64, n)
	for i, p := range m.Pending {
		loc[i], kind[i] = m.Locations[p.Location], "receive"
		switch p.Kind {
		case trace.MpiSend, trace.MpiIsend:
			kind[i] = "send"
		case trace.MpiIrecvRequest:
			kind[i] = "receive never completed"
		}
		if known[i] = p.Comm >= 0; known[i] {
			comm[i] = m.defs.CommName(p.Comm)
		}
		peer[i], tag[i], bytes[i], at[i] = p.Peer, p.Tag, p.Bytes, p.Time
	}
	return arrowio.MustTable(arrowio.Dict("Location", loc), arrowio.Dict("Kind", kind), arrowio.NullableInt32("Peer Rank", peer, known),
		arrowio.NullableDict("Comm", comm, known), arrowio.NullableInt32("Tag", tag, known), arrowio.Int64("Bytes (B)", bytes).WithUnit("B"),
		arrowio.Int64("Time (ns)", at))
}

// String is the summary line: messages, bytes, unmatched events and what
// else does not fit.
func (m *MessageMatch) String() string {
	var bytes int64
	for _, b := range m.Bytes {
		bytes += b
	}
	s, r, inc := m.Unmatched()
	out := fmt.Sprintf("%s messages matched (%s bytes) on %d location(s); unmatched: %s sends, %s receives",
		arrowio.FormatCount(int64(m.Len())), arrowio.FormatCount(bytes), len(m.Locations), arrowio.FormatCount(s), arrowio.FormatCount(r))
	for _, x := range []struct {
		n    int64
		what string
	}{
		{m.SizeMismatches, "with other bytes received than sent"},
		{m.Reversed, "received before sent"},
		{inc, "receives posted never completed"},
		{m.CancelledSends + m.CancelledRecvs, "requests cancelled"},
		{m.Unposted, "receives without a posting record (matched in completion order)"},
		{m.Strays, "request records without their request"},
		{m.Unresolved, "events with a peer rank not resolved through its communicator"},
		{m.CutSends, "sent in the window and received outside it"},
		{m.CutRecvs, "received in the window and sent outside it"},
	} {
		if x.n > 0 {
			out += fmt.Sprintf("; %s %s", arrowio.FormatCount(x.n), x.what)
		}
	}
	return out
}

// headRows is the number of table rows MIMEBundle shows (messages, locations).
const headRows = 20

// MIMEBundle renders the summary line and the first messages.
func (m *MessageMatch) MIMEBundle() map[string]any {
	n := min(headRows, m.Len())
	tb := m.table(n).MIMEBundle()
	h, _ := tb["text/html"].(string)
	head := m.String()
	if n < m.Len() {
		head += fmt.Sprintf(" (first %d shown; Table() has all)", n)
	}
	return map[string]any{
		"text/plain": head + "\n" + fmt.Sprint(tb["text/plain"]),
		"text/html":  "<p>" + html.EscapeString(head) + "</p>" + h,
	}
}

// collOp is one collective operation of one location.
type collOp struct {
	begin, end  int64
	op          uint8
	root        uint32
	sent, recvd int64
}

// maxListed is the largest number of participants Collectives lists by
// name.
const maxListed = 16

// Collectives matches the collective operations of all locations of the
// given graphs (Knüpfer 3.4.6): per communicator, the k-th operation of
// each location that takes part in any operation on it forms instance k.
// A communicator of one member (a "comm_self" group, or a group with a
// single member) is a different communicator on every rank that uses it
// (OTF2 traces define MPI_COMM_SELF once for all ranks): its operations
// form instances per rank, never with other ranks.
// One row per instance: communicator, sequence number k (from 0, per rank
// on one-member communicators), op,
// root (communicator rank; null without a root), the number of
// participating locations and their names (index ranges into the graphs'
// locations beyond 16), the first begin (MpiCollectiveBegin; the end when a
// location recorded no begin) and the last end, the summed bytes sent and
// received, and a mismatch: "" when the participants agree, otherwise which
// ones have another op or root, which locations of the communicator
// have no k-th operation, and whether more ranks take part than the
// communicator's group has members.
func Collectives(gs ...*Graph) *arrowio.Table {
	const fn = "ccg.Collectives"
	defer work.RecoverAs(fn)
	isColl := func(k trace.EventKind) bool { return k == trace.MpiCollectiveBegin || k == trace.MpiCollectiveEnd }
	locs, names := locationsOf(fn, gs, isColl)
	var total int64
	for i := range locs {
		total += locs[i].cnt[locs[i].l.Root]
	}
	job := work.Start(fn, total, "events")
	defer job.Done()

	ops := make([]map[int32][]collOp, len(locs)) // per location, per communicator
	var comms []int32
	known := map[int32]bool{}
	var since int64
	for i := range locs {
		if locs[i].cnt[locs[i].l.Root] == 0 {
			continue
		}
		it := locs[i].g.Iter(locs[i].j)
		ops[i] = map[int32][]collOp{}
		begin, open := int64(0), false
		for {
			e, ok := it.next(locs[i].cnt)
			if !ok {
				break
			}
			tick(job, &since)
			if e.Kind == trace.MpiCollectiveBegin {
				begin, open = e.Time, true
				continue
			}
			if !open {
				begin = e.Time
			}
			open = false
			ops[i][e.Comm] = append(ops[i][e.Comm], collOp{begin: begin, end: e.Time, op: e.Op, root: e.Root, sent: e.Sent, recvd: e.Received})
			if !known[e.Comm] {
				known[e.Comm] = true
				comms = append(comms, e.Comm)
			}
		}
	}
	job.Add(since)
	slices.Sort(comms)

	defs := gs[0].defs
	var cName, opName, who, bad []string
	var seq, first, last, sent, recvd, root []int64
	var rootOK []bool
	var count []int32
	for _, c := range comms {
		size := commSize(defs, c)
		var users []int
		for i := range locs {
			if len(ops[i][c]) > 0 {
				users = append(users, i)
			}
		}
		// the sets of locations whose k-th operations form instance k: all
		// users, or the users of each rank on a one-member communicator
		var domains [][]int
		if size == 1 {
			byRank := map[int32][]int{}
			var ranks []int32
			for _, i := range users {
				r := locs[i].rank
				if _, ok := byRank[r]; !ok {
					ranks = append(ranks, r)
				}
				byRank[r] = append(byRank[r], i)
			}
			slices.Sort(ranks)
			for _, r := range ranks {
				domains = append(domains, byRank[r])
			}
		} else {
			domains = [][]int{users}
		}
		for _, members := range domains {
			n := 0
			for _, i := range members {
				n = max(n, len(ops[i][c]))
			}
			for k := range n {
				work.Check()
				var part, missing []int
				for _, i := range members {
					if len(ops[i][c]) > k {
						part = append(part, i)
					} else {
						missing = append(missing, i)
					}
				}
				o0 := ops[part[0]][c][k]
				r := collOp{begin: o0.begin, end: o0.end}
				byOp, byRoot := map[uint8][]int{}, map[uint32][]int{}
				var opOrder []uint8
				var rootOrder []uint32
				for _, i := range part {
					o := ops[i][c][k]
					r.begin, r.end = min(r.begin, o.begin), max(r.end, o.end)
					r.sent += o.sent
					r.recvd += o.recvd
					if _, ok := byOp[o.op]; !ok {
						opOrder = append(opOrder, o.op)
					}
					byOp[o.op] = append(byOp[o.op], i)
					if _, ok := byRoot[o.root]; !ok {
						rootOrder = append(rootOrder, o.root)
					}
					byRoot[o.root] = append(byRoot[o.root], i)
				}
				var msgs []string
				if len(opOrder) > 1 {
					var s []string
					for _, op := range opOrder {
						s = append(s, trace.CollectiveOpName(op)+" on "+listLocations(names, byOp[op]))
					}
					msgs = append(msgs, "ops differ: "+strings.Join(s, "; "))
				}
				if len(rootOrder) > 1 {
					var s []string
					for _, rt := range rootOrder {
						s = append(s, rootString(rt)+" on "+listLocations(names, byRoot[rt]))
					}
					msgs = append(msgs, "roots differ: "+strings.Join(s, "; "))
				}
				if len(missing) > 0 {
					msgs = append(msgs, "missing: "+listLocations(names, missing))
				}
				if size > 1 {
					ranks := map[int32]bool{}
					for _, i := range part {
						ranks[locs[i].rank] = true
					}
					if len(ranks) > size {
						msgs = append(msgs, fmt.Sprintf("%d ranks take part in a communicator of %d members", len(ranks), size))
					}
				}
				cName, opName = append(cName, defs.CommName(c)), append(opName, trace.CollectiveOpName(o0.op))
				seq, first, last = append(seq, int64(k)), append(first, r.begin), append(last, r.end)
				root, rootOK = append(root, int64(o0.root)), append(rootOK, o0.root != trace.RootNone)
				count, who = append(count, int32(len(part))), append(who, listLocations(names, part))
				sent, recvd, bad = append(sent, r.sent), append(recvd, r.recvd), append(bad, strings.Join(msgs, "; "))
			}
		}
	}
	return arrowio.MustTable(arrowio.Dict("Comm", cName), arrowio.Int64("Seq", seq), arrowio.Dict("Op", opName),
		arrowio.NullableInt64("Root", root, rootOK), arrowio.Int32("Locations", count), arrowio.String("Participants", who),
		arrowio.Int64("First Begin (ns)", first).WithUnit("ns"), arrowio.Int64("Last End (ns)", last).WithUnit("ns"),
		arrowio.Int64("Bytes Sent (B)", sent).WithUnit("B"), arrowio.Int64("Bytes Received (B)", recvd).WithUnit("B"), arrowio.String("Mismatch", bad))
}

// commSize returns the number of members of communicator c's group: 1
// for a "comm_self" group, 0 when the definitions do not say.
func commSize(defs *trace.Definitions, c int32) int {
	if defs == nil || c < 0 || int(c) >= len(defs.Comms) {
		return 0
	}
	g := defs.Comms[c].Group
	if g < 0 || int(g) >= len(defs.Groups) {
		return 0
	}
	if defs.Groups[g].Type == "comm_self" {
		return 1
	}
	return len(defs.Groups[g].Members)
}

func rootString(r uint32) string {
	if r == trace.RootNone {
		return "no root"
	}
	return fmt.Sprintf("root %d", r)
}

// listLocations names the locations idx (ascending), or gives their index
// ranges when there are more than maxListed.
func listLocations(names []string, idx []int) string {
	if len(idx) <= maxListed {
		s := make([]string, len(idx))
		for j, i := range idx {
			s[j] = names[i]
		}
		return strings.Join(s, ", ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d locations ", len(idx))
	for j := 0; j < len(idx); {
		k := j
		for k+1 < len(idx) && idx[k+1] == idx[k]+1 {
			k++
		}
		if j > 0 {
			b.WriteString(", ")
		}
		if k > j {
			fmt.Fprintf(&b, "#%d-%d", idx[j], idx[k])
		} else {
			fmt.Fprintf(&b, "#%d", idx[j])
		}
		j = k + 1
	}
	return b.String()
}

// outsideRecords emits the point-to-point records of events [lo, hi) of p
// (a process of the whole run) as outside the caller's window, Refs from
// ref0 on.
func outsideRecords(p *trace.Process, lo, hi int, ref0 int64, ranks *trace.RankResolver, own int32, free bool, emit func(*p2p.Record)) {
	msgs := &p.Msgs
	var rec p2p.Record
	for j := lo; j < hi; j++ {
		if j&(1<<16-1) == 0 {
			work.Check()
		}
		k := p.Kind[j]
		if !isP2P(k) {
			continue
		}
		row := p.Ref[j]
		rec = p2p.Record{Kind: k, Peer: -1, Comm: -1, Tag: -1, Request: msgs.Request[row], Time: p.Time[j], Ref: ref0 + int64(j-lo), Outside: true}
		if free {
			rec.Request = 0
			if k != trace.MpiSend && k != trace.MpiRecv && k != trace.MpiIsend && k != trace.MpiIrecv {
				continue
			}
		}
		switch k {
		case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
			peer, _ := ranks.Global(msgs.Comm[row], msgs.Peer[row], own)
			rec.Peer, rec.Comm, rec.Tag, rec.Bytes = peer, msgs.Comm[row], msgs.Tag[row], msgs.Bytes[row]
		}
		emit(&rec)
	}
}

// tick counts one event of job, reporting progress (and stopping at an
// interrupt) every 4,096 events.
func tick(job *work.Job, since *int64) {
	if *since++; *since == 4096 {
		if err := job.Add(*since); err != nil {
			panic(err)
		}
		*since = 0
	}
}
