package plotting

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Brendel's profile figures (2018): box plots of many series per function, and the call matrix
// of colour-coded box-plot squares.

// SeriesBox is one box of a GroupedBoxes row: the series it belongs to (its colour and legend
// entry), its number of measurements (the box's thickness) and the five percentiles of
// Brendel's box plot.
type SeriesBox struct {
	Series                 int   // index into the series names
	Count                  int64 // measurements; 0 draws nothing
	P2, P25, P50, P75, P98 float64
}

// BoxRow is one row (a function) of a GroupedBoxes chart.
type BoxRow struct {
	Label string
	Boxes []SeriesBox
}

// GroupedBoxes draws Brendel's box-plot profile (Fig. 10-13): one band per row from top to
// bottom, in it one horizontal box plot per series (whiskers at P2 and P98, the box from P25 to
// P75, a bar at the median) in the series' colour, thicker the more measurements it has
// (thickness × (0.25 + 0.75 log(1+n) / log(1+max n))), and left of the boxes the numbers of
// measurements per series on a log scale. The value axis is logarithmic when all values are
// positive and span more than three decades. A legend names the series when there are at most
// 16. Options: WithSize, WithXLabel, WithPalette, WithRowHeight (of a band). GroupedBoxes panics
// unless every box's percentiles are finite and ordered and its series exists.
func GroupedBoxes(title string, series []string, rows []BoxRow, opts ...Option) *Figure {
	const fn = "plotting.GroupedBoxes"
	o := collect(opts)
	lo, hi := math.Inf(1), math.Inf(-1)
	var maxN int64
	for i, r := range rows {
		for j, b := range r.Boxes {
			if b.Series < 0 || b.Series >= len(series) {
				panic(fmt.Sprintf("%s: row %d (%q) box %d: series %d of %d", fn, i, r.Label, j, b.Series, len(series)))
			}
			if b.Count <= 0 {
				continue
			}
			if !(b.P2 <= b.P25 && b.P25 <= b.P50 && b.P50 <= b.P75 && b.P75 <= b.P98) || !finite(b.P2) || !finite(b.P98) {
				panic(fmt.Sprintf("%s: row %d (%q) box %d: percentiles not ordered and finite: %g %g %g %g %g",
					fn, i, r.Label, j, b.P2, b.P25, b.P50, b.P75, b.P98))
			}
			lo, hi = min(lo, b.P2), max(hi, b.P98)
			maxN = max(maxN, b.Count)
		}
	}
	if maxN == 0 {
		return noData(title, o)
	}
	g := &groupedBoxes{rows: rows, nseries: len(series), maxN: maxN, o: o}
	g.x = newValueAxis(lo, hi)
	g.bandH = o.rowHeightOr(vg.Length(min(max(6*len(series)+8, 16), 60)))
	width := o.widthOr(defaultWidth)
	g.labelW = rowLabelWidth(width)
	p := newPlot(title)
	p.HideAxes()
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(g)
	height := o.heightOr(min(vg.Length(len(rows))*g.bandH+groupedChromeH, 1400))
	f := &Figure{title: title, width: width, height: height, plot: p, body: g}
	if len(series) > 1 && len(series) <= 16 {
		entries := make([]legendEntry, len(series))
		for i, s := range series {
			entries[i] = legendEntry{name: s, sw: swatch{c: o.color(i)}}
		}
		f.side, f.sideW = sideLegend(entries, 0, legendWidth(width))
	}
	return f
}

// GroupedBoxes layout in points.
const (
	groupedChromeH = 70 // title and value axis
	groupedCountW  = 70 // the panel of measurement counts
	groupedGap     = 10
	groupedAxisH   = 30
)

type groupedBoxes struct {
	rows    []BoxRow
	nseries int
	maxN    int64
	x       valueAxis
	bandH   vg.Length
	labelW  vg.Length
	o       options
}

