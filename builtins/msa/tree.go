package msa

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// NumNodes returns the number of merged nodes, the root ε included.
func (m *Tree) NumNodes() int { return len(m.parent) }

// NumProcesses returns the number of merged processes.
func (m *Tree) NumProcesses() int { return len(m.procs) }

// Processes returns the merged processes in input order (shared; do not
// modify).
func (m *Tree) Processes() []*trace.Process { return m.input }

func (m *Tree) check(fn string, v int) {
	if v < 0 || v >= len(m.parent) {
		fail(fn, "node %d out of range (the merged tree has %d nodes, 0..%d)", v, len(m.parent), len(m.parent)-1)
	}
}

// Parent returns the parent of node v (-1 for the root).
func (m *Tree) Parent(v int) int { m.check("msa.Tree.Parent", v); return int(m.parent[v]) }

// Depth returns the depth of node v (0 for the root, 1 for top-level calls).
func (m *Tree) Depth(v int) int { m.check("msa.Tree.Depth", v); return int(m.depth[v]) }

// Children returns the children of node v in order.
func (m *Tree) Children(v int) []int {
	m.check("msa.Tree.Children", v)
	var out []int
	for c := int32(v) + 1; c < m.end[v]; c = m.end[c] {
		out = append(out, int(c))
	}
	return out
}

// State returns the state of node v.
func (m *Tree) State(v int) State { m.check("msa.Tree.State", v); return m.state[v] }

// Regions returns the region names of node v: one, or several for a
// Different node ("ε" for the root).
func (m *Tree) Regions(v int) []string {
	m.check("msa.Tree.Regions", v)
	if ss, ok := m.syms[int32(v)]; ok {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = m.names[s]
		}
		return out
	}
	return []string{m.symName(m.sym[v])}
}

func (m *Tree) symName(s int32) string {
	if s < 0 {
		return "ε"
	}
	return m.names[s]
}

// Region returns the region name of node v, the names joined by " | " for
// a Different node.
func (m *Tree) Region(v int) string { return strings.Join(m.Regions(v), " | ") }

// Count returns the number of processes taking part in node v.
func (m *Tree) Count(v int) int { m.check("msa.Tree.Count", v); return int(m.count[v]) }

// Members returns the indexes (in the group as given) of the processes
// taking part in node v, ascending.
func (m *Tree) Members(v int) []int {
	m.check("msa.Tree.Members", v)
	out := make([]int, 0, m.count[v])
	m.participants(int32(v), func(p, _ int32) { out = append(out, int(m.inputPos[p])) })
	slices.Sort(out)
	return out
}

// Participants returns the processes taking part in node v, in group order.
func (m *Tree) Participants(v int) []*trace.Process {
	idx := m.Members(v)
	out := make([]*trace.Process, len(idx))
	for i, p := range idx {
		out[i] = m.input[p]
	}
	return out
}

// Alternatives returns the regions of node v (several for a Different
// node, sorted by name) and, for each, the indexes (in the group as
// given, ascending) of the processes that call it there.
func (m *Tree) Alternatives(v int) (regions []string, members [][]int) {
	m.check("msa.Tree.Alternatives", v)
	regions = m.Regions(v)
	members = make([][]int, len(regions))
	syms := m.symsOf(int32(v))
	m.participants(int32(v), func(p, x int32) {
		k := 0
		if len(syms) > 1 {
			k = slices.Index(syms, m.symAt(p, x))
		}
		members[k] = append(members[k], int(m.inputPos[p]))
	})
	for _, ms := range members {
		slices.Sort(ms)
	}
	return regions, members
}

// symsOf returns the symbols of node v: one, or a Different node's
// (sorted by name).
func (m *Tree) symsOf(v int32) []int32 {
	if ss, ok := m.syms[v]; ok {
		return ss
	}
	return []int32{m.sym[v]}
}

// Stats returns the inclusive-time statistics of node v over its
// participating processes (one invocation each).
func (m *Tree) Stats(v int) Stats { m.check("msa.Tree.Stats", v); return m.stats[v] }

