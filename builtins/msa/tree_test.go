package msa

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// randTree returns a random tree spec over a small alphabet, mutated from
// base so that groups are alike but not equal.
func randForest(rng *rand.Rand, n, depth, width, alpha int) string {
	var b strings.Builder
	k := rng.IntN(width + 1)
	for i := 0; i < k; i++ {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(string(rune('a' + rng.IntN(alpha))))
		if depth > 1 && rng.IntN(2) == 0 {
			if sub := randForest(rng, n, depth-1, width, alpha); sub != "" {
				b.WriteString("(" + sub + ")")
			}
		}
	}
	return b.String()
}

// Hierarchical MSA equals flat MSA when the differences sit on one level:
// with leaf calls only, the merged tree's columns are the flat block's.
func TestHierarchicalEqualsFlatOnOneLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for it := 0; it < 300; it++ {
		k := 2 + rng.IntN(6)
		specs := make([]string, k)
		seqs := make([][]string, k)
		for i := range specs {
			spec := randForest(rng, 0, 1, 8, 3)
			specs[i] = spec
			seqs[i] = strings.Fields(spec)
		}
		tr := treeTrace(t, specs, nil)
		if tr.Process(0).CallTree().Len() == 1 && k == 1 {
			continue
		}
		m := Align(tr.Processes()...)
		b := Sequences(seqs, nil)
		want := make([]string, 0, b.Width())
		for c := 0; c < b.Width(); c++ {
			var who []int
			var names []string
			for r := 0; r < b.NumRows(); r++ {
				if x := b.Row(r)[c]; x != "" {
					who = append(who, r)
					if !slices.Contains(names, x) {
						names = append(names, x)
					}
				}
			}
			slices.Sort(names)
			want = append(want, fmt.Sprintf("%s %v", strings.Join(names, " | "), who))
		}
		var got []string
		for _, v := range m.Children(0) {
			got = append(got, fmt.Sprintf("%s %v", m.Region(v), m.Members(v)))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("specs %q:\nmerged %v\nflat   %v", specs, got, want)
		}
	}
}

// randomGroup: k processes mutated from one random forest.
func randomGroup(rng *rand.Rand, k int) []string {
	base := randForest(rng, 0, 4, 4, 4)
	specs := make([]string, k)
	for i := range specs {
		if rng.IntN(3) == 0 {
			specs[i] = base // identical call trees (Stage 1)
			continue
		}
		specs[i] = randForest(rng, 0, 4, 4, 4)
		if rng.IntN(2) == 0 {
			specs[i] = base + " " + specs[i]
		}
	}
	return specs
}

// On random groups: every call-tree node of every process is placed in
// exactly one merged node, and the merged nodes of a process reproduce its
// call tree (regions and parents); counts, members and states agree;
// the time statistics equal a brute-force computation.
func TestMergedTreeInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for it := 0; it < 200; it++ {
		k := 1 + rng.IntN(8)
		specs := randomGroup(rng, k)
		tr := treeTrace(t, specs, func(p int, name string) int64 { return int64((p*7 + int(name[0])*3) % 11) })
		procs := tr.Processes()
		m := Group(procs, WithGuide([]Guide{GuideAuto, GuideMatrix, GuideRanking}[it%3]))
		inc := make([][]int64, m.NumNodes())
		who := make([][]int, m.NumNodes())
		for pi, p := range procs {
			ct := p.CallTree()
			nodes, calls := m.Path(p)
			if len(calls) != ct.Len() {
				t.Fatalf("%q: process %d placed %d of %d nodes", specs, pi, len(calls), ct.Len())
			}
			where := make([]int, ct.Len())
			for i, x := range calls {
				if x != i {
					t.Fatalf("%q: process %d: call nodes out of pre-order: %v", specs, pi, calls)
				}
				where[x] = nodes[i]
				v := nodes[i]
				inc[v] = append(inc[v], ct.Inclusive(x))
				who[v] = append(who[v], pi)
				if x > 0 {
					if got := m.Parent(v); got != where[ct.Parent[x]] {
						t.Fatalf("%q: process %d node %d: merged parent %d, want %d", specs, pi, x, got, where[ct.Parent[x]])
					}
					if !slices.Contains(m.Regions(v), tr.RegionName(ct.Region[x])) {
						t.Fatalf("%q: merged node %d regions %v lack %s", specs, v, m.Regions(v), tr.RegionName(ct.Region[x]))
					}
				}
			}
			if m.NodeOf(p, ct.Len()-1) != where[ct.Len()-1] {
				t.Fatalf("NodeOf disagrees with Path")
			}
		}
		for v := 0; v < m.NumNodes(); v++ {
			if !slices.Equal(who[v], m.Members(v)) || m.Count(v) != len(who[v]) {
				t.Fatalf("%q: node %d members %v count %d, placed %v", specs, v, m.Members(v), m.Count(v), who[v])
			}
			if len(who[v]) == 0 {
				t.Fatalf("%q: node %d has no process", specs, v)
			}
			regions := map[string]bool{}
			for _, pi := range who[v] {
				_, calls := m.Path(procs[pi])
				nodes, _ := m.Path(procs[pi])
				for i, n := range nodes {
					if n == v {
						regions[regionOf(tr, procs[pi], calls[i])] = true
					}
				}
			}
			want := Equal
			switch {
			case len(regions) > 1:
				want = Different
			case len(who[v]) < k:
				want = Gap
			}
			if m.State(v) != want {
				t.Fatalf("%q: node %d state %v, want %v", specs, v, m.State(v), want)
			}
			s := slices.Clone(inc[v])
			slices.Sort(s)
			st := m.Stats(v)
			slow := -1
			for i, d := range inc[v] {
				if d == s[len(s)-1] && (slow < 0 || who[v][i] < slow) {
					slow = who[v][i]
				}
			}
			if st.Min != s[0] || st.Max != s[len(s)-1] || st.Median != s[(len(s)-1)/2] || st.Slowest != slow {
				t.Fatalf("%q: node %d stats %+v, brute force min %d median %d max %d slowest %d", specs, v, st, s[0], s[(len(s)-1)/2], s[len(s)-1], slow)
			}
		}
	}
}

