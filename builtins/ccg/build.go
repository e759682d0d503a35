package ccg

import (
	"math"
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Times in a lossy graph (Knüpfer 3.2.1, 3.3.1, Lemmas 4-5). A node
// stores 2n+1 durations: the gaps before and between its children, each
// child's total, and its own last gap. As in the seed, a node's enter and
// leave are the times its parent stores (Lemma 1); the times inside it
// come from its own durations. So a node's own last gap is never read:
// its leave comes from the total its parent stores, and the time from its
// last inner event to its leave (its last gap as the graph holds it) is
// that total less the node's prefix (the sum of its other durations).
// The builder places that leave per reference, in the parent, within the
// relative bound of the original last gap; a replacement is accepted only
// if its gaps are within the bound of the gaps they stand for and every
// child's last gap, as its stored total puts it, is within the bound of
// the original last gap (match). So the time between any two consecutive
// events of a location — a gap of a node, or a child's last gap as its
// parent puts it, or a sum of those through artificial nodes — is within
// eq. 3.6 of the original, never negative where the original is not, and
// no event moves before its predecessor. (The seed stores the original
// total in the parent and bounds only a node's own durations, which
// leaves the last gap of a replaced child bounded by nothing.)
//
// A replacement may put its events earlier or later than the originals;
// the builder carries that drift in the enclosing call and places the
// following events (and every leave) back towards their original times,
// each gap changed by no more than the relative bound allows (placeGap).
// A leaf call's duration is its last gap: its parent stores it within the
// bound, so leaf calls of one region share one node. Time stamps: the
// builder knows the deviation of every open call's start (assuming the
// open calls are kept), so a replacement is accepted only if its time
// stamps, moved by that offset, stay within Abs (Lemma 4 with T moved by
// the offset); placed gaps only shrink a deviation; and when an open call
// is replaced after all, Lemma 4 checks its replacement against its own
// original durations and its children's intervals. So every time stamp is
// within Abs of the original.

// entry is a finalised child of a node under construction: its node id,
// its original enter and leave times, the times at which the graph puts
// them, and its deviation intervals.
type entry struct {
	id           uint32
	start, end   int64    // original times
	rstart, rend int64    // reconstructed times (the open calls kept as they are)
	dev          interval // Lemma 5's E without the end, relative to the start: (t' - rstart) - (t - start)
	vis          interval // the observed deviations of the events inside, relative to the start likewise
	pre          int64    // the node's prefix: from its start to its last inner event, as the graph holds it
	lg           int64    // the original last gap: end less the original time of the last inner event
	rel          float64  // the relative bound of its last gap (its own gaps' bound)
}

// frame is an open call (a construction node, 4.1.3): its children so far,
// grouped by child level for early splitting (4.1.2). ents holds the levels
// highest (oldest) first; lv[l] counts the entries of level l, which are the
// ents right after those of level l+1.
type frame struct {
	ref           int32
	start, rstart int64   // original and reconstructed enter times
	rel           float64 // the relative bound of the gaps inside
	ents          []entry
	lv            []int32
}

// cursor returns the original and reconstructed times after f's last
// child (its enter time without one).
func (f *frame) cursor() (t, r int64) {
	if n := len(f.ents); n > 0 {
		return f.ents[n-1].end, f.ents[n-1].rend
	}
	return f.start, f.rstart
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
	req int64 // the request counter (see encodeReq)

	slack int64              // the drift placeGap leaves (see build)
	mpi   []bool             // regions that are MPI calls (Bounds.MPIRel)
	accum [][]bool           // accum[metric][j]: value j of metric's samples accumulates (deltaType)
	prev  map[[2]int64]int64 // the latest value of each accumulated counter
}

// counters stores the accumulated values of metric sample payload p as
// differences from the previous sample (see deltaType).
func (bd *builder) counters(p []int64) {
	m := p[0]
	if m < 0 || int(m) >= len(bd.accum) {
		return
	}
	acc := bd.accum[m]
	for j := 0; 2+2*j+1 < len(p) && j < len(acc); j++ {
		t := p[2+2*j]
		if !acc[j] || t != trace.MetricUint64 && t != trace.MetricInt64 {
			continue
		}
		key := counterKey(m, j)
		v := p[3+2*j]
		p[2+2*j], p[3+2*j] = t|deltaType, v-bd.prev[key] // wraps as the counter does
		bd.prev[key] = v
	}
}

// accumulated marks, per metric class of defs, its members that
// accumulate (trace.MetricMember.Accumulated).
func accumulated(defs *trace.Definitions) [][]bool {
	if defs == nil {
		return nil
	}
	out := make([][]bool, len(defs.MetricClasses))
	for i, c := range defs.MetricClasses {
		out[i] = make([]bool, len(c.Members))
		for j, m := range c.Members {
			out[i][j] = m >= 0 && int(m) < len(defs.MetricMembers) && defs.MetricMembers[m].Accumulated()
		}
	}
	return out
}

func newBuilder(s *store, b *Bounds, k int) *builder {
	return &builder{s: s, b: b, k: k}
}

// place returns the reconstructed time of the next event of f, at
// original time at (see placeGap).
func (bd *builder) place(f *frame, at int64) int64 {
	t, r := f.cursor()
	return placeGap(f.rel, bd.slack, t, r, at)
}

// placeGap returns the reconstructed time of an event at original time
// at after one at original time t, reconstructed at r: the gap before it
// stays within rel of the original gap and never negative, and takes back
// as much of the drift (r - t) beyond slack as that allows. A negative
// original gap stays as it is.
func placeGap(rel float64, slack, t, r, at int64) int64 {
	g := at - t
	drift := r - t
	if g <= 0 || rel == 0 || drift >= -slack && drift <= slack {
		return r + g
	}
	want := g - (drift - min(max(drift, -slack), slack))
	lo, hi := int64(0), int64(math.MaxInt64)
	if rel > 0 {
		d := int64(rel * float64(g)) // floor: |g' - g| <= rel*g, as within checks it
		lo, hi = max(0, g-d), g+d
	}
	return r + min(max(want, lo), hi)
}

// relIn returns the relative bound inside a call of region ref opened in
// f: f's, or the tighter Bounds.MPIRel in an MPI call.
func (bd *builder) relIn(f *frame, ref int32) float64 {
	rel := f.rel
	if m := bd.b.MPIRel; m > 0 && ref >= 0 && int(ref) < len(bd.mpi) && bd.mpi[ref] && (rel < 0 || m < rel) {
		rel = m
	}
	return rel
}

// mpiRegions marks the regions of defs that are MPI calls: paradigm "mpi",
// or a name starting "MPI_" where the paradigm is unknown.
func mpiRegions(defs *trace.Definitions) []bool {
	if defs == nil {
		return nil
	}
	m := make([]bool, len(defs.Regions))
	for i, r := range defs.Regions {
		m[i] = r.Paradigm == "mpi" || (r.Paradigm == "" || r.Paradigm == "unknown") && strings.HasPrefix(r.Name, "MPI_")
	}
	return m
}

// push opens a frame for a call of region ref entered at original time
// at (early splitting of its parent first, 4.1.2: the seed's enter event).
func (bd *builder) push(ref int32, at int64) {
	p := &bd.frames[bd.depth-1]
	bd.split(p)
	r := bd.place(p, at)
	rel := bd.relIn(p, ref)
	if bd.depth == len(bd.frames) {
		bd.frames = append(bd.frames, frame{}) // p is not used after this
	}
	f := &bd.frames[bd.depth]
	f.ref, f.start, f.rstart, f.rel, f.ents, f.lv = ref, at, r, rel, f.ents[:0], append(f.lv[:0], 0)
	bd.depth++
}

// finish finalises the node of kind and ref over ents (start and end are
// its original enter and leave times, rstart its reconstructed enter; rel
// the bound of its gaps) and returns its entry, its leave placed.
func (bd *builder) finish(kind uint8, ref int32, start, end, rstart int64, rel float64, ents []entry) entry {
	t := &bd.t
	t.kind, t.ev, t.ref, t.rel = kind, 0, ref, rel
	t.kids, t.devs, t.vis, t.dur, t.sdur, t.pay = t.kids[:0], t.devs[:0], t.vis[:0], t.dur[:0], t.sdur[:0], t.pay[:0]
	t.pre, t.lg, t.crel = t.pre[:0], t.lg[:0], t.crel[:0]
	prev, rprev := start, rstart
	for _, e := range ents {
		t.kids = append(t.kids, e.id)
		t.devs = append(t.devs, e.dev)
		t.vis = append(t.vis, e.vis)
		t.pre, t.lg, t.crel = append(t.pre, e.pre), append(t.lg, e.lg), append(t.crel, e.rel)
		t.dur = append(t.dur, e.start-prev, e.end-e.start) // eq. 4.3
		t.sdur = append(t.sdur, e.rstart-rprev, e.rend-e.rstart)
		prev, rprev = e.end, e.rend
	}
	// The leave, if t is kept: placed after its last inner event.
	rend := placeGap(rel, bd.slack, prev, rprev, end)
	t.dur = append(t.dur, end-prev)
	t.sdur = append(t.sdur, rend-rprev)
	if bd.b.Abs >= 0 {
		off := rstart - start
		t.tlo, t.thi = -bd.b.Abs-off, bd.b.Abs-off
	}
	id, e, v, pre, mrel, kept := bd.commit()
	if kept {
		e, v, _, mrel, _ = bd.s.lemma4(nil, t.sdur, t, false, false)
		pre = rprev - rstart
	} else {
		// The replacement's last inner event is at rstart+pre: the leave
		// follows after the original last gap, placed.
		rend = placeGap(rel, bd.slack, prev, rstart+pre, end)
	}
	if r, _ := within(rend-(rstart+pre), end-prev, rel); r > mrel {
		mrel = r
	}
	bd.loc.MaxRel = max(bd.loc.MaxRel, mrel)
	return entry{id: id, start: start, end: end, rstart: rstart, rend: rend, dev: e, vis: v, pre: pre, lg: end - prev, rel: rel}
}

// commit stores or replaces bd.t and accounts for it.
func (bd *builder) commit() (id uint32, e, v interval, pre int64, rel float64, kept bool) {
	t := &bd.t
	sz := t.size()
	id, e, v, pre, rel, kept = bd.s.put(t, bd.b)
	l := &bd.loc
	l.N++
	l.M += sz
	if !kept {
		l.Replaced++
	}
	return id, e, v, pre, rel, kept
}

// atomic finalises an atomic event of kind ev at time at with payload
// event i of p (early splitting of its parent first: the wrapped nodes
// use bd.t).
func (bd *builder) atomic(ev trace.EventKind, at int64, p *trace.Process, i int) {
	f := &bd.frames[bd.depth-1]
	bd.split(f)
	r := bd.place(f, at)
	t := &bd.t
	t.pay = appendPayload(t.pay[:0], p, i)
	if j := reqSlot(ev); j >= 0 {
		t.pay[j], bd.req = encodeReq(ev, t.pay[j], bd.req)
	} else if ev == trace.Metric {
		bd.counters(t.pay)
	}
	t.kind, t.ev, t.ref, t.rel = kAtomic, uint8(ev), 0, f.rel
	t.kids, t.devs, t.vis, t.dur, t.sdur = t.kids[:0], t.devs[:0], t.vis[:0], t.dur[:0], t.sdur[:0]
	id, _, _, _, _, _ := bd.commit()
	bd.add(f, entry{id: id, start: at, end: at, rstart: r, rend: r, vis: none})
}

// split wraps f's full levels before a child is added (early stage,
// 4.1.2).
func (bd *builder) split(f *frame) {
	for l := 0; l < len(f.lv) && int(f.lv[l]) == bd.k; l++ {
		bd.wrap(f, l)
	}
}

// add appends a finished child to f (split before it started).
func (bd *builder) add(f *frame, e entry) {
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
		e := bd.finish(kSplit, 0, ents[0].start, ents[k-1].end, ents[0].rstart, f.rel, ents)
		f.ents = append(f.ents[:n-k], e)
	}
	f.lv[l] = 0
	if l+1 == len(f.lv) {
		f.lv = append(f.lv, 0)
	}
	f.lv[l+1]++
}