// Path returns the merged nodes process p takes part in, in pre-order
// (its call tree, placed in the merged tree), and for each the node of p's
// call tree. It panics if p is not one of the merged processes.
func (m *Tree) Path(p *trace.Process) (nodes []int, calls []int) {
	pi := m.indexOf("msa.Tree.Path", p)
	for s := 0; s < m.stage1; s++ {
		if _, ok := slices.BinarySearch(m.classes[s].procs, pi); ok {
			// Identical call trees are placed identically, and the merged
			// tree keeps each process's pre-order.
			nodes, calls = make([]int, len(m.place[s])), make([]int, len(m.place[s]))
			for x, v := range m.place[s] {
				nodes[x], calls[x] = int(v), x
			}
			return nodes, calls
		}
	}
	panic("msa: internal error: process in no class")
}

// NodeOf returns the merged node of node x of p's call tree (x = 0, the
// root ε, gives 0).
func (m *Tree) NodeOf(p *trace.Process, x int) int {
	nodes, calls := m.Path(p)
	if x < 0 || x >= len(calls) {
		fail("msa.Tree.NodeOf", "call-tree node %d out of range for %s (%d nodes)", x, p.Label(), len(calls))
	}
	for i, c := range calls {
		if c == x {
			return nodes[i]
		}
	}
	panic("msa: internal error: call-tree node not placed")
}

func (m *Tree) indexOf(fn string, p *trace.Process) int32 {
	for i, q := range m.procs {
		if q == p {
			return int32(i)
		}
	}
	if p == nil {
		fail(fn, "nil process")
	}
	fail(fn, "%s is not one of the %d merged processes", p.Label(), len(m.procs))
	return -1
}

// Find returns the nodes whose regions include name, in pre-order.
func (m *Tree) Find(name string) []int {
	var out []int
	for v := range m.parent {
		if slices.Contains(m.Regions(v), name) {
			out = append(out, v)
		}
	}
	return out
}

// ranges prints processes (indexes into m.procs) as exact ranges of
// labels, at most about limit characters.
func (m *Tree) ranges(idx []int, limit int) string {
	l := m.runs.NewList()
	for _, p := range idx {
		l.Add(m.procs[p])
	}
	return l.String(limit)
}

// classOf returns the Stage-1 class of every process.
func (m *Tree) classOf() []int32 {
	out := make([]int32, len(m.procs))
	for s := 0; s < m.stage1; s++ {
		for _, p := range m.classes[s].procs {
			out[p] = int32(s)
		}
	}
	return out
}

// whichAll returns, for every node, its processes as exact ranges of
// labels ("all" for Equal nodes; for a Different node, the processes of
// each region: "d: rank 0, rank 1 | e: rank 2"): one pass over the
// processes in their stable order.
func (m *Tree) whichAll(limit int) []string {
	nn := len(m.parent)
	acc := make([]*labels.List, nn)
	alt := map[int32]map[int32]*labels.List{} // Different nodes: symbol -> processes
	for v := range acc {
		switch {
		case m.state[v] == Equal:
		case m.state[v] == Different:
			alt[int32(v)] = map[int32]*labels.List{}
		default:
			acc[v] = m.runs.NewListUpTo(limit)
		}
	}
	for p, s := range m.classOf() {
		if p&255 == 255 {
			work.Check()
		}
		for x, v := range m.place[s] {
			switch m.state[v] {
			case Equal:
			case Different:
				sym := m.symAt(int32(p), int32(x))
				l := alt[v][sym]
				if l == nil {
					l = m.runs.NewListUpTo(limit)
					alt[v][sym] = l
				}
				l.Add(m.procs[p])
			default:
				acc[v].Add(m.procs[p])
			}
		}
	}
	out := make([]string, nn)
	for v := range out {
		switch m.state[v] {
		case Equal:
			out[v] = "all"
		case Different:
			syms := m.symsOf(int32(v))
			parts := make([]string, len(syms))
			for k, sym := range syms {
				parts[k] = m.names[sym] + ": " + alt[int32(v)][sym].String(max(limit/len(syms), 24))
			}
			out[v] = strings.Join(parts, " | ")
		default:
			out[v] = acc[v].String(limit)
		}
	}
	return out
}

