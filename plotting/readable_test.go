package plotting

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// Tests of issue 9's list: figures whose text fits, whose colours mean something, and which
// stay small in a notebook.

// placedText is one string drawn on a figure: its box in points (y up) and whether it was drawn
// rotated (then the box is in the rotated frame and not checked).
type placedText struct {
	s       string
	box     vg.Rectangle
	rotated bool
	page    vg.Rectangle // the box on the page: box, or the bounds of the rotated box
}

// drawnTexts renders f on a recording canvas and returns every string drawn.
func drawnTexts(t *testing.T, f *Figure) []placedText {
	t.Helper()
	rec := &recorder.Canvas{}
	c := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}}
	if err := f.render(c); err != nil {
		t.Fatal(err)
	}
	var out []placedText
	rot, angle := 0, 0.0
	type state struct {
		rot   int
		angle float64
	}
	var stack []state
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.Push:
			stack = append(stack, state{rot, angle})
		case *recorder.Pop:
			rot, angle, stack = stack[len(stack)-1].rot, stack[len(stack)-1].angle, stack[:len(stack)-1]
		case *recorder.Rotate:
			if a.Angle != 0 {
				rot++
				angle += a.Angle
			}
		case *recorder.FillString:
			sty := textStyle(a.Size, color.Black)
			desc := sty.FontExtents().Descent
			box := vg.Rectangle{Min: vg.Point{X: a.Point.X, Y: a.Point.Y - desc},
				Max: vg.Point{X: a.Point.X + sty.Width(a.String), Y: a.Point.Y + a.Size - desc}}
			page := box
			if rot > 0 { // the rotated frame's box, turned back onto the page
				sin, cos := math.Sincos(angle)
				page = vg.Rectangle{Min: vg.Point{X: 1e9, Y: 1e9}, Max: vg.Point{X: -1e9, Y: -1e9}}
				for _, q := range []vg.Point{box.Min, box.Max, {X: box.Min.X, Y: box.Max.Y}, {X: box.Max.X, Y: box.Min.Y}} {
					x := q.X*vg.Length(cos) - q.Y*vg.Length(sin)
					y := q.X*vg.Length(sin) + q.Y*vg.Length(cos)
					page.Min.X, page.Min.Y = min(page.Min.X, x), min(page.Min.Y, y)
					page.Max.X, page.Max.Y = max(page.Max.X, x), max(page.Max.Y, y)
				}
			}
			out = append(out, placedText{s: a.String, box: box, rotated: rot > 0, page: page})
		}
	}
	return out
}

func inside(r, in vg.Rectangle) bool {
	const eps = 0.5
	return r.Min.X >= in.Min.X-eps && r.Max.X <= in.Max.X+eps && r.Min.Y >= in.Min.Y-eps && r.Max.Y <= in.Max.Y+eps
}

// long is a title as align.Pair used to make from two process descriptions.
const long = `Process(3 "MPI Rank 3": rank 3 thread 0, 692 events) vs Process(3 "MPI Rank 3": rank 3 thread 0, 692 events)`

func TestTextInsideCanvas(t *testing.T) {
	figs := figures()
	figs["long title lines"] = Lines(long, "x", "y", Series{Name: long, X: []float64{0, 1}, Y: []float64{0, 1}})
	figs["long title stack"] = Stack(long+" "+long, Lines("", "", "", Series{X: []float64{0, 1}, Y: []float64{0, 1}}))
	figs["long lane names"] = Timeline(long, []Lane{{Name: long, Bars: []Bar{{Start: 0, End: 1, Label: long, Color: -1}}}})
	figs["long title note"] = Bars(long, nil, nil)
	figs["long labels heatmap"] = Heatmap(long, []string{long, "b"}, []string{long, "y"}, [][]float64{{1, 2}, {3, 4}})
	for name, f := range figs {
		canvas := vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}
		texts := drawnTexts(t, f)
		if len(texts) == 0 {
			t.Errorf("%s: no text drawn", name)
		}
		for _, x := range texts {
			if !x.rotated && !inside(x.box, canvas) {
				t.Errorf("%s: %q drawn at %v, outside the %gx%g pt canvas", name, x.s, x.box, f.width, f.height)
			}
		}
	}
}

