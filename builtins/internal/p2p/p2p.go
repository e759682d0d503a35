package p2p

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Record is one point-to-point record of a location, in the location's
// event order, as the caller reads it.
type Record struct {
	// MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiIsendComplete,
	// MpiIrecvRequest or MpiRequestCancelled; other kinds are ignored.
	Kind      trace.EventKind
	Peer      int32 // the partner's global rank (sends and receives)
	Comm, Tag int32
	Bytes     int64
	Request   int64 // request id of non-blocking records, 0: none
	Time      int64 // ns
	Ref       int64 // the caller's reference to the record (an event index), increasing in event order
	// Outside marks a record outside the caller's window (a trace.Trace
	// cut by Window, Between, Main...): read so that the operations of the
	// window keep their order on their channels in the whole run, but
	// neither returned nor counted: a message with one record outside is
	// counted in Result.CutSends or CutRecvs, one with both outside is
	// dropped, and the problems of outside records are not reported.
	Outside bool
}

// Reader calls emit with each point-to-point record of location loc, in
// order (other records may be passed too: they are ignored; emit does not
// keep e). Match calls it once per location, from any goroutine, for
// several locations at once.
type Reader func(loc int, emit func(*Record))

// Messages are the matched messages as columns, one entry per message, by
// send time, then sending location, then the send's order there.
type Messages struct {
	SendLoc, RecvLoc []int32
	Comm, Tag        []int32
	Bytes            []int64 // bytes of the send record
	RecvBytes        []int64 // bytes of the receive record (Columns.RecvBytes)
	Send             []int64 // send time (its record), ns
	RecvPost         []int64 // when the receive was posted (its MpiIrecvRequest, else its own record), ns
	Recv             []int64 // when the receive completed (MpiRecv, MpiIrecv), ns
	SendRef, RecvRef []int64 // Record.Ref of the send and of the receive's completion (Columns.Refs)
}

// Len returns the number of messages.
func (m *Messages) Len() int { return len(m.Send) }

// Columns selects the optional columns of Messages.
type Columns struct {
	RecvBytes bool
	Refs      bool
}

// End is an operation left without a partner.
type End struct {
	Loc int32
	// MpiSend or MpiIsend; MpiRecv or MpiIrecv (a receive's completion);
	// MpiIrecvRequest for a receive that never completed.
	Kind trace.EventKind
	Send bool
	Peer int32 // the partner's global rank; -1 for a receive that never completed
	Comm int32 // -1 for a receive that never completed
	Tag  int32
	// Bytes of the record (0 for a receive that never completed).
	Bytes int64
	Post  int64 // ns: when the operation was posted (a send: Time; a receive: its MpiIrecvRequest, or Time)
	Time  int64 // ns: the record's time (a receive: its completion)
	Ref   int64 // Record.Ref of the send, of the receive's completion, or of the MpiIrecvRequest of a receive that never completed
}

// Result is what Match found besides the messages.
type Result struct {
	Pending    []End // sends and receives without a partner, by location, posting time and Ref
	Incomplete []End // receives posted (MpiIrecvRequest) that neither completed nor were cancelled, by location and time
	Records    int64 // point-to-point records read (once per location)

	CancelledSends, CancelledRecvs int64    // operations cancelled (MpiRequestCancelled of a pending request): never matched
	Mismatched                     [][2]End // messages whose receive has other bytes than the send: send and receive, by sending location, time and Ref
	Reversed                       int64    // messages whose receive completes before the send is posted
	// Receives without a posting record (no MpiIrecvRequest with their
	// request id): posted when they complete, so their order among a
	// location's posted receives is that of their completion.
	Unposted int64
	// Request records that refer to no pending request of their kind (a
	// completion or cancellation of an unknown or finished request, an id
	// reused while pending, MpiIrecvRequest without an id).
	Strays int64
	// Messages cut by the caller's window (Record.Outside): sent inside it
	// and received outside (CutSends), received inside and sent outside
	// (CutRecvs). Not in Messages, not in Pending.
	CutSends, CutRecvs int64
}

func (r *Result) add(o *Result) {
	r.Pending = append(r.Pending, o.Pending...)
	r.Incomplete = append(r.Incomplete, o.Incomplete...)
	r.Records += o.Records
	r.CancelledSends += o.CancelledSends
	r.CancelledRecvs += o.CancelledRecvs
	r.Mismatched = append(r.Mismatched, o.Mismatched...)
	r.Reversed += o.Reversed
	r.Unposted += o.Unposted
	r.Strays += o.Strays
	r.CutSends += o.CutSends
	r.CutRecvs += o.CutRecvs
}

// ---- the posting stage ----

