package msa

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/trace"
)

func whichOf(t *testing.T, m *Tree) []string {
	t.Helper()
	w, err := m.Table().Strings("Which")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The which column lists processes exactly: a node taken by ranks 0, 2
// and 4 does not read "rank 0 … rank 4"; a 62-rank group without rank 16
// does not read "rank 1 … rank 63".
func TestWhichIsExact(t *testing.T) {
	// The group ranks 0, 2, 4 and 1: positions 0-2 take part in a.
	tr := treeTrace(t, []string{"m(a)", "m", "m(a)", "m", "m(a)"}, nil)
	m := Align(tr.Process(0), tr.Process(2), tr.Process(4), tr.Process(1))
	v := m.Find("a")[0]
	if got := whichOf(t, m)[v]; got != "rank 0, rank 2, rank 4" {
		t.Errorf("which(a) = %q, want rank 0, rank 2, rank 4", got)
	}
	// The group of ranks 0-63 but 16, where rank 0 does not call a.
	specs := make([]string, 64)
	for i := range specs {
		specs[i] = "m(a)"
	}
	specs[0] = "m"
	tr = treeTrace(t, specs, nil)
	group := slices.Delete(slices.Clone(tr.Processes()), 16, 17)
	m = Align(group...)
	v = m.Find("a")[0]
	if got := whichOf(t, m)[v]; got != "rank 1 … rank 15, rank 17 … rank 63" {
		t.Errorf("which(a) = %q, want rank 1 … rank 15, rank 17 … rank 63", got)
	}
	blk, _ := m.Block(m.Find("m")[0]).Strings("Label")
	if !slices.Equal(blk, []string{"rank 0", "rank 1 … rank 15, rank 17 … rank 63 (62)"}) {
		t.Errorf("block labels %q", blk)
	}
}

// Processes of two runs are told apart by the runs' names.
func TestWhichNamesRuns(t *testing.T) {
	a := treeTrace(t, []string{"m(a)", "m"}, nil)
	b := treeTrace(t, []string{"m(a)", "m(a(x))"}, func(p int, name string) int64 { return 100 })
	a.Path, b.Path = "runs/v1/traces.otf2", "runs/v2/traces.otf2"
	m := Align(a.Process(0), a.Process(1), b.Process(0), b.Process(1))
	w := whichOf(t, m)
	if got := w[m.Find("a")[0]]; got != "v1: rank 0; v2: rank 0, rank 1" {
		t.Errorf("which(a) = %q", got)
	}
	if got := w[m.Find("x")[0]]; got != "v2: rank 1" {
		t.Errorf("which(x) = %q", got)
	}
	slow, _ := m.Table().Strings("Slowest")
	if got := slow[m.Find("m")[0]]; got != "v2: rank 1" {
		t.Errorf("slowest(m) = %q", got)
	}
}

// A Different node says which processes call which alternative.
func TestDifferentSaysWho(t *testing.T) {
	m := Align(treeTrace(t, fig511, nil).Processes()...)
	v := m.Find("d")[0]
	if got := whichOf(t, m)[v]; got != "d: rank 0, rank 1 | e: rank 2" {
		t.Errorf("which(d | e) = %q", got)
	}
	regions, members := m.Alternatives(v)
	if fmt.Sprint(regions, members) != "[d e] [[0 1] [2]]" {
		t.Errorf("Alternatives = %v %v", regions, members)
	}
	dv := m.Divergences()
	path, _ := dv.Strings("Call Path")
	which, _ := dv.Strings("Which")
	if k := slices.Index(path, "m > b > d | e"); k < 0 || which[k] != "d: rank 0, rank 1 | e: rank 2" {
		t.Errorf("divergences %q %q", path, which)
	}
}

// Divergences below a gap node are listed: main(a(x)), main(a(y)) and a
// process without a differ at a's children too.
func TestDivergencesBelowGaps(t *testing.T) {
	m := Align(treeTrace(t, []string{"main(a(x))", "main(a(y))", "main"}, nil).Processes()...)
	dv := m.Divergences()
	path, _ := dv.Strings("Call Path")
	state, _ := dv.Strings("State")
	if want := []string{"main > a", "main > a > x | y"}; !slices.Equal(path, want) || state[1] != "different" {
		t.Errorf("divergences %q %q, want %q", path, state, want)
	}
	// Below a gap node, a child taken by fewer of its processes diverges.
	m = Align(treeTrace(t, []string{"main(a(x y))", "main(a(x))", "main"}, nil).Processes()...)
	path, _ = m.Divergences().Strings("Call Path")
	if want := []string{"main > a", "main > a > y"}; !slices.Equal(path, want) {
		t.Errorf("divergences %q, want %q", path, want)
	}
}

// describe renders everything a merged tree says, processes by label: it
// must not depend on the order the processes were given in.
func describe(m *Tree) string {
	var b strings.Builder
	tb := m.Table()
	which, _ := tb.Strings("Which")
	slow, _ := tb.Strings("Slowest")
	for v := 0; v < m.NumNodes(); v++ {
		st := m.Stats(v)
		var who []string
		for _, p := range m.Participants(v) {
			who = append(who, p.Trace.Path+":"+p.Label())
		}
		slices.Sort(who)
		fmt.Fprintf(&b, "%d %d %s %v %d %q %d %d %d %s %v\n", v, m.Parent(v), m.Region(v), m.State(v), m.Count(v),
			which[v], st.Min, st.Median, st.Max, slow[v], who)
	}
	dv := m.Divergences()
	b.WriteString(dv.String())
	return b.String()
}

// The merged tree does not depend on the order the processes are passed
// in: random groups (some from two runs), merged in random orders.
func TestMergeIsOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	differ := 0
	for it := range 300 {
		k := 2 + rng.IntN(8)
		specs := randomGroup(rng, k)
		dur := func(p int, name string) int64 { return int64((p*13 + int(name[0])*7) % 17) }
		procs := treeTrace(t, specs, dur).Processes()
		if it%3 == 0 { // two runs with the same ranks
			other := treeTrace(t, randomGroup(rng, 1+rng.IntN(4)), dur)
			other.Path = "other.csv"
			procs = append(slices.Clone(procs), other.Processes()...)
		}
		g := []Guide{GuideAuto, GuideMatrix, GuideRanking}[it%3]
		want := describe(Group(procs, WithGuide(g)))
		for range 3 {
			perm := slices.Clone(procs)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if got := describe(Group(perm, WithGuide(g))); got != want {
				differ++
				if differ == 1 {
					t.Errorf("group %d %q: merged tree depends on the input order:\n%s\nvs\n%s", it, specs, got, want)
				}
				break
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of 300 groups depend on the input order", differ)
	}
}

// twoNamed is a trace whose regions 0 and 2 are both named "a".
func twoNamed(t *testing.T) *trace.Trace {
	t.Helper()
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "a"}, {Name: "main"}, {Name: "a"}}}
	mk := func(rank int32, a int32) *trace.Process {
		return &trace.Process{Rank: rank,
			Kind: []trace.EventKind{trace.Enter, trace.Enter, trace.Leave, trace.Leave},
			Time: []int64{0, 1, 2, 3}, Ref: []int32{1, a, a, 1}}
	}
	return trace.NewTrace(defs, []*trace.Process{mk(0, 0), mk(1, 2)})
}