// TestLegendStaysInItsPanel: a timeline with many labels stacked over a short line chart used to
// write "+ 23 more" into the chart beneath.
func TestLegendStaysInItsPanel(t *testing.T) {
	var bars []Bar
	for i := 0; i < 40; i++ {
		bars = append(bars, Bar{Start: float64(i), End: float64(i + 1), Label: fmt.Sprint("function_", i), Color: -1})
	}
	for i, s := range []string{"Equal", "Diff", "GapA", "GapB"} {
		bars = append(bars, Bar{Start: float64(i), End: float64(i) + 0.5, Level: 1, Label: s, Fill: StateColor(i)})
	}
	tl := Timeline("alignment", []Lane{{Name: "a", Bars: bars}, {Name: "b", Bars: bars}}).Resize(640, 150)
	ln := Lines("below", "x", "y", Series{X: []float64{0, 1}, Y: []float64{0, 1}}).Resize(640, 150)
	s := Stack("stack", tl, ln)
	top := s.stackLayout(s.stackBody(draw.Crop(canvasFor(s), margin, -margin, margin, -margin))).canvases[0]
	sideX := top.Max.X - s.parts[0].sideW
	var legend []placedText
	for _, x := range drawnTexts(t, s) {
		if x.box.Min.X >= sideX-0.5 {
			legend = append(legend, x)
		}
	}
	sawMore := false
	for _, x := range legend {
		sawMore = sawMore || strings.HasPrefix(x.s, "+ ")
		if !inside(x.box, top.Rectangle) {
			t.Errorf("legend entry %q at %v leaves its panel %v", x.s, x.box, top.Rectangle)
		}
	}
	if !sawMore || len(legend) < 5 {
		t.Errorf("legend shows %d entries and no \"+ N more\" note: %v", len(legend), legend)
	}
	// The states come first, in the order given.
	if len(legend) < 4 || legend[0].s != "Equal" || legend[3].s != "GapB" {
		t.Errorf("legend starts %v, want the four states first", legend[:min(4, len(legend))])
	}
}

func TestFitText(t *testing.T) {
	sty := textStyle(13, color.Black)
	for _, w := range []vg.Length{30, 100, 250, 600} {
		got := fitLines(sty, long, w, 2)
		lines := strings.Split(got, "\n")
		if len(lines) > 2 {
			t.Errorf("width %g: %d lines", w, len(lines))
		}
		for _, l := range lines {
			if sty.Width(l) > w {
				t.Errorf("width %g: line %q is %g wide", w, l, sty.Width(l))
			}
		}
		if w >= 600 && strings.Contains(got, ellipsis) {
			t.Errorf("width %g: %q shortened although two lines hold it", w, got)
		}
	}
	if got := fitWidth(sty, "short", 100); got != "short" {
		t.Errorf("fitWidth shortened %q", got)
	}
	if got := fitWidth(sty, long, 100); !strings.HasSuffix(got, ellipsis) || sty.Width(got) > 100 {
		t.Errorf("fitWidth(long, 100) = %q", got)
	}
}

// lab converts to CIE L*a*b* (D65) for colour differences.
func lab(c color.Color) (l, a, b float64) {
	r, g, bl, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	R, G, B := lin(r), lin(g), lin(bl)
	X := (0.4124*R + 0.3576*G + 0.1805*B) / 0.95047
	Y := 0.2126*R + 0.7152*G + 0.0722*B
	Z := (0.0193*R + 0.1192*G + 0.9505*B) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return 116*f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))
}

func deltaE(c1, c2 color.Color) float64 {
	l1, a1, b1 := lab(c1)
	l2, a2, b2 := lab(c2)
	return math.Sqrt((l1-l2)*(l1-l2) + (a1-a2)*(a1-a2) + (b1-b2)*(b1-b2))
}