// Table returns one row per merged node in pre-order: node, parent, depth,
// region (names joined by " | " for a Different node), state, processes
// taking part, their share of the group, which ones (exact lists and
// ranges of labels, "rank 0, rank 2, rank 4" or "rank 1 … rank 15" for
// every rank from 1 to 15, shortened past 80 characters; with the run's
// name when the group holds processes of several runs; per region for a
// Different node, "d: rank 0, rank 1 | e: rank 2"), the minimum, median
// and maximum inclusive time, and the slowest process.
func (m *Tree) Table() *arrowio.Table {
	n := len(m.parent)
	node, parent, depth := make([]int32, n), make([]int32, n), make([]int32, n)
	region, state, slow := make([]string, n), make([]string, n), make([]string, n)
	who := m.whichAll(80)
	count := make([]int64, n)
	share := make([]float64, n)
	mn, md, mx := make([]int64, n), make([]int64, n), make([]int64, n)
	for v := 0; v < n; v++ {
		node[v], parent[v], depth[v] = int32(v), m.parent[v], m.depth[v]
		region[v], state[v] = m.Region(v), m.state[v].String()
		count[v] = int64(m.count[v])
		share[v] = float64(m.count[v]) / float64(len(m.procs))
		st := m.stats[v]
		mn[v], md[v], mx[v] = st.Min, st.Median, st.Max
		if st.Slowest >= 0 {
			slow[v] = m.runs.Label(m.input[st.Slowest])
		}
	}
	return arrowio.MustTable(arrowio.Int32("Node", node), arrowio.Int32("Parent", parent), arrowio.Int32("Depth", depth),
		arrowio.String("Region", region), arrowio.Dict("State", state), arrowio.Int64("Processes", count),
		arrowio.Float64("Share", share), arrowio.String("Which", who),
		arrowio.Int64("Min (ns)", mn).WithUnit("ns"), arrowio.Int64("Median (ns)", md).WithUnit("ns"),
		arrowio.Int64("Max (ns)", mx).WithUnit("ns"), arrowio.String("Slowest", slow))
}

// nodeBlock recomputes the MSA block of node v's children (deterministic:
// the same block the merge aligned).
func (m *Tree) nodeBlock(fn string, v int) *Block {
	m.check(fn, v)
	its := m.items[m.itemLo[v]:m.itemHi[v]]
	seqs, w, row := m.rowsOf(its)
	al := &aligner{o: m.opt.align}
	var cols [][]int32
	var width int
	gi := guideInfo{method: m.opt.guide}
	if len(seqs) == 1 {
		cols, width = m.alignRows(seqs, w)
	} else {
		gi = guideOrder(seqs, w, m.opt.guide, m.opt.limit)
		cols, width = progressive(seqs, gi.steps, al)
	}
	labels := make([]string, len(seqs))
	members := make([][]int, len(seqs))
	for k, it := range its {
		m.members(it.cls, it.off, func(p, _ int32) { members[row[k]] = append(members[row[k]], int(p)) })
	}
	for r := range labels {
		labels[r] = m.ranges(members[r], 40)
		if w[r] > 1 {
			labels[r] += fmt.Sprintf(" (%d)", w[r])
		}
	}
	names := slices.Clone(m.names)
	return &Block{rows: seqs, cols: cols, width: width, names: names, labels: labels, weights: w, guide: gi}
}

// Block returns the MSA block of node v's children as a table: one row
// per distinct child sequence (with the processes that have it), one
// column per aligned column, which is one child node of v.
func (m *Tree) Block(v int) *arrowio.Table { return m.nodeBlock("msa.Tree.Block", v).Table() }

// PlotBlock draws the MSA block of node v's children (Weber Figure 5.10).
func (m *Tree) PlotBlock(v int) *plotting.Figure {
	b := m.nodeBlock("msa.Tree.PlotBlock", v)
	return b.plot(fmt.Sprintf("children of node %d (%s): %d distinct sequences, %d columns", v, m.Region(v), len(b.rows), b.width))
}

