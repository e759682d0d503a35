package ccg

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Defaults of the algorithm parameters (Knüpfer 5.6.2).
const (
	DefaultBranching = 20  // b: the seed recommends 10-30
	DefaultSearch    = 100 // L*: the S-list cache length
)

// Graph is a compressed Complete Call Graph of one or more locations of a
// trace: their call trees with durations, equal or compatible sub-trees
// stored once (Knüpfer ch. 3-4). Locations built or merged into one graph
// share nodes. Queries (Summary, At, Timeline, Events, Messages) work on
// the graph without decompressing it.
type Graph struct {
	st     *store
	locs   []Location
	defs   *trace.Definitions
	bounds Bounds
	branch int // b
	search int // L*

	sh   *shared // query caches, shared with the views of the same store
	part bool    // some of the store's locations only (Loc)

	orderOnce sync.Once // MessageOrder, computed once
	order     MessageOrder
}

// shared holds the query caches of a store.
type shared struct {
	mu  sync.Mutex
	sum *sumCache
}

// Location is one location's part of a graph: its root and the counts of
// its construction.
type Location struct {
	Index  int    // index of the location in its trace
	Name   string // e.g. "rank 3" or "rank 3 / thread 1"
	Rank   int32
	Thread int32
	Events int64 // events represented
	End    int64 // time of the last event, ns
	Root   uint32

	N        int64 // nodes of the uncompressed graph, artificial nodes included (R_nodes's N)
	M        int64 // bytes of the uncompressed graph (R_memory's M)
	Replaced int64 // nodes replaced by a compatible one

	// clip is the window the location was cut from (trace.Process.Clip),
	// for Messages to read the whole run's records around it; not saved.
	clip *trace.Clip

	// DevMin and DevMax bound the timestamp deviation t' - t (ns) of the
	// location's events; observed exactly at construction (the hull of the
	// deviation intervals of Lemma 5), an upper bound after Recompress.
	DevMin, DevMax int64
	DevExact       bool
	MaxRel         float64 // largest relative deviation of a stored duration

	Repairs trace.CallRepairs // non-nesting Enter/Leave events, repaired as CallTree does
}

// Option sets an algorithm parameter of Build.
type Option func(*options)

type options struct{ branch, search, shards int }

// DefaultShards is the number of shards BuildTrace builds its locations
// in (see WithShards).
const DefaultShards = 4

// WithShards sets how many shards BuildTrace, BuildProcesses and
// Recompress deal the locations to (default DefaultShards, at least 1):
// each shard is built into its own store, on any free core, and the
// stores are merged sharing exactly equal sub-trees. The graph depends on
// the number of shards and never on the number of cores. A lossless graph
// holds the same nodes for every number (in another order); a lossy one
// shares similar sub-trees only
// within a shard, so 1 shard compresses the most and builds on one core.
func WithShards(n int) Option { return func(o *options) { o.shards = n } }

// WithBranching sets the maximum branching factor b >= 2 (default 20):
// wider nodes are split into artificial nodes (4.1.2).
func WithBranching(b int) Option { return func(o *options) { o.branch = b } }

// WithSearch sets the search length L* >= 1 of the S-list priority caches
// (default 100, 4.2.2): how many compatible-looking candidates a new node
// is compared with.
func WithSearch(l int) Option { return func(o *options) { o.search = l } }

func collect(fn string, opts []Option) options {
	return collectOn(fn, options{branch: DefaultBranching, search: DefaultSearch, shards: DefaultShards}, opts)
}

// collectOn applies opts to o and checks the result.
func collectOn(fn string, o options, opts []Option) options {
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.branch < 2 || o.branch > 1<<16 {
		fail(fn, "branching factor %d: need 2 <= b <= 65536", o.branch)
	}
	if o.search < 1 {
		fail(fn, "search length %d: need >= 1", o.search)
	}
	if o.shards < 1 {
		fail(fn, "%d shards: need >= 1", o.shards)
	}
	return o
}

// Build constructs and compresses the graph of one location in a single
// pass over its events (Knüpfer 4.3) under the deviation bounds b.
func Build(p *trace.Process, b Bounds, opts ...Option) *Graph {
	const fn = "ccg.Build"
	if p == nil {
		fail(fn, "nil process")
	}
	if p.Trace != nil && part.Remote(p.Trace) {
		return buildRemote(fn, p.Trace, []*trace.Process{p}, b, opts)
	}
	return buildAll(fn, []*trace.Process{p}, defsOf(p.Trace), b, opts)
}