// TestStatePaletteDistinct: alignment states used to take Categorical colours, so Equal had
// MPI_Recv's blue.
func TestStatePaletteDistinct(t *testing.T) {
	for s := 0; s < 4; s++ {
		for i := range categorical {
			if d := deltaE(StateColor(s), Categorical(i)); d < 15 {
				t.Errorf("state %d and categorical colour %d differ by only ΔE %.1f", s, i, d)
			}
		}
		for s2 := s + 1; s2 < 4; s2++ {
			if d := deltaE(StateColor(s), StateColor(s2)); d < 25 {
				t.Errorf("states %d and %d differ by only ΔE %.1f", s, s2, d)
			}
		}
	}
	// A Fill is drawn as given, never replaced by a palette colour.
	tl := Timeline("", []Lane{{Name: "s", Bars: []Bar{{Start: 0, End: 1, Label: "Equal", Color: 0, Fill: StateColor(0)}}}})
	tp := tl.body.(*timelinePlot)
	if got := tp.colorOf(tp.lanes[0][0][0]); got != StateColor(0) {
		t.Errorf("bar with Fill drawn %v", got)
	}
}

func TestColorScale(t *testing.T) {
	cases := []struct {
		name      string
		values    []float64
		opts      []Option
		lo, hi    float64
		diverging bool
	}{
		{"small positive range anchored at 0", []float64{0.378, 0.405}, nil, 0, 0.405, false},
		{"stretched", []float64{0.378, 0.405}, []Option{WithStretch()}, 0.378, 0.405, false},
		{"fixed [0, 1]", []float64{0.378, 0.405}, []Option{WithColorRange(0, 1)}, 0, 1, false},
		{"negative", []float64{-3, -1}, nil, -3, 0, false},
		{"both signs: symmetric diverging", []float64{-1, 3}, nil, -3, 3, true},
		{"skew, one sign, diverging asked", []float64{0, 3.15}, []Option{WithDiverging()}, -3.15, 3.15, true},
		{"both signs stretched", []float64{-1, 3}, []Option{WithStretch()}, -1, 3, true},
		{"uniform zero", []float64{0, 0}, nil, 0, 1, false},
		{"uniform zero stretched", []float64{0, 0}, []Option{WithStretch()}, 0, 1, false},
		{"uniform 5", []float64{5, 5}, nil, 0, 5, false},
		{"uniform zero diverging", []float64{0, 0}, []Option{WithDiverging()}, -1, 1, true},
		{"no finite value", []float64{math.NaN(), math.Inf(1)}, nil, 0, 1, false},
	}
	for _, c := range cases {
		f := Heatmap(c.name, nil, nil, [][]float64{c.values}, c.opts...)
		s := f.body.(*gridPlot).scale
		if s.lo != c.lo || s.hi != c.hi || s.diverging != c.diverging {
			t.Errorf("%s: scale %+v, want [%g, %g] diverging %v", c.name, s, c.lo, c.hi, c.diverging)
		}
		ticks := s.ticks()
		labels := map[string]bool{}
		for _, tk := range ticks {
			labels[tk.Label] = true
		}
		if len(ticks) < 2 || len(labels) != len(ticks) {
			t.Errorf("%s: colour bar ticks %v, want at least two distinct", c.name, ticks)
		}
		if s.diverging && s.lo < 0 && s.hi > 0 {
			if got := s.color(0); deltaE(got, divergingStops[4]) > 1 {
				t.Errorf("%s: 0 drawn %v, want the neutral colour", c.name, got)
			}
		}
	}
}