// op states in the posting stage
const (
	ready   uint8 = iota // posted, envelope known
	waiting              // a request whose completion or cancellation is not read yet
	gone                 // cancelled, or a receive that never completed
)

// op is an operation in posting order: the record that gives its envelope
// (a receive's completion), and when it was posted.
type op struct {
	rec   Record
	send  bool
	state uint8
	seq   int32 // a send's ordinal among its location's send records
	post  int64 // ns
}

// sink takes an operation in posting order: its record, whether it is a
// send, its seq, and its posting time.
type sink func(e *Record, send bool, seq int32, post int64)

// stream puts the records of one location into posting order: sends are
// posted at their record (MpiSend, MpiIsend), receives at their
// MpiIrecvRequest (at their own record when blocking or without one) but
// take their envelope from the completion (MpiIrecv). An operation is
// handed to out once every operation posted before it is decided:
// complete, cancelled (dropped), or left unresolved by the end of the
// records (a send goes on; a receive never completed). Without pending
// requests a record goes to out at once, not copied.
type stream struct {
	loc    int32
	out    sink
	q      []op // q[head:] posted, not yet handed on
	head   int
	base   int64    // absolute index of q[0]
	active reqTable // request id -> absolute index of its waiting op
	sends  int32    // send records read (the next send's seq)
	r      *Result  // where add counts: the result, or outside while it reads an outside record
	res    *Result  // the result
	// outside takes the counts of records outside the caller's window
	outside Result
}

// push appends o to the posted operations and returns its absolute index.
func (s *stream) push(o op) int64 {
	if s.head > 0 && s.head == len(s.q) {
		s.base += int64(s.head)
		s.q, s.head = s.q[:0], 0
	} else if s.head >= 1024 && 2*s.head >= len(s.q) {
		n := copy(s.q, s.q[s.head:])
		s.base += int64(s.head)
		s.q, s.head = s.q[:n], 0
	}
	s.q = append(s.q, o)
	return s.base + int64(len(s.q)-1)
}

// take returns the waiting op of request req, or nil, and forgets req.
func (s *stream) take(req int64) *op {
	if req == 0 {
		return nil
	}
	abs, ok := s.active.take(req)
	if !ok {
		return nil
	}
	return &s.q[abs-s.base]
}

// wait registers the op at abs as the pending request req; a request
// still pending under the same id is settled first.
func (s *stream) wait(req, abs int64) {
	if o := s.take(req); o != nil {
		s.r.Strays++
		s.settle(o)
	}
	s.active.put(req, abs)
}

// reqTable maps the ids of a location's pending requests to their ops:
// open addressing with linear probing and deletion by backward shift (a
// Go map costs three lookups a non-blocking receive).
type reqTable struct {
	keys []int64 // 0: empty (request ids are not 0)
	vals []int64
	n    int
}

func (t *reqTable) slot(k int64) int {
	h := uint64(k) * 0x9E3779B97F4A7C15
	return int(h>>32) & (len(t.keys) - 1)
}

// take returns the value of k and removes it.
func (t *reqTable) take(k int64) (int64, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.keys) - 1
	i := t.slot(k)
	for t.keys[i] != k {
		if t.keys[i] == 0 {
			return 0, false
		}
		i = (i + 1) & mask
	}
	v := t.vals[i]
	t.n--
	// shift back the entries that probed past i
	for j := (i + 1) & mask; t.keys[j] != 0; j = (j + 1) & mask {
		if h := t.slot(t.keys[j]); (j-h)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i] = 0
	return v, true
}

// put adds k (not present) with value v.
func (t *reqTable) put(k, v int64) {
	if 2*(t.n+1) > len(t.keys) {
		keys, vals := t.keys, t.vals
		t.keys, t.vals, t.n = make([]int64, max(16, 2*len(keys))), make([]int64, max(16, 2*len(keys))), 0
		for i, kk := range keys {
			if kk != 0 {
				t.put(kk, vals[i])
			}
		}
	}
	mask := len(t.keys) - 1
	i := t.slot(k)
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = k, v
	t.n++
}

// settle decides a waiting op whose request will not be resolved: a send
// was posted and goes on; a receive never completed.
func (s *stream) settle(o *op) {
	if o.send {
		o.state = ready
		return
	}
	o.state = gone
	if o.rec.Outside {
		return
	}
	s.res.Incomplete = append(s.res.Incomplete, End{Loc: s.loc, Kind: trace.MpiIrecvRequest, Peer: -1, Comm: -1, Tag: -1,
		Post: o.post, Time: o.post, Ref: o.rec.Ref})
}

