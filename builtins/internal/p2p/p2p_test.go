package p2p

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// pair is one matched message, for comparisons.
type pair struct {
	Comm, Tag            int32
	SendLoc, RecvLoc     int32
	Bytes, RecvBytes     int64
	Send, RecvPost, Recv int64
	SendRef, RecvRef     int64
}

type result struct {
	*Result
	Matches []pair // by sending location and Ref
}

func byLocRef(a, b pair) int {
	return cmp.Or(cmp.Compare(a.SendLoc, b.SendLoc), cmp.Compare(a.SendRef, b.SendRef))
}

// run feeds Match from per-location record lists; it checks the order of
// the messages (send time, location, Ref) and returns them by sending
// location and Ref.
func run(t *testing.T, ranks []int32, recs [][]Record) result {
	t.Helper()
	m, r := Match(ranks, func(i int, emit func(*Record)) {
		for j := range recs[i] {
			e := recs[i][j] // emit may not keep or change it
			emit(&e)
		}
	}, Columns{RecvBytes: true, Refs: true})
	var ps []pair
	for i := range m.Len() {
		ps = append(ps, pair{Comm: m.Comm[i], Tag: m.Tag[i], SendLoc: m.SendLoc[i], RecvLoc: m.RecvLoc[i], Bytes: m.Bytes[i], RecvBytes: m.RecvBytes[i],
			Send: m.Send[i], RecvPost: m.RecvPost[i], Recv: m.Recv[i], SendRef: m.SendRef[i], RecvRef: m.RecvRef[i]})
		if i > 0 && cmp.Or(cmp.Compare(m.Send[i-1], m.Send[i]), byLocRef(ps[i-1], ps[i])) >= 0 {
			t.Fatalf("messages %d and %d out of order: %+v, %+v", i-1, i, ps[i-1], ps[i])
		}
	}
	slices.SortFunc(ps, byLocRef)
	return result{r, ps}
}

// ---- the reference: MPI's rule applied to each location's records ----

type refOp struct {
	End
	li  int // the location's place among its rank's locations
	pos int // ordinal among the location's posted operations
}

// isRequest tells the records that carry a request id.
func isRequest(k trace.EventKind) bool {
	switch k {
	case trace.MpiIsend, trace.MpiIrecv, trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
		return true
	}
	return false
}

func creates(k trace.EventKind) bool { return k == trace.MpiIsend || k == trace.MpiIrecvRequest }

// sameReq returns the index of the nearest record before (dir -1) or after
// (dir 1) j with j's request id, or -1.
func sameReq(recs []Record, j, dir int) int {
	req := recs[j].Request
	for i := j + dir; i >= 0 && i < len(recs); i += dir {
		if isRequest(recs[i].Kind) && recs[i].Request == req {
			return i
		}
	}
	return -1
}

// postings applies the definitions of the package notes record by record,
// looking forward and backward for the records of the same request (no
// state): the operations each location posts, in posting order, and what
// is cancelled, incomplete or stray.
func postings(recs []Record, loc int32, res *Result) (ops []refOp) {
	pos := 0
	kindOf := func(i int) trace.EventKind {
		if i < 0 {
			return 255
		}
		return recs[i].Kind
	}
	for j, e := range recs {
		res.Records++
		o := refOp{End: End{Loc: loc, Kind: e.Kind, Peer: e.Peer, Comm: e.Comm, Tag: e.Tag, Bytes: e.Bytes, Post: e.Time, Time: e.Time, Ref: e.Ref}}
		prev, next := -1, -1
		if e.Request != 0 {
			prev, next = sameReq(recs, j, -1), sameReq(recs, j, 1)
		}
		if creates(e.Kind) && e.Request != 0 && creates(kindOf(prev)) {
			res.Strays++ // an id reused while pending
		}
		switch e.Kind {
		case trace.MpiSend, trace.MpiIsend:
			o.Send, o.pos = true, pos
			pos++
			if e.Kind == trace.MpiIsend && e.Request != 0 && kindOf(next) == trace.MpiRequestCancelled {
				res.CancelledSends++
				continue
			}
			ops = append(ops, o)
		case trace.MpiRecv:
			o.pos = pos
			pos++
			ops = append(ops, o)
		case trace.MpiIrecvRequest:
			if e.Request == 0 {
				res.Strays++
				continue
			}
			o.pos = pos
			pos++
			switch kindOf(next) {
			case trace.MpiIrecv:
				c := recs[next]
				o.Kind, o.Peer, o.Comm, o.Tag, o.Bytes, o.Time, o.Ref = c.Kind, c.Peer, c.Comm, c.Tag, c.Bytes, c.Time, c.Ref
				ops = append(ops, o)
			case trace.MpiRequestCancelled:
				res.CancelledRecvs++
			default:
				res.Incomplete = append(res.Incomplete, End{Loc: loc, Kind: trace.MpiIrecvRequest, Peer: -1, Comm: -1, Tag: -1,
					Post: e.Time, Time: e.Time, Ref: e.Ref})
			}
		case trace.MpiIrecv:
			if e.Request != 0 && kindOf(prev) == trace.MpiIrecvRequest {
				continue // posted at its request
			}
			if e.Request != 0 && kindOf(prev) == trace.MpiIsend {
				res.Strays++
			}
			res.Unposted++
			o.pos = pos
			pos++
			ops = append(ops, o)
		case trace.MpiIsendComplete:
			if kindOf(prev) != trace.MpiIsend {
				res.Strays++
			}
		case trace.MpiRequestCancelled:
			if !creates(kindOf(prev)) {
				res.Strays++
			}
		default:
			res.Records--
		}
	}
	slices.SortStableFunc(ops, func(a, b refOp) int { return cmp.Compare(a.pos, b.pos) })
	return ops
}

