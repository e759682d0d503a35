package ccg

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Cache parameters of the summary query (Knüpfer 5.4.1).
const (
	CacheModulus    = 10 // c_m: nodes met at a depth divisible by it are cached
	CacheReferences = 5  // c_r: nodes referenced more often are cached
)

// regStat is one region's share of a partial result.
type regStat struct {
	region     int32
	excl, incl int64
	calls      int64
}

// MessageStats are the communication totals of a summary.
type MessageStats struct {
	Sends, Recvs           int64 // point-to-point sends (MpiSend, MpiIsend) and receives (MpiRecv, MpiIrecv)
	BytesSent, BytesRecvd  int64
	Collectives            int64 // collective operations (MpiCollectiveEnd)
	CollSent, CollReceived int64 // bytes
	Metrics                int64 // metric samples
}

// addTimes adds k times o.
func (m *MessageStats) addTimes(o *MessageStats, k int64) {
	m.Sends += k * o.Sends
	m.Recvs += k * o.Recvs
	m.BytesSent += k * o.BytesSent
	m.BytesRecvd += k * o.BytesRecvd
	m.Collectives += k * o.Collectives
	m.CollSent += k * o.CollSent
	m.CollReceived += k * o.CollReceived
	m.Metrics += k * o.Metrics
}

func (m *MessageStats) add(o *MessageStats) {
	m.Sends += o.Sends
	m.Recvs += o.Recvs
	m.BytesSent += o.BytesSent
	m.BytesRecvd += o.BytesRecvd
	m.Collectives += o.Collectives
	m.CollSent += o.CollSent
	m.CollReceived += o.CollReceived
	m.Metrics += o.Metrics
}

// partial is the summary of everything inside one node (not the node's own
// call, which its parent counts): sorted by region.
type partial struct {
	regs []regStat
	open int64 // exclusive time of an artificial node, owed to the enclosing call
	msg  MessageStats
}

// sumCache holds the cached partial results of a store's nodes and the
// per-node data the query needs (reference counts, time spans).
type sumCache struct {
	parts    []*partial // by node id; nil: not cached
	refs     []uint32   // references from parents (the cache-references rule)
	span     []int64    // sum of each node's own durations
	pre      []int64    // each node's prefix: its durations but the last (its last gap is its parent's to put)
	nregions int
	full     map[string]*partial // whole-run summaries by set of roots
}

func newSumCache(g *Graph) *sumCache {
	st := g.st
	c := &sumCache{full: map[string]*partial{}}
	nr := 0
	if g.defs != nil {
		nr = len(g.defs.Regions)
	}
	for i := range st.nodes {
		if nd := &st.nodes[i]; nd.kind != kAtomic {
			nr = max(nr, int(nd.ref)+1)
		}
	}
	c.nregions = nr
	return c
}

// prepare computes what the recursive query needs: reference counts,
// spans, the cache slots.
func (c *sumCache) prepare(st *store) {
	if c.parts != nil {
		return
	}
	c.parts, c.refs, c.span = make([]*partial, len(st.nodes)), make([]uint32, len(st.nodes)), make([]int64, len(st.nodes))
	c.pre = st.prefixes()
	for i := range st.nodes {
		nd := &st.nodes[i]
		if nd.kind == kAtomic {
			continue
		}
		for _, k := range st.children(nd) {
			c.refs[k]++
		}
		c.span[i] = st.total(nd)
	}
}

// acc accumulates a summary densely by region.
type acc struct {
	excl, incl, calls []int64
	seen              []bool
	touched           []int32
	msg               MessageStats
}

func newAcc(n int) *acc {
	return &acc{excl: make([]int64, n), incl: make([]int64, n), calls: make([]int64, n), seen: make([]bool, n)}
}

func (a *acc) touch(r int32) {
	if !a.seen[r] {
		a.seen[r] = true
		a.touched = append(a.touched, r)
	}
}

func (a *acc) addPartial(p *partial) {
	for _, s := range p.regs {
		a.touch(s.region)
		a.excl[s.region] += s.excl
		a.incl[s.region] += s.incl
		a.calls[s.region] += s.calls
	}
	a.msg.add(&p.msg)
}

// extract returns the accumulated summary and resets a.
func (a *acc) extract(open int64) *partial {
	slices.Sort(a.touched)
	p := &partial{regs: make([]regStat, len(a.touched)), open: open, msg: a.msg}
	for i, r := range a.touched {
		p.regs[i] = regStat{region: r, excl: a.excl[r], incl: a.incl[r], calls: a.calls[r]}
		a.excl[r], a.incl[r], a.calls[r], a.seen[r] = 0, 0, 0, false
	}
	a.touched, a.msg = a.touched[:0], MessageStats{}
	return p
}