func regionOf(tr *trace.Trace, p *trace.Process, x int) string {
	r := p.CallTree().Region[x]
	if r < 0 {
		return "ε"
	}
	return tr.RegionName(r)
}

// Stage 1 keeps multiplicity: repeating each process r times gives the
// same tree with every count multiplied by r.
func TestDuplicatesKeepMultiplicity(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for it := 0; it < 100; it++ {
		specs := randomGroup(rng, 1+rng.IntN(5))
		rep := 1 + rng.IntN(4)
		var many []string
		for range rep {
			many = append(many, specs...)
		}
		a := Align(treeTrace(t, specs, nil).Processes()...)
		b := Align(treeTrace(t, many, nil).Processes()...)
		if a.NumNodes() != b.NumNodes() {
			t.Fatalf("%q x%d: %d nodes, want %d", specs, rep, b.NumNodes(), a.NumNodes())
		}
		for v := 0; v < a.NumNodes(); v++ {
			if a.Region(v) != b.Region(v) || a.State(v) != b.State(v) || a.Count(v)*rep != b.Count(v) || a.Parent(v) != b.Parent(v) {
				t.Fatalf("%q x%d: node %d: %s %v %d, want %s %v %d", specs, rep, v, b.Region(v), b.State(v), b.Count(v), a.Region(v), a.State(v), a.Count(v)*rep)
			}
		}
	}
}

