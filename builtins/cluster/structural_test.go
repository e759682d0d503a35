package cluster

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

func smallHybrid() *trace.Trace {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Threads, cfg.Iterations, cfg.Depth = 4, 2, 3, 1
	return synth.Generate(cfg)
}

func TestStructuralGroupsOfAGeneratedRun(t *testing.T) {
	tr := smallHybrid()
	c := Structural(tr)
	// Rank 0 reads input and writes output, ranks 1-3 set up the grid, the
	// 8 worker threads run the OpenMP region.
	var got []string
	for _, g := range c.Groups() {
		var ls []string
		for _, p := range g {
			ls = append(ls, p.Label())
		}
		got = append(got, strings.Join(ls, ","))
	}
	want := []string{
		"rank 0",
		"rank 0 thread 1,rank 0 thread 2,rank 1 thread 1,rank 1 thread 2,rank 2 thread 1,rank 2 thread 2,rank 3 thread 1,rank 3 thread 2",
		"rank 1,rank 2,rank 3",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("groups\n%q\nwant\n%q", got, want)
	}
	for i, p := range tr.Processes() {
		if g := c.GroupOf(p); c.Group(g)[0].Index > i || !contains(c.Group(g), p) {
			t.Errorf("GroupOf(%s) = %d", p.Label(), g)
		}
	}
	// The streaming hash clustering of every process gives the same groups.
	h := NewHashClustering(Pairs)
	for _, p := range tr.Processes() {
		h.Add(p)
	}
	for i, g := range h.Groups() {
		if len(g.Procs) != len(c.Group(i)) || g.Procs[0] != c.Group(i)[0].Index || g.Hash != c.Hash(i) {
			t.Errorf("streaming group %d: %v", i, g.Procs)
		}
	}
}

func contains(ps []*trace.Process, p *trace.Process) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// TestMatricesEqualDirectMeasures checks the lattice-derived matrices of a
// generated run against pairsim and pairsub on the processes' own sets.
func TestMatricesEqualDirectMeasures(t *testing.T) {
	for _, m := range []Measure{Pairs, PairsPlus, Funcs} {
		tr := smallHybrid()
		c := Structural(tr, WithMeasure(m))
		sim, sub := c.Matrix(), c.Subsumption()
		for i := range c.NumGroups() {
			a := StructureOf(c.Group(i)[0])
			for j := range c.NumGroups() {
				b := StructureOf(c.Group(j)[0])
				if want := Jaccard(a.Of(m), b.Of(m)); sim.At(i, j) != want {
					t.Errorf("%v: sim(%d,%d) = %v, want %v", m, i, j, sim.At(i, j), want)
				}
				closed := PairsPlus
				if m == Funcs {
					closed = Funcs
				}
				if want := Subsumption(a.Of(closed), b.Of(closed)); sub.At(i, j) != want {
					t.Errorf("%v: sub(%d,%d) = %v, want %v", m, i, j, sub.At(i, j), want)
				}
			}
		}
	}
}

// callTrace builds a trace with one process per spec, a call nesting such
// as "main(a(b) c)".
func callTrace(specs ...string) *trace.Trace {
	defs := &trace.Definitions{}
	ids := map[string]int32{}
	var procs []*trace.Process
	for r, spec := range specs {
		p := &trace.Process{Rank: int32(r), Name: fmt.Sprint("MPI Rank ", r)}
		var stack []int32
		var clock int64
		spec = strings.NewReplacer("(", " ( ", ")", " ) ").Replace(spec)
		words := strings.Fields(spec)
		for i, w := range words {
			clock++
			switch w {
			case "(":
				continue
			case ")":
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, clock), append(p.Ref, stack[len(stack)-1])
				stack = stack[:len(stack)-1]
				continue
			}
			id, ok := ids[w]
			if !ok {
				id = int32(len(defs.Regions))
				ids[w] = id
				defs.Regions = append(defs.Regions, trace.Region{Name: w})
			}
			p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, clock), append(p.Ref, id)
			if i+1 < len(words) && words[i+1] == "(" {
				stack = append(stack, id)
			} else {
				clock++
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, clock), append(p.Ref, id)
			}
		}
		procs = append(procs, p)
	}
	return trace.NewTrace(defs, procs)
}