// add reads one record; the counts of a record outside the caller's
// window go to a scratch result (Record.Outside).
func (s *stream) add(e *Record) {
	if e.Outside {
		s.r = &s.outside
		defer func() { s.r = s.res }()
	}
	s.r.Records++
	switch e.Kind {
	case trace.MpiSend, trace.MpiIsend:
		seq := s.sends
		s.sends++
		if e.Kind == trace.MpiIsend && e.Request != 0 {
			s.wait(e.Request, s.push(op{rec: *e, send: true, state: waiting, seq: seq, post: e.Time}))
			return
		}
		if s.head == len(s.q) {
			s.out(e, true, seq, e.Time)
			return
		}
		s.push(op{rec: *e, send: true, seq: seq, post: e.Time})
		return
	case trace.MpiRecv:
	case trace.MpiIrecv:
		if w := s.take(e.Request); w != nil && !w.send {
			w.rec, w.state = *e, ready
			s.flush()
			return
		} else if w != nil { // an MpiIrecv completing a send request
			s.r.Strays++
			s.settle(w)
		}
		s.r.Unposted++
	case trace.MpiIrecvRequest:
		if e.Request == 0 {
			s.r.Strays++
			return
		}
		s.wait(e.Request, s.push(op{rec: *e, state: waiting, post: e.Time}))
		return
	case trace.MpiIsendComplete:
		if w := s.take(e.Request); w != nil && w.send {
			w.state = ready
		} else {
			s.r.Strays++
			if w != nil {
				s.settle(w)
			}
		}
		s.flush()
		return
	case trace.MpiRequestCancelled:
		if w := s.take(e.Request); w != nil {
			w.state = gone
			if w.send {
				s.r.CancelledSends++
			} else {
				s.r.CancelledRecvs++
			}
		} else {
			s.r.Strays++
		}
		s.flush()
		return
	default:
		s.r.Records--
		return
	}
	// a receive posted at its own record
	if s.head == len(s.q) {
		s.out(e, false, 0, e.Time)
		return
	}
	s.push(op{rec: *e, post: e.Time})
}

// flush hands on the decided operations at the head.
func (s *stream) flush() {
	for s.head < len(s.q) {
		o := &s.q[s.head]
		if o.state == waiting {
			return
		}
		s.head++
		if o.state == ready {
			s.out(&o.rec, o.send, o.seq, o.post)
		}
	}
}

// finish ends the records: requests still pending stay unresolved.
func (s *stream) finish() {
	for i := s.head; i < len(s.q); i++ {
		if o := &s.q[i]; o.state == waiting {
			s.settle(o)
		}
	}
	s.flush()
}

// ---- matching ----

// ckey is a channel as one rank sees it: the partner rank, the
// communicator, the tag and the issuer.
type ckey struct {
	peer, comm, tag int32
	send            bool
}

// channel is one of a rank's channels: its operations so far; a receive
// channel's receives are recvs[start:start+n] once they are in channel
// order; a send channel's receives are those of the receiving rank's
// channel (to -1: none).
type channel struct {
	key   ckey
	n     int32 // operations
	start int32 // receive channels: the first of its receives in recvs
	to    int32 // send channels: the receiving rank (-1: none)
	toAt  int32 // and the start of its channel there
	toN   int32 // and the number of its receives
}

// sendAt is a send record: its channel and ordinal there, and what a
// message takes from it (24 bytes: there is one per send). ch is the
// channel << 1 | 1 for an MpiIsend, -1 for a cancelled send.
type sendAt struct {
	ch, k       int32
	time, bytes int64
}

func (s *sendAt) channel() int32 { return s.ch >> 2 }

// outside reports whether the send record is outside the caller's window.
func (s *sendAt) outside() bool { return s.ch&2 != 0 }

func (s *sendAt) kind() trace.EventKind {
	if s.ch&1 != 0 {
		return trace.MpiIsend
	}
	return trace.MpiSend
}

// rop is a receive in posting order (32 bytes: there is one per receive;
// its channel and Ref are kept apart, for as long as they are needed).
type rop struct {
	post, time, bytes int64
	loc               int32
	kind              trace.EventKind
	matched           bool
	outside           bool // Record.Outside
}

// rank is the per-rank part of Match: its channels and operations.
type rank struct {
	rank  int32
	locs  []int
	table *ctable // -> index into chans, while the rank is read (the worker's)
	chans []channel
	sends [][]sendAt // per location of locs, per send record
	recvs []rop      // by channel and ordinal (in posting order while the rank is read)
	rch   []int32    // the channel of each receive, while the rank is read
	// Record.Ref of each send and receive, when the result keeps them
	sendRefs [][]int64
	recvRefs []int64
	res      Result

	sendLo, sendHi int64 // range of the send times
}

