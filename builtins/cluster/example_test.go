package cluster_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/cluster"
)

// The worked example of Weber 2016, Fig. 5.2 and Table 5.1 (Algorithm 5): the caller → callee
// pairs of four processes are sorted and serialised, and processes with equal serialisations
// (the SHA3-512 of it) form a group: processes 2 and 4 call the same pairs in another order.
func Example() {
	procs := [][][2]string{ // (caller, callee); "" is the virtual root ε
		{{"", "main"}, {"main", "a"}, {"a", "b"}},
		{{"", "main"}, {"main", "a"}, {"a", "b"}, {"main", "b"}, {"b", "c"}},
		{{"", "main"}, {"main", "c"}, {"c", "d"}},
		{{"", "main"}, {"main", "b"}, {"main", "a"}, {"a", "b"}, {"b", "c"}},
	}
	h := cluster.NewHashClustering(cluster.Pairs)
	for i, ps := range procs {
		pairs := cluster.StructureFromPairs(ps).Pairs
		fmt.Printf("proc %d: %s\n", i+1, cluster.Serialize(pairs))
		h.AddNames(i+1, pairs)
	}
	for _, g := range h.Groups() { // Table 5.1 (the seed's hash keys are not SHA3-512's)
		fmt.Println("group", g.Procs, len(g.Hash)*4, "bit hash")
	}
	// Output:
	// proc 1: a → b main → a ε → main
	// proc 2: a → b b → c main → a main → b ε → main
	// proc 3: c → d main → c ε → main
	// proc 4: a → b b → c main → a main → b ε → main
	// group [1] 512 bit hash
	// group [2 4] 512 bit hash
	// group [3] 512 bit hash
}

// The concept lattice of SC Table I and Fig. 4 (Weber Fig. 5.3): the top holds the pair every
// process has (ε → F1), processes 2 and 4 share one node, and the bottom holds process 3,
// which has every pair; a node's intent is all pairs at or above it, its extent all processes
// at or below it.
func ExampleLattice() {
	e1, f2, f3 := cluster.PairName("", "F1"), cluster.PairName("F1", "F2"), cluster.PairName("F1", "F3")
	l := cluster.NewLattice(cluster.Pairs, 0)
	for p, set := range map[int][]string{1: {e1, f2}, 2: {e1, f3}, 3: {e1, f2, f3}, 4: {e1, f3}} {
		if err := l.AddNames(p, set); err != nil {
			panic(err)
		}
	}
	tb := l.Table() // top-down
	level, _ := tb.Int32s("Level")
	intent, _ := tb.Int32s("Intent")
	extent, _ := tb.Int64s("Extent")
	members, _ := tb.Strings("Members")
	for i := range tb.NumRows() {
		fmt.Printf("level %d: %d pairs, %d processes at or below, own processes %q\n", level[i], intent[i], extent[i], members[i])
	}
	// Output:
	// level 0: 1 pairs, 4 processes at or below, own processes ""
	// level 1: 2 pairs, 2 processes at or below, own processes "[1]"
	// level 1: 2 pairs, 3 processes at or below, own processes "[2, 4]"
	// level 2: 3 pairs, 1 processes at or below, own processes "[3]"
}