// close splits the innermost frame late (4.1.2) and finalises it at
// original time end; it returns the entry.
func (bd *builder) close(end int64) entry {
	f := &bd.frames[bd.depth-1]
	for l := 0; len(f.ents) > bd.k; l++ {
		if f.lv[l] > 0 {
			bd.wrap(f, l)
		}
	}
	return bd.finish(kCall, f.ref, f.start, end, f.rstart, f.rel, f.ents)
}

// pop closes the innermost frame at time end and adds it to its parent.
func (bd *builder) pop(end int64) {
	e := bd.close(end)
	bd.depth--
	bd.add(&bd.frames[bd.depth-1], e)
}

// build constructs the graph of p's events (of a trace with definitions
// defs) into s and returns the location record (root, counts,
// deviations). job counts events.
func build(s *store, b *Bounds, k int, p *trace.Process, defs *trace.Definitions, job *work.Job) Location {
	bd := newBuilder(s, b, k)
	bd.accum, bd.prev = accumulated(defs), map[[2]int64]int64{}
	// Gaps are stored as they were while the drift stays within 3/4 of
	// the absolute bound (any drift without one); beyond, they take it
	// back. Gaps kept as they were match more candidates later; drift
	// leaves less room for replacements (Lemma 4's T moves by it): 3/4
	// compressed the SMG2000-shaped trace best at the seed's medium
	// setting (R_nodes 76 against 69 at 1/2, 68 at 1, 35 at 0; large: 247,
	// 219, 309, 121).
	bd.slack = b.Abs / 4 * 3
	if b.Abs < 0 {
		bd.slack = math.MaxInt64
	}
	if b.MPIRel > 0 {
		bd.mpi = mpiRegions(defs)
	}
	bd.loc = Location{Index: p.Index, Name: p.Label(), Rank: p.Rank, Thread: p.Thread, Events: int64(len(p.Kind)), clip: p.Clip}
	bd.frames = append(bd.frames[:0], frame{ref: -1, rel: b.Rel})
	bd.frames[0].lv = append(bd.frames[0].lv, 0)
	bd.depth = 1
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
			bd.atomic(kind, at, p, i)
		}
	}
	job.Add(int64(len(p.Kind) % chunk))
	bd.loc.Repairs.OpenAtEnd = int64(bd.depth - 1)
	for bd.depth > 1 {
		bd.pop(last)
	}
	e := bd.close(last)
	bd.loc.Root, bd.loc.End = e.id, e.rend
	dev := e.vis.hull(0) // the interval holds 0
	bd.loc.DevMin, bd.loc.DevMax, bd.loc.DevExact = dev.lo, dev.hi, true
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
