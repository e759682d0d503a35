package plotting

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Issue 32: figures had YRange but no XRange; every time-axis figure shows a window of x now.

// The timeline of a window holds exactly the bars of a brute-force clip of the input.
func TestTimelineXRangeClipsBars(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2))
	for it := 0; it < 200; it++ {
		lanes := make([]Lane, 1+r.IntN(4))
		for i := range lanes {
			tt := 0.0
			for j := r.IntN(30); j > 0; j-- {
				d := r.Float64() * 3
				lanes[i].Bars = append(lanes[i].Bars, Bar{Start: tt, End: tt + d, Level: r.IntN(3), Label: string(rune('a' + r.IntN(5))), Color: -1})
				tt += d + r.Float64()
			}
		}
		lo := r.Float64() * 40
		hi := lo + 0.01 + r.Float64()*20
		f := Timeline("t", lanes, WithXUnit(Seconds)).Resize(500, 200).XRange(lo, hi)
		if w, h := f.Size(); w != 500 || h != 200 {
			t.Fatalf("size %gx%g after XRange, want the 500x200 set before", w, h)
		}
		if f.xUnit != Seconds {
			t.Fatalf("unit lost")
		}
		var want []Bar
		for _, l := range lanes {
			for _, b := range l.Bars {
				if b.End >= lo && b.Start <= hi && !(b.End == lo && b.Start < lo) && !(b.Start == hi && b.End > hi) {
					b.Start, b.End = math.Max(b.Start, lo), math.Min(b.End, hi)
					want = append(want, b)
				}
			}
		}
		tp, ok := f.body.(*timelinePlot)
		if len(want) == 0 {
			if ok || f.note == "" {
				t.Fatalf("no bars in [%g, %g] but no note", lo, hi)
			}
			continue
		}
		if !ok {
			t.Fatalf("window [%g, %g]: no timeline (%q)", lo, hi, f.note)
		}
		var got []Bar
		for _, byLevel := range tp.lanes {
			for _, bs := range byLevel {
				got = append(got, bs...)
			}
		}
		key := func(a, b Bar) int {
			if a.Start != b.Start {
				return map[bool]int{true: -1, false: 1}[a.Start < b.Start]
			}
			if a.End != b.End {
				return map[bool]int{true: -1, false: 1}[a.End < b.End]
			}
			return a.Level - b.Level
		}
		slices.SortFunc(got, key)
		slices.SortFunc(want, key)
		if !slices.Equal(got, want) {
			t.Fatalf("window [%g, %g]: bars\n%v\nwant\n%v", lo, hi, got, want)
		}
		if f.plot.X.Min != lo || f.plot.X.Max != hi {
			t.Fatalf("x axis [%g, %g], want [%g, %g]", f.plot.X.Min, f.plot.X.Max, lo, hi)
		}
		if _, err := f.PNG(); err != nil {
			t.Fatal(err)
		}
		// XRange of a windowed figure is a window of the whole input, not of the first window.
		g := f.XRange(0, 1000)
		if g.body.(*timelinePlot).xmax != 1000 {
			t.Fatal("second XRange did not start from the whole input")
		}
	}
}

func TestLinesXRange(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5}
	y := []float64{0, 10, 0, 100, 0, 5}
	f := Lines("l", "time", "v", Series{X: x, Y: y}).YRange(0, 1).XRange(0.5, 1.5)
	if f.plot.X.Min != 0.5 || f.plot.X.Max != 1.5 {
		t.Errorf("x axis [%g, %g]", f.plot.X.Min, f.plot.X.Max)
	}
	// The line within [0.5, 1.5] runs 5 -> 10 -> 5; YRange(0, 1) is kept (widening to 0).
	if f.plot.Y.Min != 0 || f.plot.Y.Max != 10 {
		t.Errorf("y axis [%g, %g], want [0, 10] (the window's values and the YRange)", f.plot.Y.Min, f.plot.Y.Max)
	}
	g := Lines("l", "time", "v", Series{X: x, Y: y}).XRange(2.5, 3.5)
	if g.plot.Y.Min != 50 || g.plot.Y.Max != 100 {
		t.Errorf("y axis [%g, %g], want [50, 100] (interpolated at the edges)", g.plot.Y.Min, g.plot.Y.Max)
	}
	if spec := g.VegaLite(); spec == nil {
		t.Error("no Vega-Lite spec")
	}
	if e := Lines("l", "t", "v", Series{X: x, Y: y}).XRange(10, 11); e.plot != nil || e.note == "" {
		t.Errorf("window without points: %+v", e)
	}
}

func TestHeatmapAndStackXRange(t *testing.T) {
	vals := [][]float64{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}}
	h := Heatmap("h", []string{"a", "b"}, nil, vals, WithXRange(0, 1), WithXUnit(Seconds), WithXLabel("time"))
	c := h.XRange(0.25, 0.55) // columns 2..5
	gp := c.body.(*gridPlot)
	if len(gp.values[0]) != 4 || gp.values[0][0] != 2 || gp.values[1][3] != 4 {
		t.Errorf("cropped values %v", gp.values)
	}
	if rt := c.plot.X.Tick.Marker.(rangeTicks); math.Abs(rt.lo-0.2) > 1e-12 || math.Abs(rt.hi-0.6) > 1e-12 {
		t.Errorf("cropped range [%g, %g], want [0.2, 0.6]", rt.lo, rt.hi)
	}
	if got := texts(t, c); !slices.Contains(got, "time [ms]") {
		t.Errorf("no unit in %q", got)
	}
	// Labelled columns have no numeric axis: unchanged.
	m := Heatmap("m", nil, []string{"x", "y"}, [][]float64{{1, 2}})
	if m.XRange(0, 1) != m {
		t.Error("a heatmap of labelled columns changed")
	}
	lanes := []Lane{{Name: "p", Bars: []Bar{{Start: 0, End: 0.5, Label: "a", Color: -1}, {Start: 0.5, End: 1, Label: "b", Color: -1}}}}
	s := Stack("s", Timeline("t", lanes), Lines("l", "x", "y", Series{X: []float64{0, 1}, Y: []float64{0, 1}}), h).XRange(0.6, 0.9)
	if s.parts[0].plot.X.Min != 0.6 || s.parts[1].plot.X.Max != 0.9 {
		t.Errorf("stack parts not windowed: [%g, %g] [%g, %g]", s.parts[0].plot.X.Min, s.parts[0].plot.X.Max, s.parts[1].plot.X.Min, s.parts[1].plot.X.Max)
	}
	if rt := s.parts[2].plot.X.Tick.Marker.(rangeTicks); math.Abs(rt.lo-0.6) > 1e-12 || math.Abs(rt.hi-0.9) > 1e-12 {
		t.Errorf("stack's heatmap range [%g, %g], want [0.6, 0.9]", rt.lo, rt.hi)
	}
	checkRender(t, "stack_xrange", s)
}
