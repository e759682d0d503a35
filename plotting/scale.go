package plotting

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// colorScale maps values to colours for heatmaps and matrices. A sequential scale runs viridis
// from lo to hi; a diverging scale runs blue - white - red with white at zero (each side
// stretched to its end of the range, so a symmetric range keeps equal magnitudes equally dark).
type colorScale struct {
	lo, hi    float64
	diverging bool
	coldWarm  bool
	greenRed  bool // Brendel's bright green - orange - red
	log       bool // positions by log10 (lo > 0)
}

// newScale chooses the colour range for data spanning [dlo, dhi] (dlo > dhi: no finite data).
//
//   - WithColorRange(lo, hi) is used as given.
//   - Otherwise the scale is anchored at zero: data of one sign gets a sequential scale from 0
//     to its extreme, data of both signs (or WithDiverging) a diverging scale symmetric around
//     0. WithStretch spans the data's own range instead (a diverging scale keeps white at 0 if
//     0 is inside it).
//   - A range that would be empty (uniform data) becomes [0, 1], [v, 0] or [0, v] (diverging:
//     [-1, 1] or [-|v|, |v|]) so that the colour bar has distinct ticks.
func newScale(dlo, dhi float64, o options) colorScale {
	if o.colorRange != nil {
		return colorScale{lo: o.colorRange[0], hi: o.colorRange[1], diverging: o.diverging, coldWarm: o.coldWarm, greenRed: o.greenRed}
	}
	if dlo > dhi { // nothing finite
		dlo, dhi = 0, 0
	}
	s := colorScale{diverging: o.diverging || dlo < 0 && dhi > 0, coldWarm: o.coldWarm, greenRed: o.greenRed}
	switch {
	case o.stretch && dlo < dhi:
		s.lo, s.hi = dlo, dhi
	case s.diverging:
		m := max(math.Abs(dlo), math.Abs(dhi))
		if m == 0 {
			m = 1
		}
		s.lo, s.hi = -m, m
	default:
		s.lo, s.hi = min(dlo, 0), max(dhi, 0)
		if s.lo == s.hi {
			s.hi = 1
		}
	}
	return s
}

// noValue is the colour of NaN and infinite cells.
var noValue = color.Gray{Y: 200}

// color returns the colour of v; values outside the range get the colour of its nearer end.
func (s colorScale) color(v float64) color.Color {
	if !finite(v) {
		return noValue
	}
	return s.colorAt(s.position(v))
}

