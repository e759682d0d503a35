package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Known-answer scenarios: runs written by hand (helpers_test.go), so that every expected
// group, state and number follows from the construction.

func fnRow(t *testing.T, rows []FunctionRow, group int, name string) FunctionRow {
	t.Helper()
	for _, w := range rows {
		if w.Group == group && w.Function == name {
			return w
		}
	}
	t.Fatalf("Functions: no row for %s in G%d", name, group)
	return FunctionRow{}
}

func treeRow(t *testing.T, rows []TreeRow, group int, path string) TreeRow {
	t.Helper()
	for _, w := range rows {
		if w.Group == group && w.Path == path {
			return w
		}
	}
	t.Fatalf("Tree: no row for %q in G%d", path, group)
	return TreeRow{}
}

// checkGroup checks group i's processes in both runs by label and its state.
func checkGroup(t *testing.T, r *Result, i int, state State, wantA, wantB []string) {
	t.Helper()
	ga, gb := r.Group(i)
	if got := labelsOf(ga); !slices.Equal(got, wantA) && !(len(got) == 0 && len(wantA) == 0) {
		t.Errorf("G%d in A: %v, want %v", i, got, wantA)
	}
	if got := labelsOf(gb); !slices.Equal(got, wantB) && !(len(got) == 0 && len(wantB) == 0) {
		t.Errorf("G%d in B: %v, want %v", i, got, wantB)
	}
	if r.State(i) != state {
		t.Errorf("G%d: state %v, want %v", i, r.State(i), state)
	}
}

// pathIncl returns the inclusive time of each call path of n's tree summed over its calls,
// and the calls, by path ("main > loop > compute").
func pathIncl(n node) (incl, calls map[string]int64) {
	incl, calls = map[string]int64{}, map[string]int64{}
	var walk func(prefix string, n node)
	walk = func(prefix string, n node) {
		p := n.name
		if prefix != "" {
			p = prefix + " > " + n.name
		}
		incl[p] += n.incl()
		calls[p]++
		for _, k := range n.kids {
			walk(p, k)
		}
	}
	walk("", n)
	return incl, calls
}

