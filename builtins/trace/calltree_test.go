package trace

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// callEvents parses a location's events from a compact form: "+a@3" enters
// region a (id 0; b is 1, ...) at 3 ns, "-a@5" leaves it, "-?@5" is a Leave
// with Ref -1, "*@7" an MpiSend (not a call event).
func callEvents(t *testing.T, spec string) (kind []EventKind, times []int64, ref []int32) {
	t.Helper()
	for _, tok := range strings.Fields(spec) {
		var ts int64
		if _, err := fmt.Sscanf(tok[strings.IndexByte(tok, '@')+1:], "%d", &ts); err != nil {
			t.Fatalf("bad token %q", tok)
		}
		r := int32(tok[1]) - 'a'
		if tok[1] == '?' || tok[1] == '@' {
			r = -1
		}
		switch tok[0] {
		case '+':
			kind = append(kind, Enter)
		case '-':
			kind = append(kind, Leave)
		case '*':
			kind = append(kind, MpiSend)
		default:
			t.Fatalf("bad token %q", tok)
		}
		times, ref = append(times, ts), append(ref, r)
	}
	return kind, times, ref
}

// node is one call-tree node as the tests spell it out.
type node struct {
	region             int32
	enter, leave       int64
	end, depth, parent int32
}

// The repair rule of CallTree on hand-built locations: the repaired tree,
// node by node, and the exact counts, from the tree and from the tree-free
// count of Process.CallRepairs.
func TestCallTreeRepairs(t *testing.T) {
	for _, c := range []struct {
		name    string
		events  string
		nodes   []node // ε first
		repairs CallRepairs
	}{
		{"properly nested", "+a@0 +b@1 -b@2 +c@3 -c@4 -a@5",
			[]node{{-1, 0, 5, 4, 0, -1}, {0, 0, 5, 4, 1, 0}, {1, 1, 2, 3, 2, 1}, {2, 3, 4, 4, 2, 1}},
			CallRepairs{}},
		{"no events", "", []node{{-1, 0, 0, 1, 0, -1}}, CallRepairs{}},
		{"Leave of an enclosing call closes the calls inside", "+a@0 +b@1 +c@2 +d@3 -b@4 +e@5 -e@6 -a@7 *@9",
			[]node{{-1, 0, 9, 6, 0, -1}, {0, 0, 7, 6, 1, 0}, {1, 1, 4, 5, 2, 1}, {2, 2, 4, 5, 3, 2}, {3, 3, 4, 5, 4, 3}, {4, 5, 6, 6, 2, 1}},
			CallRepairs{OuterLeaves: 1, ClosedInside: 2}},
		{"nested mismatches", "+a@0 +b@1 +c@2 -b@3 +d@4 +e@5 +f@6 -d@7 -a@8",
			[]node{{-1, 0, 8, 7, 0, -1}, {0, 0, 8, 7, 1, 0}, {1, 1, 3, 4, 2, 1}, {2, 2, 3, 4, 3, 2}, {3, 4, 7, 7, 2, 1}, {4, 5, 7, 7, 3, 4}, {5, 6, 7, 7, 4, 5}},
			CallRepairs{OuterLeaves: 2, ClosedInside: 3}},
		{"Leaves with no call open or matching none", "-x@0 +a@1 -z@2 +b@3 -b@4 -a@5 -a@6",
			[]node{{-1, 0, 6, 3, 0, -1}, {0, 1, 5, 3, 1, 0}, {1, 3, 4, 3, 2, 1}},
			CallRepairs{UnmatchedLeaves: 1, LeavesWithoutCall: 2}},
		{"calls open at the end", "+a@0 +b@1 -b@2 +c@3 +d@4 *@8",
			[]node{{-1, 0, 8, 5, 0, -1}, {0, 0, 8, 5, 1, 0}, {1, 1, 2, 3, 2, 1}, {2, 3, 8, 5, 2, 1}, {3, 4, 8, 5, 3, 3}},
			CallRepairs{OpenAtEnd: 3}},
		{"recursion: the innermost call of the region", "+a@0 +a@1 +b@2 -a@3 -a@4",
			[]node{{-1, 0, 4, 4, 0, -1}, {0, 0, 4, 4, 1, 0}, {0, 1, 3, 4, 2, 1}, {1, 2, 3, 4, 3, 2}},
			CallRepairs{OuterLeaves: 1, ClosedInside: 1}},
		{"Leave without region closes the innermost call", "+a@0 +b@1 -?@2 -?@3 -?@4",
			[]node{{-1, 0, 4, 3, 0, -1}, {0, 0, 3, 3, 1, 0}, {1, 1, 2, 3, 2, 1}},
			CallRepairs{LeavesWithoutCall: 1}},
	} {
		kind, times, ref := callEvents(t, c.events)
		ct := buildCallTree(kind, times, ref)
		var got []node
		for i := 0; i < ct.Len(); i++ {
			got = append(got, node{ct.Region[i], ct.Enter[i], ct.Leave[i], ct.End[i], ct.Depth[i], ct.Parent[i]})
		}
		if !slices.Equal(got, c.nodes) {
			t.Errorf("%s: nodes\n%v\nwant\n%v", c.name, got, c.nodes)
		}
		if ct.Repairs != c.repairs {
			t.Errorf("%s: repairs %+v, want %+v", c.name, ct.Repairs, c.repairs)
		}
		p := &Process{Kind: kind, Time: times, Ref: ref}
		if r := p.CallRepairs(); r != c.repairs {
			t.Errorf("%s: Process.CallRepairs %+v, want %+v", c.name, r, c.repairs)
		}
	}
}

