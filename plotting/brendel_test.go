package plotting

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// polygonArea is the shoelace area of a polygon.
func polygonArea(pts []vg.Point) float64 {
	a := 0.0
	for i := range pts {
		p, q := pts[i], pts[(i+1)%len(pts)]
		a += float64(p.X)*float64(q.Y) - float64(q.X)*float64(p.Y)
	}
	return math.Abs(a) / 2
}

// The rings of a box-plot square take 1, 3, 6, 3 and 1 of 14 parts of its area (Brendel 3.2),
// from the 2nd percentile outside to the 98th in the centre.
func TestBoxRingAreas(t *testing.T) {
	want := []float64{1, 3, 6, 3, 1}
	for k := range 5 {
		outer := boxRings[k] * boxRings[k]
		inner := 0.0
		if k < 4 {
			inner = boxRings[k+1] * boxRings[k+1]
		}
		if got := (outer - inner) * 14; math.Abs(got-want[k]) > 1e-12 {
			t.Fatalf("ring %d: %g of 14 parts, want %g", k, got, want[k])
		}
	}
}

// Slices are equal in area, start at the top-left corner, go clockwise, and keep every ring's
// proportion (a slice of a concentric square is the same slice scaled).
func TestSlicesOfSquare(t *testing.T) {
	ctr := vg.Point{X: 50, Y: 50}
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 64} {
		total := 0.0
		for k := range n {
			pts := sliceOfSquare(ctr, 40, k, n)
			a := polygonArea(pts)
			if math.Abs(a-1600/float64(n)) > 1e-9 {
				t.Fatalf("n=%d slice %d: area %g, want %g", n, k, a, 1600/float64(n))
			}
			total += a
			for r := range 5 { // the slice of ring square r is 1/n of it
				ar := polygonArea(sliceOfSquare(ctr, 40*vg.Length(boxRings[r]), k, n))
				if want := 1600 * boxRings[r] * boxRings[r] / float64(n); math.Abs(ar-want) > 1e-9 {
					t.Fatalf("n=%d slice %d ring %d: area %g, want %g", n, k, r, ar, want)
				}
			}
		}
		if math.Abs(total-1600) > 1e-9 {
			t.Fatalf("n=%d: slices cover %g of 1600", n, total)
		}
	}
	// four slices: the first runs along the top edge from the top-left corner to the
	// top-right corner; the second down the right edge (clockwise)
	first := sliceOfSquare(ctr, 40, 0, 4)
	if first[1] != (vg.Point{X: 30, Y: 70}) || first[len(first)-1] != (vg.Point{X: 70, Y: 70}) {
		t.Fatalf("slice 0 of 4: %v", first)
	}
	second := sliceOfSquare(ctr, 40, 1, 4)
	if second[1] != (vg.Point{X: 70, Y: 70}) || second[len(second)-1] != (vg.Point{X: 70, Y: 30}) {
		t.Fatalf("slice 1 of 4: %v", second)
	}
	// eight slices: slice 1 runs from the middle of the top edge to the top-right corner
	if s := sliceOfSquare(ctr, 40, 1, 8); s[1] != (vg.Point{X: 50, Y: 70}) || s[2] != (vg.Point{X: 70, Y: 70}) {
		t.Fatalf("slice 1 of 8: %v", s)
	}
}

func TestGreenRedGradient(t *testing.T) {
	s := colorScale{lo: 0, hi: 10, greenRed: true}
	for _, c := range []struct {
		v    float64
		want color.RGBA
	}{{0, rgb(0x00e000)}, {5, rgb(0xffa500)}, {10, rgb(0xff0000)}} {
		r, g, b, _ := s.color(c.v).RGBA()
		if got := (color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 255}); got != c.want {
			t.Fatalf("colour of %g: %v, want %v", c.v, got, c.want)
		}
	}
	lg := colorScale{lo: 1, hi: 1e4, greenRed: true, log: true}
	if p := lg.position(100); math.Abs(p-0.5) > 1e-12 {
		t.Fatalf("log position of 100 in [1, 1e4]: %g", p)
	}
	if ts := lg.ticks(); len(ts) != 5 || ts[2].Label != "100" || ts[4].Label != "10k" {
		t.Fatalf("log ticks: %v", ts)
	}
}

