package plotting

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelTicks puts labels[i] at pos(i) for every step-th label.
type labelTicks struct {
	labels []string
	pos    func(i int) float64
	step   int
}

func (t labelTicks) Ticks(float64, float64) []plot.Tick {
	ticks := make([]plot.Tick, 0, len(t.labels)/max(t.step, 1)+1)
	for i := 0; i < len(t.labels); i += max(t.step, 1) {
		ticks = append(ticks, plot.Tick{Value: t.pos(i), Label: shorten(t.labels[i], 28)})
	}
	return ticks
}

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
}

type legendEntry struct {
	name string
	sw   swatch
}

// sideLegend returns a drawing function for a legend in the right-hand column and the
// column's width.
func sideLegend(entries []legendEntry, more int) (func(draw.Canvas), vg.Length) {
	if len(entries) == 0 {
		return nil, 0
	}
	l := plot.NewLegend()
	l.TextStyle = textStyle(10, color.Black)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 14
	l.Padding = 2
	l.YPosition = draw.PosCenter
	w := vg.Length(0)
	for _, e := range entries {
		name := shorten(e.name, 28)
		l.Add(name, e.sw)
		w = max(w, l.TextStyle.Width(name))
	}
	note := ""
	if more > 0 {
		note = fmt.Sprintf("+ %d more", more)
		w = max(w, l.TextStyle.Width(note))
	}
	w += l.ThumbnailWidth + l.TextStyle.Width(" ") + 4
	return func(c draw.Canvas) {
		c.Max.Y -= 24 // level with the chart under its title
		l.Draw(c)
		if note != "" {
			sty := textStyle(9, color.Gray{Y: 100})
			sty.YAlign = draw.YTop
			y := c.Max.Y - vg.Length(len(entries))*(l.TextStyle.Height("M")+l.Padding+1) - 6
			c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, note)
		}
	}, w
}
