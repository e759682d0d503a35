package msa

import (
	"errors"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/internal/mix"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Hierarchical MSA (Weber 5.2.2, Algorithm 7) over call trees, producing a
// merged call tree.
//
// Processes with identical call trees are grouped first and aligned once
// (Stage 1 of Table 5.9). Below that, at every merged node, participants
// whose subtrees are identical are collapsed into one class too, so each
// distinct subtree is traversed and aligned once however many processes
// share it. A class is either a set of processes (Stage 1, based at their
// roots) or a list of items of earlier classes; an item (class, offset)
// stands for node base+offset of every member, which works because
// identical subtrees have identical pre-order layouts.

// item is a participant of a merged node: node base+off of every member
// of class cls.
type item struct {
	cls int32
	off int32
}

type class struct {
	rep     int32 // representative process (index into Tree.procs)
	repBase int32 // the representative's node that offsets count from
	size    int32 // processes
	procs   []int32
	items   []item
}

// Stats are the inclusive times of the invocations of one merged node, one
// per participating process.
type Stats struct {
	Min, Median, Max int64 // ns; Median is the lower median
	// Slowest is the index (in the group as given) of the process with
	// Max; of several, the first in the stable order (run, kind, thread,
	// rank), whatever the order of the group.
	Slowest int
}

// Tree is the merged call tree of a group of processes (Weber Figure
// 5.12): nodes in pre-order, node 0 the virtual root ε; each node has a
// region (several for a Different node), a state, the processes that take
// part and the statistics of their inclusive times.
type Tree struct {
	// procs are the processes in the stable order of labels.Runs.Compare
	// (run, kind, thread, rank), which every step of the merge follows, so
	// the tree does not depend on the order they were given in; input is
	// that order, and inputPos[i] the input position of procs[i].
	procs    []*trace.Process
	input    []*trace.Process
	inputPos []int32
	runs     *labels.Runs
	trees    []*trace.CallTree
	symOf    [][]int32 // per process: region id -> symbol; nil when symbols are region ids
	names    []string  // symbol names
	hash     [][]uint64
	opt      options
	fn       string  // the builtin that merges, for errors
	stage1Of []int32 // per process: its Stage-1 class (repOf), when needed

	classes []class
	stage1  int       // classes[:stage1] are the Stage-1 classes
	place   [][]int32 // per Stage-1 class: merged node of each call-tree node

	// scratch of column
	gid    []int32
	groups []colGroup
	byHash map[uint64][]int32

	parent, depth, end []int32
	state              []State
	sym                []int32           // the node's (first) symbol
	syms               map[int32][]int32 // all symbols of Different nodes
	count              []int32
	itemLo, itemHi     []int32 // items of node i: items[itemLo[i]:itemHi[i]]
	items              []item
	stats              []Stats

	stage   [5]time.Duration
	msas    int // non-trivial MSAs
	maxRows int
	al      aligner
	placed  int64
	total   int64
	job     *work.Job
}

// Align aligns the call trees of procs into one merged call tree by
// hierarchical multiple sequence alignment with the default options (see
// Group).
func Align(procs ...*trace.Process) *Tree { return group("msa.Align", procs, nil) }

// Merge is Align.
//
// Deprecated: use Align (Merge names the merge of partials everywhere).
func Merge(procs ...*trace.Process) *Tree { return group("msa.Merge", procs, nil) }

// Merged is Tree.
//
// Deprecated: use Tree.
type Merged = Tree

// Group merges the call trees of procs (for example a structural cluster's
// group, c.Group(i)) into one merged call tree by hierarchical MSA
// (Weber Algorithm 7). Options: WithGuide, WithMatrixLimit (GuideAuto
// builds the similarity matrix for up to that many distinct child
// sequences at a node, 250 by default), WithScoring, WithMethod.
// Regions are identified by name, so processes of different traces merge.
// Long merges show progress and stop when the cell is interrupted.
func Group(procs []*trace.Process, opts ...Option) *Tree {
	return group("msa.Group", procs, opts)
}

func group(fn string, procs []*trace.Process, opts []Option) *Tree {
	o := collect(fn, opts)
	if len(procs) == 0 {
		fail(fn, "no processes to merge")
	}
	seen := make(map[*trace.Process]int, len(procs))
	for i, p := range procs {
		if p == nil {
			fail(fn, "process %d is nil", i)
		}
		if j, ok := seen[p]; ok {
			fail(fn, "process %s is given twice (positions %d and %d)", p.Label(), j, i)
		}
		seen[p] = i
	}
	defer work.RecoverAs(fn)
	m := &Tree{fn: fn, input: procs, opt: o, al: aligner{o: o.align}}
	m.order()
	m.build()
	return m
}

// order sorts the processes into the stable order of labels.Runs.Compare.
func (m *Tree) order() {
	m.runs = labels.NewRuns(m.input)
	pos := m.runs.Order(m.input)
	m.inputPos = pos
	m.procs = make([]*trace.Process, len(pos))
	for i, k := range pos {
		m.procs[i] = m.input[k]
	}
}

func (m *Tree) build() {
	n := len(m.procs)
	m.trees = make([]*trace.CallTree, n)
	var total int64
	dist := m.remote(m.fn)
	if dist != nil {
		// Stage 1 on the job, then the representatives' trees here: the
		// merge reads no other tree.
		m.symbols()
		t0 := time.Now()
		m.groupEqual(dist)
		m.stage[0] = time.Since(t0)
		for c := 0; c < m.stage1; c++ {
			total += int64(m.classes[c].size) * int64(m.trees[m.classes[c].rep].Len())
		}
	} else {
		for i, p := range m.procs {
			if i&1023 == 1023 {
				work.Check()
			}
			m.trees[i] = p.CallTree()
			total += int64(m.trees[i].Len())
		}
	}
	m.total = total
	// Subtree hashes (8 bytes per node of the distinct trees), the
	// placement of every call (4), the time statistics' buffer (8) and the
	// merged tree's items, bounded by 4 more per call.
	if err := work.Reserve("msa: merged call tree", 24*total); err != nil {
		panic(err)
	}
	m.job = work.Start("msa: merging "+arrowio.FormatCount(int64(n))+" call trees", total, "nodes")
	defer m.job.Done()
	if dist == nil {
		m.symbols()
		t0 := time.Now()
		m.groupEqual(nil)
		m.stage[0] = time.Since(t0)
	}

	t1 := time.Now()
	m.syms = map[int32][]int32{}
	m.byHash = map[uint64][]int32{}
	root := m.addNode(-1, 0, -1)
	for c := range m.classes {
		m.items = append(m.items, item{int32(c), 0})
	}
	m.itemHi[root] = int32(len(m.items))
	m.count[root] = int32(n)
	m.state[root] = Equal
	m.placed += int64(n)
	m.visit(root)
	m.end[root] = int32(len(m.parent))
	m.stage[3] = time.Since(t1) - m.stage[1] - m.stage[2]

	t4 := time.Now()
	m.placeClasses()
	if dist != nil {
		m.remoteStats(m.fn, dist)
	} else {
		m.computeStats()
	}
	m.stage[4] = time.Since(t4)
}

// symbols maps the processes' region ids to symbols. Regions are identified
// by name, within a trace as across traces: two regions of one name are
// one symbol. When all processes come from one trace whose region names
// are distinct, the symbols are the region ids themselves; otherwise names
// are numbered in order of first appearance (traces in the processes'
// stable order, regions in definition order).
func (m *Tree) symbols() {
	tr := m.procs[0].Trace
	same := true
	for _, p := range m.procs {
		same = same && p.Trace == tr
	}
	if same {
		distinct := true
		if tr != nil {
			seen := make(map[string]bool, len(tr.Defs.Regions))
			for _, r := range tr.Defs.Regions {
				distinct = distinct && !seen[r.Name]
				seen[r.Name] = true
			}
		}
		if distinct {
			if tr != nil {
				for _, r := range tr.Defs.Regions {
					m.names = append(m.names, r.Name)
				}
			}
			m.symOf = nil
			return
		}
	}
	sy := newSymbols()
	byTrace := map[*trace.Trace][]int32{}
	m.symOf = make([][]int32, len(m.procs))
	for i, p := range m.procs {
		mp, ok := byTrace[p.Trace]
		if !ok {
			if p.Trace != nil {
				for id := range p.Trace.Defs.Regions {
					mp = append(mp, sy.ID(p.Trace.RegionName(int32(id))))
				}
			}
			byTrace[p.Trace] = mp
		}
		m.symOf[i] = mp
	}
	m.names = sy.Names
}

// symAt returns the symbol of node x of process p (-1 for ε).
func (m *Tree) symAt(p int32, x int32) int32 {
	t := m.trees[p]
	if t == nil { // a process of a distributed trace: its Stage-1 representative's tree is its own
		p = m.repOf(p)
		t = m.trees[p]
	}
	r := t.Region[x]
	if r < 0 {
		return -1
	}
	if m.symOf == nil {
		if int(r) >= len(m.names) {
			m.extendNames(r)
		}
		return r
	}
	mp := m.symOf[p]
	if int(r) < len(mp) {
		return mp[r]
	}
	return m.unknown(p, r)
}

// extendNames names region ids beyond the definitions (hand-built
// processes) "<region id>".
func (m *Tree) extendNames(r int32) {
	for int32(len(m.names)) <= r {
		m.names = append(m.names, m.procs[0].RegionName(int32(len(m.names))))
	}
}

func (m *Tree) unknown(p, r int32) int32 {
	name := m.procs[p].RegionName(r)
	for i, s := range m.names {
		if s == name {
			return int32(i)
		}
	}
	m.names = append(m.names, name)
	return int32(len(m.names) - 1)
}

// Subtree hashes: h[i] mixes node i's symbol with its children's hashes
// in order, so equal hashes mean equal subtrees but for collisions, which
// exact comparisons rule out.
func (m *Tree) hashTree(p int32, h []uint64) []uint64 {
	t := m.trees[p]
	n := t.Len()
	if cap(h) < n {
		h = make([]uint64, n)
	}
	h = h[:n]
	for i := n - 1; i >= 0; i-- {
		acc := uint64(m.symAt(p, int32(i))+2) * 0x9e3779b97f4a7c15
		for j := i + 1; j < int(t.End[i]); j = int(t.End[j]) {
			acc = bits.RotateLeft64(acc, 23) ^ h[j]
			acc *= 0xff51afd7ed558ccd
		}
		h[i] = mix.Mix64(acc ^ uint64(t.End[i]-int32(i)))
	}
	return h
}

// sameSubtree reports whether node x of p and node y of q root identical
// subtrees (symbols and shape).
func (m *Tree) sameSubtree(p, x, q, y int32) bool {
	a, b := m.trees[p], m.trees[q]
	n := a.End[x] - x
	if b.End[y]-y != n {
		return false
	}
	if m.symOf == nil {
		if !slices.Equal(a.Region[x:x+n], b.Region[y:y+n]) {
			return false
		}
	} else {
		for k := int32(0); k < n; k++ {
			if m.symAt(p, x+k) != m.symAt(q, y+k) {
				return false
			}
		}
	}
	for k := int32(0); k < n; k++ {
		if a.End[x+k]-x != b.End[y+k]-y {
			return false
		}
	}
	return true
}

// groupEqual is Stage 1 of Table 5.9: processes with identical call trees
// form one class, aligned once. Processes of one trace are grouped by the
// method of the partial contract (Stage1Method), one subset per core,
// merged as groupings of different machines would be; a group of processes
// of several traces in two halves, one per core, the two groupings merged
// the same way.
func (m *Tree) groupEqual(dist *trace.Trace) {
	n := len(m.procs)
	if tr, pos := m.oneTrace(); tr != nil {
		m.classes = m.stage1Classes(tr, pos)
		if dist != nil {
			m.fetchReps(m.fn, dist)
		}
	} else {
		roots := make([]uint64, n)
		halves(n, func(lo, hi int) {
			var h []uint64
			for p := lo; p < hi; p++ {
				if p&255 == 255 {
					work.Check()
				}
				h = m.hashTree(int32(p), h)
				roots[p] = h[0]
			}
		})
		var parts [2][]class
		if n < 64 {
			parts[0] = m.equalClasses(seq(0, n), roots)
		} else {
			halves(n, func(lo, hi int) {
				k := 0
				if lo > 0 {
					k = 1
				}
				parts[k] = m.equalClasses(seq(lo, hi), roots)
			})
		}
		m.classes = m.mergeClasses(parts[0], parts[1], roots)
	}
	m.stage1 = len(m.classes)
	m.hash = make([][]uint64, n)
	reps := make([]int32, len(m.classes))
	for c := range m.classes {
		reps[c] = m.classes[c].rep
	}
	halves(len(reps), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			if c&255 == 255 {
				work.Check()
			}
			m.hash[reps[c]] = m.hashTree(reps[c], nil)
		}
	})
}

