package cluster

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// HashClustering is the hash clustering of Weber 5.1.2 (Algorithm 5): each
// process's attribute set (by default its caller->callee pairs) is sorted,
// serialised (Serialize) and hashed with SHA3-512; processes with equal
// hashes form a group. Processes are added one at a time (Add, AddNames),
// and the clusterings of two disjoint process sets merge into the
// clustering of their union (Merge): the per-process part can run on many
// machines.
//
// Equal sets have equal serialisations, so the SHA3-512 of a group is
// computed once, for its first process; the others are matched to it by a
// 64-bit hash of their attribute ids and an exact comparison of the sets.
// The grouping is the same as hashing every process (and no SHA3
// collision can merge two different sets).
type HashClustering struct {
	measure Measure
	dict    dict
	groups  []*hashGroup
	byKey   map[uint64]int32 // setKey -> first group with that key, chained by next
}

type hashGroup struct {
	set   []int32 // sorted attribute ids
	key   uint64
	next  int32
	procs []int32 // process indices, as added
	hash  string  // SHA3-512 hex, computed on first use
}

// HashGroup is one group of a HashClustering.
type HashGroup struct {
	Hash  string   // SHA3-512 of the serialised attribute set, hex
	Procs []int    // process indices (trace.Process.Index), ascending
	Attrs []string // the attribute set, sorted (serialised names)
}

// NewHashClustering returns an empty hash clustering over measure m.
func NewHashClustering(m Measure) *HashClustering {
	if !m.valid() {
		fail("cluster.NewHashClustering", "unknown measure %d (use cluster.Pairs, cluster.PairsPlus or cluster.Funcs)", int(m))
	}
	return &HashClustering{measure: m, byKey: map[uint64]int32{}}
}

// Measure returns the measure the clustering groups by.
func (h *HashClustering) Measure() Measure { return h.measure }

// Add adds process p (identified by p.Index) with its structure.
func (h *HashClustering) Add(p *trace.Process) {
	p.NeedEvents("cluster.HashClustering.Add")
	h.AddNames(p.Index, StructureOf(p).Of(h.measure))
}

// AddNames adds process proc with the attribute set names (serialised
// pairs such as "main → a", or function names).
func (h *HashClustering) AddNames(proc int, names []string) {
	h.addSet([]int32{int32(proc)}, h.dict.idsOf(names))
}

// addSet adds processes procs with the sorted attribute id set; it returns
// the group index.
func (h *HashClustering) addSet(procs []int32, set []int32) int32 {
	k := setKey(set)
	head, ok := h.byKey[k]
	if ok {
		for g := head; g >= 0; g = h.groups[g].next {
			if slices.Equal(h.groups[g].set, set) {
				h.groups[g].procs = append(h.groups[g].procs, procs...)
				return g
			}
		}
	} else {
		head = -1
	}
	g := int32(len(h.groups))
	h.groups = append(h.groups, &hashGroup{set: set, key: k, next: head, procs: slices.Clone(procs)})
	h.byKey[k] = g
	return g
}

// Merge adds the groups of o, a clustering of processes disjoint from h's
// with the same measure, to h: the result is the clustering of the union.
// It returns an error naming a process present in both, or the measures if
// they differ, or for a partial of another kind; h is unchanged then. It is
// the merge of the method "cluster.hash" (HashMethod).
func (h *HashClustering) Merge(p part.Partial) error {
	o, ok := p.(*HashClustering)
	if !ok {
		return part.Mismatch("cluster.HashClustering", h, p)
	}
	if err := mergeable("cluster.HashClustering.Merge", "clusterings", h.measure, o.measure, h.processes(), o.processes()); err != nil {
		return err
	}
	for _, g := range o.groups {
		h.addSet(g.procs, h.dict.idsOf(o.dict.namesOf(g.set)))
	}
	return nil
}

func (h *HashClustering) processes() iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for _, g := range h.groups {
			for _, p := range g.procs {
				if !yield(p) {
					return
				}
			}
		}
	}
}

// mergeable returns the error of merging two partial results (clusterings
// or lattices) of measures ma and mb over the processes a and b: the
// measures must be equal and the process sets disjoint.
func mergeable(fn, what string, ma, mb Measure, a, b iter.Seq[int32]) error {
	if ma != mb {
		return work.Errorf(fn, "measures differ (%v and %v)", ma, mb)
	}
	seen := map[int32]bool{}
	for p := range a {
		seen[p] = true
	}
	for p := range b {
		if seen[p] {
			return work.Errorf(fn, "process %d is in both %s (merge needs disjoint process sets)", p, what)
		}
	}
	return nil
}

// Len returns the number of groups.
func (h *HashClustering) Len() int { return len(h.groups) }

// Groups returns the groups ordered by their smallest process index.
func (h *HashClustering) Groups() []HashGroup {
	out := make([]HashGroup, len(h.groups))
	for i, g := range h.groups {
		procs := make([]int, len(g.procs))
		for j, p := range g.procs {
			procs[j] = int(p)
		}
		slices.Sort(procs)
		names := h.dict.namesOf(g.set)
		slices.Sort(names)
		out[i] = HashGroup{Hash: h.hashOf(g), Procs: procs, Attrs: names}
	}
	slices.SortFunc(out, func(a, b HashGroup) int { return firstOf(a.Procs) - firstOf(b.Procs) })
	return out
}

func firstOf(s []int) int {
	if len(s) == 0 {
		return -1
	}
	return s[0]
}

func (h *HashClustering) hashOf(g *hashGroup) string {
	if g.hash == "" {
		g.hash = HashOf(h.dict.namesOf(g.set))
	}
	return g.hash
}

// Table returns one row per group, ordered as Groups: Group, Processes (count), Members (the
// process indices, "0,2,5"), the size of the attribute set (a column named after the
// measure: Pairs, Pairs+ or Funcs) and Hash (SHA3-512 hex).
func (h *HashClustering) Table() *arrowio.Table {
	gs := h.Groups()
	n := len(gs)
	idx, size, attrs := make([]int32, n), make([]int64, n), make([]int32, n)
	mem, hash := make([]string, n), make([]string, n)
	for i, g := range gs {
		idx[i], size[i], attrs[i], hash[i] = int32(i), int64(len(g.Procs)), int32(len(g.Attrs)), g.Hash
		mem[i] = strings.Trim(strings.ReplaceAll(fmt.Sprint(g.Procs), " ", ","), "[]")
	}
	return arrowio.MustTable(arrowio.Int32("Group", idx), arrowio.Int64("Processes", size), arrowio.String("Members", mem),
		arrowio.Int32(h.measure.column(), attrs), arrowio.String("Hash", hash))
}

// String summarises the clustering: "hash clustering (pairs): 3 groups of 4 processes".
func (h *HashClustering) String() string {
	n := 0
	for _, g := range h.groups {
		n += len(g.procs)
	}
	return fmt.Sprintf("hash clustering (%v): %d groups of %d processes", h.measure, len(h.groups), n)
}
