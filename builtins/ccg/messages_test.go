package ccg

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// oracleRank resolves a communicator rank like the package notes say, on
// the definitions directly.
func oracleRank(d *trace.Definitions, comm, peer, own int32) int32 {
	if d == nil || comm < 0 || int(comm) >= len(d.Comms) {
		return peer
	}
	g := d.Comms[comm].Group
	if g < 0 || int(g) >= len(d.Groups) || peer < 0 {
		return peer
	}
	grp := d.Groups[g]
	switch {
	case grp.Type == "comm_self" && peer == 0:
		return own
	case grp.Type == "comm_locations" && int(peer) < len(grp.Members):
		return peer
	case grp.Type != "comm_self" && grp.Type != "comm_locations" && int(peer) < len(grp.Members):
		return int32(grp.Members[peer])
	}
	return peer
}

// p2pEvent is one send or receive of the original trace, in posting
// order.
type p2pEvent struct {
	loc       int
	seq       int64 // ordinal of its record (a receive's completion) among the location's point-to-point records
	kind      trace.EventKind
	send      bool
	from, to  int32
	comm, tag int32
	bytes     int64
	post      int64 // posting time (a receive's MpiIrecvRequest)
	time      int64
}

// p2pEvents lists each location's sends and receives in posting order,
// with global sender and receiver ranks: a send at its record unless the
// next record of its request cancels it; a receive at its MpiIrecvRequest
// when the next record of that request is its MpiIrecv, else at its own
// record. Receives posted and never completed are listed apart.
func p2pEvents(tr *trace.Trace) (evs [][]p2pEvent, incomplete []p2pEvent) {
	for li, p := range tr.Processes() {
		var out []p2pEvent
		m := &p.Msgs
		var idx []int // the point-to-point records
		for i, k := range p.Kind {
			if isP2P(k) {
				idx = append(idx, i)
			}
		}
		req := func(j int) int64 {
			switch p.Kind[idx[j]] {
			case trace.MpiIsend, trace.MpiIrecv, trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
				return m.Request[p.Ref[idx[j]]]
			}
			return 0
		}
		same := func(j, dir int) int { // the nearest record of j's request
			for x := j + dir; x >= 0 && x < len(idx); x += dir {
				if r := req(x); r != 0 && r == req(j) {
					return x
				}
			}
			return -1
		}
		kindAt := func(j int) trace.EventKind {
			if j < 0 {
				return 255
			}
			return p.Kind[idx[j]]
		}
		for j, i := range idx {
			k := p.Kind[i]
			c := j // the record with the envelope
			switch {
			case k == trace.MpiIsend && req(j) != 0 && kindAt(same(j, 1)) == trace.MpiRequestCancelled:
				continue
			case k == trace.MpiIrecvRequest:
				if req(j) == 0 {
					continue
				}
				switch kindAt(same(j, 1)) {
				case trace.MpiIrecv:
					c = same(j, 1)
				case trace.MpiRequestCancelled:
					continue
				default:
					incomplete = append(incomplete, p2pEvent{loc: li, seq: int64(j), kind: k, from: -1, to: -1, comm: -1, tag: -1, post: p.Time[i], time: p.Time[i]})
					continue
				}
			case k == trace.MpiIrecv && req(j) != 0 && kindAt(same(j, -1)) == trace.MpiIrecvRequest:
				continue // posted at its request
			case k != trace.MpiSend && k != trace.MpiIsend && k != trace.MpiRecv && k != trace.MpiIrecv:
				continue
			}
			ci := idx[c]
			r := p.Ref[ci]
			peer := oracleRank(tr.Defs, m.Comm[r], m.Peer[r], p.Rank)
			e := p2pEvent{loc: li, seq: int64(c), kind: p.Kind[ci], send: k == trace.MpiSend || k == trace.MpiIsend,
				comm: m.Comm[r], tag: m.Tag[r], bytes: m.Bytes[r], post: p.Time[i], time: p.Time[ci]}
			if e.send {
				e.from, e.to = p.Rank, peer
			} else {
				e.from, e.to = peer, p.Rank
			}
			out = append(out, e)
		}
		evs = append(evs, out)
	}
	return evs, incomplete
}