// Plot draws the merged call tree as in Weber's Figures 5.14-5.15: each
// node a box with its region and process count, white where every process
// takes part with one region, otherwise coloured by the number of
// processes taking part (dark red: many, light blue: one); Different
// nodes get a red border colour scale too. Trees beyond the drawing's
// limit are cut by depth from the root (see PlotFrom).
func (m *Tree) Plot() *plotting.Figure { return m.PlotFrom(0, -1) }

// PlotFrom draws the subtree of node v down to depth levels below it
// (depth < 0: all).
func (m *Tree) PlotFrom(v, depth int) *plotting.Figure {
	m.check("msa.Tree.PlotFrom", v)
	var nodes []plotting.DAGNode
	var edges [][2]int
	index := map[int32]int{}
	// Breadth-first so that a cut drawing keeps the upper levels.
	queue := []int32{int32(v)}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		index[u] = len(nodes)
		nodes = append(nodes, plotting.DAGNode{Lines: []string{m.Region(int(u)), fmt.Sprintf("%d procs, %s", m.count[u], m.state[u])}, Color: m.nodeColor(u)})
		if u != int32(v) {
			edges = append(edges, [2]int{index[m.parent[u]], index[u]})
		}
		if depth >= 0 && int(m.depth[u]-m.depth[v]) >= depth {
			continue
		}
		for c := u + 1; c < m.end[u]; c = m.end[c] {
			queue = append(queue, c)
		}
	}
	title := fmt.Sprintf("merged call tree of %d processes (%d nodes): white = all equal, colour = processes taking part", len(m.procs), len(m.parent))
	if v != 0 {
		title = fmt.Sprintf("merged call tree below node %d (%s)", v, m.Region(v))
	}
	return plotting.DAG(title, nodes, edges)
}

// nodeColor: white for Equal; otherwise a light-blue (one process) to
// dark-red (all but one) scale by the share of processes taking part, as
// in Figure 5.14; Different nodes in a saturated red.
func (m *Tree) nodeColor(v int32) color.Color {
	switch m.state[v] {
	case Equal:
		return color.White
	case Different:
		return color.RGBA{0xe0, 0x4a, 0x3f, 0xff}
	}
	n := len(m.procs)
	f := 0.0
	if n > 2 {
		f = float64(m.count[v]-1) / float64(n-2)
	}
	lerp := func(a, b uint8) uint8 { return uint8(float64(a) + f*(float64(b)-float64(a))) }
	return color.RGBA{lerp(0x9e, 0xd9), lerp(0xca, 0x6b), lerp(0xe1, 0x5a), 0xff}
}

// Stages returns the time of each stage of the merge as Weber's Table 5.9
// lists them (group equal processes, build guide trees, multiple sequence
// alignment, build merged tree) plus the time statistics this tree adds.
func (m *Tree) Stages() *arrowio.Table {
	names := []string{"group equal processes", "build guide trees", "multiple sequence alignment", "build merged tree", "time statistics"}
	d := make([]int64, len(names))
	for i := range d {
		d[i] = int64(m.stage[i])
	}
	return arrowio.MustTable(arrowio.String("Stage", names), arrowio.Int64("Time (ns)", d).WithUnit("ns"))
}

// StageTimes returns the stage times of Stages.
func (m *Tree) StageTimes() [5]time.Duration { return m.stage }

// Summary counts: distinct call trees (Stage 1), non-trivial MSAs, the
// largest number of distinct sequences in one MSA, pairwise steps.
func (m *Tree) counts() (distinct, msas, maxRows, steps int) {
	for _, c := range m.classes {
		if c.items == nil {
			distinct++
		}
	}
	return distinct, m.msas, m.maxRows, m.al.steps
}

// StateCounts returns the number of nodes per state (root included).
func (m *Tree) StateCounts() (equal, gap, different int) {
	for _, s := range m.state {
		switch s {
		case Equal:
			equal++
		case Gap:
			gap++
		default:
			different++
		}
	}
	return
}

