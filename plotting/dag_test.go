package plotting

import (
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// seedLattice is the concept lattice of Table I of the structural-clustering paper (Fig. 4):
// the top concept holds the pair all processes share, P1 adds F1→F2, P2 and P4 add F1→F3, and
// the bottom concept is P3, which has every pair.
func seedLattice() ([]DAGNode, [][2]int) {
	nodes := []DAGNode{
		{Lines: []string{"procs (0)", "pairs: ε→F1"}},
		{Lines: []string{"procs: P1", "pairs: F1→F2"}, Color: Categorical(10)},
		{Lines: []string{"procs: P2, P4", "pairs: F1→F3"}, Color: Categorical(11)},
		{Lines: []string{"procs: P3", "pairs (0)"}, Color: Categorical(13)},
	}
	return nodes, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}}
}

// randomDAG has n nodes whose indices are a random permutation of a topological order, and each
// forward pair of that order is an edge with probability p.
func randomDAG(r *rand.Rand, n int, p float64) ([]DAGNode, [][2]int) {
	perm := r.Perm(n)
	var edges [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if r.Float64() < p {
				edges = append(edges, [2]int{perm[i], perm[j]})
			}
		}
	}
	nodes := make([]DAGNode, n)
	for v := range nodes {
		nodes[v].Lines = []string{fmt.Sprintf("node %d", v), strings.Repeat("x", r.IntN(12))}[:1+r.IntN(2)]
	}
	return nodes, edges
}

// longestPath is the brute-force layer: the most edges on any path ending at v, found by trying
// every path backwards.
func longestPath(v int, edges [][2]int) int {
	best := 0
	for _, e := range edges {
		if e[1] == v {
			best = max(best, 1+longestPath(e[0], edges))
		}
	}
	return best
}

// bruteCrossings counts crossing pairs of edges between adjacent layers in order, by comparing
// every two edges.
func bruteCrossings(order [][]int, down [][]int) int {
	pos := map[int]int{}
	for _, o := range order {
		for i, it := range o {
			pos[it] = i
		}
	}
	n := 0
	for l := 0; l+1 < len(order); l++ {
		var es [][2]int
		for _, u := range order[l] {
			for _, v := range down[u] {
				es = append(es, [2]int{pos[u], pos[v]})
			}
		}
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				if (es[i][0]-es[j][0])*(es[i][1]-es[j][1]) < 0 {
					n++
				}
			}
		}
	}
	return n
}

const unbounded = 1e6