// bruteMatch matches location by location, no interleaving, with one FIFO
// of sends and one of receives per (sender, receiver, comm, tag) (one
// location per rank); it returns the pairs (send, receive) and the
// unmatched events.
func bruteMatch(evs [][]p2pEvent) (pairs [][2]p2pEvent, left []p2pEvent) {
	type key struct{ from, to, comm, tag int32 }
	sends, recvs := map[key][]p2pEvent{}, map[key][]p2pEvent{}
	for _, loc := range evs {
		for _, e := range loc {
			k := key{e.from, e.to, e.comm, e.tag}
			if e.send {
				if q := recvs[k]; len(q) > 0 {
					pairs, recvs[k] = append(pairs, [2]p2pEvent{e, q[0]}), q[1:]
				} else {
					sends[k] = append(sends[k], e)
				}
			} else {
				if q := sends[k]; len(q) > 0 {
					pairs, sends[k] = append(pairs, [2]p2pEvent{q[0], e}), q[1:]
				} else {
					recvs[k] = append(recvs[k], e)
				}
			}
		}
	}
	for _, m := range []map[key][]p2pEvent{sends, recvs} {
		for _, q := range m {
			left = append(left, q...)
		}
	}
	return pairs, left
}

// rowsOf renders a message table's rows, sorted.
func rowsOf(t *testing.T, tb *arrowio.Table) []string {
	t.Helper()
	s1, _ := tb.Strings("Send Process")
	s2, _ := tb.Strings("Recv Process")
	s3, _ := tb.Strings("Comm")
	tag, _ := tb.Int32s("Tag")
	var cols [][]int64
	for _, c := range []string{"Bytes (B)", "Send (ns)", "Recv Posted (ns)", "Recv (ns)", "Latency (ns)"} {
		v, err := tb.Int64s(c)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, v)
	}
	var out []string
	for i := range s1 {
		out = append(out, fmt.Sprintf("%s|%s|%s|%d|%d|%d|%d|%d|%d", s1[i], s2[i], s3[i], tag[i], cols[0][i], cols[1][i], cols[2][i], cols[3][i], cols[4][i]))
	}
	slices.Sort(out)
	return out
}

func oracleRows(tr *trace.Trace, pairs [][2]p2pEvent) []string {
	var out []string
	for _, p := range pairs {
		s, r := p[0], p[1]
		out = append(out, fmt.Sprintf("%s|%s|%s|%d|%d|%d|%d|%d|%d", tr.Process(s.loc).Label(), tr.Process(r.loc).Label(), tr.Defs.CommName(s.comm),
			s.tag, s.bytes, s.time, r.post, r.time, r.time-s.time))
	}
	slices.Sort(out)
	return out
}

func randTrace(seed uint64, nproc int) *trace.Trace {
	rng := rand.New(rand.NewPCG(seed, 7))
	procs := make([]*trace.Process, nproc)
	for i := range procs {
		procs[i] = randProc(rng, 5, 40, 3)
	}
	return traceOf(5, procs...)
}

