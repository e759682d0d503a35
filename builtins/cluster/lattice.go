package cluster

import (
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Lattice is the concept lattice of a formal context whose objects are
// processes and whose attributes are their function pairs (or pairs+, or
// functions), SC IV-VI. It is built incrementally with van der Merwe,
// Obiedkov and Kourie's AddIntent (2004): the attribute set of each
// process is inserted once, and processes with equal sets share one node.
// In the reduced labelling of SC Fig. 4, every node holds its own
// attributes (those of its intent that no more general node has) and its
// own processes (those whose object concept it is); every process and
// every attribute is in exactly one node. The nodes holding processes are
// the groups; their similarities are read off the lattice by upward
// traversals (Similarities).
//
// Lattices of disjoint process sets merge (Merge, SC VI.C): the processes
// of one are inserted into the other by their nodes, so a lattice can be
// built in parts on several machines and reduced up a tree.
type Lattice struct {
	measure Measure
	dict    dict
	words   int
	nodes   []lnode
	bottom  int32
	limit   int          // node-count guard, 0 for none
	tr      *trace.Trace // for labels and kinds of processes, if known

	done bool // own attributes, levels and order are current
	top  int32
}

type lnode struct {
	intent   []uint64
	size     int32 // |intent|
	parents  []int32
	children []int32
	procs    []int32 // own processes
	own      []int32 // own attributes, set by finish
	level    int32   // longest path from the top, set by finish
}

// LimitError is returned when a lattice grows past its node-count guard
// (SC IX.B).
type LimitError struct {
	Limit     int // the guard
	Inserted  int // processes (or distinct sets) inserted when it was hit
	Remaining int // distinct sets not yet inserted
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("concept lattice exceeds %d nodes after %d distinct attribute sets (%d more to insert)",
		e.Limit, e.Inserted, e.Remaining)
}

// NewLattice returns an empty lattice over measure m whose construction
// stops with a *LimitError once it has more than limit nodes (0: no limit).
func NewLattice(m Measure, limit int) *Lattice {
	if !m.valid() {
		fail("cluster.NewLattice", "unknown measure %d (use cluster.Pairs, cluster.PairsPlus or cluster.Funcs)", int(m))
	}
	if limit < 0 {
		fail("cluster.NewLattice", "node limit %d is negative (0 means no limit)", limit)
	}
	l := &Lattice{measure: m, limit: limit}
	l.nodes = []lnode{{}} // the bottom: intent = every attribute, no processes
	return l
}

// Measure returns the measure of the lattice's attributes.
func (l *Lattice) Measure() Measure { return l.measure }

// Len returns the number of nodes (concepts).
func (l *Lattice) Len() int { return len(l.nodes) }

// NumAttributes returns the number of distinct attributes.
func (l *Lattice) NumAttributes() int { return l.dict.len() }

// AddNames inserts process proc with the attribute set names.
func (l *Lattice) AddNames(proc int, names []string) error {
	_, err := l.insert([]int32{int32(proc)}, l.dict.idsOf(names), 0)
	return err
}

// insert adds the processes procs whose attribute set is set (ids in
// l.dict) and returns their node.
func (l *Lattice) insert(procs []int32, set []int32, remaining int) (int32, error) {
	l.done = false
	l.grow()
	intent := make([]uint64, l.words)
	for _, a := range set {
		intent[a>>6] |= 1 << (a & 63)
	}
	c, err := l.addIntent(intent, l.bottom)
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			le.Remaining = remaining
		}
		return -1, err
	}
	l.nodes[c].procs = append(l.nodes[c].procs, procs...)
	return c, nil
}

// grow keeps the bottom's intent equal to the set of all attributes when
// new attributes appear: an empty bottom takes them; a bottom holding
// processes gets a new, empty bottom below it.
func (l *Lattice) grow() {
	n := l.dict.len()
	if w := (n + 63) / 64; w > l.words {
		for i := range l.nodes {
			l.nodes[i].intent = append(l.nodes[i].intent, make([]uint64, w-l.words)...)
		}
		l.words = w
	}
	b := &l.nodes[l.bottom]
	if int(b.size) == n {
		return
	}
	all := make([]uint64, l.words)
	for a := 0; a < n; a++ {
		all[a>>6] |= 1 << (a & 63)
	}
	if len(b.procs) == 0 {
		b.intent, b.size = all, int32(n)
		return
	}
	nb := int32(len(l.nodes))
	l.nodes = append(l.nodes, lnode{intent: all, size: int32(n)})
	l.link(l.bottom, nb)
	l.bottom = nb
}

