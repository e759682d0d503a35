package cluster

import (
	"fmt"
	"image/color"
	"math/bits"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting"
)

// order returns the nodes top-down: by level, then by first own process
// (nodes without processes last), then by node id.
func (l *Lattice) order() []int32 {
	l.finish()
	out := make([]int32, len(l.nodes))
	for i := range out {
		out[i] = int32(i)
	}
	first := func(n int32) int32 {
		if p := l.nodes[n].procs; len(p) > 0 {
			return slices.Min(p)
		}
		return 1<<31 - 1
	}
	slices.SortFunc(out, func(a, b int32) int {
		na, nb := &l.nodes[a], &l.nodes[b]
		if na.level != nb.level {
			return int(na.level - nb.level)
		}
		if fa, fb := first(a), first(b); fa != fb {
			if fa < fb {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	return out
}

// extents returns, per node, the number of processes at or below it (the
// size of its extent), by OR-ing bitsets of the process-holding nodes
// bottom-up.
func (l *Lattice) extents() []int64 {
	l.finish()
	var holders []int32
	for i := range l.nodes {
		if len(l.nodes[i].procs) > 0 {
			holders = append(holders, int32(i))
		}
	}
	words := (len(holders) + 63) / 64
	set := make([][]uint64, len(l.nodes))
	for k, h := range holders {
		set[h] = make([]uint64, words)
		set[h][k>>6] |= 1 << (k & 63)
	}
	ord := l.order()
	out := make([]int64, len(l.nodes))
	for i := len(ord) - 1; i >= 0; i-- { // children come later in level order
		n := ord[i]
		if set[n] == nil {
			set[n] = make([]uint64, words)
		}
		for _, c := range l.nodes[n].children {
			for k, w := range set[c] {
				set[n][k] |= w
			}
		}
		for k, w := range set[n] {
			for ; w != 0; w &= w - 1 {
				out[n] += int64(len(l.nodes[holders[k*64+bits.TrailingZeros64(w)]].procs))
			}
		}
	}
	return out
}

// Table returns one row per node, top-down: Node, Level (longest path from
// the top), Processes (own), attributes (own, named by the measure: Pairs,
// Pairs+ or Funcs), Intent (all attributes at or above), Extent (processes
// at or below), Parents (node numbers of this table, "0,3"), Members (own
// processes, briefly).
func (l *Lattice) Table() *arrowio.Table {
	ord := l.order()
	pos := make([]int32, len(l.nodes))
	for i, n := range ord {
		pos[n] = int32(i)
	}
	ext := l.extents()
	k := len(ord)
	idx, level, own, attrs, intent := make([]int32, k), make([]int32, k), make([]int64, k), make([]int32, k), make([]int32, k)
	extent := make([]int64, k)
	parents, mem := make([]string, k), make([]string, k)
	for i, n := range ord {
		nd := &l.nodes[n]
		idx[i], level[i] = int32(i), nd.level
		own[i], attrs[i], intent[i], extent[i] = int64(len(nd.procs)), int32(len(nd.own)), nd.size, ext[n]
		var ps []int32
		for _, p := range nd.parents {
			ps = append(ps, pos[p])
		}
		slices.Sort(ps)
		parents[i] = strings.Trim(strings.ReplaceAll(fmt.Sprint(ps), " ", ","), "[]")
		mem[i] = l.members(nd.procs)
	}
	return arrowio.MustTable(arrowio.Int32("Node", idx), arrowio.Int32("Level", level),
		arrowio.Int64("Processes", own), arrowio.Int32(l.measure.column(), attrs),
		arrowio.Int32("Intent", intent), arrowio.Int64("Extent", extent),
		arrowio.String("Parents", parents), arrowio.String("Members", mem))
}

func (l *Lattice) procsOf(ids []int32) []*trace.Process {
	if l.tr == nil {
		return nil
	}
	// ids are Process.Index values: a trace.Subset keeps them global
	byIndex := make(map[int32]*trace.Process, l.tr.NumProcesses())
	for _, p := range l.tr.Processes() {
		byIndex[int32(p.Index)] = p
	}
	var out []*trace.Process
	for _, i := range ids {
		if p, ok := byIndex[i]; ok {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *trace.Process) int { return a.Index - b.Index })
	return out
}

func (l *Lattice) members(ids []int32) string {
	if len(ids) == 0 {
		return ""
	}
	if ps := l.procsOf(ids); ps != nil {
		return members(ps)
	}
	// Process ids without a trace: exact ranges of ids, "[0 … 3, 5] (5)".
	s := slices.Clone(ids)
	slices.Sort(s)
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		switch {
		case len(parts) == 8:
			parts = append(parts, fmt.Sprintf("… (%d more)", len(s)-i))
			i = len(s)
			continue
		case j > i:
			parts = append(parts, fmt.Sprintf("%d … %d", s[i], s[j]))
		default:
			parts = append(parts, fmt.Sprint(s[i]))
		}
		i = j + 1
	}
	out := "[" + strings.Join(parts, ", ") + "]"
	if len(s) > 3 {
		out += fmt.Sprintf(" (%d)", len(s))
	}
	return out
}

// Kind colours of the lattice drawing, as in SC Fig. 6: MPI processes red,
// threads blue, GPU streams turquoise, mixed grey, no processes white.
var (
	colorMPI    = color.RGBA{R: 0xe4, G: 0x6c, B: 0x5f, A: 0xff}
	colorThread = color.RGBA{R: 0x6f, G: 0x9f, B: 0xd8, A: 0xff}
	colorGPU    = color.RGBA{R: 0x4f, G: 0xc3, B: 0xb8, A: 0xff}
	colorMixed  = color.RGBA{R: 0xb0, G: 0xb0, B: 0xb0, A: 0xff}
	colorNone   = color.RGBA{R: 0xfa, G: 0xfa, B: 0xfa, A: 0xff}
)

func (l *Lattice) color(ids []int32) color.Color {
	ps := l.procsOf(ids)
	if len(ps) == 0 {
		return colorNone
	}
	k := Kind(ps[0])
	for _, p := range ps[1:] {
		if Kind(p) != k {
			return colorMixed
		}
	}
	switch k {
	case "MPI rank":
		return colorMPI
	case "thread":
		return colorThread
	}
	return colorGPU
}

// Plot draws the lattice top-down like SC Figs. 5-7: each node with its own
// processes, "procs (n)", and own attributes, "pairs (n)" (or "funcs
// (n)"), coloured by the kind of its processes (MPI ranks red, threads
// blue, GPU streams turquoise, mixed grey).
func (l *Lattice) Plot() *plotting.Figure {
	ord := l.order()
	pos := make([]int, len(l.nodes))
	for i, n := range ord {
		pos[n] = i
	}
	nodes := make([]plotting.DAGNode, len(ord))
	var edges [][2]int
	for i, n := range ord {
		nd := &l.nodes[n]
		var lines []string
		if len(nd.procs) > 0 {
			lines = append(lines, fmt.Sprintf("procs (%d)", len(nd.procs)))
		}
		if len(nd.own) > 0 || len(lines) == 0 {
			lines = append(lines, fmt.Sprintf("%s (%d)", l.measure, len(nd.own)))
		}
		nodes[i] = plotting.DAGNode{Lines: lines, Color: l.color(nd.procs)}
		for _, c := range nd.children {
			edges = append(edges, [2]int{i, pos[c]})
		}
	}
	slices.SortFunc(edges, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	title := fmt.Sprintf("concept lattice (%v): %d nodes, %d groups", l.measure, len(l.nodes), l.groups())
	return plotting.DAG(title, nodes, edges)
}

func (l *Lattice) groups() int {
	n := 0
	for i := range l.nodes {
		if len(l.nodes[i].procs) > 0 {
			n++
		}
	}
	return n
}

// String summarises the lattice and lists its nodes top-down (up to 40).
func (l *Lattice) String() string {
	l.finish()
	var b strings.Builder
	fmt.Fprintf(&b, "concept lattice (%v): %d nodes, %d with processes, %d attributes", l.measure, len(l.nodes), l.groups(), l.dict.len())
	ord := l.order()
	pos := make([]int, len(l.nodes))
	for i, n := range ord {
		pos[n] = i
	}
	for i, n := range ord {
		if i == 40 {
			fmt.Fprintf(&b, "\n… %d more nodes (l.Table() lists all)", len(ord)-40)
			break
		}
		nd := &l.nodes[n]
		var ps []int
		for _, p := range nd.parents {
			ps = append(ps, pos[p])
		}
		slices.Sort(ps)
		fmt.Fprintf(&b, "\nnode %d (level %d): procs (%d) %v (%d)", i, nd.level, len(nd.procs), l.measure, len(nd.own))
		if m := l.members(nd.procs); m != "" {
			b.WriteString(" " + m)
		}
		if len(ps) > 0 {
			fmt.Fprintf(&b, ", below %v", ps)
		}
	}
	return b.String()
}

// MIMEBundle renders the drawing, with the text form.
func (l *Lattice) MIMEBundle() map[string]any {
	out := l.Plot().MIMEBundle()
	out["text/plain"] = l.String()
	return out
}

// MIMEMetadata is the drawing's display metadata.
func (l *Lattice) MIMEMetadata() map[string]any { return l.Plot().MIMEMetadata() }
