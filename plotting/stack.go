package plotting

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

const stackTitleH = 22

// Stack draws figures above each other, for example two aligned timelines over a state bar, a
// dissimilarity and a skew line (Weber, Fig. 4.6). The stack is as wide as its widest part and
// each part gets a share of the height proportional to its own height (set it with WithSize or
// Resize). The data areas of all charts are aligned horizontally and their legends share one
// right-hand column, so equal x values line up across parts. Nil parts are skipped.
func Stack(title string, parts ...*Figure) *Figure {
	var ps []*Figure
	var width, height vg.Length
	for _, p := range parts {
		if p != nil {
			ps = append(ps, p)
			width = max(width, p.width)
			height += p.height
		}
	}
	if len(ps) == 0 {
		return noData(title, options{})
	}
	if title != "" {
		height += stackTitleH
	}
	return &Figure{title: title, width: width, height: height, parts: ps}
}

func (f *Figure) drawStack(c draw.Canvas) {
	if title := f.stackTitle(c); title != "" {
		sty := stackTitleStyle()
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, title)
	}
	l := f.stackLayout(f.stackBody(c))
	for i, p := range f.parts {
		p.drawAt(l.canvases[i], l.sideW, l.padL[i], l.padR[i])
	}
}

func stackTitleStyle() draw.TextStyle {
	sty := textStyle(14, color.Black)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	return sty
}

// stackTitle is the title fitted to c's width, on two lines if need be.
func (f *Figure) stackTitle(c draw.Canvas) string {
	if f.title == "" {
		return ""
	}
	return fitLines(stackTitleStyle(), f.title, c.Max.X-c.Min.X, 2)
}

// stackBody is the part of c beneath the title, where the parts go.
func (f *Figure) stackBody(c draw.Canvas) draw.Canvas {
	if title := f.stackTitle(c); title != "" {
		c.Max.Y -= max(stackTitleH, stackTitleStyle().Height(title)+6)
	}
	return c
}

type stackLayout struct {
	canvases   []draw.Canvas // one per part, top to bottom
	sideW      vg.Length     // the shared legend column
	padL, padR []vg.Length   // per part, to line up the data areas
}

// stackLayout lays the parts out top to bottom, then measures how far each chart's data area
// is inset and pads every chart to the largest insets so the data areas line up.
func (f *Figure) stackLayout(c draw.Canvas) stackLayout {
	var total vg.Length
	l := stackLayout{
		canvases: make([]draw.Canvas, len(f.parts)),
		padL:     make([]vg.Length, len(f.parts)),
		padR:     make([]vg.Length, len(f.parts)),
	}
	for _, p := range f.parts {
		total += p.height
		l.sideW = max(l.sideW, p.sideW)
	}
	top := c.Max.Y
	for i, p := range f.parts {
		h := (c.Max.Y - c.Min.Y) * p.height / total
		l.canvases[i] = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Min.X, Y: top - h}, Max: vg.Point{X: c.Max.X, Y: top}}}
		top -= h
	}
	left := make([]vg.Length, len(f.parts))
	right := make([]vg.Length, len(f.parts))
	var maxL, maxR vg.Length
	for i, p := range f.parts {
		if p.plot == nil || p.parts != nil {
			continue
		}
		main := p.mainCanvas(l.canvases[i], l.sideW)
		da := p.plotFor(main).DataCanvas(main) // a copy: DataCanvas adjusts the plot's axes
		left[i], right[i] = da.Min.X-main.Min.X, main.Max.X-da.Max.X
		maxL, maxR = max(maxL, left[i]), max(maxR, right[i])
	}
	for i, p := range f.parts {
		if p.plot != nil && p.parts == nil {
			l.padL[i], l.padR[i] = maxL-left[i], maxR-right[i]
		}
	}
	return l
}