// checkLayout checks the geometry of a layout of the whole graph: layers, edges, and boxes
// that keep their order and their distance in a layer.
func checkLayout(t *testing.T, name string, nodes []DAGNode, edges [][2]int, g *dagGraph) {
	t.Helper()
	for v := range nodes {
		if want := longestPath(v, edges); g.layer[v] != want {
			t.Errorf("%s: node %d in layer %d, longest path to it has %d edges", name, v, g.layer[v], want)
		}
		if it := g.item[v]; it < 0 || g.items[it].layer != g.layer[v] || g.items[it].node != v {
			t.Errorf("%s: node %d not drawn in its layer", name, v)
		}
	}
	chains := map[[2]int]bool{}
	for _, ch := range g.chains {
		for i := 1; i < len(ch); i++ {
			if g.items[ch[i]].layer != g.items[ch[i-1]].layer+1 {
				t.Errorf("%s: chain %v skips a layer", name, ch)
			}
		}
		chains[[2]int{g.items[ch[0]].node, g.items[ch[len(ch)-1]].node}] = true
	}
	for _, e := range edges {
		if g.layer[e[1]] <= g.layer[e[0]] {
			t.Errorf("%s: edge %v goes from layer %d to layer %d", name, e, g.layer[e[0]], g.layer[e[1]])
		}
		if !chains[e] {
			t.Errorf("%s: edge %v not drawn", name, e)
		}
	}
	// Edges run downwards and meet no box but their own ends: inside a layer they are vertical,
	// and they slant only from the bottom of one layer to the top of the next.
	bottoms := map[vg.Length]bool{}
	for l := range g.order {
		bottoms[g.layerTop(l)+g.bandH] = true
	}
	for _, ch := range g.chains {
		pts := g.edgePoints(ch)
		for i := 1; i < len(pts); i++ {
			if pts[i].Y < pts[i-1].Y {
				t.Errorf("%s: edge %v goes up at %v", name, ch, pts[i-1:i+1])
			}
			if p, q := pts[i-1], pts[i]; p.X != q.X && (!bottoms[p.Y] || q.Y != p.Y+dagLayerGap) {
				t.Errorf("%s: edge %v slants from %v to %v, not from a layer's bottom to the next layer's top", name, ch, p, q)
			}
			for it, x := range g.items {
				if x.node == dagBend || it == ch[0] || it == ch[len(ch)-1] {
					continue
				}
				top := g.boxTop(x)
				r := vg.Rectangle{Min: vg.Point{X: x.x - x.w/2 + 0.1, Y: top + 0.1}, Max: vg.Point{X: x.x + x.w/2 - 0.1, Y: top + x.h - 0.1}}
				if segmentHits(pts[i-1], pts[i], r) {
					t.Errorf("%s: edge %v crosses the box of item %d (%v) at %v", name, ch, it, x.lines, pts[i-1:i+1])
				}
			}
		}
	}
	left, right := vg.Length(unbounded), vg.Length(-unbounded)
	for _, x := range g.items {
		left, right = min(left, x.x-x.w/2), max(right, x.x+x.w/2)
	}
	if left < -1e-9 || left > 1e-9 || right != g.width {
		t.Errorf("%s: the items span [%g, %g], the drawing [0, %g]", name, left, right, g.width)
	}
	for l, o := range g.order {
		for i := 1; i < len(o); i++ {
			a, b := g.items[o[i-1]], g.items[o[i]]
			gap := vg.Length(dagGap)
			if a.node == dagBend || b.node == dagBend {
				gap = dagBendGap
			}
			if (b.x-b.w/2)-(a.x+a.w/2) < gap-1e-6 {
				t.Errorf("%s: layer %d: items %d and %d at x %g (w %g) and %g (w %g) overlap or touch", name, l, o[i-1], o[i], a.x, a.w, b.x, b.w)
			}
		}
		for _, it := range o {
			if x := g.items[it]; x.x-x.w/2 < -1e-6 || x.x+x.w/2 > g.width+1e-6 {
				t.Errorf("%s: item %d at %g (w %g) outside the width %g", name, it, x.x, x.w, g.width)
			}
		}
	}
}

func TestDAGLayoutRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	improved := 0
	for trial := range 300 {
		n := 1 + r.IntN(12)
		nodes, edges := randomDAG(r, n, 0.1+0.5*r.Float64())
		name := fmt.Sprintf("trial %d (n %d, %d edges)", trial, n, len(edges))
		g := dagLayout(nodes, edges, unbounded, unbounded)
		checkLayout(t, name, nodes, edges, g)
		c0, c1 := bruteCrossings(g.initial, g.down), bruteCrossings(g.order, g.down)
		if got := dagCrossings(g.initial, g.down, len(g.items)); got != c0 {
			t.Errorf("%s: dagCrossings of the initial order %d, brute force %d", name, got, c0)
		}
		if got := dagCrossings(g.order, g.down, len(g.items)); got != c1 {
			t.Errorf("%s: dagCrossings %d, brute force %d", name, got, c1)
		}
		if c1 > c0 {
			t.Errorf("%s: %d crossings after the sweeps, %d before", name, c1, c0)
		}
		if c1 < c0 {
			improved++
		}
		for l, o := range g.order {
			if !slices.Equal(sorted(o), sorted(g.initial[l])) {
				t.Errorf("%s: layer %d holds %v after the sweeps, %v before", name, l, o, g.initial[l])
			}
		}
	}
	if improved < 30 {
		t.Errorf("the sweeps removed crossings in only %d of 300 random DAGs", improved)
	}
}

