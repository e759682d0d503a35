package ccg

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Knüpfer Figure 4.1: the construction example. The graph's durations
// are the seed's: root [10 80 0], A [10 10 20 20 20], B [10], C [10 0 10].
func TestSeedFigure41(t *testing.T) {
	const A, B, C = 0, 1, 2
	b := newPB().enter(10, A).enter(20, B).leave(30, B).enter(50, C).msg(trace.MpiSend, 60, 1, 0, 8, 0).leave(70, C).leave(90, A)
	tr := traceOf(3, b.p)
	g := Build(tr.Process(0), Lossless)
	st := g.st
	root := &st.nodes[g.locs[0].Root]
	if got := st.durs(nil, root); !slices.Equal(got, []int64{10, 80, 0}) {
		t.Fatalf("root durations %v", got)
	}
	a := &st.nodes[st.children(root)[0]]
	if got := st.durs(nil, a); !slices.Equal(got, []int64{10, 10, 20, 20, 20}) || a.ref != A {
		t.Fatalf("A durations %v (region %d)", got, a.ref)
	}
	bn, cn := &st.nodes[st.children(a)[0]], &st.nodes[st.children(a)[1]]
	if got := st.durs(nil, bn); !slices.Equal(got, []int64{10}) || bn.ref != B {
		t.Fatalf("B durations %v", got)
	}
	if got := st.durs(nil, cn); !slices.Equal(got, []int64{10, 0, 10}) || cn.ref != C {
		t.Fatalf("C durations %v", got)
	}
	if s := &st.nodes[st.children(cn)[0]]; s.kind != kAtomic || trace.EventKind(s.ev) != trace.MpiSend {
		t.Fatalf("C's child is %v", s)
	}
	if s := g.Stats(); s.N != 5 || s.Nodes != 5 {
		t.Fatalf("N %d n %d, want 5 and 5", s.N, s.Nodes)
	}
}

// Knüpfer Figures 3.2 / 3.4: main calls foo, which calls bar twice; bar
// calls MPI_Send three times, each with a send event; the first send goes
// to another peer. 17 nodes uncompressed, 8 compressed.
func TestSeedFigure34(t *testing.T) {
	b := figure34()
	g := Build(traceOf(4, b.p).Process(0), Lossless)
	s := g.Stats()
	if s.N != 17 || s.Nodes != 8 {
		t.Fatalf("N = %d, n = %d; want 17 and 8 (Figures 3.2 and 3.4)", s.N, s.Nodes)
	}
	if s.RNodes != 17.0/8 {
		t.Fatalf("R_nodes %v", s.RNodes)
	}
	sameProcess(t, "decompressed", b.p, g.Process(0))
}

// Knüpfer Figures 4.2-4.3: a node with 15 children and b = 3 is split
// while it grows: A..I become X1..X3 and Y1 (level 2), J..L X4 and M..O X5
// at the end (late stage). Unlike the figure, the late stage adds no
// artificial node with a single child (Y2 over X5): f gets Y1, X4, X5.
func TestSeedFigure43Splitting(t *testing.T) {
	b := newPB().enter(0, 0)
	for i := range 15 {
		b.enter(int64(10+10*i), 1).leave(int64(15+10*i), 1)
	}
	b.leave(200, 0)
	g := Build(traceOf(2, b.p).Process(0), Lossless, WithBranching(3))
	st := g.st
	f := &st.nodes[st.children(&st.nodes[g.locs[0].Root])[0]]
	shape := func(id uint32) string {
		var rec func(id uint32) string
		rec = func(id uint32) string {
			nd := &st.nodes[id]
			if nd.kind == kCall {
				return "c"
			}
			var parts []string
			for _, c := range st.children(nd) {
				parts = append(parts, rec(c))
			}
			return "(" + strings.Join(parts, " ") + ")"
		}
		return rec(id)
	}
	var top []string
	for _, c := range st.children(f) {
		top = append(top, shape(c))
	}
	if got := strings.Join(top, " "); got != "((c c c) (c c c) (c c c)) (c c c) (c c c)" {
		t.Fatalf("split shape %s", got)
	}
	// 1 root + f + 15 calls + X1..X5 + Y1; the calls are equal (one node)
	// and so are X1..X5 (one), Y1 is new: root, f, c, X, Y.
	if s := g.Stats(); s.N != 23 || s.Nodes != 5 {
		t.Fatalf("N %d n %d, want 23 and 5", s.N, s.Nodes)
	}
	sameProcess(t, "decompressed", b.p, g.Process(0))
}