// BuildTrace builds the graphs of all locations of tr, in parallel on the
// available cores, into one graph whose locations share equal sub-trees.
func BuildTrace(tr *trace.Trace, b Bounds, opts ...Option) *Graph {
	const fn = "ccg.BuildTrace"
	if tr == nil {
		fail(fn, "nil trace")
	}
	if part.Remote(tr) {
		return buildRemote(fn, tr, tr.Processes(), b, opts)
	}
	return buildAll(fn, tr.Processes(), defsOf(tr), b, opts)
}

// BuildProcesses builds the graphs of the given locations (of one trace)
// into one graph, like BuildTrace.
func BuildProcesses(b Bounds, procs ...*trace.Process) *Graph {
	const fn = "ccg.BuildProcesses"
	var defs *trace.Definitions
	for i, p := range procs {
		if p == nil {
			fail(fn, "process %d is nil", i)
		}
		if i == 0 {
			defs = defsOf(p.Trace)
		} else if p.Trace != procs[0].Trace {
			fail(fn, "process %d (%s) is from another trace than process 0; build each trace's graph and use ccg.Merge", i, p.Label())
		}
	}
	if len(procs) > 0 && procs[0].Trace != nil && part.Remote(procs[0].Trace) {
		return buildRemote(fn, procs[0].Trace, procs, b, nil)
	}
	return buildAll(fn, procs, defs, b, nil)
}

// buildRemote builds the graph of procs, processes of a distributed trace
// (part.Remote), on the job: each rank builds the graph of its share of
// the locations ("ccg.build", in WithShards shards within the share) and
// the graphs merge up the job's tree sharing equal sub-trees (4.4.2). A
// Lossless graph is the graph BuildTrace builds here, whatever the split
// (the same nodes; the per-location Replaced counts are read off the
// graph for BuildTrace's shards, see replacedAsBuilt), and so is a lossy
// graph of a shard per location (WithShards(n), n at least the locations:
// each is built alone here and there). Any other lossy graph shares
// similar sub-trees within a rank's shards only: its nodes, its replaced
// counts and its times (within the bounds, as every graph's) depend on the
// split.
func buildRemote(fn string, tr *trace.Trace, procs []*trace.Process, b Bounds, opts []Option) *Graph {
	defer work.RecoverAs(fn)
	b.check(fn)
	o := collect(fn, opts)
	sorted := slices.Clone(procs)
	slices.SortFunc(sorted, func(x, y *trace.Process) int { return x.Index - y.Index })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Index == sorted[i-1].Index {
			fail(fn, "location %s is given twice", sorted[i].Label())
		}
	}
	p, err := part.Run(tr, sorted, &buildMethod{b: b, o: o})
	if err != nil {
		work.FailErr(fn, err)
	}
	g := p.(*Graph)
	if b == Lossless {
		// The counts of nodes replaced while building depend on which
		// locations shared a store; under exact bounds they follow from
		// the graph, for the shards BuildTrace deals the locations to.
		for k, r := range replacedAsBuilt(g, o.shards) {
			g.locs[k].Replaced = r
		}
	}
	return g
}

func defsOf(tr *trace.Trace) *trace.Definitions {
	if tr == nil || tr.Defs == nil {
		return &trace.Definitions{}
	}
	return tr.Defs
}

func buildAll(fn string, procs []*trace.Process, defs *trace.Definitions, b Bounds, opts []Option) *Graph {
	defer work.RecoverAs(fn)
	b.check(fn)
	o := collect(fn, opts)
	src := source{n: len(procs), events: func(i int) int64 { return int64(len(procs[i].Kind)) }, proc: func(i int) *trace.Process { return procs[i] }}
	return buildFrom(fn, src, defs, b, b, o)
}

// source gives buildFrom its locations: n of them, each one's number of
// events, and each one's events (asked once, by the worker building it).
type source struct {
	n      int
	events func(i int) int64
	proc   func(i int) *trace.Process
}