// Regions are identified by name everywhere: two regions named "a" are
// one region in clustering, in an MSA of one trace and across traces.
func TestRegionIdentityByName(t *testing.T) {
	tr := twoNamed(t)
	if c := cluster.Structural(tr); c.NumGroups() != 1 {
		t.Errorf("clustering: %d groups, want 1", c.NumGroups())
	}
	m := Align(tr.Processes()...)
	if got := render(m); got != "ε [equal [0 1]]\n  main [equal [0 1]]\n    a [equal [0 1]]\n" {
		t.Errorf("same-trace MSA:\n%s", got)
	}
	other := treeTrace(t, []string{"main(a)"}, nil)
	m = Align(tr.Process(0), tr.Process(1), other.Process(0))
	if got := render(m); got != "ε [equal [0 1 2]]\n  main [equal [0 1 2]]\n    a [equal [0 1 2]]\n" {
		t.Errorf("cross-trace MSA:\n%s", got)
	}
}

// A region named "" is a region, not the virtual root ε (the clustering
// side is tested in package cluster).
func TestEmptyRegionName(t *testing.T) {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: ""}, {Name: "main"}}}
	p := &trace.Process{Rank: 0, Kind: []trace.EventKind{trace.Enter, trace.Enter, trace.Leave, trace.Leave},
		Time: []int64{0, 1, 2, 3}, Ref: []int32{0, 1, 1, 0}}
	q := &trace.Process{Rank: 1, Kind: []trace.EventKind{trace.Enter, trace.Leave}, Time: []int64{0, 3}, Ref: []int32{1, 1}}
	trace.NewTrace(defs, []*trace.Process{p, q})
	m := Align(p, q)
	if got := render(m); got != "ε [equal [0 1]]\n   | main [different [0 1]]\n    main [gap [0]]\n" {
		t.Errorf("merged:\n%s", got)
	}
	if regions, _ := m.Alternatives(1); !slices.Equal(regions, []string{"", "main"}) {
		t.Errorf("regions of node 1: %q", regions)
	}
}