func TestHeatmapBinsLargeGrids(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	const rows, cols = 512, 1000
	values := make([][]float64, rows)
	labels := make([]string, rows)
	for i := range values {
		labels[i] = fmt.Sprint("rank ", i)
		values[i] = make([]float64, cols)
		for j := range values[i] {
			values[i][j] = float64(i) + r.Float64()
		}
	}
	values[0][0] = math.NaN()
	f := Heatmap("big", labels, nil, values, WithYLabel("process"))
	if _, h := f.Size(); h > gridChromeH+gridMaxDataH {
		t.Errorf("height %g pt for %d rows", h, rows)
	}
	gp := f.body.(*gridPlot)
	br, bc := len(gp.values), len(gp.values[0])
	if br > 112 || bc > 320 || br < 64 {
		t.Fatalf("binned to %d x %d", br, bc)
	}
	rk, ck := ceilDiv(rows, br), ceilDiv(cols, bc)
	// Brute-force oracle: every cell is the mean of the finite values of its block.
	for bi := 0; bi < br; bi++ {
		for bj := 0; bj < bc; bj++ {
			sum, n := 0.0, 0
			for i := bi * rk; i < min(rows, (bi+1)*rk); i++ {
				for j := bj * ck; j < min(cols, (bj+1)*ck); j++ {
					if !math.IsNaN(values[i][j]) {
						sum += values[i][j]
						n++
					}
				}
			}
			if got := gp.values[bi][bj]; math.Abs(got-sum/float64(n)) > 1e-9 {
				t.Fatalf("cell %d,%d = %g, want %g", bi, bj, got, sum/float64(n))
			}
		}
	}
	if want := fmt.Sprintf("process (binned by %d, mean)", rk); f.plot.Y.Label.Text != want {
		t.Errorf("y label %q, want %q", f.plot.Y.Label.Text, want)
	}
	if !strings.Contains(f.plot.X.Label.Text, "binned by") {
		t.Errorf("x label %q does not say the columns are binned", f.plot.X.Label.Text)
	}
	if got := f.plot.Y.Tick.Marker.(labelTicks).labels[1]; got != fmt.Sprintf("rank %d–%d", rk, 2*rk-1) {
		t.Errorf("second row label %q", got)
	}
	b, _ := f.MIMEBundle()["image/png"].([]byte)
	if len(b) > 400<<10 {
		t.Errorf("PNG of the binned heatmap is %d bytes", len(b))
	}
	// Small grids are drawn as they are.
	small := Heatmap("small", nil, nil, values[:10])
	if gp := small.body.(*gridPlot); len(gp.values) != 10 {
		t.Errorf("10 rows binned to %d", len(gp.values))
	}
}

func TestMIMEBundle(t *testing.T) {
	f := figures()["lines"]
	mb := f.MIMEBundle()
	b, ok := mb["image/png"].([]byte)
	if !ok {
		t.Fatalf("image/png is %T", mb["image/png"])
	}
	if _, ok := mb["image/svg+xml"]; ok {
		t.Error("the default bundle has image/svg+xml, which nbconvert blanks")
	}
	if got, want := mb["text/plain"], "<Figure Metrics 853x427>"; got != want {
		t.Errorf("text/plain %q, want %q", got, want)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	md, _ := f.MIMEMetadata()["image/png"].(map[string]any)
	if md["width"] != 853 || md["height"] != 427 {
		t.Errorf("metadata %v, want width 853 and height 427 (CSS pixels)", md)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); math.Abs(float64(w-2*853)) > 1 || math.Abs(float64(h-2*427)) > 1 {
		t.Errorf("PNG is %dx%d, want twice 853x427", w, h)
	}
	s := f.SVGDisplay()
	smb := s.MIMEBundle()
	if str, ok := smb["image/svg+xml"].(string); !ok || !strings.Contains(str, "<svg") {
		t.Errorf("SVGDisplay bundle image/svg+xml is %T", smb["image/svg+xml"])
	}
	if _, ok := smb["image/png"]; ok {
		t.Error("SVGDisplay bundle also has a PNG")
	}
	// nbconvert's sanitiser blanks inline SVG but keeps an <img> with a data URI.
	if h, _ := smb["text/html"].(string); !strings.HasPrefix(h, `<img src="data:image/svg+xml;base64,`) || !strings.Contains(h, `width="853"`) {
		t.Errorf("SVGDisplay text/html %.80q", h)
	}
	if _, ok := s.MIMEMetadata()["image/svg+xml"]; !ok {
		t.Errorf("SVGDisplay metadata %v", s.MIMEMetadata())
	}
	if _, ok := f.MIMEBundle()["image/png"]; !ok {
		t.Error("SVGDisplay changed the original figure")
	}
}

func TestYRange(t *testing.T) {
	f := Lines("d", "x", "y", Series{X: []float64{0, 1, 2}, Y: []float64{0.378, 0.405, 0.39}})
	g := f.YRange(0, 1)
	if g.plot.Y.Min != 0 || g.plot.Y.Max != 1 {
		t.Errorf("y axis [%g, %g], want [0, 1]", g.plot.Y.Min, g.plot.Y.Max)
	}
	if f.plot.Y.Min != 0.378 {
		t.Errorf("YRange changed the original: y min %g", f.plot.Y.Min)
	}
	if h := Bars("b", []string{"a"}, []float64{1}); h.YRange(0, 1) != h {
		t.Error("YRange changed a bar chart")
	}
}

func TestNiceTicks(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ranges := [][2]float64{{0, 1}, {0.378, 0.405}, {-3.15, 3.15}, {0, 100}, {0, 1e7}, {1e6, 1e6 + 1}, {-1e-6, 2e-6}, {5, 5.0001}}
	for i := 0; i < 200; i++ {
		lo := (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(16)-8))
		ranges = append(ranges, [2]float64{lo, lo + r.Float64()*math.Pow(10, float64(r.IntN(16)-8))})
	}
	for _, rg := range ranges {
		lo, hi := rg[0], rg[1]
		if !(hi > lo) {
			continue
		}
		ticks := niceTicks(lo, hi, 5)
		if len(ticks) < 2 || len(ticks) > 11 {
			t.Errorf("[%g, %g]: %d ticks %v", lo, hi, len(ticks), ticks)
			continue
		}
		seen := map[string]bool{}
		for _, tk := range ticks {
			if tk.Value < lo-(hi-lo)*1e-9 || tk.Value > hi+(hi-lo)*1e-9 || seen[tk.Label] {
				t.Errorf("[%g, %g]: tick %v outside or repeated in %v", lo, hi, tk, ticks)
			}
			seen[tk.Label] = true
		}
	}
	var got []string
	for _, tk := range niceTicks(0, 1, 5) {
		got = append(got, tk.Label)
	}
	if strings.Join(got, " ") != "0 0.2 0.4 0.6 0.8 1" && strings.Join(got, " ") != "0 0.5 1" {
		t.Errorf("[0, 1] ticks %v", got)
	}
}

