package ccg

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
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

// p2pEvent is one send or receive of the original trace.
type p2pEvent struct {
	loc       int
	seq       int64
	send      bool
	from, to  int32
	comm, tag int32
	bytes     int64
	time      int64
}

// p2pEvents lists each location's sends and receives in order, with
// global sender and receiver ranks.
func p2pEvents(tr *trace.Trace) [][]p2pEvent {
	var out [][]p2pEvent
	for li, p := range tr.Processes() {
		var evs []p2pEvent
		for i, k := range p.Kind {
			if k != trace.MpiSend && k != trace.MpiIsend && k != trace.MpiRecv && k != trace.MpiIrecv {
				continue
			}
			r := p.Ref[i]
			m := &p.Msgs
			peer := oracleRank(tr.Defs, m.Comm[r], m.Peer[r], p.Rank)
			e := p2pEvent{loc: li, seq: int64(len(evs)), send: k == trace.MpiSend || k == trace.MpiIsend,
				comm: m.Comm[r], tag: m.Tag[r], bytes: m.Bytes[r], time: p.Time[i]}
			if e.send {
				e.from, e.to = p.Rank, peer
			} else {
				e.from, e.to = peer, p.Rank
			}
			evs = append(evs, e)
		}
		out = append(out, evs)
	}
	return out
}

// bruteMatch matches location by location, no interleaving, with one FIFO
// of sends and one of receives per (sender, receiver, comm, tag); it
// returns the pairs (send, receive) and the unmatched events.
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
	slices.SortFunc(left, func(a, b p2pEvent) int {
		if a.loc != b.loc {
			return a.loc - b.loc
		}
		return int(a.seq - b.seq)
	})
	return pairs, left
}

// brutePending replays the interleaved scheme (h events of each location
// in turn) on the original events and returns the largest number of
// pending events.
func brutePending(evs [][]p2pEvent, h int) int {
	type key struct {
		from, to, comm, tag int32
		send                bool
	}
	q := map[key]int{}
	pos := make([]int, len(evs))
	pending, most := 0, 0
	for more := true; more; {
		more = false
		for li, loc := range evs {
			for n := 0; n < h && pos[li] < len(loc); n++ {
				e := loc[pos[li]]
				pos[li]++
				other := key{e.from, e.to, e.comm, e.tag, !e.send}
				if q[other] > 0 {
					q[other]--
					pending--
					continue
				}
				q[key{e.from, e.to, e.comm, e.tag, e.send}]++
				pending++
				most = max(most, pending)
			}
			more = more || pos[li] < len(loc)
		}
	}
	return most
}

// rowsOf renders a message table's rows, sorted.
func rowsOf(t *testing.T, tb *arrowio.Table) []string {
	t.Helper()
	s1, _ := tb.Strings("sender")
	s2, _ := tb.Strings("receiver")
	s3, _ := tb.Strings("comm")
	tag, _ := tb.Int32s("tag")
	var cols [][]int64
	for _, c := range []string{"bytes", "send (ns)", "receive (ns)", "latency (ns)"} {
		v, err := tb.Int64s(c)
		if err != nil {
			t.Fatal(err)
		}
		cols = append(cols, v)
	}
	var out []string
	for i := range s1 {
		out = append(out, fmt.Sprintf("%s|%s|%s|%d|%d|%d|%d|%d", s1[i], s2[i], s3[i], tag[i], cols[0][i], cols[1][i], cols[2][i], cols[3][i]))
	}
	slices.Sort(out)
	return out
}