// reference matches by the non-overtaking rule: per (sender, receiver,
// comm, tag), the k-th send posted with the k-th receive posted, the
// operations of a rank's locations by posting time, then location.
func reference(ranks []int32, recs [][]Record) result {
	res := result{Result: &Result{}}
	byRank := map[int32][]refOp{}
	var order []int32
	seen := map[int32]int{}
	for li, rs := range recs {
		ops := postings(rs, int32(li), res.Result)
		g := ranks[li]
		if _, ok := seen[g]; !ok {
			order = append(order, g)
		}
		for i := range ops {
			ops[i].li = seen[g]
		}
		seen[g]++
		byRank[g] = append(byRank[g], ops...)
	}
	type ch struct{ from, to, comm, tag int32 }
	sends, recvs := map[ch][]refOp{}, map[ch][]refOp{}
	var chans []ch
	for _, g := range order {
		ops := byRank[g]
		slices.SortStableFunc(ops, func(a, b refOp) int { return cmp.Or(cmp.Compare(a.Post, b.Post), cmp.Compare(a.li, b.li)) })
		for _, o := range ops {
			c := ch{g, o.Peer, o.Comm, o.Tag}
			if !o.Send {
				c.from, c.to = o.Peer, g
			}
			if sends[c] == nil && recvs[c] == nil {
				chans = append(chans, c)
			}
			if o.Send {
				sends[c] = append(sends[c], o)
			} else {
				recvs[c] = append(recvs[c], o)
			}
		}
	}
	for _, c := range chans {
		s, r := sends[c], recvs[c]
		for k := range min(len(s), len(r)) {
			p := pair{Comm: c.comm, Tag: c.tag, SendLoc: s[k].Loc, RecvLoc: r[k].Loc, Bytes: s[k].Bytes, RecvBytes: r[k].Bytes,
				Send: s[k].Time, RecvPost: r[k].Post, Recv: r[k].Time, SendRef: s[k].Ref, RecvRef: r[k].Ref}
			res.Matches = append(res.Matches, p)
			if p.Bytes != p.RecvBytes {
				res.Mismatched = append(res.Mismatched, [2]End{
					{Loc: s[k].Loc, Kind: s[k].Kind, Send: true, Peer: c.to, Comm: c.comm, Tag: c.tag, Bytes: s[k].Bytes, Post: s[k].Post, Time: s[k].Time, Ref: s[k].Ref},
					{Loc: r[k].Loc, Kind: r[k].Kind, Peer: c.from, Comm: c.comm, Tag: c.tag, Bytes: r[k].Bytes, Post: r[k].Post, Time: r[k].Time, Ref: r[k].Ref}})
			}
			if p.Recv < p.Send {
				res.Reversed++
			}
		}
		for _, o := range s[min(len(s), len(r)):] {
			res.Pending = append(res.Pending, o.End)
		}
		for _, o := range r[min(len(s), len(r)):] {
			res.Pending = append(res.Pending, o.End)
		}
	}
	byLoc := func(a, b End) int {
		return cmp.Or(cmp.Compare(a.Loc, b.Loc), cmp.Compare(a.Post, b.Post), cmp.Compare(a.Ref, b.Ref))
	}
	slices.SortFunc(res.Pending, byLoc)
	slices.SortFunc(res.Incomplete, byLoc)
	slices.SortFunc(res.Mismatched, func(a, b [2]End) int { return byLoc(a[0], b[0]) })
	slices.SortFunc(res.Matches, byLocRef)
	return res
}

