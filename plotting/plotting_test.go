package plotting

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"
)

// sampleLanes is a small SPMD-like timeline: main > compute / MPI calls, with levels.
func sampleLanes(nLanes, iters int) []Lane {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"compute", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "io_write"}
	lanes := make([]Lane, nLanes)
	for l := range lanes {
		t := 0.0
		bars := []Bar{}
		start := t
		for i := 0; i < iters; i++ {
			for k, name := range names[:4] {
				d := 1 + r.Float64()*3
				if k == 0 {
					d *= 4
				}
				bars = append(bars, Bar{Start: t, End: t + d, Level: 1, Label: name, Color: -1})
				if k == 0 {
					bars = append(bars, Bar{Start: t + d/4, End: t + d/2, Level: 2, Label: "io_write", Color: -1})
				}
				t += d
			}
		}
		bars = append(bars, Bar{Start: start, End: t, Level: 0, Label: "main", Color: -1})
		lanes[l] = Lane{Name: fmt.Sprintf("rank %d", l), Bars: bars}
	}
	return lanes
}

func figures() map[string]*Figure {
	x := make([]float64, 200)
	y1, y2 := make([]float64, 200), make([]float64, 200)
	for i := range x {
		x[i] = float64(i)
		y1[i] = math.Sin(float64(i) / 15)
		y2[i] = 0.5 * math.Cos(float64(i)/10)
	}
	heat := make([][]float64, 16)
	for i := range heat {
		heat[i] = make([]float64, 40)
		for j := range heat[i] {
			heat[i][j] = math.Sin(float64(i)/3) * math.Cos(float64(j)/7)
		}
	}
	heat[3][5] = math.NaN()
	big := make([][]float64, 300)
	for i := range big {
		big[i] = make([]float64, 400)
		for j := range big[i] {
			big[i][j] = float64((i * j) % 97)
		}
	}
	matrix := [][]float64{{0, 12, 3, 0}, {1, 0, 250, 7}, {0, 40, 0, 2}}
	tl := Timeline("Two ranks <&>", sampleLanes(2, 6), WithXLabel("time (ns)"))
	skew := Lines("skew", "time (ns)", "skew (ns)", Series{Name: "skew", X: x, Y: y2}).Resize(640, 140)
	return map[string]*Figure{
		"timeline":      Timeline("State timeline", sampleLanes(8, 20), WithXLabel("time (ns)")),
		"lines":         Lines("Metrics", "time (s)", "value", Series{Name: "sin", X: x, Y: y1}, Series{Name: "cos/2", X: x, Y: y2}),
		"heatmap":       Heatmap("Process x time", nil, nil, heat, WithXLabel("time bin"), WithYLabel("process")),
		"bars":          Bars("Exclusive time", []string{"compute", "MPI_Send", "MPI_Allreduce", "io_write <x>"}, []float64{12.5, 3.25, -1.5, math.NaN()}),
		"boxes":         Boxes("Invocation time", []Box{{"compute", 1, 2, 3, 4, 6}, {"MPI_Recv", 0.5, 0.7, 0.8, 1.5, 5}}),
		"matrix":        Matrix("Calls: caller x callee", []string{"main", "solve", "exchange"}, []string{"solve", "exchange", "MPI_Send", "MPI_Recv"}, matrix),
		"stack":         Stack("Aligned pair", tl, skew),
		"heatmap_large": Heatmap("300 processes x 400 bins (drawn as an image)", nil, nil, big),
	}
}

// checkRender renders f as PNG and SVG and checks that both are well-formed and sized.
func checkRender(t *testing.T, name string, f *Figure) {
	t.Helper()
	b, err := f.PNG()
	if err != nil {
		t.Fatalf("%s: PNG: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: decoding PNG: %v", name, err)
	}
	w, h := f.Size()
	if got, want := img.Bounds().Dx(), int(math.Round(w*96/72)); got != want {
		t.Errorf("%s: PNG width %d px, want %d", name, got, want)
	}
	if got, want := img.Bounds().Dy(), int(math.Round(h*96/72)); got != want {
		t.Errorf("%s: PNG height %d px, want %d", name, got, want)
	}
	if !nonWhite(t, b) {
		t.Errorf("%s: PNG is blank", name)
	}
	s, err := f.SVG()
	if err != nil {
		t.Fatalf("%s: SVG: %v", name, err)
	}
	if !bytes.HasPrefix(s, []byte("<?xml")) && !bytes.HasPrefix(s, []byte("<svg")) {
		t.Errorf("%s: SVG starts with %q", name, s[:min(len(s), 20)])
	}
	dec := xml.NewDecoder(bytes.NewReader(s))
	elems := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: SVG is not well-formed XML: %v", name, err)
		}
		if _, ok := tok.(xml.StartElement); ok {
			elems++
		}
	}
	if elems < 3 {
		t.Errorf("%s: SVG has only %d elements", name, elems)
	}
	if dir := os.Getenv("PLOTTING_OUT"); dir != "" { // for looking at the pictures
		os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644)
		os.WriteFile(filepath.Join(dir, name+".svg"), s, 0o644)
	}
}