func (m *Tree) headline() string {
	e, g, d := m.StateCounts()
	distinct, msas, maxRows, steps := m.counts()
	s := fmt.Sprintf("merged call tree of %s processes (%s distinct call trees): %s nodes — %s equal, %s gap, %s different; %s MSAs (up to %s sequences, %s pairwise steps)",
		arrowio.FormatCount(int64(len(m.procs))), arrowio.FormatCount(int64(distinct)), arrowio.FormatCount(int64(len(m.parent))),
		arrowio.FormatCount(int64(e)), arrowio.FormatCount(int64(g)), arrowio.FormatCount(int64(d)),
		arrowio.FormatCount(int64(msas)), arrowio.FormatCount(int64(maxRows)), arrowio.FormatCount(int64(steps)))
	if m.al.heur {
		s += "; some pairwise steps used the anchor heuristic (sequences beyond align's budget)"
	}
	return s
}

// String summarises the tree and prints its first levels.
func (m *Tree) String() string {
	var b strings.Builder
	b.WriteString(m.headline())
	b.WriteString("\n")
	shown := 0
	for v := range m.parent {
		if shown == 40 {
			fmt.Fprintf(&b, "… %d more nodes (m.Table())\n", len(m.parent)-shown)
			break
		}
		fmt.Fprintf(&b, "%s%s [%s, %d]\n", strings.Repeat("  ", int(m.depth[v])), m.Region(v), m.state[v], m.count[v])
		shown++
	}
	return b.String()
}

// headRows is the number of Table rows MIMEBundle shows.
const headRows = 20

// MIMEBundle shows the tree as every method's result shows (display.Composition): the
// headline, the first rows of Table (nodes in pre-order) with a note on how many it has; its
// text is String (the headline and the first levels). The figure is left out: drawing a
// merged tree takes about half a second on a notebook's run, so the headline says that Plot
// draws it.
func (m *Tree) MIMEBundle() map[string]any {
	t := m.Table()
	note := ""
	if n := t.NumRows(); n > headRows {
		note = fmt.Sprintf("first %d of %s rows; Table() has them all", headRows, arrowio.FormatCount(int64(n)))
	}
	b := display.Composition{Headline: m.headline() + "\nm.Plot() draws the merged call tree (m.PlotFrom(v, depth) a subtree)",
		Table: t.Head(headRows), Note: note}.MIMEBundle()
	b["text/plain"] = m.String()
	return b
}

// CallPath returns the regions from the root's child down to node v,
// joined by " > " ("main > solve > sort_step").
func (m *Tree) CallPath(v int) string {
	m.check("msa.Tree.CallPath", v)
	var parts []string
	for u := int32(v); u > 0; u = m.parent[u] {
		parts = append(parts, m.Region(int(u)))
	}
	slices.Reverse(parts)
	return strings.Join(parts, " > ")
}

// Divergences returns where the processes part ways: one row per node
// that is not equal relative to its parent, in pre-order. A node is equal
// relative to its parent when every process taking part in the parent
// takes part in it, with one region; so the rows are the tops of gap and
// different subtrees under equal nodes and, below them, every further
// split (main(a(x)), main(a(y)) and main give a, a gap, and x | y below
// it). Each row has the call path, state, how many processes take part
// and which (per region for a Different node), the size of the subtree
// below it, and its median and maximum inclusive time.
func (m *Tree) Divergences() *arrowio.Table {
	var node, depth []int32
	var path, state, who []string
	var count, sub, med, mx []int64
	all := m.whichAll(80)
	for v := 1; v < len(m.parent); v++ {
		if m.state[v] == Equal || m.state[v] == Gap && m.count[v] == m.count[m.parent[v]] {
			continue
		}
		node, depth = append(node, int32(v)), append(depth, m.depth[v])
		path, state = append(path, m.CallPath(v)), append(state, m.state[v].String())
		count = append(count, int64(m.count[v]))
		who = append(who, all[v])
		sub = append(sub, int64(m.end[v])-int64(v))
		med, mx = append(med, m.stats[v].Median), append(mx, m.stats[v].Max)
	}
	return arrowio.MustTable(arrowio.Int32("Node", node), arrowio.Int32("Depth", depth), arrowio.String("Call Path", path),
		arrowio.Dict("State", state), arrowio.Int64("Processes", count), arrowio.String("Which", who),
		arrowio.Int64("Subtree Nodes", sub), arrowio.Int64("Median (ns)", med).WithUnit("ns"), arrowio.Int64("Max (ns)", mx).WithUnit("ns"))
}