// randRecords writes a location's records: blocking and non-blocking
// sends and receives, requests completed in any order (MPI_Waitany),
// cancelled, reused or never completed, and stray request records.
func randRecords(rng *rand.Rand, nranks, n int) []Record {
	var recs []Record
	type open struct {
		req  int64
		send bool
	}
	var pending []open
	var nextReq int64 = 1
	t := int64(0)
	env := func(k trace.EventKind) Record {
		return Record{Kind: k, Peer: int32(rng.IntN(nranks)), Comm: int32(rng.IntN(2)), Tag: int32(rng.IntN(2)), Bytes: int64(100 * (1 + rng.IntN(2)))}
	}
	newReq := func() int64 {
		if len(pending) > 0 && rng.IntN(20) == 0 {
			return pending[rng.IntN(len(pending))].req // reused while pending
		}
		if rng.IntN(40) == 0 {
			return 0
		}
		nextReq++
		return nextReq - 1
	}
	for len(recs) < n {
		t += int64(rng.IntN(3))
		var e Record
		switch c := rng.IntN(12); {
		case c == 0:
			e = env(trace.MpiSend)
		case c == 1:
			e = env(trace.MpiRecv)
		case c <= 3:
			e = env(trace.MpiIsend)
			e.Request = newReq()
			pending = append(pending, open{e.Request, true})
		case c <= 5:
			e = Record{Kind: trace.MpiIrecvRequest, Peer: -1, Comm: -1, Tag: -1, Request: newReq()}
			pending = append(pending, open{e.Request, false})
		case c <= 8 && len(pending) > 0: // complete any pending request
			j := rng.IntN(len(pending))
			o := pending[j]
			pending = slices.Delete(pending, j, j+1)
			if o.send {
				e = Record{Kind: trace.MpiIsendComplete, Peer: -1, Comm: -1, Tag: -1, Request: o.req}
			} else {
				e = env(trace.MpiIrecv)
				e.Request = o.req
			}
		case c == 9 && len(pending) > 0:
			j := rng.IntN(len(pending))
			e = Record{Kind: trace.MpiRequestCancelled, Peer: -1, Comm: -1, Tag: -1, Request: pending[j].req}
			pending = slices.Delete(pending, j, j+1)
		case c == 10: // a stray: any request record with any id
			kinds := []trace.EventKind{trace.MpiIsendComplete, trace.MpiIrecv, trace.MpiRequestCancelled}
			e = env(kinds[rng.IntN(len(kinds))])
			e.Request = rng.Int64N(nextReq + 1)
		default:
			e = Record{Kind: trace.Enter} // not a point-to-point record
		}
		e.Time, e.Ref = t, int64(len(recs))
		recs = append(recs, e)
	}
	return recs
}

func diffResults(t *testing.T, what string, got, want result) {
	t.Helper()
	if !reflect.DeepEqual(got.Matches, want.Matches) {
		for i := range max(len(got.Matches), len(want.Matches)) {
			var g, w pair
			if i < len(got.Matches) {
				g = got.Matches[i]
			}
			if i < len(want.Matches) {
				w = want.Matches[i]
			}
			if g != w {
				t.Fatalf("%s: %d matches, want %d; first difference at %d:\n got %+v\nwant %+v", what, len(got.Matches), len(want.Matches), i, g, w)
			}
		}
	}
	if !reflect.DeepEqual(got.Pending, want.Pending) {
		t.Fatalf("%s: pending\n got %+v\nwant %+v", what, got.Pending, want.Pending)
	}
	if !reflect.DeepEqual(got.Incomplete, want.Incomplete) {
		t.Fatalf("%s: incomplete\n got %+v\nwant %+v", what, got.Incomplete, want.Incomplete)
	}
	g, w := *got.Result, *want.Result
	g.Pending, g.Incomplete, w.Pending, w.Incomplete = nil, nil, nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: counts\n got %+v\nwant %+v", what, g, w)
	}
}

// randRanks returns the ranks of nloc locations: one per rank, or with
// threads (several locations of one rank, not adjacent).
func randRanks(rng *rand.Rand, nloc int, threads bool) []int32 {
	ranks := make([]int32, nloc)
	for i, r := range rng.Perm(nloc) {
		ranks[i] = int32(r)
		if threads {
			ranks[i] /= 2
		}
	}
	return ranks
}