// buildFrom builds the graph of src's locations, comparing nodes under cb
// (the graph guarantees b).
func buildFrom(fn string, src source, defs *trace.Definitions, cb, b Bounds, o options) *Graph {
	var events int64
	for i := range src.n {
		events += src.events(i)
	}
	// Worst case (nothing compresses): a node per event, a duration and a
	// child reference per event, the hash index.
	if err := work.Reserve(fn, 64*events); err != nil {
		panic(err)
	}
	job := work.Start(fn, events, "events")
	defer job.Done()
	g := &Graph{defs: defs, bounds: b, branch: o.branch, search: o.search, sh: &shared{}}
	// The locations are dealt to o.shards shards by a fixed rule (the
	// larger first, round-robin), each shard is built into its own store
	// in location order, and the stores are merged into the first in
	// shard order, sharing equal sub-trees (4.4.2). Which core builds
	// which shard does not matter: the graph depends on the shard count,
	// never on the number of cores or on timing. (A lossy graph shares
	// similar sub-trees within a shard only: more shards, less sharing.)
	shards := max(1, min(o.shards, src.n))
	order := byEvents(src.n, src.events)
	members := make([][]int, shards)
	for i, k := range order {
		members[i%shards] = append(members[i%shards], k)
	}
	for _, m := range members {
		slices.Sort(m) // each shard in location order
	}
	stores := make([]*store, shards)
	locs := make([]Location, src.n)
	var next atomic.Int32
	work.Parallel(min(runtime.GOMAXPROCS(0), shards), func(int) {
		for {
			sh := int(next.Add(1)) - 1
			if sh >= shards {
				return
			}
			st := newStore(cb, o.search)
			for _, k := range members[sh] {
				locs[k] = build(st, &cb, o.branch, src.proc(k), defs, job)
			}
			stores[sh] = st
		}
	})
	g.st = stores[0]
	for sh := 1; sh < shards; sh++ {
		tr, _, _ := mergeInto(g.st, stores[sh], &Lossless, nil)
		stores[sh] = nil
		for _, k := range members[sh] {
			locs[k].Root = tr[locs[k].Root]
		}
	}
	g.st.seal()
	g.locs = locs
	return g
}

// byEvents returns the indices 0..n-1, most events first (ties in order).
func byEvents(n int, events func(i int) int64) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(events(b), events(a)) })
	return idx
}

// mergeInto adds every node of src to dst (children first: ids are in
// finalisation order), each replaced by a compatible node of dst under
// bounds b when there is one. It returns the id in dst of each src node,
// the deviation interval of each (relative to src; nil when b is
// Lossless: all zero) and the hull of the
// deviations that became final (children of newly added nodes). reach, if
// not nil, restricts the nodes to those it marks (with their children).
func mergeInto(dst, src *store, b *Bounds, reach []bool) (tr []uint32, devs []interval, final interval) {
	tr = make([]uint32, len(src.nodes))
	exact := *b == Lossless // every deviation 0: no intervals needed
	if !exact {
		devs = make([]interval, len(src.nodes))
	}
	t := temp{rel: b.Rel, tlo: -b.Abs, thi: b.Abs}
	pre := make([]int64, len(src.nodes)) // each node's prefix (see entry)
	for i := range src.nodes {
		if i&(1<<14-1) == 0 {
			work.Check()
		}
		if reach != nil && !reach[i] {
			continue
		}
		nd := &src.nodes[i]
		t.kind, t.ev, t.ref = nd.kind, nd.ev, nd.ref
		t.kids, t.devs, t.dur, t.pay = t.kids[:0], t.devs[:0], t.dur[:0], t.pay[:0]
		t.pre, t.lg, t.crel = t.pre[:0], t.lg[:0], t.crel[:0]
		if nd.kind == kAtomic {
			t.pay = src.payload(t.pay, nd)
		} else {
			t.dur = src.durs(t.dur, nd)
			for j, k := range src.children(nd) {
				t.kids = append(t.kids, tr[k])
				if exact {
					t.devs = append(t.devs, interval{})
				} else {
					t.devs = append(t.devs, devs[k])
				}
				// The child's last gap as this node puts it is the original.
				t.pre, t.lg, t.crel = append(t.pre, pre[k]), append(t.lg, t.dur[2*j+1]-pre[k]), append(t.crel, b.Rel)
			}
			pre[i] = t.prefix()
		}
		id, e, _, _, _, kept := dst.put(&t, b)
		tr[i] = id
		if !exact {
			devs[i] = e
		}
		if kept {
			for _, d := range t.devs {
				final = final.hullI(d)
			}
		}
	}
	return tr, devs, final
}

// Locations returns the graph's locations.
func (g *Graph) Locations() []Location { return append([]Location(nil), g.locs...) }

// NumLocations returns the number of locations.
func (g *Graph) NumLocations() int { return len(g.locs) }

// Loc returns the graph of location i alone; it shares the nodes (and the
// query caches) with g.
func (g *Graph) Loc(i int) *Graph {
	if i < 0 || i >= len(g.locs) {
		fail("ccg.Graph.Loc", "location %d out of range [0, %d)", i, len(g.locs))
	}
	return g.view([]Location{g.locs[i]})
}