// waitanyTrace is a run of nranks ranks exchanging nmsg messages with
// known partners: each rank posts the sends and receives of each channel
// in order, the channels interleaved at random, blocking or not, each
// record inside a call of region 0; requests complete in any order
// (MPI_Waitany), and extra requests are cancelled. Message i has 8*(i+1)
// bytes.
func waitanyTrace(rng *rand.Rand, nranks, nmsg int) *trace.Trace {
	type msg struct{ from, to, tag int32 }
	var msgs []msg
	for range nmsg {
		f, t := int32(rng.IntN(nranks)), int32(rng.IntN(nranks))
		if f != t {
			msgs = append(msgs, msg{f, t, int32(rng.IntN(2))})
		}
	}
	type side struct {
		send bool
		m    int // -1: a request to be cancelled
	}
	posts := make([][]side, nranks)
	queues := make([]map[[3]int32][]int, nranks) // per rank: the messages of each channel
	for r := range queues {
		queues[r] = map[[3]int32][]int{}
	}
	for i, m := range msgs {
		queues[m.from][[3]int32{1, m.to, m.tag}] = append(queues[m.from][[3]int32{1, m.to, m.tag}], i)
		queues[m.to][[3]int32{0, m.from, m.tag}] = append(queues[m.to][[3]int32{0, m.from, m.tag}], i)
	}
	for r := range posts {
		for {
			var live [][3]int32
			for k, q := range queues[r] {
				if len(q) > 0 {
					live = append(live, k)
				}
			}
			if len(live) == 0 {
				break
			}
			slices.SortFunc(live, func(a, b [3]int32) int { return slices.Compare(a[:], b[:]) })
			k := live[rng.IntN(len(live))]
			posts[r] = append(posts[r], side{send: k[0] == 1, m: queues[r][k][0]})
			queues[r][k] = queues[r][k][1:]
			if rng.IntN(8) == 0 {
				posts[r] = append(posts[r], side{send: rng.IntN(2) == 0, m: -1})
			}
		}
	}
	procs := make([]*trace.Process, nranks)
	for r := range procs {
		b := newPB()
		t := int64(0)
		rec := func(k trace.EventKind, peer, tag int32, bytes, req int64) {
			t += 1 + int64(rng.IntN(3))
			b.enter(t, 0)
			b.msg(k, t+1, peer, tag, bytes, req)
			if peer < 0 {
				b.p.Msgs.Comm[len(b.p.Msgs.Comm)-1] = -1
			}
			t += 2
			b.leave(t, 0)
		}
		type open struct {
			req  int64
			send bool
			m    int
		}
		var pending []open
		var req int64
		complete := func() {
			j := rng.IntN(len(pending))
			o := pending[j]
			pending = slices.Delete(pending, j, j+1)
			switch {
			case o.m < 0:
				rec(trace.MpiRequestCancelled, -1, -1, 0, o.req)
			case o.send:
				rec(trace.MpiIsendComplete, -1, -1, 0, o.req)
			default:
				m := msgs[o.m]
				rec(trace.MpiIrecv, m.from, m.tag, int64(8*(o.m+1)), o.req)
			}
		}
		for _, p := range posts[r] {
			m := msg{from: int32(r), to: int32(rng.IntN(nranks)), tag: 9}
			if p.m >= 0 {
				m = msgs[p.m]
			}
			bytes := int64(8 * (p.m + 1))
			blocking := p.m >= 0 && rng.IntN(3) == 0
			switch {
			case p.send && blocking:
				rec(trace.MpiSend, m.to, m.tag, bytes, 0)
			case p.send:
				req++
				rec(trace.MpiIsend, m.to, m.tag, bytes, req)
				pending = append(pending, open{req, true, p.m})
			case blocking:
				rec(trace.MpiRecv, m.from, m.tag, bytes, 0)
			default:
				req++
				rec(trace.MpiIrecvRequest, -1, -1, 0, req)
				pending = append(pending, open{req, false, p.m})
			}
			for len(pending) > 0 && rng.IntN(3) == 0 {
				complete()
			}
		}
		for len(pending) > 0 {
			complete()
		}
		procs[r] = b.p
	}
	return traceOf(1, procs...)
}

// pendingOf renders the events left by the oracle like Messages lists them.
func pendingOf(left, incomplete []p2pEvent) []PendingEvent {
	var out []PendingEvent
	for _, e := range slices.Concat(left, incomplete) {
		peer := e.to
		if !e.send {
			peer = e.from
		}
		out = append(out, PendingEvent{Location: e.loc, Seq: e.seq, Kind: e.kind, Peer: peer, Comm: e.comm, Tag: e.tag, Bytes: e.bytes, Time: e.time})
	}
	slices.SortFunc(out, func(a, b PendingEvent) int {
		return cmp.Or(cmp.Compare(a.Location, b.Location), cmp.Compare(a.Time, b.Time), cmp.Compare(a.Seq, b.Seq))
	})
	return out
}

