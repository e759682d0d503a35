package plotting

import (
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func canvasFor(f *Figure) draw.Canvas {
	return draw.New(vgimg.New(f.width, f.height))
}
