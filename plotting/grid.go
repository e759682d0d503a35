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
// non-finite values are drawn grey ("no value" under the colour bar).
//
// The colour scale is anchored at meaningful values: it runs from 0 to the largest value (or
// from the smallest to 0), and data of both signs gets a diverging scale symmetric around 0.
// Options change that: WithColorRange fixes the range (such as [0, 1] for a normalised
// measure), WithDiverging asks for the diverging scale, WithStretch spans the data's own range.
// Uniform data gets a range with distinct ticks ([0, v], or [0, 1] for zeros).
//
// Large grids are binned so that a figure stays a few hundred pixels high and its image small:
// more rows than fit at 2.5 pt each (at most 112 in the default size) are averaged in groups of k
// consecutive rows, and more columns than fit at 1.5 pt each are averaged in groups likewise
// (the mean of the finite values; a group with none is non-finite). The axis labels say so
// ("rows binned by 4, mean") and binned rows are labelled with their first and last label.
//
// Options: WithSize, WithRowHeight, WithXLabel, WithYLabel, WithXRange, WithColorRange,
// WithDiverging, WithStretch. Heatmap panics if the rows have different lengths or the labels do not match
// them.
func Heatmap(title string, rowLabels, colLabels []string, values [][]float64, opts ...Option) *Figure {
	return grid("plotting.Heatmap", title, rowLabels, colLabels, values, false, collect(opts))
}

// Matrix draws a matrix such as caller x callee counts: like [Heatmap] (also in its colour
// scale and binning), with rows tall enough for every row label (up to about 100 rows) and each
// non-zero value written in its cell when the cell is wide enough.
func Matrix(title string, rowLabels, colLabels []string, values [][]float64, opts ...Option) *Figure {
	return grid("plotting.Matrix", title, rowLabels, colLabels, values, true, collect(opts))
}