// a. The same code at 16, 32 and 64 ranks, rank 0 with one extra function: two groups, both
// equal, nothing changed per process, and the (strong-scaling) efficiency of an unchanged time
// per process is the ratio of the runs' sizes.
func TestSameCodeAtThreeScales(t *testing.T) {
	for _, sizes := range [][2]int{{16, 32}, {32, 64}, {16, 64}, {64, 16}} {
		t.Run(fmt.Sprintf("%dvs%d", sizes[0], sizes[1]), func(t *testing.T) {
			a, b := handRun(sizes[0], withRank0(baseSpec)), handRun(sizes[1], withRank0(baseSpec))
			r := Runs(a, b)
			checkAccounting(t, r, a, b, [2]int{})
			if r.NumGroups() != 2 {
				t.Fatalf("%d groups, want 2 (rank 0, the rest)", r.NumGroups())
			}
			checkGroup(t, r, 0, Equal, rankLabels(0), rankLabels(0))
			checkGroup(t, r, 1, Equal, rankLabels(ranks(1, sizes[0])...), rankLabels(ranks(1, sizes[1])...))
			rows := groupRows(t, r)
			for id, g := range rows {
				if g.state != "equal" || !g.pairsimOK || g.pairsim != 1 || g.closestOK || g.hash[0] != g.hash[1] || g.hash[0] == "" {
					t.Errorf("Groups G%d: %+v", id, g)
				}
			}
			if rows[0].procs != [2]int64{1, 1} || rows[1].procs != [2]int64{int64(sizes[0] - 1), int64(sizes[1] - 1)} {
				t.Errorf("group sizes %v %v", rows[0].procs, rows[1].procs)
			}
			for _, w := range r.TreeRows() {
				if w.State != "equal" || w.Note != "" || w.Change != 0 {
					t.Errorf("Tree row %+v: want equal, unchanged", w)
				}
			}
			// inclusive time per path from the construction
			for g, spec := range []rankSpec{withRank0(baseSpec)(0), base()} {
				incl, calls := pathIncl(spec.tree())
				for path, v := range incl {
					w := treeRow(t, r.TreeRows(), g, path)
					if w.Mean != [2]int64{v, v} || w.Max != [2]int64{v, v} || w.Calls != [2]float64{float64(calls[path]), float64(calls[path])} {
						t.Errorf("G%d %s: mean %v max %v calls %v, want %d ns, %d calls", g, path, w.Mean, w.Max, w.Calls, v, calls[path])
					}
				}
				if n := len(incl); n != countRows(r.TreeRows(), g) {
					t.Errorf("G%d: %d Tree rows, want %d paths", g, countRows(r.TreeRows(), g), n)
				}
			}
			eff := float64(sizes[0]) / float64(sizes[1])
			for _, w := range r.FunctionRows() {
				if w.Change != 0 || w.Cost != 0 || w.Ratio != 1 {
					t.Errorf("G%d %s: change %d, cost %d, ratio %v, want 0, 0, 1", w.Group, w.Function, w.Change, w.Cost, w.Ratio)
				}
				switch w.Group {
				case 0:
					if w.Verdict != "few processes" || !math.IsNaN(w.P) || math.Abs(w.Efficiency-eff) > 1e-12 {
						t.Errorf("G0 %s: verdict %q p %v efficiency %v", w.Function, w.Verdict, w.P, w.Efficiency)
					}
				case 1:
					// every process has the same times: no difference, p = 1 (rankSum's doc)
					if w.Verdict != "similar" || w.P != 1 || math.Abs(w.Efficiency-eff) > 1e-12 {
						t.Errorf("G1 %s: verdict %q p %v efficiency %v, want similar, 1, %v", w.Function, w.Verdict, w.P, w.Efficiency, eff)
					}
				}
			}
			want := map[string]int64{"main": mainExcl, "init": initExcl, "read_config": readConfigExcl, "alloc": allocExcl,
				"loop": defaultLoops * loopExcl, "compute": defaultLoops * defaultCompute, "MPI_Send": defaultLoops * defaultSend}
			for name, v := range want {
				for g := range 2 {
					if w := fnRow(t, r.FunctionRows(), g, name); w.Mean != [2]int64{v, v} {
						t.Errorf("G%d %s: exclusive per process %v, want %d", g, name, w.Mean, v)
					}
				}
			}
			h := r.Headline()
			if !strings.Contains(h, "2 groups — 2 equal\n") || strings.Contains(h, "Structure:") {
				t.Errorf("headline:\n%s", h)
			}
		})
	}
}

func countRows(rows []TreeRow, g int) int {
	n := 0
	for _, w := range rows {
		if w.Group == g {
			n++
		}
	}
	return n
}

// slowed returns a spec whose compute takes per+2r-n ns on rank r >= 1 of n ranks (per on rank
// 0): distinct values over the ranks whose mean over ranks 1..n-1 is exactly per.
func slowed(n int, per int64) func(r int) rankSpec {
	return withRank0(func(r int) rankSpec {
		s := base()
		if r > 0 {
			s.compute = per + int64(2*r-n)
		} else {
			s.compute = per
		}
		return s
	})
}