// lookup returns the channel of key, adding it.
func (r *rank) lookup(k ckey) int32 {
	c, slot := r.table.get(k)
	if c < 0 {
		c = int32(len(r.chans))
		r.chans = append(r.chans, channel{key: k, to: -1})
		r.table.put(slot, k, c)
	}
	return c
}

// post gives an operation of location li (an index into r.locs) its
// channel and ordinal.
func (r *rank) post(li int, e *Record, send bool, seq int32, post int64, refs bool) {
	c := r.lookup(ckey{peer: e.Peer, comm: e.Comm, tag: e.Tag, send: send})
	k := r.chans[c].n // a receive's ordinal is its place among the channel's receives in recvs
	r.chans[c].n++
	if send {
		ss := r.sends[li]
		if int32(len(ss)) < seq {
			ss = pad(ss, seq)
			if refs {
				for len(r.sendRefs[li]) < len(ss) {
					r.sendRefs[li] = append(r.sendRefs[li], -1)
				}
			}
		}
		ch := c << 2
		if e.Kind == trace.MpiIsend {
			ch |= 1
		}
		if e.Outside {
			ch |= 2
		}
		r.sends[li] = append(ss, sendAt{ch: ch, k: k, time: e.Time, bytes: e.Bytes})
		if refs {
			r.sendRefs[li] = append(r.sendRefs[li], e.Ref)
		}
		return
	}
	r.recvs = append(r.recvs, rop{loc: int32(r.locs[li]), kind: e.Kind, post: post, time: e.Time, bytes: e.Bytes, outside: e.Outside})
	r.rch = append(r.rch, c)
	if refs {
		r.recvRefs = append(r.recvRefs, e.Ref)
	}
}

// link connects each send channel to the receiving rank's channel: a
// join of the two sides' keys (sender, receiver, comm, tag), sorted by a
// radix sort when they pack into 63 bits (a rank's tables are not
// consulted by the others: their lookups would miss the cache).
func link(rs []*rank, workers int) {
	fields := func(r *rank, k ckey) [4]int64 {
		if k.send {
			return [4]int64{int64(r.rank), int64(k.peer), int64(k.comm), int64(k.tag)}
		}
		return [4]int64{int64(k.peer), int64(r.rank), int64(k.comm), int64(k.tag)}
	}
	// the range of each field, per worker, then together
	type span struct{ lo, hi [4]int64 }
	spans := make([]span, workers)
	part := func(w, n int) (int, int) { return w * n / workers, (w + 1) * n / workers }
	work.Parallel(workers, func(w int) {
		sp := span{lo: [4]int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64},
			hi: [4]int64{math.MinInt64, math.MinInt64, math.MinInt64, math.MinInt64}}
		a, b := part(w, len(rs))
		for _, r := range rs[a:b] {
			for c := range r.chans {
				f := fields(r, r.chans[c].key)
				for i, v := range f {
					sp.lo[i], sp.hi[i] = min(sp.lo[i], v), max(sp.hi[i], v)
				}
			}
		}
		spans[w] = sp
	})
	lo, hi := spans[0].lo, spans[0].hi
	for _, sp := range spans[1:] {
		for i := range lo {
			lo[i], hi[i] = min(lo[i], sp.lo[i]), max(hi[i], sp.hi[i])
		}
	}
	first := make([]int, len(rs)+1) // each rank's first channel in keys
	for x, r := range rs {
		first[x+1] = first[x] + len(r.chans)
	}
	n := first[len(rs)]
	if n == 0 {
		return
	}
	var width [4]uint
	total := uint(0)
	for i := range width {
		width[i] = uint(bits.Len64(uint64(hi[i] - lo[i])))
		total += width[i]
	}
	if total > 63 { // rare: a map of the receive channels
		type at struct{ x, c int32 }
		recv := map[[4]int64]at{}
		for x, r := range rs {
			for c := range r.chans {
				if k := r.chans[c].key; !k.send {
					recv[fields(r, k)] = at{int32(x), int32(c)}
				}
			}
		}
		for _, r := range rs {
			for c := range r.chans {
				ch := &r.chans[c]
				if !ch.key.send {
					continue
				}
				if a, ok := recv[fields(r, ch.key)]; ok {
					d := &rs[a.x].chans[a.c]
					ch.to, ch.toAt, ch.toN = a.x, d.start, d.n
				}
			}
		}
		return
	}
	type at struct{ x, c int32 } // rank index and channel
	keys := make([]uint64, n)
	who := make([]at, n)
	work.Parallel(workers, func(w int) {
		a, b := part(w, len(rs))
		for x := a; x < b; x++ {
			r := rs[x]
			for c := range r.chans {
				f := fields(r, r.chans[c].key)
				var k uint64
				for i, v := range f {
					k = k<<width[i] | uint64(v-lo[i])
				}
				k <<= 1 // sends after the receives of their key
				if r.chans[c].key.send {
					k |= 1
				}
				keys[first[x]+c], who[first[x]+c] = k, at{int32(x), int32(c)}
			}
		}
	})
	keys, who = sortPairs(keys, who, 1<<(total+1)-1)
	work.Parallel(workers, func(w int) {
		a, b := part(w, n)
		for j := max(a, 1); j < b; j++ {
			if a, b := keys[j-1], keys[j]; a>>1 == b>>1 && a&1 == 0 && b&1 == 1 {
				d := &rs[who[j-1].x].chans[who[j-1].c]
				s := &rs[who[j].x].chans[who[j].c]
				s.to, s.toAt, s.toN = who[j-1].x, d.start, d.n
			}
		}
	})
}

