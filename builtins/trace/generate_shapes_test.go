package trace

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"
	"testing"
)

// pairGroups groups tr's locations by identical pair sets (Process.Pairs),
// in order of first appearance; keys are the sets' serialisations.
func pairGroups(tr *Trace) (groups [][]int, keys []string) {
	at := map[string]int{}
	for i, p := range tr.Processes() {
		var b strings.Builder
		for _, q := range p.Pairs() {
			fmt.Fprintf(&b, "%d>%d,", q.Caller, q.Callee)
		}
		k := b.String()
		g, ok := at[k]
		if !ok {
			g = len(groups)
			at[k] = g
			groups = append(groups, nil)
			keys = append(keys, k)
		}
		groups[g] = append(groups[g], i)
	}
	return groups, keys
}

// bitset is a set of attribute numbers.
type bitset []uint64

func (b bitset) key() string {
	var s strings.Builder
	for _, w := range b {
		fmt.Fprintf(&s, "%x.", w)
	}
	return s.String()
}

// intents returns the distinct pair sets of tr as bitsets over all pairs
// that occur, and the number of those pairs.
func intents(tr *Trace) ([]bitset, int) {
	id := map[Pair]int{}
	for _, p := range tr.Processes() {
		for _, q := range p.Pairs() {
			if _, ok := id[q]; !ok {
				id[q] = len(id)
			}
		}
	}
	words := (len(id) + 63) / 64
	seen := map[string]bool{}
	var out []bitset
	for _, p := range tr.Processes() {
		b := make(bitset, words)
		for _, q := range p.Pairs() {
			n := id[q]
			b[n/64] |= 1 << (n % 64)
		}
		if k := b.key(); !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	return out, len(id)
}

// conceptCount returns the number of concepts of the context whose
// distinct object intents are given, over n attributes: the intersections
// of all subsets of the intents (the empty subset giving all attributes).
func conceptCount(xs []bitset, n int) int {
	full := make(bitset, (n+63)/64)
	for i := 0; i < n; i++ {
		full[i/64] |= 1 << (i % 64)
	}
	have := map[string]bool{full.key(): true}
	all := []bitset{full}
	for _, x := range xs {
		add := []bitset{x}
		for _, y := range all {
			z := make(bitset, len(x))
			for w := range z {
				z[w] = x[w] & y[w]
			}
			add = append(add, z)
		}
		for _, z := range add {
			if k := z.key(); !have[k] {
				have[k] = true
				all = append(all, z)
			}
		}
	}
	return len(all)
}

var _ = bits.OnesCount64
var _ = sort.Ints

func TestShapeExplore(t *testing.T) {
	for _, n := range []int{8, 128, 1024, 4096} {
		tr := Generate(ParaDiSConfig(n))
		xs, na := intents(tr)
		fmt.Println("paradis", n, "groups", len(xs), "attrs", na, "concepts", conceptCount(xs, na))
	}
}