// repairOracle applies the repair rule of CallTree with an explicit stack of
// open calls and returns the nodes (ε first, End left 0) and the counts.
func repairOracle(kind []EventKind, times []int64, ref []int32) ([]node, CallRepairs) {
	type open struct {
		region int32
		node   int
	}
	var last int64
	if len(times) > 0 {
		last = times[len(times)-1]
	}
	nodes := []node{{region: -1, leave: last, parent: -1}}
	if len(times) > 0 {
		nodes[0].enter = times[0]
	}
	var stack []open
	var r CallRepairs
	pop := func(t int64) {
		nodes[stack[len(stack)-1].node].leave = t
		stack = stack[:len(stack)-1]
	}
	for i, k := range kind {
		switch {
		case k == Enter:
			parent := 0
			if len(stack) > 0 {
				parent = stack[len(stack)-1].node
			}
			nodes = append(nodes, node{region: ref[i], enter: times[i], depth: int32(len(stack) + 1), parent: int32(parent)})
			stack = append(stack, open{ref[i], len(nodes) - 1})
		case k != Leave:
		case len(stack) == 0:
			r.LeavesWithoutCall++
		case ref[i] < 0:
			pop(times[i])
		default:
			match := -1
			for j := len(stack) - 1; j >= 0 && match < 0; j-- {
				if stack[j].region == ref[i] {
					match = j
				}
			}
			if match < 0 {
				r.UnmatchedLeaves++
				continue
			}
			if inside := len(stack) - 1 - match; inside > 0 {
				r.OuterLeaves++
				r.ClosedInside += int64(inside)
			}
			for len(stack) > match {
				pop(times[i])
			}
		}
	}
	r.OpenAtEnd = int64(len(stack))
	for len(stack) > 0 {
		pop(last)
	}
	return nodes, r
}

// Random properly nested locations with Leaves deleted and inserted at
// random: the tree and counts equal the oracle's, End[i] is the first later
// node no deeper than i (brute force), and the tree-free count agrees.
func TestCallTreeRepairOracle(t *testing.T) {
	rnd := rand.New(rand.NewPCG(10, 6))
	var total CallRepairs
	for iter := 0; iter < 2000; iter++ {
		var kind []EventKind
		var ref []int32
		var stack []int32
		for n := rnd.IntN(40); n > 0 || len(stack) > 0; n-- {
			switch {
			case len(stack) == 0 || n > 0 && rnd.IntN(5) < 2:
				r := int32(rnd.IntN(4))
				kind, ref, stack = append(kind, Enter), append(ref, r), append(stack, r)
			case rnd.IntN(6) == 0:
				kind, ref = append(kind, MpiSend), append(ref, 0)
				n++
			default:
				kind, ref, stack = append(kind, Leave), append(ref, stack[len(stack)-1]), stack[:len(stack)-1]
			}
		}
		for m := rnd.IntN(4); m > 0 && len(kind) > 0; m-- {
			i := rnd.IntN(len(kind) + 1)
			if rnd.IntN(2) == 0 {
				r := int32(rnd.IntN(5)) - 1 // -1: Leave without region
				kind, ref = slices.Insert(kind, i, Leave), slices.Insert(ref, i, r)
			} else if i < len(kind) && kind[i] == Leave {
				kind, ref = slices.Delete(kind, i, i+1), slices.Delete(ref, i, i+1)
			}
		}
		times := make([]int64, len(kind))
		now := int64(rnd.IntN(50))
		for i := range times {
			now += int64(rnd.IntN(3))
			times[i] = now
		}
		want, wantR := repairOracle(kind, times, ref)
		ct := buildCallTree(kind, times, ref)
		for i := range want {
			want[i].end = int32(len(want))
			for j := i + 1; j < len(want); j++ {
				if want[j].depth <= want[i].depth {
					want[i].end = int32(j)
					break
				}
			}
		}
		var got []node
		for i := 0; i < ct.Len(); i++ {
			got = append(got, node{ct.Region[i], ct.Enter[i], ct.Leave[i], ct.End[i], ct.Depth[i], ct.Parent[i]})
		}
		if !slices.Equal(got, want) || ct.Repairs != wantR {
			t.Fatalf("events %v refs %v times %v:\nnodes %v\nwant  %v\nrepairs %+v, want %+v", kind, ref, times, got, want, ct.Repairs, wantR)
		}
		if r := countRepairs(kind, ref); r != wantR {
			t.Fatalf("events %v refs %v: countRepairs %+v, want %+v", kind, ref, r, wantR)
		}
		total = total.Add(wantR)
	}
	// every kind of repair was exercised
	if total.OuterLeaves == 0 || total.ClosedInside == 0 || total.UnmatchedLeaves == 0 || total.LeavesWithoutCall == 0 || total.OpenAtEnd == 0 {
		t.Fatalf("random locations missed a kind of repair: %+v", total)
	}
}