func decodePNG(t *testing.T, f *Figure) image.Image {
	t.Helper()
	b, err := f.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// A square whose percentiles span the scale shows, from its centre outwards, the colours of the
// 98th, 75th, 50th, 25th (and, in a thin outer ring, the 2nd) percentile, at the radii of the
// 1 : 3 : 6 : 3 : 1 areas.
func TestBoxSquaresRendersRings(t *testing.T) {
	f := BoxSquares("one cell", []string{"main"}, []string{"solve"},
		[]SquareCell{{Row: 0, Col: 0, Slices: [][5]float64{{0, 25, 50, 75, 100}}}}, WithSize(300, 260))
	checkRender(t, "boxsquares_one", f)
	img := decodePNG(t, f)
	// the square: the bounding box of its saturated pixels (left of the colour bar)
	r := img.Bounds()
	minX, minY, maxX, maxY := r.Max.X, r.Max.Y, 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X-110; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cb>>8 < 60 && max(cr, cg)>>8 > 150 {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
		}
	}
	w, h := maxX-minX+1, maxY-minY+1
	if w < 20 || math.Abs(float64(w-h)) > 2 {
		t.Fatalf("square %dx%d px, want a square of some size", w, h)
	}
	cx, cy := float64(minX+maxX)/2, float64(minY+maxY)/2
	half := float64(w) / 2
	sc := colorScale{lo: 0, hi: 100, greenRed: true}
	for _, c := range []struct {
		frac float64 // distance from the centre in half sides
		v    float64
	}{{0.1, 100}, {0.4, 75}, {0.69, 50}, {0.905, 25}} { // ring bounds 0.267, 0.535, 0.845, 0.964
		x := int(math.Round(cx - c.frac*half))
		cr, cg, cb, _ := img.At(x, int(math.Round(cy))).RGBA()
		wr, wg, wb, _ := sc.color(c.v).RGBA()
		if d := max(absDiff(cr, wr), absDiff(cg, wg), absDiff(cb, wb)); d > 8 {
			t.Fatalf("at %.1f of the half side: colour %d,%d,%d, want the colour of %g (%d,%d,%d)",
				c.frac, cr>>8, cg>>8, cb>>8, c.v, wr>>8, wg>>8, wb>>8)
		}
	}
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return (a - b) >> 8
	}
	return (b - a) >> 8
}

// Boxes grow thicker with their number of measurements.
func TestGroupedBoxesThicknessByCount(t *testing.T) {
	pal := WithPalette(rgb(0xcc0000), rgb(0x0000cc))
	rows := []BoxRow{{Label: "f", Boxes: []SeriesBox{
		{Series: 0, Count: 1, P2: 10, P25: 20, P50: 30, P75: 40, P98: 50},
		{Series: 1, Count: 1000, P2: 10, P25: 20, P50: 30, P75: 40, P98: 50},
	}}}
	f := GroupedBoxes("thickness", []string{"few", "many"}, rows, pal, WithSize(500, 200))
	checkRender(t, "groupedboxes_thickness", f)
	img := decodePNG(t, f)
	// the box fill is the series colour blended with white at 0.55; count the rows of pixels
	// of each box fill in the box area (right of the count panel)
	height := func(c color.RGBA) int {
		fill := blend(c, 0.55).(color.RGBA)
		rowsSeen := 0
		r := img.Bounds()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Max.X / 2; x < r.Max.X; x++ {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				if uint8(cr>>8) == fill.R && uint8(cg>>8) == fill.G && uint8(cb>>8) == fill.B {
					rowsSeen++
					break
				}
			}
		}
		return rowsSeen
	}
	few, many := height(rgb(0xcc0000)), height(rgb(0x0000cc))
	if few == 0 || many < 3*few {
		t.Fatalf("box heights: 1 call %d px, 1000 calls %d px; want the second at least 3 times the first", few, many)
	}
}

