package plotting

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// Issue 32: axes in seconds read "1e-06" and colour bars of bytes "4e+06"; a unit on the axis
// gives ticks in µs/ms/s and KiB/MiB/GiB with the unit in the label.

func TestUnitDisplay(t *testing.T) {
	for _, c := range []struct {
		u      Unit
		lo, hi float64
		want   string
	}{
		{Seconds, 0, 3e-6, "µs"},
		{Seconds, 0, 0.8, "ms"},
		{Seconds, 0, 1.5, "s"},
		{Seconds, 0, 4200, "s"},
		{Seconds, 1.2, 1.202, "ms"},
		{Seconds, 0, 5e-10, "ns"},
		{Seconds, 0, 0, "s"},
		{Nanoseconds, 0, 5e9, "s"},
		{Nanoseconds, 0, 250, "ns"},
		{Milliseconds, -3, 5, "ms"},
		{Milliseconds, -0.4, 0.3, "µs"},
		{Bytes, 0, 4.2e6, "MiB"},
		{Bytes, 0, 1e6, "KiB"},
		{Bytes, 0, 700, "B"},
		{Bytes, 0, 3 << 30, "GiB"},
		{Bytes, 262144, 262144, "KiB"},
	} {
		if got, _ := c.u.display(c.lo, c.hi); got != c.want {
			t.Errorf("%v on [%g, %g]: unit %q, want %q", c.u, c.lo, c.hi, got, c.want)
		}
	}
}

// unitSize is the size in base units of a unit name.
func unitSize(name string) float64 {
	for _, d := range append(slices.Clone(timeUnits), bytesUnits...) {
		if d.name == name {
			return d.size
		}
	}
	return math.NaN()
}

// On random ranges of both quantities: ticks in the unit chosen are distinct, round, inside the
// range, free of exponents, their labels read back to their values, and the unit is the
// largest in which the range's largest magnitude is at least 1 (unless the step needs a smaller).
func TestUnitTicksRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	for i := 0; i < 5000; i++ {
		u := []Unit{Seconds, Nanoseconds, Milliseconds, Bytes}[r.IntN(4)]
		mag := math.Pow(10, -10+r.Float64()*22)
		lo := (r.Float64()*2 - 0.5) * mag
		if r.IntN(3) == 0 {
			lo = 0
		}
		hi := lo + mag*math.Pow(10, -r.Float64()*4)
		name, mult := u.display(lo, hi)
		ticks := unitTicks{mult: mult}.Ticks(lo, hi)
		if len(ticks) < 2 {
			t.Fatalf("%v [%g, %g]: %d ticks", u, lo, hi, len(ticks))
		}
		seen := map[string]bool{}
		vmax := mult * math.Max(math.Abs(lo), math.Abs(hi)) // in the unit shown: exponents only beyond the units
		for _, tk := range ticks {
			if seen[tk.Label] {
				t.Fatalf("%v [%g, %g] in %s: label %q twice: %v", u, lo, hi, name, tk.Label, ticks)
			}
			seen[tk.Label] = true
			if strings.ContainsAny(tk.Label, "eE") && vmax >= 1e-2 && vmax < 1e6 {
				t.Fatalf("%v [%g, %g] in %s: label %q has an exponent", u, lo, hi, name, tk.Label)
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil {
				t.Fatalf("label %q: %v", tk.Label, err)
			}
			span := hi - lo
			if tk.Value < lo-span*1e-6 || tk.Value > hi+span*1e-6 {
				t.Fatalf("%v [%g, %g]: tick %g outside", u, lo, hi, tk.Value)
			}
			if back := v / mult; math.Abs(back-tk.Value) > span*1e-6 {
				t.Fatalf("%v [%g, %g] in %s: label %q reads %g, tick at %g", u, lo, hi, name, tk.Label, back, tk.Value)
			}
		}
		// mult is the data unit over the unit shown.
		if size := unitSize(name); math.Abs(mult*size/u.scale-1) > 1e-9 {
			t.Fatalf("%v: unit %s, mult %g", u, name, mult)
		}
	}
}

// texts returns the strings drawn on f, in drawing order.
func texts(t *testing.T, f *Figure) []string {
	var out []string
	for _, x := range drawnTexts(t, f) {
		out = append(out, x.s)
	}
	return out
}