// ctable maps a rank's channel keys to channels: open addressing with
// linear probing (a Go map hashes 13-byte keys with a general hash, a
// third of the time of the per-record work). A worker keeps one for all
// the ranks it reads, cleared slot by slot between them.
type ctable struct {
	keys []ckey
	vals []int32 // channel + 1; 0: empty
	used []int32 // the slots in use
}

func (t *ctable) hash(k ckey) uint64 {
	h := uint64(uint32(k.peer))*0x9E3779B97F4A7C15 ^ uint64(uint32(k.tag))*0xC2B2AE3D27D4EB4F ^ uint64(uint32(k.comm))*0x165667B19E3779F9
	if k.send {
		h ^= 0x27D4EB2F165667C5
	}
	return h ^ h>>29
}

// get returns k's channel (-1: none) and the slot where k is or would go.
func (t *ctable) get(k ckey) (int32, int) {
	if len(t.keys) == 0 {
		return -1, -1
	}
	mask := len(t.keys) - 1
	for i := int(t.hash(k)) & mask; ; i = (i + 1) & mask {
		if t.vals[i] == 0 {
			return -1, i
		}
		if t.keys[i] == k {
			return t.vals[i] - 1, i
		}
	}
}

// put adds k at slot (from get) with channel c.
func (t *ctable) put(slot int, k ckey, c int32) {
	if slot < 0 || 4*(len(t.used)+1) > 3*len(t.keys) {
		keys, vals, used := t.keys, t.vals, t.used
		t.keys, t.vals, t.used = make([]ckey, max(16, 2*len(keys))), make([]int32, max(16, 2*len(keys))), make([]int32, 0, 2*len(used))
		for _, i := range used {
			_, s := t.get(keys[i])
			t.put(s, keys[i], vals[i]-1)
		}
		_, slot = t.get(k)
	}
	t.keys[slot], t.vals[slot] = k, c+1
	t.used = append(t.used, int32(slot))
}

// reset empties the table, keeping its room.
func (t *ctable) reset() {
	for _, i := range t.used {
		t.vals[i] = 0
	}
	t.used = t.used[:0]
}

// checkEvery is the number of records between two interrupt checks.
const checkEvery = 1 << 14