func TestBrendelPanics(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() {
			GroupedBoxes("x", []string{"a"}, []BoxRow{{Label: "f", Boxes: []SeriesBox{{Series: 1, Count: 1}}}})
		},
			"plotting.GroupedBoxes: row 0 (\"f\") box 0: series 1 of 1"},
		{func() {
			GroupedBoxes("x", []string{"a"}, []BoxRow{{Label: "f", Boxes: []SeriesBox{{Count: 1, P2: 3, P25: 2, P50: 2, P75: 2, P98: 2}}}})
		}, "percentiles not ordered"},
		{func() {
			BoxSquares("x", []string{"a"}, []string{"b"}, []SquareCell{{Row: 1, Slices: [][5]float64{{1, 2, 3, 4, 5}}}})
		},
			"plotting.BoxSquares: cell 0 at (1, 0) outside the 1 x 1 grid"},
		{func() {
			BoxSquares("x", []string{"a"}, []string{"b", "c"}, []SquareCell{{Slices: [][5]float64{{1, 2, 3, 4, 5}}}, {Col: 1}})
		}, "plotting.BoxSquares: cell 1 has 0 slices, cell 0 has 1"},
		{func() {
			BoxSquares("x", []string{"a"}, []string{"b"}, []SquareCell{{Slices: [][5]float64{{5, 4, 3, 2, 1}}}})
		},
			"percentiles not ordered"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, c.want) {
					t.Fatalf("panic %v, want %q", r, c.want)
				}
			}()
			c.f()
		}()
	}
	// nothing to draw is the no-data figure, as elsewhere
	if f := GroupedBoxes("x", []string{"a"}, nil); f.note != "no data" {
		t.Fatal("GroupedBoxes without rows")
	}
	if f := BoxSquares("x", []string{"a"}, []string{"b"}, []SquareCell{{Slices: [][5]float64{{math.NaN(), 0, 0, 0, 0}}}}); f.note != "no data" {
		t.Fatal("BoxSquares with empty slices only")
	}
}

// Issue 32: the call matrix's slanted column labels ran into the colour bar and its ticks.
func TestBoxSquaresLabelsClearOfColorBar(t *testing.T) {
	for _, n := range [][2]int{{6, 24}, {3, 5}, {24, 24}, {2, 40}} {
		var rows, cols []string
		for i := 0; i < n[0]; i++ {
			rows = append(rows, fmt.Sprintf("caller_function_%d", i))
		}
		for j := 0; j < n[1]; j++ {
			cols = append(cols, fmt.Sprintf("MPI_Callee_with_a_long_name_%d", j))
		}
		var cells []SquareCell
		for i := range rows {
			for j := range cols {
				v := float64(1 + (i*7+j*3)%50)
				cells = append(cells, SquareCell{Row: i, Col: j, Slices: [][5]float64{{v, v * 1.5, v * 2, v * 3, v * 4}}})
			}
		}
		f := BoxSquares("call matrix", rows, cols, cells, WithXLabel("callee"), WithYLabel("caller"))
		sideX := f.width - margin - f.sideW
		slanted := 0
		for _, x := range drawnTexts(t, f) {
			if x.rotated {
				slanted++
			}
			if x.page.Min.X < sideX && x.page.Max.X > sideX-2 {
				t.Errorf("%dx%d: %q spans x %.1f to %.1f, into the colour bar's column at %.1f", n[0], n[1], x.s, x.page.Min.X, x.page.Max.X, sideX)
			}
		}
		if slanted != len(cols) {
			t.Errorf("%dx%d: %d slanted labels, want %d", n[0], n[1], slanted, len(cols))
		}
	}
}