func hasExponent(ss []string) []string {
	var bad []string
	for _, s := range ss {
		if _, err := strconv.ParseFloat(s, 64); err == nil && strings.ContainsAny(s, "eE") {
			bad = append(bad, s)
		}
	}
	return bad
}

func TestTimeAxesInHumanUnits(t *testing.T) {
	lanes := []Lane{{Name: "rank 0", Bars: []Bar{{Start: 0, End: 2e-6, Label: "MPI_Send", Color: -1}, {Start: 2e-6, End: 3e-6, Label: "compute", Color: -1}}}}
	x := []float64{0, 1e-3, 2e-3, 3e-3}
	figs := map[string]struct {
		f     *Figure
		label string
		ticks []string
	}{
		"timeline":  {Timeline("t", lanes, WithXLabel("time"), WithXUnit(Seconds)), "time [µs]", []string{"0", "0.5", "1", "1.5", "2", "2.5", "3"}},
		"lines":     {Lines("l", "time", "skew", Series{X: x, Y: []float64{0, 2, 1, 3}}).XUnit(Seconds), "time [ms]", []string{"0", "0.5", "1", "1.5", "2", "2.5", "3"}},
		"lines y":   {Lines("l", "t", "skew", Series{X: []float64{0, 1}, Y: []float64{0, 4e-6}}).YUnit(Seconds), "skew [µs]", []string{"0", "1", "2", "3", "4"}},
		"old label": {Timeline("t", lanes, WithXLabel("time (s)"), WithXUnit(Seconds)), "time [µs]", nil},
		"heatmap": {Heatmap("h", nil, nil, [][]float64{{1, 2, 3}}, WithXRange(0, 3e-3), WithXLabel("time"), WithXUnit(Seconds)),
			"time [ms]", []string{"0", "0.5", "1", "1.5", "2", "2.5", "3"}},
		"stack": {Stack("s", Timeline("t", lanes, WithXLabel("time"), WithXUnit(Seconds))), "time [µs]", nil},
	}
	for name, c := range figs {
		got := texts(t, c.f)
		if !slices.Contains(got, c.label) {
			t.Errorf("%s: no axis label %q in %q", name, c.label, got)
		}
		for _, tk := range c.ticks {
			if !slices.Contains(got, tk) {
				t.Errorf("%s: no tick %q in %q", name, tk, got)
			}
		}
		if bad := hasExponent(got); len(bad) > 0 {
			t.Errorf("%s: labels with exponents %q", name, bad)
		}
	}
}

func TestColorBarInBytes(t *testing.T) {
	f := Heatmap("bytes sent", []string{"0", "1"}, []string{"0", "1"}, [][]float64{{0, 4194304}, {4194304, 0}}, WithColorUnit(Bytes))
	got := texts(t, f)
	if !slices.Contains(got, "MiB") {
		t.Errorf("no unit above the colour bar: %q", got)
	}
	for _, tk := range []string{"0", "1", "2", "3", "4"} {
		if !slices.Contains(got, tk) {
			t.Errorf("no colour-bar tick %q in %q", tk, got)
		}
	}
	if bad := hasExponent(got); len(bad) > 0 {
		t.Errorf("labels with exponents %q", bad)
	}
}