// Lossless graphs reproduce every location exactly, whatever b and L.
func TestLosslessRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 300 {
		p := randProc(rng, 2+rng.IntN(5), 1+rng.IntN(30), int64(rng.IntN(3)))
		tr := traceOf(8, p)
		g := Build(tr.Process(0), Lossless, WithBranching(2+rng.IntN(6)), WithSearch(1+rng.IntN(4)))
		sameProcess(t, "iteration", p, g.Process(0))
		if s := g.Stats(); s.DevMin != 0 || s.DevMax != 0 || s.MaxRel != 0 {
			t.Fatalf("case %d: lossless graph reports deviation %+v", it, s)
		}
	}
}

// expand decompresses the graph of location 0 into an explicit tree and
// returns the canonical string of each node (a brute-force description of
// its whole sub-tree, its own last gap left out: where its leave is, its
// parent's total says); distinct strings are the distinct sub-trees.
func expand(g *Graph) []string {
	st := g.st
	var out []string
	var rec func(id uint32) string
	rec = func(id uint32) string {
		nd := &st.nodes[id]
		var b strings.Builder
		b.WriteByte('(')
		b.WriteString(string(rune('a' + nd.kind)))
		if nd.kind == kAtomic {
			b.WriteString(trace.EventKind(nd.ev).String())
			for _, v := range st.payload(nil, nd) {
				b.WriteString(" " + itoa(v))
			}
		} else {
			b.WriteString(itoa(int64(nd.ref)))
			d := st.durs(nil, nd)
			for _, d := range d[:len(d)-1] { // the last gap: the parent's stored total puts it
				b.WriteString(" " + itoa(d))
			}
			for _, c := range st.children(nd) {
				b.WriteString(rec(c))
			}
		}
		b.WriteByte(')')
		s := b.String()
		out = append(out, s)
		return s
	}
	rec(g.locs[0].Root)
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// A lossless graph with an unlimited search stores every distinct sub-tree
// exactly once (maximal sharing), and N counts the uncompressed tree.
func TestLosslessMaximalSharing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 200 {
		p := randProc(rng, 2+rng.IntN(4), 1+rng.IntN(25), int64(rng.IntN(2)))
		g := Build(traceOf(8, p).Process(0), Lossless, WithBranching(2+rng.IntN(5)), WithSearch(1<<20))
		all := expand(g)
		distinct := map[string]bool{}
		for _, s := range all {
			distinct[s] = true
		}
		s := g.Stats()
		if int(s.N) != len(all) || int(s.Nodes) != len(distinct) {
			t.Fatalf("case %d: N %d n %d; expanded tree has %d nodes, %d distinct", it, s.N, s.Nodes, len(all), len(distinct))
		}
	}
}

// Lossy graphs keep every timestamp within Abs and every call's duration
// within Rel of the original; the reported deviation interval is exactly
// the observed one; soft payloads stay within their bounds.
func TestLossyWithinBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	compressedMore := 0
	for it := range 300 {
		p := randProc(rng, 2+rng.IntN(4), 5+rng.IntN(40), int64(1+rng.IntN(4)))
		b := Bounds{Abs: int64(rng.IntN(30)), Rel: []float64{0, 0.05, 0.3, 1, -1}[rng.IntN(5)], Bytes: int64(rng.IntN(2))}
		if rng.IntN(5) == 0 {
			b.Abs = -1
		}
		tr := traceOf(8, p)
		g := Build(tr.Process(0), b, WithBranching(2+rng.IntN(6)), WithSearch(1+rng.IntN(8)))
		q := g.Process(0)
		if !slices.Equal(p.Kind, q.Kind) {
			t.Fatalf("case %d: event kinds changed", it)
		}
		lo, hi := int64(0), int64(0)
		for i := range p.Time {
			d := q.Time[i] - p.Time[i]
			lo, hi = min(lo, d), max(hi, d)
			if b.Abs >= 0 && (d > b.Abs || d < -b.Abs) {
				t.Fatalf("case %d (%s): event %d time %d, original %d", it, b, i, q.Time[i], p.Time[i])
			}
			if k := p.Kind[i]; k != trace.Enter && k != trace.Leave {
				got, want := payloadOf(q, i), payloadOf(p, i)
				if k == trace.MpiSend || k == trace.MpiRecv {
					if d := got[3] - want[3]; d > b.Bytes || d < -b.Bytes {
						t.Fatalf("case %d: bytes %d, original %d (bound %d)", it, got[3], want[3], b.Bytes)
					}
					got[3], want[3] = 0, 0
				}
				if !slices.Equal(got, want) {
					t.Fatalf("case %d: event %d payload %v, original %v", it, i, got, want)
				}
			}
		}
		if s := g.Stats(); s.DevMin != lo || s.DevMax != hi {
			t.Fatalf("case %d: reported deviation [%d, %d], observed [%d, %d]", it, s.DevMin, s.DevMax, lo, hi)
		}
		// Calls: leave - enter within Rel.
		var stack []int
		for i, k := range p.Kind {
			switch k {
			case trace.Enter:
				stack = append(stack, i)
			case trace.Leave:
				e := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				d0, d1 := p.Time[i]-p.Time[e], q.Time[i]-q.Time[e]
				if b.Rel >= 0 && math.Abs(float64(d1-d0)) > b.Rel*float64(d0) {
					t.Fatalf("case %d (%s): call %d..%d lasts %d, original %d", it, b, e, i, d1, d0)
				}
			}
		}
		lossless := Build(tr.Process(0), Lossless, WithBranching(g.branch), WithSearch(g.search))
		if g.Stats().Nodes < lossless.Stats().Nodes {
			compressedMore++
		}
	}
	if compressedMore < 50 {
		t.Fatalf("lossy bounds compressed more than lossless in only %d of 300 cases", compressedMore)
	}
}

