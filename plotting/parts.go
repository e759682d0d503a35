package plotting

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelTicks puts labels[i] at pos(i) for every step-th label, each shortened to maxW in sty
// (the tick label style of the axis).
type labelTicks struct {
	labels []string
	pos    func(i int) float64
	step   int
	sty    text.Style
	maxW   vg.Length
}

func (t labelTicks) Ticks(float64, float64) []plot.Tick {
	ticks := make([]plot.Tick, 0, len(t.labels)/max(t.step, 1)+1)
	for i := 0; i < len(t.labels); i += max(t.step, 1) {
		ticks = append(ticks, plot.Tick{Value: t.pos(i), Label: fitMiddle(t.sty, t.labels[i], t.maxW)})
	}
	return ticks
}

// rowLabelWidth is the widest a row or lane label may be: a quarter of the figure, so that long
// process names leave the chart its room.
func rowLabelWidth(figW vg.Length) vg.Length { return max(60, figW/4) }

// thin returns the label step that keeps n labels at least pitch apart on an axis of length
// avail.
func thin(n int, pitch, avail vg.Length) int {
	if avail <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(float64(n)*float64(pitch)/float64(avail))))
}

// swatch is a legend thumbnail: a filled rectangle, or a line when line is set.
type swatch struct {
	c    color.Color
	line bool
}

func (s swatch) Thumbnail(c *draw.Canvas) {
	if s.line {
		y := c.Center().Y
		c.StrokeLine2(draw.LineStyle{Color: s.c, Width: 2}, c.Min.X, y, c.Max.X, y)
		return
	}
	r := c.Rectangle
	r.Min.Y += 1
	r.Max.Y -= 1
	c.SetColor(s.c)
	c.Fill(r.Path())
	if luminance(s.c) > 0.85 { // a pale swatch gets an outline so that it shows on white
		c.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 170}, Width: 0.5})
		c.Stroke(r.Path())
	}
}

type legendEntry struct {
	name string
	sw   swatch
	gap  bool // a little space above: the first entry of a new group
}

const (
	legendFont    = 10
	legendThumbW  = 14
	legendRowGap  = 3 // between entries
	legendGroupGp = 6 // extra space above a new group
)

// legend is the key in a figure's right-hand column: entries from the top, as many as fit in
// the column's height, then "+ N more" for the rest (and for the more that the caller left
// out).
type legend struct {
	entries []legendEntry
	more    int
}

// sideLegend returns a drawing function for a legend in the right-hand column and the column's
// width; names are shortened to fit a column at most maxW wide.
func sideLegend(entries []legendEntry, more int, maxW vg.Length) (func(draw.Canvas), vg.Length) {
	if len(entries) == 0 {
		return nil, 0
	}
	sty := textStyle(legendFont, color.Black)
	textW := maxW - legendThumbW - 4
	w := vg.Length(0)
	fitted := make([]legendEntry, len(entries))
	for i, e := range entries {
		e.name = fitMiddle(sty, e.name, textW)
		fitted[i] = e
		w = max(w, sty.Width(e.name))
	}
	if more > 0 {
		w = max(w, textStyle(9, color.Black).Width(moreNote(more)))
	}
	l := &legend{entries: fitted, more: more}
	return l.draw, w + legendThumbW + 4
}

func moreNote(n int) string { return fmt.Sprintf("+ %d more", n) }

// layout returns the entries that fit between top and bottom, the y of each (the top of its
// row) and the y of the "+ N more" note with N, or N = 0 for no note.
func (l *legend) layout(top, bottom vg.Length) (shown []legendEntry, ys []vg.Length, noteY vg.Length, more int) {
	rowH := textStyle(legendFont, color.Black).Height("M") + legendRowGap
	noteH := textStyle(9, color.Black).Height("M") + legendRowGap
	// Find how many entries fit, leaving room for the note when some are left out.
	for n := len(l.entries); n >= 0; n-- {
		y := top
		ys = ys[:0]
		for i, e := range l.entries[:n] {
			if e.gap && i > 0 {
				y -= legendGroupGp
			}
			ys = append(ys, y)
			y -= rowH
		}
		more = l.more + len(l.entries) - n
		need := y
		if more > 0 {
			need -= noteH
		}
		if need >= bottom || n == 0 {
			if more > 0 && need < bottom { // not even the note fits
				more = 0
			}
			return l.entries[:n], ys, y, more
		}
	}
	return nil, nil, top, 0
}

func (l *legend) draw(c draw.Canvas) {
	sty := textStyle(legendFont, color.Black)
	sty.YAlign = draw.YTop
	shown, ys, noteY, more := l.layout(c.Max.Y, c.Min.Y)
	rowH := sty.Height("M")
	for i, e := range shown {
		y := ys[i]
		thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Min.X, Y: y - rowH}, Max: vg.Point{X: c.Min.X + legendThumbW, Y: y}}}
		e.sw.Thumbnail(&thumb)
		c.FillText(sty, vg.Point{X: c.Min.X + legendThumbW + 4, Y: y}, e.name)
	}
	if more > 0 {
		ns := textStyle(9, color.Gray{Y: 100})
		ns.YAlign = draw.YTop
		c.FillText(ns, vg.Point{X: c.Min.X, Y: noteY}, moreNote(more))
	}
}

// rowTicks labels rows from the top of p's y axis (row i centred at len(labels)-i-0.5), thinned
// so that labels stay apart in an axis avail high and shortened to rowLabelWidth(figW).
func rowTicks(p *plot.Plot, labels []string, avail, figW vg.Length) labelTicks {
	n := len(labels)
	return labelTicks{labels: labels, pos: func(i int) float64 { return float64(n-i) - 0.5 },
		step: thin(n, 11, avail), sty: p.Y.Tick.Label, maxW: rowLabelWidth(figW)}
}

// legendWidth is the widest a legend column may be.
func legendWidth(figW vg.Length) vg.Length { return max(80, figW*0.28) }
