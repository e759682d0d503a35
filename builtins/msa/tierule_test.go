package msa

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/trace"
)

// align.Pair and msa.Align agree on which repeated call is the extra one:
// of three x against two, the third is the gap, and the equal nodes pair
// iteration k with iteration k.
func TestExtraCallIsTheLastOne(t *testing.T) {
	n := map[int]int64{}
	tr := treeTrace(t, []string{"main(x x x)", "main(x x)"}, func(p int, name string) int64 {
		if name != "x" {
			return 0
		}
		n[p]++
		return 100 * n[p] // iteration k lasts 100k + 10 ns on both
	})
	p, q := tr.Process(0), tr.Process(1)
	m := Align(p, q)
	xs := m.Find("x")
	var got []string
	for _, v := range xs {
		st := m.Stats(v)
		got = append(got, fmt.Sprintf("%v %d-%d", m.State(v), st.Min, st.Max))
	}
	if want := []string{"equal 110-110", "equal 210-210", "gap 310-310"}; !slices.Equal(got, want) {
		t.Errorf("merged x nodes %q, want %q", got, want)
	}
	checkPairing(t, m, p, q)
}

// checkPairing checks that the merged tree of p and q pairs their calls as
// align.Pair(p, q) (hierarchical, Algorithm 2) does.
func checkPairing(t *testing.T, m *Tree, p, q *trace.Process) {
	t.Helper()
	h := align.Pair(p, q).Hierarchical()
	np, _ := m.Path(p)
	nq, _ := m.Path(q)
	for k := range h.State {
		x, y := h.NodeA[k], h.NodeB[k]
		switch {
		case x >= 0 && y >= 0:
			if np[x] != nq[y] {
				t.Fatalf("align pairs call %d of %s with call %d of %s; the merged tree puts them at nodes %d and %d",
					x, p.Label(), y, q.Label(), np[x], nq[y])
			}
		case x >= 0:
			if m.Count(np[x]) != 1 {
				t.Fatalf("align has call %d of %s against a gap; merged node %d has %d processes", x, p.Label(), np[x], m.Count(np[x]))
			}
		case y >= 0:
			if m.Count(nq[y]) != 1 {
				t.Fatalf("align has call %d of %s against a gap; merged node %d has %d processes", y, q.Label(), nq[y], m.Count(nq[y]))
			}
		}
	}
}

// On random pairs of processes the merged tree pairs calls exactly as
// align.Pair: one tie rule.
func TestTwoProcessesPairAsAlign(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for range 500 {
		specs := randomGroup(rng, 2)
		tr := treeTrace(t, specs, nil)
		p, q := tr.Process(0), tr.Process(1)
		checkPairing(t, Align(p, q), p, q)
		checkPairing(t, Align(q, p), p, q)
	}
}