// Lemma 4 by hand: P = [10 5 10], C = [9 5 12] over one leaf call child
// (prefix 0, original last gap 5) with a deviation interval [-1, 0]: s =
// 1 at the child's start (child: [0, 1]), 1 at its leave; C's own last
// gap is its parent's to place, so E = [0, 1]; the gap 9 -> 10 deviates
// by 1/9.
func TestLemma4ByHand(t *testing.T) {
	s := newStore(Bounds{Abs: 5, Rel: 1}, 4)
	add := func(t *temp) uint32 { return s.add(t, s.hashOf(t)) }
	leaf := add(&temp{kind: kCall, ref: 4, dur: []int64{5}})
	p := add(&temp{kind: kCall, ref: 3, dur: []int64{10, 5, 10}, kids: []uint32{leaf}})
	c := &temp{kind: kCall, ref: 3, dur: []int64{9, 5, 12}, kids: []uint32{leaf}, devs: []interval{{-1, 0}},
		pre: []int64{0}, lg: []int64{5}, crel: []float64{1}}
	c.vis = []interval{none}
	c.rel, c.tlo, c.thi = 1, -5, 5
	e, v, pre, rel, ok := s.match(p, c, &Bounds{Abs: 5, Rel: 1})
	// Observed: the child call's enter and leave (s = 1).
	if !ok || e != (interval{0, 1}) || v != (interval{1, 1}) || rel != 1.0/9 || pre != 15 {
		t.Fatalf("E = %v, V = %v, pre %d, rel %v, ok %v; want [0, 1], [1, 1], 15, 1/9, true", e, v, pre, rel, ok)
	}
	// An absolute bound of 0 admits no shift.
	c.tlo, c.thi = 0, 0
	if _, _, _, _, ok := s.match(p, c, &Bounds{Abs: 0, Rel: 1}); ok {
		t.Fatal("Abs 0 accepted a shifted node")
	}
	// A child deviation of [0, 1] shifted by s_1 = 1 reaches 2 > Abs 1.
	c.devs[0] = interval{0, 1}
	c.tlo, c.thi = -1, 1
	if _, _, _, _, ok := s.match(p, c, &Bounds{Abs: 1, Rel: 1}); ok {
		t.Fatal("eq. 4.16 violated but accepted")
	}
	// Rel: 9 -> 10 is 11%, over a 10% bound.
	c.devs[0] = interval{}
	c.rel, c.tlo, c.thi = 0.1, -5, 5
	if _, _, _, _, ok := s.match(p, c, &Bounds{Abs: 5, Rel: 0.1}); ok {
		t.Fatal("relative bound violated but accepted")
	}
	// The child's last gap as P puts it: 5 for an original 4 is 25%.
	c.rel, c.dur[0], c.lg[0], c.crel[0] = 1, 10, 4, 0.2
	if _, _, _, _, ok := s.match(p, c, &Bounds{Abs: 5, Rel: 1}); ok {
		t.Fatal("a child's last gap beyond its bound accepted")
	}
	c.crel[0] = 0.25
	if _, _, _, _, ok := s.match(p, c, &Bounds{Abs: 5, Rel: 1}); !ok {
		t.Fatal("a child's last gap within its bound rejected")
	}
}

