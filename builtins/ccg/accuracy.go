package ccg

import (
	"fmt"
	"html"
	"math"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Accuracy is a graph compared event by event with the trace it was built
// from: how far every time stamp moved (eq. 3.5), how far every duration
// between consecutive events of a location stretched or shrank (eq. 3.6),
// whether any event moved before its predecessor, and how far the
// increments of accumulated counters moved (3.2.1). It checks what the
// bounds promise on the decompressed events, by brute force.
type Accuracy struct {
	Bounds    Bounds
	Locations []LocationAccuracy
}

// LocationAccuracy is one location's line of an Accuracy.
type LocationAccuracy struct {
	Name        string
	Events      int64
	MaxShift    int64   // largest |t' - t| of an event, ns
	Durations   int64   // durations between consecutive events compared
	MaxRel      float64 // largest |d' - d| / d of those (+Inf: a zero one grew)
	OverRel     int64   // durations beyond their relative bound (Rel, MPIRel in MPI calls)
	OverAbs     int64   // time stamps beyond Abs
	Reversed    int64   // events before their predecessor (where the original is not)
	Increments  int64   // increments of accumulated counters compared
	MaxCountRel float64 // largest relative deviation of those
	OverCounter int64   // increments beyond Counter
	Mismatch    string  // why the events could not be compared ("" when they could)
}

// Accuracy decompresses every location of g and compares it with the
// same location of tr, the trace g was built from.
func (g *Graph) Accuracy(tr *trace.Trace) *Accuracy {
	const fn = "ccg.Graph.Accuracy"
	defer work.RecoverAs(fn)
	if tr == nil {
		fail(fn, "nil trace")
	}
	if part.Remote(tr) {
		fail(fn, "the trace is distributed: its events are on the job's ranks, and the comparison reads every event; compare a graph of a trace loaded here")
	}
	var events int64
	for _, l := range g.locs {
		events += l.Events
	}
	job := work.Start(fn, events, "events")
	defer job.Done()
	a := &Accuracy{Bounds: g.bounds}
	var mpi []bool
	if g.bounds.MPIRel > 0 {
		mpi = mpiRegions(tr.Defs)
	}
	acc := accumulated(tr.Defs)
	byIndex := make(map[int]*trace.Process, tr.NumProcesses()) // a trace.Subset keeps global indices
	for _, p := range tr.Processes() {
		byIndex[p.Index] = p
	}
	for i, l := range g.locs {
		la := LocationAccuracy{Name: l.Name, Events: l.Events}
		if p, ok := byIndex[l.Index]; !ok {
			la.Mismatch = fmt.Sprintf("the trace has no location %d", l.Index)
		} else {
			compareLocation(&la, g.bounds, p, g.Process(i), mpi, acc, job)
		}
		a.Locations = append(a.Locations, la)
	}
	return a
}

// compareLocation fills la from the original p and the decompressed q.
func compareLocation(la *LocationAccuracy, b Bounds, p, q *trace.Process, mpi []bool, acc [][]bool, job *work.Job) {
	if len(p.Kind) != len(q.Kind) {
		la.Mismatch = fmt.Sprintf("%d events, the trace's location %d", len(q.Kind), len(p.Kind))
		return
	}
	var stack []bool // open calls: MPI or not
	inMPI := 0
	prev := map[[2]int64][2]uint64{} // counter -> (original, decompressed) latest value
	for k := range p.Kind {
		if k&(1<<16-1) == 0 {
			if err := job.Add(min(1<<16, int64(len(p.Kind)-k))); err != nil {
				panic(err)
			}
		}
		if p.Kind[k] != q.Kind[k] {
			la.Mismatch = fmt.Sprintf("event %d is a %s, originally a %s", k, q.Kind[k], p.Kind[k])
			return
		}
		d := q.Time[k] - p.Time[k]
		la.MaxShift = max(la.MaxShift, d, -d)
		if b.Abs >= 0 && (d > b.Abs || d < -b.Abs) {
			la.OverAbs++
		}
		if k > 0 {
			d0, d1 := p.Time[k]-p.Time[k-1], q.Time[k]-q.Time[k-1]
			rel := b.Rel
			if inMPI > 0 {
				rel = b.mpiRel()
			}
			la.Durations++
			if d0 >= 0 && d1 < 0 {
				la.Reversed++
			}
			if r, ok := within(d1, d0, rel); !ok {
				la.OverRel++
				if d0 > 0 {
					la.MaxRel = max(la.MaxRel, math.Abs(float64(d1-d0))/float64(d0))
				}
			} else {
				la.MaxRel = max(la.MaxRel, r)
			}
		}
		switch p.Kind[k] {
		case trace.Enter:
			r := p.Ref[k]
			m := r >= 0 && int(r) < len(mpi) && mpi[r]
			stack = append(stack, m)
			if m {
				inMPI++
			}
		case trace.Leave:
			if n := len(stack); n > 0 {
				if stack[n-1] {
					inMPI--
				}
				stack = stack[:n-1]
			}
		case trace.Metric:
			compareCounters(la, b, p, q, k, acc, prev)
		}
	}
}

// compareCounters compares the increments of the accumulated counters of
// metric sample k.
func compareCounters(la *LocationAccuracy, b Bounds, p, q *trace.Process, k int, acc [][]bool, prev map[[2]int64][2]uint64) {
	pm, qm := &p.Metrics, &q.Metrics
	pr, qr := p.Ref[k], q.Ref[k]
	m := pm.Metric[pr]
	if m < 0 || int(m) >= len(acc) {
		return
	}
	for j := pm.Start[pr]; j < pm.Start[pr+1]; j++ {
		pos := int(j - pm.Start[pr])
		qj := qm.Start[qr] + int32(pos)
		if pos >= len(acc[m]) || !acc[m][pos] || qj >= qm.Start[qr+1] || pm.Types[j] == trace.MetricDouble {
			continue
		}
		key := counterKey(int64(m), pos)
		last := prev[key]
		v, w := pm.Values[j], qm.Values[qj]
		d0, d1 := int64(v-last[0]), int64(w-last[1])
		prev[key] = [2]uint64{v, w}
		la.Increments++
		if d0 == d1 {
			continue
		}
		a := math.Abs(float64(d1 - d0))
		r := math.Inf(1)
		if d0 != 0 {
			r = a / math.Abs(float64(d0))
		}
		la.MaxCountRel = max(la.MaxCountRel, r)
		if b.Counter >= 0 && a > b.Counter*math.Abs(float64(d0)) {
			la.OverCounter++
		}
	}
}

// Within reports whether every event could be compared and every bound
// holds: no time stamp beyond Abs, no duration beyond its relative bound,
// no event before its predecessor, no counter increment beyond Counter.
func (a *Accuracy) Within() bool {
	for _, l := range a.Locations {
		if l.Mismatch != "" || l.OverAbs+l.OverRel+l.Reversed+l.OverCounter > 0 {
			return false
		}
	}
	return true
}

// totals sums the locations.
func (a *Accuracy) totals() (t LocationAccuracy) {
	for _, l := range a.Locations {
		t.Events += l.Events
		t.MaxShift = max(t.MaxShift, l.MaxShift)
		t.Durations += l.Durations
		t.MaxRel = max(t.MaxRel, l.MaxRel)
		t.OverRel += l.OverRel
		t.OverAbs += l.OverAbs
		t.Reversed += l.Reversed
		t.Increments += l.Increments
		t.MaxCountRel = max(t.MaxCountRel, l.MaxCountRel)
		t.OverCounter += l.OverCounter
		if t.Mismatch == "" && l.Mismatch != "" {
			t.Mismatch = l.Name + ": " + l.Mismatch
		}
	}
	return t
}

// String is the headline, e.g. "bounds hold: 1,000,000 events of 4
// locations; every time stamp within 9.99 µs (Abs 10.00 µs); every
// duration between consecutive events within 9.3% (Rel 10%); no event
// before its predecessor".
func (a *Accuracy) String() string {
	t := a.totals()
	verdict := "bounds hold"
	if !a.Within() {
		verdict = "BOUNDS BROKEN"
	}
	s := fmt.Sprintf("%s: %s events of %d locations", verdict, arrowio.FormatCount(t.Events), len(a.Locations))
	if t.Mismatch != "" {
		return s + "; not comparable: " + t.Mismatch
	}
	s += fmt.Sprintf("; every time stamp within %s (Abs %s)", arrowio.FormatDuration(t.MaxShift), absString(a.Bounds.Abs))
	if t.OverAbs > 0 {
		s += fmt.Sprintf(", %s beyond", arrowio.FormatCount(t.OverAbs))
	}
	s += fmt.Sprintf("; every duration between consecutive events within %s (Rel %s", relString(t.MaxRel), relString(a.Bounds.Rel))
	if a.Bounds.MPIRel > 0 {
		s += ", MPI calls " + relString(a.Bounds.MPIRel)
	}
	s += ")"
	if t.OverRel > 0 {
		s += fmt.Sprintf(", %s of %s beyond", arrowio.FormatCount(t.OverRel), arrowio.FormatCount(t.Durations))
	}
	if t.Reversed > 0 {
		s += fmt.Sprintf("; %s events before their predecessor", arrowio.FormatCount(t.Reversed))
	} else {
		s += "; no event before its predecessor"
	}
	if t.Increments > 0 {
		s += fmt.Sprintf("; counter increments within %s (Counter %s)", relString(t.MaxCountRel), relString(a.Bounds.Counter))
		if t.OverCounter > 0 {
			s += fmt.Sprintf(", %s of %s beyond", arrowio.FormatCount(t.OverCounter), arrowio.FormatCount(t.Increments))
		}
	}
	return s
}

// Table returns one row per location.
func (a *Accuracy) Table() *arrowio.Table {
	n := len(a.Locations)
	name, mis := make([]string, n), make([]string, n)
	ev, shift, durs, orel, oabs, rev, inc, ocnt := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	mrel, mcnt := make([]float64, n), make([]float64, n)
	for i, l := range a.Locations {
		name[i], mis[i] = l.Name, l.Mismatch
		ev[i], shift[i], durs[i], orel[i], oabs[i], rev[i], inc[i], ocnt[i] = l.Events, l.MaxShift, l.Durations, l.OverRel, l.OverAbs, l.Reversed, l.Increments, l.OverCounter
		mrel[i], mcnt[i] = l.MaxRel, l.MaxCountRel
	}
	return arrowio.MustTable(arrowio.String("Location", name), arrowio.Int64("Events", ev),
		arrowio.Int64("Max |Time Stamp Deviation| (ns)", shift).WithUnit("ns"), arrowio.Int64("Time Stamps Beyond Abs", oabs),
		arrowio.Int64("Durations", durs), arrowio.Float64("Max Relative Duration Deviation", mrel),
		arrowio.Int64("Durations Beyond Rel", orel), arrowio.Int64("Events Before Their Predecessor", rev),
		arrowio.Int64("Counter Increments", inc), arrowio.Float64("Max Relative Increment Deviation", mcnt),
		arrowio.Int64("Increments Beyond Counter", ocnt), arrowio.String("Not Comparable", mis))
}

// MIMEBundle renders the headline and the table.
func (a *Accuracy) MIMEBundle() map[string]any {
	tb := a.Table().MIMEBundle()
	h, _ := tb["text/html"].(string)
	return map[string]any{
		"text/plain": a.String(),
		"text/html":  "<p><b>" + html.EscapeString(a.String()) + "</b></p>" + h,
	}
}
