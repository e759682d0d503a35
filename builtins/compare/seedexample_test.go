package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// The worked example of the structural-clustering seed (Weber 2016, Fig. 5.2 and Table 5.1;
// cluster's TestSeedSerialisationAndTable51) split across two runs in every way: the groups,
// their hashes and their pairsim must be what cluster.Structural gives on the union of the
// four processes.

var fig52Names = []string{"main", "a", "b", "c", "d"}

// fig52Process returns process i (0-3) of Fig. 5.2 as calls: 1 main > a > b; 2 main > {a > b,
// b > c}; 3 main > c > d; 4 main > {b > c, a > b}.
func fig52Process(i int) *trace.Process {
	const main, a, b, c, d = 0, 1, 2, 3, 4
	calls := [][]tracetest.Call{
		{{main, 0, 100}, {a, 10, 50}, {b, 20, 40}},
		{{main, 0, 100}, {a, 10, 40}, {b, 20, 30}, {b, 50, 90}, {c, 60, 80}},
		{{main, 0, 100}, {c, 10, 60}, {d, 20, 50}},
		{{main, 0, 100}, {b, 10, 40}, {c, 20, 30}, {a, 50, 90}, {b, 60, 80}},
	}[i]
	return tracetest.Process(calls...)
}

func TestSeedExampleAcrossTwoRuns(t *testing.T) {
	var all []*trace.Process
	for i := range 4 {
		all = append(all, fig52Process(i))
	}
	union := tracetest.Trace(fig52Names, all...)
	c := cluster.Structural(union)
	classOf := make([]int, 4)
	for i, p := range union.Processes() {
		classOf[i] = c.GroupOf(p)
	}
	if fmt.Sprint(classOf) != "[0 1 2 1]" {
		t.Fatalf("cluster.Structural on the union: classes %v, want Table 5.1's [0 1 2 1]", classOf)
	}
	sim := c.Matrix()
	for _, sigma := range []float64{cluster.DefaultSigma, 0.5} {
		for mask := 1; mask < 15; mask++ { // processes with bit i set go to run A
			t.Run(fmt.Sprintf("σ %v split %04b", sigma, mask), func(t *testing.T) {
				var inA, inB []int // original indices
				var pa, pb []*trace.Process
				for i := range 4 {
					if mask>>i&1 == 1 {
						inA = append(inA, i)
						pa = append(pa, fig52Process(i))
					} else {
						inB = append(inB, i)
						pb = append(pb, fig52Process(i))
					}
				}
				a, b := tracetest.Trace(fig52Names, pa...), tracetest.Trace(fig52Names, pb...)
				r := Runs(a, b, WithSigma(sigma))
				checkAccounting(t, r, a, b, [2]int{})

				// Expected: the classes of the union, each equal when it has processes in both
				// runs; then classes of one run matched greedily by the union's pairsim.
				type want struct {
					procs   [2][]int // original indices
					classes [2]int   // the class of each side, -1 for none
					state   State
					sim     float64
				}
				ws := map[int]*want{}
				var order []int
				for k, side := range [2][]int{inA, inB} {
					for _, i := range side {
						w := ws[classOf[i]]
						if w == nil {
							w = &want{classes: [2]int{-1, -1}}
							ws[classOf[i]] = w
							order = append(order, classOf[i])
						}
						w.procs[k] = append(w.procs[k], i)
						w.classes[k] = classOf[i]
					}
				}
				type cand struct {
					a, b int
					sim  float64
				}
				var cs []cand
				for _, x := range order {
					for _, y := range order {
						if ws[x].classes[1] < 0 && ws[y].classes[0] < 0 {
							cs = append(cs, cand{x, y, sim.At(x, y)})
						}
					}
				}
				slices.SortFunc(cs, func(p, q cand) int { return cmp.Compare(q.sim, p.sim) })
				used := map[int]bool{}
				for _, cd := range cs {
					if cd.sim < sigma || used[cd.a] || used[cd.b] {
						continue
					}
					used[cd.a], used[cd.b] = true, true
					ws[cd.a].procs[1], ws[cd.a].classes[1] = ws[cd.b].procs[1], cd.b
					delete(ws, cd.b)
				}
				for _, w := range ws {
					switch {
					case w.classes[0] < 0:
						w.state, w.sim = OnlyB, math.NaN()
					case w.classes[1] < 0:
						w.state, w.sim = OnlyA, math.NaN()
					case w.classes[0] == w.classes[1]:
						w.state, w.sim = Equal, 1
					default:
						w.state, w.sim = Similar, sim.At(w.classes[0], w.classes[1])
					}
				}
				if r.NumGroups() != len(ws) {
					t.Fatalf("%d groups, want %d", r.NumGroups(), len(ws))
				}
				rows := groupRows(t, r)
				similar := 0
				for g := range r.NumGroups() {
					ga, gb := r.Group(g)
					var got [2][]int
					for _, p := range ga {
						got[0] = append(got[0], inA[p.Index])
					}
					for _, p := range gb {
						got[1] = append(got[1], inB[p.Index])
					}
					var w *want
					for _, x := range ws {
						if slices.Equal(x.procs[0], got[0]) && slices.Equal(x.procs[1], got[1]) {
							w = x
						}
					}
					if w == nil {
						t.Errorf("G%d holds processes %v (A) and %v (B): no class of the union", g, got[0], got[1])
						continue
					}
					row := rows[int64(g)]
					if r.State(g) != w.state || row.state != w.state.String() || row.pairsimOK == math.IsNaN(w.sim) ||
						(row.pairsimOK && math.Abs(row.pairsim-w.sim) > 1e-12) {
						t.Errorf("G%d %v/%v: %v pairsim %v, want %v %v", g, got[0], got[1], row.state, row.pairsim, w.state, w.sim)
					}
					if w.state == Similar {
						similar++
					}
					if w.state == OnlyA || w.state == OnlyB {
						// the documented Closest: the most similar group with processes in the other run
						other := b2i(w.state == OnlyA)
						best, bestSim := int64(-1), -1.0
						for h := range r.NumGroups() {
							if rows[int64(h)].procs[other] == 0 {
								continue
							}
							gx, gy := r.Group(h)
							q := [2][]*trace.Process{gx, gy}[other][0]
							j := classOf[[2][]int{inA, inB}[other][q.Index]]
							if s := sim.At(w.classes[1-other], j); s > bestSim {
								best, bestSim = int64(h), s
							}
						}
						if !row.closestOK || row.closest != best || math.Abs(row.closestSim-bestSim) > 1e-12 {
							t.Errorf("G%d (%v): closest %v (%v) at %v, want G%d at %v", g, w.state, row.closest, row.closestOK, row.closestSim, best, bestSim)
						}
					}
					for k := range 2 {
						want := ""
						if w.classes[k] >= 0 {
							want = c.Hash(w.classes[k])
						}
						if row.hash[k] != want {
							t.Errorf("G%d side %d: hash %.16s…, want cluster's %.16s…", g, k, row.hash[k], want)
						}
					}
				}
				if sigma == 0.5 && mask == 0b0001 && similar != 1 {
					t.Errorf("P1 in A, the rest in B at σ 0.5: %d similar groups, want 1 (P1 with P2, P4 at 3/5)", similar)
				}
			})
		}
	}
}