// nonWhite reports whether the PNG has at least one pixel that is not white.
func nonWhite(t *testing.T, b []byte) bool {
	img, _ := png.Decode(bytes.NewReader(b))
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if cr, cg, cb, _ := img.At(x, y).RGBA(); cr != 0xffff || cg != 0xffff || cb != 0xffff {
				return true
			}
		}
	}
	return false
}

func TestRenderAll(t *testing.T) {
	for name, f := range figures() {
		t.Run(name, func(t *testing.T) { checkRender(t, name, f) })
	}
}

func TestEmptyInputsGiveNoDataFigure(t *testing.T) {
	cases := map[string]*Figure{
		"timeline nil":     Timeline("t", nil),
		"timeline no bars": Timeline("t", []Lane{{Name: "a"}}),
		"lines":            Lines("t", "x", "y"),
		"lines empty":      Lines("t", "x", "y", Series{Name: "s"}),
		"lines all NaN":    Lines("t", "x", "y", Series{X: []float64{math.NaN()}, Y: []float64{1}}),
		"heatmap":          Heatmap("t", nil, nil, nil),
		"heatmap no cols":  Heatmap("t", []string{"a"}, []string{}, [][]float64{{}}),
		"bars":             Bars("t", nil, nil),
		"boxes":            Boxes("t", nil),
		"matrix":           Matrix("t", nil, nil, nil),
		"stack":            Stack("t"),
		"stack nil parts":  Stack("t", nil, nil),
	}
	for name, f := range cases {
		if f.note != "no data" {
			t.Errorf("%s: note %q, want \"no data\"", name, f.note)
		}
		checkRender(t, "empty_"+strings.ReplaceAll(name, " ", "_"), f)
	}
}

func TestProgrammerErrorsPanicWithNamedMessage(t *testing.T) {
	cases := []struct {
		name, want string
		f          func()
	}{
		{"lines", "plotting.Lines: series 0 (\"s\"): 2 X values but 1 Y values", func() {
			Lines("t", "", "", Series{Name: "s", X: []float64{1, 2}, Y: []float64{1}})
		}},
		{"bars", "plotting.Bars: 2 labels but 1 values", func() { Bars("t", []string{"a", "b"}, []float64{1}) }},
		{"heatmap ragged", "plotting.Heatmap: row 1 has 1 values, row 0 has 2", func() {
			Heatmap("t", nil, nil, [][]float64{{1, 2}, {3}})
		}},
		{"heatmap labels", "plotting.Heatmap: 1 row labels for 2 rows", func() {
			Heatmap("t", []string{"a"}, nil, [][]float64{{1}, {3}})
		}},
		{"matrix labels", "plotting.Matrix: 3 column labels for 1 columns", func() {
			Matrix("t", nil, []string{"a", "b", "c"}, [][]float64{{1}})
		}},
		{"timeline end<start", "plotting.Timeline: lane 0 (\"p\") bar 0: invalid interval [2, 1]", func() {
			Timeline("t", []Lane{{Name: "p", Bars: []Bar{{Start: 2, End: 1}}}})
		}},
		{"timeline level", "negative Level -1", func() {
			Timeline("t", []Lane{{Name: "p", Bars: []Bar{{Start: 1, End: 2, Level: -1}}}})
		}},
		{"boxes order", "plotting.Boxes: box 0 (\"f\"): percentiles not ordered", func() {
			Boxes("t", []Box{{Label: "f", P2: 1, P25: 0, P50: 2, P75: 3, P98: 4}})
		}},
		{"boxes NaN", "plotting.Boxes: box 0", func() {
			Boxes("t", []Box{{Label: "f", P2: math.NaN(), P25: 0, P50: 2, P75: 3, P98: 4}})
		}},
	}
	for _, c := range cases {
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Errorf("%s: no panic", c.name)
					return
				}
				if msg := fmt.Sprint(r); !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %q, want it to contain %q", c.name, msg, c.want)
				}
			}()
			c.f()
		}()
	}
}

