package cluster

import (
	"crypto/sha3"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Measure selects the structural attributes of a process that clustering
// compares.
type Measure int

const (
	// Pairs is the set of caller->callee function pairs with the virtual
	// root ε (Weber eq. 5.2, pairsim): the default.
	Pairs Measure = iota
	// PairsPlus is the transitive closure of Pairs (SC VII): F->F' for every
	// F' called by F through zero or more intermediate functions.
	PairsPlus
	// Funcs is the set of functions called (Weber eq. 5.1, funcsim).
	Funcs
)

// String returns "pairs", "pairs+" or "funcs".
func (m Measure) String() string {
	switch m {
	case Pairs:
		return "pairs"
	case PairsPlus:
		return "pairs+"
	case Funcs:
		return "funcs"
	}
	return fmt.Sprintf("Measure(%d)", int(m))
}

func (m Measure) valid() bool { return m >= Pairs && m <= Funcs }

// column is the name of a table column of attribute counts under m: "Pairs",
// "Pairs+" or "Funcs".
func (m Measure) column() string {
	switch m {
	case Funcs:
		return "Funcs"
	case PairsPlus:
		return "Pairs+"
	}
	return "Pairs"
}

// Root is the name of the virtual root function ε (Weber 5.1.1): the caller
// of every function that is a source of a call stack.
const Root = "ε"

// escapeName makes function names safe for the serialisation of 5.1.2, whose
// separators are " " between pairs and " → " inside a pair: a name is
// written as is unless it contains `\`, a space or "→", or is "ε" itself;
// then those are escaped as `\\`, `\s`, `\>` and `\ε`; the empty name is
// `\0`. The serialisation is therefore injective: different sets never give
// the same string, and no region, whatever its name, reads as the root ε.
func escapeName(s string) string {
	switch s {
	case Root:
		return `\` + Root
	case "":
		return `\0`
	}
	if !strings.ContainsAny(s, `\ →`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case ' ':
			b.WriteString(`\s`)
		case '→':
			b.WriteString(`\>`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// PairName returns the serialised form of the pair caller → callee, as in
// Weber 5.1.2 ("main → a"); an empty caller is the root ε (for pairs
// written by hand; the pairs of a trace keep a region named "" apart from
// the root, see namedPair).
func PairName(caller, callee string) string {
	return namedPair{caller: caller, callee: callee, root: caller == ""}.name()
}

// namedPair is a caller → callee pair by function name; root marks the
// virtual root ε as the caller, so that a region named "" (or "ε") is a
// function like any other.
type namedPair struct {
	caller, callee string
	root           bool
}

func (q namedPair) name() string {
	c := Root
	if !q.root {
		c = escapeName(q.caller)
	}
	return c + " → " + escapeName(q.callee)
}

// Serialize returns the hash input of Weber 5.1.2 (Algorithm 5, steps 4-5)
// for a set of attribute names: sorted alphabetically (bytewise, so "ε"
// sorts after ASCII names as in the seed's example) and joined by spaces:
// "a → b main → a ε → main".
func Serialize(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return strings.Join(s, " ")
}

// HashOf returns the SHA3-512 of Serialize(names) in hex: the key of hash
// clustering (Weber 5.1.2).
func HashOf(names []string) string {
	sum := sha3.Sum512([]byte(Serialize(names)))
	return hex.EncodeToString(sum[:])
}

// dict numbers attribute names (serialised pairs or function names).
type dict struct {
	names []string
	index map[string]int32
}

func (d *dict) id(name string) int32 {
	if d.index == nil {
		d.index = make(map[string]int32)
	}
	if i, ok := d.index[name]; ok {
		return i
	}
	i := int32(len(d.names))
	d.names = append(d.names, name)
	d.index[name] = i
	return i
}

func (d *dict) len() int { return len(d.names) }

// namesOf returns the names of a set of ids.
func (d *dict) namesOf(set []int32) []string {
	out := make([]string, len(set))
	for i, a := range set {
		out[i] = d.names[a]
	}
	return out
}

// idsOf returns the sorted ids of names, adding new names.
func (d *dict) idsOf(names []string) []int32 {
	out := make([]int32, len(names))
	for i, n := range names {
		out[i] = d.id(n)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// setKey is a 64-bit hash of a set of ids, for grouping equal sets before
// an exact comparison.
func setKey(set []int32) uint64 {
	h := keyStart(len(set))
	for _, a := range set {
		h = keyMix(h, uint64(uint32(a)))
	}
	return keyEnd(h)
}

// keyStart, keyMix and keyEnd make the 64-bit keys of setKey and pairKey
// (FNV-style mixing with a final avalanche; not cryptographic).
func keyStart(n int) uint64 { return 14695981039346656037 ^ uint64(n) }

func keyMix(h, x uint64) uint64 {
	h ^= x
	h *= 0x100000001b3
	return h ^ h>>29
}

func keyEnd(h uint64) uint64 {
	h ^= h >> 32
	h *= 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// Structure is the structural information of one process (Weber 5.1.1, SC
// VII): the functions it calls, its caller->callee pairs with the root ε,
// and their transitive closure, as serialised names (PairName), sorted.
type Structure struct {
	Funcs     []string
	Pairs     []string
	PairsPlus []string
}

// Of returns the attribute set of measure m.
func (s Structure) Of(m Measure) []string {
	switch m {
	case Funcs:
		return s.Funcs
	case PairsPlus:
		return s.PairsPlus
	}
	return s.Pairs
}

// StructureOf returns p's structure, from its cached call tree.
func StructureOf(p *trace.Process) Structure {
	p.NeedEvents("cluster.StructureOf")
	return structureOf(namedPairs(p, p.Pairs()))
}

// namedPairs names the region pairs ps of p's trace.
func namedPairs(p *trace.Process, ps []trace.Pair) []namedPair {
	out := make([]namedPair, len(ps))
	for i, q := range ps {
		out[i] = namedPair{callee: p.RegionName(q.Callee), root: q.Caller < 0}
		if q.Caller >= 0 {
			out[i].caller = p.RegionName(q.Caller)
		}
	}
	return out
}

// StructureFromPairs returns the structure of a process given its
// caller->callee pairs by function name; an empty caller is the root ε. A
// function that is never called does not count (funcs(P) holds called
// functions; ε is not a function).
func StructureFromPairs(pairs [][2]string) Structure {
	nps := make([]namedPair, len(pairs))
	for i, q := range pairs {
		nps[i] = namedPair{caller: q[0], callee: q[1], root: q[0] == ""}
	}
	return structureOf(nps)
}

func structureOf(pairs []namedPair) Structure {
	var s Structure
	fs := map[string]bool{}
	for _, q := range pairs {
		s.Pairs = append(s.Pairs, q.name())
		fs[q.callee] = true
	}
	for f := range fs {
		s.Funcs = append(s.Funcs, escapeName(f))
	}
	s.PairsPlus = closureNames(pairs)
	slices.Sort(s.Funcs)
	slices.Sort(s.Pairs)
	s.Pairs = slices.Compact(s.Pairs)
	return s
}

// closureNames returns the transitive closure of pairs (SC VII) as sorted
// serialised names.
func closureNames(pairs []namedPair) []string {
	ids := map[string]int32{} // functions by name; 0 is ε, which has no name
	name := []string{""}
	id := func(s string) int32 {
		if i, ok := ids[s]; ok {
			return i
		}
		i := int32(len(name))
		ids[s] = i
		name = append(name, s)
		return i
	}
	var edges [][2]int32
	for _, q := range pairs {
		c := int32(0)
		if !q.root {
			c = id(q.caller)
		}
		edges = append(edges, [2]int32{c, id(q.callee)})
	}
	var out []string
	for _, e := range closure(len(name), edges) {
		out = append(out, namedPair{caller: name[e[0]], callee: name[e[1]], root: e[0] == 0}.name())
	}
	slices.Sort(out)
	return out
}

// closure returns the transitive closure of a directed graph on n nodes:
// (u, v) for every v reachable from u by one or more edges, sorted. Node 0
// is ε; it is a node like the others (ε -> F' for every F' reachable from a
// source function).
func closure(n int, edges [][2]int32) [][2]int32 {
	adj := make([][]int32, n)
	for _, e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
	}
	seen := make([]int32, n)
	for i := range seen {
		seen[i] = -1
	}
	var out [][2]int32
	var stack []int32
	for u := int32(0); int(u) < n; u++ {
		if len(adj[u]) == 0 {
			continue
		}
		stack = append(stack[:0], adj[u]...)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[v] == u {
				continue
			}
			seen[v] = u
			out = append(out, [2]int32{u, v})
			stack = append(stack, adj[v]...)
		}
	}
	slices.SortFunc(out, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	return out
}

// Jaccard returns |a ∩ b| / |a ∪ b| of two sorted sets, 1 if both are empty
// (funcsim, pairsim: Weber eq. 5.1-5.2).
func Jaccard(a, b []string) float64 {
	inter := intersectCount(a, b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// Subsumption returns |a ∩ b| / |b| of two sorted sets, 1 if b is empty
// (pairsub of SC VII with a = pairs(P1)+, b = pairs(P2)+: how much of P2's
// behaviour P1 includes).
func Subsumption(a, b []string) float64 {
	if len(b) == 0 {
		return 1
	}
	return float64(intersectCount(a, b)) / float64(len(b))
}

func intersectCount[T interface{ ~string | ~int32 }](a, b []T) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}
