package ccg

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The per-location part of the method under the partial contract (package
// part): "ccg.build" builds the graph of a subset of the locations of a
// trace (a *Graph is the partial), Graph.Merge absorbs the graph of a
// disjoint subset, sharing exactly equal sub-trees (4.4.2), and the
// partial's encoding is the file format of Save (version 2), which Read
// restores.

func init() {
	part.Register("ccg.build", func(params []byte) (part.Method, error) {
		m, err := decodeBuildParams(params)
		if err != nil {
			return nil, err
		}
		return m, nil
	}, func(*trace.Trace) []part.Method {
		return []part.Method{
			BuildMethod(Lossless),
			BuildMethod(Bounds{Abs: 2000, Rel: 0.05}, WithShards(1), WithBranching(4)),
		}
	})
}

// BuildMethod is the graph construction with bounds b and Build's options
// as a method of the partial contract ("ccg.build"): its partial is the
// *Graph of a subset of the locations. Over all locations of a trace it is
// BuildTrace's graph. Graphs of lossy bounds built over different subsets
// share different similar sub-trees; their events are within the bounds
// either way (see the method's Equal).
func BuildMethod(b Bounds, opts ...Option) part.Method {
	const fn = "ccg.BuildMethod"
	b.check(fn)
	o := collect(fn, opts)
	return &buildMethod{b: b, o: o}
}

type buildMethod struct {
	b Bounds
	o options
}

const buildParamsVersion = 1

func (m *buildMethod) Name() string { return "ccg.build" }

func (m *buildMethod) Params() []byte {
	var e part.Enc
	e.Uint(buildParamsVersion)
	e.Int(m.b.Abs)
	e.Float(m.b.Rel)
	e.Int(m.b.Bytes)
	e.Int(m.b.CollBytes)
	e.Float(m.b.Counter)
	e.Float(m.b.MPIRel)
	e.Int(m.b.Requests)
	e.Uint(uint64(m.o.branch))
	e.Uint(uint64(m.o.search))
	e.Uint(uint64(m.o.shards))
	return e.B
}

func decodeBuildParams(params []byte) (m *buildMethod, err error) {
	d := part.NewDec(params)
	d.Version("parameter", buildParamsVersion)
	var b Bounds
	b.Abs, b.Rel, b.Bytes, b.CollBytes = d.Int(), d.Float(), d.Int(), d.Int()
	b.Counter, b.MPIRel, b.Requests = d.Float(), d.Float(), d.Int()
	branch, search, shards := d.Uint(), d.Uint(), d.Uint()
	if err := d.Done(); err != nil {
		return nil, work.Errorf("ccg.build", "parameters: %v", err)
	}
	err = work.Try(func() {
		m = BuildMethod(b, WithBranching(int(min(branch, 1<<20))), WithSearch(int(min(search, 1<<30))), WithShards(int(min(shards, 1<<20)))).(*buildMethod)
	})
	return m, err
}

func (m *buildMethod) Rounds() int { return 1 }

// Compute builds the graph of procs, in m's shards (see WithShards).
func (m *buildMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, decision []byte) (p part.Partial, err error) {
	const fn = "ccg.build"
	err = work.Try(func() {
		defer work.RecoverAs(fn)
		src := source{n: len(procs), events: func(i int) int64 { return int64(len(procs[i].Kind)) }, proc: func(i int) *trace.Process { return procs[i] }}
		p = buildFrom(fn, src, defsOf(tr), m.b, m.b, m.o)
	})
	return p, err
}

func (m *buildMethod) Decide(int, part.Partial) ([]byte, error) { return nil, nil }

// Decode reads a graph in the format of Save.
func (m *buildMethod) Decode(round int, data []byte) (part.Partial, error) {
	g, err := Read(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if g.bounds != m.b || g.branch != m.o.branch || g.search != m.o.search {
		return nil, work.Errorf("ccg.build", "the graph was built with bounds %s, b %d, L* %d, not the method's %s, b %d, L* %d",
			g.bounds, g.branch, g.search, m.b, m.o.branch, m.o.search)
	}
	return g, nil
}

// Equal compares two graphs of the method over the same locations by what
// must agree whatever the split and the merge order: the locations (index,
// name, rank, thread, events, uncompressed sizes, repairs, the time of the
// last event) and their
// decompressed events, exactly under exact bounds, within twice the bounds
// (each graph is within the bounds of the trace) otherwise. Node ids and
// sharing differ.
func (m *buildMethod) Equal(a, b part.Partial) error {
	g, ok1 := a.(*Graph)
	h, ok2 := b.(*Graph)
	if !ok1 || !ok2 {
		return fmt.Errorf("not two graphs: %T and %T", a, b)
	}
	if len(g.locs) != len(h.locs) {
		return fmt.Errorf("%d locations vs %d", len(g.locs), len(h.locs))
	}
	for i := range g.locs {
		x, y := g.locs[i], h.locs[i]
		if x.Index != y.Index || x.Name != y.Name || x.Rank != y.Rank || x.Thread != y.Thread ||
			x.Events != y.Events || !withinTwice(x.End, y.End, m.b.Abs) || x.N != y.N || x.M != y.M || x.Repairs != y.Repairs {
			return fmt.Errorf("location %d: %+v vs %+v", i, x, y)
		}
		if err := sameEvents(g.Iter(i), h.Iter(i), m.b); err != nil {
			return fmt.Errorf("location %d (%s): %v", i, x.Name, err)
		}
	}
	return nil
}

// withinTwice reports whether x and y, each within bound of a third value, are
// within twice the bound of each other (a negative bound: unlimited).
func withinTwice(x, y, bound int64) bool {
	switch {
	case bound < 0:
		return true
	case x > y:
		return x-y <= 2*bound
	}
	return y-x <= 2*bound
}

// sameEvents compares the events of two iterators over the same location:
// hard properties exactly, soft ones within twice their bounds.
func sameEvents(a, b *Iter, bd Bounds) error {
	for k := 0; ; k++ {
		x, okx := a.Next()
		y, oky := b.Next()
		if okx != oky {
			return fmt.Errorf("event %d: present in one graph only", k)
		}
		if !okx {
			return nil
		}
		if x.Kind != y.Kind || x.Region != y.Region || x.Depth != y.Depth || x.Peer != y.Peer || x.Comm != y.Comm ||
			x.Tag != y.Tag || x.Op != y.Op || x.Root != y.Root || x.Metric != y.Metric || !slices.Equal(x.Types, y.Types) {
			return fmt.Errorf("event %d: %+v vs %+v", k, x, y)
		}
		if !withinTwice(x.Time, y.Time, bd.Abs) {
			return fmt.Errorf("event %d: time %d vs %d (bound %d ns)", k, x.Time, y.Time, bd.Abs)
		}
		if !withinTwice(x.Bytes, y.Bytes, bd.Bytes) || !withinTwice(x.Sent, y.Sent, bd.CollBytes) || !withinTwice(x.Received, y.Received, bd.CollBytes) {
			return fmt.Errorf("event %d: byte counts differ beyond the bounds: %+v vs %+v", k, x, y)
		}
		if bd.Requests == 0 && x.Request != y.Request {
			return fmt.Errorf("event %d: request %d vs %d", k, x.Request, y.Request)
		}
		if bd.Counter == 0 && !slices.Equal(x.Values, y.Values) {
			return fmt.Errorf("event %d: metric values %v vs %v", k, x.Values, y.Values)
		}
	}
}

// Merge absorbs o, the graph of a disjoint set of locations built with the
// same bounds and options (a partial of BuildMethod), into g: equal
// sub-trees are shared (4.4.2) and the locations ordered by their index in
// the trace. A graph of other bounds or options, or one holding a location
// of g, is an error. g's caches are dropped and its views (Loc) keep the
// graph they were taken from.
func (g *Graph) Merge(o part.Partial) error {
	const fn = "ccg.Graph.Merge"
	h, ok := o.(*Graph)
	if !ok || h == nil {
		return part.Mismatch("ccg.Graph", g, o)
	}
	if g.bounds != h.bounds || g.branch != h.branch || g.search != h.search {
		return work.Errorf(fn, "the graphs were built with bounds %s, b %d, L* %d and %s, b %d, L* %d",
			g.bounds, g.branch, g.search, h.bounds, h.branch, h.search)
	}
	have := make(map[int]bool, len(g.locs))
	for _, l := range g.locs {
		have[l.Index] = true
	}
	for _, l := range h.locs {
		if have[l.Index] {
			return work.Errorf(fn, "location %d (%s) is in both graphs", l.Index, l.Name)
		}
	}
	var out *Graph
	if err := work.Try(func() { out = merge(fn, []*Graph{g, h}) }); err != nil {
		return err
	}
	slices.SortStableFunc(out.locs, func(x, y Location) int { return x.Index - y.Index })
	g.st, g.locs, g.sh, g.part = out.st, out.locs, out.sh, false
	g.orderOnce, g.order = sync.Once{}, MessageOrder{}
	return nil
}

// MarshalBinary encodes the graph in the file format of Save (version 2;
// Read restores it).
func (g *Graph) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	if _, err := g.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