// addIntent is AddIntent (van der Merwe et al. 2004, Algorithm 2): it
// returns the concept with the given intent, creating it and the concepts
// it implies below gen's generator chain.
func (l *Lattice) addIntent(intent []uint64, gen int32) (int32, error) {
	gen = l.maximal(intent, gen)
	if slices.Equal(l.nodes[gen].intent, intent) {
		return gen, nil
	}
	genParents := slices.Clone(l.nodes[gen].parents)
	var newParents []int32
	for _, cand := range genParents {
		if !subset(l.nodes[cand].intent, intent) {
			var err error
			if cand, err = l.addIntent(and(l.nodes[cand].intent, intent), cand); err != nil {
				return -1, err
			}
		}
		add := true
		for i := 0; i < len(newParents); {
			p := newParents[i]
			if subset(l.nodes[cand].intent, l.nodes[p].intent) {
				add = false
				break
			}
			if subset(l.nodes[p].intent, l.nodes[cand].intent) {
				newParents = slices.Delete(newParents, i, i+1)
				continue
			}
			i++
		}
		if add {
			newParents = append(newParents, cand)
		}
	}
	if l.limit > 0 && len(l.nodes) >= l.limit {
		return -1, &LimitError{Limit: l.limit}
	}
	if len(l.nodes)&1023 == 0 {
		work.Check()
	}
	nc := int32(len(l.nodes))
	l.nodes = append(l.nodes, lnode{intent: slices.Clone(intent), size: int32(popcount(intent))})
	for _, p := range newParents {
		l.unlink(p, gen)
		l.link(p, nc)
	}
	l.link(nc, gen)
	return nc, nil
}

// maximal is GetMaximalConcept: the most general concept above gen whose
// intent still contains intent.
func (l *Lattice) maximal(intent []uint64, gen int32) int32 {
	for moved := true; moved; {
		moved = false
		for _, p := range l.nodes[gen].parents {
			if subset(intent, l.nodes[p].intent) {
				gen, moved = p, true
				break
			}
		}
	}
	return gen
}

func (l *Lattice) link(parent, child int32) {
	l.nodes[parent].children = append(l.nodes[parent].children, child)
	l.nodes[child].parents = append(l.nodes[child].parents, parent)
}

func (l *Lattice) unlink(parent, child int32) {
	if i := slices.Index(l.nodes[parent].children, child); i >= 0 {
		l.nodes[parent].children = slices.Delete(l.nodes[parent].children, i, i+1)
	}
	if i := slices.Index(l.nodes[child].parents, parent); i >= 0 {
		l.nodes[child].parents = slices.Delete(l.nodes[child].parents, i, i+1)
	}
}

func subset(a, b []uint64) bool { // a ⊆ b
	for i, w := range a {
		if w&^b[i] != 0 {
			return false
		}
	}
	return true
}

func and(a, b []uint64) []uint64 {
	out := make([]uint64, len(a))
	for i := range a {
		out[i] = a[i] & b[i]
	}
	return out
}

func popcount(a []uint64) int {
	n := 0
	for _, w := range a {
		n += bits.OnesCount64(w)
	}
	return n
}

