package plotting

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// liveStaticMessages is the most message lines the static figure draws (one in k beyond).
const liveStaticMessages = 5000

// liveOverlay draws what Timeline does not on a LiveTimeline's static figure: counter lanes as
// step lines in their rows and messages as lines between the middles of their lanes' rows.
type liveOverlay struct {
	lt *LiveTimeline
}

func (o liveOverlay) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	lo, hi := p.X.Min, p.X.Max
	n := float64(len(o.lt.Lanes))
	for li, l := range o.lt.Lanes {
		if l.Kind != LaneCounter || len(l.Samples) == 0 {
			continue
		}
		vmin, vmax := 0.0, math.Inf(-1)
		for _, s := range l.Samples {
			if finite(s.Value) {
				vmin, vmax = min(vmin, s.Value), max(vmax, s.Value)
			}
		}
		if !(vmax > vmin) {
			vmax = vmin + 1
		}
		bottom, top := n-float64(li)-0.92, n-float64(li)-0.08
		y := func(v float64) vg.Length { return trY(bottom + (v-vmin)/(vmax-vmin)*(top-bottom)) }
		var pts []vg.Point
		for i, s := range l.Samples {
			if !finite(s.Value) {
				continue
			}
			t0 := max(float64(s.Time), lo)
			t1 := hi
			if i+1 < len(l.Samples) {
				t1 = min(float64(l.Samples[i+1].Time), hi)
			}
			if t1 < lo || t0 > hi {
				continue
			}
			pts = append(pts, vg.Point{X: trX(t0), Y: y(s.Value)}, vg.Point{X: trX(t1), Y: y(s.Value)})
		}
		if len(pts) > 1 {
			c.StrokeLines(draw.LineStyle{Color: color.RGBA{R: 0x2a, G: 0x6f, B: 0x2a, A: 255}, Width: 0.8}, pts)
		}
	}
	ms := o.lt.Messages
	stride := max(1, (len(ms)+liveStaticMessages-1)/liveStaticMessages)
	sty := draw.LineStyle{Color: color.Black, Width: 0.5}
	for i := 0; i < len(ms); i += stride {
		m := ms[i]
		x0, x1 := float64(m.Send), float64(m.Recv)
		y0, y1 := n-float64(m.From)-0.5, n-float64(m.To)-0.5
		// clip the segment to [lo, hi]
		if (x0 < lo && x1 < lo) || (x0 > hi && x1 > hi) {
			continue
		}
		at := func(x float64) float64 {
			if x1 == x0 {
				return y0
			}
			return y0 + (x-x0)/(x1-x0)*(y1-y0)
		}
		ax, bx := x0, x1
		if ax > bx {
			ax, bx = bx, ax
		}
		ax, bx = max(ax, lo), min(bx, hi)
		c.StrokeLine2(sty, trX(ax), trY(at(ax)), trX(bx), trY(at(bx)))
	}
}