func (g *groupedBoxes) Plot(c draw.Canvas, _ *plot.Plot) {
	top := c.Max.Y
	bottom := c.Min.Y + groupedAxisH
	n := len(g.rows)
	bandH := min(g.bandH, (top-bottom)/vg.Length(n))
	labelSty := textStyle(9, color.Black)
	labelSty.XAlign, labelSty.YAlign = draw.XRight, draw.YCenter
	countX0 := c.Min.X + g.labelW + groupedGap
	countX1 := countX0 + groupedCountW
	boxX0, boxX1 := countX1+groupedGap, c.Max.X-4
	grid := draw.LineStyle{Color: color.Gray{Y: 225}, Width: 0.5}
	line := draw.LineStyle{Color: color.Gray{Y: 60}, Width: 0.8}
	maxLog := math.Log1p(float64(g.maxN))
	slot := bandH * 0.86 / vg.Length(g.nseries)
	for i, r := range g.rows {
		y1 := top - vg.Length(i)*bandH
		y0 := y1 - bandH
		if i%2 == 0 {
			c.SetColor(color.Gray{Y: 248})
			c.Fill(vg.Rectangle{Min: vg.Point{X: countX0, Y: y0}, Max: vg.Point{X: boxX1, Y: y1}}.Path())
		}
		c.FillText(labelSty, vg.Point{X: countX0 - groupedGap, Y: (y0 + y1) / 2}, fitMiddle(labelSty, r.Label, g.labelW))
		for _, b := range r.Boxes {
			if b.Count <= 0 {
				continue
			}
			col := g.o.color(b.Series)
			yc := y1 - bandH*0.07 - slot*(vg.Length(b.Series)+0.5)
			// the count panel: bar length by log(1+n)
			cw := vg.Length(math.Log1p(float64(b.Count))/maxLog) * (countX1 - countX0)
			c.SetColor(blend(col, 0.8))
			c.Fill(vg.Rectangle{Min: vg.Point{X: countX1 - cw, Y: yc - slot*0.4}, Max: vg.Point{X: countX1, Y: yc + slot*0.4}}.Path())
			// the box
			th := slot * vg.Length(0.25+0.75*math.Log1p(float64(b.Count))/maxLog) / 2
			px := func(v float64) vg.Length { return boxX0 + vg.Length(g.x.pos(v))*(boxX1-boxX0) }
			x2, x25, x50, x75, x98 := px(b.P2), px(b.P25), px(b.P50), px(b.P75), px(b.P98)
			c.StrokeLine2(draw.LineStyle{Color: col, Width: 0.8}, x2, yc, x98, yc)
			if th >= 1.5 {
				c.StrokeLine2(draw.LineStyle{Color: col, Width: 0.8}, x2, yc-th/2, x2, yc+th/2)
				c.StrokeLine2(draw.LineStyle{Color: col, Width: 0.8}, x98, yc-th/2, x98, yc+th/2)
			}
			rect := vg.Rectangle{Min: vg.Point{X: x25, Y: yc - th}, Max: vg.Point{X: max(x75, x25+0.75), Y: yc + th}}
			c.SetColor(blend(col, 0.55))
			c.Fill(rect.Path())
			c.StrokeLine2(draw.LineStyle{Color: darker(col), Width: 1.6}, x50, yc-th, x50, yc+th)
		}
	}
	// axes: the count panel's and the value axis, with grid lines
	axisSty := textStyle(8, color.Gray{Y: 40})
	axisSty.XAlign, axisSty.YAlign = draw.XCenter, draw.YTop
	for _, t := range g.x.ticks() {
		x := boxX0 + vg.Length(g.x.pos(t.Value))*(boxX1-boxX0)
		c.StrokeLine2(grid, x, bottom, x, top)
		c.StrokeLine2(line, x, bottom, x, bottom-3)
		c.FillText(axisSty, vg.Point{X: x, Y: bottom - 4}, t.Label)
	}
	c.StrokeLine2(line, boxX0, bottom, boxX1, bottom)
	c.StrokeLine2(line, countX0, bottom, countX1, bottom)
	c.FillText(axisSty, vg.Point{X: (countX0 + countX1) / 2, Y: bottom - 4}, "calls (log)")
	c.FillText(axisSty, vg.Point{X: countX0, Y: bottom - 14}, "0")
	c.FillText(axisSty, vg.Point{X: countX1, Y: bottom - 14}, compactCount(g.maxN))
	label := g.o.xlabel
	if g.x.log {
		label += " (log scale)"
	}
	if label != "" {
		c.FillText(axisSty, vg.Point{X: (boxX0 + boxX1) / 2, Y: bottom - 16}, label)
	}
}