// Random locations with out-of-order completion, cancellation, reused and
// stray request ids: Match gives the reference's matches, pending and
// incomplete operations and counts; with one location per rank and with
// threads.
func TestMatchAgainstNonOvertakingRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 4))
	for it := range 600 {
		nloc := 1 + rng.IntN(6)
		ranks := randRanks(rng, nloc, it%3 == 2)
		recs := make([][]Record, nloc)
		for i := range recs {
			recs[i] = randRecords(rng, nloc, rng.IntN(80))
		}
		if it%5 == 4 { // rank numbers and tags too wide to pack into one word
			for i := range ranks {
				ranks[i] <<= 28
			}
			for _, rs := range recs {
				for j := range rs {
					if rs[j].Peer >= 0 {
						rs[j].Peer <<= 28
						rs[j].Tag <<= 28
					}
				}
			}
		}
		want := reference(ranks, recs)
		diffResults(t, fmt.Sprintf("case %d (ranks %v)", it, ranks), run(t, ranks, recs), want)
		// without the optional columns: the same messages, Refs -1
		m, r := Match(ranks, func(i int, emit func(*Record)) {
			for j := range recs[i] {
				emit(&recs[i][j])
			}
		}, Columns{})
		if m.RecvBytes != nil || m.SendRef != nil || m.Len() != len(want.Matches) {
			t.Fatalf("case %d: without optional columns: %d messages, columns %v %v", it, m.Len(), m.RecvBytes != nil, m.SendRef != nil)
		}
		noRef := func(es []End) []End {
			out := slices.Clone(es)
			for i := range out {
				out[i].Ref = -1
			}
			return out
		}
		// ties in (location, posting time) are ordered by Ref: compare as sets
		key := func(e End) string { return fmt.Sprintf("%+v", e) }
		got, exp := noRef(r.Pending), noRef(want.Pending)
		slices.SortFunc(got, func(x, y End) int { return cmp.Compare(key(x), key(y)) })
		slices.SortFunc(exp, func(x, y End) int { return cmp.Compare(key(x), key(y)) })
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("case %d: without refs, pending\n%+v\nwant\n%+v", it, got, exp)
		}
		for i := range m.Len() {
			g := pair{Comm: m.Comm[i], Tag: m.Tag[i], SendLoc: m.SendLoc[i], RecvLoc: m.RecvLoc[i], Bytes: m.Bytes[i], Send: m.Send[i], RecvPost: m.RecvPost[i], Recv: m.Recv[i]}
			found := false
			for _, w := range want.Matches {
				w.RecvBytes, w.SendRef, w.RecvRef = 0, 0, 0
				if w == g {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("case %d: without refs, message %+v is not the reference's", it, g)
			}
		}
	}
}

// message is one message of a generated exchange with known partners.
type message struct {
	from, to, comm, tag int32
	bytes               int64 // unique: the pair is known by it
}