// b. compute slowed from 100 to 260 ns a call on every rank: the first row is compute of the
// big group, with the change, the ratio and the verdict of the construction.
func TestOneFunctionSlowed(t *testing.T) {
	const slow = 260
	for _, c := range []struct {
		na, nb  int
		verdict string
	}{
		{16, 32, "slower"},
		{9, 16, "slower"},        // 8 vs 15 processes: just enough for a verdict
		{8, 16, "few processes"}, // 7 vs 15
		{4, 64, "few processes"}, // 3 vs 63
		{32, 9, "slower"},        // the smaller run second
		{64, 64, "slower"},       // same size
	} {
		t.Run(fmt.Sprintf("%dvs%d", c.na, c.nb), func(t *testing.T) {
			a, b := handRun(c.na, slowed(c.na, defaultCompute)), handRun(c.nb, slowed(c.nb, slow))
			r := Runs(a, b)
			checkAccounting(t, r, a, b, [2]int{})
			if r.NumGroups() != 2 || r.State(0) != Equal || r.State(1) != Equal {
				t.Fatalf("%d groups, want 2 equal", r.NumGroups())
			}
			rows := r.FunctionRows()
			w := rows[0]
			change := int64(defaultLoops * (slow - defaultCompute))
			if w.Group != 1 || w.Function != "compute" {
				t.Fatalf("first row G%d %s, want compute in G1", w.Group, w.Function)
			}
			if w.Change != change || w.Ratio != 2.6 || w.Calls != [2]float64{defaultLoops, defaultLoops} ||
				w.Mean != [2]int64{defaultLoops * defaultCompute, defaultLoops * slow} {
				t.Errorf("compute: change %d ratio %v calls %v mean %v, want %d, 2.6", w.Change, w.Ratio, w.Calls, w.Mean, change)
			}
			if w.Verdict != c.verdict || (c.verdict == "slower") != (w.P < 0.01) {
				t.Errorf("compute: verdict %q p %v, want %q", w.Verdict, w.P, c.verdict)
			}
			// the largest per process: the last rank (the largest offset)
			maxA, maxB := defaultLoops*(defaultCompute+int64(c.na-2)), defaultLoops*(slow+int64(c.nb-2))
			if w.Max != [2]int64{maxA, maxB} || w.MaxProcess != [2]string{rankLabels(c.na - 1)[0], rankLabels(c.nb - 1)[0]} {
				t.Errorf("compute: max %v at %v, want %d, %d at the last ranks", w.Max, w.MaxProcess, maxA, maxB)
			}
			if c.na != c.nb {
				if want := float64(c.na) / (2.6 * float64(c.nb)); math.Abs(w.Efficiency-want) > 1e-12 {
					t.Errorf("compute: efficiency %v, want %v", w.Efficiency, want)
				}
			} else if !math.IsNaN(w.Efficiency) {
				t.Errorf("compute: efficiency %v for runs of the same size, want NaN", w.Efficiency)
			}
			// rank 0's group: the same change, one process a side
			if w0 := fnRow(t, rows, 0, "compute"); w0.Change != change || w0.Verdict != "few processes" {
				t.Errorf("G0 compute: change %d verdict %q", w0.Change, w0.Verdict)
			}
			for _, w := range rows {
				if w.Function != "compute" && w.Change != 0 {
					t.Errorf("G%d %s changed by %d", w.Group, w.Function, w.Change)
				}
			}
			// the inclusive time of main and loop grows by the same amount per process
			for _, p := range []string{"main", "main > loop"} {
				if tw := treeRow(t, r.TreeRows(), 1, p); tw.Change != change || tw.State != "equal" {
					t.Errorf("Tree G1 %s: change %d state %q, want %d equal", p, tw.Change, tw.State, change)
				}
			}
			if h := r.Headline(); !strings.Contains(h, "first: compute in G1, +640 ns per process (2.60×)") {
				t.Errorf("headline:\n%s", h)
			}
			// the other way round: faster
			back := fnRow(t, Runs(b, a).FunctionRows(), 1, "compute")
			if back.Change != -change || math.Abs(back.Ratio-1/2.6) > 1e-15 || (c.verdict == "slower") != (back.Verdict == "faster") {
				t.Errorf("B vs A compute: change %d ratio %v verdict %q", back.Change, back.Ratio, back.Verdict)
			}
		})
	}
}