// oneTrace returns the trace of all processes, if they have one, and the
// position in m.procs of each of its processes by index (-1: not in the
// group); nil if they come from several traces or none.
func (m *Tree) oneTrace() (*trace.Trace, []int32) {
	tr := m.procs[0].Trace
	if tr == nil {
		return nil, nil
	}
	all := tr.Processes()
	pos := make([]int32, len(all))
	for i := range pos {
		pos[i] = -1
	}
	for i, p := range m.procs {
		if p.Trace != tr || p.Index < 0 || p.Index >= len(all) || all[p.Index] != p || pos[p.Index] >= 0 {
			return nil, nil
		}
		pos[p.Index] = int32(i)
	}
	return tr, pos
}

// stage1Classes runs Stage1Method over the group's processes of tr (in
// trace order, one subset per core) and turns its classes into classes of
// positions in m.procs, ordered by first member as equalClasses orders
// them.
func (m *Tree) stage1Classes(tr *trace.Trace, pos []int32) []class {
	byIndex := make([]*trace.Process, 0, len(m.procs))
	for i, k := range pos {
		if k >= 0 {
			byIndex = append(byIndex, tr.Process(i))
		}
	}
	p, err := part.RunRound(tr, byIndex, Stage1Method(), 0, nil)
	if err != nil {
		// Interrupts and memory shortages continue as work's own stops,
		// which the caller's RecoverAs names after the builtin.
		var we *work.Error
		if errors.As(err, &we) && work.StopError(we.Err) != nil {
			panic(we.Err)
		}
		panic(err)
	}
	cs := p.(*Classes)
	out := make([]class, len(cs.cls))
	for k, cl := range cs.cls {
		procs := make([]int32, len(cl.members))
		for i, x := range cl.members {
			procs[i] = pos[x]
		}
		slices.Sort(procs)
		out[k] = class{rep: procs[0], size: int32(len(procs)), procs: procs}
	}
	slices.SortFunc(out, func(x, y class) int { return int(x.procs[0]) - int(y.procs[0]) })
	return out
}

