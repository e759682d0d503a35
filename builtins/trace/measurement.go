package trace

import (
	"fmt"
	"sort"

	"github.com/tracebook/tracebook/arrowio"
)

// OffInterval is a time span [Start, End) in ns during which the
// measurement of a location was switched off (Score-P's
// SCOREP_RECORDING_OFF or a filter, recorded as OTF2 MEASUREMENT_ON_OFF).
// Nothing is recorded inside it: the application ran, but the trace does
// not say what it did.
type OffInterval struct {
	Start, End int64
}

// MeasurementOffIntervals returns the intervals during which p's
// measurement was off, in time order, disjoint: from each MeasurementOff
// event to the next MeasurementOn. A MeasurementOff while already off and a
// MeasurementOn while on change nothing; an interval still open at p's last
// event lasts to the end of the trace (the last event of any process), as
// Vampir greys it. For a process of a cut (Window, Main, ...) they are its
// source's intervals clipped to the cut's range. Computed once and cached;
// do not modify.
func (p *Process) MeasurementOffIntervals() []OffInterval {
	p.NeedEvents("MeasurementOffIntervals")
	p.offOnce.Do(func() {
		if c := p.Clip; c != nil && c.Source != nil && c.Source != p {
			// A cut: its source's intervals clipped to the cut's range, so that an
			// interval begun before a window (its MeasurementOff outside the
			// window's events) still shades the window.
			if c.Whole() { // a Subset: the process as read, to the trace's end
				p.off = c.Source.MeasurementOffIntervals()
				return
			}
			for _, iv := range c.Source.MeasurementOffIntervals() {
				if a, b := max(iv.Start, c.Start), min(iv.End, c.End); a < b {
					p.off = append(p.off, OffInterval{a, b})
				}
			}
			return
		}
		open, start := false, int64(0)
		for i, k := range p.Kind {
			switch {
			case k == MeasurementOff && !open:
				open, start = true, p.Time[i]
			case k == MeasurementOn && open:
				open = false
				p.off = append(p.off, OffInterval{start, p.Time[i]})
			}
		}
		if open {
			end := p.Time[len(p.Time)-1]
			if p.Trace != nil {
				if _, last, ok := p.Trace.span(); ok {
					end = max(end, last)
				}
			}
			p.off = append(p.off, OffInterval{start, end})
		}
	})
	return p.off
}

// offCover answers "how much of [a, b) is off" in O(log n) for sorted
// disjoint intervals.
type offCover struct {
	iv  []OffInterval
	cum []int64 // cum[k]: total length of iv[:k]
}

func newOffCover(iv []OffInterval) offCover {
	c := offCover{iv: iv, cum: make([]int64, len(iv)+1)}
	for k, x := range iv {
		c.cum[k+1] = c.cum[k] + x.End - x.Start
	}
	return c
}

// before returns the off time before x.
func (c offCover) before(x int64) int64 {
	j := sort.Search(len(c.iv), func(k int) bool { return c.iv[k].Start >= x }) // iv[:j] start before x
	if j == 0 {
		return 0
	}
	last := c.iv[j-1]
	return c.cum[j-1] + min(x, last.End) - last.Start
}

// overlap returns the off time inside [a, b).
func (c offCover) overlap(a, b int64) int64 {
	if b <= a {
		return 0
	}
	return c.before(b) - c.before(a)
}

// measurementOffLine is the Summary line of the measurement-off intervals:
// their number, the processes having any and their total time; "" when the
// measurement was never switched off.
func (t *Trace) measurementOffLine() string {
	var n, procs int
	var total int64
	for _, p := range t.procs {
		iv := p.MeasurementOffIntervals()
		if len(iv) == 0 {
			continue
		}
		n += len(iv)
		procs++
		for _, x := range iv {
			total += x.End - x.Start
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d intervals on %d of %d processes, %s in total (not counted as time of any region)",
		n, procs, len(t.procs), arrowio.FormatDuration(total))
}