func (g *Graph) view(locs []Location) *Graph {
	return &Graph{st: g.st, locs: locs, defs: g.defs, bounds: g.bounds, branch: g.branch, search: g.search, sh: g.sh, part: true}
}

// Bounds returns the deviation bounds the graph guarantees.
func (g *Graph) Bounds() Bounds { return g.bounds }

// Stats are a graph's sizes and compression ratios (Knüpfer 4.2.5).
type Stats struct {
	Locations int
	Events    int64
	N, M      int64   // nodes and bytes of the uncompressed graph
	Nodes     int64   // n: nodes of the compressed graph (shared nodes counted once)
	Bytes     int64   // m: bytes the compressed graph holds (its nodes and location records; not the query caches)
	RNodes    float64 // N / n
	RMemory   float64 // M / m
	DevMin    int64   // observed timestamp deviation interval, ns
	DevMax    int64
	MaxRel    float64 // largest relative deviation of a stored duration
}

// Stats returns the sizes and ratios. For a view of some locations of a
// larger graph (Loc), n and m count the nodes reachable from its roots.
func (g *Graph) Stats() Stats {
	s := Stats{Locations: len(g.locs)}
	for _, l := range g.locs {
		s.Events += l.Events
		s.N += l.N
		s.M += l.M
		s.DevMin = min(s.DevMin, l.DevMin)
		s.DevMax = max(s.DevMax, l.DevMax)
		s.MaxRel = max(s.MaxRel, l.MaxRel)
	}
	if g.part {
		s.Nodes, s.Bytes = g.reachable()
	} else { // every node of a graph's own store is reachable from its roots
		s.Nodes, s.Bytes = int64(len(g.st.nodes)), g.st.m
	}
	s.Bytes += locationBytes(g.locs)
	if s.Nodes > 0 {
		s.RNodes = float64(s.N) / float64(s.Nodes)
	}
	if s.Bytes > 0 {
		s.RMemory = float64(s.M) / float64(s.Bytes)
	}
	return s
}

// locationBytes is the memory of the location records.
func locationBytes(locs []Location) int64 {
	n := int64(unsafe.Sizeof(Location{})) * int64(len(locs))
	for _, l := range locs {
		n += int64(len(l.Name))
	}
	return n
}

// reachable counts the nodes and bytes reachable from g's roots (all of
// the store when g holds every location of it).
func (g *Graph) reachable() (n, m int64) {
	seen := g.reach()
	for i, ok := range seen {
		if ok {
			n++
			m += g.st.nodeSize(&g.st.nodes[i])
		}
	}
	return n, m
}

// reach marks the nodes reachable from g's roots.
func (g *Graph) reach() []bool {
	st := g.st
	seen := make([]bool, len(st.nodes))
	for _, l := range g.locs {
		seen[l.Root] = true
	}
	for i := len(st.nodes) - 1; i >= 0; i-- { // parents after children: walk down
		if nd := &st.nodes[i]; seen[i] && nd.kind != kAtomic {
			for _, k := range st.children(nd) {
				seen[k] = true
			}
		}
	}
	return seen
}

// nodeSize is the stored size of nd in bytes.
func (s *store) nodeSize(nd *node) int64 {
	if nd.kind == kAtomic {
		b := s.data[nd.data:]
		n := 0
		for range nd.n {
			_, k := varintLen(b[n:])
			n += k
		}
		return nodeBytes + int64(n)
	}
	return nodeBytes + 4*int64(nd.n) + int64(nd.width)*int64(2*nd.n+1)
}

func varintLen(b []byte) (uint64, int) {
	for i, c := range b {
		if c < 0x80 {
			return 0, i + 1
		}
	}
	return 0, len(b)
}

// String is a one-line summary.
func (g *Graph) String() string {
	s := g.Stats()
	return fmt.Sprintf("CCG of %d location(s): %d events, %d -> %d nodes (R_nodes %.3g), %d -> %d bytes (R_memory %.3g), bounds %s",
		s.Locations, s.Events, s.N, s.Nodes, s.RNodes, s.M, s.Bytes, s.RMemory, g.bounds)
}