func sorted(s []int) []int {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestDAGPlanarExamplesHaveNoCrossings(t *testing.T) {
	lattice, latticeEdges := seedLattice()
	box := func(n int) []DAGNode {
		nodes := make([]DAGNode, n)
		for i := range nodes {
			nodes[i].Lines = []string{fmt.Sprint("n", i)}
		}
		return nodes
	}
	cases := []struct {
		name    string
		nodes   []DAGNode
		edges   [][2]int
		initial int // crossings of the index order
	}{
		{"diamond", box(4), [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}}, 0},
		{"seed lattice", lattice, latticeEdges, 0},
		// Two chains, indexed so that they cross in index order: 1 above 4 and 2 above 3.
		{"twisted", box(5), [][2]int{{0, 1}, {0, 2}, {1, 4}, {2, 3}}, 1},
		// A tree whose grandchildren are indexed in reverse.
		{"tree", box(7), [][2]int{{0, 1}, {0, 2}, {1, 5}, {1, 6}, {2, 3}, {2, 4}}, 4},
		// A long edge 0 -> 4 beside a chain, bending where the chain's node would be crossed.
		{"long edge", box(5), [][2]int{{0, 4}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {1, 3}}, -1},
	}
	for _, c := range cases {
		g := dagLayout(c.nodes, c.edges, unbounded, unbounded)
		checkLayout(t, c.name, c.nodes, c.edges, g)
		if c.initial >= 0 {
			if got := bruteCrossings(g.initial, g.down); got != c.initial {
				t.Errorf("%s: %d crossings in index order, want %d", c.name, got, c.initial)
			}
		}
		if got := bruteCrossings(g.order, g.down); got != 0 {
			t.Errorf("%s: %d crossings after the sweeps, want 0 (order %v)", c.name, got, g.order)
		}
	}
}

func TestDAGSeedLatticeLayout(t *testing.T) {
	nodes, edges := seedLattice()
	g := dagLayout(nodes, edges, unbounded, unbounded)
	if want := []int{0, 1, 1, 2}; !slices.Equal(g.layer, want) {
		t.Errorf("layers %v, want %v", g.layer, want)
	}
	x := func(v int) vg.Length { return g.items[g.item[v]].x }
	mid := (x(1) + x(2)) / 2
	if d := x(0) - mid; d < -0.5 || d > 0.5 {
		t.Errorf("top at x %g, its children at %g and %g: not centred", x(0), x(1), x(2))
	}
	if d := x(3) - mid; d < -0.5 || d > 0.5 {
		t.Errorf("bottom at x %g, its parents at %g and %g: not centred", x(3), x(1), x(2))
	}
	if len(g.order) != 3 || g.note != "" {
		t.Errorf("%d layers drawn, note %q", len(g.order), g.note)
	}
}

func TestDAGSeedLatticeRenders(t *testing.T) {
	nodes, edges := seedLattice()
	f := DAG("Concept lattice of Table I (SC Fig. 4)", nodes, edges)
	name := "dag_example"
	checkRender(t, name, f)
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, nd := range nodes {
		for _, l := range nd.Lines {
			if !strings.Contains(string(svg), ">"+html.EscapeString(l)+"<") {
				t.Errorf("SVG lacks the text %q", l)
			}
		}
	}
	checkTexts(t, name, f)
	if dir := os.Getenv("PLOTTING_OUT"); dir != "" {
		f.Save(filepath.Join(dir, name+".svg"))
	}
}