// position maps v to [0, 1] along the colour map.
func (s colorScale) position(v float64) float64 {
	if s.log {
		t := (math.Log10(max(v, s.lo)) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
		return min(max(t, 0), 1)
	}
	if !s.diverging || s.lo >= 0 || s.hi <= 0 {
		if s.hi == s.lo {
			return 0.5
		}
		t := (v - s.lo) / (s.hi - s.lo)
		if s.diverging && s.lo >= 0 { // only the positive half of the map
			t = 0.5 + t/2
		} else if s.diverging {
			t /= 2
		}
		return min(max(t, 0), 1)
	}
	if v < 0 {
		return max(0.5-0.5*v/s.lo, 0)
	}
	return min(0.5+0.5*v/s.hi, 1)
}

// frac is where v lies along the colour bar, 0 at lo and 1 at hi (the inverse of at).
func (s colorScale) frac(v float64) float64 {
	if s.log {
		return (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	}
	return (v - s.lo) / (s.hi - s.lo)
}

// at is the value at fraction t of the colour bar.
func (s colorScale) at(t float64) float64 {
	if s.log {
		return math.Pow(10, math.Log10(s.lo)+t*(math.Log10(s.hi)-math.Log10(s.lo)))
	}
	return s.lo + t*(s.hi-s.lo)
}

func (s colorScale) colorAt(t float64) color.Color {
	switch {
	case s.diverging:
		return interpolate(divergingStops, t)
	case s.coldWarm:
		return interpolate(coldWarmStops, t)
	case s.greenRed:
		return interpolate(greenRedStops, t)
	}
	return interpolate(viridisStops, t)
}

// ticks returns the labelled ticks of the colour bar: round values within [lo, hi] (powers of
// ten on a log scale).
func (s colorScale) ticks() []plot.Tick {
	if s.log {
		return valueAxis{lo: math.Log10(s.lo), hi: math.Log10(s.hi), log: true}.ticks()
	}
	return niceTicks(s.lo, s.hi, 5)
}

// niceTicks returns about n ticks at round values in [lo, hi] (steps of 1, 2 or 5 times a power
// of ten), labelled with the decimals the step needs, so that a range never shows the same label
// twice.
func niceTicks(lo, hi float64, n int) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	count := func(step float64) int { return int(math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1) }
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(max(n-1, 1)))))
	step, best := 0.0, math.MaxInt
	for _, base := range []float64{mag / 10, mag, mag * 10} {
		for _, m := range []float64{1, 2, 5} {
			c := count(m * base)
			if d := abs(c - n); c >= 2 && d <= best { // ties: the larger step
				step, best = m*base, d
			}
		}
	}
	stepExp := int(math.Floor(math.Log10(step) + 1e-9))
	decimals := max(0, -stepExp)
	maxAbs := max(math.Abs(lo), math.Abs(hi))
	big := maxAbs >= 1e6 || step < 1e-4 // exponent notation, as many digits as the step needs
	digits := max(1, int(math.Floor(math.Log10(maxAbs)))-stepExp+1)
	var out []plot.Tick
	first := math.Ceil(lo/step - 1e-9)
	for i := 0; ; i++ {
		v := (first + float64(i)) * step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		label := strconv.FormatFloat(v, 'g', digits, 64)
		if !big {
			p := math.Pow(10, float64(decimals))
			label = strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
		}
		out = append(out, plot.Tick{Value: v, Label: label})
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// roundTicks marks numeric axes at about six round values, labelled without needless decimals
// ("25", not gonum's "25.00").
type roundTicks struct{}

func (roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	return niceTicks(lo, hi, 6)
}

// viridisStops are nine evenly spaced samples of matplotlib's viridis colour map (perceptually
// uniform, readable in grey and by colour-blind readers).
var viridisStops = []color.RGBA{
	rgb(0x440154), rgb(0x472d7b), rgb(0x3b528b), rgb(0x2c728e), rgb(0x21918c),
	rgb(0x28ae80), rgb(0x5ec962), rgb(0xaddc30), rgb(0xfde725),
}

// divergingStops are ColorBrewer's RdBu, blue for negative, white-ish at the centre, red for
// positive (colour-blind safe).
var divergingStops = []color.RGBA{
	rgb(0x2166ac), rgb(0x4393c3), rgb(0x92c5de), rgb(0xd1e5f0), rgb(0xf7f7f7),
	rgb(0xfddbc7), rgb(0xf4a582), rgb(0xd6604d), rgb(0xb2182b),
}

// coldWarmStops are ColorBrewer's RdYlBu reversed: blue for low values, pale yellow in the
// middle, red for high ones (colour-blind safe).
var coldWarmStops = []color.RGBA{
	rgb(0x313695), rgb(0x4575b4), rgb(0x74add1), rgb(0xabd9e9), rgb(0xfee090),
	rgb(0xfdae61), rgb(0xf46d43), rgb(0xd73027), rgb(0xa50026),
}

// greenRedStops is Brendel's linear gradient (Fig. 15): bright green, orange, red.
var greenRedStops = []color.RGBA{rgb(0x00e000), rgb(0xffa500), rgb(0xff0000)}

// interpolate maps t in [0, 1] to a colour by linear interpolation between the stops.
func interpolate(stops []color.RGBA, t float64) color.Color {
	t = min(max(t, 0), 1) * float64(len(stops)-1)
	i := min(int(t), len(stops)-2)
	f := t - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-f) + float64(y)*f)) }
	return color.RGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 255}
}