// Heatmap sizes in points: the data area is at most gridMaxDataH high by default; cells at
// least gridMinRowH high and gridMinColW wide (smaller ones are binned).
const (
	gridMaxDataH = 280
	gridMinRowH  = 2.5
	gridMinColW  = 1.5
	gridChromeH  = 90  // title, x axis and its label
	gridChromeW  = 170 // row labels, y axis label, colour bar
	gridMaxH     = 1400
	matrixRowH   = 13 // a Matrix row, when the rows fit at this height
	colorBarW    = 70
)

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
	checkLabels(fn, rowLabels, colLabels, rows, cols)
	var remake func(lo, hi float64) *Figure
	if o.xRange != nil { // columns on a numeric axis: XRange shows the columns of a range
		orig, origRows, origCols, origO := values, rowLabels, colLabels, o // values and o change below
		remake = func(lo, hi float64) *Figure {
			w := origO
			w.window = &[2]float64{lo, hi}
			return grid(fn, title, origRows, origCols, orig, annotate, w)
		}
	}
	if o.window != nil && o.xRange != nil && rows > 0 && cols > 0 {
		values, colLabels, o.xRange = cropColumns(values, colLabels, *o.xRange, *o.window)
		cols = len(values[0])
	}
	if rows == 0 || cols == 0 {
		f := noData(title, o)
		if o.window != nil && rows > 0 {
			f.note = fmt.Sprintf("no columns in the x range [%g, %g]", o.window[0], o.window[1])
		}
		f.window = remake
		return f
	}
	width := o.widthOr(defaultWidth)

	// How many rows and columns fit, then bin to that.
	dataH := vg.Length(gridMaxDataH)
	switch {
	case o.height > 0:
		dataH = max(o.height-gridChromeH, 10)
	case o.rowHeight > 0:
		dataH = min(o.rowHeight*vg.Length(rows), gridMaxH-gridChromeH)
	}
	maxRows := max(1, int(dataH/gridMinRowH))
	maxCols := max(1, int((width-gridChromeW)/gridMinColW))
	rk, ck := ceilDiv(rows, maxRows), ceilDiv(cols, maxCols)
	input, inputRows, inputCols := values, rowLabels, colLabels
	nanCells := false
	if rk > 1 || ck > 1 {
		values = binGrid(values, rk, ck, o.binMax)
		rowLabels, colLabels = binLabels(rowLabels, rk), binLabels(colLabels, ck)
	}
	brows, bcols := len(values), len(values[0])

	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range values {
		for _, v := range r {
			if finite(v) {
				lo, hi = min(lo, v), max(hi, v)
			} else {
				nanCells = true
			}
		}
	}
	scale := newScale(lo, hi, o)

	minRowH := vg.Length(gridMinRowH)
	if annotate && o.height == 0 && vg.Length(brows)*matrixRowH <= gridMaxH-gridChromeH {
		minRowH = matrixRowH // a matrix is read row by row: room for every label and value
	}
	rowH := o.rowHeightOr(max(minRowH, min(dataH/vg.Length(brows), 22)))
	if rk > 1 {
		rowH = dataH / vg.Length(brows)
	}
	height := o.heightOr(min(max(gridChromeH+rowH*vg.Length(brows), 180), gridMaxH))

	p := newPlot(title)
	reduce := "mean"
	if o.binMax {
		reduce = "max"
	}
	p.X.Label.Text, p.Y.Label.Text = binnedLabel(o.xlabel, "columns", ck, reduce), binnedLabel(o.ylabel, "rows", rk, reduce)
	p.X.Min, p.X.Max = 0, float64(bcols)
	p.Y.Min, p.Y.Max = 0, float64(brows)
	p.X.Padding, p.Y.Padding = 0, 0
	if rowLabels != nil {
		p.Y.Tick.Marker = rowTicks(p, rowLabels, height-gridChromeH, width)
	} else {
		p.Y.Tick.Marker = indexTicks{n: rows, k: rk, flip: true}
	}
	switch {
	case o.xRange != nil:
		p.X.Tick.Marker = rangeTicks{lo: o.xRange[0], hi: o.xRange[1], cols: bcols}
	case colLabels != nil:
		sty := p.X.Tick.Label
		maxW := vg.Length(90)
		w := vg.Length(0)
		for _, l := range colLabels {
			w = max(w, sty.Width(fitMiddle(sty, l, maxW)))
		}
		avail := width - gridChromeW
		pitch := w + 6
		if w > avail/vg.Length(bcols) { // labels do not fit side by side: slant them
			p.X.Tick.Label.Rotation = math.Pi / 4
			p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
			pitch = 12
		}
		p.X.Tick.Marker = labelTicks{labels: colLabels, pos: func(i int) float64 { return float64(i) + 0.5 },
			step: thin(bcols, pitch, avail), sty: sty, maxW: maxW}
	default:
		p.X.Tick.Marker = indexTicks{n: cols, k: ck}
	}
	gp := &gridPlot{values: values, scale: scale, annotate: annotate}
	p.Add(gp)
	if len(o.marks) > 0 && o.xRange != nil {
		if len(o.marks) > bcols/4 {
			p.X.Label.Text += fmt.Sprintf(" (%d marks not drawn: too many)", len(o.marks))
		} else {
			lo, hi := o.xRange[0], o.xRange[1]
			for _, x := range o.marks {
				if x >= lo && x <= hi {
					gp.marks = append(gp.marks, (x-lo)/(hi-lo)*float64(bcols))
				}
			}
		}
	}
	side := func(c draw.Canvas) { colorBar(c, scale, nanCells, o.colorUnit) }
	gv := &gridVega{values: input, rowLabels: inputRows, colLabels: inputCols, o: o, annotate: annotate}
	return &Figure{title: title, width: width, height: height, plot: p, body: gp, side: side, sideW: colorBarW, vega: gv.spec,
		xUnit: o.xUnit, window: remake}
}

