package plotting

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TextGrid draws a grid of labelled cells, such as the block of a multiple sequence alignment
// (Weber's Figure 5.10): one row per sequence, labelled on the left by rowLabels[r] ("Sequence
// 1", "rank 3 (x12)"), one column per alignment column, labelled above the grid by colLabels[c]
// (nil numbers the columns 1..n; nil rowLabels number the rows likewise). Cell [r][c] is a box
// filled with fills[r][c] (nil fills, or a nil colour, is white) with cells[r][c] centred in it,
// in black or, on a dark fill, white. A gap is a cell like any other: the caller passes, say,
// "—" on a light grey fill. A legend is not drawn; the title says what the colours mean.
//
// Cells are 14 pt high and their text is 9 pt. A column is as wide as its longest text (and its
// label), at least 20 pt and at most 100 pt; longer texts are shortened with "…". The figure
// grows with the grid up to about 960 x 1400 pt, as [DAG] does (WithSize sets the size; the
// drawing is scaled down if it does not fit). Larger grids are summarised so that their text
// stays readable: the first rows and columns that fit are drawn (at least one of each), and a
// note under the drawing says what is shown, such as "showing 40 of 3,000 columns and 25 of 120
// rows". Row labels are shortened to at most 160 pt.
//
// TextGrid panics if the rows have different lengths, if fills is not nil and its shape differs
// from that of cells, or if the labels do not match the rows or columns. No rows or no columns
// give a "no data" figure.
func TextGrid(title string, rowLabels, colLabels []string, cells [][]string, fills [][]color.Color, opts ...Option) *Figure {
	const fn = "plotting.TextGrid"
	o := collect(opts)
	rows, cols := len(cells), 0
	if rows > 0 {
		cols = len(cells[0])
	}
	for i, r := range cells {
		if len(r) != cols {
			panic(fmt.Sprintf("%s: row %d has %d cells, row 0 has %d", fn, i, len(r), cols))
		}
	}
	if fills != nil {
		if len(fills) != rows {
			panic(fmt.Sprintf("%s: %d rows of fills for %d rows of cells", fn, len(fills), rows))
		}
		for i, r := range fills {
			if len(r) != cols {
				panic(fmt.Sprintf("%s: fills row %d has %d colours for %d cells", fn, i, len(r), cols))
			}
		}
	}
	checkLabels(fn, rowLabels, colLabels, rows, cols)
	if rows == 0 || cols == 0 {
		return noData(title, o)
	}

	return boxedFigure(title, o, tgPad, func(budgetW, budgetH vg.Length) (plot.Plotter, vg.Length, vg.Length) {
		g := textGridLayout(rowLabels, colLabels, cells, fills, budgetW, budgetH)
		return &textGridPlot{g: g}, g.width, g.height + g.noteHeight()
	})
}

// TextGrid sizes in points.
const (
	tgFont      = 9   // cell texts and row labels
	tgHeadFont  = 8   // column labels
	tgCellH     = 14  // a row
	tgHeadH     = 13  // the column labels above the grid
	tgPadX      = 4   // cell text to cell edge
	tgMinCellW  = 20  // a column of short texts
	tgMaxCellW  = 100 // longer texts are shortened with "…"
	tgMaxLabelW = 160 // longer row labels are shortened
	tgLabelGap  = 6   // between the row labels and the grid
	tgPad       = 4   // around the drawing
	tgNoteH     = 16  // the note line under the drawing
)

var tgOutline = draw.LineStyle{Color: color.Gray{Y: 150}, Width: 0.5}

// textGrid is the layout of a TextGrid: the rows and columns drawn, their texts fitted to their
// cells, and the size of the drawing.
type textGrid struct {
	rows, cols int             // of the whole grid
	cells      [][]string      // drawn rows x drawn columns, fitted to the cells
	fills      [][]color.Color // drawn rows x drawn columns; nil entries are white
	rowLabels  []string        // drawn rows, fitted
	colLabels  []string        // drawn columns, fitted
	colX       []vg.Length     // left edge of each drawn column, from the grid's left edge
	colW       []vg.Length     // width of each drawn column
	labelW     vg.Length       // width of the row labels' column
	width      vg.Length       // of the drawing
	height     vg.Length       // of the drawing, without the note
	note       string          // what is not shown, or ""
}

