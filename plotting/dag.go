package plotting

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DAGNode is one node of a layered directed acyclic graph drawn by [DAG].
type DAGNode struct {
	Lines []string    // short lines of text in the node's box, such as "procs (15)", "pairs (56)"; at most three are drawn
	Color color.Color // box fill; nil is a neutral default
}

// DAG draws a directed acyclic graph top-down, as a layered (Sugiyama) drawing: each node a box
// with its lines of text, edges[i] = [from, to] a line from the bottom of from's box to the top
// of to's box, from drawn above to. For a concept lattice, from is the more general concept and
// the top concept is drawn at the top.
//
// A node's layer is the length of the longest path to it from a node without incoming edges.
// Within a layer, nodes start in index order and a few barycentre sweeps reorder them to reduce
// edge crossings (the order with the fewest crossings is kept; the result is deterministic).
// Edges that span several layers bend at each layer they pass, through a gap between the boxes.
// Repeated edges are drawn once.
//
// The figure grows with the widest layer and the number of layers, up to about 960 x 1400 pt
// (WithSize sets the size; the drawing is scaled down if it does not fit). Larger graphs are
// summarised so that their text stays readable: at most 150 nodes are drawn, layers are drawn from
// the top while they fit in the height, and within a layer the nodes with the lowest indices are
// drawn while they fit in the width, at least one (give the most important nodes the lowest
// indices). A dashed box "+ n more" stands for the rest of a layer, with the edges of those
// nodes, and a note under the drawing says how many nodes and layers are shown.
//
// DAG panics if an edge refers to a node that does not exist or if the edges form a cycle (the
// message names the cycle). No nodes give a "no data" figure.
func DAG(title string, nodes []DAGNode, edges [][2]int, opts ...Option) *Figure {
	o := collect(opts)
	if len(nodes) == 0 {
		dagLayers("plotting.DAG", 0, edges)
		return noData(title, o)
	}
	return boxedFigure(title, o, dagPad, func(budgetW, budgetH vg.Length) (plot.Plotter, vg.Length, vg.Length) {
		g := dagLayout(nodes, edges, budgetW, budgetH)
		return &dagPlot{g: g}, g.width, g.height + g.noteHeight()
	})
}

// boxedFigure is the frame of the figures drawn as boxes of text without
// axes (DAG, TextGrid): layout gets the room inside the frame (at most
// dagMaxWidth x dagMaxHeight with the title, or the WithSize) and returns
// the drawing and its width and height; the figure fits the drawing and
// the title, with pad around the drawing.
func boxedFigure(title string, o options, pad vg.Length, layout func(budgetW, budgetH vg.Length) (plot.Plotter, vg.Length, vg.Length)) *Figure {
	p := newPlot(title)
	p.HideAxes()
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	titleH := func(w vg.Length) vg.Length {
		if title == "" {
			return 0
		}
		q := *p
		q.Title.Text = fitLines(p.Title.TextStyle, title, w-2*margin, 2)
		return titleHeight(&q)
	}
	budgetW := o.widthOr(dagMaxWidth) - 2*margin - 2*pad
	budgetH := o.heightOr(dagMaxHeight) - 2*margin - 2*pad - titleH(o.widthOr(dagMaxWidth))
	body, bw, bh := layout(budgetW, budgetH)

	titleW := p.Title.TextStyle.Width(title) + 2*margin
	width := o.widthOr(min(max(bw+2*margin+2*pad, titleW, dagMinWidth), dagMaxWidth))
	height := o.heightOr(max(2*margin+2*pad+titleH(width)+bh, 100))
	p.Add(body)
	return &Figure{title: title, width: width, height: height, plot: p, body: body}
}

// DAG layout sizes in points.
const (
	dagMaxWidth  = 960
	dagMaxHeight = 1400
	dagMinWidth  = 200
	dagMaxNodes  = 150
	dagMaxLines  = 3
	dagFont      = 9
	dagLineH     = 11  // a line of text in a box
	dagPadX      = 5   // text to box edge
	dagPadY      = 3   // text to box edge
	dagMinBoxW   = 24  // an empty or short box
	dagMaxBoxW   = 160 // longer lines are shortened with "…"
	dagGap       = 12  // between boxes of a layer
	dagBendGap   = 6   // between a bend of an edge and its neighbours
	dagLayerGap  = 30  // between layers, for the edges
	dagPad       = 4   // around the drawing
	dagNoteH     = 16  // the note line under the drawing
	dagSweeps    = 4   // barycentre sweeps down and up
	dagXPasses   = 4   // x placement passes down and up
)