// finish computes the reduced labelling (own attributes), the top and the
// levels (longest path from the top).
func (l *Lattice) finish() {
	if l.done {
		return
	}
	u := make([]uint64, l.words)
	l.top = -1
	for i := range l.nodes {
		n := &l.nodes[i]
		clear(u)
		for _, p := range n.parents {
			for k, w := range l.nodes[p].intent {
				u[k] |= w
			}
		}
		for k, w := range n.intent {
			u[k] = w &^ u[k]
		}
		n.own = bitsOf(u)
		if len(n.parents) == 0 {
			l.top = int32(i)
		}
		n.level = -1
	}
	// levels: Kahn's order from the top.
	indeg := make([]int32, len(l.nodes))
	for i := range l.nodes {
		indeg[i] = int32(len(l.nodes[i].parents))
	}
	queue := []int32{l.top}
	l.nodes[l.top].level = 0
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, c := range l.nodes[n].children {
			l.nodes[c].level = max(l.nodes[c].level, l.nodes[n].level+1)
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	l.done = true
}

// Merge inserts the processes of o, a lattice over a process set disjoint
// from l's with the same measure, into l: the result is the lattice of the
// union (SC VI.C). Measures that differ, processes present in both or a
// partial of another kind are an error (l is unchanged then); on a
// node-limit error l holds part of o. It is the merge of the method
// "cluster.lattice" (LatticeMethod).
func (l *Lattice) Merge(p part.Partial) error {
	o, ok := p.(*Lattice)
	if !ok {
		return part.Mismatch("cluster.Lattice", l, p)
	}
	if err := mergeable("cluster.Lattice.Merge", "lattices", l.measure, o.measure, l.processes(), o.processes()); err != nil {
		return err
	}
	if l.tr == nil {
		l.tr = o.tr
	}
	for i := range o.nodes {
		n := &o.nodes[i]
		if len(n.procs) == 0 {
			continue
		}
		if _, err := l.insert(n.procs, l.dict.idsOf(o.dict.namesOf(bitsOf(n.intent))), 0); err != nil {
			return err
		}
	}
	return nil
}

func (l *Lattice) processes() iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for i := range l.nodes {
			for _, p := range l.nodes[i].procs {
				if !yield(p) {
					return
				}
			}
		}
	}
}

// bitsOf returns the ids set in a bitset, ascending.
func bitsOf(set []uint64) []int32 {
	var out []int32
	for k, w := range set {
		for ; w != 0; w &= w - 1 {
			out = append(out, int32(k*64+bits.TrailingZeros64(w)))
		}
	}
	return out
}

// intersections returns, for nodes gs, size[i] = |intent(gs[i])| and
// inter[i][j] = |intent(gs[i]) ∩ intent(gs[j])|, read off the lattice as SC
// VI.B describes: every attribute is in exactly one node, so a node's
// intent is the disjoint union of the own attributes of the nodes above it,
// |intent| is a sum of own-attribute counts over its up-set, and the
// intersection of two intents is the sum over the common part of their
// up-sets. Up-sets are computed once per node, top-down (a node's up-set is
// itself and its parents' up-sets), as bitsets over the nodes that have
// own attributes (at most one per attribute, usually far fewer); a pair of
// groups then costs an AND of two bitsets and a weighted count. No
// attribute sets are intersected.
func (l *Lattice) intersections(gs []int32, job *work.Job) (size []int64, inter [][]int64) {
	l.finish()
	nn := len(l.nodes)
	slot := make([]int32, nn) // index among nodes with own attributes, or -1
	var weight []int64
	for i := range l.nodes {
		slot[i] = -1
		if k := len(l.nodes[i].own); k > 0 {
			slot[i] = int32(len(weight))
			weight = append(weight, int64(k))
		}
	}
	words := (len(weight) + 63) / 64
	ups := make([]uint64, nn*words)
	for _, n := range l.order() { // parents come first
		u := ups[int(n)*words : int(n+1)*words]
		if s := slot[n]; s >= 0 {
			u[s>>6] |= 1 << (s & 63)
		}
		for _, p := range l.nodes[n].parents {
			for k, w := range ups[int(p)*words : int(p+1)*words] {
				u[k] |= w
			}
		}
	}
	sum := func(a, b []uint64) int64 {
		var t int64
		for k := range a {
			for w := a[k] & b[k]; w != 0; w &= w - 1 {
				t += weight[k*64+bits.TrailingZeros64(w)]
			}
		}
		return t
	}
	upOf := func(n int32) []uint64 { return ups[int(n)*words : int(n+1)*words] }
	size = make([]int64, len(gs))
	for i, g := range gs {
		size[i] = sum(upOf(g), upOf(g))
	}
	inter = make([][]int64, len(gs))
	for i := range inter {
		inter[i] = make([]int64, len(gs))
	}
	for i, a := range gs {
		inter[i][i] = size[i]
		ua := upOf(a)
		for j := i + 1; j < len(gs); j++ {
			inter[i][j] = sum(ua, upOf(gs[j]))
			inter[j][i] = inter[i][j]
		}
		if job != nil {
			job.Add(int64(len(gs) - i - 1))
		}
		work.Check()
	}
	return size, inter
}