// query is one summary query over [t0, t1).
type query struct {
	st     *store
	c      *sumCache
	t0, t1 int64
	accs   []*acc // one per nesting level of partial results being built
	buf    []int64
	steps  int
	job    *work.Job
}

func (q *query) accAt(level int) *acc {
	for len(q.accs) <= level {
		q.accs = append(q.accs, newAcc(q.c.nregions))
	}
	return q.accs[level]
}

// visit adds to a the summary of node id's inside over [q.t0, q.t1),
// starting at time start; it returns the node's unattributed exclusive
// time (an artificial node's gaps) and attributes a call node's own but
// its last gap, which depends on where the parent puts its leave (the
// caller adds it). full says the node lies inside the interval (no
// clipping needed); depth drives the cache-modulus rule; level is a's
// nesting level.
func (q *query) visit(a *acc, level int, id uint32, start int64, full bool, depth int) (open int64) {
	q.steps++
	if q.steps&(1<<14-1) == 0 {
		if err := q.job.Add(1 << 14); err != nil {
			panic(err)
		}
	}
	st := q.st
	nd := &st.nodes[id]
	t := start
	n := int(nd.n)
	for j := range n {
		gap := st.dur(nd, 2*j)
		if full {
			open += gap
		} else {
			open += clip(t, t+gap, q.t0, q.t1)
		}
		t += gap
		c := st.kids[nd.kids+uint32(j)]
		cn := &st.nodes[c]
		cs, ce := t, t+st.dur(nd, 2*j+1)
		t = ce
		in := full || (cs >= q.t0 && cs < q.t1)
		switch cn.kind {
		case kAtomic:
			if in {
				q.atomic(a, cn)
			}
			continue
		case kCall:
			if in {
				a.touch(cn.ref)
				a.calls[cn.ref]++
			}
			if full {
				a.incl[cn.ref] += ce - cs
			} else if d := clip(cs, ce, q.t0, q.t1); d > 0 {
				a.touch(cn.ref)
				a.incl[cn.ref] += d
			}
		}
		if cn.kind == kCall && cn.n == 0 { // a leaf call: exclusive = inclusive, as its parent stores it
			if full {
				a.excl[cn.ref] += ce - cs
			} else if d := clip(cs, ce, q.t0, q.t1); d > 0 {
				a.excl[cn.ref] += d
			}
			continue
		}
		// c's last gap, from its last inner event to its leave as this
		// node puts it.
		if cn.kind == kCall {
			if ls := cs + q.c.pre[c]; full {
				a.excl[cn.ref] += ce - ls
			} else if d := clip(ls, ce, q.t0, q.t1); d > 0 {
				a.touch(cn.ref)
				a.excl[cn.ref] += d
			}
		}
		// The inside of c: its own times run from cs to its last inner event.
		cend := cs + q.c.pre[c]
		if !full && (cend < q.t0 || cs >= q.t1) {
			continue
		}
		inside := full || (cs >= q.t0 && cend < q.t1)
		var o int64
		if inside {
			o = q.whole(a, level, c, cs, depth+1)
		} else {
			o = q.visit(a, level, c, cs, false, depth+1)
		}
		if cn.kind == kSplit {
			open += o
		}
	}
	if nd.kind == kCall && nd.ref >= 0 {
		a.touch(nd.ref)
		a.excl[nd.ref] += open
		return 0
	}
	return open
}

// whole adds the inside of node c (entirely within the interval) to a,
// from the cache when c is cached or cacheable (5.4.1), and returns its
// unattributed exclusive time.
func (q *query) whole(a *acc, level int, c uint32, start int64, depth int) int64 {
	if p := q.c.parts[c]; p != nil {
		a.addPartial(p)
		return p.open
	}
	if depth%CacheModulus == 0 || q.c.refs[c] > CacheReferences {
		b := q.accAt(level + 1)
		o := q.visit(b, level+1, c, start, true, depth)
		p := b.extract(o)
		q.c.parts[c] = p
		a.addPartial(p)
		return p.open
	}
	return q.visit(a, level, c, start, true, depth)
}

func (q *query) atomic(a *acc, nd *node) {
	switch trace.EventKind(nd.ev) {
	case trace.MpiSend, trace.MpiIsend:
		q.buf = q.st.payload(q.buf[:0], nd)
		a.msg.Sends++
		a.msg.BytesSent += q.buf[3]
	case trace.MpiRecv, trace.MpiIrecv:
		q.buf = q.st.payload(q.buf[:0], nd)
		a.msg.Recvs++
		a.msg.BytesRecvd += q.buf[3]
	case trace.MpiCollectiveEnd:
		q.buf = q.st.payload(q.buf[:0], nd)
		a.msg.Collectives++
		a.msg.CollSent += q.buf[3]
		a.msg.CollReceived += q.buf[4]
	case trace.Metric:
		a.msg.Metrics++
	}
}