func seq(lo, hi int) []int32 {
	out := make([]int32, hi-lo)
	for i := range out {
		out[i] = int32(lo + i)
	}
	return out
}

// equalClasses groups procs (ascending) by identical call trees: by root
// hash, confirmed by exact comparison. Each class's representative is its
// first member.
func (m *Tree) equalClasses(procs []int32, roots []uint64) []class {
	var classes []class
	byHash := map[uint64][]int32{}
	for i, p := range procs {
		if i&1023 == 1023 {
			work.Check()
		}
		found := false
		for _, c := range byHash[roots[p]] {
			cl := &classes[c]
			if m.sameSubtree(cl.rep, 0, p, 0) {
				cl.procs = append(cl.procs, p)
				cl.size++
				found = true
				break
			}
		}
		if !found {
			byHash[roots[p]] = append(byHash[roots[p]], int32(len(classes)))
			classes = append(classes, class{rep: p, size: 1, procs: []int32{p}})
		}
	}
	return classes
}

// mergeClasses merges the groupings of two disjoint sets of processes: a
// class of b joins the class of a with an identical representative tree,
// or stays a class of its own. The result is ordered by first member, so
// it equals the grouping of the union.
func (m *Tree) mergeClasses(a, b []class, roots []uint64) []class {
	out := slices.Clone(a)
	byHash := map[uint64][]int32{}
	for c := range out {
		h := roots[out[c].rep]
		byHash[h] = append(byHash[h], int32(c))
	}
	for _, cb := range b {
		found := false
		for _, c := range byHash[roots[cb.rep]] {
			if m.sameSubtree(out[c].rep, 0, cb.rep, 0) {
				ca := &out[c]
				ca.procs = append(slices.Clone(ca.procs), cb.procs...)
				slices.Sort(ca.procs)
				ca.rep, ca.size = ca.procs[0], ca.size+cb.size
				found = true
				break
			}
		}
		if !found {
			byHash[roots[cb.rep]] = append(byHash[roots[cb.rep]], int32(len(out)))
			out = append(out, cb)
		}
	}
	slices.SortFunc(out, func(x, y class) int { return int(x.procs[0]) - int(y.procs[0]) })
	return out
}