// checkTexts checks that every string of f lies in the figure and that the texts of different
// boxes do not overlap.
func checkTexts(t *testing.T, name string, f *Figure) {
	t.Helper()
	canvas := vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}
	texts := drawnTexts(t, f)
	if len(texts) == 0 {
		t.Errorf("%s: no text drawn", name)
	}
	for i, a := range texts {
		if !inside(a.box, canvas) {
			t.Errorf("%s: %q drawn at %v, outside the %gx%g pt canvas", name, a.s, a.box, f.width, f.height)
		}
		for _, b := range texts[i+1:] {
			if a.box.Min.X < b.box.Max.X-0.5 && b.box.Min.X < a.box.Max.X-0.5 && a.box.Min.Y < b.box.Max.Y-0.5 && b.box.Min.Y < a.box.Max.Y-0.5 {
				t.Errorf("%s: %q at %v overlaps %q at %v", name, a.s, a.box, b.s, b.box)
			}
		}
	}
}

func TestDAGPanics(t *testing.T) {
	three := make([]DAGNode, 3)
	cases := []struct {
		name, want string
		edges      [][2]int
		nodes      []DAGNode
	}{
		{"index", "plotting.DAG: edge 1 is [0, 3], but there are 3 nodes", [][2]int{{0, 1}, {0, 3}}, three},
		{"negative", "plotting.DAG: edge 0 is [-1, 2], but there are 3 nodes", [][2]int{{-1, 2}}, three},
		{"no nodes", "plotting.DAG: edge 0 is [0, 0], but there are 0 nodes", [][2]int{{0, 0}}, nil},
		{"self loop", "plotting.DAG: the edges form a cycle: 2 -> 2", [][2]int{{0, 1}, {2, 2}}, three},
		{"cycle", "plotting.DAG: the edges form a cycle: 1 -> 3 -> 2 -> 1", [][2]int{{0, 1}, {2, 1}, {1, 3}, {3, 2}}, make([]DAGNode, 5)},
	}
	for _, c := range cases {
		func() {
			defer func() {
				r := recover()
				if msg := fmt.Sprint(r); msg != c.want {
					t.Errorf("%s: panic %q, want %q", c.name, msg, c.want)
				}
			}()
			DAG("t", c.nodes, c.edges)
		}()
	}
}

func TestDAGNoNodes(t *testing.T) {
	f := DAG("t", nil, nil)
	if f.note != "no data" {
		t.Errorf("note %q, want \"no data\"", f.note)
	}
	checkRender(t, "dag_empty", f)
}

// TestDAGLargeIsSummarised: 10 layers of 20 small nodes, each node joined to the one below it:
// 150 nodes fit in 7 full layers and half the eighth.
func TestDAGLargeIsSummarised(t *testing.T) {
	nodes := make([]DAGNode, 200)
	var edges [][2]int
	for v := range nodes {
		nodes[v].Lines = []string{"a"}
		if v >= 20 {
			edges = append(edges, [2]int{v - 20, v})
		}
	}
	f := DAG("big", nodes, edges)
	g := f.body.(*dagPlot).g
	if want := `150 of 200 nodes shown; the first 8 of 10 layers; a box "+ n more" stands for the rest of its layer`; g.note != want {
		t.Errorf("note %q, want %q", g.note, want)
	}
	for v := range nodes {
		if shown := g.item[v] >= 0; shown != (v < 150) {
			t.Errorf("node %d shown %v", v, shown)
		}
	}
	last := g.order[7]
	var more []string
	for _, it := range last {
		if g.items[it].node == dagMore {
			more = append(more, g.items[it].lines...)
		}
	}
	if !slices.Equal(more, []string{"+ 10 more"}) {
		t.Errorf("layer 7 has \"more\" boxes %q, want [\"+ 10 more\"]", more)
	}
	// 20 edges between each two of the layers 0-6; 120-129 above 140-149; 130-139 above the
	// hidden 150-159, whose edges end in the "+ 10 more" box.
	if len(g.chains) != 140 {
		t.Errorf("%d edges drawn, want 140", len(g.chains))
	}
	checkTexts(t, "dag_big", f)
	checkRender(t, "dag_big", f)
}

