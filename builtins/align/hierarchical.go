package align

import (
	"math"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// Hierarchical alignment (Weber 3.3.1, Algorithm 2) with the score
// correction of 3.4.2 and the error measure of 3.5.3.

// Tree is a call tree in pre-order: node 0 is the virtual root ε, the
// children of node i are i+1, End[i+1], ... while < End[i]. Sym holds the
// symbol of each node (ignored for node 0).
type Tree struct {
	Sym []int32
	End []int32
}

func (t *Tree) children(i int32, buf []int32) []int32 {
	buf = buf[:0]
	for j := i + 1; j < t.End[i]; j = t.End[j] {
		buf = append(buf, j)
	}
	return buf
}

// Preorder returns the symbols of all nodes but ε in pre-order: the flat
// function sequence of Fig. 3.2.
func (t *Tree) Preorder() []int32 { return t.Sym[1:] }

// Euler returns Weber's flat sequence of the 3.4 examples: a node is listed
// when it is entered and again after each of its children returns (the
// "parts" of a function, Fig. 3.22), ε omitted.
func (t *Tree) Euler() []int32 {
	var out []int32
	var walk func(i int32)
	walk = func(i int32) {
		out = append(out, t.Sym[i])
		for j := i + 1; j < t.End[i]; j = t.End[j] {
			walk(j)
			out = append(out, t.Sym[i])
		}
	}
	for j := int32(1); j < t.End[0]; j = t.End[j] {
		walk(j)
	}
	return out
}

// Hier is the aligned call tree: one entry per aligned node pair in
// pre-order of the aligned tree. NodeA/NodeB are node indexes of the input
// trees (-1 for a gap, and for the missing side of the Diff children that
// StopAtDiff marks without aligning them).
type Hier struct {
	NodeA, NodeB []int32
	State        []State
	Depth        []int32 // 1 for top-level calls
	End          []int32 // one past the last pair of the subtree
	// Child columns of each pair's sub-alignment and how many of them are
	// gaps (for the Euler score of 3.4.2).
	Kids, GapKids []int32
	SubAlignments int
	MaxSubLen     int
	Heuristic     bool
	Methods       map[Method]int
}

type haRun struct {
	a, b   *Tree
	o      Options
	h      *Hier
	nodes  *work.Job // progress: tree nodes placed (nil: none)
	placed int64
}

// Hierarchical aligns two call trees by Algorithm 2: the children of two
// aligned nodes are aligned as sequences by the best flat method, and the
// traversal continues with the aligned child pairs; a node aligned to a gap
// brings its whole subtree as gaps. Weber aligns the children of Diff pairs
// too (3.4.1); Options.StopAtDiff reports them as gaps instead.
func Hierarchical(a, b *Tree, opts ...Option) *Hier {
	o := collect("align.Hierarchical", opts)
	defer work.RecoverAs("align.Hierarchical")
	o.nodes = work.Start("align.Hierarchical", int64(len(a.Sym)+len(b.Sym)-2), "nodes")
	defer o.nodes.Done()
	return hierarchical(a, b, o)
}

// hierBytesPerNode is the memory of one aligned pair of a Hier (NodeA,
// NodeB, Depth, End, Kids, GapKids int32 and State).
const hierBytesPerNode = 6*4 + 1

func hierarchical(a, b *Tree, o Options) *Hier {
	nodes := o.nodes
	o.nodes, o.cells = nil, nil // sub-alignments report through the node count
	r := &haRun{a: a, b: b, o: o, h: &Hier{Methods: map[Method]int{}}, nodes: nodes}
	n := len(a.Sym) + len(b.Sym)
	reserve("hierarchical alignment", hierBytesPerNode*int64(n))
	h := r.h
	h.NodeA = make([]int32, 0, n)
	h.NodeB = make([]int32, 0, n)
	h.State = make([]State, 0, n)
	h.Depth = make([]int32, 0, n)
	h.End = make([]int32, 0, n)
	h.Kids = make([]int32, 0, n)
	h.GapKids = make([]int32, 0, n)
	r.alignChildren(0, 0, 0, -1)
	return h
}

func (r *haRun) add(x, y int32, st State, depth int32) int32 {
	h := r.h
	if x >= 0 {
		r.placed++
	}
	if y >= 0 {
		r.placed++
	}
	if len(h.NodeA)&4095 == 0 {
		work.Check()
		r.nodes.Set(r.placed)
	}
	h.NodeA = append(h.NodeA, x)
	h.NodeB = append(h.NodeB, y)
	h.State = append(h.State, st)
	h.Depth = append(h.Depth, depth)
	h.End = append(h.End, 0)
	h.Kids = append(h.Kids, 0)
	h.GapKids = append(h.GapKids, 0)
	return int32(len(h.NodeA) - 1)
}

// gapSubtree adds node x of t and its subtree as gaps (one-sided pairs of
// state GapB for A, GapA for B), or, under a Diff pair with StopAtDiff, as
// one-sided pairs of state Diff.
func (r *haRun) gapSubtree(t *Tree, x int32, depth int32, inA, diff bool) {
	base := depth - 1
	var stack []int32 // pair indexes of the open ancestors
	// Pre-order layout: the subtree is the node range [x, End[x]).
	for i := x; i < t.End[x]; i++ {
		for len(stack) > 0 && i >= t.End[r.nodeOf(stack[len(stack)-1], inA)] {
			p := stack[len(stack)-1]
			r.h.End[p] = int32(len(r.h.NodeA))
			stack = stack[:len(stack)-1]
		}
		d := base + 1 + int32(len(stack))
		var p int32
		switch {
		case inA && diff:
			p = r.add(i, -1, Diff, d)
		case inA:
			p = r.add(i, -1, GapB, d)
		case diff:
			p = r.add(-1, i, Diff, d)
		default:
			p = r.add(-1, i, GapA, d)
		}
		r.h.Kids[p] = int32(countChildren(t, i))
		r.h.GapKids[p] = r.h.Kids[p]
		stack = append(stack, p)
	}
	for len(stack) > 0 {
		r.h.End[stack[len(stack)-1]] = int32(len(r.h.NodeA))
		stack = stack[:len(stack)-1]
	}
}

func (r *haRun) nodeOf(p int32, inA bool) int32 {
	if inA {
		return r.h.NodeA[p]
	}
	return r.h.NodeB[p]
}

func countChildren(t *Tree, i int32) int {
	n := 0
	for j := i + 1; j < t.End[i]; j = t.End[j] {
		n++
	}
	return n
}

// compare is compareNodes of Algorithm 2 for an aligned pair (x, y).
func (r *haRun) compare(x, y int32, depth int32) {
	st := Equal
	if r.a.Sym[x] != r.b.Sym[y] {
		st = Diff
	}
	p := r.add(x, y, st, depth)
	r.alignChildren(x, y, depth, p)
	r.h.End[p] = int32(len(r.h.NodeA))
}

func (r *haRun) alignChildren(x, y, depth, p int32) {
	a, b := r.a, r.b
	ca := a.children(x, nil)
	cb := b.children(y, nil)
	if len(ca) == 0 && len(cb) == 0 {
		return
	}
	if p >= 0 && r.o.StopAtDiff && r.h.State[p] == Diff {
		// Farah and Schnorr 3.2: the children are not compared "but
		// marked as different": each subtree is listed on its side alone
		// with state Diff (A's first); scored as the gaps they are.
		for _, c := range ca {
			r.gapSubtree(a, c, depth+1, true, true)
		}
		for _, c := range cb {
			r.gapSubtree(b, c, depth+1, false, true)
		}
		r.h.Kids[p] = int32(len(ca) + len(cb))
		r.h.GapKids[p] = r.h.Kids[p]
		return
	}
	sa := make([]int32, len(ca))
	for i, c := range ca {
		sa[i] = a.Sym[c]
	}
	sb := make([]int32, len(cb))
	for i, c := range cb {
		sb[i] = b.Sym[c]
	}
	var ops []Op
	if slices.Equal(sa, sb) {
		ops = appendN(nil, OpDiag, len(sa))
		r.h.Methods[Special]++
	} else {
		var how ran
		ops, how = alignOps(sa, sb, r.o)
		r.h.Methods[how.Method]++
		r.h.Heuristic = r.h.Heuristic || how.Heuristic
	}
	r.h.SubAlignments++
	r.h.MaxSubLen = max(r.h.MaxSubLen, len(sa), len(sb))
	i, j, gaps := 0, 0, 0
	for _, op := range ops {
		switch op {
		case OpDiag:
			r.compare(ca[i], cb[j], depth+1)
			i, j = i+1, j+1
		case OpGapB:
			r.gapSubtree(a, ca[i], depth+1, true, false)
			i++
			gaps++
		case OpGapA:
			r.gapSubtree(b, cb[j], depth+1, false, false)
			j++
			gaps++
		}
	}
	if p >= 0 {
		r.h.Kids[p] = int32(len(ops))
		r.h.GapKids[p] = int32(gaps)
	}
}

// pairScore is the score of aligned pair i: one-sided pairs (gaps, and the
// Diff children of StopAtDiff) score as gaps.
func (h *Hier) pairScore(i int, s Scoring) int {
	if h.oneSided(i) {
		return s.Gap
	}
	return stateScore(h.State[i], s)
}

func (h *Hier) oneSided(i int) bool { return h.NodeA[i] < 0 || h.NodeB[i] < 0 }

func stateScore(st State, s Scoring) int {
	switch st {
	case Equal:
		return s.Match
	case Diff:
		return s.Mismatch
	}
	return s.Gap
}

// Score is the node-level score of the aligned tree (Weber's "HA score",
// 6 in Fig. 3.22(c)). It is also the score of the flat pre-order alignment
// the aligned tree yields, so it compares directly with a flat alignment of
// the pre-order sequences.
func (h *Hier) Score(s Scoring) int {
	s = s.orDefault()
	t := 0
	for i := range h.State {
		t += h.pairScore(i, s)
	}
	return t
}

// EulerScore is the score of the aligned tree in Weber's flat sequences of
// function parts (Tree.Euler): an aligned pair has one part on entry and
// one after each child column of its sub-alignment. Uncorrected, every part
// takes the pair's state (16 in Fig. 3.22(c)); corrected (3.4.2), for each
// gap among the children of a node below the top level one part counts as
// a gap, the missing calling code (13 in Figs. 3.22/3.25, -5 in Fig. 3.24,
// 6 in Fig. 3.23). The corrected score compares with a flat alignment of
// the Euler sequences.
func (h *Hier) EulerScore(s Scoring, corrected bool) int {
	s = s.orDefault()
	t := 0
	for i := range h.State {
		parts := 1 + int(h.Kids[i])
		if h.oneSided(i) || !corrected {
			t += parts * h.pairScore(i, s)
			continue
		}
		g := int(h.GapKids[i])
		t += (parts-g)*h.pairScore(i, s) + g*s.Gap
	}
	return t
}

// EulerOps is the alignment of the two Euler sequences (Tree.Euler) that
// the aligned tree yields with the correction of 3.4.2: a two-sided pair
// aligns its entry part and, after each child column, its next part
// diagonally when the child is two-sided, and as a gap on the side that
// has the child otherwise (the calling code the other side lacks);
// one-sided pairs bring all their parts as gaps. Its score is
// EulerScore(s, true), so that score is always reachable by a flat
// alignment of the Euler sequences and never exceeds their optimum.
func (h *Hier) EulerOps() []Op {
	ops := make([]Op, 0, 2*len(h.State))
	side := func(i int32) Op {
		switch {
		case h.NodeB[i] < 0:
			return OpGapB
		case h.NodeA[i] < 0:
			return OpGapA
		}
		return OpDiag
	}
	var walk func(p int32)
	walk = func(p int32) {
		op := side(p)
		ops = append(ops, op)
		for c := p + 1; c < h.End[p]; c = h.End[c] {
			walk(c)
			if op == OpDiag {
				ops = append(ops, side(c))
			} else {
				ops = append(ops, op)
			}
		}
	}
	for p := int32(0); p < int32(len(h.State)); p = h.End[p] {
		walk(p)
	}
	return ops
}

// Ops returns the flat alignment of the two pre-order sequences.
func (h *Hier) Ops() []Op {
	ops := make([]Op, len(h.State))
	for i := range h.State {
		switch {
		case h.NodeA[i] < 0:
			ops[i] = OpGapA
		case h.NodeB[i] < 0:
			ops[i] = OpGapB
		default:
			ops[i] = OpDiag
		}
	}
	return ops
}

// ScoreError is the relative error of a heuristic score against the flat
// optimum (3.5.3): (optimum - score) / |optimum|, 0.103 for Weber's AMG2006
// case (97,957 against 87,871). A relative error is undefined at optimum
// 0: it is 0 for an equal score and +Inf for a lower one (-Inf for a
// higher one, which no valid alignment reaches).
func ScoreError(score, optimum int) float64 {
	if optimum == 0 {
		switch {
		case score == 0:
			return 0
		case score < 0:
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	d := float64(optimum - score)
	if optimum < 0 {
		return d / float64(-optimum)
	}
	return d / float64(optimum)
}