func (m *Tree) addNode(parent, depth int32, sym int32) int32 {
	id := int32(len(m.parent))
	m.parent = append(m.parent, parent)
	m.depth = append(m.depth, depth)
	m.end = append(m.end, 0)
	m.state = append(m.state, Equal)
	m.sym = append(m.sym, sym)
	m.count = append(m.count, 0)
	m.itemLo = append(m.itemLo, int32(len(m.items)))
	m.itemHi = append(m.itemHi, int32(len(m.items)))
	return id
}

// repNode returns the representative's node of it.
func (m *Tree) repNode(it item) (p, x int32) {
	c := &m.classes[it.cls]
	return c.rep, c.repBase + it.off
}

// rowsOf groups the items of node v by their children's symbol
// sequences: the distinct sequences, their weights (processes), and the
// row of each item.
func (m *Tree) rowsOf(its []item) (seqs [][]int32, w []int64, row []int32) {
	row = make([]int32, len(its))
	byHash := map[uint64][]int32{}
	var buf []int32
	for k, it := range its {
		p, x := m.repNode(it)
		t := m.trees[p]
		buf = buf[:0]
		hv := uint64(0x51ed27)
		for j := x + 1; j < t.End[x]; j = t.End[j] {
			s := m.symAt(p, j)
			buf = append(buf, s)
			hv = (bits.RotateLeft64(hv, 17) ^ uint64(s+2)) * 0x9e3779b97f4a7c15
		}
		r := int32(-1)
		for _, c := range byHash[hv] {
			if slices.Equal(seqs[c], buf) {
				r = c
				break
			}
		}
		if r < 0 {
			r = int32(len(seqs))
			byHash[hv] = append(byHash[hv], r)
			seqs = append(seqs, slices.Clone(buf))
			w = append(w, 0)
		}
		row[k] = r
		w[r] += int64(m.classes[it.cls].size)
	}
	return seqs, w, row
}