// TestDAGWideLayer: a top node with 300 children that all lead to one bottom node; the children
// with the lowest indices are drawn while they fit in the width.
func TestDAGWideLayer(t *testing.T) {
	nodes := make([]DAGNode, 302)
	var edges [][2]int
	nodes[0].Lines = []string{"top"}
	nodes[301].Lines = []string{"bottom"}
	for v := 1; v <= 300; v++ {
		nodes[v].Lines = []string{fmt.Sprintf("child %d", v), "procs (1)"}
		edges = append(edges, [2]int{0, v}, [2]int{v, 301})
	}
	f := DAG("wide", nodes, edges)
	g := f.body.(*dagPlot).g
	k := 0
	for v := 1; v <= 300 && g.item[v] >= 0; v++ {
		k++
	}
	for v := k + 1; v <= 300; v++ {
		if g.item[v] >= 0 {
			t.Errorf("child %d drawn after child %d was left out", v, k+1)
		}
	}
	if g.item[0] < 0 || g.item[301] < 0 {
		t.Errorf("top or bottom not drawn")
	}
	// The layer fills the width: one more child would not fit.
	var w vg.Length
	for _, it := range g.order[1] {
		w += g.items[it].w + dagGap
	}
	budget := vg.Length(dagMaxWidth - 2*margin - 2*dagPad)
	one := g.items[g.item[1]].w
	if w-dagGap > budget || w+one <= budget || k < 5 {
		t.Errorf("layer 1: %d children and a \"more\" box, %g pt wide in %g pt", k, w-dagGap, budget)
	}
	wantNote := fmt.Sprintf(`%d of 302 nodes shown; a box "+ n more" stands for the rest of its layer`, k+2)
	if g.note != wantNote {
		t.Errorf("note %q, want %q", g.note, wantNote)
	}
	if fw, _ := f.Size(); fw > dagMaxWidth {
		t.Errorf("width %g pt, more than %d", fw, dagMaxWidth)
	}
	// Top to "more" and "more" to bottom are drawn once each.
	if want := 2*k + 2; len(g.chains) != want {
		t.Errorf("%d edges drawn, want %d", len(g.chains), want)
	}
	checkTexts(t, "dag_wide", f)
}

// TestDAGTallIsCut: a chain of 60 nodes shows the layers that fit in the height.
func TestDAGTallIsCut(t *testing.T) {
	nodes := make([]DAGNode, 60)
	var edges [][2]int
	for v := range nodes {
		nodes[v].Lines = []string{fmt.Sprint("n", v), "x"}
		if v > 0 {
			edges = append(edges, [2]int{v - 1, v})
		}
	}
	f := DAG("tall", nodes, edges)
	g := f.body.(*dagPlot).g
	d := len(g.order)
	if want := fmt.Sprintf("%d of 60 nodes shown; the first %d of 60 layers", d, d); g.note != want {
		t.Errorf("note %q, want %q", g.note, want)
	}
	_, h := f.Size()
	if h > dagMaxHeight || h+float64(g.bandH+dagLayerGap) <= dagMaxHeight {
		t.Errorf("%d layers in %g pt: the height is not used (at most %d)", d, h, dagMaxHeight)
	}
	checkTexts(t, "dag_tall", f)
}