// Processes of two traces merge by region name.
func TestMergeAcrossTraces(t *testing.T) {
	a := treeTrace(t, []string{"m(a b)"}, nil)
	b := treeTrace(t, []string{"x m(b)"}, nil) // x gets region id 0 here, m id 1
	m := Align(a.Process(0), b.Process(0))
	want := "ε [equal [0 1]]\n  x [gap [1]]\n  m [equal [0 1]]\n    a [gap [0]]\n    b [equal [0 1]]\n"
	if got := render(m); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestBadArguments(t *testing.T) {
	tr := treeTrace(t, []string{"m", "m"}, nil)
	p := tr.Process(0)
	cases := map[string]func(){
		"no processes": func() { Align() },
		"twice":        func() { Align(p, p) },
		"nil":          func() { Align(p, nil) },
		"guide":        func() { Group(tr.Processes(), WithGuide(7)) },
		"limit":        func() { Group(tr.Processes(), WithMatrixLimit(-1)) },
		"scoring":      func() { Group(tr.Processes(), WithScoring(1, 2, 0)) },
		"node":         func() { Align(tr.Processes()...).Table(); Align(tr.Processes()...).Children(5) },
		"not a member": func() { Align(p).Path(tr.Process(1)) },
		"k":            func() { MaxKFreqHashing(nil, nil, 0) },
		"labels":       func() { Sequences([][]string{{"a"}}, []string{"x", "y"}) },
	}
	want := map[string]string{
		"no processes": "msa.Align: no processes to merge",
		"twice":        "msa.Align: process rank 0 is given twice (positions 0 and 1)",
		"nil":          "msa.Align: process 1 is nil",
		"guide":        "msa.Group: unknown guide method 7",
		"limit":        "msa.Group: matrix limit -1 < 0",
		"scoring":      "msa.Group: align: scoring",
		"node":         "msa.Tree.Children: node 5 out of range (the merged tree has 2 nodes, 0..1)",
		"not a member": "msa.Tree.Path: rank 1 is not one of the 1 merged processes",
		"k":            "msa.MaxKFreqHashing: K = 0; need K >= 1",
		"labels":       "msa.Sequences: 2 labels for 1 sequences",
	}
	for name, fn := range cases {
		func() {
			defer func() {
				r := recover()
				e, ok := r.(*Error)
				if !ok || !strings.HasPrefix(e.Error(), want[name]) {
					t.Errorf("%s: panic %v, want *Error starting %q", name, r, want[name])
				}
			}()
			fn()
		}()
	}
}

// A long merge stops at an interrupt with work.ErrInterrupted, and the
// next merge runs normally.
func TestMergeStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 2,048-process pepc-like trace")
	}
	tr := synth.Generate(synth.PEPCConfig(2048))
	for _, p := range tr.Processes() {
		p.CallTree()
	}
	out := worktest.Interrupt(t, 100*time.Millisecond, 10*time.Second, func() { Align(tr.Processes()...) })
	if out.Finished {
		t.Skip("finished before the interrupt (machine too fast for this input)")
	}
	err, _ := out.Panic.(error)
	if !errors.Is(err, work.ErrInterrupted) {
		t.Fatalf("interrupted merge panicked with %#v", out.Panic)
	}
	var e *Error
	if !errors.As(err, &e) || e.Func != "msa.Align" {
		t.Fatalf("interrupt error %v does not name msa.Align", err)
	}
	t.Logf("stopped %v after the interrupt", out.Latency)
	m := Align(tr.Processes()[:64]...)
	if m.NumProcesses() != 64 {
		t.Fatal("merge after the interrupt failed")
	}
}

// Stage 1 on subsets merges into Stage 1 of the union (the per-process
// part of the MSA, ready to run on several machines).
func TestEqualClassesMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for it := 0; it < 200; it++ {
		base := randomGroup(rng, 1+rng.IntN(4))
		var specs []string
		for range 2 + rng.IntN(30) {
			specs = append(specs, strings.Join(tokenize(base[rng.IntN(len(base))]), " "))
		}
		tr := treeTrace(t, specs, nil)
		m := &Tree{procs: tr.Processes()}
		m.trees = make([]*trace.CallTree, len(specs))
		for i, p := range m.procs {
			m.trees[i] = p.CallTree()
		}
		m.symbols()
		roots := make([]uint64, len(specs))
		for p := range specs {
			roots[p] = m.hashTree(int32(p), nil)[0]
		}
		whole := m.equalClasses(seq(0, len(specs)), roots)
		var a, b []int32
		for p := range specs {
			if rng.IntN(2) == 0 {
				a = append(a, int32(p))
			} else {
				b = append(b, int32(p))
			}
		}
		got := m.mergeClasses(m.equalClasses(a, roots), m.equalClasses(b, roots), roots)
		if len(got) != len(whole) {
			t.Fatalf("%q: merged %d classes, whole %d", specs, len(got), len(whole))
		}
		for c := range got {
			if !slices.Equal(got[c].procs, whole[c].procs) || got[c].rep != whole[c].rep || got[c].size != whole[c].size {
				t.Fatalf("%q: class %d merged %+v, whole %+v", specs, c, got[c], whole[c])
			}
		}
		// The classes are exactly the sets of equal specs.
		for _, cl := range whole {
			for _, p := range cl.procs {
				if specs[p] != specs[cl.rep] {
					t.Fatalf("%q: %d and %d grouped but differ", specs, p, cl.rep)
				}
			}
		}
		if n := len(uniq(specs)); n != len(whole) {
			t.Fatalf("%q: %d classes for %d distinct trees", specs, len(whole), n)
		}
	}
}

func uniq(s []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range s {
		out[x] = true
	}
	return out
}