func (g *textGrid) noteHeight() vg.Length {
	if g.note == "" {
		return 0
	}
	return tgNoteH
}

// gridLeft is the x of the grid's left edge in the drawing.
func (g *textGrid) gridLeft() vg.Length { return g.labelW + tgLabelGap }

// textGridLayout lays out a TextGrid in a drawing at most budgetW wide and budgetH high: the
// first rows that fit in the height and the first columns that fit in the width, at least one
// of each, with a note when some are left out. Only the texts that may be drawn are measured.
func textGridLayout(rowLabels, colLabels []string, cells [][]string, fills [][]color.Color, budgetW, budgetH vg.Length) *textGrid {
	rows, cols := len(cells), len(cells[0])
	g := &textGrid{rows: rows, cols: cols}
	sty := textStyle(tgFont, color.Black)
	head := textStyle(tgHeadFont, color.Black)
	widths := map[string]vg.Length{}
	width := func(s string) vg.Length {
		w, ok := widths[s]
		if !ok {
			w = sty.Width(s)
			widths[s] = w
		}
		return w
	}
	rowLabel := func(r int) string {
		if rowLabels == nil {
			return strconv.Itoa(r + 1)
		}
		return rowLabels[r]
	}
	colLabel := func(c int) string {
		if colLabels == nil {
			return strconv.Itoa(c + 1)
		}
		return colLabels[c]
	}

	// fit returns how many columns of the first n rows fit beside those rows' labels, with the
	// labels' width and the columns' widths.
	fit := func(n int) (int, vg.Length, []vg.Length) {
		labelW := vg.Length(0)
		for r := range n {
			labelW = max(labelW, width(rowLabel(r)))
		}
		labelW = min(labelW, tgMaxLabelW)
		avail := budgetW - labelW - tgLabelGap
		var colW []vg.Length
		total := vg.Length(0)
		for c := 0; c < cols; c++ {
			w := head.Width(colLabel(c)) + 2
			for r := range n {
				w = max(w, width(cells[r][c])+2*tgPadX)
			}
			w = min(max(w, tgMinCellW), tgMaxCellW)
			if total+w > avail && c > 0 {
				break
			}
			total += w
			colW = append(colW, w)
		}
		return len(colW), labelW, colW
	}
	maxRows := func(h vg.Length) int { return max(1, min(rows, int((h-tgHeadH)/tgCellH))) }

	n := maxRows(budgetH)
	k, labelW, colW := fit(n)
	if n < rows || k < cols { // something is left out: make room for the note
		n = maxRows(budgetH - tgNoteH)
		k, labelW, colW = fit(n)
		var parts []string
		if k < cols {
			parts = append(parts, fmt.Sprintf("%s of %s columns", grouped(k), grouped(cols)))
		}
		if n < rows {
			parts = append(parts, fmt.Sprintf("%s of %s rows", grouped(n), grouped(rows)))
		}
		g.note = "showing " + strings.Join(parts, " and ")
	}

	g.labelW, g.colW = labelW, colW
	g.colX = make([]vg.Length, k)
	x := vg.Length(0)
	for c, w := range colW {
		g.colX[c] = x
		x += w
		g.colLabels = append(g.colLabels, fitWidth(head, colLabel(c), w-2))
	}
	g.width = g.gridLeft() + x
	g.height = tgHeadH + vg.Length(n)*tgCellH
	g.cells = make([][]string, n)
	g.fills = make([][]color.Color, n)
	for r := range n {
		g.rowLabels = append(g.rowLabels, fitWidth(sty, rowLabel(r), labelW))
		g.cells[r] = make([]string, k)
		for c := range k {
			if s := cells[r][c]; width(s) <= colW[c]-2*tgPadX {
				g.cells[r][c] = s
			} else {
				g.cells[r][c] = fitWidth(sty, s, colW[c]-2*tgPadX)
			}
		}
		if fills != nil {
			g.fills[r] = fills[r][:k]
		}
	}
	return g
}