// Match matches the sends and receives of len(ranks) locations (ranks[i]
// is location i's global rank) read by read, by the non-overtaking rule
// of the package notes. It polls work.Check and runs on all cores.
func Match(ranks []int32, read Reader, cols Columns) (*Messages, *Result) {
	// the ranks, each with its locations
	index := map[int32]int32{}
	var rs []*rank
	for i, g := range ranks {
		x, ok := index[g]
		if !ok {
			x = int32(len(rs))
			index[g] = x
			rs = append(rs, &rank{rank: g})
		}
		rs[x].locs = append(rs[x].locs, i)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(rs)))
	eachW := func(f func(w int, r *rank)) { work.Each(len(rs), func(w, i int) { f(w, rs[i]) }) }
	each := func(f func(r *rank)) { eachW(func(_ int, r *rank) { f(r) }) }
	// 1. Per rank: operations in posting order, channels and ordinals,
	// receives by channel and ordinal.
	scratch := make([]scratchSpace, workers)
	eachW(func(w int, r *rank) { r.postAll(read, &scratch[w], cols.Refs) })
	scratch = nil
	// 2. The channels joined.
	link(rs, workers)
	// 3. The order of all send records by time (stable: by location and
	// order), and each send's receive written to its row in that order.
	base := make([]int64, len(ranks)+1)
	for _, r := range rs {
		for li, l := range r.locs {
			base[l+1] = int64(len(r.sends[li]))
		}
	}
	for l := range ranks {
		base[l+1] += base[l]
	}
	n := base[len(ranks)]
	if n >= math.MaxInt32 {
		panic(fmt.Sprintf("p2p: %d send records; rows are numbered by int32", n))
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range rs {
		lo, hi = min(lo, r.sendLo), max(hi, r.sendHi)
	}
	keys, perm := make([]uint64, n), make([]int32, n)
	each(func(r *rank) {
		for li, l := range r.locs {
			for i, x := range r.sends[li] {
				j := base[l] + int64(i)
				keys[j], perm[j] = uint64(x.time)-uint64(lo), int32(j)
			}
		}
	})
	_, perm = sortPairs(keys, perm, uint64(max(hi, lo))-uint64(lo))
	keys = nil
	pos := make([]int32, n) // the row of each send record: the inverse
	work.Parallel(workers, func(w int) {
		a, b := int64(w)*n/int64(workers), int64(w+1)*n/int64(workers)
		for j := a; j < b; j++ {
			pos[perm[j]] = int32(j)
		}
	})
	perm = nil
	width := int64(4*4 + 8*4)
	if cols.RecvBytes {
		width += 8
	}
	if cols.Refs {
		width += 16
	}
	if err := work.Reserve("matching messages", n*width+24*n); err != nil { // the columns and their order
		panic(err)
	}
	m := &Messages{SendLoc: make([]int32, n), RecvLoc: make([]int32, n), Comm: make([]int32, n), Tag: make([]int32, n),
		Bytes: make([]int64, n), Send: make([]int64, n), RecvPost: make([]int64, n), Recv: make([]int64, n)}
	if cols.RecvBytes {
		m.RecvBytes = make([]int64, n)
	}
	if cols.Refs {
		m.SendRef, m.RecvRef = make([]int64, n), make([]int64, n)
	}
	recvsOf := make([][]rop, len(rs)) // by rank index: one cached array, not a pointer to each rank
	for x, r := range rs {
		recvsOf[x] = r.recvs
	}
	// Each core writes the rows of one range of times (all locations'
	// sends in it): rows next to each other are written by one core, not
	// by two fighting over their cache lines.
	res := &Result{}
	found := make([]Result, workers)
	work.Parallel(workers, func(w int) {
		a, b := int32(int64(w)*n/int64(workers)), int32(int64(w+1)*n/int64(workers))
		for _, r := range rs {
			r.pair(rs, recvsOf, base, pos, a, b, m, &found[w])
		}
	})
	for w := range found {
		res.add(&found[w])
	}
	pos = nil
	// Receives without a send; the counts.
	each(func(r *rank) {
		for c := range r.chans {
			ch := &r.chans[c]
			if ch.key.send {
				continue
			}
			for i := ch.start; i < ch.start+ch.n; i++ {
				if x := &r.recvs[i]; !x.matched && !x.outside {
					k := ch.key
					r.res.Pending = append(r.res.Pending, End{Loc: x.loc, Kind: x.kind, Peer: k.peer, Comm: k.comm, Tag: k.tag,
						Bytes: x.bytes, Post: x.post, Time: x.time, Ref: r.recvRef(i)})
				}
			}
		}
	})
	for _, r := range rs {
		res.add(&r.res)
	}
	rs = nil
	order := func(a, b End) int {
		return cmp.Or(cmp.Compare(a.Loc, b.Loc), cmp.Compare(a.Post, b.Post), cmp.Compare(a.Ref, b.Ref))
	}
	slices.SortStableFunc(res.Pending, order) // stable: the same order on every run (Refs may be -1)
	slices.SortStableFunc(res.Incomplete, order)
	slices.SortStableFunc(res.Mismatched, func(a, b [2]End) int { return order(a[0], b[0]) })
	m.compact()
	return m, res
}

// scratchSpace is a worker's: the operations of the rank it reads, in
// buffers reused from rank to rank, then kept in slabs of exact-size
// slices (a rank's slices growing by appends would allocate several times
// their size).
type scratchSpace struct {
	table    ctable
	chans    []channel
	chanSlab slab[channel]
	sends    [][]sendAt
	recvs    []rop
	rch      []int32
	sendRefs [][]int64
	recvRefs []int64
	sendSlab slab[sendAt]
	recvSlab slab[rop]
	fill     []int32
	int64s   slab[int64]
}

// slabSize is the number of elements of a slab.
const slabSize = 1 << 16

// slab hands out exact-size copies of slices from large blocks.
type slab[T any] struct{ free []T }

// keep returns a copy of v in the slab.
func (s *slab[T]) keep(v []T) []T {
	out := s.alloc(len(v))
	copy(out, v)
	return out
}