// Messages on a lossless graph gives the pairs and the leftovers of the
// brute-force matcher, on generated and random traces and on traces
// whose receives complete out of posting order (issue 31, finding 4).
func TestMessagesOracle(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Threads = 6, 1
	traces := map[string]*trace.Trace{"generated": synth.Generate(cfg), "random": randTrace(3, 4)}
	rng := rand.New(rand.NewPCG(31, 5))
	for i := range 40 {
		traces[fmt.Sprint("waitany ", i)] = waitanyTrace(rng, 2+rng.IntN(4), rng.IntN(80))
	}
	for name, tr := range traces {
		evs, incomplete := p2pEvents(tr)
		pairs, left := bruteMatch(evs)
		want := oracleRows(tr, pairs)
		if len(want) == 0 && !strings.HasPrefix(name, "waitany") {
			t.Fatalf("%s: no messages", name)
		}
		m := Messages(BuildTrace(tr, Lossless))
		if got := rowsOf(t, m.Table()); !slices.Equal(got, want) {
			t.Fatalf("%s: %d rows, want %d\n%s\nwant\n%s", name, len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for i := range m.Len() {
			if x := m.Message(i); x.Bytes != x.RecvBytes && strings.HasPrefix(name, "waitany") {
				t.Fatalf("%s: message %+v pairs a send with another message's receive", name, x)
			}
		}
		if wp := pendingOf(left, incomplete); !slices.Equal(m.Pending, wp) {
			t.Fatalf("%s: pending\n%+v\nwant\n%+v", name, m.Pending, wp)
		}
		var n int64
		for _, p := range tr.Processes() {
			for _, k := range p.Kind {
				if isP2P(k) {
					n++
				}
			}
		}
		if m.Events != n {
			t.Fatalf("%s: %d events visited, want %d", name, m.Events, n)
		}
	}
}

// On a lossy graph the pairs are those of the original events, and every
// time is within Abs of the original.
func TestMessagesLossy(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.UnitNs = 200
	off := 0 // message times that deviate, over both traces
	for name, tr := range map[string]*trace.Trace{"generated": synth.Generate(cfg), "random": randTrace(5, 4)} {
		b := Bounds{Abs: 50, Rel: 0.5}
		g := BuildTrace(tr, b)
		if s := g.Stats(); s.DevMin == 0 && s.DevMax == 0 {
			t.Fatalf("%s: the lossy graph has no deviation; the test would prove nothing", name)
		}
		evs, _ := p2pEvents(tr)
		pairs, _ := bruteMatch(evs)
		type id struct {
			loc int
			seq int64
		}
		want := map[id][2]p2pEvent{}
		for _, p := range pairs {
			want[id{p[0].loc, p[0].seq}] = p
		}
		m := Messages(g)
		if m.Len() != len(pairs) {
			t.Fatalf("%s: %d messages, want %d", name, m.Len(), len(pairs))
		}
		for i := range m.Len() {
			x := m.Message(i)
			p, ok := want[id{x.Sender, x.SendSeq}]
			if !ok || p[1].loc != x.Receiver || p[1].seq != x.RecvSeq || p[0].tag != x.Tag || p[0].bytes != x.Bytes {
				t.Fatalf("%s: message %+v is not an original pair", name, x)
			}
			for _, d := range []int64{x.Send - p[0].time, x.Recv - p[1].time, x.RecvPosted - p[1].post} {
				if d < -b.Abs || d > b.Abs {
					t.Fatalf("%s: message %+v: time off by %d, bound %d", name, x, d, b.Abs)
				}
				if d != 0 {
					off++
				}
			}
		}
	}
	if off == 0 { // (the generated trace's messages may all stay exact)
		t.Fatal("no message time deviates; the test would prove nothing")
	}
}

// Two ranks, rank 0 sends 5 messages, rank 1 receives them; graphs of
// single locations combine like one graph.
func TestMessagesTwoViews(t *testing.T) {
	s, r := newPB(), newPB()
	for i := range int64(5) {
		s.msg(trace.MpiSend, 10+i, 1, 0, 8, 0)
		r.msg(trace.MpiRecv, 20+i, 0, 0, 8, 0)
	}
	g := BuildTrace(traceOf(1, s.p, r.p), Lossless)
	m := Messages(g)
	if m.Len() != 5 || m.Unresolved != 10 {
		t.Fatalf("%d messages, %d unresolved", m.Len(), m.Unresolved)
	}
	for i := range m.Len() {
		if x := m.Message(i); x.Send != 10+int64(i) || x.Recv != 20+int64(i) || x.RecvPosted != x.Recv || x.Sender != 0 || x.Receiver != 1 {
			t.Fatalf("message %d is %+v", i, x)
		}
	}
	m = Messages(g.Loc(1), g.Loc(0))
	if m.Len() != 5 || m.Message(0).Sender != 1 || m.Locations[1] != "rank 0" {
		t.Fatalf("two views: %+v", m)
	}
}

// The reproducer written by the reference OTF2 library (see
// ../profile/testdata/waitany.py): receives completed by MPI_Waitany out
// of posting order, a send and a receive cancelled. Each send goes to the
// receive posted for it, on the lossless graph and at every setting that
// keeps request ids; with request ids dropped (Requests: -1) the receives
// can only be matched in completion order, and the result says so.
func TestMessagesWaitanyOTF2(t *testing.T) {
	tr, err := trace.Load("../profile/testdata/waitany/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"rank 0|rank 1|MPI_COMM_WORLD|5|100|12|2|36|24",
		"rank 0|rank 1|MPI_COMM_WORLD|5|200|21|6|30|9",
		"rank 0|rank 1|MPI_COMM_WORLD|6|300|26|8|33|7",
	}
	for _, b := range []Bounds{Lossless, MediumScale, Replay} {
		m := Messages(BuildTrace(tr, b))
		if got := rowsOf(t, m.Table()); !slices.Equal(got, want) || m.CancelledSends != 1 || m.CancelledRecvs != 1 || m.Unposted != 0 || m.SizeMismatches != 0 {
			t.Fatalf("%s: %s\n%s", b, m, strings.Join(got, "\n"))
		}
		if s := m.String(); !strings.HasSuffix(s, "unmatched: 0 sends, 0 receives; 2 requests cancelled") {
			t.Fatalf("%s: %q", b, s)
		}
	}
	noIDs := Lossless
	noIDs.Requests = -1
	m := Messages(BuildTrace(tr, noIDs))
	if m.Unposted != 3 || !strings.Contains(m.String(), "3 receives without a posting record (matched in completion order)") {
		t.Fatalf("request ids dropped: %s", m)
	}
}

// Communicator ranks are resolved through the communicator's group.
func TestMessagesCommRanks(t *testing.T) {
	r0, r1, r2 := newPB(), newPB(), newPB()
	msg := func(b *pb, k trace.EventKind, at int64, peer, comm, tag int32) {
		b.msg(k, at, peer, tag, 4, 0)
		b.p.Msgs.Comm[len(b.p.Msgs.Comm)-1] = comm
	}
	// comm 1 has world ranks [2, 0]: rank 2 is its 0, rank 0 its 1.
	msg(r2, trace.MpiSend, 10, 1, 1, 5)
	msg(r0, trace.MpiRecv, 20, 0, 1, 5)
	// comm 2 is rank 1's MPI_COMM_SELF.
	msg(r1, trace.MpiIsend, 30, 0, 2, 6)
	msg(r1, trace.MpiIrecv, 40, 0, 2, 6)
	// comm 0 is the world: 0 -> 1.
	msg(r0, trace.MpiSend, 50, 1, 0, 7)
	msg(r1, trace.MpiRecv, 60, 0, 0, 7)
	// comm 9 is undefined: peer 2 is taken as rank 2.
	msg(r1, trace.MpiSend, 70, 2, 9, 8)
	msg(r2, trace.MpiRecv, 80, 1, 9, 8)
	tr := traceOf(1, r0.p, r1.p, r2.p)
	tr.Defs.Groups = []trace.Group{
		{Name: "locations", Type: "comm_locations", Members: []uint64{0, 1, 2}},
		{Name: "sub", Type: "comm_group", Members: []uint64{2, 0}},
		{Name: "self", Type: "comm_self"},
	}
	tr.Defs.Comms = []trace.Comm{{Name: "WORLD", Group: 0, Parent: -1}, {Name: "SUB", Group: 1, Parent: 0}, {Name: "SELF", Group: 2, Parent: -1}}
	m := Messages(BuildTrace(tr, Lossless))
	want := []string{
		"rank 2|rank 0|SUB|5|4|10|20|20|10",
		"rank 1|rank 1|SELF|6|4|30|40|40|10",
		"rank 0|rank 1|WORLD|7|4|50|60|60|10",
		"rank 1|rank 2|comm 9|8|4|70|80|80|10",
	}
	slices.Sort(want)
	if got := rowsOf(t, m.Table()); !slices.Equal(got, want) {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s, r, inc := m.Unmatched(); s != 0 || r != 0 || inc != 0 || m.Unresolved != 2 {
		t.Fatalf("unmatched %d %d %d, unresolved %d; want 0 0 0 2", s, r, inc, m.Unresolved)
	}
	if got := m.String(); got != "4 messages matched (16 bytes) on 3 location(s); unmatched: 0 sends, 0 receives; 1 receives without a posting record (matched in completion order); 2 events with a peer rank not resolved through its communicator" {
		t.Fatalf("String: %s", got)
	}
	mb := m.MIMEBundle()
	if s, _ := mb["text/plain"].(string); !strings.HasPrefix(s, m.String()+"\n") || !strings.Contains(s, "SUB") {
		t.Fatalf("MIMEBundle text: %s", s)
	}
}

func TestMessagesErrors(t *testing.T) {
	g := BuildTrace(traceOf(1, newPB().enter(0, 0).leave(1, 0).p), Lossless)
	for name, f := range map[string]func(){
		"ccg.Messages: no graphs":        func() { Messages() },
		"ccg.Messages: graph 1 is nil":   func() { Messages(g, nil) },
		"ccg.Messages: location rank 0":  func() { Messages(g, g.Loc(0)) },
		"ccg.Collectives: no graphs":     func() { Collectives() },
		"ccg.Collectives: graph 0 is ni": func() { Collectives(nil) },
	} {
		func() {
			defer func() {
				var e *Error
				r := recover()
				err, _ := r.(error)
				if !errors.As(err, &e) || !strings.HasPrefix(e.Error(), name) {
					t.Fatalf("%s: panic %v", name, r)
				}
			}()
			f()
		}()
	}
}

// collProc writes begin/end pairs: (begin, end, op) triples.
func collProc(ops ...[3]int64) *trace.Process {
	b := newPB()
	for _, o := range ops {
		b.ev(trace.MpiCollectiveBegin, o[0], -1)
		b.coll(o[1], uint8(o[2]), 8*o[2], 16*o[2])
	}
	return b.p
}

func collRows(t *testing.T, tb *arrowio.Table) []string {
	t.Helper()
	c, _ := tb.Strings("Comm")
	op, _ := tb.Strings("Op")
	who, _ := tb.Strings("Participants")
	bad, _ := tb.Strings("Mismatch")
	n, _ := tb.Int32s("Locations")
	rootOK, _ := tb.Valid("Root")
	var cols [][]int64
	for _, name := range []string{"Seq", "First Begin (ns)", "Last End (ns)", "Bytes Sent (B)", "Bytes Received (B)"} {
		v, err := tb.Int64s(name)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, v)
	}
	var out []string
	for i := range c {
		out = append(out, fmt.Sprintf("%s|%d|%s|%v|%d|%s|%d|%d|%d|%d|%s", c[i], cols[0][i], op[i], rootOK[i], n[i], who[i],
			cols[1][i], cols[2][i], cols[3][i], cols[4][i], bad[i]))
	}
	return out
}

const allreduce, barrier = 11, 0

// Three locations, two allreduces and a barrier each.
func TestCollectivesExact(t *testing.T) {
	tr := traceOf(1,
		collProc([3]int64{10, 20, allreduce}, [3]int64{30, 40, allreduce}, [3]int64{50, 60, barrier}),
		collProc([3]int64{12, 21, allreduce}, [3]int64{31, 42, allreduce}, [3]int64{55, 61, barrier}),
		collProc([3]int64{11, 22, allreduce}, [3]int64{33, 41, allreduce}, [3]int64{52, 65, barrier}))
	for _, b := range []Bounds{Lossless, {Abs: 0, Rel: 0.5}} {
		got := collRows(t, Collectives(BuildTrace(tr, b)))
		want := []string{
			"comm 0|0|ALLREDUCE|false|3|rank 0, rank 1, rank 2|10|22|264|528|",
			"comm 0|1|ALLREDUCE|false|3|rank 0, rank 1, rank 2|30|42|264|528|",
			"comm 0|2|BARRIER|false|3|rank 0, rank 1, rank 2|50|65|0|0|",
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: rows\n%s\nwant\n%s", b, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A different op in one instance and a missing operation are reported.
func TestCollectivesMismatch(t *testing.T) {
	tr := traceOf(1,
		collProc([3]int64{10, 20, allreduce}, [3]int64{30, 40, allreduce}, [3]int64{50, 60, barrier}),
		collProc([3]int64{12, 21, allreduce}, [3]int64{31, 42, allreduce}),
		collProc([3]int64{11, 22, allreduce}, [3]int64{33, 41, barrier}, [3]int64{52, 65, barrier}))
	got := collRows(t, Collectives(BuildTrace(tr, Lossless)))
	want := []string{
		"comm 0|0|ALLREDUCE|false|3|rank 0, rank 1, rank 2|10|22|264|528|",
		"comm 0|1|ALLREDUCE|false|3|rank 0, rank 1, rank 2|30|42|176|352|ops differ: ALLREDUCE on rank 0, rank 1; BARRIER on rank 2",
		"comm 0|2|BARRIER|false|2|rank 0, rank 2|50|65|0|0|missing: rank 1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Issue 31, finding 5: operations on MPI_COMM_SELF (defined once for all
// ranks, as OTF2 traces do) and on a one-member group are instances of one
// rank each, never multi-rank instances; a world collective still spans
// all ranks, and more ranks than a group's members are reported.
func TestCollectivesSelfComm(t *testing.T) {
	gather, _ := trace.ParseCollectiveOp("GATHER")
	procs := make([]*trace.Process, 4)
	for i := range procs {
		b := newPB()
		for k := range 3 { // three gathers on COMM_SELF, two on the one-member comm
			at := int64(100*k + i)
			b.ev(trace.MpiCollectiveBegin, at, -1).coll(at+5, gather, 8, 8)
			b.p.Colls.Comm[len(b.p.Colls.Comm)-1] = 1
			if k < 2 {
				b.ev(trace.MpiCollectiveBegin, at+10, -1).coll(at+15, gather, 4, 4)
				b.p.Colls.Comm[len(b.p.Colls.Comm)-1] = 2
			}
		}
		b.ev(trace.MpiCollectiveBegin, 1000, -1).coll(1010+int64(i), allreduce, 8, 8) // world
		if i < 3 {
			b.ev(trace.MpiCollectiveBegin, 2000, -1).coll(2010, barrier, 0, 0) // on a group of 2
			b.p.Colls.Comm[len(b.p.Colls.Comm)-1] = 3
		}
		procs[i] = b.p
	}
	tr := traceOf(1, procs...)
	tr.Defs.Groups = []trace.Group{
		{Name: "world", Type: "comm_locations", Members: []uint64{0, 1, 2, 3}},
		{Name: "self", Type: "comm_self"},
		{Name: "one", Type: "comm_group", Members: []uint64{2}},
		{Name: "pair", Type: "comm_group", Members: []uint64{0, 1}},
	}
	tr.Defs.Comms = []trace.Comm{{Name: "WORLD", Group: 0, Parent: -1}, {Name: "SELF", Group: 1, Parent: -1},
		{Name: "ONE", Group: 2, Parent: 0}, {Name: "PAIR", Group: 3, Parent: 0}}
	got := collRows(t, Collectives(BuildTrace(tr, Lossless)))
	want := []string{"WORLD|0|ALLREDUCE|false|4|rank 0, rank 1, rank 2, rank 3|1000|1013|32|32|"}
	for i := range 4 {
		for k := range 3 {
			at := int64(100*k + i)
			want = append(want, fmt.Sprintf("SELF|%d|GATHER|false|1|rank %d|%d|%d|8|8|", k, i, at, at+5))
		}
	}
	for i := range 4 {
		for k := range 2 {
			at := int64(100*k+i) + 10
			want = append(want, fmt.Sprintf("ONE|%d|GATHER|false|1|rank %d|%d|%d|4|4|", k, i, at, at+5))
		}
	}
	want = append(want, "PAIR|0|BARRIER|false|3|rank 0, rank 1, rank 2|2000|2010|0|0|3 ranks take part in a communicator of 2 members")
	if !slices.Equal(got, want) {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// On a generated trace, Collectives agrees with a count over the
// original events: instances, first begins, last ends and bytes.
func TestCollectivesGenerated(t *testing.T) {
	tr := synth.Generate(synth.DefaultGenConfig())
	type inst struct{ first, last, sent int64 }
	var want []inst
	for _, p := range tr.Processes() {
		k, begin := 0, int64(-1)
		for i, kind := range p.Kind {
			switch kind {
			case trace.MpiCollectiveBegin:
				begin = p.Time[i]
			case trace.MpiCollectiveEnd:
				if k == len(want) {
					want = append(want, inst{first: begin, last: p.Time[i]})
				}
				w := &want[k]
				w.first, w.last = min(w.first, begin), max(w.last, p.Time[i])
				w.sent += p.Colls.Sent[p.Ref[i]]
				k++
			}
		}
	}
	tb := Collectives(BuildTrace(tr, Lossless))
	first, _ := tb.Int64s("First Begin (ns)")
	last, _ := tb.Int64s("Last End (ns)")
	sent, _ := tb.Int64s("Bytes Sent (B)")
	bad, _ := tb.Strings("Mismatch")
	if len(first) != len(want) || len(want) < 10 {
		t.Fatalf("%d instances, want %d", len(first), len(want))
	}
	for i, w := range want {
		if first[i] != w.first || last[i] != w.last || sent[i] != w.sent || bad[i] != "" {
			t.Fatalf("instance %d: %d %d %d %q, want %+v", i, first[i], last[i], sent[i], bad[i], w)
		}
	}
}

func TestListLocations(t *testing.T) {
	names := make([]string, 40)
	for i := range names {
		names[i] = fmt.Sprint("l", i)
	}
	if got := listLocations(names, []int{1, 3}); got != "l1, l3" {
		t.Fatal(got)
	}
	idx := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 20, 30, 31}
	if got := listLocations(names, idx); got != "18 locations #0-14, #20, #30-31" {
		t.Fatal(got)
	}
}

// BenchmarkMessages matches the messages of a generated trace (16 ranks,
// nearest-neighbour Isend/Irecv every iteration) on its lossless graph
// (Knüpfer 5.5: ~5,500 events/s in 2009).
func BenchmarkMessages(b *testing.B) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 16, 2000
	g := BuildTrace(synth.Generate(cfg), Lossless)
	var events int64
	for b.Loop() {
		m := Messages(g)
		events += m.Events
		if m.Len() == 0 {
			b.Fatal("no messages")
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