// Recompress returns the graph re-compressed under the wider bounds nb
// (Knüpfer 4.4.1). It rebuilds the graph from its own decompressed events
// (the seed's "adaptive re-start", 4.4.3, which it finds compresses better
// than re-compressing node by node; node-wise re-compression would also
// have to re-place the gaps around every newly replaced node, which only
// the single pass over the events can do). The original deviations are
// assumed used to the full (the graph does not keep them), so nodes are
// compared under nb minus g's bounds (eq. 4.22-4.23; for the relative
// bounds the exact composition (nb.Rel-g.Rel)/(1+g.Rel)), and the result
// compresses less than building with nb directly (5.3.1). Its deviation
// intervals are upper bounds: g's plus the new ones. opts are Build's
// (branching factor and search length default to g's).
func (g *Graph) Recompress(nb Bounds, opts ...Option) *Graph {
	const fn = "ccg.Graph.Recompress"
	defer work.RecoverAs(fn)
	nb.check(fn)
	o := collectOn(fn, options{branch: g.branch, search: g.search, shards: DefaultShards}, opts)
	eff, ok := g.bounds.widen(nb)
	if !ok {
		fail(fn, "bounds %s are narrower than the graph's %s in some property; a graph cannot be made more accurate", nb, g.bounds)
	}
	src := source{n: len(g.locs), events: func(i int) int64 { return g.locs[i].Events }, proc: g.Process}
	out := buildFrom(fn, src, g.defs, eff, nb, o)
	for i := range out.locs {
		l, old := &out.locs[i], &g.locs[i]
		l.Events, l.Repairs = old.Events, old.Repairs
		l.DevMin, l.DevMax, l.DevExact = l.DevMin+old.DevMin, l.DevMax+old.DevMax, false
		l.MaxRel = (1+old.MaxRel)*(1+l.MaxRel) - 1 // composed, as widen composes the bounds
	}
	return out
}

// Merge combines graphs of disjoint locations (of one trace, or of several
// runs) into one graph in which equal sub-trees are stored once (Knüpfer
// 4.4.2): the per-location parts are built separately (on other cores or
// machines) and merged. Nodes are shared only when exactly equal; the
// merged graph guarantees the widest of the inputs' bounds, and Recompress
// can share more. The definitions are those of the first graph: merge
// graphs of one trace, or of traces whose region ids agree.
//
// Merge is the convenience over (*Graph).Merge, the partial contract's
// merge, which absorbs one graph into another.
func Merge(gs ...*Graph) *Graph { return merge("ccg.Merge", gs) }

func merge(fn string, gs []*Graph) *Graph {
	defer work.RecoverAs(fn)
	if len(gs) == 0 {
		fail(fn, "no graphs")
	}
	b := gs[0].bounds
	for i, g := range gs {
		if g == nil {
			fail(fn, "graph %d is nil", i)
		}
		b = b.union(g.bounds)
	}
	out := &Graph{st: newStore(b, gs[0].search), defs: gs[0].defs, bounds: b, branch: gs[0].branch, search: gs[0].search, sh: &shared{}}
	for _, g := range gs {
		tr, _, _ := mergeInto(out.st, g.st, &Lossless, g.reach())
		for _, l := range g.locs {
			l.Root = tr[l.Root]
			out.locs = append(out.locs, l)
		}
	}
	out.st.seal()
	return out
}

// replacedAsBuilt returns, per location of g (a graph of exact bounds),
// the nodes BuildTrace would count as Replaced had it built g's locations
// in the given number of shards: a location's nodes N less the distinct
// nodes it adds to its shard's store, which under exact bounds shares
// every equal sub-tree, so those are the nodes reachable from its root
// and from no root of an earlier location of its shard.
func replacedAsBuilt(g *Graph, shards int) []int64 {
	st := g.st
	n := len(g.locs)
	shards = max(1, min(shards, n))
	order := byEvents(n, func(i int) int64 { return g.locs[i].Events })
	members := make([][]int, shards)
	for i, k := range order {
		members[i%shards] = append(members[i%shards], k)
	}
	out := make([]int64, n)
	have := make([]bool, len(st.nodes))
	seen := make([]bool, len(st.nodes))
	var stack []uint32
	for _, m := range members {
		slices.Sort(m)
		clear(have)
		for _, k := range m {
			var added int64
			stack = append(stack[:0], g.locs[k].Root)
			var touched []uint32
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if seen[x] || have[x] {
					continue
				}
				seen[x] = true
				touched = append(touched, x)
				added++
				if nd := &st.nodes[x]; nd.kind != kAtomic {
					stack = append(stack, st.children(nd)...)
				}
			}
			for _, x := range touched {
				seen[x], have[x] = false, true
			}
			out[k] = g.locs[k].N - added
		}
	}
	return out
}