func TestDAGSize(t *testing.T) {
	nodes, edges := seedLattice()
	small := DAG("", nodes, edges)
	wide := make([]DAGNode, 12)
	var wideEdges [][2]int
	for v := range wide {
		wide[v].Lines = []string{fmt.Sprintf("procs (%d)", v), "pairs (56)"}
		if v > 0 {
			wideEdges = append(wideEdges, [2]int{0, v})
		}
	}
	big := DAG("", wide, wideEdges)
	sw, sh := small.Size()
	bw, bh := big.Size()
	if !(bw > sw && bw < dagMaxWidth) || sh <= bh {
		t.Errorf("seed lattice %gx%g pt, a top with 11 children %gx%g pt", sw, sh, bw, bh)
	}
	fixed := DAG("fixed", wide, wideEdges, WithSize(300, 150))
	if w, h := fixed.Size(); w != 300 || h != 150 {
		t.Errorf("WithSize(300, 150) gives %gx%g", w, h)
	}
	checkTexts(t, "dag_fixed", fixed)
	tiny := DAG("tiny", wide, wideEdges, WithSize(100, 60)) // one layer, scaled down to fit
	checkTexts(t, "dag_tiny", tiny)
	checkRender(t, "dag_tiny", tiny)
	narrow := DAG("narrow", []DAGNode{{Lines: []string{strings.Repeat("wide ", 20)}}}, nil, WithSize(100, 80))
	if g := narrow.body.(*dagPlot).g; g.item[0] < 0 {
		t.Errorf("the only node, wider than the figure, is not drawn")
	}
	checkTexts(t, "dag_narrow", narrow) // scaled down to fit
	// The same input gives the same layout.
	a, b := dagLayout(wide, wideEdges, 500, 500), dagLayout(wide, wideEdges, 500, 500)
	for i := range a.items {
		if a.items[i].x != b.items[i].x {
			t.Errorf("item %d at %g, then %g", i, a.items[i].x, b.items[i].x)
		}
	}
}

// TestDAGDrawsBoxesAndEdges renders the seed lattice on a recording canvas: each node is a box
// of its colour around its text, and each edge a line from the middle of the bottom of the upper
// box to the middle of the top of the lower box.
func TestDAGDrawsBoxesAndEdges(t *testing.T) {
	nodes, edges := seedLattice()
	nodes[0].Color = nil // the default fill
	f := DAG("lattice", nodes, edges)
	rec := &recorder.Canvas{}
	if err := f.render(draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}}); err != nil {
		t.Fatal(err)
	}
	type rect struct {
		r vg.Rectangle
		c any
	}
	var rects []rect
	var lines [][2]vg.Point
	var col any
	var width vg.Length
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetLineWidth:
			width = a.Width
		case *recorder.SetColor:
			col = a.Color
		case *recorder.Fill:
			if p := a.Path; len(p) == 5 && p[4].Type == vg.CloseComp {
				r := vg.Rectangle{Min: p[0].Pos, Max: p[0].Pos}
				for _, c := range p[1:4] {
					r.Min.X, r.Min.Y = min(r.Min.X, c.Pos.X), min(r.Min.Y, c.Pos.Y)
					r.Max.X, r.Max.Y = max(r.Max.X, c.Pos.X), max(r.Max.Y, c.Pos.Y)
				}
				rects = append(rects, rect{r, col})
			}
		case *recorder.Stroke:
			if p := a.Path; width > 0 && len(p) == 2 && p[0].Type == vg.MoveComp && p[1].Type == vg.LineComp {
				lines = append(lines, [2]vg.Point{p[0].Pos, p[1].Pos})
			}
		}
	}
	// The box of a node is the smallest filled rectangle around its first line.
	boxes := make([]rect, len(nodes))
	texts := drawnTexts(t, f)
	for v, nd := range nodes {
		i := slices.IndexFunc(texts, func(x placedText) bool { return x.s == nd.Lines[0] })
		if i < 0 {
			t.Fatalf("node %d: %q not drawn", v, nd.Lines[0])
		}
		c := vg.Point{X: (texts[i].box.Min.X + texts[i].box.Max.X) / 2, Y: (texts[i].box.Min.Y + texts[i].box.Max.Y) / 2}
		found := false
		for _, r := range rects {
			if inside(vg.Rectangle{Min: c, Max: c}, r.r) && (!found || r.r.Size().X < boxes[v].r.Size().X) {
				boxes[v], found = r, true
			}
		}
		if !found {
			t.Fatalf("node %d: no box around %q", v, nd.Lines[0])
		}
		want := nd.Color
		if want == nil {
			want = dagFill
		}
		if boxes[v].c != want {
			t.Errorf("node %d: box filled %v, want %v", v, boxes[v].c, want)
		}
	}
	near := func(a, b vg.Point) bool {
		return a.X-b.X < 0.01 && b.X-a.X < 0.01 && a.Y-b.Y < 0.01 && b.Y-a.Y < 0.01
	}
	if len(lines) != len(edges) {
		t.Errorf("%d lines drawn, want %d", len(lines), len(edges))
	}
	for _, e := range edges {
		a, b := boxes[e[0]].r, boxes[e[1]].r
		from := vg.Point{X: (a.Min.X + a.Max.X) / 2, Y: a.Min.Y}
		to := vg.Point{X: (b.Min.X + b.Max.X) / 2, Y: b.Max.Y}
		if !slices.ContainsFunc(lines, func(l [2]vg.Point) bool { return near(l[0], from) && near(l[1], to) }) {
			t.Errorf("edge %v: no line from %v to %v in %v", e, from, to, lines)
		}
	}
}