func TestFallbackToFuncs(t *testing.T) {
	// Equal functions, three different pair sets: the pairs lattice has 7
	// nodes, the funcs lattice 1.
	tr := callTrace("main(a(b))", "main(b(a))", "main(a b)")
	if c := Structural(tr); c.NumGroups() != 3 || c.Lattice().Len() != 7 {
		t.Fatalf("pairs: %d groups, %d nodes", c.NumGroups(), c.Lattice().Len())
	}
	c := Structural(tr, WithNodeLimit(3))
	if c.Measure() != Funcs || c.Fallback() == nil {
		t.Fatalf("measure %v, fallback %v", c.Measure(), c.Fallback())
	}
	if s := c.String(); !strings.Contains(s, "fell back from pairs to funcs") {
		t.Errorf("summary does not say so:\n%s", s)
	}
	if c.NumGroups() != 1 || c.Lattice().Len() != 1 {
		t.Errorf("%d funcs groups, %d nodes", c.NumGroups(), c.Lattice().Len())
	}
	if m := c.Matrix(); m.Name != "funcsim" || !strings.Contains(m.Note, "exceeded 3 nodes") {
		t.Errorf("matrix %q note %q", m.Name, m.Note)
	}
	tr = smallHybrid()
	c = Structural(tr, WithNodeLimit(1))
	if c.lattice != nil || !strings.Contains(c.String(), "no lattice") {
		t.Errorf("with a 1-node guard there is no lattice:\n%s", c.String())
	}
	func() {
		defer func() {
			var e *Error
			if err, _ := recover().(error); !errors.As(err, &e) || !strings.Contains(e.Msg, "WithNodeLimit") {
				t.Errorf("Matrix without a lattice: %v", err)
			}
		}()
		c.Matrix()
	}()
}

func TestStructuralBadArguments(t *testing.T) {
	tr := smallHybrid()
	other := smallHybrid()
	for name, f := range map[string]func(){
		"nil trace":     func() { Structural(nil) },
		"measure":       func() { Structural(tr, WithMeasure(Measure(7))) },
		"sigma":         func() { Structural(tr, WithSigma(1.5)) },
		"limit":         func() { Structural(tr, WithNodeLimit(-1)) },
		"foreign":       func() { Structural(tr, WithProcesses(other.Process(0))) },
		"group":         func() { Structural(tr).Group(3) },
		"merge sigma":   func() { Structural(tr).Coarsen(-0.1) },
		"matrix at":     func() { Structural(tr).Matrix().At(0, 9) },
		"merged pair":   func() { Structural(tr).Coarsen(0.5).Pair(5) },
		"new lattice":   func() { NewLattice(Pairs, -3) },
		"new hash meas": func() { NewHashClustering(Measure(-1)) },
	} {
		func() {
			defer func() {
				var e *Error
				if err, _ := recover().(error); !errors.As(err, &e) || !strings.HasPrefix(e.Error(), "cluster.") {
					t.Errorf("%s: panic %v, want a *cluster.Error", name, err)
				}
			}()
			f()
		}()
	}
}

func TestSubsetAndMerge(t *testing.T) {
	tr := smallHybrid()
	c := Structural(tr, WithProcesses(tr.Process(3), tr.Process(0), tr.Process(6)))
	if c.NumProcesses() != 3 || c.NumGroups() != 2 || c.Group(0)[0] != tr.Process(0) {
		t.Fatalf("subset: %v", c)
	}
	full := Structural(tr)
	// rank 0 vs ranks 1-3: pairsim below 1; merged at σ = that value.
	s := full.Matrix().At(0, 2)
	m := full.Coarsen(s)
	if m.Len() != 2 || fmt.Sprint(m.Parts) != "[[0 2] [1]]" {
		t.Fatalf("merge at %v: %v", s, m.Parts)
	}
	p, q := m.Pair(0)
	if p != tr.Process(0) || q != tr.Process(3) {
		t.Errorf("structural pair %v, %v", p, q)
	}
	if p, q := m.Pair(1); p != nil || q != nil {
		t.Errorf("one structural group has no structural pair: %v %v", p, q)
	}
	// The time pair is the farthest pair in L1 over exclusive times: check
	// against all pairs.
	g := m.Group(0)
	best := -1.0
	for a := range g {
		for b := a + 1; b < len(g); b++ {
			best = max(best, profileOf(g[a]).dist(profileOf(g[b])))
		}
	}
	ta, tb := m.TimePair(0)
	if d := profileOf(ta).dist(profileOf(tb)); d != best || best <= 0 {
		t.Errorf("time pair %v %v at %v, farthest %v", ta, tb, d, best)
	}
	if tab := m.Table(); tab.NumRows() != 2 {
		t.Errorf("merged table rows %d", tab.NumRows())
	}
	// The deprecated name coarsens alike.
	if old := full.Merge(s); fmt.Sprint(old.Parts) != fmt.Sprint(m.Parts) {
		t.Errorf("deprecated Merge(σ) %v, Coarsen(σ) %v", old.Parts, m.Parts)
	}
}