// Non-nesting events are repaired as the call tree repairs them.
func TestRepairsLikeCallTree(t *testing.T) {
	b := newPB().enter(0, 0).enter(1, 1).leave(2, 0).leave(3, 2).enter(4, 1)
	g := Build(traceOf(3, b.p).Process(0), Lossless)
	want := b.p.CallTree().Repairs
	if got := g.locs[0].Repairs; got != want {
		t.Fatalf("repairs %+v, call tree %+v", got, want)
	}
	q := g.Process(0)
	// Repaired: enter 0, enter 1, leave 1 (at 2), leave 0 (at 2), enter 1, leave 1 (at 4).
	if !slices.Equal(q.Kind, []trace.EventKind{trace.Enter, trace.Enter, trace.Leave, trace.Leave, trace.Enter, trace.Leave}) ||
		!slices.Equal(q.Time, []int64{0, 1, 2, 2, 4, 4}) {
		t.Fatalf("repaired events %v %v", q.Kind, q.Time)
	}
}

// Knüpfer Figure 4.8 (priority cache search): B, C1, C2 and D have equal
// hard properties; C1, C2 and D are compatible, B is compatible with D
// only. C2 is replaced by C1, which moves before B in the S-list, so D is
// replaced by C1 too (a front-to-back search would give B). (Each call
// ends with an event: a leaf call's one duration is its last gap, which
// its parent places, so leaves of one region are always compatible.)
func TestSeedFigure48PriorityCache(t *testing.T) {
	b := newPB().enter(0, 0).ev(trace.ProgramBegin, 100, -1).leave(100, 0) // B
	tm := int64(100)
	for _, d := range []int64{120, 121, 110} { // C1, C2, D
		b.enter(tm+10, 0).ev(trace.ProgramBegin, tm+10+d, -1).leave(tm+10+d, 0)
		tm += 10 + d
	}
	g := Build(traceOf(1, b.p).Process(0), Bounds{Abs: -1, Rel: 0.1}, WithSearch(4))
	st := g.st
	kids := st.children(&st.nodes[g.locs[0].Root])
	if kids[0] == kids[1] || kids[2] != kids[1] || kids[3] != kids[1] {
		t.Fatalf("children %v: want B, C1, C1, C1", kids)
	}
	// C2 and D last as long as C1 now (121 -> 120, 110 -> 120: within 10%),
	// and the gaps after them take the drift back.
	checkBounds(t, "decompressed", traceOf(1, b.p), g, Bounds{Abs: -1, Rel: 0.1})
}

// The S-list cache keeps at most L candidates: a miss on a full cache
// replaces the last one (4.2.2, Figure 4.7).
func TestSListEviction(t *testing.T) {
	s := newStore(Bounds{Abs: -1, Rel: 0.01}, 3)
	b := &Bounds{Abs: -1, Rel: 0.01}
	ev := s.add(&temp{kind: kAtomic, ev: uint8(trace.ProgramBegin)}, 1)
	// A call with an event after d ns (a leaf call would match any other).
	leaf := func(d int64) uint32 {
		id, _, _, _, _, _ := s.put(&temp{kind: kCall, ref: 1, dur: []int64{d, 0, 0}, kids: []uint32{ev}, devs: []interval{{}},
			pre: []int64{0}, lg: []int64{0}, crel: []float64{b.Rel}, rel: b.Rel}, b)
		return id
	}
	a, bb, c := leaf(100), leaf(200), leaf(300)
	if got := leaf(301); got != c { // hit at index 2: moves to 1
		t.Fatalf("301 -> %d, want %d", got, c)
	}
	d := leaf(400) // miss: the cache [a c b] is full, b is pushed out
	var list []uint32
	for _, x := range s.lists[0] {
		list = append(list, x.id)
	}
	if !slices.Equal(list, []uint32{a, c, d}) {
		t.Fatalf("S-list %v, want [%d %d %d]", list, a, c, d)
	}
	// 201 is compatible with the evicted 200 only: a new node. (200 itself
	// would find its exact twin in put's front cache.)
	if got := leaf(201); got == bb || got == a || got == c || got == d {
		t.Fatalf("201 replaced by node %d", got)
	}
	if got := leaf(200); got != bb {
		t.Fatalf("200 -> %d, not its exact twin %d", got, bb)
	}
}

// No node has more than b children, whatever the input.
func TestBranchingBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 200 {
		p := randProc(rng, 2+rng.IntN(4), 1+rng.IntN(60), 1)
		k := 2 + rng.IntN(5)
		g := Build(traceOf(8, p).Process(0), Lossless, WithBranching(k))
		for i, nd := range g.st.nodes {
			if nd.kind != kAtomic && int(nd.n) > k {
				t.Fatalf("node %d has %d children, b = %d", i, nd.n, k)
			}
		}
		sameProcess(t, "decompressed", p, g.Process(0))
	}
}