// cropColumns keeps the columns of values (spanning xr in equal widths) that overlap window,
// and returns them with their labels and the range they span: whole columns, so the range
// reaches from the left edge of the first column kept to the right edge of the last.
func cropColumns(values [][]float64, colLabels []string, xr, window [2]float64) ([][]float64, []string, *[2]float64) {
	cols := len(values[0])
	w := (xr[1] - xr[0]) / float64(cols)
	j0 := min(max(int(math.Floor((window[0]-xr[0])/w+1e-9)), 0), cols)
	j1 := min(max(int(math.Ceil((window[1]-xr[0])/w-1e-9)), j0), cols)
	out := make([][]float64, len(values))
	for i, r := range values {
		out[i] = r[j0:j1]
	}
	if colLabels != nil {
		colLabels = colLabels[j0:j1]
	}
	return out, colLabels, &[2]float64{xr[0] + float64(j0)*w, xr[0] + float64(j1)*w}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// binGrid averages values in blocks of rk rows and ck columns (the last block of a row or
// column may be smaller): the mean of the block's finite values, NaN if it has none.
func binGrid(values [][]float64, rk, ck int, useMax bool) [][]float64 {
	rows, cols := len(values), len(values[0])
	out := make([][]float64, ceilDiv(rows, rk))
	for bi := range out {
		row := make([]float64, ceilDiv(cols, ck))
		for bj := range row {
			sum, n, top := 0.0, 0, math.Inf(-1)
			for i := bi * rk; i < min(rows, (bi+1)*rk); i++ {
				for _, v := range values[i][bj*ck : min(cols, (bj+1)*ck)] {
					if finite(v) {
						sum += v
						n++
						top = max(top, v)
					}
				}
			}
			row[bj] = math.NaN()
			switch {
			case n > 0 && useMax:
				row[bj] = top
			case n > 0:
				row[bj] = sum / float64(n)
			}
		}
		out[bi] = row
	}
	return out
}

// binLabels labels groups of k consecutive labels by their first and last ("rank 0–3" for
// "rank 0" to "rank 3"); nil stays nil.
func binLabels(labels []string, k int) []string {
	if labels == nil || k <= 1 {
		return labels
	}
	out := make([]string, 0, ceilDiv(len(labels), k))
	for i := 0; i < len(labels); i += k {
		out = append(out, rangeLabel(labels[i], labels[min(len(labels), i+k)-1]))
	}
	return out
}

// rangeLabel names the range from label a to label b: "rank 0–3" when they differ only in a
// trailing number, "a – b" otherwise.
func rangeLabel(a, b string) string {
	if a == b {
		return a
	}
	pa, na := splitNumber(a)
	pb, nb := splitNumber(b)
	if na != "" && nb != "" && pa == pb {
		return a + "–" + nb
	}
	return a + " – " + b
}

// splitNumber splits s into a prefix and its trailing decimal digits.
func splitNumber(s string) (prefix, digits string) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	return s[:i], s[i:]
}

// binnedLabel is an axis label that says how the axis was binned.
func binnedLabel(label, what string, k int, reduce string) string {
	if k <= 1 {
		return label
	}
	if label == "" {
		return fmt.Sprintf("%s binned by %d, %s", what, k, reduce)
	}
	return fmt.Sprintf("%s (binned by %d, %s)", label, k, reduce)
}

// indexTicks labels cells 0..n-1 at their centres with about ten ticks (row 0 at the top when
// flip is set); with k > 1 the cells are drawn binned by k, cell i inside bin i/k.
type indexTicks struct {
	n    int
	k    int
	flip bool
}

func (t indexTicks) Ticks(float64, float64) []plot.Tick {
	k := max(t.k, 1)
	step := niceStep(t.n)
	bins := ceilDiv(t.n, k)
	var ticks []plot.Tick
	for i := 0; i < t.n; i += step {
		v := (float64(i) + 0.5) / float64(k)
		if t.flip {
			v = float64(bins) - v
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.Itoa(i)})
	}
	return ticks
}

// rangeTicks labels an axis of cols cells that span [lo, hi] with round values of that range,
// shown in mult times its unit (0 or 1: as given; see Unit).
type rangeTicks struct {
	lo, hi float64
	cols   int
	mult   float64
}

