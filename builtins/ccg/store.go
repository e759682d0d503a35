package ccg

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Node kinds.
const (
	kCall   uint8 = iota // a function call (ref: region id; -1 for a location's root)
	kSplit               // an artificial node of a split wide node (4.1.2)
	kAtomic              // a non-call event (ev: its trace.EventKind), always a leaf
)

// node is the permanent encoding of a graph node (4.1.3): 24 bytes plus
// its children (4 bytes each) and its durations (width bytes each) or
// payload (varints) in the store's arenas. No Go pointers (4.1.4).
type node struct {
	kind  uint8
	ev    uint8  // trace.EventKind of an atomic node
	width uint8  // bytes per duration: 1, 2, 4 or 8 (call and split nodes)
	_     uint8  //
	n     uint32 // children (call, split) or payload values (atomic)
	ref   int32  // region id of a call node; -1 for a root
	kids  uint32 // first child in store.kids
	data  uint64 // first byte in store.data: 2n+1 durations, or the payload
}

const nodeBytes = 24

// store holds the nodes of one or more locations' graphs: the arenas and
// the replacement index (hash -> S-list of candidates, 4.2.1-4.2.2).
// Node ids are in finalisation order, so children precede their parents.
type store struct {
	nodes []node
	kids  []uint32
	data  []byte

	idx    index
	lists  [][]cand         // S-lists with more than one candidate: the cache area, <= L entries
	listOf map[uint32]int32 // S-list of a head candidate, for those
	L      int
	hash   Bounds // which soft properties are hashed: those that are exact (0)

	m int64 // bytes of the nodes: once sealed, of the arenas (R_memory's m with the locations)

	hashes []uint64 // each node's hash (rehashing the index reads them)

	stateOnce sync.Once
	state     *state      // see states
	front     []frontSlot // put's direct-mapped cache, grown with the store
	puts      int         // calls of put (the front cache grows with them)

	scratch []int64 // payload decoding
}

func newStore(hash Bounds, L int) *store {
	return &store{hash: hash, L: L, idx: newIndex(1 << 10)}
}

// seal ends construction: the replacement index, the S-lists, the node
// hashes and put's cache are only needed while nodes are added, and the
// arenas, grown by doubling, are cut to their length, so that the store
// holds its nodes and nothing else (R_memory's m counts what it holds).
// Nothing may be put into a sealed store.
func (s *store) seal() {
	s.idx, s.lists, s.listOf, s.hashes, s.front, s.scratch = index{}, nil, nil, nil, nil, nil
	s.nodes, s.kids, s.data = exact(s.nodes), exact(s.kids), exact(s.data)
}