// compactCount writes n with a k/M/G suffix beyond 9999.
func compactCount(n int64) string {
	switch {
	case n >= 10_000_000_000:
		return fmt.Sprintf("%dG", n/1_000_000_000)
	case n >= 10_000_000:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// darker returns c at 70% brightness.
func darker(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.RGBA{R: uint8(r >> 8 * 7 / 10), G: uint8(g >> 8 * 7 / 10), B: uint8(b >> 8 * 7 / 10), A: 255}
}

// valueAxis maps values to [0, 1], linearly or logarithmically.
type valueAxis struct {
	lo, hi float64
	log    bool
}

// newValueAxis spans [lo, hi]: logarithmic when both are positive and hi/lo > 1000.
func newValueAxis(lo, hi float64) valueAxis {
	if lo > 0 && hi/lo > 1000 {
		return valueAxis{lo: math.Log10(lo), hi: math.Log10(hi), log: true}
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
		if lo+1 > 0 {
			lo = max(0, lo)
		}
	}
	return valueAxis{lo: lo, hi: hi}
}

func (a valueAxis) pos(v float64) float64 {
	if a.log {
		v = math.Log10(max(v, math.SmallestNonzeroFloat64))
	}
	return min(max((v-a.lo)/(a.hi-a.lo), 0), 1)
}

// ticks returns labelled ticks within the axis: round values, or powers of ten (log).
func (a valueAxis) ticks() []plot.Tick {
	if !a.log {
		return niceTicks(a.lo, a.hi, 6)
	}
	var out []plot.Tick
	for e := math.Ceil(a.lo); e <= a.hi; e++ {
		v := math.Pow(10, e)
		out = append(out, plot.Tick{Value: v, Label: compactValue(v)})
	}
	return out
}

// compactValue writes a power of ten: 1, 10, 100, 1k, 10k, ... 1e-3.
func compactValue(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%gG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%gk", v/1e3)
	}
	return fmt.Sprintf("%g", v)
}

// SquareCell is one cell of a BoxSquares chart: callers are rows, callees columns. Slices holds
// per series (process) the P2, P25, P50, P75 and P98; a slice whose values are NaN stays empty
// (the series made no such call).
type SquareCell struct {
	Row, Col int
	Slices   [][5]float64
}

// boxRings are the side fractions of the concentric squares of a box-plot square, outermost
// first: the rings for P2, P25, P50 and P75 and the centre for P98 take 1, 3, 6, 3 and 1 of 14
// parts of the area (Brendel 3.2), so the cumulative areas from the centre are 1, 4, 10, 13
// and 14 of 14.
var boxRings = [5]float64{1, math.Sqrt(13.0 / 14), math.Sqrt(10.0 / 14), math.Sqrt(4.0 / 14), math.Sqrt(1.0 / 14)}

// BoxSquares draws Brendel's call matrix (Fig. 14-19): callers as rows, callees as columns, and
// in each cell a square of concentric rings, from the outside the 2nd percentile (1/14 of the
// area), the 25th (3/14), the median (6/14), the 75th (3/14) and in the centre the 98th (1/14),
// each coloured on a linear gradient from bright green (low) over orange to red (high) over all
// values shown (WithColorRange fixes it; values spanning more than three decades get a log
// scale). With several series the square is cut into equal
// slices, sectors from its centre at equal lengths of its border, starting at the top-left
// corner and going clockwise (Fig. 19); since the rings are concentric squares, every slice
// keeps the 1:3:6:3:1 proportion. Options: WithSize, WithColorRange, WithXLabel, WithYLabel.
// BoxSquares panics for cells outside the grid, slices of different numbers, or percentiles
// not ordered.
func BoxSquares(title string, rowLabels, colLabels []string, cells []SquareCell, opts ...Option) *Figure {
	const fn = "plotting.BoxSquares"
	o := collect(opts)
	if len(cells) == 0 || len(rowLabels) == 0 || len(colLabels) == 0 {
		return noData(title, o)
	}
	ns := len(cells[0].Slices)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range cells {
		if c.Row < 0 || c.Row >= len(rowLabels) || c.Col < 0 || c.Col >= len(colLabels) {
			panic(fmt.Sprintf("%s: cell %d at (%d, %d) outside the %d x %d grid", fn, i, c.Row, c.Col, len(rowLabels), len(colLabels)))
		}
		if len(c.Slices) != ns || ns == 0 {
			panic(fmt.Sprintf("%s: cell %d has %d slices, cell 0 has %d (need at least one)", fn, i, len(c.Slices), ns))
		}
		for j, s := range c.Slices {
			if math.IsNaN(s[0]) {
				continue
			}
			if !(s[0] <= s[1] && s[1] <= s[2] && s[2] <= s[3] && s[3] <= s[4]) || !finite(s[0]) || !finite(s[4]) {
				panic(fmt.Sprintf("%s: cell %d slice %d: percentiles not ordered and finite: %v", fn, i, j, s))
			}
			lo, hi = min(lo, s[0]), max(hi, s[4])
		}
	}
	if lo > hi {
		return noData(title, o)
	}
	o.greenRed = true
	o.stretch = true
	scale := newScale(lo, hi, o)
	if o.colorRange == nil && lo > 0 && hi/lo > 1000 { // values over decades: a log scale
		scale.log = true
	}
	width := o.widthOr(defaultWidth)
	bs := &boxSquares{rows: rowLabels, cols: colLabels, cells: cells, scale: scale, o: o}
	bs.labelW = rowLabelWidth(width)
	avail := width - bs.labelW - colorBarW - sideGap - 2*margin - 8
	bs.cell = min(avail/vg.Length(len(colLabels)), 44)
	colSty := textStyle(8, color.Black)
	for _, l := range colLabels {
		w := colSty.Width(fitMiddle(colSty, l, 110))
		bs.colW = append(bs.colW, w)
		bs.colH = max(bs.colH, w)
	}
	bs.colH = bs.colH*0.72 + 12 // labels at 45 degrees
	p := newPlot(title)
	p.HideAxes()
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(bs)
	height := o.heightOr(min(bs.cell*vg.Length(len(rowLabels))+bs.colH+60, 1400))
	// The colour bar is level with the cells, beneath the slanted column labels, which the
	// cell size leaves room for on the right (see boxSquares.cellSize).
	side := func(c draw.Canvas) {
		if c.Max.Y-bs.colH-c.Min.Y >= 80 {
			c.Max.Y -= bs.colH
		}
		colorBar(c, scale, false, o.colorUnit)
	}
	return &Figure{title: title, width: width, height: height, plot: p, body: bs, side: side, sideW: colorBarW}
}

type boxSquares struct {
	rows, cols   []string
	cells        []SquareCell
	scale        colorScale
	labelW, cell vg.Length
	colH         vg.Length
	colW         []vg.Length // width of each column label as drawn (slanted at 45 degrees)
	o            options
}

// cellSize is the side of a cell in c with the grid starting at x0: at most bs.cell, short
// enough for the rows to fit beneath the column labels, and narrow enough that the grid and
// the slanted label of every column, which reaches 0.71 of its width to the right of the
// column's centre, end within c (and so clear of the colour bar beside it).
func (bs *boxSquares) cellSize(c draw.Canvas, x0 vg.Length) vg.Length {
	cell := min(bs.cell, (c.Max.Y-c.Min.Y-bs.colH-14)/vg.Length(len(bs.rows)))
	room := c.Max.X - x0
	cell = min(cell, room/vg.Length(len(bs.cols)))
	for j, w := range bs.colW {
		// The label's foot is at the column's centre, its top-right corner 0.71 w + 6 further.
		cell = min(cell, (room-w*0.71-8)/(vg.Length(j)+0.5))
	}
	return max(cell, 1)
}

func (bs *boxSquares) Plot(c draw.Canvas, _ *plot.Plot) {
	x0 := c.Min.X + bs.labelW + 6
	cell := bs.cellSize(c, x0)
	top := c.Max.Y - bs.colH
	rowSty := textStyle(8, color.Black)
	rowSty.XAlign, rowSty.YAlign = draw.XRight, draw.YCenter
	for i, l := range bs.rows {
		c.FillText(rowSty, vg.Point{X: x0 - 4, Y: top - (vg.Length(i)+0.5)*cell}, fitMiddle(rowSty, l, bs.labelW))
	}
	colSty := textStyle(8, color.Black)
	colSty.XAlign, colSty.YAlign = draw.XLeft, draw.YCenter
	colSty.Rotation = math.Pi / 4
	for j, l := range bs.cols {
		c.FillText(colSty, vg.Point{X: x0 + (vg.Length(j)+0.5)*cell, Y: top + 4}, fitMiddle(colSty, l, 110))
	}
	frame := draw.LineStyle{Color: color.Gray{Y: 215}, Width: 0.5}
	for i := 0; i <= len(bs.rows); i++ {
		y := top - vg.Length(i)*cell
		c.StrokeLine2(frame, x0, y, x0+vg.Length(len(bs.cols))*cell, y)
	}
	for j := 0; j <= len(bs.cols); j++ {
		x := x0 + vg.Length(j)*cell
		c.StrokeLine2(frame, x, top, x, top-vg.Length(len(bs.rows))*cell)
	}
	pad := max(cell*0.06, 0.5)
	for _, sc := range bs.cells {
		minX := x0 + vg.Length(sc.Col)*cell + pad
		maxY := top - vg.Length(sc.Row)*cell - pad
		side := cell - 2*pad
		ctr := vg.Point{X: minX + side/2, Y: maxY - side/2}
		n := len(sc.Slices)
		for k, s := range sc.Slices {
			if math.IsNaN(s[0]) {
				continue
			}
			for r, v := range s { // outermost ring first, each painted over by the next
				c.SetColor(bs.scale.color(v))
				c.Fill(polygonPath(sliceOfSquare(ctr, side*vg.Length(boxRings[r]), k, n)))
			}
		}
		if n > 1 { // slice borders
			sep := draw.LineStyle{Color: color.White, Width: 0.6}
			for k := range n {
				pts := sliceOfSquare(ctr, side, k, n)
				c.StrokeLine2(sep, ctr.X, ctr.Y, pts[1].X, pts[1].Y)
			}
		}
	}
	if bs.o.xlabel != "" || bs.o.ylabel != "" {
		sty := textStyle(8, color.Gray{Y: 90})
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X, Y: c.Max.Y}, fmt.Sprintf("rows: %s, columns: %s", bs.o.ylabel, bs.o.xlabel))
	}
}

