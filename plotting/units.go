package plotting

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
)

// Unit is the unit of the data on an axis or a colour bar: Seconds, Milliseconds, Nanoseconds or
// Bytes (the zero Unit is none). A figure with a unit shows its ticks in the unit that suits the
// range it draws — s, ms, µs or ns for time, B, KiB, MiB, GiB or TiB for bytes — and says that
// unit in the axis label ("time [ms]") or above the colour bar, so that an axis never reads
// "1e-06" and a colour bar never "4e+06".
type Unit struct {
	q     quantity
	scale float64 // one data unit in the base unit (s or B)
}

type quantity uint8

const (
	noQuantity quantity = iota
	timeQuantity
	bytesQuantity
)

// The data units. Seconds is the data unit of time axes throughout tracebook's figures.
var (
	Seconds      = Unit{timeQuantity, 1}
	Milliseconds = Unit{timeQuantity, 1e-3}
	Microseconds = Unit{timeQuantity, 1e-6}
	Nanoseconds  = Unit{timeQuantity, 1e-9}
	Bytes        = Unit{bytesQuantity, 1}
)

// displayUnit is a unit ticks are shown in: its name and its size in the base unit.
type displayUnit struct {
	name string
	size float64
}

// Display units, largest first.
var (
	timeUnits  = []displayUnit{{"s", 1}, {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}}
	bytesUnits = []displayUnit{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
)

// display chooses the unit to show data in [lo, hi] (in u) with: the largest unit in which the
// largest magnitude is at least 1 and a tick step (about a fifth of the range) is at least 1/100,
// so that 0 to 3e-6 s reads 0 to 3 µs, 0 to 0.8 s reads 0 to 800 ms and 1.2 s to 1.202 s reads
// 1200 to 1202 ms (not 1.2 to 1.202 s with four decimals). mult converts a data value to the
// unit shown. A zero Unit gives ("", 1).
func (u Unit) display(lo, hi float64) (name string, mult float64) {
	var units []displayUnit
	switch u.q {
	case timeQuantity:
		units = timeUnits
	case bytesQuantity:
		units = bytesUnits
	default:
		return "", 1
	}
	lo, hi = lo*u.scale, hi*u.scale
	maxAbs := max(math.Abs(lo), math.Abs(hi))
	step := (hi - lo) / 5
	if !(step > 0) || !finite(step) {
		step = maxAbs / 5
	}
	d := units[len(units)-1]
	if maxAbs > 0 && finite(maxAbs) {
		for _, c := range units {
			if c.size <= maxAbs*(1+1e-9) && c.size <= 100*step*(1+1e-9) {
				d = c
				break
			}
		}
	} else if u.q == timeQuantity {
		d = timeUnits[0]
	}
	return d.name, u.scale / d.size
}

// unitTicks marks an axis at about six round values of the unit shown, mult times the data.
type unitTicks struct{ mult float64 }

func (t unitTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return roundTicks{}.Ticks(lo*t.mult, hi*t.mult)
	}
	return scaleTicks(niceTicks(lo*t.mult, hi*t.mult, 6), t.mult)
}

// scaleTicks moves ticks placed in the unit shown back to data values.
func scaleTicks(ticks []plot.Tick, mult float64) []plot.Tick {
	for i := range ticks {
		ticks[i].Value /= mult
	}
	return ticks
}

// unitLabel is an axis label with the unit shown: "time [ms]"; a label already ending in a
// unit in brackets or parentheses (as figures were labelled before units) has it replaced.
func unitLabel(label, unit string) string {
	if unit == "" {
		return label
	}
	label = strings.TrimSpace(label)
	// Notes the figure appended ("time (binned by 4, mean)") follow the unit.
	for _, note := range []string{" (binned by ", " marks not drawn: too many)"} {
		if i := strings.Index(label, note); i >= 0 {
			if note[1] != '(' {
				i = strings.LastIndex(label[:i], " (")
			}
			if i >= 0 {
				return unitLabel(label[:i], unit) + label[i:]
			}
		}
	}
	for _, open := range []string{" [", " ("} {
		if i := strings.LastIndex(label, open); i >= 0 && strings.HasSuffix(label, string(closing(open))) && isUnitName(label[i+2:len(label)-1]) {
			label = label[:i]
		}
	}
	if label == "" {
		return "[" + unit + "]"
	}
	return label + " [" + unit + "]"
}

func closing(open string) byte {
	if open == " [" {
		return ']'
	}
	return ')'
}

func isUnitName(s string) bool {
	switch s {
	case "s", "ms", "µs", "us", "ns", "B", "bytes", "KiB", "MiB", "GiB", "TiB":
		return true
	}
	return false
}

// applyUnit sets axis a, drawing data in u, to show ticks in the unit that suits [lo, hi] and
// to say it in its label. Axes with their own tick marker for a numeric range (rangeTicks) get
// the unit there; axes of labelled rows or columns are left alone.
func applyUnit(a *plot.Axis, u Unit) {
	if u.q == noQuantity {
		return
	}
	switch m := a.Tick.Marker.(type) {
	case rangeTicks:
		name, mult := u.display(m.lo, m.hi)
		m.mult = mult
		a.Tick.Marker = m
		a.Label.Text = unitLabel(a.Label.Text, name)
	case roundTicks, unitTicks:
		name, mult := u.display(a.Min, a.Max)
		a.Tick.Marker = unitTicks{mult: mult}
		a.Label.Text = unitLabel(a.Label.Text, name)
	}
}
