package cluster

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Weber Fig. 5.2 / Algorithm 5: the four example processes.
var fig52 = [][][2]string{
	{{"", "main"}, {"main", "a"}, {"a", "b"}},
	{{"", "main"}, {"main", "a"}, {"a", "b"}, {"main", "b"}, {"b", "c"}},
	{{"", "main"}, {"main", "c"}, {"c", "d"}},
	{{"", "main"}, {"main", "b"}, {"main", "a"}, {"a", "b"}, {"b", "c"}},
}

func TestSeedSerialisationAndTable51(t *testing.T) {
	want := []string{ // Weber 5.1.2, "The input strings for the example processes"
		"a → b main → a ε → main",
		"a → b b → c main → a main → b ε → main",
		"c → d main → c ε → main",
		"a → b b → c main → a main → b ε → main",
	}
	h := NewHashClustering(Pairs)
	for i, ps := range fig52 {
		s := StructureFromPairs(ps)
		rev := slices.Clone(s.Pairs)
		slices.Reverse(rev) // Algorithm 5 sorts whatever order the pairs come in
		if got := Serialize(rev); got != want[i] {
			t.Errorf("proc %d: serialised %q, want %q", i+1, got, want[i])
		}
		h.AddNames(i+1, s.Pairs)
	}
	// Table 5.1: proc 2 and proc 4 share a hash; 1 and 3 stay alone.
	var got [][]int
	for _, g := range h.Groups() {
		got = append(got, g.Procs)
		if len(g.Hash) != 128 {
			t.Errorf("hash %q is not SHA3-512 hex", g.Hash)
		}
	}
	if want := [][]int{{1}, {2, 4}, {3}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	g := h.Groups()
	if g[1].Hash != HashOf(StructureFromPairs(fig52[3]).Pairs) || g[0].Hash == g[1].Hash || g[1].Hash == g[2].Hash {
		t.Errorf("hashes %v", g)
	}
}

func TestEscapingIsInjective(t *testing.T) {
	// Names with the separators must not collide: {"a b → c"} is one pair,
	// {"a", "b → c"}... different sets must serialise differently.
	a := Serialize([]string{PairName("x", "a b"), PairName("c", "d")})
	b := Serialize([]string{PairName("x", "a"), PairName("b c", "d")})
	if a == b {
		t.Errorf("different sets serialise alike: %q", a)
	}
	if PairName("", "ε") == PairName("", Root) && PairName("ε", "f") == PairName("", "f") {
		t.Errorf("a function named ε collides with the root: %q", PairName("ε", "f"))
	}
	if got := PairName("my func", "a→b\\"); got != `my\sfunc → a\>b\\` {
		t.Errorf("escaped %q", got)
	}
}

func TestFig51PairsimAndFuncsim(t *testing.T) {
	// Weber Fig. 5.1 / SC Fig. 2: funcsim 1, pairsim 4/6.
	p1 := StructureFromPairs([][2]string{{"", "main"}, {"main", "init"}, {"main", "fopen"}, {"main", "fclose"}, {"init", "fopen"}, {"init", "fclose"}})
	p2 := StructureFromPairs([][2]string{{"", "main"}, {"main", "init"}, {"init", "fopen"}, {"init", "fclose"}})
	if got := Jaccard(p1.Funcs, p2.Funcs); got != 1 {
		t.Errorf("funcsim %v, want 1", got)
	}
	if got := Jaccard(p1.Pairs, p2.Pairs); got != 4.0/6 {
		t.Errorf("pairsim %v, want 4/6", got)
	}
	if Jaccard(nil, nil) != 1 || Subsumption([]string{"a"}, nil) != 1 {
		t.Error("empty sets must give 1")
	}
	// From a lattice too.
	l := NewLattice(Pairs, 0)
	must(t, l.AddNames(1, p1.Pairs))
	must(t, l.AddNames(2, p2.Pairs))
	size, inter := l.intersections(nodesOf(l, 1, 2), nil)
	if size[0] != 6 || size[1] != 4 || inter[0][1] != 4 {
		t.Errorf("lattice sizes %v inter %v", size, inter)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// nodesOf returns the nodes holding the given processes.
func nodesOf(l *Lattice, procs ...int) []int32 {
	out := make([]int32, len(procs))
	for k, p := range procs {
		out[k] = -1
		for i, n := range l.nodes {
			if slices.Contains(n.procs, int32(p)) {
				out[k] = int32(i)
			}
		}
	}
	return out
}

// concept is a node in canonical form.
type concept struct {
	intent, ownAttrs string
	ownProcs         string
}

func canon(l *Lattice) []concept {
	l.finish()
	var out []concept
	for _, n := range l.nodes {
		var in []string
		for k, w := range n.intent {
			for b := 0; b < 64; b++ {
				if w>>b&1 == 1 {
					in = append(in, l.dict.names[k*64+b])
				}
			}
		}
		slices.Sort(in)
		own := l.dict.namesOf(n.own)
		slices.Sort(own)
		procs := slices.Clone(n.procs)
		slices.Sort(procs)
		out = append(out, concept{strings.Join(in, " "), strings.Join(own, " "), fmt.Sprint(procs)})
	}
	slices.SortFunc(out, func(a, b concept) int { return strings.Compare(a.intent, b.intent) })
	return out
}

func TestFig53Lattice(t *testing.T) {
	// SC Table I / Weber Fig. 5.3: P1 {ε→F1, F1→F2}, P2 and P4 {ε→F1,
	// F1→F3}, P3 all three.
	e1, f2, f3 := PairName("", "F1"), PairName("F1", "F2"), PairName("F1", "F3")
	l := NewLattice(Pairs, 0)
	must(t, l.AddNames(1, []string{e1, f2}))
	must(t, l.AddNames(2, []string{e1, f3}))
	must(t, l.AddNames(3, []string{e1, f2, f3}))
	must(t, l.AddNames(4, []string{e1, f3}))
	got := canon(l)
	want := []concept{ // SC Fig. 4 (reduced labels)
		{intent: "F1 → F2 F1 → F3 ε → F1", ownAttrs: "", ownProcs: "[3]"},
		{intent: "F1 → F2 ε → F1", ownAttrs: "F1 → F2", ownProcs: "[1]"},
		{intent: "F1 → F3 ε → F1", ownAttrs: "F1 → F3", ownProcs: "[2 4]"},
		{intent: "ε → F1", ownAttrs: "ε → F1", ownProcs: "[]"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lattice\n%v\nwant\n%v", got, want)
	}
	// Edges: top above both middle nodes, both above the bottom.
	top := l.nodes[l.top]
	if len(top.children) != 2 || len(l.nodes[l.bottom].parents) != 2 || l.nodes[l.bottom].level != 2 {
		t.Errorf("edges: top children %v, bottom parents %v", top.children, l.nodes[l.bottom].parents)
	}
}

func TestSubsumptionFigs8to10(t *testing.T) {
	// SC Fig. 8: proc 1 calls F1 which calls F2; in proc 2 F1 is inlined.
	p1 := StructureFromPairs([][2]string{{"", "F1"}, {"F1", "F2"}})
	p2 := StructureFromPairs([][2]string{{"", "F2"}})
	if want := []string{"F1 → F2", "ε → F1", "ε → F2"}; !slices.Equal(p1.PairsPlus, want) {
		t.Errorf("pairs(proc 1)+ = %v, want %v", p1.PairsPlus, want)
	}
	if Jaccard(p1.Pairs, p2.Pairs) != 0 {
		t.Error("Fig. 9: no similarity without the closure")
	}
	if a, b := Subsumption(p1.PairsPlus, p2.PairsPlus), Subsumption(p2.PairsPlus, p1.PairsPlus); a != 1 || b != 1.0/3 {
		t.Errorf("pairsub %v and %v, want 1 and 1/3", a, b)
	}
	l := NewLattice(PairsPlus, 0)
	must(t, l.AddNames(1, p1.PairsPlus))
	must(t, l.AddNames(2, p2.PairsPlus))
	size, inter := l.intersections(nodesOf(l, 1, 2), nil)
	if float64(inter[0][1])/float64(size[1]) != 1 || float64(inter[1][0])/float64(size[0]) != 1.0/3 {
		t.Errorf("from the lattice: sizes %v inter %v", size, inter)
	}
}

func TestPIConGPUArithmetic(t *testing.T) {
	// SC VI.B, Fig. 7: MPI process 0 shares 11 pairs (top) and adds 66;
	// processes 1-16 share 171 = 11 + 160; process 1 lies below nodes adding
	// 6, 6 and 2: pairsim(0, 1) = 11 / (11+66+160+6+6+2).
	block := func(tag string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, PairName(tag, fmt.Sprint(i)))
		}
		return out
	}
	A, X, B, C, D, E := block("A", 11), block("X", 66), block("B", 160), block("C", 6), block("D", 6), block("E", 2)
	cat := func(s ...[]string) []string { return slices.Concat(s...) }
	l := NewLattice(Pairs, 0)
	sets := map[int][]string{
		0: cat(A, X),
		1: cat(A, B, C, D, E),
		2: cat(A, B, C),
		3: cat(A, B, D),
	}
	for _, p := range []int{0, 1, 2, 3} {
		must(t, l.AddNames(p, sets[p]))
	}
	size, inter := l.intersections(nodesOf(l, 0, 1), nil)
	union := size[0] + size[1] - inter[0][1]
	if inter[0][1] != 11 || union != 11+66+160+6+6+2 {
		t.Fatalf("inter %d union %d, want 11 and 251", inter[0][1], union)
	}
	got := float64(inter[0][1]) / float64(union)
	if math.Abs(got-0.0438) > 0.0005 || got != Jaccard(sortedCopy(sets[0]), sortedCopy(sets[1])) {
		t.Errorf("pairsim(0,1) = %v, want 11/251 (about 4.4%%)", got)
	}
	// The own counts along process 1's up-set are exactly the seed's.
	l.finish()
	var owns []int
	for i, n := range l.nodes {
		if len(n.own) > 0 && isAbove(l, int32(i), nodesOf(l, 1)[0]) {
			owns = append(owns, len(n.own))
		}
	}
	slices.Sort(owns)
	if fmt.Sprint(owns) != "[2 6 6 11 160]" {
		t.Errorf("own counts above process 1: %v", owns)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// isAbove reports whether a is b or an ancestor of b.
func isAbove(l *Lattice, a, b int32) bool {
	if a == b {
		return true
	}
	for _, p := range l.nodes[b].parents {
		if isAbove(l, a, p) {
			return true
		}
	}
	return false
}