// Summary is the result of a summary query: per region the calls entered
// in the interval, the inclusive and exclusive time inside it, and the
// communication in it, over all locations of the graph.
type Summary struct {
	T0, T1   int64 // the interval [T0, T1), ns
	Regions  []RegionSummary
	Messages MessageStats
}

// RegionSummary is one region's line of a Summary.
type RegionSummary struct {
	Region               int32
	Name                 string
	Calls                int64 // calls entered in [T0, T1)
	Inclusive, Exclusive int64 // ns inside [T0, T1)
}

// Summary answers the cached summary query (Knüpfer 3.4.3, 4.5.3) over
// [t0, t1): the first query over a range evaluates each node once (shared
// nodes once for all their references and all locations) and caches the
// partial results of the nodes that the cache-modulus and cache-references
// rules select; later queries reuse them, evaluating only the nodes on the
// two paths to the interval's ends. t1 <= t0 is an error; use g.End() for
// the end of the run.
func (g *Graph) Summary(t0, t1 int64) *Summary {
	const fn = "ccg.Graph.Summary"
	defer work.RecoverAs(fn)
	if t1 <= t0 {
		fail(fn, "empty interval [%d, %d): need t0 < t1 (ns; the run ends at %d, g.End())", t0, t1, g.End())
	}
	job := work.Start(fn, 0, "nodes")
	a := g.summarize(t0, t1, job)
	job.Done()
	out := &Summary{T0: t0, T1: t1, Messages: a.msg}
	for _, r := range a.touched {
		if a.calls[r] == 0 && a.incl[r] == 0 && a.excl[r] == 0 {
			continue
		}
		out.Regions = append(out.Regions, RegionSummary{Region: r, Name: g.regionName(r), Calls: a.calls[r], Inclusive: a.incl[r], Exclusive: a.excl[r]})
	}
	slices.SortFunc(out.Regions, func(x, y RegionSummary) int {
		if x.Exclusive != y.Exclusive {
			if x.Exclusive > y.Exclusive {
				return -1
			}
			return 1
		}
		return int(x.Region - y.Region)
	})
	return out
}

// summarize runs the query, counting visited nodes in job (nil: only
// interrupt checks), and returns the accumulator.
func (g *Graph) summarize(t0, t1 int64, job *work.Job) *acc {
	a, _ := g.summarizeBy(t0, t1, job, false)
	return a
}

// summarizeBy is summarize; recursive asks for the recursive query with
// the node caches even over the whole run (the seed's successive query
// of 4.5.3, which SweepBounds measures: the whole run is otherwise answered
// from node multiplicities, and again from a memo). It also returns the
// nodes the query evaluated.
func (g *Graph) summarizeBy(t0, t1 int64, job *work.Job, recursive bool) (*acc, int) {
	g.sh.mu.Lock()
	defer g.sh.mu.Unlock()
	if g.sh.sum == nil {
		g.sh.sum = newSumCache(g)
	}
	c := g.sh.sum
	q := &query{st: g.st, c: c, t0: t0, t1: t1, job: job}
	a := newAcc(c.nregions)
	if whole := t0 <= 0 && t1 > g.spanEnd(); whole && !recursive {
		// The whole run: by multiplicities (no recursion, no cache needed).
		key := g.rootKey()
		p := c.full[key]
		if p == nil {
			p = q.multiplicities(g.locs)
			c.full[key] = p
		}
		a.addPartial(p)
		return a, 0
	}
	c.prepare(g.st)
	for _, l := range g.locs {
		root := l.Root
		end := max(c.pre[root], l.End)
		if end < t0 || t1 <= 0 {
			continue
		}
		if t0 <= 0 && end < t1 {
			q.whole(a, 0, root, 0, 0)
		} else {
			q.visit(a, 0, root, 0, false, 0)
		}
	}
	return a, q.steps
}

// End returns the time just after the last event of the graph's
// locations: Summary(0, g.End()) covers the whole run.
func (g *Graph) End() int64 {
	var e int64
	for _, l := range g.locs {
		e = max(e, l.End+1)
	}
	return e
}

func (g *Graph) regionName(r int32) string {
	if g.defs != nil && r >= 0 && int(r) < len(g.defs.Regions) {
		return g.defs.Regions[r].Name
	}
	return fmt.Sprintf("region %d", r)
}

