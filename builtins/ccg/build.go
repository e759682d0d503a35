package ccg

import (
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// entry is a finalised child of a node under construction: its node id,
// its enter and leave times and its deviation interval (Lemma 5).
type entry struct {
	id         uint32
	start, end int64
	dev        interval // Lemma 5's E
	vis        interval // the observed deviations of the events inside (see store.match)
}

// frame is an open call (a construction node, 4.1.3): its children so far,
// grouped by child level for early splitting (4.1.2). ents holds the levels
// highest (oldest) first; lv[l] counts the entries of level l, which are the
// ents right after those of level l+1.
type frame struct {
	ref   int32
	start int64
	ents  []entry
	lv    []int32
}

// builder runs the combined construction and compression of 4.3 for one
// location.
type builder struct {
	s *store
	b *Bounds // the bounds nodes are compared under
	k int     // branching factor

	frames []frame // the call stack; frames[0] is the root
	depth  int     // open frames (frames beyond are reused storage)
	t      temp

	loc Location
	dev interval // observed deviations (see commit)
	req int64    // the request counter (see encodeReq)
}

func newBuilder(s *store, b *Bounds, k int) *builder {
	return &builder{s: s, b: b, k: k}
}

// push opens a frame.
func (bd *builder) push(ref int32, start int64) {
	if bd.depth == len(bd.frames) {
		bd.frames = append(bd.frames, frame{})
	}
	f := &bd.frames[bd.depth]
	f.ref, f.start, f.ents, f.lv = ref, start, f.ents[:0], append(f.lv[:0], 0)
	bd.depth++
}

// finish finalises the node of kind and ref over ents (start and end are
// its enter and leave times) and returns its entry.
func (bd *builder) finish(kind uint8, ref int32, start, end int64, ents []entry) entry {
	t := &bd.t
	t.kind, t.ev, t.ref = kind, 0, ref
	t.kids, t.devs, t.vis, t.dur, t.pay = t.kids[:0], t.devs[:0], t.vis[:0], t.dur[:0], t.pay[:0]
	prev := start
	for _, e := range ents {
		t.kids = append(t.kids, e.id)
		t.devs = append(t.devs, e.dev)
		t.vis = append(t.vis, e.vis)
		t.dur = append(t.dur, e.start-prev, e.end-e.start) // eq. 4.3
		prev = e.end
	}
	t.dur = append(t.dur, end-prev)
	return bd.commit(start, end)
}

// commit stores or replaces bd.t and accounts for it.
func (bd *builder) commit(start, end int64) entry {
	t := &bd.t
	sz := t.size()
	id, e, v, rel, kept := bd.s.put(t, bd.b)
	l := &bd.loc
	l.N++
	l.M += sz
	if kept {
		// No ancestor of a kept node can be replaced (its parent's
		// children would include a new node), so its children's
		// deviations are final: they are observed deviations.
		for _, d := range t.vis {
			bd.dev = bd.dev.hullI(d)
		}
	} else {
		l.Replaced++
		l.MaxRel = max(l.MaxRel, rel)
	}
	return entry{id: id, start: start, end: end, dev: e, vis: v}
}

// atomic finalises an atomic event at time t with payload bd.t.pay.
func (bd *builder) atomic(ev trace.EventKind, at int64) {
	t := &bd.t
	t.kind, t.ev, t.ref = kAtomic, uint8(ev), 0
	t.kids, t.devs, t.vis, t.dur = t.kids[:0], t.devs[:0], t.vis[:0], t.dur[:0]
	bd.add(&bd.frames[bd.depth-1], bd.commit(at, at))
}

// add appends a finished child to f, first splitting f's full levels
// (early stage, 4.1.2).
func (bd *builder) add(f *frame, e entry) {
	for l := 0; l < len(f.lv) && int(f.lv[l]) == bd.k; l++ {
		bd.wrap(f, l)
	}
	f.ents = append(f.ents, e)
	f.lv[0]++
}

// wrap replaces the entries of level l of f (the last ones: every lower
// level is empty) by an artificial node of level l+1.
func (bd *builder) wrap(f *frame, l int) {
	k := int(f.lv[l])
	n := len(f.ents)
	if k > 1 {
		ents := f.ents[n-k:]
		e := bd.finish(kSplit, 0, ents[0].start, ents[k-1].end, ents)
		f.ents = append(f.ents[:n-k], e)
	}
	f.lv[l] = 0
	if l+1 == len(f.lv) {
		f.lv = append(f.lv, 0)
	}
	f.lv[l+1]++
}

// pop closes the innermost frame at time end (late-stage splitting, then
// finalisation) and adds it to its parent.
func (bd *builder) pop(end int64) {
	f := &bd.frames[bd.depth-1]
	for l := 0; len(f.ents) > bd.k; l++ {
		if f.lv[l] > 0 {
			bd.wrap(f, l)
		}
	}
	e := bd.finish(kCall, f.ref, f.start, end, f.ents)
	bd.depth--
	bd.add(&bd.frames[bd.depth-1], e)
}

// build constructs the graph of p's events into s and returns the
// location record (root, counts, deviations). job counts events.
func build(s *store, b *Bounds, k int, p *trace.Process, job *work.Job) Location {
	bd := newBuilder(s, b, k)
	bd.dev = none
	bd.loc = Location{Index: p.Index, Name: p.Label(), Rank: p.Rank, Thread: p.Thread, Events: int64(len(p.Kind))}
	bd.push(-1, 0)
	var last int64
	const chunk = 1 << 16
	for i, kind := range p.Kind {
		if i&(chunk-1) == chunk-1 {
			if err := job.Add(chunk); err != nil {
				panic(err)
			}
		}
		at := p.Time[i]
		last = at
		switch kind {
		case trace.Enter:
			bd.push(p.Ref[i], at)
		case trace.Leave:
			n := bd.depth - 1 // open calls
			r := p.Ref[i]
			if n > 0 && (r < 0 || bd.frames[n].ref == r) {
				bd.pop(at)
			} else if d := trace.MatchLeave(n, r, func(d int) int32 { return bd.frames[d+1].ref }, &bd.loc.Repairs); d >= 0 {
				for bd.depth > d+1 {
					bd.pop(at)
				}
			}
		default:
			bd.t.pay = appendPayload(bd.t.pay[:0], p, i)
			if j := reqSlot(kind); j >= 0 {
				bd.t.pay[j], bd.req = encodeReq(kind, bd.t.pay[j], bd.req)
			}
			bd.atomic(kind, at)
		}
	}
	job.Add(int64(len(p.Kind) % chunk))
	bd.loc.Repairs.OpenAtEnd = int64(bd.depth - 1)
	for bd.depth > 1 {
		bd.pop(last)
	}
	root := &bd.frames[0]
	for l := 0; len(root.ents) > bd.k; l++ {
		if root.lv[l] > 0 {
			bd.wrap(root, l)
		}
	}
	e := bd.finish(kCall, -1, 0, last, root.ents)
	bd.loc.Root, bd.loc.End = e.id, last
	bd.dev = bd.dev.hullI(e.vis)
	if bd.dev.empty() {
		bd.dev = interval{}
	}
	bd.loc.DevMin, bd.loc.DevMax, bd.loc.DevExact = bd.dev.lo, bd.dev.hi, true
	return bd.loc
}

// appendPayload appends the payload of event i of p (layouts at field),
// request ids as they are (build encodes them).
func appendPayload(dst []int64, p *trace.Process, i int) []int64 {
	r := p.Ref[i]
	switch p.Kind[i] {
	case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
		m := &p.Msgs
		return append(dst, int64(m.Peer[r]), int64(m.Comm[r]), int64(m.Tag[r]), m.Bytes[r], m.Request[r])
	case trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
		return append(dst, p.Msgs.Request[r])
	case trace.MpiCollectiveEnd:
		c := &p.Colls
		return append(dst, int64(c.Op[r]), int64(c.Comm[r]), int64(c.Root[r]), c.Sent[r], c.Received[r])
	case trace.Metric:
		m := &p.Metrics
		lo, hi := m.Start[r], m.Start[r+1]
		dst = append(dst, int64(m.Metric[r]), int64(hi-lo))
		for j := lo; j < hi; j++ {
			dst = append(dst, int64(m.Types[j]), int64(m.Values[j]))
		}
		return dst
	}
	return dst
}