// c. A function only in B, called in every loop of every rank: both groups similar, the new
// path only in B, loop's callees different, the function's verdict "only in B" and the
// headline's structure line naming it.
func TestFunctionOnlyInB(t *testing.T) {
	newFn := node{"new_fn", 7, nil}
	a := handRun(16, withRank0(baseSpec))
	bSpec := withRank0(func(int) rankSpec { s := base(); s.loopExtra = []node{newFn}; return s })
	b := handRun(32, bSpec)
	r := Runs(a, b)
	checkAccounting(t, r, a, b, [2]int{})
	if r.NumGroups() != 2 {
		t.Fatalf("%d groups, want 2", r.NumGroups())
	}
	checkGroup(t, r, 0, Similar, rankLabels(0), rankLabels(0))
	checkGroup(t, r, 1, Similar, rankLabels(ranks(1, 16)...), rankLabels(ranks(1, 32)...))
	rows := groupRows(t, r)
	for g, rank := range []int{0, 1} {
		want := jaccard(pairsOf(withRank0(baseSpec)(rank).tree()), pairsOf(bSpec(rank).tree()))
		if rows[int64(g)].state != "similar" || math.Abs(rows[int64(g)].pairsim-want) > 1e-15 {
			t.Errorf("G%d: %q pairsim %v, want similar %v", g, rows[int64(g)].state, rows[int64(g)].pairsim, want)
		}
	}
	for g := range 2 {
		w := treeRow(t, r.TreeRows(), g, "main > loop > new_fn")
		if w.State != "only in B" || w.Mean != [2]int64{0, defaultLoops * 7} || w.Calls != [2]float64{0, defaultLoops} {
			t.Errorf("G%d new_fn: %+v", g, w)
		}
		l := treeRow(t, r.TreeRows(), g, "main > loop")
		if l.State != "different" || l.Note != "A: compute, MPI_Send; B: compute, MPI_Send, new_fn" {
			t.Errorf("G%d loop: state %q note %q", g, l.State, l.Note)
		}
		f := fnRow(t, r.FunctionRows(), g, "new_fn")
		if f.Verdict != "only in B" || f.Change != defaultLoops*7 || !math.IsNaN(f.Ratio) {
			t.Errorf("G%d new_fn: verdict %q change %d ratio %v", g, f.Verdict, f.Change, f.Ratio)
		}
	}
	for _, w := range r.TreeRows() {
		if w.State != "equal" && w.Function != "new_fn" && w.Path != "main > loop" {
			t.Errorf("Tree row %s in G%d: %q", w.Path, w.Group, w.State)
		}
	}
	if h := r.Headline(); !strings.Contains(h, "\nStructure: ") || !strings.Contains(h, "main > loop > new_fn only in B in G0, G1") {
		t.Errorf("headline:\n%s", h)
	}
	// and the other way round: only in A
	back := Runs(b, a)
	if f := fnRow(t, back.FunctionRows(), 1, "new_fn"); f.Verdict != "only in A" {
		t.Errorf("B vs A: new_fn verdict %q", f.Verdict)
	}
	if h := back.Headline(); !strings.Contains(h, "main > loop > new_fn only in A") {
		t.Errorf("B vs A headline:\n%s", h)
	}
}

// d. A group only in the larger run: A (32 ranks) has ranks 16-31 calling halo in their loop;
// B (64 ranks) has ranks 32-63 with another loop. Below σ the two stay groups of one run, each
// naming its most similar group of the other run; above σ they match as similar with the
// pairsim of the construction.
func TestGroupOnlyInLargerRun(t *testing.T) {
	x := func(s rankSpec) rankSpec { s.loopExtra = []node{{"halo", 6, nil}}; return s }
	yFar := func(s rankSpec) rankSpec {
		s.loopExtra = []node{{"MPI_Recv", 4, nil}, {"halo_pack", 3, nil}, {"halo_unpack", 3, nil}}
		return s
	}
	yNear := func(s rankSpec) rankSpec { s.loopExtra = []node{{"halo", 2, []node{{"pack", 4, nil}}}}; return s }
	specA := withRank0(func(r int) rankSpec {
		if r >= 16 {
			return x(base())
		}
		return base()
	})
	for _, c := range []struct {
		name string
		y    func(rankSpec) rankSpec
	}{{"far", yFar}, {"near", yNear}} {
		t.Run(c.name, func(t *testing.T) {
			specB := withRank0(func(r int) rankSpec {
				if r >= 32 {
					return c.y(base())
				}
				return base()
			})
			a, b := handRun(32, specA), handRun(64, specB)
			r := Runs(a, b)
			checkAccounting(t, r, a, b, [2]int{})
			sim := jaccard(pairsOf(x(base()).tree()), pairsOf(c.y(base()).tree()))
			near := sim >= 0.83
			if near != (c.name == "near") {
				t.Fatalf("construction: pairsim %v", sim)
			}
			checkGroup(t, r, 0, Equal, rankLabels(0), rankLabels(0))
			checkGroup(t, r, 1, Equal, rankLabels(ranks(1, 16)...), rankLabels(ranks(1, 32)...))
			rows := groupRows(t, r)
			if near {
				if r.NumGroups() != 3 {
					t.Fatalf("%d groups, want 3", r.NumGroups())
				}
				checkGroup(t, r, 2, Similar, rankLabels(ranks(16, 32)...), rankLabels(ranks(32, 64)...))
				if g := rows[2]; g.state != "similar" || math.Abs(g.pairsim-sim) > 1e-15 || g.closestOK {
					t.Errorf("G2: %+v, want similar at pairsim %v", g, sim)
				}
				return
			}
			if r.NumGroups() != 4 {
				t.Fatalf("%d groups, want 4", r.NumGroups())
			}
			checkGroup(t, r, 2, OnlyA, rankLabels(ranks(16, 32)...), nil)
			checkGroup(t, r, 3, OnlyB, nil, rankLabels(ranks(32, 64)...))
			// Closest: the most similar group with processes in the other run, matched or not
			// (G0 rank 0, G1 the base ranks, G2 X of A, G3 Y of B)
			rank0, plain := pairsOf(withRank0(baseSpec)(0).tree()), pairsOf(base().tree())
			px, py := pairsOf(x(base()).tree()), pairsOf(c.y(base()).tree())
			for g, cands := range map[int64]map[int64]map[string]bool{
				2: {0: rank0, 1: plain, 3: py},
				3: {0: rank0, 1: plain, 2: px},
			} {
				mine := map[int64]map[string]bool{2: px, 3: py}[g]
				best, bestSim := int64(-1), -1.0
				for h := range int64(4) {
					if set, ok := cands[h]; ok && jaccard(mine, set) > bestSim {
						best, bestSim = h, jaccard(mine, set)
					}
				}
				w := rows[g]
				if w.pairsimOK || !w.closestOK || w.closest != best || math.Abs(w.closestSim-bestSim) > 1e-15 {
					t.Errorf("G%d: %+v, want no pairsim, closest G%d at %v", g, w, best, bestSim)
				}
			}
			if rows[2].state != "only in A" || rows[3].state != "only in B" || rows[2].hash[1] != "" || rows[3].hash[0] != "" {
				t.Errorf("G2 %+v, G3 %+v", rows[2], rows[3])
			}
			if h := r.Headline(); !strings.Contains(h, "4 groups — 2 equal, 1 only in A, 1 only in B") {
				t.Errorf("headline:\n%s", h)
			}
			// rows of a group of one run: every function only in that run
			for _, w := range r.FunctionRows() {
				if (w.Group == 2 && w.Verdict != "only in A") || (w.Group == 3 && w.Verdict != "only in B") {
					t.Errorf("G%d %s: verdict %q", w.Group, w.Function, w.Verdict)
				}
			}
		})
	}
}