// A region named "" is a function like any other, not the virtual root ε:
// ""(main) has the pairs ε → "" and "" → main, none in common with main's
// ε → main.
func TestEmptyRegionNameIsNotRoot(t *testing.T) {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: ""}, {Name: "main"}}}
	p := &trace.Process{Rank: 0, Kind: []trace.EventKind{trace.Enter, trace.Enter, trace.Leave, trace.Leave},
		Time: []int64{0, 1, 2, 3}, Ref: []int32{0, 1, 1, 0}}
	q := &trace.Process{Rank: 1, Kind: []trace.EventKind{trace.Enter, trace.Leave}, Time: []int64{0, 3}, Ref: []int32{1, 1}}
	tr := trace.NewTrace(defs, []*trace.Process{p, q})
	s := StructureOf(p)
	if want := []string{`ε → \0`, `\0 → main`}; !equalSets(s.Pairs, want) {
		t.Errorf("pairs of \"\"(main) %q, want %q", s.Pairs, want)
	}
	if want := []string{`ε → \0`, `ε → main`, `\0 → main`}; !equalSets(s.PairsPlus, want) {
		t.Errorf("pairs+ %q, want %q", s.PairsPlus, want)
	}
	if want := []string{`\0`, "main"}; !equalSets(s.Funcs, want) {
		t.Errorf("funcs %q, want %q", s.Funcs, want)
	}
	c := Structural(tr)
	if v := c.Matrix().At(0, 1); v != 0 {
		t.Errorf("pairsim(\"\"(main), main) = %v, want 0: no pair in common", v)
	}
	// Written by hand, an empty caller still means ε.
	if got := StructureFromPairs([][2]string{{"", "main"}}).Pairs; !equalSets(got, []string{"ε → main"}) {
		t.Errorf("StructureFromPairs: %q", got)
	}
}

func equalSets(a, b []string) bool {
	return fmt.Sprint(sortedCopy(a)) == fmt.Sprint(sortedCopy(b))
}

// The methods of the per-process contract, run one subset per core, give Structural's groups
// and lattice.
func TestMethodsEqualStructural(t *testing.T) {
	tr := callTrace("main(a(b) c)", "main(a c)", "main(a(b) c)", "main(a(b d) c)", "main(a c)", "main(x)")
	c := Structural(tr, WithNodeLimit(0))
	p, err := part.Run(tr, tr.Processes(), HashMethod(Pairs))
	if err != nil {
		t.Fatal(err)
	}
	h := p.(*HashClustering)
	if g, w := fmt.Sprint(h.Groups()), fmt.Sprint(c.HashClustering().Groups()); g != w {
		t.Fatalf("cluster.hash groups %s, Structural %s", g, w)
	}
	if mem, _ := h.Table().Strings("Members"); fmt.Sprint(mem) != "[0,2 1,4 3 5]" {
		t.Fatalf("hash clustering table members %q", mem)
	}
	p, err = part.Run(tr, tr.Processes(), LatticeMethod(Pairs, 0))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := fmt.Sprint(canon(p.(*Lattice))), fmt.Sprint(canon(c.Lattice())); g != w {
		t.Fatalf("cluster.lattice %s, Structural %s", g, w)
	}
	if _, err := LatticeMethod(Pairs, 3).Compute(tr, tr.Processes(), 0, nil); err == nil {
		t.Fatal("a lattice past its node limit computed without error")
	}
}

// A nil option is ignored, as everywhere on the notebook surface.
func TestNilOptionIgnored(t *testing.T) {
	tr := smallHybrid()
	if a, b := Structural(tr, nil, WithMeasure(Funcs)), Structural(tr, WithMeasure(Funcs)); a.NumGroups() != b.NumGroups() || a.Measure() != Funcs {
		t.Fatalf("with a nil option %d groups (%v), without %d", a.NumGroups(), a.Measure(), b.NumGroups())
	}
}