func TestUnitLabel(t *testing.T) {
	for _, c := range [][3]string{
		{"time", "ms", "time [ms]"},
		{"time (s)", "ms", "time [ms]"},
		{"aligned time [s]", "µs", "aligned time [µs]"},
		{"rate (per s)", "ms", "rate (per s) [ms]"},
		{"", "KiB", "[KiB]"},
		{"x", "", "x"},
		{"time (binned by 4, max)", "ms", "time [ms] (binned by 4, max)"},
		{"time (s) (12 marks not drawn: too many)", "ms", "time [ms] (12 marks not drawn: too many)"},
		{"columns binned by 3, mean", "s", "columns binned by 3, mean [s]"},
	} {
		if got := unitLabel(c[0], c[1]); got != c[2] {
			t.Errorf("unitLabel(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// Legends used to cut the end of long names, so that "…device=0" and "…device=1" looked the
// same; they keep the start and the end now.
func TestLegendMiddleEllipsis(t *testing.T) {
	long := "hipKernel_very_long_template_name<float, 256, true>::run device="
	var lanes []Lane
	var series []Series
	for i := 0; i < 3; i++ {
		name := long + strconv.Itoa(i)
		lanes = append(lanes, Lane{Name: "gpu " + strconv.Itoa(i), Bars: []Bar{{Start: float64(i), End: float64(i + 1), Label: name, Color: -1}}})
		series = append(series, Series{Name: name, X: []float64{0, 1}, Y: []float64{float64(i), 1}})
	}
	for name, f := range map[string]*Figure{"timeline": Timeline("t", lanes), "lines": Lines("l", "x", "y", series...)} {
		got := texts(t, f)
		var entries []string
		for _, s := range got {
			if strings.Contains(s, ellipsis) && strings.HasPrefix(s, "hipKernel") {
				entries = append(entries, s)
			}
		}
		if len(entries) != 3 {
			t.Fatalf("%s: legend entries %q (of %q)", name, entries, got)
		}
		for i, e := range entries {
			if !strings.HasSuffix(e, "device="+strconv.Itoa(i)) && !strings.HasSuffix(e, "="+strconv.Itoa(i)) {
				t.Errorf("%s: entry %q does not end with the name's end", name, e)
			}
		}
		if entries[0] == entries[1] || entries[1] == entries[2] {
			t.Errorf("%s: entries not distinct: %q", name, entries)
		}
	}
}

func TestFitMiddle(t *testing.T) {
	sty := textStyle(10, nil)
	r := rand.New(rand.NewPCG(3, 2))
	for i := 0; i < 300; i++ {
		n := 1 + r.IntN(80)
		b := make([]rune, n)
		for j := range b {
			b[j] = rune('a' + r.IntN(26))
		}
		s := string(b)
		w := sty.Width("m") * vg.Length(1+r.Float64()*30)
		got := fitMiddle(sty, s, w)
		if got == s {
			if sty.Width(s) > w {
				t.Fatalf("%q unchanged but wider than %v", s, w)
			}
			continue
		}
		if sty.Width(got) > w && got != ellipsis {
			t.Fatalf("%q -> %q wider than %v", s, got, w)
		}
		head, tail, ok := strings.Cut(got, ellipsis)
		if !ok || !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) || len(head) < len(tail) || len(head)-len(tail) > 1 {
			t.Fatalf("%q -> %q: not start…end", s, got)
		}
		// As long as fits: one more character would not.
		if m := len(head) + len(tail) + 1; m < n {
			longer := s[:(m+1)/2] + ellipsis + s[n-m/2:]
			if sty.Width(longer) <= w {
				t.Fatalf("%q -> %q, but %q fits %v too", s, got, longer, w)
			}
		}
	}
}

// The interactive figures say the same units as the static ones.
func TestVegaLiteUnits(t *testing.T) {
	lanes := []Lane{{Name: "rank 0", Bars: []Bar{{Start: 0, End: 2e-6, Label: "MPI_Send", Color: -1}, {Start: 2e-6, End: 3e-6, Label: "compute", Color: -1}}}}
	enc := func(spec map[string]any) map[string]any {
		if e, ok := spec["encoding"].(map[string]any); ok {
			return e
		}
		return spec["layer"].([]any)[0].(map[string]any)["encoding"].(map[string]any)
	}
	x := enc(Timeline("t", lanes, WithXLabel("time"), WithXUnit(Seconds)).VegaLite())["x"].(map[string]any)
	if x["title"] != "time [µs]" || !strings.Contains(x["axis"].(map[string]any)["labelExpr"].(string), "* 1e+06,") {
		t.Errorf("timeline x %v", x)
	}
	l := Lines("l", "time", "skew", Series{X: []float64{0, 2e-3}, Y: []float64{0, 0.5}}).XUnit(Seconds).YUnit(Milliseconds).VegaLite()
	e := enc(l)
	if e["x"].(map[string]any)["title"] != "time [ms]" || e["y"].(map[string]any)["title"] != "skew [µs]" {
		t.Errorf("lines axes %v %v", e["x"], e["y"])
	}
	h := Heatmap("bytes", nil, nil, [][]float64{{0, 4194304}}, WithColorUnit(Bytes)).VegaLite()
	if leg := enc(h)["color"].(map[string]any)["legend"].(map[string]any); leg["title"] != "MiB" {
		t.Errorf("heatmap legend %v", leg)
	}
	// Without units nothing changes: no axis expression.
	x = enc(Timeline("t", lanes).VegaLite())["x"].(map[string]any)
	if _, ok := x["axis"]; ok || x["title"] != "time" {
		t.Errorf("timeline without unit: x %v", x)
	}
}