// e. The loop calls compute then MPI_Send in A, MPI_Send then compute in B: the same pairs (one
// group, equal), but loop's row is "different" with both orders.
func TestChangedCallOrder(t *testing.T) {
	a := handRun(16, baseSpec)
	b := handRun(16, func(int) rankSpec { s := base(); s.swap = true; return s })
	r := Runs(a, b)
	checkAccounting(t, r, a, b, [2]int{})
	if r.NumGroups() != 1 || r.State(0) != Equal {
		t.Fatalf("%d groups (G0 %v), want 1 equal", r.NumGroups(), r.State(0))
	}
	w := treeRow(t, r.TreeRows(), 0, "main > loop")
	if w.State != "different" || w.Note != "A: compute, MPI_Send; B: MPI_Send, compute" {
		t.Errorf("loop: state %q note %q", w.State, w.Note)
	}
	for _, w := range r.TreeRows() {
		if w.Path != "main > loop" && w.State != "equal" {
			t.Errorf("%s: %q", w.Path, w.State)
		}
	}
	if h := r.Headline(); !strings.Contains(h, "Structure: calls under main > loop differ (A: compute, MPI_Send; B: MPI_Send, compute) in G0") {
		t.Errorf("headline:\n%s", h)
	}
}

// f. Matching by rank and by the user's key.
func TestMatchByRankAndMapping(t *testing.T) {
	// B's rank 5 takes rank 0's structure.
	a := handRun(16, withRank0(baseSpec))
	specB := func(r int) rankSpec {
		s := base()
		if r == 0 || r == 5 {
			s.mainExtra = []node{{"read_input", 5, nil}}
		}
		return s
	}
	b := handRun(16, specB)
	t.Run("structure", func(t *testing.T) {
		r := Runs(a, b)
		checkAccounting(t, r, a, b, [2]int{})
		checkGroup(t, r, 0, Equal, rankLabels(0), rankLabels(0, 5))
		checkGroup(t, r, 1, Equal, rankLabels(ranks(1, 16)...), rankLabels(slices.Delete(ranks(1, 16), 4, 5)...))
	})
	t.Run("rank", func(t *testing.T) {
		r := Runs(a, b, WithMatchByRank())
		checkAccounting(t, r, a, b, [2]int{})
		if r.NumGroups() != 3 {
			t.Fatalf("%d groups, want 3", r.NumGroups())
		}
		others := slices.Delete(ranks(1, 16), 4, 5)
		checkGroup(t, r, 0, Equal, rankLabels(0), rankLabels(0))
		checkGroup(t, r, 1, Equal, rankLabels(others...), rankLabels(others...))
		checkGroup(t, r, 2, Similar, rankLabels(5), rankLabels(5))
		want := jaccard(pairsOf(base().tree()), pairsOf(specB(5).tree()))
		if g := groupRows(t, r)[2]; math.Abs(g.pairsim-want) > 1e-15 {
			t.Errorf("rank 5: pairsim %v, want %v", g.pairsim, want)
		}
		if w := treeRow(t, r.TreeRows(), 2, "main > read_input"); w.State != "only in B" {
			t.Errorf("rank 5: read_input %q", w.State)
		}
	})
	t.Run("rank, B larger", func(t *testing.T) {
		b := handRun(32, withRank0(baseSpec))
		r := Runs(a, b, WithMatchByRank())
		checkAccounting(t, r, a, b, [2]int{})
		if r.NumGroups() != 3 {
			t.Fatalf("%d groups, want 3", r.NumGroups())
		}
		checkGroup(t, r, 0, Equal, rankLabels(0), rankLabels(0))
		checkGroup(t, r, 1, Equal, rankLabels(ranks(1, 16)...), rankLabels(ranks(1, 16)...))
		checkGroup(t, r, 2, OnlyB, nil, rankLabels(ranks(16, 32)...))
	})
	t.Run("mapping", func(t *testing.T) {
		b := handRun(32, withRank0(baseSpec))
		parity := func(p *trace.Process) string {
			if p.Rank == 0 {
				return "" // left out
			}
			return []string{"even", "odd"}[p.Rank%2]
		}
		r := Runs(a, b, WithMapping(parity))
		checkAccounting(t, r, a, b, [2]int{1, 1})
		if r.NumGroups() != 2 {
			t.Fatalf("%d groups, want 2", r.NumGroups())
		}
		var oddA, evenA, oddB, evenB []int
		for _, rk := range ranks(1, 32) {
			if rk < 16 {
				if rk%2 == 1 {
					oddA = append(oddA, rk)
				} else {
					evenA = append(evenA, rk)
				}
			}
			if rk%2 == 1 {
				oddB = append(oddB, rk)
			} else {
				evenB = append(evenB, rk)
			}
		}
		checkGroup(t, r, 0, Equal, rankLabels(oddA...), rankLabels(oddB...))
		checkGroup(t, r, 1, Equal, rankLabels(evenA...), rankLabels(evenB...))
		if h := r.Headline(); !strings.Contains(h, "2 processes without a key left out") {
			t.Errorf("headline:\n%s", h)
		}
	})
	t.Run("mapping across structures", func(t *testing.T) {
		// one key for everything: one group holding both structures of each run
		r := Runs(a, b, WithMapping(func(*trace.Process) string { return "all" }))
		checkAccounting(t, r, a, b, [2]int{})
		if r.NumGroups() != 1 || r.State(0) != Equal {
			t.Fatalf("%d groups, want 1 equal (the union of both structures in each run)", r.NumGroups())
		}
		if w := fnRow(t, r.FunctionRows(), 0, "read_input"); w.Processes != [2]int{16, 16} ||
			w.Mean != [2]int64{int64(math.Round(5.0 / 16)), int64(math.Round(10.0 / 16))} || w.Calls != [2]float64{1.0 / 16, 2.0 / 16} {
			t.Errorf("read_input: %+v", w)
		}
	})
}