// grouped writes n with commas between groups of three digits: 3,000.
func grouped(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// textGridPlot draws a TextGrid layout in a plot's data canvas, centred, scaled down if it does
// not fit.
type textGridPlot struct {
	g *textGrid
}

// fill is the fill of drawn cell [r][c].
func (g *textGrid) fill(r, c int) color.Color {
	if g.fills[r] == nil || g.fills[r][c] == nil {
		return color.White
	}
	return g.fills[r][c]
}

func (tp *textGridPlot) Plot(c draw.Canvas, _ *plot.Plot) {
	g := tp.g
	if g.note != "" {
		sty := textStyle(9, color.Gray{Y: 100})
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Min.Y}, fitWidth(sty, g.note, c.Max.X-c.Min.X))
	}
	r := tp.place(c.Rectangle)
	if r.s <= 0 {
		return
	}
	X, Y, s := r.X, r.Y, r.s
	text := func(size vg.Length, col color.Color, xa draw.XAlignment, ya draw.YAlignment) text.Style {
		sty := textStyle(size*s, col)
		sty.XAlign, sty.YAlign = xa, ya
		return sty
	}
	head := text(tgHeadFont, color.Gray{Y: 60}, draw.XCenter, draw.YBottom)
	left := g.gridLeft()
	for j, l := range g.colLabels {
		c.FillText(head, vg.Point{X: X(left + g.colX[j] + g.colW[j]/2), Y: Y(tgHeadH - 2)}, l)
	}
	label := text(tgFont, color.Black, draw.XRight, draw.YCenter)
	ol := tgOutline
	ol.Width *= s
	for i, row := range g.cells {
		top := tgHeadH + vg.Length(i)*tgCellH
		c.FillText(label, vg.Point{X: X(g.labelW), Y: Y(top + tgCellH/2)}, g.rowLabels[i])
		for j, txt := range row {
			rect := r.cell(i, j)
			fill := g.fill(i, j)
			c.SetColor(fill)
			c.Fill(rect.Path())
			c.SetLineStyle(ol)
			c.Stroke(rect.Path())
			sty := text(tgFont, color.Black, draw.XCenter, draw.YCenter)
			if luminance(fill) < 0.45 {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: (rect.Min.X + rect.Max.X) / 2, Y: (rect.Min.Y + rect.Max.Y) / 2}, txt)
		}
	}
}

// tgPlacement maps the drawing (y downwards, in points) onto a canvas area: x to ox + x*s, y to
// top - y*s.
type tgPlacement struct {
	g       *textGrid
	ox, top vg.Length
	s       vg.Length
}

func (p tgPlacement) X(x vg.Length) vg.Length { return p.ox + x*p.s }
func (p tgPlacement) Y(y vg.Length) vg.Length { return p.top - y*p.s }

// cell is the rectangle of drawn cell [i][j] on the canvas.
func (p tgPlacement) cell(i, j int) vg.Rectangle {
	x0 := p.g.gridLeft() + p.g.colX[j]
	y0 := tgHeadH + vg.Length(i)*tgCellH
	return vg.Rectangle{Min: vg.Point{X: p.X(x0), Y: p.Y(y0 + tgCellH)}, Max: vg.Point{X: p.X(x0 + p.g.colW[j]), Y: p.Y(y0)}}
}

// place places the drawing in area, the plot's data area: above the note, centred, scaled down
// if need be.
func (tp *textGridPlot) place(area vg.Rectangle) tgPlacement {
	g := tp.g
	area.Min.Y += g.noteHeight()
	aw, ah := area.Max.X-area.Min.X-2*tgPad, area.Max.Y-area.Min.Y-2*tgPad
	s := min(1, aw/g.width, ah/g.height)
	return tgPlacement{g: g, s: s,
		ox:  area.Min.X + tgPad + (aw-g.width*s)/2,
		top: area.Max.Y - tgPad - (ah-g.height*s)/2}
}
