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
// at once. Times are reconstructed top-down (Lemma 1): a node's enter and
// leave times are those its parent stores, the times inside it follow
// from its own durations (both agree: see the package notes).
type Iter struct {
	g     *Graph
	loc   int
	stack []iframe
	depth int // call frames on the stack, the root excluded
	buf   []int64
	st    *state
	// cs holds a decoding state (request counter, accumulated counters:
	// see state) per frame of the stack, st.k values each: the top
	// frame's at the cursor, every other frame's before its current
	// child.
	cs  []int64
	tmp []int64
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
}

// Iter returns an iterator positioned before the first event of location
// loc (an index into Locations).
func (g *Graph) Iter(loc int) *Iter {
	if loc < 0 || loc >= len(g.locs) {
		fail("ccg.Graph.Iter", "location %d out of range [0, %d)", loc, len(g.locs))
	}
	it := &Iter{g: g, loc: loc, st: g.st.states()}
	it.Reset()
	return it
}

// Reset moves the iterator before the first event.
func (it *Iter) Reset() {
	l := &it.g.locs[it.loc]
	it.stack = append(it.stack[:0], iframe{id: l.Root, start: 0, end: l.End})
	it.cs = append(it.cs[:0], make([]int64, it.st.k)...)
	clear(it.cs)
	it.depth = 0
}

func (it *Iter) store() *store { return it.g.st }

// top is the decoding state of the top frame.
func (it *Iter) top() []int64 {
	k := it.st.k
	return it.cs[len(it.cs)-k:]
}

// pushState opens the state of a new top frame: a copy of the current one.
func (it *Iter) pushState() {
	k := it.st.k
	it.cs = append(it.cs, it.cs[len(it.cs)-k:]...)
}

// popState closes the top frame's state; forward, the frame below takes
// it over (it moves past the child).
func (it *Iter) popState(forward bool) {
	k := it.st.k
	n := len(it.cs)
	if forward {
		copy(it.cs[n-2*k:n-k], it.cs[n-k:])
	}
	it.cs = it.cs[:n-k]
}

// advance moves the top state by node c's advance, sign +1 or -1.
func (it *Iter) advance(c uint32, sign int64) { it.advanceAt(len(it.cs)-it.st.k, c, sign) }

// advanceAt moves the state at it.cs[at:] by node c's advance.
func (it *Iter) advanceAt(at int, c uint32, sign int64) {
	d := it.st.delta
	if d == nil {
		return
	}
	k := it.st.k
	for j, v := range d[int(c)*k : int(c)*k+k] {
		it.cs[at+j] += sign * v
	}
}

// Next returns the event after the cursor and moves past it; ok is false
// at the end.
func (it *Iter) Next() (e Event, ok bool) { return it.next(nil) }

// next is Next; with cnt (a count per node of the atomic events wanted
// below it) it returns only those atomic events and skips every sub-graph
// without one, so the cost is the events found and their ancestors.
func (it *Iter) next(cnt []int64) (e Event, ok bool) {
	s := it.store()
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
				it.advance(c, 1)
				continue
			}
			cn := &s.nodes[c]
			switch cn.kind {
			case kAtomic:
				f.k++
				f.t = ce
				return it.atomic(c, cs, it.top()), true
			case kCall:
				it.stack = append(it.stack, iframe{id: c, t: cs, start: cs, end: ce})
				it.pushState()
				it.depth++
				if cnt == nil {
					return Event{Kind: trace.Enter, Time: cs, Region: cn.ref, Depth: it.depth - 1, Node: c}, true
				}
			default:
				it.stack = append(it.stack, iframe{id: c, t: cs, start: cs, end: ce})
				it.pushState()
			}
			continue
		}
		if len(it.stack) == 1 {
			return Event{}, false
		}
		it.stack = it.stack[:len(it.stack)-1]
		it.popState(true)
		p := &it.stack[len(it.stack)-1]
		p.k++
		p.t = f.end
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
	s := it.store()
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
				// The state before the event is the state after it less
				// the event's advance; the event decodes from a copy.
				it.advance(c, -1)
				it.tmp = append(it.tmp[:0], it.top()...)
				return it.atomic(c, cs, it.tmp), true
			}
			// Enter c at its end: the time after its last child, counted
			// from its start as Next counts it. The parent's cursor moves
			// to c (gap j, after child j-1), its state before c.
			f.k, f.t = j, cs-s.dur(nd, 2*j)
			t := cs
			for i := range 2 * int(cn.n) {
				t += s.dur(cn, i)
			}
			it.pushState()                            // c's state: after it
			it.advanceAt(len(it.cs)-2*it.st.k, c, -1) // the parent's: before it
			it.stack = append(it.stack, iframe{id: c, k: int(cn.n), t: t, start: cs, end: ce})
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
		it.popState(false)
		if nd.kind == kCall {
			it.depth--
			return Event{Kind: trace.Enter, Time: f.start, Region: nd.ref, Depth: it.depth, Node: f.id}, true
		}
	}
}

// atomic decodes atomic node c at time t with the decoding state st
// before it, which it moves past the event.
func (it *Iter) atomic(c uint32, t int64, st []int64) Event {
	s := it.store()
	nd := &s.nodes[c]
	it.buf = s.payload(it.buf[:0], nd)
	p := it.buf
	it.st.decode(st, trace.EventKind(nd.ev), p)
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
	return e
}

// Up moves the cursor to the parent of the current node, right after the
// current node (4.5.1's up: back the way the iterator came down); false
// at the root. Artificial nodes are passed through.
func (it *Iter) Up() bool {
	s := it.store()
	for len(it.stack) > 1 {
		f := it.stack[len(it.stack)-1]
		it.stack = it.stack[:len(it.stack)-1]
		it.popState(false) // the parent's state is before f: move it past f
		it.advance(f.id, 1)
		p := &it.stack[len(it.stack)-1]
		p.k++
		p.t = f.end
		if s.nodes[f.id].kind == kCall {
			it.depth--
			return true
		}
	}
	return false
}

// SeekTime moves the cursor before the first event at or after time t
// with the timestamp search of 4.5.2: O(b*d) for branching factor b and
// depth d.
func (it *Iter) SeekTime(t int64) {
	it.Reset()
	s := it.store()
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
				it.stack = append(it.stack, iframe{id: c, t: cs, start: cs, end: ce})
				it.pushState()
				if s.nodes[c].kind == kCall {
					it.depth++
				}
				descended = true
				break
			}
			f.k++
			f.t = ce
			it.advance(c, 1)
		}
		if !descended {
			return // before f's leave (or at the end)
		}
	}
}

// Path returns the regions of the calls enclosing the cursor, outermost
// first.
func (it *Iter) Path() []int32 {
	s := it.store()
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
	defer work.RecoverAs(fn)
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