var dagFill = rgb(0xdce6f0)

// dagItem is one box or bend of the layout.
type dagItem struct {
	node  int // input node; dagMore for a "+ n more" box; dagBend for an edge's bend
	layer int
	x     vg.Length // centre, from the left edge of the drawing
	w, h  vg.Length
	lines []string
	fill  color.Color
}

const (
	dagMore = -1
	dagBend = -2
)

// dagGraph is the layout of a DAG: the drawn boxes and bends by layer, and the edges between
// them.
type dagGraph struct {
	n        int       // input nodes
	maxW     vg.Length // the widest the drawing may be
	layer    []int     // per input node, its layer in the whole graph
	layers   int       // layers of the whole graph
	items    []dagItem // drawn nodes, "+ n more" boxes and bends
	item     []int     // per input node, its item; -1 if not drawn
	order    [][]int   // items of each drawn layer, left to right
	initial  [][]int   // the order before the barycentre sweeps
	up, down [][]int   // per item, its neighbours in the layer above and below
	chains   [][]int   // per drawn edge, its items from top to bottom
	bandH    vg.Length // height of a layer
	width    vg.Length // of the drawing
	height   vg.Length // of the drawing, without the note
	note     string    // what is not shown, or ""
}

// boxTop is the y of the top of it's box, from the top of the drawing downwards.
func (g *dagGraph) boxTop(it dagItem) vg.Length { return g.layerTop(it.layer) + (g.bandH-it.h)/2 }

// edgePoints is the line of an edge (a chain of items) in the drawing, y downwards: from the
// middle of the bottom of the upper box, straight down through each layer that it passes at its
// bend, to the middle of the top of the lower box; it runs vertically inside layers, so it passes
// layers only in the gaps between boxes.
func (g *dagGraph) edgePoints(chain []int) []vg.Point {
	a, b := g.items[chain[0]], g.items[chain[len(chain)-1]]
	pts := []vg.Point{{X: a.x, Y: g.boxTop(a) + a.h}}
	if bottom := g.layerTop(a.layer) + g.bandH; bottom > pts[0].Y { // a box lower than its layer
		pts = append(pts, vg.Point{X: a.x, Y: bottom})
	}
	for _, d := range chain[1 : len(chain)-1] {
		it := g.items[d]
		t := g.layerTop(it.layer)
		pts = append(pts, vg.Point{X: it.x, Y: t}, vg.Point{X: it.x, Y: t + g.bandH})
	}
	if top := g.layerTop(b.layer); top < g.boxTop(b) {
		pts = append(pts, vg.Point{X: b.x, Y: top})
	}
	return append(pts, vg.Point{X: b.x, Y: g.boxTop(b)})
}

func (g *dagGraph) noteHeight() vg.Length {
	if g.note == "" {
		return 0
	}
	return dagNoteH
}

// layerTop is the y of the top of layer l, from the top of the drawing downwards.
func (g *dagGraph) layerTop(l int) vg.Length { return vg.Length(l) * (g.bandH + dagLayerGap) }

