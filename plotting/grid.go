package plotting

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxCellRects is the grid size above which cells are drawn as one image instead of one
// rectangle each (the image is scaled, so cells stay exact only while they are wide enough).
const maxCellRects = 40000

// Heatmap draws values[row][col] as coloured cells (row 0 at the top) with a colour bar, for
// example processes x time bins. Nil rowLabels or colLabels number the rows or columns;
// non-finite values are drawn grey. Options: WithSize, WithRowHeight, WithXLabel, WithYLabel.
// Heatmap panics if the rows have different lengths or the labels do not match them.
func Heatmap(title string, rowLabels, colLabels []string, values [][]float64, opts ...Option) *Figure {
	return grid("plotting.Heatmap", title, rowLabels, colLabels, values, false, collect(opts))
}

// Matrix draws a matrix such as caller x callee counts: like [Heatmap], with each value written
// in its cell when the cell is large enough.
func Matrix(title string, rowLabels, colLabels []string, values [][]float64, opts ...Option) *Figure {
	return grid("plotting.Matrix", title, rowLabels, colLabels, values, true, collect(opts))
}

func grid(fn, title string, rowLabels, colLabels []string, values [][]float64, annotate bool, o options) *Figure {
	rows := len(values)
	cols := 0
	if rows > 0 {
		cols = len(values[0])
	}
	for i, r := range values {
		if len(r) != cols {
			panic(fmt.Sprintf("%s: row %d has %d values, row 0 has %d", fn, i, len(r), cols))
		}
	}
	if rowLabels != nil && len(rowLabels) != rows {
		panic(fmt.Sprintf("%s: %d row labels for %d rows", fn, len(rowLabels), rows))
	}
	if colLabels != nil && len(colLabels) != cols {
		panic(fmt.Sprintf("%s: %d column labels for %d columns", fn, len(colLabels), cols))
	}
	if rows == 0 || cols == 0 {
		return noData(title, o)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range values {
		for _, v := range r {
			if finite(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo > hi { // nothing finite
		lo, hi = 0, 1
	}
	width := o.widthOr(defaultWidth)
	rowH := o.rowHeightOr(vg.Length(max(3, min(22, 600/float64(rows)))))
	height := o.heightOr(min(max(90+rowH*vg.Length(rows), 180), 1400))

	p := newPlot(title)
	p.X.Label.Text, p.Y.Label.Text = o.xlabel, o.ylabel
	p.X.Min, p.X.Max = 0, float64(cols)
	p.Y.Min, p.Y.Max = 0, float64(rows)
	p.X.Padding, p.Y.Padding = 0, 0
	if rowLabels != nil {
		p.Y.Tick.Marker = labelTicks{labels: rowLabels, pos: func(i int) float64 { return float64(rows-i) - 0.5 }, step: thin(rows, 11, height-90)}
	} else {
		p.Y.Tick.Marker = indexTicks{n: rows, flip: true}
	}
	if colLabels != nil {
		sty := p.X.Tick.Label
		w := vg.Length(0)
		for _, l := range colLabels {
			w = max(w, sty.Width(shorten(l, 28)))
		}
		avail := width - 160
		pitch := w + 6
		if w > avail/vg.Length(cols) { // labels do not fit side by side: slant them
			p.X.Tick.Label.Rotation = math.Pi / 4
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
			pitch = 12
		}
		p.X.Tick.Marker = labelTicks{labels: colLabels, pos: func(i int) float64 { return float64(i) + 0.5 }, step: thin(cols, pitch, avail)}
	} else {
		p.X.Tick.Marker = indexTicks{n: cols}
	}
	gp := &gridPlot{values: values, lo: lo, hi: hi, annotate: annotate}
	p.Add(gp)
	side := func(c draw.Canvas) { colorBar(c, lo, hi) }
	return &Figure{title: title, width: width, height: height, plot: p, side: side, sideW: 64}
}

// indexTicks labels cells 0..n-1 at their centres with about ten ticks (row 0 at the top when
// flip is set).
type indexTicks struct {
	n    int
	flip bool
}

func (t indexTicks) Ticks(float64, float64) []plot.Tick {
	step := niceStep(t.n)
	var ticks []plot.Tick
	for i := 0; i < t.n; i += step {
		v := float64(i) + 0.5
		if t.flip {
			v = float64(t.n-i) - 0.5
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.Itoa(i)})
	}
	return ticks
}

// niceStep is 1, 2, 5, 10, 20, ... so that there are at most about 10 ticks for n cells.
func niceStep(n int) int {
	for step := 1; ; step *= 10 {
		for _, m := range []int{1, 2, 5} {
			if n/(step*m) <= 10 {
				return step * m
			}
		}
	}
}

type gridPlot struct {
	values   [][]float64
	lo, hi   float64
	annotate bool
}

func (gp *gridPlot) color(v float64) color.Color {
	if !finite(v) {
		return color.Gray{Y: 215}
	}
	if gp.hi == gp.lo {
		return viridis(0.5)
	}
	return viridis((v - gp.lo) / (gp.hi - gp.lo))
}

func (gp *gridPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rows, cols := len(gp.values), len(gp.values[0])
	if rows*cols > maxCellRects {
		img := image.NewRGBA(image.Rect(0, 0, cols, rows))
		for r, row := range gp.values {
			for j, v := range row {
				img.Set(j, r, gp.color(v))
			}
		}
		c.DrawImage(vg.Rectangle{Min: vg.Point{X: trX(0), Y: trY(0)}, Max: vg.Point{X: trX(float64(cols)), Y: trY(float64(rows))}}, img)
		return
	}
	sty := textStyle(8, color.Black)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	cellW, cellH := trX(1)-trX(0), trY(1)-trY(0)
	for r, row := range gp.values {
		y0, y1 := trY(float64(rows-r-1)), trY(float64(rows-r))
		for j, v := range row {
			col := gp.color(v)
			x0, x1 := trX(float64(j)), trX(float64(j+1))
			c.SetColor(col)
			// Overlap by a hair so anti-aliasing leaves no seams between cells.
			c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1 + 0.3, Y: y1 + 0.3}}.Path())
			if gp.annotate && finite(v) && cellH >= 11 {
				label := strconv.FormatFloat(v, 'g', 3, 64)
				if sty.Width(label)+4 <= cellW {
					sty.Color = color.Black
					if luminance(col) < 0.45 {
						sty.Color = color.White
					}
					c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, label)
				}
			}
		}
	}
}

