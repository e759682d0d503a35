package trace

import (
	"math/rand/v2"
	"testing"
)

// TestCallTreeOracle compares the call tree with a brute-force oracle on
// random, properly nested enter/leave streams: for every Enter, its
// matching Leave (scan forward counting depth) and its parent (scan back
// for the nearest unmatched Enter).
func TestCallTreeOracle(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 7))
	for iter := 0; iter < 300; iter++ {
		var kind []EventKind
		var times []int64
		var ref []int32
		depth, now := 0, int64(rnd.IntN(100))
		for n := rnd.IntN(200); n > 0 || depth > 0; n-- {
			now += int64(rnd.IntN(5))
			if depth == 0 || (n > 0 && rnd.IntN(2) == 0) {
				kind, ref = append(kind, Enter), append(ref, int32(rnd.IntN(6)))
				depth++
			} else {
				kind, ref = append(kind, Leave), append(ref, -1)
				depth--
			}
			times = append(times, now)
		}
		c := buildCallTree(kind, times, ref)
		var enters []int
		for i, k := range kind {
			if k == Enter {
				enters = append(enters, i)
			}
		}
		if c.Len() != len(enters)+1 {
			t.Fatalf("%d nodes for %d enters", c.Len(), len(enters))
		}
		nodeOf := map[int]int{}
		for j, e := range enters {
			nodeOf[e] = j + 1
		}
		for j, e := range enters {
			node := j + 1
			d := 0
			leave := -1
			for i := e; i < len(kind); i++ {
				if kind[i] == Enter {
					d++
				} else if d--; d == 0 {
					leave = i
					break
				}
			}
			parent, d := 0, 0
			for i := e - 1; i >= 0; i-- {
				if kind[i] == Leave {
					d++
				} else if d == 0 {
					parent = nodeOf[i]
					break
				} else {
					d--
				}
			}
			if c.Region[node] != ref[e] || c.Enter[node] != times[e] || c.Leave[node] != times[leave] || int(c.Parent[node]) != parent {
				t.Fatalf("node %d: region %d enter %d leave %d parent %d; oracle %d %d %d %d", node, c.Region[node], c.Enter[node], c.Leave[node], c.Parent[node], ref[e], times[e], times[leave], parent)
			}
			var kids []int32
			for k := node + 1; k < c.Len(); k++ {
				if int(c.Parent[k]) == node {
					kids = append(kids, int32(k))
				}
			}
			got := c.Children(node)
			if len(got) != len(kids) {
				t.Fatalf("node %d: children %v, oracle %v", node, got, kids)
			}
			excl := c.Inclusive(node)
			for i, k := range kids {
				if got[i] != k {
					t.Fatalf("node %d: children %v, oracle %v", node, got, kids)
				}
				excl -= c.Inclusive(int(k))
			}
			if c.Exclusive(node) != excl || c.Depth[node] != c.Depth[parent]+1 {
				t.Fatalf("node %d: exclusive %d oracle %d", node, c.Exclusive(node), excl)
			}
		}
	}
}

func TestPairsAndSequence(t *testing.T) {
	// main{a{b} a{b c}} : pairs ε->main, main->a, a->b, a->c
	tr := NewTrace(&Definitions{Regions: []Region{{Name: "main"}, {Name: "a"}, {Name: "b"}, {Name: "c"}}}, []*Process{{
		Kind: []EventKind{Enter, Enter, Enter, Leave, Leave, Enter, Enter, Leave, Enter, Leave, Leave, Leave},
		Time: []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
		Ref:  []int32{0, 1, 2, -1, -1, 1, 2, -1, 3, -1, -1, -1},
	}})
	p := tr.Process(0)
	if got := p.Sequence(); len(got) != 6 || got[0] != 0 || got[5] != 3 {
		t.Errorf("sequence %v", got)
	}
	want := []Pair{{-1, 0}, {0, 1}, {1, 2}, {1, 3}}
	got := p.Pairs()
	if len(got) != len(want) {
		t.Fatalf("pairs %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pairs %v, want %v", got, want)
		}
	}
	st := p.RegionStats()
	if st[1].Calls != 2 || st[1].Inclusive != 3+5 || st[1].Exclusive != 3+5-1-1-1 {
		t.Errorf("stats of a: %+v", st[1])
	}
	defer func() {
		if recover() == nil {
			t.Error("Process(5) did not panic")
		}
	}()
	tr.Process(5)
}