// dagLayers returns the layer of each node: the length of the longest path to it from a node
// without incoming edges. It panics, naming fn, if an edge is out of range or the edges form a
// cycle.
func dagLayers(fn string, n int, edges [][2]int) []int {
	succ := make([][]int, n)
	indeg := make([]int, n)
	for i, e := range edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			panic(fmt.Sprintf("%s: edge %d is [%d, %d], but there are %d nodes", fn, i, e[0], e[1], n))
		}
		succ[e[0]] = append(succ[e[0]], e[1])
		indeg[e[1]]++
	}
	layer := make([]int, n)
	done := make([]bool, n)
	var queue []int
	for v := range n {
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		done[v] = true
		for _, w := range succ[v] {
			layer[w] = max(layer[w], layer[v]+1)
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	if i := slices.Index(done, false); i >= 0 {
		panic(fmt.Sprintf("%s: the edges form a cycle: %s", fn, dagCycle(i, done, edges)))
	}
	return layer
}

// dagCycle finds a cycle among the nodes that a topological sort could not reach (done false),
// each of which has a predecessor among them, walking backwards from start; it returns the cycle
// as "a -> b -> a".
func dagCycle(start int, done []bool, edges [][2]int) string {
	pred := make([]int, len(done))
	for i := range pred {
		pred[i] = -1
	}
	for _, e := range edges {
		if !done[e[0]] && !done[e[1]] && pred[e[1]] < 0 {
			pred[e[1]] = e[0]
		}
	}
	seen := map[int]int{}
	var walk []int
	v := start
	for {
		if at, ok := seen[v]; ok {
			walk = walk[at:]
			break
		}
		seen[v] = len(walk)
		walk = append(walk, v)
		v = pred[v]
	}
	// walk follows edges backwards: w[0] <- w[1] <- ... <- w[k-1] <- w[0].
	parts := []string{fmt.Sprint(walk[0])}
	for i := len(walk) - 1; i >= 0; i-- {
		parts = append(parts, fmt.Sprint(walk[i]))
	}
	return strings.Join(parts, " -> ")
}

// dagBox returns the lines of a node as drawn (fitted to the box, at most dagMaxLines) and the
// size of its box.
func dagBox(lines []string) ([]string, vg.Length, vg.Length) {
	if len(lines) > dagMaxLines {
		lines = append(slices.Clone(lines[:dagMaxLines-1]), fmt.Sprintf("+ %d more lines", len(lines)-dagMaxLines+1))
	}
	sty := textStyle(dagFont, color.Black)
	out := make([]string, len(lines))
	w := vg.Length(dagMinBoxW)
	for i, l := range lines {
		out[i] = fitWidth(sty, l, dagMaxBoxW-2*dagPadX)
		w = max(w, sty.Width(out[i])+2*dagPadX)
	}
	return out, w, dagBoxH(len(lines))
}

// dagBoxH is the height of the box of a node with n lines.
func dagBoxH(n int) vg.Length {
	if n == 0 {
		return 12
	}
	return vg.Length(min(n, dagMaxLines))*dagLineH + 2*dagPadY
}

// dagLayout lays out a DAG in a drawing at most budgetW wide and budgetH high (see [DAG] for
// what is left out when it does not fit).
func dagLayout(nodes []DAGNode, edges [][2]int, budgetW, budgetH vg.Length) *dagGraph {
	n := len(nodes)
	g := &dagGraph{n: n, maxW: budgetW, layer: dagLayers("plotting.DAG", n, edges)}
	for _, l := range g.layer {
		g.layers = max(g.layers, l+1)
	}
	byLayer := make([][]int, g.layers)
	for v, l := range g.layer {
		byLayer[l] = append(byLayer[l], v)
	}
	for _, nd := range nodes {
		g.bandH = max(g.bandH, dagBoxH(len(nd.Lines)))
	}
	// Boxes are measured only for the nodes that may be drawn: graphs may be large.
	type box struct {
		lines []string
		w, h  vg.Length
	}
	boxes := map[int]box{}
	boxOf := func(v int) box {
		b, ok := boxes[v]
		if !ok {
			b.lines, b.w, b.h = dagBox(nodes[v].Lines)
			boxes[v] = b
		}
		return b
	}

	// How many layers fit in the height.
	maxLayers := g.layers
	if vg.Length(g.layers)*(g.bandH+dagLayerGap)-dagLayerGap > budgetH {
		maxLayers = max(1, int((budgetH-dagNoteH+dagLayerGap)/(g.bandH+dagLayerGap)))
	}

	// Choose the nodes to draw, layer by layer, lowest indices first.
	g.item = make([]int, n)
	for v := range g.item {
		g.item[v] = -1
	}
	moreItem := make([]int, g.layers) // the "+ n more" box of a layer, or -1
	for l := range moreItem {
		moreItem[l] = -1
	}
	shown, anyMore := 0, false
	for l := 0; l < maxLayers && shown < dagMaxNodes; l++ {
		vs := byLayer[l]
		k, w := 0, vg.Length(0) // the first k nodes fit in w
		widths := []vg.Length{0}
		for k < len(vs) && shown+k < dagMaxNodes {
			nw := w + boxOf(vs[k]).w
			if k > 0 {
				nw += dagGap
			}
			if nw > budgetW && k > 0 { // at least one node per layer, scaled down if need be
				break
			}
			w, k = nw, k+1
			widths = append(widths, w)
		}
		var moreLines []string
		var moreW, moreH vg.Length
		if k < len(vs) { // make room for the "+ n more" box
			for {
				moreLines, moreW, moreH = dagBox([]string{fmt.Sprintf("+ %d more", len(vs)-k)})
				if k <= 1 || widths[k]+dagGap+moreW <= budgetW {
					break
				}
				k--
			}
		}
		for _, v := range vs[:k] {
			g.item[v] = len(g.items)
			b := boxOf(v)
			g.items = append(g.items, dagItem{node: v, layer: l, w: b.w, h: b.h, lines: b.lines, fill: nodes[v].Color})
		}
		shown += k
		if k < len(vs) {
			anyMore = true
			moreItem[l] = len(g.items)
			g.items = append(g.items, dagItem{node: dagMore, layer: l, w: moreW, h: moreH, lines: moreLines})
		}
		g.order = append(g.order, nil)
	}
	drawn := len(g.order)
	for i, it := range g.items {
		g.order[it.layer] = append(g.order[it.layer], i)
	}

	// Edges between drawn items, with a bend in every layer that they pass.
	seen := map[[2]int]bool{}
	at := func(v int) int {
		if g.item[v] >= 0 {
			return g.item[v]
		}
		return moreItem[g.layer[v]]
	}
	for _, e := range edges {
		a, b := at(e[0]), at(e[1])
		if a < 0 || b < 0 || seen[[2]int{a, b}] {
			continue
		}
		seen[[2]int{a, b}] = true
		chain := []int{a}
		for l := g.items[a].layer + 1; l < g.items[b].layer; l++ {
			g.order[l] = append(g.order[l], len(g.items))
			chain = append(chain, len(g.items))
			g.items = append(g.items, dagItem{node: dagBend, layer: l})
		}
		g.chains = append(g.chains, append(chain, b))
	}
	g.up = make([][]int, len(g.items))
	g.down = make([][]int, len(g.items))
	for _, ch := range g.chains {
		for i := 1; i < len(ch); i++ {
			g.down[ch[i-1]] = append(g.down[ch[i-1]], ch[i])
			g.up[ch[i]] = append(g.up[ch[i]], ch[i-1])
		}
	}

	g.initial = cloneOrder(g.order)
	g.sweep()
	g.placeX()
	for _, it := range g.items {
		g.width = max(g.width, it.x+it.w/2)
	}
	g.height = g.layerTop(drawn) - dagLayerGap

	if shown < n {
		parts := []string{fmt.Sprintf("%d of %d nodes shown", shown, n)}
		if drawn < g.layers {
			parts = append(parts, fmt.Sprintf("the first %d of %d layers", drawn, g.layers))
		}
		if anyMore {
			parts = append(parts, `a box "+ n more" stands for the rest of its layer`)
		}
		g.note = strings.Join(parts, "; ")
	}
	return g
}

func cloneOrder(order [][]int) [][]int {
	out := make([][]int, len(order))
	for i, o := range order {
		out[i] = slices.Clone(o)
	}
	return out
}

// sweep reorders the layers by barycentres, alternately downwards (each node at the mean
// position of its neighbours above) and upwards, and keeps the order with the fewest crossings.
func (g *dagGraph) sweep() {
	pos := make([]float64, len(g.items))
	for _, o := range g.order {
		for i, it := range o {
			pos[it] = float64(i)
		}
	}
	bary := make([]float64, len(g.items))
	reorder := func(l int, nb [][]int) {
		for _, it := range g.order[l] {
			bary[it] = pos[it]
			if len(nb[it]) > 0 {
				s := 0.0
				for _, u := range nb[it] {
					s += pos[u]
				}
				bary[it] = s / float64(len(nb[it]))
			}
		}
		slices.SortStableFunc(g.order[l], func(a, b int) int { return cmp.Compare(bary[a], bary[b]) })
		for i, it := range g.order[l] {
			pos[it] = float64(i)
		}
	}
	best, bestC := cloneOrder(g.order), dagCrossings(g.order, g.down, len(g.items))
	for s := 0; s < 2*dagSweeps && bestC > 0; s++ {
		if s%2 == 0 {
			for l := 1; l < len(g.order); l++ {
				reorder(l, g.up)
			}
		} else {
			for l := len(g.order) - 2; l >= 0; l-- {
				reorder(l, g.down)
			}
		}
		if c := dagCrossings(g.order, g.down, len(g.items)); c < bestC {
			best, bestC = cloneOrder(g.order), c
		}
	}
	g.order = best
}

// dagCrossings counts the pairs of edges between adjacent layers that cross in the given order:
// for edges sorted by their upper end (then lower end), the inversions of their lower ends.
func dagCrossings(order [][]int, down [][]int, items int) int {
	pos := make([]int, items)
	for _, o := range order {
		for i, it := range o {
			pos[it] = i
		}
	}
	total := 0
	for l := 0; l+1 < len(order); l++ {
		var ends []int // lower ends, in the order of the upper ends
		for _, u := range order[l] {
			start := len(ends)
			for _, v := range down[u] {
				ends = append(ends, pos[v])
			}
			slices.Sort(ends[start:])
		}
		// Fenwick tree over the positions of layer l+1.
		tree := make([]int, len(order[l+1])+1)
		for i, p := range ends {
			lower := 0 // earlier ends at positions <= p
			for j := p + 1; j > 0; j -= j & -j {
				lower += tree[j]
			}
			total += i - lower
			for j := p + 1; j < len(tree); j += j & -j {
				tree[j]++
			}
		}
	}
	return total
}

// placeX gives the items of each layer x positions in their order, at least their half widths
// and a gap apart, each as close to the mean x of its neighbours as that allows (least squares,
// by isotonic regression), in passes down and up and one last pass using both; each layer is then
// shifted into [0, maxW] if it has left it.
func (g *dagGraph) placeX() {
	for _, o := range g.order {
		x := vg.Length(0)
		for i, it := range o {
			if i > 0 {
				x += g.sep(o[i-1], it)
			}
			g.items[it].x = x
		}
	}
	both := make([][]int, len(g.items))
	for i := range both {
		both[i] = append(slices.Clone(g.up[i]), g.down[i]...)
	}
	for pass := 0; pass < 2*dagXPasses+1; pass++ {
		switch {
		case pass == 2*dagXPasses:
			for l := range g.order {
				g.placeLayer(l, both)
			}
		case pass%2 == 0:
			for l := 1; l < len(g.order); l++ {
				g.placeLayer(l, g.up)
			}
		default:
			for l := len(g.order) - 2; l >= 0; l-- {
				g.placeLayer(l, g.down)
			}
		}
	}
	left := vg.Length(0)
	for i, it := range g.items {
		if i == 0 || it.x-it.w/2 < left {
			left = it.x - it.w/2
		}
	}
	for i := range g.items {
		g.items[i].x -= left
	}
}

// sep is the distance between the centres of neighbouring items a and b.
func (g *dagGraph) sep(a, b int) vg.Length {
	gap := vg.Length(dagGap)
	if g.items[a].node == dagBend || g.items[b].node == dagBend {
		gap = dagBendGap
	}
	return (g.items[a].w+g.items[b].w)/2 + gap
}

// placeLayer moves the items of layer l as close to the mean x of their neighbours nb as their
// order and separations allow: with offsets o[i] (the sum of the separations before item i),
// x[i] - o[i] must not decrease, so the best x is the isotonic regression of want[i] - o[i].
func (g *dagGraph) placeLayer(l int, nb [][]int) {
	o := g.order[l]
	offs := make([]float64, len(o))
	target := make([]float64, len(o))
	for i, it := range o {
		if i > 0 {
			offs[i] = offs[i-1] + float64(g.sep(o[i-1], it))
		}
		want := float64(g.items[it].x)
		if len(nb[it]) > 0 {
			want = 0
			for _, u := range nb[it] {
				want += float64(g.items[u].x)
			}
			want /= float64(len(nb[it]))
		}
		target[i] = want - offs[i]
	}
	for i, y := range isotonic(target) {
		g.items[o[i]].x = vg.Length(y + offs[i])
	}
	// Keep the layer within [0, maxW], or its left edge at 0 if it is wider.
	first, last := g.items[o[0]], g.items[o[len(o)-1]]
	shift := max(0, first.w/2-first.x)
	if right := last.x + last.w/2; right > g.maxW {
		shift = max(g.maxW-right, first.w/2-first.x)
	}
	for _, it := range o {
		g.items[it].x += shift
	}
}

// isotonic returns the non-decreasing sequence closest to t in least squares (pool adjacent
// violators).
func isotonic(t []float64) []float64 {
	type block struct {
		sum float64
		n   int
	}
	var bs []block
	for _, v := range t {
		bs = append(bs, block{v, 1})
		for len(bs) > 1 {
			a, b := bs[len(bs)-2], bs[len(bs)-1]
			if a.sum/float64(a.n) <= b.sum/float64(b.n) {
				break
			}
			bs = append(bs[:len(bs)-2], block{a.sum + b.sum, a.n + b.n})
		}
	}
	out := make([]float64, 0, len(t))
	for _, b := range bs {
		for range b.n {
			out = append(out, b.sum/float64(b.n))
		}
	}
	return out
}

// dagPlot draws a DAG layout in a plot's data canvas, centred, scaled down if it does not fit.
type dagPlot struct {
	g *dagGraph
}

func (dp *dagPlot) Plot(c draw.Canvas, _ *plot.Plot) {
	g := dp.g
	area := c.Rectangle
	if g.note != "" {
		sty := textStyle(9, color.Gray{Y: 100})
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		c.FillText(sty, vg.Point{X: (area.Min.X + area.Max.X) / 2, Y: area.Min.Y}, fitWidth(sty, g.note, area.Max.X-area.Min.X))
		area.Min.Y += dagNoteH
	}
	aw, ah := area.Max.X-area.Min.X-2*dagPad, area.Max.Y-area.Min.Y-2*dagPad
	s := vg.Length(1)
	if g.width > 0 {
		s = min(s, aw/g.width)
	}
	if g.height > 0 {
		s = min(s, ah/g.height)
	}
	if s <= 0 {
		return
	}
	ox := area.Min.X + dagPad + (aw-g.width*s)/2
	top := area.Max.Y - dagPad - (ah-g.height*s)/2
	X := func(x vg.Length) vg.Length { return ox + x*s }
	Y := func(y vg.Length) vg.Length { return top - y*s }
	edge := draw.LineStyle{Color: color.Gray{Y: 110}, Width: 0.8}
	for _, ch := range g.chains {
		pts := g.edgePoints(ch)
		for i, p := range pts {
			pts[i] = vg.Point{X: X(p.X), Y: Y(p.Y)}
		}
		c.StrokeLines(edge, pts)
	}

	outline := draw.LineStyle{Color: color.Gray{Y: 90}, Width: 0.6}
	for _, it := range g.items {
		if it.node == dagBend {
			continue
		}
		bt := g.boxTop(it)
		r := vg.Rectangle{Min: vg.Point{X: X(it.x - it.w/2), Y: Y(bt + it.h)}, Max: vg.Point{X: X(it.x + it.w/2), Y: Y(bt)}}
		fill := it.fill
		if fill == nil {
			fill = dagFill
		}
		sty := textStyle(dagFont*s, color.Black)
		ol := outline
		if it.node == dagMore {
			fill = color.White
			ol.Dashes = []vg.Length{2, 2}
			sty.Color = color.Gray{Y: 80}
		} else if luminance(fill) < 0.45 {
			sty.Color = color.White
		}
		c.SetColor(fill)
		c.Fill(r.Path())
		c.SetLineStyle(ol)
		c.Stroke(r.Path())
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		for i, line := range it.lines {
			c.FillText(sty, vg.Point{X: X(it.x), Y: Y(bt + dagPadY + vg.Length(i)*dagLineH)}, line)
		}
	}
}