// colorBar draws a vertical colour scale from lo to hi with three labelled ticks.
func colorBar(c draw.Canvas, lo, hi float64) {
	top, bottom := c.Max.Y-28, c.Min.Y+36
	if top-bottom < 30 {
		top, bottom = c.Max.Y, c.Min.Y
	}
	x0, x1 := c.Min.X, c.Min.X+12
	const steps = 64
	h := (top - bottom) / steps
	for i := 0; i < steps; i++ {
		c.SetColor(viridis((float64(i) + 0.5) / steps))
		y := bottom + vg.Length(i)*h
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: y}, Max: vg.Point{X: x1, Y: y + h + 0.3}}.Path())
	}
	sty := textStyle(8, color.Gray{Y: 40})
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	for _, f := range []float64{0, 0.5, 1} {
		y := bottom + vg.Length(f)*(top-bottom)
		c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 60}, Width: 0.5}, x1, y, x1+3, y)
		v := lo + f*(hi-lo)
		if math.Abs(v) < 1e-9*(hi-lo) { // no "-3.99e-07" for a zero midpoint
			v = 0
		}
		c.FillText(sty, vg.Point{X: x1 + 5, Y: y}, strconv.FormatFloat(v, 'g', 3, 64))
	}
}

// viridisStops are nine evenly spaced samples of matplotlib's viridis colour map (perceptually
// uniform, readable in grey and by colour-blind readers).
var viridisStops = []color.RGBA{
	rgb(0x440154), rgb(0x472d7b), rgb(0x3b528b), rgb(0x2c728e), rgb(0x21918c),
	rgb(0x28ae80), rgb(0x5ec962), rgb(0xaddc30), rgb(0xfde725),
}

// viridis maps t in [0, 1] to a colour by linear interpolation between the stops.
func viridis(t float64) color.Color {
	t = min(max(t, 0), 1) * float64(len(viridisStops)-1)
	i := min(int(t), len(viridisStops)-2)
	f := t - float64(i)
	a, b := viridisStops[i], viridisStops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-f) + float64(y)*f)) }
	return color.RGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 255}
}