// alignRows is the MSA of one node's child sequences: the column of each
// symbol of each row and the number of columns.
func (m *Tree) alignRows(seqs [][]int32, w []int64) ([][]int32, int) {
	if len(seqs) == 1 {
		cols := make([]int32, len(seqs[0]))
		for i := range cols {
			cols[i] = int32(i)
		}
		return [][]int32{cols}, len(cols)
	}
	m.msas++
	m.maxRows = max(m.maxRows, len(seqs))
	t0 := time.Now()
	gi := guideOrder(seqs, w, m.opt.guide, m.opt.limit)
	t1 := time.Now()
	cols, width := progressive(seqs, gi.steps, &m.al)
	m.stage[1] += t1.Sub(t0)
	m.stage[2] += time.Since(t1)
	return cols, width
}

// visit is compareNodes of Algorithm 7 for merged node v: the children of
// its participants are aligned by MSA and the traversal continues with
// each aligned column.
func (m *Tree) visit(v int32) {
	its := m.items[m.itemLo[v]:m.itemHi[v]]
	hasKids := false
	for _, it := range its {
		p, x := m.repNode(it)
		if m.trees[p].End[x] > x+1 {
			hasKids = true
			break
		}
	}
	if !hasKids {
		return
	}
	if len(m.parent)&255 == 0 {
		work.Check()
		m.job.Set(m.placed)
	}
	seqs, w, row := m.rowsOf(its)
	cols, width := m.alignRows(seqs, w)

	// Participants of each column: the k-th child of every item of a row
	// whose k-th symbol is in that column.
	start := make([]int32, width+1)
	for k := range its {
		for _, c := range cols[row[k]] {
			start[c+1]++
		}
	}
	for c := 1; c <= width; c++ {
		start[c] += start[c-1]
	}
	fill := slices.Clone(start[:width])
	bucket := make([]colPart, start[width])
	for k, it := range its {
		p, x := m.repNode(it)
		t := m.trees[p]
		base := m.classes[it.cls].repBase
		ci := 0
		r := row[k]
		rc, rs := cols[r], seqs[r]
		for j := x + 1; j < t.End[x]; {
			c := rc[ci]
			e := t.End[j]
			bucket[fill[c]] = colPart{item{it.cls, j - base}, rs[ci], e == j+1}
			fill[c]++
			ci++
			j = e
		}
	}
	for c := 0; c < width; c++ {
		col := bucket[start[c]:start[c+1]]
		u := m.addNode(v, m.depth[v]+1, -1)
		m.column(u, col)
		m.visit(u)
		m.end[u] = int32(len(m.parent))
	}
}

