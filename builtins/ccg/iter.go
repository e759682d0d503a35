package ccg

import (
	"math"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Event is one event of a location as the graph represents it (Knüpfer
// 4.5.1): exact for a lossless graph, within the bounds otherwise.
type Event struct {
	Kind   trace.EventKind
	Time   int64 // ns
	Region int32 // Enter and Leave: region id; -1 otherwise
	Depth  int   // call depth of Enter and Leave (0: outermost call); of an atomic event, the depth of its enclosing call + 1
	Node   uint32

	// Payload of atomic events (message, collective and metric records),
	// in the layout of the trace model's side tables.
	Peer, Comm, Tag int32 // messages: peer rank in Comm; collectives: Comm
	Bytes, Request  int64 // messages
	Op              uint8 // collectives
	Root            uint32
	Sent, Received  int64
	Metric          int32 // metric samples: metric class or instance
	Types           []uint8
	Values          []uint64
}

// Iter is a random-access iterator over the events of one location of a
// graph, moving forward and backward in event order and up and down the
// graph (4.5.1). It does not change the graph; several iterators can run
// at once. Times are reconstructed top-down (Lemma 1): the enter and leave
// times of a node are those its parent stores, the times inside it follow
// from its own durations.
type Iter struct {
	g     *Graph
	loc   int
	stack []iframe
	depth int // call frames on the stack, the root excluded
	buf   []int64
	delta []int64 // each node's advance of the request counter; nil: none
}

// iframe is a node being traversed: the cursor is in gap k of it (after
// child k-1, before child k), at time t, the end of child k-1 (or the
// node's start); while a child's frame is above, k is that child's index.
// start and end are the node's enter and leave times as its parent stores
// them.
type iframe struct {
	id         uint32
	k          int
	t          int64
	start, end int64
	c, c0      int64 // the request counter at the cursor and at the node's start (see encodeReq)
}

// Iter returns an iterator positioned before the first event of location
// loc (an index into Locations).
func (g *Graph) Iter(loc int) *Iter {
	if loc < 0 || loc >= len(g.locs) {
		fail("ccg.Graph.Iter", "location %d out of range [0, %d)", loc, len(g.locs))
	}
	it := &Iter{g: g, loc: loc, delta: g.st.reqDelta()}
	it.Reset()
	return it
}

// Reset moves the iterator before the first event.
func (it *Iter) Reset() {
	l := &it.g.locs[it.loc]
	it.stack = append(it.stack[:0], iframe{id: l.Root, start: 0, end: l.End})
	it.depth = 0
}

func (it *Iter) st() *store { return it.g.st }

// advance is how far node c moves the request counter.
func (it *Iter) advance(c uint32) int64 {
	if it.delta == nil {
		return 0
	}
	return it.delta[c]
}

// Next returns the event after the cursor and moves past it; ok is false
// at the end.
func (it *Iter) Next() (e Event, ok bool) { return it.next(nil) }

// next is Next; with cnt (a count per node of the atomic events wanted
// below it) it returns only those atomic events and skips every sub-graph
// without one, so the cost is the events found and their ancestors.
func (it *Iter) next(cnt []int64) (e Event, ok bool) {
	s := it.st()
	for {
		f := &it.stack[len(it.stack)-1]
		nd := &s.nodes[f.id]
		if f.k < int(nd.n) {
			c := s.kids[nd.kids+uint32(f.k)]
			cs := f.t + s.dur(nd, 2*f.k)
			ce := cs + s.dur(nd, 2*f.k+1)
			if cnt != nil && cnt[c] == 0 {
				f.k++
				f.t = ce
				f.c += it.advance(c)
				continue
			}
			cn := &s.nodes[c]
			switch cn.kind {
			case kAtomic:
				f.k++
				f.t = ce
				var e Event
				e, f.c = it.atomic(c, cs, f.c)
				return e, true
			case kCall:
				it.stack = append(it.stack, iframe{id: c, t: cs, start: cs, end: ce, c: f.c, c0: f.c})
				it.depth++
				if cnt == nil {
					return Event{Kind: trace.Enter, Time: cs, Region: cn.ref, Depth: it.depth - 1, Node: c}, true
				}
			default:
				it.stack = append(it.stack, iframe{id: c, t: cs, start: cs, end: ce, c: f.c, c0: f.c})
			}
			continue
		}
		if len(it.stack) == 1 {
			return Event{}, false
		}
		it.stack = it.stack[:len(it.stack)-1]
		p := &it.stack[len(it.stack)-1]
		p.k++
		p.t = f.end
		p.c = f.c
		if nd.kind == kCall {
			it.depth--
			if cnt == nil {
				return Event{Kind: trace.Leave, Time: f.end, Region: nd.ref, Depth: it.depth, Node: f.id}, true
			}
		}
	}
}

// Prev returns the event before the cursor and moves before it; ok is
// false at the beginning. Next after Prev returns the same event.
func (it *Iter) Prev() (e Event, ok bool) {
	s := it.st()
	for {
		f := &it.stack[len(it.stack)-1]
		nd := &s.nodes[f.id]
		if f.k > 0 {
			j := f.k - 1
			c := s.kids[nd.kids+uint32(j)]
			ce := f.t
			cs := ce - s.dur(nd, 2*j+1)
			cn := &s.nodes[c]
			if cn.kind == kAtomic {
				f.k--
				f.t = cs - s.dur(nd, 2*j)
				// The counter before the event: the id a creating event made
				// current is the counter after it, less its code.
				before := f.c
				if ev := trace.EventKind(cn.ev); creates(ev) {
					before = f.c - it.advance(c)
				}
				e, _ := it.atomic(c, cs, before)
				f.c = before
				return e, true
			}
			// Enter c at its end: the time after its last child, counted
			// from its start as Next counts it. The parent's cursor moves
			// to c (gap j, after child j-1).
			after := f.c
			f.k, f.t, f.c = j, cs-s.dur(nd, 2*j), f.c-it.advance(c)
			t := cs
			for i := range 2 * int(cn.n) {
				t += s.dur(cn, i)
			}
			it.stack = append(it.stack, iframe{id: c, k: int(cn.n), t: t, start: cs, end: ce, c: after, c0: f.c})
			if cn.kind == kCall {
				it.depth++
				return Event{Kind: trace.Leave, Time: ce, Region: cn.ref, Depth: it.depth - 1, Node: c}, true
			}
			continue
		}
		if len(it.stack) == 1 {
			return Event{}, false
		}
		it.stack = it.stack[:len(it.stack)-1] // the parent's cursor is before f already
		if nd.kind == kCall {
			it.depth--
			return Event{Kind: trace.Enter, Time: f.start, Region: nd.ref, Depth: it.depth, Node: f.id}, true
		}
	}
}

// atomic decodes atomic node c at time t and request counter rc; it
// returns the event and the counter after it.
func (it *Iter) atomic(c uint32, t, rc int64) (Event, int64) {
	s := it.st()
	nd := &s.nodes[c]
	it.buf = s.payload(it.buf[:0], nd)
	p := it.buf
	if j := reqSlot(trace.EventKind(nd.ev)); j >= 0 {
		p[j], rc = decodeReq(trace.EventKind(nd.ev), p[j], rc)
	}
	e := Event{Kind: trace.EventKind(nd.ev), Time: t, Region: -1, Depth: it.depth, Node: c, Peer: -1, Comm: -1, Tag: -1}
	switch e.Kind {
	case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
		e.Peer, e.Comm, e.Tag, e.Bytes, e.Request = int32(p[0]), int32(p[1]), int32(p[2]), p[3], p[4]
	case trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
		e.Request = p[0]
	case trace.MpiCollectiveEnd:
		e.Op, e.Comm, e.Root, e.Sent, e.Received = uint8(p[0]), int32(p[1]), uint32(p[2]), p[3], p[4]
	case trace.Metric:
		e.Metric = int32(p[0])
		n := int(p[1])
		e.Types, e.Values = make([]uint8, n), make([]uint64, n)
		for j := range n {
			e.Types[j], e.Values[j] = uint8(p[2+2*j]), uint64(p[3+2*j])
		}
	}
	return e, rc
}

// Up moves the cursor to the parent of the current node, right after the
// current node (4.5.1's up: back the way the iterator came down); false
// at the root. Artificial nodes are passed through.
func (it *Iter) Up() bool {
	s := it.st()
	for len(it.stack) > 1 {
		f := it.stack[len(it.stack)-1]
		it.stack = it.stack[:len(it.stack)-1]
		p := &it.stack[len(it.stack)-1]
		p.k++
		p.t = f.end
		p.c = f.c0 + it.advance(f.id)
		if s.nodes[f.id].kind == kCall {
			it.depth--
			return true
		}
	}
	return false
}

// SeekTime moves the cursor before the first event at or after time t (for a
// lossy graph: the first in event order whose reconstructed time is >= t
// when times are in order there) with the timestamp search of 4.5.2:
// O(b*d) for branching factor b and depth d.
func (it *Iter) SeekTime(t int64) {
	it.Reset()
	s := it.st()
	for {
		f := &it.stack[len(it.stack)-1]
		nd := &s.nodes[f.id]
		descended := false
		for f.k < int(nd.n) {
			c := s.kids[nd.kids+uint32(f.k)]
			cs := f.t + s.dur(nd, 2*f.k)
			ce := cs + s.dur(nd, 2*f.k+1)
			if cs >= t {
				return // before child k
			}
			if ce >= t && s.nodes[c].kind != kAtomic {
				it.stack = append(it.stack, iframe{id: c, t: cs, start: cs, end: ce, c: f.c, c0: f.c})
				if s.nodes[c].kind == kCall {
					it.depth++
				}
				descended = true
				break
			}
			f.k++
			f.t = ce
			f.c += it.advance(c)
		}
		if !descended {
			return // before f's leave (or at the end)
		}
	}
}

// Path returns the regions of the calls enclosing the cursor, outermost
// first.
func (it *Iter) Path() []int32 {
	s := it.st()
	var out []int32
	for _, f := range it.stack[1:] {
		if nd := &s.nodes[f.id]; nd.kind == kCall {
			out = append(out, nd.ref)
		}
	}
	return out
}

// Process decompresses location loc into a trace.Process (events and side
// tables rebuilt from the graph): equal to the original for a lossless
// graph of a properly nested location.
func (g *Graph) Process(loc int) *trace.Process {
	const fn = "ccg.Graph.Process"
	defer recoverAs(fn)
	if loc < 0 || loc >= len(g.locs) {
		fail(fn, "location %d out of range [0, %d)", loc, len(g.locs))
	}
	l := &g.locs[loc]
	// A small graph can stand for very many events: check before decompressing.
	if err := work.Reserve(fn, 17*l.Events); err != nil {
		panic(err)
	}
	p := &trace.Process{Index: l.Index, Rank: l.Rank, Thread: l.Thread, Name: l.Name}
	p.Kind = make([]trace.EventKind, 0, l.Events)
	p.Time = make([]int64, 0, l.Events)
	p.Ref = make([]int32, 0, l.Events)
	it := g.Iter(loc)
	for i := 0; ; i++ {
		if i&(1<<16-1) == 0 {
			work.Check()
		}
		e, ok := it.Next()
		if !ok {
			break
		}
		ref := e.Region
		switch e.Kind {
		case trace.Enter, trace.Leave:
		case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv, trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
			ref = p.Msgs.Add(e.Peer, e.Comm, e.Tag, e.Bytes, e.Request)
		case trace.MpiCollectiveEnd:
			ref = p.Colls.Add(e.Op, e.Comm, e.Root, e.Sent, e.Received)
		case trace.Metric:
			ref = p.Metrics.Add(e.Metric, e.Types, e.Values)
		default:
			ref = -1
		}
		p.Kind = append(p.Kind, e.Kind)
		p.Time = append(p.Time, e.Time)
		p.Ref = append(p.Ref, ref)
	}
	return p
}

// Trace decompresses every location into a trace with the graph's
// definitions.
func (g *Graph) Trace() *trace.Trace {
	procs := make([]*trace.Process, len(g.locs))
	for i := range g.locs {
		procs[i] = g.Process(i)
	}
	return trace.NewTrace(g.defs, procs)
}

// clip is the length of [a, b) ∩ [t0, t1).
func clip(a, b, t0, t1 int64) int64 {
	lo, hi := max(a, t0), min(b, t1)
	if hi <= lo {
		return 0
	}
	return hi - lo
}

const maxTime = math.MaxInt64