// g. Generated runs: the same configuration at 16, 32 and 64 ranks gives equal groups only;
// code version 1 in B removes apply_bc and adds compute_flux_correction (synth.GenConfig).
func TestGeneratedRunsAtThreeScales(t *testing.T) {
	gen := func(ranks, version int) *trace.Trace {
		cfg := synth.DefaultGenConfig()
		cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Version = ranks, 3, 1, version
		return synth.Generate(cfg)
	}
	for _, sizes := range [][2]int{{16, 32}, {32, 64}, {16, 64}} {
		a, b := gen(sizes[0], 0), gen(sizes[1], 0)
		r := Runs(a, b)
		checkAccounting(t, r, a, b, [2]int{})
		for i := range r.NumGroups() {
			if r.State(i) != Equal {
				t.Errorf("%v: G%d is %v", sizes, i, r.State(i))
			}
		}
		for _, w := range r.TreeRows() {
			if w.State != "equal" {
				t.Errorf("%v: %s in G%d is %q", sizes, w.Path, w.Group, w.State)
			}
		}
		b1 := gen(sizes[1], 1)
		r = Runs(a, b1)
		checkAccounting(t, r, a, b1, [2]int{})
		seen := map[string]bool{}
		for _, w := range r.FunctionRows() {
			switch w.Function {
			case "apply_bc", "compute_flux_correction":
				want := map[string]string{"apply_bc": "only in A", "compute_flux_correction": "only in B"}[w.Function]
				if w.Verdict != want {
					t.Errorf("%v: %s in G%d: %q, want %q", sizes, w.Function, w.Group, w.Verdict, want)
				}
				seen[w.Function] = true
			}
			if strings.HasPrefix(w.Function, "apply_bc") && w.Calls[1] != 0 || strings.HasPrefix(w.Function, "compute_flux_correction") && w.Calls[0] != 0 {
				t.Errorf("%v: %s called in the wrong run: %v", sizes, w.Function, w.Calls)
			}
		}
		for _, w := range r.TreeRows() {
			last := w.Function
			switch {
			case strings.HasPrefix(last, "apply_bc") && w.State != "only in A",
				strings.HasPrefix(last, "compute_flux_correction") && w.State != "only in B":
				t.Errorf("%v: Tree %s: %q", sizes, w.Path, w.State)
			}
		}
		if !seen["apply_bc"] || !seen["compute_flux_correction"] {
			t.Errorf("%v: rows of the changed kernels missing: %v", sizes, seen)
		}
	}
}