// Request ids count up from call to call, so no two iterations have equal
// ids; stored as differences from the latest id (encodeReq) they repeat,
// and a lossless graph shares the iterations and still reproduces every
// id.
func TestRequestIdsShareLosslessly(t *testing.T) {
	b := newPB().enter(0, 0)
	tm, req := int64(10), int64(100)
	for range 50 {
		b.enter(tm, 1)
		for k := range 3 {
			req++
			b.msg(trace.MpiIsend, tm+int64(1+k), int32(k), 7, 64, req)
		}
		b.enter(tm+5, 2)
		for k := range 3 {
			b.msg(trace.MpiIsendComplete, tm+int64(6+k), -1, -1, 0, req-2+int64(k))
		}
		b.leave(tm+10, 2).leave(tm+12, 1)
		tm += 20
	}
	b.leave(tm, 0)
	g := Build(traceOf(3, b.p).Process(0), Lossless)
	sameProcess(t, "decompressed", b.p, g.Process(0))
	// One iteration's nodes (3 sends, 3 completions, 2 calls) and a split
	// tree over 50 equal iterations: far fewer than 50 x 8.
	if s := g.Stats(); s.Nodes > 30 {
		t.Fatalf("%d nodes for 50 equal iterations", s.Nodes)
	}
	mustPanic(t, "Bounds.Requests is 3", func() { Build(traceOf(3, b.p).Process(0), Bounds{Requests: 3}) })
}

// Up leaves the current call: the next event is the one after its Leave,
// request ids included.
func TestIterUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for range 100 {
		p := randProc(rng, 3, 1+rng.IntN(15), 1)
		g := Build(traceOf(8, p).Process(0), Lossless, WithBranching(2+rng.IntN(4)))
		var all []Event
		it := g.Iter(0)
		for {
			e, ok := it.Next()
			if !ok {
				break
			}
			all = append(all, e)
		}
		for range 10 {
			k := rng.IntN(len(all))
			it.Reset()
			for range k + 1 {
				it.Next()
			}
			// The call enclosing the cursor: its Leave is the first Leave
			// after k at a smaller depth than the cursor's.
			depth := len(it.Path())
			if !it.Up() {
				if depth != 0 {
					t.Fatal("Up failed inside a call")
				}
				continue
			}
			want := -1
			for i := k + 1; i < len(all); i++ {
				if all[i].Kind == trace.Leave && all[i].Depth == depth-1 {
					want = i + 1
					break
				}
			}
			e, ok := it.Next()
			if want == len(all) {
				if ok {
					t.Fatalf("Up then Next after the last Leave gave %+v", e)
				}
				continue
			}
			if !ok || !sameEvent(e, all[want]) {
				t.Fatalf("Up from event %d then Next: %+v, want %d %+v", k, e, want, all[want])
			}
		}
	}
}

// The S-list prefilter on the first duration only rules out candidates
// that match would reject.
func TestCandidatePrefilterSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for range 20000 {
		b := Bounds{Abs: int64(rng.IntN(20)) - 1, Rel: []float64{-1, 0, 0.05, 0.5}[rng.IntN(4)]}
		s := newStore(Bounds{Abs: -1, Rel: -1}, 4)
		n := rng.IntN(3)
		dur := func() []int64 {
			d := make([]int64, 2*n+1)
			for i := range d {
				d[i] = int64(rng.IntN(60))
			}
			return d
		}
		kids := make([]uint32, n)
		leaf := s.add(&temp{kind: kAtomic, ev: uint8(trace.ProgramBegin)}, 1)
		for i := range kids {
			kids[i] = leaf
		}
		p := &temp{kind: kCall, ref: 1, dur: dur(), kids: kids}
		id := s.add(p, s.hashOf(p))
		c := &temp{kind: kCall, ref: 1, dur: dur(), kids: kids, devs: make([]interval, n), rel: b.Rel, tlo: -b.Abs, thi: b.Abs,
			pre: make([]int64, n), lg: make([]int64, n), crel: make([]float64, n)}
		if _, _, _, _, ok := s.match(id, c, &b); ok && !s.candOf(id).may(firstDur(c), c, &b) {
			t.Fatalf("%s: prefilter rejects %v for %v, match accepts", b, p.dur, c.dur)
		}
	}
}