func polygonPath(pts []vg.Point) vg.Path {
	var p vg.Path
	p.Move(pts[0])
	for _, q := range pts[1:] {
		p.Line(q)
	}
	p.Close()
	return p
}

// sliceOfSquare returns slice k of n of the square of the given side centred at ctr: the
// polygon from the centre along the border from arc length k/n to (k+1)/n of the perimeter,
// measured clockwise from the top-left corner (the centre first, then the border points).
// Equal border lengths give equal areas, for every concentric square alike.
func sliceOfSquare(ctr vg.Point, side vg.Length, k, n int) []vg.Point {
	per := 4 * float64(side)
	a, b := per*float64(k)/float64(n), per*float64(k+1)/float64(n)
	pts := []vg.Point{ctr, borderPoint(ctr, side, a)}
	for corner := 1; corner <= 4; corner++ { // the corners strictly between a and b
		if d := float64(corner) * float64(side); d > a && d < b {
			pts = append(pts, borderPoint(ctr, side, d))
		}
	}
	return append(pts, borderPoint(ctr, side, b))
}

// borderPoint is the point at arc length d along the border of the square, clockwise from its
// top-left corner (y grows upwards).
func borderPoint(ctr vg.Point, side vg.Length, d float64) vg.Point {
	h := side / 2
	s := float64(side)
	l, t, r, btm := ctr.X-h, ctr.Y+h, ctr.X+h, ctr.Y-h
	switch {
	case d <= s: // top edge, left to right
		return vg.Point{X: l + vg.Length(d), Y: t}
	case d <= 2*s: // right edge, top to bottom
		return vg.Point{X: r, Y: t - vg.Length(d-s)}
	case d <= 3*s: // bottom edge, right to left
		return vg.Point{X: r - vg.Length(d-2*s), Y: btm}
	}
	return vg.Point{X: l, Y: btm + vg.Length(d-3*s)} // left edge, bottom to top
}