// Where aligns the median process of run A with the same rank of run B: with compute slowed on every rank,
// its calls head the list, each 160 ns slower; WithTop bounds the rows per group.
func TestWhereRepresentatives(t *testing.T) {
	const slow = 260
	a, b := handRun(16, slowed(16, defaultCompute)), handRun(32, slowed(32, slow))
	for _, top := range []int{10, 2} {
		r := Runs(a, b, WithTop(top))
		perGroup := map[int]int{}
		for _, w := range r.WhereRows() {
			perGroup[w.Group]++
			// in A the lower median of the time in instrumented regions (ranks 1-15 take
			// longer with their rank, so the 8th of 15); in B the same rank, which G1 has
			if w.Group == 1 && w.Process != [2]string{"rank 8", "rank 8"} {
				t.Errorf("G1 representatives %v, want rank 8 in both runs", w.Process)
			}
		}
		for g, n := range perGroup {
			if n > top {
				t.Errorf("top %d: %d rows of G%d", top, n, g)
			}
		}
		rows := r.WhereRows()
		if len(rows) == 0 {
			t.Fatal("no rows")
		}
		// compute of rank 8 takes 100 + 2·8 - 16 ns a call in A and 260 + 2·8 - 32 ns in B
		exA, exB := int64(defaultCompute+2*8-16), int64(slow+2*8-32)
		n := 0
		for _, w := range rows {
			if w.Function != "compute" || w.Group != 1 {
				continue
			}
			n++
			if w.Change != exB-exA || w.Exclusive != [2]int64{exA, exB} || w.Occurrence[0] != w.Occurrence[1] || w.Path != "main > loop > compute" {
				t.Errorf("Where %+v", w)
			}
		}
		if n != min(top, defaultLoops) || rows[0].Function != "compute" {
			t.Errorf("top %d: %d rows of compute in G1 (first row %s), want %d", top, n, rows[0].Function, min(top, defaultLoops))
		}
	}
	// WithProcesses: rank 3 of B only against all of A
	r := Runs(a, b, WithProcesses(b.Process(3)))
	if r.NumGroups() != 2 {
		t.Fatalf("%d groups, want 2", r.NumGroups())
	}
	checkGroup(t, r, 0, OnlyA, rankLabels(0), nil)
	checkGroup(t, r, 1, Equal, rankLabels(ranks(1, 16)...), rankLabels(3))
	wantError(t, "compare.Runs", func() { Runs(a, b, WithProcesses(b.Process(3), b.Process(3))) })
}
