package plotting

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one line of a [Lines] chart; X and Y have equal length.
type Series struct {
	Name string
	X, Y []float64
}

// Lines draws one line per series in palette order, with a legend when there is more than one
// series or a series has a name. Points with a non-finite X or Y are skipped. A series with
// more than 4*2048 points and ascending X is reduced before drawing to the first, lowest,
// highest and last point of each of 2048 equal x ranges, which keeps the drawn envelope exact
// at notebook resolutions. Lines panics if a series has len(X) != len(Y).
func Lines(title, xlabel, ylabel string, series ...Series) *Figure {
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			panic(fmt.Sprintf("plotting.Lines: series %d (%q): %d X values but %d Y values", i, s.Name, len(s.X), len(s.Y)))
		}
	}
	return lines(title, xlabel, ylabel, series, nil)
}

// lines draws Lines, restricted to x in window (XRange) when it is not nil.
func lines(title, xlabel, ylabel string, series []Series, window *[2]float64) *Figure {
	p := newPlot(title)
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	var entries []legendEntry
	points := 0
	lv := &linesVega{series: make([]plotter.XYs, len(series)), names: make([]string, len(series)), xlabel: xlabel, ylabel: ylabel,
		xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
	wymin, wymax := math.Inf(1), math.Inf(-1) // the y range of what a window shows
	for i, s := range series {
		xy := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if finite(s.X[j]) && finite(s.Y[j]) {
				xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
			}
		}
		var ylo, yhi float64
		if window != nil {
			xy, ylo, yhi = clipSeries(xy, window[0], window[1])
		}
		if len(xy) == 0 {
			continue
		}
		points += len(xy)
		lv.series[i] = xy
		for _, q := range xy {
			lv.xmin, lv.xmax = min(lv.xmin, q.X), max(lv.xmax, q.X)
			lv.ymin, lv.ymax = min(lv.ymin, q.Y), max(lv.ymax, q.Y)
		}
		wymin, wymax = min(wymin, ylo), max(wymax, yhi)
		xy = decimate(xy, decimateBuckets)
		l, err := plotter.NewLine(xy)
		if err != nil {
			panic(fmt.Sprintf("plotting.Lines: series %d (%q): %v", i, s.Name, err))
		}
		l.LineStyle = draw.LineStyle{Color: Categorical(i), Width: 1.5}
		p.Add(l)
		if len(xy) == 1 { // a single point has no line to show
			sc, _ := plotter.NewScatter(xy)
			sc.GlyphStyle = draw.GlyphStyle{Color: Categorical(i), Radius: 2.5, Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		name := s.Name
		if name == "" {
			name = "series " + strconv.Itoa(i)
		}
		lv.names[i] = name
		entries = append(entries, legendEntry{name: name, sw: swatch{c: Categorical(i), line: true}})
	}
	if points == 0 {
		f := noData(title, options{})
		if window != nil {
			f.note = fmt.Sprintf("no data in the x range [%g, %g]", window[0], window[1])
		}
		f.window = func(lo, hi float64) *Figure { return lines(title, xlabel, ylabel, series, &[2]float64{lo, hi}) }
		return f
	}
	p.Add(plotter.NewGrid())
	if window != nil {
		// The y range of what the window shows, not of the points just outside it that carry
		// the lines to its edges.
		lv.xmin, lv.xmax, lv.ymin, lv.ymax = window[0], window[1], wymin, wymax
		p.X.Min, p.X.Max = lv.xmin, lv.xmax
		p.Y.Min, p.Y.Max = lv.ymin, lv.ymax
	}
	fig := &Figure{title: title, width: defaultWidth, height: defaultHeight, plot: p, lines: true, vega: lv.spec,
		window: func(lo, hi float64) *Figure { return lines(title, xlabel, ylabel, series, &[2]float64{lo, hi}) }}
	if len(entries) > 1 || (len(series) == 1 && series[0].Name != "") {
		fig.side, fig.sideW = sideLegend(entries, 0, legendWidth(fig.width))
		lv.legend = true
	}
	return fig
}

// YRange returns a copy of f, a [Lines] chart, whose y axis spans at least [lo, hi]: a
// measure in [0, 1] drawn on [0, 1] does not make 0.378 to 0.405 look like all the difference
// there is. Other figures are returned unchanged. YRange panics unless lo <= hi, both finite.
func (f *Figure) YRange(lo, hi float64) *Figure {
	if !(lo <= hi) || !finite(lo) || !finite(hi) {
		panic(fmt.Sprintf("plotting.Figure.YRange: range [%g, %g] is empty or not finite", lo, hi))
	}
	if !f.lines || f.plot == nil {
		return f
	}
	p := *f.plot
	p.Y.Min, p.Y.Max = min(p.Y.Min, lo), max(p.Y.Max, hi)
	g := *f
	g.plot = &p
	g.yRange = &[2]float64{lo, hi}
	if f.yRange != nil {
		g.yRange = &[2]float64{min(lo, f.yRange[0]), max(hi, f.yRange[1])}
	}
	return &g
}

// clipSeries keeps the points of xy that lie in [lo, hi] and those just outside that carry a
// line into it (the ends of segments crossing an edge), and returns the y range of the line
// within [lo, hi] (the points inside and the line's values at the edges it crosses); ylo > yhi
// when nothing lies in the range.
func clipSeries(xy plotter.XYs, lo, hi float64) (plotter.XYs, float64, float64) {
	ylo, yhi := math.Inf(1), math.Inf(-1)
	crosses := func(a, b plotter.XY) bool { return min(a.X, b.X) <= hi && max(a.X, b.X) >= lo }
	var out plotter.XYs
	for j, q := range xy {
		in := q.X >= lo && q.X <= hi
		if in {
			ylo, yhi = min(ylo, q.Y), max(yhi, q.Y)
		}
		if j > 0 && crosses(xy[j-1], q) {
			a := xy[j-1]
			for _, e := range []float64{lo, hi} {
				if a.X != q.X && min(a.X, q.X) < e && e < max(a.X, q.X) {
					y := a.Y + (q.Y-a.Y)*(e-a.X)/(q.X-a.X)
					ylo, yhi = min(ylo, y), max(yhi, y)
				}
			}
		}
		if in || (j > 0 && crosses(xy[j-1], q)) || (j+1 < len(xy) && crosses(q, xy[j+1])) {
			out = append(out, q)
		}
	}
	if ylo > yhi {
		return nil, ylo, yhi
	}
	return out, ylo, yhi
}

// XRange returns a copy of f that shows x from lo to hi only, in the x axis's data units
// (seconds on the time axes of tracebook's figures): a window of a timeline (bars clipped to it;
// lanes keep their rows), of a line chart (its y axis fitted to what the window shows) or of a
// heatmap whose columns are on a numeric axis (WithXRange; the columns that overlap the window
// are shown whole, so the axis reaches to their edges). A Stack applies it to each part, so
// that aligned parts stay aligned. Other figures (bars, matrices of labelled columns, graphs)
// are returned unchanged. The size, display and y range set on f are kept. XRange panics
// unless lo < hi, both finite.
func (f *Figure) XRange(lo, hi float64) *Figure {
	if !(lo < hi) || !finite(lo) || !finite(hi) {
		panic(fmt.Sprintf("plotting.Figure.XRange: range [%g, %g] is empty or not finite", lo, hi))
	}
	if f.parts != nil {
		return f.mapParts(func(p *Figure) *Figure { return p.XRange(lo, hi) })
	}
	if f.window == nil {
		return f
	}
	g := f.window(lo, hi)
	g.width, g.height, g.svg = f.width, f.height, f.svg
	g.xUnit, g.yUnit = f.xUnit, f.yUnit
	if f.yRange != nil && g.lines {
		g = g.YRange(f.yRange[0], f.yRange[1])
	}
	return g
}

// XUnit returns a copy of f whose x-axis data are in unit u (see Unit and WithXUnit): for Lines,
// which takes no options. A Stack applies it to each part.
func (f *Figure) XUnit(u Unit) *Figure {
	if f.parts != nil {
		return f.mapParts(func(p *Figure) *Figure { return p.XUnit(u) })
	}
	g := *f
	g.xUnit = u
	return &g
}

// YUnit returns a copy of f whose y-axis data are in unit u (see Unit): the values of a Lines
// chart; axes of labelled rows are not affected. A Stack applies it to each part.
func (f *Figure) YUnit(u Unit) *Figure {
	if f.parts != nil {
		return f.mapParts(func(p *Figure) *Figure { return p.YUnit(u) })
	}
	g := *f
	g.yUnit = u
	return &g
}

// mapParts returns a copy of the stack f with fn applied to each part.
func (f *Figure) mapParts(fn func(*Figure) *Figure) *Figure {
	g := *f
	g.parts = make([]*Figure, len(f.parts))
	for i, p := range f.parts {
		g.parts[i] = fn(p)
	}
	return &g
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Bars draws a horizontal bar chart, one bar per label from top to bottom, with the value
// written at the end of each bar. Non-finite values are drawn as "n/a". Options: WithSize,
// WithRowHeight, WithPalette (first colour), WithXLabel. Bars panics if len(labels) !=
// len(values).
func Bars(title string, labels []string, values []float64, opts ...Option) *Figure {
	if len(labels) != len(values) {
		panic(fmt.Sprintf("plotting.Bars: %d labels but %d values", len(labels), len(values)))
	}
	o := collect(opts)
	if len(values) == 0 {
		return noData(title, o)
	}
	n := len(values)
	rowH := o.rowHeightOr(18)
	height := o.heightOr(min(max(70+rowH*vg.Length(n), 140), 1400))
	p := newPlot(title)
	p.X.Label.Text, p.Y.Label.Text = o.xlabel, o.ylabel
	lo, hi := 0.0, 0.0
	for _, v := range values {
		if finite(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo == hi {
		hi = 1
	}
	pad := (hi - lo) * 0.12 // room for the value labels
	p.X.Min, p.X.Max = lo-pad*b2f(lo < 0), hi+pad*b2f(hi > 0)
	p.Y.Min, p.Y.Max = 0, float64(n)
	p.Y.Tick.Length = 0
	p.Y.Tick.Marker = rowTicks(p, labels, height-70, o.widthOr(defaultWidth))
	p.Add(plotter.NewGrid())
	p.Add(&barsPlot{values: values, color: o.color(0)})
	return &Figure{title: title, width: o.widthOr(defaultWidth), height: height, plot: p, xUnit: o.xUnit}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

type barsPlot struct {
	values []float64
	color  color.Color
}

func (bp *barsPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(bp.values)
	sty := textStyle(8, color.Gray{Y: 60})
	sty.YAlign = draw.YCenter
	for i, v := range bp.values {
		yc := float64(n-i) - 0.5
		y0, y1 := trY(yc-0.35), trY(yc+0.35)
		if !finite(v) {
			sty.XAlign = draw.XLeft
			c.FillText(sty, vg.Point{X: trX(0) + 3, Y: (y0 + y1) / 2}, "n/a")
			continue
		}
		x0, x1 := trX(0), trX(v)
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		c.SetColor(bp.color)
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}}.Path())
		if y1-y0 >= 6 {
			label := strconv.FormatFloat(v, 'g', 4, 64)
			if v >= 0 {
				sty.XAlign = draw.XLeft
				c.FillText(sty, vg.Point{X: x1 + 3, Y: (y0 + y1) / 2}, label)
			} else {
				sty.XAlign = draw.XRight
				c.FillText(sty, vg.Point{X: x0 - 3, Y: (y0 + y1) / 2}, label)
			}
		}
	}
}

// Box is one box of a [Boxes] chart: the 2nd, 25th, 50th, 75th and 98th percentiles, as in
// Brendel's profile box plots (whiskers at P2 and P98).
type Box struct {
	Label                  string
	P2, P25, P50, P75, P98 float64
}

// Boxes draws horizontal box plots, one per box from top to bottom: a box from P25 to P75, a
// bar at the median and whiskers to P2 and P98. Options as for [Bars]. Boxes panics unless
// P2 <= P25 <= P50 <= P75 <= P98 (which also rejects NaN).
func Boxes(title string, boxes []Box, opts ...Option) *Figure {
	o := collect(opts)
	if len(boxes) == 0 {
		return noData(title, o)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, b := range boxes {
		if !(b.P2 <= b.P25 && b.P25 <= b.P50 && b.P50 <= b.P75 && b.P75 <= b.P98) || !finite(b.P2) || !finite(b.P98) {
			panic(fmt.Sprintf("plotting.Boxes: box %d (%q): percentiles not ordered and finite: %g %g %g %g %g", i, b.Label, b.P2, b.P25, b.P50, b.P75, b.P98))
		}
		lo, hi = min(lo, b.P2), max(hi, b.P98)
	}
	n := len(boxes)
	rowH := o.rowHeightOr(22)
	height := o.heightOr(min(max(70+rowH*vg.Length(n), 140), 1400))
	p := newPlot(title)
	p.X.Label.Text, p.Y.Label.Text = o.xlabel, o.ylabel
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = 0, float64(n)
	p.Y.Tick.Length = 0
	labels := make([]string, n)
	for i, b := range boxes {
		labels[i] = b.Label
	}
	p.Y.Tick.Marker = rowTicks(p, labels, height-70, o.widthOr(defaultWidth))
	p.Add(plotter.NewGrid())
	p.Add(&boxesPlot{boxes: boxes, color: o.color(0)})
	return &Figure{title: title, width: o.widthOr(defaultWidth), height: height, plot: p, xUnit: o.xUnit}
}

type boxesPlot struct {
	boxes []Box
	color color.Color
}

func (bp *boxesPlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, b := range bp.boxes {
		xmin, xmax = min(xmin, b.P2), max(xmax, b.P98)
	}
	return xmin, xmax, 0, float64(len(bp.boxes))
}

func (bp *boxesPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(bp.boxes)
	line := draw.LineStyle{Color: color.Gray{Y: 50}, Width: 1}
	fill := blend(bp.color, 0.45)
	for i, b := range bp.boxes {
		yc := float64(n-i) - 0.5
		y0, y1, ym := trY(yc-0.3), trY(yc+0.3), trY(yc)
		wy0, wy1 := trY(yc-0.15), trY(yc+0.15)
		x2, x25, x50, x75, x98 := trX(b.P2), trX(b.P25), trX(b.P50), trX(b.P75), trX(b.P98)
		c.StrokeLine2(line, x2, ym, x25, ym)
		c.StrokeLine2(line, x75, ym, x98, ym)
		c.StrokeLine2(line, x2, wy0, x2, wy1)
		c.StrokeLine2(line, x98, wy0, x98, wy1)
		r := vg.Rectangle{Min: vg.Point{X: x25, Y: y0}, Max: vg.Point{X: max(x75, x25+0.75), Y: y1}}
		c.SetColor(fill)
		c.Fill(r.Path())
		c.SetLineStyle(line)
		c.Stroke(r.Path())
		c.StrokeLine2(draw.LineStyle{Color: bp.color, Width: 2.5}, x50, y0, x50, y1)
	}
}

// blend mixes c with white; f = 1 keeps c.
func blend(c color.Color, f float64) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(f*float64(v>>8) + (1-f)*255) }
	return color.RGBA{R: mix(r), G: mix(g), B: mix(b), A: 255}
}

// decimateBuckets is the number of x ranges a long series is reduced to, about twice the
// pixel width of a wide figure.
const decimateBuckets = 2048

// decimate reduces a long series with ascending X to the first, lowest, highest and last
// point (in x order) of each of n equal x ranges; other series are returned unchanged.
func decimate(xy plotter.XYs, n int) plotter.XYs {
	if len(xy) <= 4*n {
		return xy
	}
	for i := 1; i < len(xy); i++ {
		if xy[i].X < xy[i-1].X {
			return xy
		}
	}
	x0, span := xy[0].X, xy[len(xy)-1].X-xy[0].X
	if span <= 0 {
		return xy
	}
	out := make(plotter.XYs, 0, 4*n)
	for i := 0; i < len(xy); {
		b := min(int(float64(n)*(xy[i].X-x0)/span), n-1)
		j, lo, hi := i, i, i
		for j < len(xy) && min(int(float64(n)*(xy[j].X-x0)/span), n-1) == b {
			if xy[j].Y < xy[lo].Y {
				lo = j
			}
			if xy[j].Y > xy[hi].Y {
				hi = j
			}
			j++
		}
		keep := []int{i, lo, hi, j - 1}
		slices.Sort(keep)
		for k, idx := range keep {
			if k == 0 || idx != keep[k-1] {
				out = append(out, xy[idx])
			}
		}
		i = j
	}
	return out
}