// exchange writes the records of ranks that exchange msgs (no self
// messages) with known partners the way applications do: each rank posts
// the sends and receives of each of its channels in the channel's order,
// the channels interleaved at random, blocking or not; requests complete
// in any order (MPI_Waitany) and a few extra requests are cancelled. It
// returns the records and, per message, the (location, Ref) of its send
// and of its receive's completion.
func exchange(rng *rand.Rand, nranks int, msgs []message) (recs [][]Record, sendAt, recvAt [][2]int64, cancelled [2]int64) {
	type side struct {
		send bool
		m    int // index into msgs, -1: a request to be cancelled
	}
	type channel struct {
		send bool
		ms   []int
	}
	chans := make([][]channel, nranks)
	chanOf := map[[5]int32]int{}
	for i, m := range msgs {
		for _, sd := range []struct {
			r    int32
			send bool
		}{{m.from, true}, {m.to, false}} {
			k := [5]int32{m.from, m.to, m.comm, m.tag, 0}
			if sd.send {
				k[4] = 1
			}
			c, ok := chanOf[k]
			if !ok {
				c = len(chans[sd.r])
				chanOf[k] = c
				chans[sd.r] = append(chans[sd.r], channel{send: sd.send})
			}
			chans[sd.r][c].ms = append(chans[sd.r][c].ms, i)
		}
	}
	recs = make([][]Record, nranks)
	sendAt, recvAt = make([][2]int64, len(msgs)), make([][2]int64, len(msgs))
	for r := range nranks {
		var posts []side
		for {
			var live []int
			for c, ch := range chans[r] {
				if len(ch.ms) > 0 {
					live = append(live, c)
				}
			}
			if len(live) == 0 {
				break
			}
			ch := &chans[r][live[rng.IntN(len(live))]]
			posts = append(posts, side{send: ch.send, m: ch.ms[0]})
			ch.ms = ch.ms[1:]
			if rng.IntN(8) == 0 {
				posts = append(posts, side{send: rng.IntN(2) == 0, m: -1})
			}
		}
		var out []Record
		t := int64(0)
		type open struct {
			req  int64
			send bool
			m    int
		}
		var pending []open
		req := int64(0)
		emit := func(e Record) {
			t += int64(rng.IntN(2))
			e.Time, e.Ref = t, int64(len(out))
			out = append(out, e)
		}
		complete := func() {
			j := rng.IntN(len(pending))
			o := pending[j]
			pending = slices.Delete(pending, j, j+1)
			switch {
			case o.m < 0:
				if o.send {
					cancelled[0]++
				} else {
					cancelled[1]++
				}
				emit(Record{Kind: trace.MpiRequestCancelled, Request: o.req, Peer: -1, Comm: -1, Tag: -1})
			case o.send:
				emit(Record{Kind: trace.MpiIsendComplete, Request: o.req, Peer: -1, Comm: -1, Tag: -1})
			default:
				m := msgs[o.m]
				recvAt[o.m] = [2]int64{int64(r), int64(len(out))}
				emit(Record{Kind: trace.MpiIrecv, Peer: m.from, Comm: m.comm, Tag: m.tag, Bytes: m.bytes, Request: o.req})
			}
		}
		for _, p := range posts {
			m := message{from: int32(rng.IntN(nranks)), to: int32(rng.IntN(nranks)), comm: 9, tag: 9, bytes: 1}
			if p.m >= 0 {
				m = msgs[p.m]
			}
			blocking := p.m >= 0 && rng.IntN(3) == 0
			switch {
			case p.send && blocking:
				sendAt[p.m] = [2]int64{int64(r), int64(len(out))}
				emit(Record{Kind: trace.MpiSend, Peer: m.to, Comm: m.comm, Tag: m.tag, Bytes: m.bytes})
			case p.send:
				req++
				if p.m >= 0 {
					sendAt[p.m] = [2]int64{int64(r), int64(len(out))}
				}
				emit(Record{Kind: trace.MpiIsend, Peer: m.to, Comm: m.comm, Tag: m.tag, Bytes: m.bytes, Request: req})
				pending = append(pending, open{req, true, p.m})
			case blocking:
				recvAt[p.m] = [2]int64{int64(r), int64(len(out))}
				emit(Record{Kind: trace.MpiRecv, Peer: m.from, Comm: m.comm, Tag: m.tag, Bytes: m.bytes})
			default:
				req++
				emit(Record{Kind: trace.MpiIrecvRequest, Request: req, Peer: -1, Comm: -1, Tag: -1})
				pending = append(pending, open{req, false, p.m})
			}
			for len(pending) > 0 && rng.IntN(3) == 0 {
				complete()
			}
		}
		for len(pending) > 0 {
			complete()
		}
		recs[r] = out
	}
	return recs, sendAt, recvAt, cancelled
}

// Exchanges with known partners, receives completing out of posting order
// and cancelled requests: every message is matched with its own partner
// (the generator's account, independent of the reference).
func TestMatchKnownPartners(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 31))
	for it := range 300 {
		nranks := 1 + rng.IntN(4)
		var msgs []message
		for i := range rng.IntN(60) {
			msgs = append(msgs, message{from: int32(rng.IntN(nranks)), to: int32(rng.IntN(nranks)), comm: int32(rng.IntN(2)),
				tag: int32(rng.IntN(2)), bytes: int64(8 * (i + 1))})
		}
		msgs = slices.DeleteFunc(msgs, func(m message) bool { return m.from == m.to })
		recs, sendAt, recvAt, cancelled := exchange(rng, nranks, msgs)
		ranks := make([]int32, nranks)
		for i := range ranks {
			ranks[i] = int32(i)
		}
		got := run(t, ranks, recs)
		if len(got.Matches) != len(msgs) || len(got.Pending) != 0 || len(got.Incomplete) != 0 || len(got.Mismatched) != 0 || got.Strays != 0 ||
			got.CancelledSends != cancelled[0] || got.CancelledRecvs != cancelled[1] {
			t.Fatalf("case %d: %d matched of %d, %d pending, %d incomplete, %d size mismatches, %d strays, cancelled %d %d (want %v)",
				it, len(got.Matches), len(msgs), len(got.Pending), len(got.Incomplete), len(got.Mismatched), got.Strays, got.CancelledSends, got.CancelledRecvs, cancelled)
		}
		byBytes := map[int64]int{}
		for i, m := range msgs {
			byBytes[m.bytes] = i
		}
		for _, m := range got.Matches {
			i := byBytes[m.Bytes]
			if [2]int64{int64(m.SendLoc), m.SendRef} != sendAt[i] || [2]int64{int64(m.RecvLoc), m.RecvRef} != recvAt[i] || m.RecvBytes != m.Bytes {
				t.Fatalf("case %d: message %d (%+v) matched as %+v; its send is at %v, its receive at %v", it, i, msgs[i], m, sendAt[i], recvAt[i])
			}
		}
		if want := reference(ranks, recs); !reflect.DeepEqual(got.Matches, want.Matches) {
			t.Fatalf("case %d: the reference disagrees", it)
		}
	}
}