// alloc returns n elements of the slab.
func (s *slab[T]) alloc(n int) []T {
	if n > len(s.free) {
		s.free = make([]T, max(slabSize, n))
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}

// postAll reads the records of r's locations into posting order and
// gives each operation its channel and ordinal. Several locations of one
// rank (threads) are taken in the order of their posting times, ties by
// location and order.
func (r *rank) postAll(read Reader, sp *scratchSpace, refs bool) {
	for len(sp.sends) < len(r.locs) {
		sp.sends, sp.sendRefs = append(sp.sends, nil), append(sp.sendRefs, nil)
	}
	r.sends = sp.sends[:len(r.locs)]
	for li := range r.sends {
		r.sends[li] = r.sends[li][:0]
	}
	r.recvs, r.rch = sp.recvs[:0], sp.rch[:0]
	sp.table.reset()
	r.table, r.chans = &sp.table, sp.chans[:0]
	if refs {
		r.sendRefs, r.recvRefs = sp.sendRefs[:len(r.locs)], sp.recvRefs[:0]
		for li := range r.sendRefs {
			r.sendRefs[li] = r.sendRefs[li][:0]
		}
	}
	records := make([]int32, len(r.locs)) // send records per location
	var all []op                          // several locations: their operations, to be ordered
	var from []int32
	for li, l := range r.locs {
		st := &stream{loc: int32(l), r: &r.res, res: &r.res}
		since := 0
		if len(r.locs) == 1 {
			st.out = func(e *Record, send bool, seq int32, post int64) { r.post(li, e, send, seq, post, refs) }
		} else {
			st.out = func(e *Record, send bool, seq int32, post int64) {
				all, from = append(all, op{rec: *e, send: send, seq: seq, post: post}), append(from, int32(li))
			}
		}
		read(l, func(e *Record) {
			if since++; since == checkEvery {
				work.Check()
				since = 0
			}
			st.add(e)
		})
		st.finish()
		records[li] = st.sends
	}
	if len(r.locs) > 1 {
		idx := make([]int, len(all))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { // stable: each location in its own order
			return cmp.Or(cmp.Compare(all[a].post, all[b].post), cmp.Compare(from[a], from[b]))
		})
		for _, i := range idx {
			o := &all[i]
			r.post(int(from[i]), &o.rec, o.send, o.seq, o.post, refs)
		}
	}
	// kept in slabs, the scratch buffers left for the next rank
	sends := make([][]sendAt, len(r.locs))
	var sendRefs [][]int64
	if refs {
		sendRefs = make([][]int64, len(r.locs))
	}
	for li, n := range records { // cancelled sends at the end
		r.sends[li] = pad(r.sends[li], n)
		sends[li] = sp.sendSlab.keep(r.sends[li])
		if refs {
			for len(r.sendRefs[li]) < int(n) {
				r.sendRefs[li] = append(r.sendRefs[li], -1)
			}
			sendRefs[li] = sp.int64s.keep(r.sendRefs[li])
		}
	}
	r.sends, r.sendRefs = sends, sendRefs
	r.sendLo, r.sendHi = math.MaxInt64, math.MinInt64
	for _, ss := range r.sends {
		for _, x := range ss {
			r.sendLo, r.sendHi = min(r.sendLo, x.time), max(r.sendHi, x.time)
		}
	}
	// the receives kept by channel and ordinal: channel c's k-th receive
	// at chans[c].start + k
	n := int32(0)
	for c := range r.chans {
		if ch := &r.chans[c]; !ch.key.send {
			ch.start = n
			n += ch.n
		}
	}
	recvs := sp.recvSlab.alloc(len(r.recvs))
	var recvRefs []int64
	if refs {
		recvRefs = sp.int64s.alloc(len(r.recvs))
	}
	fill := slices.Grow(sp.fill[:0], len(r.chans))[:len(r.chans)]
	clear(fill)
	sp.fill = fill
	for i, c := range r.rch {
		j := r.chans[c].start + fill[c]
		fill[c]++
		recvs[j] = r.recvs[i]
		if refs {
			recvRefs[j] = r.recvRefs[i]
		}
	}
	sp.recvs, sp.rch, sp.recvRefs = r.recvs, r.rch, r.recvRefs
	r.recvs, r.rch, r.recvRefs = recvs, nil, recvRefs
	sp.chans, r.chans, r.table = r.chans, sp.chanSlab.keep(r.chans), nil
}

// recvRef returns Record.Ref of receive i (by channel and ordinal), -1 when not kept.
func (r *rank) recvRef(i int32) int64 {
	if r.recvRefs == nil {
		return -1
	}
	return r.recvRefs[i]
}

// sendRef returns Record.Ref of send seq of location li, -1 when not kept.
func (r *rank) sendRef(li, seq int) int64 {
	if r.sendRefs == nil {
		return -1
	}
	return r.sendRefs[li][seq]
}