func oracleRows(tr *trace.Trace, pairs [][2]p2pEvent) []string {
	var out []string
	for _, p := range pairs {
		s, r := p[0], p[1]
		out = append(out, fmt.Sprintf("%s|%s|%s|%d|%d|%d|%d|%d", tr.Process(s.loc).Label(), tr.Process(r.loc).Label(), tr.Defs.CommName(s.comm),
			s.tag, s.bytes, s.time, r.time, r.time-s.time))
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

// Messages on a lossless graph gives the pairs of the brute-force matcher
// for every phase length, and MaxPending equals a replay of the
// interleaved scheme on the original events.
func TestMessagesOracle(t *testing.T) {
	cfg := trace.DefaultGenConfig()
	cfg.Ranks, cfg.Threads = 6, 1
	traces := map[string]*trace.Trace{"generated": trace.Generate(cfg), "random": randTrace(3, 4)}
	for name, tr := range traces {
		evs := p2pEvents(tr)
		pairs, left := bruteMatch(evs)
		want := oracleRows(tr, pairs)
		if len(want) == 0 {
			t.Fatalf("%s: no messages", name)
		}
		g := BuildTrace(tr, Lossless)
		for _, h := range []int{1, 2, 7, 64, 1 << 20} {
			m := MessagesPhase(h, g)
			if got := rowsOf(t, m.Table()); !slices.Equal(got, want) {
				t.Fatalf("%s h=%d: %d rows, want %d; first %q vs %q", name, h, len(got), len(want), got[:min(1, len(got))], want[0])
			}
			var ls, lr int64
			for i, e := range left {
				if e.send {
					ls++
				} else {
					lr++
				}
				if i < len(m.Pending) {
					p := m.Pending[i]
					if p.Location != e.loc || p.Seq != e.seq || p.Time != e.time || (p.Kind == trace.MpiSend) != e.send {
						t.Fatalf("%s h=%d: pending %d is %+v, want %+v", name, h, i, p, e)
					}
				}
			}
			if s, r := m.Unmatched(); s != ls || r != lr || len(m.Pending) != len(left) {
				t.Fatalf("%s h=%d: unmatched %d sends %d receives, want %d %d", name, h, s, r, ls, lr)
			}
			if wp := brutePending(evs, h); m.MaxPending != wp {
				t.Fatalf("%s h=%d: MaxPending %d, want %d", name, h, m.MaxPending, wp)
			}
			var n int64
			for _, l := range evs {
				n += int64(len(l))
			}
			if m.Events != n {
				t.Fatalf("%s: %d events visited, want %d", name, m.Events, n)
			}
		}
	}
}

// On a lossy graph the pairs are those of the original events, and every
// time is within Abs of the original.
func TestMessagesLossy(t *testing.T) {
	cfg := trace.DefaultGenConfig()
	cfg.UnitNs = 200
	off := 0 // message times that deviate, over both traces
	for name, tr := range map[string]*trace.Trace{"generated": trace.Generate(cfg), "random": randTrace(5, 4)} {
		b := Bounds{Abs: 50, Rel: 0.5}
		g := BuildTrace(tr, b)
		if s := g.Stats(); s.DevMin == 0 && s.DevMax == 0 {
			t.Fatalf("%s: the lossy graph has no deviation; the test would prove nothing", name)
		}
		pairs, _ := bruteMatch(p2pEvents(tr))
		type id struct {
			loc int
			seq int64
		}
		want := map[id][2]p2pEvent{}
		for _, p := range pairs {
			want[id{p[0].loc, p[0].seq}] = p
		}
		m := MessagesPhase(3, g)
		if len(m.Messages) != len(pairs) {
			t.Fatalf("%s: %d messages, want %d", name, len(m.Messages), len(pairs))
		}
		for _, x := range m.Messages {
			p, ok := want[id{x.Sender, x.SendSeq}]
			if !ok || p[1].loc != x.Receiver || p[1].seq != x.RecvSeq || p[0].tag != x.Tag || p[0].bytes != x.Bytes {
				t.Fatalf("%s: message %+v is not an original pair", name, x)
			}
			for _, d := range []int64{x.Send - p[0].time, x.Recv - p[1].time} {
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

// Two ranks, rank 0 sends 5 messages, rank 1 receives them: the pending
// list holds h events at most.
func TestMessagesPendingExact(t *testing.T) {
	s, r := newPB(), newPB()
	for i := range int64(5) {
		s.msg(trace.MpiSend, 10+i, 1, 0, 8, 0)
		r.msg(trace.MpiRecv, 20+i, 0, 0, 8, 0)
	}
	g := BuildTrace(traceOf(1, s.p, r.p), Lossless)
	for _, c := range []struct{ h, want int }{{1, 1}, {2, 2}, {3, 3}, {5, 5}, {9, 5}} {
		m := MessagesPhase(c.h, g)
		if m.MaxPending != c.want || len(m.Messages) != 5 || m.Unresolved != 10 {
			t.Fatalf("h=%d: MaxPending %d (want %d), %d messages, %d unresolved", c.h, m.MaxPending, c.want, len(m.Messages), m.Unresolved)
		}
		for i, x := range m.Messages {
			if x.Send != 10+int64(i) || x.Recv != 20+int64(i) || x.Sender != 0 || x.Receiver != 1 {
				t.Fatalf("h=%d: message %d is %+v", c.h, i, x)
			}
		}
	}
	// Graphs of single locations combine like one graph.
	m := MessagesPhase(1, g.Loc(1), g.Loc(0))
	if len(m.Messages) != 5 || m.Messages[0].Sender != 1 || m.Locations[1] != "rank 0" || m.MaxPending != 1 {
		t.Fatalf("two views: %+v", m)
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
		"rank 2|rank 0|SUB|5|4|10|20|10",
		"rank 1|rank 1|SELF|6|4|30|40|10",
		"rank 0|rank 1|WORLD|7|4|50|60|10",
		"rank 1|rank 2|comm 9|8|4|70|80|10",
	}
	slices.Sort(want)
	if got := rowsOf(t, m.Table()); !slices.Equal(got, want) {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s, r := m.Unmatched(); s != 0 || r != 0 || m.Unresolved != 2 {
		t.Fatalf("unmatched %d %d, unresolved %d; want 0 0 2", s, r, m.Unresolved)
	}
	if got := m.String(); got != "4 messages matched (16 bytes) on 3 location(s); unmatched: 0 sends, 0 receives; at most 3 events pending (phase 1024); 2 events with a peer rank not resolved through its communicator" {
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
		"ccg.MessagesPhase: phase":       func() { MessagesPhase(0, g) },
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
	c, _ := tb.Strings("comm")
	op, _ := tb.Strings("op")
	who, _ := tb.Strings("participants")
	bad, _ := tb.Strings("mismatch")
	n, _ := tb.Int32s("locations")
	rootOK, _ := tb.Valid("root")
	var cols [][]int64
	for _, name := range []string{"seq", "first begin (ns)", "last end (ns)", "bytes sent", "bytes received"} {
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

// On a generated trace, Collectives agrees with a count over the
// original events: instances, first begins, last ends and bytes.
func TestCollectivesGenerated(t *testing.T) {
	tr := trace.Generate(trace.DefaultGenConfig())
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
	first, _ := tb.Int64s("first begin (ns)")
	last, _ := tb.Int64s("last end (ns)")
	sent, _ := tb.Int64s("bytes sent")
	bad, _ := tb.Strings("mismatch")
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
	cfg := trace.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 16, 2000
	g := BuildTrace(trace.Generate(cfg), Lossless)
	var events int64
	for b.Loop() {
		m := Messages(g)
		events += m.Events
		if len(m.Messages) == 0 {
			b.Fatal("no messages")
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