// Issue 31, finding 4 at its smallest: two receives posted, completed in
// the other order by MPI_Waitany. The first send (100 B) goes to the first
// receive posted.
func TestMatchWaitany(t *testing.T) {
	recs := [][]Record{
		{
			{Kind: trace.MpiSend, Peer: 1, Tag: 5, Bytes: 100, Time: 10, Ref: 0},
			{Kind: trace.MpiSend, Peer: 1, Tag: 5, Bytes: 200, Time: 20, Ref: 1},
		},
		{
			{Kind: trace.MpiIrecvRequest, Peer: -1, Comm: -1, Tag: -1, Request: 1, Time: 1, Ref: 0},
			{Kind: trace.MpiIrecvRequest, Peer: -1, Comm: -1, Tag: -1, Request: 2, Time: 2, Ref: 1},
			{Kind: trace.MpiIrecv, Peer: 0, Tag: 5, Bytes: 200, Request: 2, Time: 30, Ref: 2},
			{Kind: trace.MpiIrecv, Peer: 0, Tag: 5, Bytes: 100, Request: 1, Time: 31, Ref: 3},
		},
	}
	got := run(t, []int32{0, 1}, recs)
	if len(got.Matches) != 2 || len(got.Mismatched) != 0 {
		t.Fatalf("%+v", got.Matches)
	}
	for _, m := range got.Matches {
		if m.Bytes != m.RecvBytes || m.RecvPost != map[int64]int64{100: 1, 200: 2}[m.Bytes] {
			t.Fatalf("the %d B send matched the receive posted at %d (%d B)", m.Bytes, m.RecvPost, m.RecvBytes)
		}
	}
}

func TestStableOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for it := range 300 {
		n := rng.IntN(3000)
		if it%50 == 0 {
			n = parallelFrom + rng.IntN(3*parallelFrom) // split among the cores
		}
		keys := make([]int64, n)
		span := []int64{1, 3, 1 << 20, 1 << 40, -1}[rng.IntN(5)]
		for i := range keys {
			if span < 0 {
				keys[i] = int64(rng.Uint64())
			} else {
				keys[i] = rng.Int64N(span) - span/2
			}
		}
		if it%7 == 0 {
			slices.Sort(keys)
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
		if got := StableOrder(keys); !slices.Equal(got, want) {
			t.Fatalf("case %d (%d keys, span %d): order differs", it, n, span)
		}
	}
}

// The request table against a Go map: random puts and takes of few keys
// (long probe chains, deletions in the middle of them).
func TestReqTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for it := range 200 {
		var tb reqTable
		want := map[int64]int64{}
		keys := 1 + rng.IntN(200)
		for range rng.IntN(3000) {
			k := 1 + rng.Int64N(int64(keys))
			if it%2 == 0 {
				k *= 1 << 32 // keys that share their low bits
			}
			if _, ok := want[k]; !ok && rng.IntN(2) == 0 {
				v := rng.Int64()
				tb.put(k, v)
				want[k] = v
				continue
			}
			v, ok := tb.take(k)
			w, wok := want[k]
			if ok != wok || v != w {
				t.Fatalf("case %d: take(%d) = %d %v, want %d %v", it, k, v, ok, w, wok)
			}
			delete(want, k)
		}
		if tb.n != len(want) {
			t.Fatalf("case %d: %d entries, want %d", it, tb.n, len(want))
		}
	}
}