// Table returns the summary by region: name, calls, inclusive and
// exclusive ns, most exclusive time first.
func (s *Summary) Table() *arrowio.Table {
	n := len(s.Regions)
	name, calls, inc, exc := make([]string, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, r := range s.Regions {
		name[i], calls[i], inc[i], exc[i] = r.Name, r.Calls, r.Inclusive, r.Exclusive
	}
	return arrowio.MustTable(arrowio.String("Region", name), arrowio.Int64("Calls", calls),
		arrowio.Int64("Inclusive (ns)", inc).WithUnit("ns"), arrowio.Int64("Exclusive (ns)", exc).WithUnit("ns"))
}

// String renders the message totals line.
func (s *Summary) String() string {
	m := s.Messages
	var b strings.Builder
	fmt.Fprintf(&b, "[%s, %s): %d regions", arrowio.FormatDuration(s.T0), arrowio.FormatDuration(s.T1), len(s.Regions))
	fmt.Fprintf(&b, "; %s sends (%s bytes), %s receives (%s bytes), %s collectives",
		arrowio.FormatCount(m.Sends), arrowio.FormatCount(m.BytesSent), arrowio.FormatCount(m.Recvs),
		arrowio.FormatCount(m.BytesRecvd), arrowio.FormatCount(m.Collectives))
	return b.String()
}

// spanEnd is the latest time inside any of g's roots.
func (g *Graph) spanEnd() int64 {
	var e int64
	for _, l := range g.locs {
		e = max(e, l.End, g.st.total(&g.st.nodes[l.Root]))
	}
	return e
}

// rootKey names g's set of roots.
func (g *Graph) rootKey() string {
	b := make([]byte, 0, 8*len(g.locs))
	for _, l := range g.locs {
		b = fmt.Appendf(b, "%d,", l.Root)
	}
	return string(b)
}

// multiplicities computes the summary of whole roots without recursion:
// every node's number of occurrences below the roots (ids are in
// finalisation order, so one pass from the last id down pushes a parent's
// count to its children), then each node's own contribution times its
// count; a call's last gap is counted per reference, from the total its
// parent stores. An artificial node's gaps belong to the nearest enclosing call,
// whatever call that is where the node is referenced, so they are summed
// bottom-up (open) and charged to the calls. This is the initial
// whole-run query: linear in the compressed graph, sequential in memory.
func (q *query) multiplicities(locs []Location) *partial {
	st := q.st
	n := len(st.nodes)
	mult := make([]int64, n)
	// Children are looked up at random: their kind and region compactly,
	// region (>= -1) for a call, -2 for an artificial node, -3 atomic.
	info := make([]int32, n)
	for i := range st.nodes {
		switch nd := &st.nodes[i]; nd.kind {
		case kCall:
			info[i] = nd.ref
		case kSplit:
			info[i] = -2
		default:
			info[i] = -3
		}
	}
	for _, l := range locs {
		mult[l.Root]++
	}
	for i := n - 1; i >= 0; i-- {
		if i&(1<<16-1) == 0 {
			if err := q.job.Add(1 << 16); err != nil {
				panic(err)
			}
		}
		m := mult[i]
		nd := &st.nodes[i]
		if m == 0 || nd.kind == kAtomic {
			continue
		}
		for _, c := range st.children(nd) {
			mult[c] += m
		}
	}
	a := newAcc(q.c.nregions)
	pre := st.prefixes()
	open := make([]int64, n) // an artificial node's gaps, its artificial children's included
	for i := range st.nodes {
		if i&(1<<16-1) == 0 {
			work.Check()
		}
		nd := &st.nodes[i]
		m := mult[i]
		if nd.kind == kAtomic {
			if m > 0 {
				var one acc
				q.atomic(&one, nd)
				a.msg.addTimes(&one.msg, m)
			}
			continue
		}
		var gaps int64 // but the last: the parents put it
		kids := st.children(nd)
		for j := range len(kids) {
			gaps += st.dur(nd, 2*j)
		}
		for j, c := range kids {
			switch r := info[c]; {
			case r == -2:
				gaps += open[c]
			case r >= 0 && m > 0:
				a.touch(r)
				d := st.dur(nd, 2*j+1)
				a.calls[r] += m
				a.incl[r] += m * d
				a.excl[r] += m * (d - pre[c]) // c's last gap as stored here (a leaf: all of it)
			}
		}
		if nd.kind == kSplit {
			open[i] = gaps
		} else if m > 0 && nd.ref >= 0 && nd.n > 0 {
			a.touch(nd.ref)
			a.excl[nd.ref] += m * gaps
		}
	}
	return a.extract(0)
}