// TestFullHeightLane: a lane of states beside lanes of nested calls used to be a thin strip at
// the top of its lane.
func TestFullHeightLane(t *testing.T) {
	calls := []Bar{{Start: 0, End: 10, Level: 0, Label: "main", Color: 0}, {Start: 1, End: 9, Level: 1, Label: "f", Color: 1},
		{Start: 2, End: 8, Level: 2, Label: "g", Color: 2}}
	states := []Bar{{Start: 0, End: 10, Label: "Diff", Fill: StateColor(1)}}
	f := Timeline("", []Lane{{Name: "calls", Bars: calls}, {Name: "state", Bars: states, FullHeight: true}})
	rec := &recorder.Canvas{}
	if err := f.render(draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: f.width, Y: f.height}}}); err != nil {
		t.Fatal(err)
	}
	heights := map[color.Color]vg.Length{}
	var cur color.Color
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur = a.Color
		case *recorder.Fill:
			lo, hi := vg.Length(math.Inf(1)), vg.Length(math.Inf(-1))
			for _, comp := range a.Path {
				if comp.Type == vg.MoveComp || comp.Type == vg.LineComp {
					lo, hi = min(lo, comp.Pos.Y), max(hi, comp.Pos.Y)
				}
			}
			heights[cur] = max(heights[cur], hi-lo)
		}
	}
	main, state := heights[Categorical(0)], heights[StateColor(1)]
	if main == 0 || state < 2.5*main {
		t.Errorf("state bar %g pt high, a level-0 call bar %g pt: the state does not fill its lane", state, main)
	}
}

// TestLongLaneNamesLeaveRoom: a lane or row label is shortened to a quarter of the figure and a
// legend entry to 28%, so that the chart keeps its width.
func TestLongLaneNamesLeaveRoom(t *testing.T) {
	name := strings.Repeat("MPI Rank 3 / Thread 1 ", 10)
	for _, f := range []*Figure{
		Timeline("t", []Lane{{Name: name, Bars: []Bar{{Start: 0, End: 1, Label: name, Color: -1}}}}),
		Lines("l", "", "", Series{Name: name, X: []float64{0, 1}, Y: []float64{0, 1}}),
		Heatmap("h", []string{name}, nil, [][]float64{{1, 2}}),
		Bars("b", []string{name}, []float64{1}),
	} {
		if f.sideW > 0.3*f.width {
			t.Errorf("%s: legend column %g pt wide in a %g pt figure", f.title, f.sideW, f.width)
			continue
		}
		c := draw.Crop(canvasFor(f), margin, -margin, margin, -margin)
		main := f.mainCanvas(c, f.sideW)
		if da := f.plotFor(main).DataCanvas(main); da.Max.X-da.Min.X < 0.4*f.width {
			t.Errorf("%s: data area %g pt wide in a %g pt figure", f.title, da.Max.X-da.Min.X, f.width)
		}
	}
}