// exact returns s in an array of its length.
func exact[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// frontSize is the largest number of entries of put's direct-mapped cache.
const frontSize = 1 << 15

type frontSlot struct {
	h  uint64
	id uint32 // node + 1; 0: empty
}

// temp is a node under finalisation (4.1.3's construction node).
type temp struct {
	kind, ev uint8
	ref      int32
	dur      []int64    // 2n+1 durations (call, split): the original ones, which a candidate is compared with
	sdur     []int64    // the durations stored if t is kept: consistent with its children as stored (nil: dur)
	kids     []uint32   // children ids
	devs     []interval // deviation interval of each child's sub-tree (Lemma 5)
	vis      []interval // observed deviations of each child's events (nil: not tracked)
	pre      []int64    // each child's prefix (the time from its start to its last inner event; a property of the child node)
	lg       []int64    // each child's original last gap (from its last inner event to its end)
	crel     []float64  // the relative bound of each child's last gap
	pay      []int64    // payload (atomic)

	// rel is the relative bound of t's gaps (Bounds.Rel, or the tighter
	// MPIRel inside MPI calls); tlo and thi the deviation interval its
	// time stamps may have relative to its start: Lemma 4's T moved by
	// the deviation of t's own start (see the builder).
	rel      float64
	tlo, thi int64
}

// prefix is the sum of t's original durations but the last: the time
// from its start to its last inner event.
func (t *temp) prefix() int64 {
	var p int64
	for _, d := range t.dur[:max(0, len(t.dur)-1)] {
		p += d
	}
	return p
}

// stored returns the durations kept if t is kept.
func (t *temp) stored() []int64 {
	if t.sdur != nil {
		return t.sdur
	}
	return t.dur
}

// widthOf is the smallest width that holds every duration (4.1.3).
func widthOf(d []int64) uint8 {
	var mx uint64
	for _, v := range d {
		if v < 0 {
			return 8
		}
		mx |= uint64(v)
	}
	switch {
	case mx <= math.MaxUint8:
		return 1
	case mx <= math.MaxUint16:
		return 2
	case mx <= math.MaxUint32:
		return 4
	}
	return 8
}

// size is a node's memory in bytes as stored (R_memory counts these).
func (t *temp) size() int64 {
	if t.kind == kAtomic {
		n := 0
		var buf [binary.MaxVarintLen64]byte
		for _, v := range t.pay {
			n += binary.PutVarint(buf[:], v)
		}
		return nodeBytes + int64(n)
	}
	return nodeBytes + 4*int64(len(t.kids)) + int64(widthOf(t.stored()))*int64(len(t.dur))
}

// dur returns duration i of call or split node nd.
func (s *store) dur(nd *node, i int) int64 {
	o := nd.data + uint64(i)*uint64(nd.width)
	switch nd.width {
	case 1:
		return int64(s.data[o])
	case 2:
		return int64(binary.LittleEndian.Uint16(s.data[o:]))
	case 4:
		return int64(binary.LittleEndian.Uint32(s.data[o:]))
	}
	return int64(binary.LittleEndian.Uint64(s.data[o:]))
}

// durs appends the 2n+1 durations of nd to dst.
func (s *store) durs(dst []int64, nd *node) []int64 {
	k := 2*int(nd.n) + 1
	for i := range k {
		dst = append(dst, s.dur(nd, i))
	}
	return dst
}

// total is the sum of nd's durations: its length in time.
func (s *store) total(nd *node) int64 {
	var t int64
	for i := range 2*int(nd.n) + 1 {
		t += s.dur(nd, i)
	}
	return t
}

// prefixes returns each node's prefix: the sum of its durations but the
// last (0 for atomic nodes and leaves).
func (s *store) prefixes() []int64 {
	pre := make([]int64, len(s.nodes))
	for i := range s.nodes {
		if nd := &s.nodes[i]; nd.kind != kAtomic {
			for j := range 2 * int(nd.n) {
				pre[i] += s.dur(nd, j)
			}
		}
	}
	return pre
}

// children returns nd's children ids (shared; do not modify).
func (s *store) children(nd *node) []uint32 {
	return s.kids[nd.kids : nd.kids+nd.n]
}

// payload decodes an atomic node's payload into dst.
func (s *store) payload(dst []int64, nd *node) []int64 {
	b := s.data[nd.data:]
	for range nd.n {
		v, k := binary.Varint(b)
		dst = append(dst, v)
		b = b[k:]
	}
	return dst
}

// Payload fields and the bound that applies to each.
const (
	fHard = iota
	fBytes
	fRequest
	fColl
	fCounter
)

// field returns which bound governs payload value i of an atomic node of
// kind ev. Layouts: messages [peer comm tag bytes request]; request-only
// records [request]; collective ends [op comm root sent received]; metric
// samples [metric count type0 value0 type1 value1 ...].
func field(ev uint8, i int) int {
	switch trace.EventKind(ev) {
	case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
		switch i {
		case 3:
			return fBytes
		case 4:
			return fRequest
		}
	case trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
		return fRequest
	case trace.MpiCollectiveEnd:
		if i >= 3 {
			return fColl
		}
	case trace.Metric:
		if i >= 2 && (i-2)%2 == 1 {
			return fCounter
		}
	}
	return fHard
}

// exactField reports whether field kind f is compared exactly under bounds b.
func exactField(b *Bounds, f int) bool {
	switch f {
	case fBytes:
		return b.Bytes == 0
	case fRequest:
		return b.Requests == 0
	case fColl:
		return b.CollBytes == 0
	case fCounter:
		return b.Counter == 0
	}
	return true
}

// exactDur reports whether durations are compared exactly under b: a zero
// absolute bound admits no difference in any duration (s_1 = d_0' - d_0
// must be 0, and so on), and neither does a zero relative bound.
func exactDur(b *Bounds) bool { return b.Abs == 0 || b.Rel == 0 }

// exactUnder reports whether b compares every soft property of t exactly.
// Under the store's hash bounds that means t's S-list holds one candidate.
func exactUnder(b *Bounds, t *temp) bool {
	if t.kind != kAtomic {
		return exactDur(b)
	}
	for i := range t.pay {
		if !exactField(b, field(t.ev, i)) {
			return false
		}
	}
	return true
}

func mix(h, v uint64) uint64 {
	h ^= v
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// hashOf hashes t's node type, hard properties, children and the soft
// properties that s compares exactly (4.2.1).
func (s *store) hashOf(t *temp) uint64 { return hashUnder(t, &s.hash, t.dur) }

// hashUnder hashes t's node type, hard properties, children and the soft
// properties that b compares exactly (all of them under Lossless), with
// durations dur.
func hashUnder(t *temp, b *Bounds, dur []int64) uint64 {
	h := mix(0x243F6A8885A308D3, uint64(t.kind)|uint64(t.ev)<<8|uint64(len(t.kids))<<16|uint64(len(t.pay))<<40)
	h = mix(h, uint64(uint32(t.ref)))
	for _, k := range t.kids {
		h = mix(h, uint64(k))
	}
	if t.kind == kAtomic {
		for i, v := range t.pay {
			if exactField(b, field(t.ev, i)) {
				h = mix(h, uint64(v))
			}
		}
	} else if exactDur(b) {
		for _, d := range dur[:max(0, len(dur)-1)] { // not the last gap: see sameUnder
			h = mix(h, uint64(d))
		}
	}
	return h
}

// sameHard reports whether node id has t's type, hard properties and
// children, and equal values of the soft properties that s compares
// exactly.
func (s *store) sameHard(id uint32, t *temp) bool { return s.sameUnder(id, t, &s.hash) }

// sameUnder is sameHard for the soft properties b compares exactly (all of
// them under Lossless: node id equals t).
func (s *store) sameUnder(id uint32, t *temp, b *Bounds) bool {
	nd := &s.nodes[id]
	if nd.kind != t.kind || nd.ev != t.ev || nd.ref != t.ref {
		return false
	}
	if t.kind == kAtomic {
		if int(nd.n) != len(t.pay) {
			return false
		}
		s.scratch = s.payload(s.scratch[:0], nd)
		for i, v := range t.pay {
			if exactField(b, field(t.ev, i)) && s.scratch[i] != v {
				return false
			}
		}
		return true
	}
	if int(nd.n) != len(t.kids) {
		return false
	}
	for i, k := range s.children(nd) {
		if k != t.kids[i] {
			return false
		}
	}
	if exactDur(b) {
		// A node's own last gap is no property of it: its leave is where
		// its parent puts it (see the builder).
		for i, d := range t.dur[:len(t.dur)-1] {
			if s.dur(nd, i) != d {
				return false
			}
		}
	}
	return true
}

// match compares candidate p with t in the soft properties under bounds
// b and returns, if p can replace t: the deviation interval E of t's time
// stamps relative to its start (Lemma 5), the observed deviations V (E
// without the time stamps that are no events: the ends of atomic and
// artificial children), p's prefix (the time from its start to its last
// inner event, see below) and the largest relative deviation of a gap.
//
// Durations (Lemma 4): a gap before or between children is a duration
// between two consecutive events of the location, bounded by eq. 3.6
// under t.rel. A child's total, as the candidate stores it, puts the
// child's leave: the child's last gap (from its last inner event, at its
// prefix, to its leave) is that total less the child's prefix, and is
// bounded against the original last gap of t's child under the child's
// bound. t's own last gap is not compared: t's parent places t's leave
// (see the builder), so it is not part of E either. A negative original
// duration (a trace whose clock ran backwards) stays exact, and none that
// is not becomes negative: events are never reordered. Time stamps: every
// s_j and s_{2j-1} + e_j in T = [t.tlo, t.thi] (eq. 4.11, 4.16) when
// b.Abs >= 0.
func (s *store) match(p uint32, t *temp, b *Bounds) (e, v interval, pre int64, rel float64, ok bool) {
	nd := &s.nodes[p]
	if t.kind == kAtomic {
		s.scratch = s.payload(s.scratch[:0], nd)
		for i, x := range t.pay {
			f := field(t.ev, i)
			if !softOK(f, b, s.scratch[i], x, t.pay, i) {
				return interval{}, none, 0, 0, false
			}
		}
		return interval{}, none, 0, 0, true
	}
	return s.lemma4(nd, nil, t, b.Abs >= 0, true)
}

// within reports whether duration d may stand for the original dc under
// relative bound r (< 0 unlimited): |d - dc| <= r*dc, never negative
// where dc is not, exact where dc is negative; and returns the relative
// deviation.
func within(d, dc int64, r float64) (float64, bool) {
	if d == dc {
		return 0, true
	}
	if dc < 0 || d < 0 {
		return 0, false
	}
	a := math.Abs(float64(d - dc))
	if r >= 0 && a > r*float64(dc) {
		return 0, false
	}
	if dc == 0 {
		return math.Inf(1), true
	}
	return a / float64(dc), true
}

// lemma4 runs Lemma 4-5 over t with the durations of the node that is to
// stand for it: node nd's, or sd if nd is nil. With check, the bounds are
// tested (ok is false when one does not hold); without, E and V are just
// computed (a kept node: sd are its stored durations). pre is the prefix
// under those durations.
func (s *store) lemma4(nd *node, sd []int64, t *temp, abs, check bool) (e, v interval, pre int64, rel float64, ok bool) {
	v = none
	var sj int64 // s_j of eq. 4.14
	for i := range 2 * len(t.kids) {
		dc := t.dur[i]
		var d int64
		if nd != nil {
			d = s.dur(nd, i)
		} else {
			d = sd[i]
		}
		pre += d
		j := i >> 1
		if i&1 == 0 { // the gap before child j, then child j's start
			r, in := within(d, dc, t.rel)
			if !in && check {
				return interval{}, none, 0, 0, false
			}
			rel = max(rel, r)
			sj += d - dc
			ej := t.devs[j]
			lo, hi := min(sj, sj+ej.lo), max(sj, sj+ej.hi)
			if check && abs && (lo < t.tlo || hi > t.thi) { // eq. 4.11, 4.12 / 4.16
				return interval{}, none, 0, 0, false
			}
			e = e.hull(lo).hull(hi)
			if t.vis != nil {
				v = v.hullI(t.vis[j].shift(sj))
				if s.nodes[t.kids[j]].kind != kSplit { // a call's enter, an atomic event
					v = v.hull(sj)
				}
			}
			continue
		}
		// Child j's total: its leave, after its last gap as d puts it.
		r, in := within(d-t.pre[j], t.lg[j], t.crel[j])
		if !in && check {
			return interval{}, none, 0, 0, false
		}
		rel = max(rel, r)
		sj += d - dc
		if check && abs && (sj < t.tlo || sj > t.thi) { // eq. 4.11
			return interval{}, none, 0, 0, false
		}
		e = e.hull(sj)
		if t.vis != nil && s.nodes[t.kids[j]].kind == kCall { // the call's leave
			v = v.hull(sj)
		}
	}
	return e, v, pre, rel, true
}

// softOK compares payload value i of an atomic node (candidate value pv,
// new value v) under the bound of its field kind.
func softOK(f int, b *Bounds, pv, v int64, pay []int64, i int) bool {
	if pv == v {
		return true
	}
	lim := int64(0)
	switch f {
	case fHard:
		return false
	case fBytes:
		lim = b.Bytes
	case fRequest:
		lim = b.Requests
	case fColl:
		lim = b.CollBytes
	case fCounter:
		if b.Counter < 0 {
			return true
		}
		x, y := metricFloat(pay[i-1], v), metricFloat(pay[i-1], pv)
		return math.Abs(y-x) <= b.Counter*math.Abs(x)
	}
	if lim < 0 {
		return true
	}
	d := pv - v
	return d >= -lim && d <= lim
}

// Request ids are encoded like time (Knüpfer 3.2.1: a counter that only
// grows is stored as differences, "an alternative time"): the counter of a
// location is the id of its latest request-creating event (MpiIsend,
// MpiIrecvRequest), 0 at the start. A creating event stores its id minus
// the counter before it (1 when ids count up), a completing event
// (MpiIsendComplete, MpiIrecv) the counter minus its id (how many requests
// ago it was created). Both repeat from iteration to iteration, as the
// ids themselves never do. An id of 0 (blocking operations) is stored as 0,
// any other value v as zigzag(v)+1.

// reqSlot is the payload index of ev's request id, or -1.
func reqSlot(ev trace.EventKind) int {
	switch ev {
	case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
		return 4
	case trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
		return 0
	}
	return -1
}

// creates reports whether ev creates a request.
func creates(ev trace.EventKind) bool { return ev == trace.MpiIsend || ev == trace.MpiIrecvRequest }

// encodeReq encodes request id r of an event of kind ev at counter c and
// returns the code and the counter after the event.
func encodeReq(ev trace.EventKind, r, c int64) (code, next int64) {
	if r == 0 {
		return 0, c
	}
	v := c - r
	if creates(ev) {
		v, c = r-c, r
	}
	return int64(uint64(v<<1)^uint64(v>>63)) + 1, c
}

// decodeReq is the inverse of encodeReq: the id and the counter after.
func decodeReq(ev trace.EventKind, code, c int64) (r, next int64) {
	if code == 0 {
		return 0, c
	}
	u := uint64(code - 1)
	v := int64(u>>1) ^ -int64(u&1)
	if creates(ev) {
		return c + v, c + v
	}
	return c - v, c
}

// Accumulated counters are stored like time too (Knüpfer 3.2.1: "performance
// counter samples ... should be transformed from absolute values into
// differences of successive samples, thus, appropriate performance counter
// samples will be handled like an alternative time specification"): a
// metric value of an integer type whose member accumulates (trace.
// MetricMember.Accumulated, e.g. a PAPI counter read by Score-P at every
// event) is stored as its difference from the location's previous sample
// of the same metric and member (0 before the first), and its type in the
// payload carries deltaType. Bounds.Counter then bounds the differences,
// the increments, which repeat where the program repeats; for a counter
// that only grows, the value itself stays within the same relative bound
// (a sum of increments each within it). Other values (doubles, absolute
// or relative modes, unknown modes) are stored as they are.
const deltaType = 1 << 8

// state is what decoding a location's events carries along besides time:
// the request counter (slot 0) and the latest value of each accumulated
// counter (slots 1..): their layout and how much each node advances them.
type state struct {
	k     int              // slots
	slot  map[[2]int64]int // (metric, member position) -> slot, for the counters stored as differences
	delta []int64          // node i advances slot j by delta[i*k+j]; nil when no node advances any
}

// counterKey is the slot key of value j of a metric sample of metric m.
func counterKey(m int64, j int) [2]int64 { return [2]int64{m, int64(j)} }

// states returns the store's decoding state layout and node advances,
// computed once.
func (s *store) states() *state {
	s.stateOnce.Do(func() {
		st := &state{k: 1, slot: map[[2]int64]int{}}
		var buf []int64
		for i := range s.nodes {
			if nd := &s.nodes[i]; nd.kind == kAtomic && trace.EventKind(nd.ev) == trace.Metric {
				buf = s.payload(buf[:0], nd)
				for j := 0; 2+2*j+1 < len(buf); j++ {
					if key := counterKey(buf[0], j); buf[2+2*j]&deltaType != 0 && st.slot[key] == 0 {
						st.slot[key] = st.k
						st.k++
					}
				}
			}
		}
		k := st.k
		var d []int64
		one := make([]int64, k)
		for i := range s.nodes {
			nd := &s.nodes[i]
			clear(one)
			nonzero := false
			if nd.kind == kAtomic {
				ev := trace.EventKind(nd.ev)
				if creates(ev) || ev == trace.Metric {
					buf = s.payload(buf[:0], nd)
					nonzero = st.advance(one, ev, buf)
				}
			} else if d != nil {
				for _, c := range s.children(nd) {
					for j, v := range d[int(c)*k : int(c)*k+k] {
						one[j] += v
						nonzero = nonzero || v != 0
					}
				}
			}
			if nonzero && d == nil {
				d = make([]int64, len(s.nodes)*k)
			}
			if d != nil {
				copy(d[i*k:], one)
			}
		}
		st.delta = d
		s.state = st
	})
	return s.state
}

// advance adds to the state slots c what an atomic event of kind ev with
// stored payload p advances them by, and reports whether it did.
func (st *state) advance(c []int64, ev trace.EventKind, p []int64) bool {
	switch {
	case creates(ev):
		v, _ := decodeReq(ev, p[reqSlot(ev)], 0)
		c[0] += v
		return v != 0
	case ev == trace.Metric:
		moved := false
		for j := 0; 2+2*j+1 < len(p); j++ {
			if p[2+2*j]&deltaType != 0 {
				c[st.slot[counterKey(p[0], j)]] += p[3+2*j]
				moved = true
			}
		}
		return moved
	}
	return false
}

// decode turns the stored payload p of an atomic event of kind ev into
// the event's values, given the state c before it, which it moves past
// the event.
func (st *state) decode(c []int64, ev trace.EventKind, p []int64) {
	if j := reqSlot(ev); j >= 0 {
		p[j], c[0] = decodeReq(ev, p[j], c[0])
		return
	}
	if ev != trace.Metric {
		return
	}
	for j := 0; 2+2*j+1 < len(p); j++ {
		if t := p[2+2*j]; t&deltaType != 0 {
			sl := st.slot[counterKey(p[0], j)]
			c[sl] += p[3+2*j]
			p[2+2*j], p[3+2*j] = t&^deltaType, c[sl]
		}
	}
}

// metricFloat reads a raw metric value of OTF2 type typ as a float (a
// difference of an accumulated counter, deltaType, as an int64).
func metricFloat(typ, raw int64) float64 {
	switch typ {
	case trace.MetricDouble:
		return math.Float64frombits(uint64(raw))
	case trace.MetricUint64:
		return float64(uint64(raw))
	}
	return float64(raw)
}

// put finalises t: it returns a compatible node under bounds b if the
// S-list of t's hash has one among its first L candidates (the priority
// cache of 4.2.2: a hit moves one place forward), or stores t as a new
// node (with its stored durations, t.stored()). For a replacement, e, v,
// pre and rel are match's; for a new node they are zero (the builder
// computes them from what it stored).
func (s *store) put(t *temp, b *Bounds) (id uint32, e, v interval, pre int64, rel float64, kept bool) {
	h := s.hashOf(t)
	// A small direct-mapped cache of recent nodes by their full content
	// (in the CPU's caches, unlike the big table) is asked first: a node
	// whose stored content equals t's is taken. With exact bounds that is
	// what the S-list would give, only faster; with lossy bounds it
	// prefers the exact twin to the first compatible candidate (which
	// keeps equal parents equal: Knüpfer 4.2.3).
	stored := exactUnder(&s.hash, t) // h already covers every property
	exact := stored && exactUnder(b, t)
	fh := h
	if !stored {
		fh = hashUnder(t, &Lossless, t.dur)
	}
	s.puts++
	if len(s.front) < frontSize && s.puts >= 2*len(s.front) {
		s.front = make([]frontSlot, max(256, 2*len(s.front))) // a cache: starting empty is fine
	}
	fc := &s.front[fh&uint64(len(s.front)-1)]
	if fc.id != 0 && fc.h == fh && s.sameUnder(fc.id-1, t, &Lossless) {
		if exact {
			return fc.id - 1, interval{}, interval{}, t.prefix(), 0, false
		}
		if e, v, pre, rel, ok := s.match(fc.id-1, t, b); ok {
			return fc.id - 1, e, v, pre, rel, false
		}
	}
	defer func() {
		if kept || exact {
			if kept && !stored && t.sdur != nil { // found again by what it stores
				fh = hashUnder(t, &Lossless, t.sdur)
				fc = &s.front[fh&uint64(len(s.front)-1)]
			}
			*fc = frontSlot{h: fh, id: id + 1}
		}
	}()
	sl := s.idx.find(h, func(head uint32) bool { return s.sameHard(head, t) })
	list, multi := int32(-1), false
	if sl != nil {
		list, multi = s.listOf[sl.head-1]
		if !multi {
			if e, v, pre, rel, ok := s.match(sl.head-1, t, b); ok {
				return sl.head - 1, e, v, pre, rel, false
			}
		} else {
			c := s.lists[list]
			d0 := firstDur(t)
			for i, p := range c {
				if !p.may(d0, t, b) {
					continue
				}
				if e, v, pre, rel, ok := s.match(p.id, t, b); ok {
					if i > 0 {
						c[i-1], c[i] = c[i], c[i-1]
					}
					return p.id, e, v, pre, rel, false
				}
			}
		}
	}
	id = s.add(t, h)
	d0 := firstStored(t)
	switch {
	case sl == nil:
		s.idx.insert(h, id, s.hashes)
	case s.L <= 1:
		sl.head = id + 1
	case !multi:
		if s.listOf == nil {
			s.listOf = map[uint32]int32{}
		}
		s.listOf[sl.head-1] = int32(len(s.lists))
		s.lists = append(s.lists, []cand{s.candOf(sl.head - 1), {id: id, d0: d0}})
	default:
		c := s.lists[list]
		if len(c) < s.L {
			s.lists[list] = append(c, cand{id: id, d0: d0})
		} else {
			c[len(c)-1] = cand{id: id, d0: d0} // pushes the last cached candidate out
		}
	}
	return id, interval{}, none, 0, 0, true
}

// cand is an S-list entry: a node and its first stored duration, which
// rules most candidates out without reading the node (a cache miss each).
type cand struct {
	id uint32
	d0 int64
}

// firstDur is t's first original duration, firstStored its first stored one.
func firstDur(t *temp) int64 {
	if len(t.dur) == 0 {
		return 0
	}
	return t.dur[0]
}

func firstStored(t *temp) int64 {
	if d := t.stored(); len(d) > 0 {
		return d[0]
	}
	return 0
}

func (s *store) candOf(id uint32) cand {
	nd := &s.nodes[id]
	if nd.kind == kAtomic {
		return cand{id: id}
	}
	return cand{id: id, d0: s.dur(nd, 0)}
}

// may reports whether a node of first duration d0 can be compatible with
// the candidate: with children, d0 is the gap to the first child, and
// s_1 = d0' - d0 must keep both time bounds (what match tests first); a
// leaf's only duration is its last gap, which its parent places.
func (c cand) may(d0 int64, t *temp, b *Bounds) bool {
	d := c.d0 - d0
	if d == 0 || len(t.kids) == 0 {
		return true
	}
	if d0 < 0 || c.d0 < 0 {
		return false
	}
	if b.Abs >= 0 && (d < t.tlo || d > t.thi) {
		return false
	}
	a := float64(d)
	if a < 0 {
		a = -a
	}
	return t.rel < 0 || a <= t.rel*float64(d0)
}

// grow makes room for n more elements, doubling: the arenas grow to
// hundreds of MB, and append's smaller steps would copy them many times.
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	ns := make([]T, len(s), max(2*cap(s), len(s)+n, 1024))
	copy(ns, s)
	return ns
}

// add stores t, of hash h, as a new permanent node.
func (s *store) add(t *temp, h uint64) uint32 {
	if len(s.nodes) >= math.MaxUint32-1 {
		fail("ccg.Build", "more than 2^32 graph nodes")
	}
	s.nodes, s.hashes = grow(s.nodes, 1), grow(s.hashes, 1)
	s.kids = grow(s.kids, len(t.kids))
	dur := t.stored()
	s.data = grow(s.data, 8*len(dur)+binary.MaxVarintLen64*len(t.pay))
	s.hashes = append(s.hashes, h)
	nd := node{kind: t.kind, ev: t.ev, ref: t.ref, kids: uint32(len(s.kids)), data: uint64(len(s.data))}
	if t.kind == kAtomic {
		nd.n = uint32(len(t.pay))
		for _, v := range t.pay {
			s.data = binary.AppendVarint(s.data, v)
		}
	} else {
		nd.n = uint32(len(t.kids))
		s.kids = append(s.kids, t.kids...)
		nd.width = widthOf(dur)
		for _, d := range dur {
			switch nd.width {
			case 1:
				s.data = append(s.data, byte(d))
			case 2:
				s.data = binary.LittleEndian.AppendUint16(s.data, uint16(d))
			case 4:
				s.data = binary.LittleEndian.AppendUint32(s.data, uint32(d))
			default:
				s.data = binary.LittleEndian.AppendUint64(s.data, uint64(d))
			}
		}
	}
	s.m += nodeBytes + int64(len(s.data)) - int64(nd.data) + 4*int64(len(s.kids)-int(nd.kids))
	s.nodes = append(s.nodes, nd)
	return uint32(len(s.nodes) - 1)
}

// index is an open-addressing hash table from a node hash to its S-list:
// 8 bytes a slot (the hash's upper half as a tag, the head candidate),
// S-lists of more than one candidate in store.lists through listOf.
type index struct {
	slots []slot
	used  int
}

type slot struct {
	tag  uint32 // the hash's upper 32 bits
	head uint32 // a candidate + 1 (any: all share the hard properties); 0: empty slot
}

func newIndex(n int) index { return index{slots: make([]slot, n)} }

// find returns the slot of hash h whose head has the hard properties
// (same reports it), or nil.
func (x *index) find(h uint64, same func(head uint32) bool) *slot {
	mask := uint64(len(x.slots) - 1)
	tag := uint32(h >> 32)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &x.slots[i]
		if sl.head == 0 {
			return nil
		}
		if sl.tag == tag && same(sl.head-1) {
			return sl
		}
	}
}

// insert adds a slot for a new S-list of hash h; rehashing reads every
// head's hash from hashes.
func (x *index) insert(h uint64, id uint32, hashes []uint64) {
	if 2*(x.used+1) > len(x.slots) {
		old := x.slots
		x.slots = make([]slot, 2*len(old))
		for _, sl := range old {
			if sl.head != 0 {
				x.place(hashes[sl.head-1], sl.head)
			}
		}
	}
	x.place(h, id+1)
	x.used++
}

func (x *index) place(h uint64, head uint32) {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i].head != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = slot{tag: uint32(h >> 32), head: head}
}