func TestMergeBars(t *testing.T) {
	ci := func(b Bar) color.Color { return Categorical(b.Color) }
	bars := []Bar{
		{Start: 0, End: 10, Color: 1},      // wide
		{Start: 10.1, End: 10.2, Color: 2}, // narrow after a wide bar: not merged into it
		{Start: 20, End: 20.3, Color: 3},   // narrow, far away: new bar
		{Start: 20.4, End: 20.9, Color: 4}, // narrow, group stays within a pixel: merged, longer, gives the colour
		{Start: 20.9, End: 21.2, Color: 5}, // narrow, but the group would exceed a pixel: new group
		{Start: 30, End: 35, Color: 6},     // wide, alone
		{Start: 35, End: 40, Color: 7},     // wide, touching: not merged (neither narrow)
	}
	got := mergeBars(bars, 1, ci)
	want := []drawnBar{
		{start: 0, end: 10, color: Categorical(1)},
		{start: 10.1, end: 10.2, color: Categorical(2)},
		{start: 20, end: 20.9, color: Categorical(4), merged: true},
		{start: 20.9, end: 21.2, color: Categorical(5)},
		{start: 30, end: 35, color: Categorical(6)},
		{start: 35, end: 40, color: Categorical(7)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d bars %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if math.Abs(g.start-w.start) > 1e-9 || math.Abs(g.end-w.end) > 1e-9 || g.color != w.color || g.merged != w.merged {
			t.Errorf("bar %d: got %+v, want %+v", i, g, w)
		}
	}
}

// TestMergeBarsBound checks the promise made in Timeline's documentation: after merging, a
// level holds at most about two bars per pixel, however many bars come in.
func TestMergeBarsBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var bars []Bar
	x := 0.0
	for i := 0; i < 200000; i++ {
		d := r.ExpFloat64() * 0.01
		bars = append(bars, Bar{Start: x, End: x + d, Color: r.IntN(5)})
		x += d + r.ExpFloat64()*0.005
	}
	const pixels = 800
	px := x / pixels
	got := mergeBars(bars, px, func(b Bar) color.Color { return Categorical(b.Color) })
	if len(got) > 2*pixels+2 {
		t.Errorf("%d bars after merging for %d pixels", len(got), pixels)
	}
	// Merging must cover exactly the span of the input.
	if got[0].start != 0 || got[len(got)-1].end < bars[len(bars)-1].End {
		t.Errorf("merged span [%g, %g], want [0, %g]", got[0].start, got[len(got)-1].end, bars[len(bars)-1].End)
	}
}

func TestTimelineLargeRendersQuickly(t *testing.T) {
	if testing.Short() {
		t.Skip("large timeline in -short mode")
	}
	lanes := make([]Lane, 16)
	r := rand.New(rand.NewPCG(5, 6))
	for l := range lanes {
		bars := make([]Bar, 0, 1<<16)
		x := 0.0
		for i := 0; i < 1<<16; i++ { // 16 x 65536 = 1M bars
			d := r.Float64() * 10
			bars = append(bars, Bar{Start: x, End: x + d, Level: i % 3, Label: fmt.Sprint("f", i%7), Color: -1})
			x += d
		}
		lanes[l] = Lane{Name: fmt.Sprint("rank ", l), Bars: bars}
	}
	start := time.Now()
	f := Timeline("1M bars", lanes)
	checkRender(t, "timeline_1M", f)
	t.Logf("1M-bar timeline: build + PNG + SVG in %v", time.Since(start))
}

func TestSaveByExtension(t *testing.T) {
	dir := t.TempDir()
	f := figures()["bars"]
	for _, ext := range []string{".png", ".svg", ".pdf"} {
		p := filepath.Join(dir, "f"+ext)
		f.Save(p)
		b, _ := os.ReadFile(p)
		magic := map[string]string{".png": "\x89PNG", ".svg": "<?xml", ".pdf": "%PDF"}[ext]
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s starts with %q", ext, b[:min(8, len(b))])
		}
	}
	err := f.save(filepath.Join(dir, "f.gif"))
	if err == nil || !strings.Contains(err.Error(), "f.gif") {
		t.Errorf("Save(.gif) error %v, want one naming the file", err)
	}
	// a failed save fails the cell (issue 32): Save panics with the error
	missing := filepath.Join(dir, "no-such-dir", "f.png")
	var p any
	func() {
		defer func() { p = recover() }()
		f.Save(missing)
	}()
	if e, ok := p.(error); !ok || !strings.Contains(e.Error(), missing) || !errors.Is(e, os.ErrNotExist) {
		t.Errorf("Save into a missing directory panicked with %v, want an error naming the file", p)
	}
}