func (t rangeTicks) Ticks(float64, float64) []plot.Tick {
	mult := t.mult
	if mult == 0 {
		mult = 1
	}
	ticks := scaleTicks(niceTicks(t.lo*mult, t.hi*mult, 6), mult)
	for i := range ticks {
		ticks[i].Value = (ticks[i].Value - t.lo) / (t.hi - t.lo) * float64(t.cols)
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
	scale    colorScale
	annotate bool
	marks    []float64 // column positions of vertical lines (WithMarks)
}

func (gp *gridPlot) color(v float64) color.Color { return gp.scale.color(v) }

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
		gp.drawMarks(c, trX, trY(0), trY(float64(rows)))
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
			if gp.annotate && finite(v) && v != 0 && cellH >= 11 {
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
	gp.drawMarks(c, trX, trY(0), trY(float64(rows)))
}

// drawMarks draws the vertical mark lines from y0 to y1.
func (gp *gridPlot) drawMarks(c draw.Canvas, trX func(float64) vg.Length, y0, y1 vg.Length) {
	sty := draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.6)}
	for _, x := range gp.marks {
		c.StrokeLine2(sty, trX(x), y0, trX(x), y1)
	}
}

// colorBar draws the vertical colour scale with round-valued ticks, and a "no value" swatch
// beneath it when some cells are not finite. Values in unit u have their ticks in the unit that
// suits the scale's range, named above the bar.
func colorBar(c draw.Canvas, s colorScale, nanCells bool, u Unit) {
	top, bottom := c.Max.Y-4, c.Min.Y+36 // level with the cells, clear of the x axis
	ticks := s.ticks()
	unitName := ""
	if u.q != noQuantity && !s.log {
		var mult float64
		unitName, mult = u.display(s.lo, s.hi)
		ticks = scaleTicks(niceTicks(s.lo*mult, s.hi*mult, 5), mult)
		top -= 14
	}
	if nanCells {
		bottom += 18
	}
	if top-bottom < 30 {
		top, bottom = c.Max.Y, c.Min.Y
		if unitName != "" {
			top -= 12
		}
		nanCells = false
	}
	x0, x1 := c.Min.X, c.Min.X+12
	const steps = 64
	h := (top - bottom) / steps
	for i := 0; i < steps; i++ {
		c.SetColor(s.colorAt(s.position(s.at((float64(i) + 0.5) / steps))))
		y := bottom + vg.Length(i)*h
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: y}, Max: vg.Point{X: x1, Y: y + h + 0.3}}.Path())
	}
	sty := textStyle(8, color.Gray{Y: 40})
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	if unitName != "" {
		us := sty
		us.YAlign = draw.YTop
		c.FillText(us, vg.Point{X: x0, Y: c.Max.Y}, fitWidth(us, unitName, c.Max.X-x0))
	}
	for _, t := range ticks {
		y := bottom + vg.Length(s.frac(t.Value))*(top-bottom)
		c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 60}, Width: 0.5}, x1, y, x1+3, y)
		c.FillText(sty, vg.Point{X: x1 + 5, Y: y}, fitWidth(sty, t.Label, c.Max.X-x1-5))
	}
	if nanCells {
		y := c.Min.Y + 36
		c.SetColor(noValue)
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: y}, Max: vg.Point{X: x1, Y: y + 10}}.Path())
		c.FillText(sty, vg.Point{X: x1 + 5, Y: y + 5}, fitWidth(sty, "no value", c.Max.X-x1-5))
	}
}

// checkLabels panics (naming fn) unless the row and column labels, when
// given, match the grid's rows and columns.
func checkLabels(fn string, rowLabels, colLabels []string, rows, cols int) {
	if rowLabels != nil && len(rowLabels) != rows {
		panic(fmt.Sprintf("%s: %d row labels for %d rows", fn, len(rowLabels), rows))
	}
	if colLabels != nil && len(colLabels) != cols {
		panic(fmt.Sprintf("%s: %d column labels for %d columns", fn, len(colLabels), cols))
	}
}