// TestMatrixLabelsEveryRow: a 28-function call matrix labelled every other row and wrote no
// values, its rows being too low.
func TestMatrixLabelsEveryRow(t *testing.T) {
	const n = 28
	names := make([]string, n)
	m := make([][]float64, n)
	for i := range m {
		names[i] = fmt.Sprint("function_", i)
		m[i] = make([]float64, n)
		m[i][(i*7)%n] = float64(i + 1)
	}
	f := Matrix("calls", names, names, m)
	if step := f.plot.Y.Tick.Marker.(labelTicks).step; step != 1 {
		t.Errorf("row labels every %d rows", step)
	}
	texts := map[string]int{}
	for _, x := range drawnTexts(t, f) {
		texts[x.s]++
	}
	for i := 0; i < n; i++ {
		if texts[fmt.Sprint(i+1)] == 0 {
			t.Errorf("value %d not written", i+1)
		}
	}
	if texts["0"] > 1 { // the colour bar's 0 only
		t.Errorf("zeros written %d times", texts["0"])
	}
}

// TestHeatmapBinMaxColdWarmMarks checks the options of the imbalance heatmap: a binned block
// shows its largest finite value (one hot cell among many stays hot), the cold-warm scale runs
// from blue to red, and marks become vertical lines at their x positions.
func TestHeatmapBinMaxColdWarmMarks(t *testing.T) {
	rows, cols := 1000, 20
	values := make([][]float64, rows)
	for i := range values {
		values[i] = make([]float64, cols)
		for j := range values[i] {
			values[i][j] = float64((i*7 + j*3) % 11)
		}
	}
	values[537][4] = 100
	values[3][5] = math.NaN()
	f := Heatmap("max", nil, nil, values, WithBinMax(), WithColdWarm(), WithXRange(0, 2), WithMarks(0.5, 1, 3))
	gp := f.body.(*gridPlot)
	rk := ceilDiv(rows, len(gp.values))
	if rk < 2 {
		t.Fatalf("not binned: %d rows", len(gp.values))
	}
	for bi := range gp.values {
		for j := range cols {
			want := math.Inf(-1)
			for i := bi * rk; i < min(rows, (bi+1)*rk); i++ {
				if !math.IsNaN(values[i][j]) {
					want = max(want, values[i][j])
				}
			}
			if got := gp.values[bi][j]; got != want {
				t.Fatalf("cell %d,%d = %g, want the block's max %g", bi, j, got, want)
			}
		}
	}
	if want := fmt.Sprintf("rows binned by %d, max", rk); f.plot.Y.Label.Text != want {
		t.Errorf("y label %q, want %q", f.plot.Y.Label.Text, want)
	}
	if lo, hi := gp.scale.colorAt(0), gp.scale.colorAt(1); lo != color.Color(coldWarmStops[0]) || hi != color.Color(coldWarmStops[len(coldWarmStops)-1]) {
		t.Errorf("cold-warm scale ends %v .. %v", lo, hi)
	}
	if xs, want := gp.marks, []float64{5, 10}; !slices.Equal(xs, want) { // 0.5 and 1 of [0, 2] over 20 columns; 3 is outside
		t.Errorf("mark lines at columns %v, want %v", xs, want)
	}
	many := Heatmap("many", nil, nil, values, WithXRange(0, 2), WithMarks(0.1, 0.2, 0.3, 0.4, 0.5, 0.6))
	if n := len(many.body.(*gridPlot).marks); n != 0 || !strings.Contains(many.plot.X.Label.Text, "6 marks not drawn") {
		t.Errorf("6 marks over 20 columns: %d drawn, x label %q", n, many.plot.X.Label.Text)
	}
}