func TestCategoricalStable(t *testing.T) {
	if Categorical(0) == Categorical(1) {
		t.Error("first two colours equal")
	}
	if Categorical(3) != Categorical(3+len(categorical)) || Categorical(-1) != Categorical(len(categorical)-1) {
		t.Error("palette does not cycle")
	}
}

func TestStackAlignsDataAreas(t *testing.T) {
	// A timeline with long lane names and a legend, a line chart with short tick labels and no
	// legend, and a note: after layout the two charts' data areas span the same x range.
	tl := Timeline("", []Lane{{Name: "a very long lane name", Bars: []Bar{{Start: 0, End: 10, Label: "x", Color: 0}}}})
	ln := Lines("", "", "", Series{X: []float64{0, 10}, Y: []float64{0, 1}})
	s := Stack("", tl, ln, Bars("empty", nil, nil))
	l := s.stackLayout(canvasFor(s))
	var mins, maxs []float64
	for i, p := range s.parts[:2] {
		main := p.mainCanvas(l.canvases[i], l.sideW)
		unpadded := p.plot.DataCanvas(main)
		main.Min.X += l.padL[i]
		main.Max.X -= l.padR[i]
		da := p.plot.DataCanvas(main)
		mins, maxs = append(mins, float64(da.Min.X)), append(maxs, float64(da.Max.X))
		if i == 1 && unpadded.Min.X == da.Min.X {
			t.Error("the line chart needed padding to line up but got none")
		}
	}
	if math.Abs(mins[0]-mins[1]) > 0.01 || math.Abs(maxs[0]-maxs[1]) > 0.01 {
		t.Errorf("data areas [%g, %g] and [%g, %g] differ", mins[0], maxs[0], mins[1], maxs[1])
	}
	if h0, h1 := l.canvases[0].Max.Y-l.canvases[0].Min.Y, l.canvases[1].Max.Y-l.canvases[1].Min.Y; math.Abs(float64(h0/h1-tl.height/ln.height)) > 1e-6 {
		t.Errorf("part heights %g, %g not proportional to %g, %g", h0, h1, tl.height, ln.height)
	}
}

func TestDecimateKeepsEnvelope(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	n := 100000
	xy := make(plotter.XYs, n)
	for i := range xy {
		xy[i] = plotter.XY{X: float64(i) * 0.001, Y: r.NormFloat64()}
	}
	const buckets = 500
	got := decimate(xy, buckets)
	if len(got) > 4*buckets || len(got) < buckets {
		t.Fatalf("%d points after decimation to %d buckets", len(got), buckets)
	}
	// Every bucket's extremes survive, so the global ones do, and x stays ascending.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range xy {
		lo, hi = min(lo, p.Y), max(hi, p.Y)
	}
	glo, ghi := math.Inf(1), math.Inf(-1)
	for i, p := range got {
		glo, ghi = min(glo, p.Y), max(ghi, p.Y)
		if i > 0 && p.X < got[i-1].X {
			t.Fatalf("x not ascending at %d", i)
		}
	}
	if glo != lo || ghi != hi || got[0] != xy[0] || got[len(got)-1] != xy[n-1] {
		t.Errorf("envelope lost: [%g, %g] vs [%g, %g]", glo, ghi, lo, hi)
	}
	// Brute-force oracle: the max of every bucket of the input is in the output.
	bucketMax := map[int]float64{}
	for _, p := range xy {
		b := min(int(buckets*(p.X-xy[0].X)/(xy[n-1].X-xy[0].X)), buckets-1)
		if v, ok := bucketMax[b]; !ok || p.Y > v {
			bucketMax[b] = p.Y
		}
	}
	kept := map[float64]bool{}
	for _, p := range got {
		kept[p.Y] = true
	}
	for b, v := range bucketMax {
		if !kept[v] {
			t.Fatalf("bucket %d: max %g dropped", b, v)
		}
	}
	// Unsorted or short series are left alone.
	if d := decimate(xy[:100], buckets); len(d) != 100 {
		t.Error("short series decimated")
	}
	xy[5].X = -1
	if d := decimate(xy, buckets); len(d) != n {
		t.Error("unsorted series decimated")
	}
}