// colPart is a participant of a column: an item with the symbol of its node
// and whether that node is a leaf (read while bucketing, so that the
// column needs no further look at the call trees for leaves).
type colPart struct {
	it   item
	sym  int32
	leaf bool
}

// colGroup is a set of a column's participants with identical subtrees.
type colGroup struct {
	sym  int32
	leaf bool
	rep  item
	n    int32
}

// column fills merged node u from its participants: collapses those with
// identical subtrees into one class, and sets symbols, count and state.
func (m *Tree) column(u int32, col []colPart) {
	n := int32(len(m.procs))
	var count int32
	first := int32(-1)
	var more []int32
	gid := m.gid[:0]
	groups := m.groups[:0]
	clear(m.byHash)
	for _, pt := range col {
		it := pt.it
		count += m.classes[it.cls].size
		s := pt.sym
		switch {
		case first < 0:
			first = s
		case s != first && !slices.Contains(more, s):
			more = append(more, s)
		}
		g := int32(-1)
		if pt.leaf { // a leaf: its symbol is its subtree
			for k := range groups {
				if groups[k].leaf && groups[k].sym == s {
					g = int32(k)
					break
				}
			}
		} else {
			p, x := m.repNode(it)
			h := m.hash[p][x]
			for _, k := range m.byHash[h] {
				q, y := m.repNode(groups[k].rep)
				if m.sameSubtree(q, y, p, x) {
					g = k
					break
				}
			}
			if g < 0 {
				m.byHash[h] = append(m.byHash[h], int32(len(groups)))
			}
		}
		if g < 0 {
			g = int32(len(groups))
			groups = append(groups, colGroup{sym: s, leaf: pt.leaf, rep: it})
		}
		groups[g].n++
		gid = append(gid, g)
	}
	out := make([][]item, len(groups))
	for g := range groups {
		if groups[g].n > 1 {
			out[g] = make([]item, 0, groups[g].n)
		}
	}
	for k, pt := range col {
		if g := gid[k]; groups[g].n > 1 {
			out[g] = append(out[g], pt.it)
		}
	}
	for g, gr := range groups {
		if gr.n == 1 {
			m.items = append(m.items, gr.rep)
			continue
		}
		p, x := m.repNode(gr.rep)
		var size int32
		for _, it := range out[g] {
			size += m.classes[it.cls].size
		}
		m.classes = append(m.classes, class{rep: p, repBase: x, size: size, items: out[g]})
		m.items = append(m.items, item{int32(len(m.classes) - 1), 0})
	}
	m.gid, m.groups = gid, groups
	m.itemHi[u] = int32(len(m.items))
	m.sym[u] = first
	if len(more) > 0 {
		all := append([]int32{first}, more...)
		slices.SortFunc(all, func(a, b int32) int { return strings.Compare(m.names[a], m.names[b]) })
		m.syms[u] = all
		m.sym[u] = all[0]
	}
	m.count[u] = count
	m.placed += int64(count)
	switch {
	case len(more) > 0:
		m.state[u] = Different
	case count < n:
		m.state[u] = Gap
	default:
		m.state[u] = Equal
	}
}
