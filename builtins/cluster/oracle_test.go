package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomContext returns n objects with random subsets of m attributes;
// objects repeat sets now and then (equal processes).
func randomContext(r *rand.Rand, n, m int) [][]string {
	out := make([][]string, n)
	for i := range out {
		if i > 0 && r.IntN(4) == 0 {
			out[i] = slices.Clone(out[r.IntN(i)])
			continue
		}
		p := r.Float64()*0.6 + 0.2
		for a := range m {
			if r.Float64() < p {
				out[i] = append(out[i], fmt.Sprintf("f%d → f%d", a/3, a))
			}
		}
		slices.Sort(out[i])
	}
	return out
}

// bruteConcepts enumerates every concept of the context: the intents are
// the intersections of the object intents of every subset of objects (the
// empty subset gives all attributes).
func bruteConcepts(objs [][]string) []concept {
	all := map[string]bool{}
	for _, o := range objs {
		for _, a := range o {
			all[a] = true
		}
	}
	var universe []string
	for a := range all {
		universe = append(universe, a)
	}
	slices.Sort(universe)
	intents := map[string][]string{}
	for mask := 0; mask < 1<<len(objs); mask++ {
		cur := universe
		for i, o := range objs {
			if mask>>i&1 == 1 {
				cur = intersect(cur, o)
			}
		}
		intents[strings.Join(cur, " ")] = cur
	}
	var out []concept
	for key, in := range intents {
		var procs []int
		for i, o := range objs {
			if slices.Equal(o, in) {
				procs = append(procs, i)
			}
		}
		// Own attributes: a is own here iff the intent is the closure of {a}
		// (the intersection of the intents of the objects having a).
		var own []string
		for _, a := range in {
			cl := universe
			for _, o := range objs {
				if slices.Contains(o, a) {
					cl = intersect(cl, o)
				}
			}
			if slices.Equal(cl, in) {
				own = append(own, a)
			}
		}
		if procs == nil {
			procs = []int{}
		}
		out = append(out, concept{key, strings.Join(own, " "), fmt.Sprint(procs)})
	}
	slices.SortFunc(out, func(a, b concept) int { return strings.Compare(a.intent, b.intent) })
	return out
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func TestLatticeEqualsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n, m := 1+r.IntN(9), 1+r.IntN(10)
		objs := randomContext(r, n, m)
		l := NewLattice(Pairs, 0)
		for i, o := range objs {
			must(t, l.AddNames(i, o))
		}
		got, want := canon(l), bruteConcepts(objs)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d, context %v:\nlattice %v\nbrute   %v", trial, objs, got, want)
		}
		checkCovers(t, l)
	}
}

// checkCovers checks that the edges are exactly the cover relation: a is a
// parent of b iff intent(a) ⊂ intent(b) with no concept strictly between.
func checkCovers(t *testing.T, l *Lattice) {
	t.Helper()
	proper := func(a, b int) bool { // intent a ⊂ intent b
		return subset(l.nodes[a].intent, l.nodes[b].intent) && !slices.Equal(l.nodes[a].intent, l.nodes[b].intent)
	}
	for a := range l.nodes {
		for b := range l.nodes {
			cover := proper(a, b)
			for c := range l.nodes {
				if cover && proper(a, c) && proper(c, b) {
					cover = false
				}
			}
			if has := slices.Contains(l.nodes[b].parents, int32(a)); has != cover {
				t.Fatalf("edge %d -> %d: present %v, cover %v", a, b, has, cover)
			}
			if has := slices.Contains(l.nodes[a].children, int32(b)); has != cover {
				t.Fatalf("child edge %d -> %d: present %v, cover %v", a, b, has, cover)
			}
		}
	}
}

func TestLatticeSimilaritiesEqualSetOperations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		objs := randomContext(r, 2+r.IntN(30), 1+r.IntN(40))
		l := NewLattice(Pairs, 0)
		for i, o := range objs {
			must(t, l.AddNames(i, o))
		}
		procs := make([]int, len(objs))
		for i := range procs {
			procs[i] = i
		}
		nodes := nodesOf(l, procs...)
		size, inter := l.intersections(nodes, nil)
		for i := range objs {
			if int(size[i]) != len(objs[i]) {
				t.Fatalf("trial %d: |intent| of %d: %d, want %d", trial, i, size[i], len(objs[i]))
			}
			for j := range objs {
				in := int64(len(intersect(objs[i], objs[j])))
				if inter[i][j] != in {
					t.Fatalf("trial %d: |%d ∩ %d| = %d from the lattice, %d from the sets", trial, i, j, inter[i][j], in)
				}
			}
		}
	}
}

func TestHashGroupsAreEqualSets(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		objs := randomContext(r, 1+r.IntN(40), 1+r.IntN(8))
		h := NewHashClustering(Pairs)
		for i, o := range objs {
			shuffled := slices.Clone(o)
			r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			h.AddNames(i, shuffled)
		}
		// Oracle: group i with the first j whose set is equal.
		var want [][]int
		first := map[string]int{}
		for i, o := range objs {
			k := strings.Join(o, "\x00")
			if g, ok := first[k]; ok {
				want[g] = append(want[g], i)
			} else {
				first[k] = len(want)
				want = append(want, []int{i})
			}
		}
		var got [][]int
		for _, g := range h.Groups() {
			got = append(got, g.Procs)
			if g.Hash != HashOf(objs[g.Procs[0]]) {
				t.Fatalf("trial %d: group hash differs from the SHA3-512 of its first process", trial)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d: groups %v, want %v", trial, got, want)
		}
	}
}

func TestMergePartialsEqualsWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 150 {
		objs := randomContext(r, 2+r.IntN(12), 1+r.IntN(10))
		whole, wholeL := NewHashClustering(Pairs), NewLattice(Pairs, 0)
		parts := 1 + r.IntN(4)
		hs, ls := make([]*HashClustering, parts), make([]*Lattice, parts)
		for k := range hs {
			hs[k], ls[k] = NewHashClustering(Pairs), NewLattice(Pairs, 0)
		}
		for i, o := range objs {
			whole.AddNames(i, o)
			must(t, wholeL.AddNames(i, o))
			k := r.IntN(parts) // disjoint: each process on one "machine"
			hs[k].AddNames(i, o)
			must(t, ls[k].AddNames(i, o))
		}
		// Reduce in a random tree order.
		for len(hs) > 1 {
			a := r.IntN(len(hs) - 1)
			must(t, hs[a].Merge(hs[a+1]))
			must(t, ls[a].Merge(ls[a+1]))
			hs, ls = slices.Delete(hs, a+1, a+2), slices.Delete(ls, a+1, a+2)
		}
		if g, w := fmt.Sprint(hs[0].Groups()), fmt.Sprint(whole.Groups()); g != w {
			t.Fatalf("trial %d: merged hash groups %s, whole %s", trial, g, w)
		}
		if g, w := fmt.Sprint(canon(ls[0])), fmt.Sprint(canon(wholeL)); g != w {
			t.Fatalf("trial %d: merged lattice %s\nwhole %s", trial, g, w)
		}
		checkCovers(t, ls[0])
		// The canonical encoding rebuilds the same lattice.
		b, err := ls[0].MarshalBinary()
		must(t, err)
		dl, err := decodeLattice(b)
		must(t, err)
		if g, w := fmt.Sprint(canon(dl)), fmt.Sprint(canon(wholeL)); g != w || dl.Len() != wholeL.Len() {
			t.Fatalf("trial %d: decoded lattice %s\nwhole %s", trial, g, w)
		}
		checkCovers(t, dl)
	}
}

func TestMergeRejectsOverlap(t *testing.T) {
	a, b := NewHashClustering(Pairs), NewHashClustering(Pairs)
	a.AddNames(1, []string{"x"})
	b.AddNames(1, []string{"y"})
	if err := a.Merge(b); err == nil || !strings.Contains(err.Error(), "process 1 is in both") {
		t.Errorf("overlap: %v", err)
	}
	la, lb := NewLattice(Pairs, 0), NewLattice(Funcs, 0)
	if err := la.Merge(lb); err == nil || !strings.Contains(err.Error(), "measures differ") {
		t.Errorf("measures: %v", err)
	}
	if err := la.Merge(a); err == nil || !strings.Contains(err.Error(), "cannot merge") {
		t.Errorf("a hash clustering into a lattice: %v", err)
	}
}

func TestNodeLimit(t *testing.T) {
	// 6 objects each missing one of 6 attributes: every subset of 6 is an
	// intent (64 concepts).
	l := NewLattice(Pairs, 20)
	var err error
	for i := range 6 {
		var s []string
		for a := range 6 {
			if a != i {
				s = append(s, fmt.Sprint(a))
			}
		}
		if err = l.AddNames(i, s); err != nil {
			break
		}
	}
	le, ok := err.(*LimitError)
	if !ok || le.Limit != 20 {
		t.Fatalf("err %v, want a *LimitError at 20", err)
	}
	full := NewLattice(Pairs, 0)
	for i := range 6 {
		var s []string
		for a := range 6 {
			if a != i {
				s = append(s, fmt.Sprint(a))
			}
		}
		must(t, full.AddNames(i, s))
	}
	if full.Len() != 64 {
		t.Errorf("%d concepts, want 2^6", full.Len())
	}
}

func TestGreedyMergeEqualsNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 500 {
		g := 1 + r.IntN(25)
		levels := 2 + r.IntN(8) // few distinct values: many ties
		num, den := make([][]int64, g), make([][]int64, g)
		for i := range g {
			num[i], den[i] = make([]int64, g), make([]int64, g)
			num[i][i], den[i][i] = 1, 1
		}
		for i := range g {
			for j := i + 1; j < g; j++ {
				v := int64(r.IntN(levels + 1))
				num[i][j], den[i][j] = v, int64(levels)
				num[j][i], den[j][i] = v, int64(levels)
			}
		}
		sizes := make([]int, g)
		for i := range sizes {
			sizes[i] = 1 + r.IntN(5)
		}
		sigma := r.Float64()
		if got, want := greedyMerge(floats(num, den), fracsOf(num, den), sizes, sigma), exactMerge(num, den, sizes, decimalRat(sigma)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d σ=%.3f: %v, want %v\nsim %v/%v sizes %v", trial, sigma, got, want, num, den, sizes)
		}
	}
}

func TestGreedyMergeWeightedAverage(t *testing.T) {
	// Groups 0 (1 process) and 1 (3 processes) merge at 0.9; their
	// similarity to 2 becomes (1*0.25 + 3*0.75)/4 = 0.625 (not the plain
	// mean 0.5): merged at σ 0.625, not at 0.63.
	num := [][]int64{{1, 9, 1}, {9, 1, 3}, {1, 3, 1}}
	den := [][]int64{{1, 10, 4}, {10, 1, 4}, {4, 4, 1}}
	sim := floats(num, den)
	if got := fmt.Sprint(greedyMerge(sim, fracsOf(num, den), []int{1, 3, 2}, 0.625)); got != "[[0 1 2]]" {
		t.Errorf("σ 0.625: %s", got)
	}
	if got := fmt.Sprint(greedyMerge(sim, fracsOf(num, den), []int{1, 3, 2}, 0.63)); got != "[[0 1] [2]]" {
		t.Errorf("σ 0.63: %s", got)
	}
}