// segmentHits reports whether the segment from p to q meets the rectangle r (Liang-Barsky
// clipping).
func segmentHits(p, q vg.Point, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(q.X-p.X), float64(q.Y-p.Y)
	for _, c := range [][2]float64{
		{-dx, float64(p.X - r.Min.X)}, {dx, float64(r.Max.X - p.X)},
		{-dy, float64(p.Y - r.Min.Y)}, {dy, float64(r.Max.Y - p.Y)},
	} {
		pp, qq := c[0], c[1]
		if pp == 0 {
			if qq < 0 {
				return false
			}
			continue
		}
		t := qq / pp
		if pp < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

func TestSegmentHits(t *testing.T) {
	r := vg.Rectangle{Min: vg.Point{X: 0, Y: 0}, Max: vg.Point{X: 10, Y: 10}}
	for _, c := range []struct {
		p, q vg.Point
		want bool
	}{
		{vg.Point{X: -5, Y: 5}, vg.Point{X: 15, Y: 5}, true},
		{vg.Point{X: -5, Y: -5}, vg.Point{X: 15, Y: 15}, true},
		{vg.Point{X: 5, Y: 5}, vg.Point{X: 6, Y: 6}, true},
		{vg.Point{X: -5, Y: 11}, vg.Point{X: 15, Y: 11}, false},
		{vg.Point{X: 11, Y: -5}, vg.Point{X: 11, Y: 15}, false},
		{vg.Point{X: -5, Y: 4}, vg.Point{X: 4, Y: -5}, false},
		{vg.Point{X: -5, Y: 6}, vg.Point{X: 6, Y: -5}, true},
	} {
		if got := segmentHits(c.p, c.q, r); got != c.want {
			t.Errorf("segment %v-%v: hits %v, want %v", c.p, c.q, got, c.want)
		}
	}
}

// TestDAGCrossingsNeverIncrease: on larger random DAGs, where barycentre sweeps can make things
// worse, the order kept has at most the crossings of the index order.
func TestDAGCrossingsNeverIncrease(t *testing.T) {
	// A DAG whose last barycentre sweep has 8 crossings, more than the 7 of the index order.
	nodes := make([]DAGNode, 8)
	worse := [][2]int{{3, 4}, {3, 7}, {3, 5}, {2, 4}, {2, 7}, {2, 0}, {2, 1}, {2, 5}, {6, 7}, {6, 1}, {7, 1}}
	g := dagLayout(nodes, worse, unbounded, unbounded)
	if c0, c1 := bruteCrossings(g.initial, g.down), bruteCrossings(g.order, g.down); c0 != 7 || c1 > c0 {
		t.Errorf("%d crossings in index order (want 7), %d after the sweeps", c0, c1)
	}
	r := rand.New(rand.NewPCG(5, 9))
	for trial := range 200 {
		n := 10 + r.IntN(30)
		nodes, edges := randomDAG(r, n, 0.05+0.2*r.Float64())
		g := dagLayout(nodes, edges, unbounded, unbounded)
		c0, c1 := bruteCrossings(g.initial, g.down), bruteCrossings(g.order, g.down)
		if c1 > c0 {
			t.Errorf("trial %d (n %d, %d edges): %d crossings after the sweeps, %d before", trial, n, len(edges), c1, c0)
		}
		if got := dagCrossings(g.order, g.down, len(g.items)); got != c1 {
			t.Errorf("trial %d: dagCrossings %d, brute force %d", trial, got, c1)
		}
	}
}

func TestDAGBoxText(t *testing.T) {
	lines, w, h := dagBox([]string{"procs (15)", strings.Repeat("pair ", 60), "c", "d", "e"})
	if len(lines) != 3 || lines[0] != "procs (15)" || !strings.HasSuffix(lines[1], ellipsis) || lines[2] != "+ 3 more lines" {
		t.Errorf("lines %q", lines)
	}
	if w > dagMaxBoxW || w < dagMaxBoxW-10 || h != 3*dagLineH+2*dagPadY {
		t.Errorf("box %gx%g, want about %dx%d", w, h, dagMaxBoxW, 3*dagLineH+2*dagPadY)
	}
	if _, w, h := dagBox(nil); w != dagMinBoxW || h != 12 {
		t.Errorf("empty box %gx%g", w, h)
	}
}

// TestDAGNoteSaysWhatIsCut: three layers in a height for two.
func TestDAGNoteSaysWhatIsCut(t *testing.T) {
	nodes, edges := seedLattice()
	g := dagLayout(nodes, edges, unbounded, 3*28+2*dagLayerGap-1)
	if want := "3 of 4 nodes shown; the first 2 of 3 layers"; g.note != want {
		t.Errorf("note %q, want %q", g.note, want)
	}
	g = dagLayout(nodes, edges, unbounded, 3*28+2*dagLayerGap)
	if g.note != "" || len(g.order) != 3 {
		t.Errorf("%d layers, note %q; want all 3 and no note", len(g.order), g.note)
	}
}

// TestDAGLargeTreeFits: a random tree of 5000 nodes (each node's parent is an earlier node)
// stays within the largest figure, with its text inside and apart.
func TestDAGLargeTreeFits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	nodes := make([]DAGNode, 5000)
	var edges [][2]int
	for v := range nodes {
		nodes[v].Lines = []string{fmt.Sprintf("procs (%d)", v%7), fmt.Sprintf("pairs (%d)", v%13)}
		if v > 0 {
			edges = append(edges, [2]int{r.IntN(v), v})
		}
	}
	f := DAG("tree", nodes, edges)
	g := f.body.(*dagPlot).g
	if w, h := f.Size(); w > dagMaxWidth || h > dagMaxHeight || g.width > g.maxW {
		t.Errorf("figure %gx%g pt, drawing %g pt wide in %g", w, h, g.width, g.maxW)
	}
	if !strings.HasPrefix(g.note, "150 of 5000 nodes shown; the first ") {
		t.Errorf("note %q", g.note)
	}
	checkTexts(t, "dag_tree", f)

	// A full layer that 60 long edges pass: their bends make it wider than the largest figure,
	// which is then scaled down.
	nodes = make([]DAGNode, 1+40+1+60)
	edges = nil
	for v := range nodes {
		nodes[v].Lines = []string{fmt.Sprint("node ", v)}
		switch {
		case v >= 1 && v <= 40:
			edges = append(edges, [2]int{0, v}, [2]int{v, 41})
		case v > 41:
			edges = append(edges, [2]int{0, v}, [2]int{41, v})
		}
	}
	f = DAG("long edges", nodes, edges)
	g = f.body.(*dagPlot).g
	if w, _ := f.Size(); w > dagMaxWidth || g.width <= g.maxW {
		t.Errorf("figure %g pt wide, drawing %g pt in %g: want the drawing wider and the figure at most %d", w, g.width, g.maxW, dagMaxWidth)
	}
	checkTexts(t, "dag_long_edges", f)
}