// pad appends cancelled sends to s up to n, at the time of the last one
// (they are dropped: any time keeps the order of the others).
func pad(s []sendAt, n int32) []sendAt {
	for int32(len(s)) < n {
		var t int64
		if len(s) > 0 {
			t = s[len(s)-1].time
		}
		s = append(s, sendAt{ch: -1, time: t})
	}
	return s
}

// pair finds the receive of each send of r's locations and writes its
// row (pos: the row of each send record, by location and order).
func (r *rank) pair(rs []*rank, recvsOf [][]rop, base []int64, pos []int32, a, b int32, m *Messages, res *Result) {
	for li, l := range r.locs {
		rows := pos[base[l]:base[l+1]]
		for seq, at := range r.sends[li] {
			if seq&(checkEvery-1) == 0 {
				work.Check()
			}
			i := rows[seq]
			if i < a || i >= b {
				continue
			}
			m.RecvLoc[i] = -1
			if at.ch < 0 {
				continue // cancelled
			}
			ch := &r.chans[at.channel()]
			if at.k >= ch.toN {
				if at.outside() {
					continue
				}
				k := ch.key
				res.Pending = append(res.Pending, End{Loc: int32(l), Kind: at.kind(), Send: true, Peer: k.peer, Comm: k.comm, Tag: k.tag,
					Bytes: at.bytes, Post: at.time, Time: at.time, Ref: r.sendRef(li, seq)})
				continue
			}
			xi := ch.toAt + at.k
			x := &recvsOf[ch.to][xi]
			x.matched = true
			if at.outside() || x.outside { // cut by the window: no row (RecvLoc -1, compacted away)
				if !at.outside() {
					res.CutSends++
				} else if !x.outside {
					res.CutRecvs++
				}
				continue
			}
			m.SendLoc[i], m.RecvLoc[i], m.Comm[i], m.Tag[i] = int32(l), x.loc, ch.key.comm, ch.key.tag
			m.Bytes[i], m.Send[i], m.RecvPost[i], m.Recv[i] = at.bytes, at.time, x.post, x.time
			if m.RecvBytes != nil {
				m.RecvBytes[i] = x.bytes
			}
			if m.SendRef != nil {
				m.SendRef[i], m.RecvRef[i] = r.sendRefs[li][seq], rs[ch.to].recvRefs[xi]
			}
			if x.bytes != at.bytes {
				k := ch.key
				res.Mismatched = append(res.Mismatched, [2]End{
					{Loc: int32(l), Kind: at.kind(), Send: true, Peer: k.peer, Comm: k.comm, Tag: k.tag, Bytes: at.bytes, Post: at.time, Time: at.time, Ref: r.sendRef(li, seq)},
					{Loc: x.loc, Kind: x.kind, Peer: r.rank, Comm: k.comm, Tag: k.tag, Bytes: x.bytes, Post: x.post, Time: x.time, Ref: rs[ch.to].recvRef(xi)}})
			}
			if x.time < at.time {
				res.Reversed++
			}
		}
	}
}

// compact drops the rows of unmatched sends.
func (m *Messages) compact() {
	n := 0
	for i, r := range m.RecvLoc {
		if r < 0 {
			continue
		}
		m.SendLoc[n], m.RecvLoc[n], m.Comm[n], m.Tag[n] = m.SendLoc[i], r, m.Comm[i], m.Tag[i]
		m.Bytes[n], m.Send[n], m.RecvPost[n], m.Recv[n] = m.Bytes[i], m.Send[i], m.RecvPost[i], m.Recv[i]
		if m.RecvBytes != nil {
			m.RecvBytes[n] = m.RecvBytes[i]
		}
		if m.SendRef != nil {
			m.SendRef[n], m.RecvRef[n] = m.SendRef[i], m.RecvRef[i]
		}
		n++
	}
	m.SendLoc, m.RecvLoc, m.Comm, m.Tag = m.SendLoc[:n:n], m.RecvLoc[:n:n], m.Comm[:n:n], m.Tag[:n:n]
	m.Bytes, m.Send, m.RecvPost, m.Recv = m.Bytes[:n:n], m.Send[:n:n], m.RecvPost[:n:n], m.Recv[:n:n]
	if m.RecvBytes != nil {
		m.RecvBytes = m.RecvBytes[:n:n]
	}
	if m.SendRef != nil {
		m.SendRef, m.RecvRef = m.SendRef[:n:n], m.RecvRef[:n:n]
	}
}

// Gather returns col[perm[0]], col[perm[1]], ... (a StableOrder applied).
func Gather[T any](perm []int32, col []T) []T {
	work.Check()
	out := make([]T, len(perm))
	for i, j := range perm {
		out[i] = col[j]
	}
	return out
}
