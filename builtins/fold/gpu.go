package fold

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Utilisation is the busy time of each GPU device: the exact union, over the
// device's streams, of the times a stream is inside a call (a kernel or
// copy running), per window. A device is idle when none of its streams is
// busy (Weber 6.1.2, select_idle, measured exactly rather than per pixel).
type Utilisation struct {
	T0, T1  int64     // [T0, T1), ns
	Windows int       // equal windows of [T0, T1), as pixels of Counts
	Devices []int32   // GPU numbers (Process.Place), ascending
	Streams []int     // per device: its streams
	Busy    [][]int64 // [device][window]: ns with at least one stream busy

	ix      *Index
	streams [][]int // per device: stream numbers in ix

	tr     *trace.Trace       // a trace whose events are elsewhere (part.Remote); ix is nil then
	procs  [][]*trace.Process // per device: its streams, when tr is set
	strips *stripsPart        // per device the counts Plot folds, computed once when tr is set
}

// GPUUtilisation measures every GPU device's busy and idle time over the
// trace's span (or WithRange), in WithWindows(n) equal windows (one by
// default); WithDevice and WithProcesses restrict the devices and streams.
// It uses (and caches) the state index as Timeline does. It panics with an
// *Error for bad arguments and for a trace without GPU streams.
func GPUUtilisation(tr *trace.Trace, opts ...Option) *Utilisation {
	const fn = "fold.GPUUtilisation"
	defer work.RecoverAs(fn)
	o := resolve(fn, tr, opts)
	if o.windows == 0 {
		o.windows = 1
	}
	if o.windows < 1 || o.windows > 1<<16 {
		fail(fn, "WithWindows(%d): need 1 <= windows <= 65536", o.windows)
	}
	from := o.procs
	if from == nil {
		from = tr.Processes()
	}
	byDev := map[int32][]*trace.Process{}
	for _, p := range from {
		if gpu, g, _ := p.Place(); gpu {
			byDev[g] = append(byDev[g], p)
		}
	}
	if len(byDev) == 0 {
		fail(fn, "no GPU streams among %d processes", len(from))
	}
	u := &Utilisation{T0: o.t0, T1: o.t1, Windows: o.windows}
	for g := range byDev {
		u.Devices = append(u.Devices, g)
	}
	sort.Slice(u.Devices, func(i, j int) bool { return u.Devices[i] < u.Devices[j] })
	var all []*trace.Process
	for _, g := range u.Devices {
		all = append(all, byDev[g]...)
		u.Streams = append(u.Streams, len(byDev[g]))
	}
	if part.Remote(tr) {
		b := run(fn, tr, all, &busyMethod{u.T0, u.T1, u.Windows, streamsOf(all)}).(*busyPart)
		u.tr = tr
		u.Busy = make([][]int64, len(u.Devices))
		for d, g := range u.Devices {
			u.procs = append(u.procs, byDev[g])
			u.Busy[d] = b.busyOf(g)
		}
		return u
	}
	ix, streams := indexFor(fn, tr, all)
	u.ix = ix
	for _, n := range u.Streams {
		u.streams, streams = append(u.streams, streams[:n]), streams[n:]
	}
	u.Busy = make([][]int64, len(u.Devices))
	work.Each(len(u.Devices), func(_, d int) {
		work.Check()
		var busy []ival
		for _, s := range u.streams[d] {
			busy = union(busy, ix.st[s].busy(u.T0, u.T1))
		}
		u.Busy[d] = perWindow(busy, u.T0, u.T1, u.Windows)
	})
	return u
}

// ival is a half-open interval [a, b) of ns.
type ival struct{ a, b int64 }

// busy returns the stream's intervals outside NoState, clipped to [t0, t1),
// in order.
func (s *stream) busy(t0, t1 int64) []ival {
	var out []ival
	j := max(s.last(t0), 0)
	for ; j < s.len(); j++ {
		if s.state(j) == NoState {
			continue
		}
		a := s.time(j)
		k := j + 1
		for k < s.len() && s.state(k) != NoState {
			k++
		}
		b := t1
		if k < s.len() {
			b = min(b, s.time(k))
		}
		a = max(a, t0)
		if a >= t1 {
			break
		}
		if a < b {
			out = append(out, ival{a, b})
		}
		j = k
	}
	return out
}

// union merges two ordered lists of disjoint intervals.
func union(x, y []ival) []ival {
	out := make([]ival, 0, len(x)+len(y))
	add := func(v ival) {
		if n := len(out); n > 0 && v.a <= out[n-1].b {
			out[n-1].b = max(out[n-1].b, v.b)
			return
		}
		out = append(out, v)
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		if j == len(y) || i < len(x) && x[i].a <= y[j].a {
			add(x[i])
			i++
		} else {
			add(y[j])
			j++
		}
	}
	return out
}

// perWindow sums the ordered disjoint intervals per window.
func perWindow(busy []ival, t0, t1 int64, n int) []int64 {
	out := make([]int64, n)
	i := 0
	for w := range n {
		a, b := pixelStart(t0, t1, n, w), pixelStart(t0, t1, n, w+1)
		for i < len(busy) && busy[i].b <= a {
			i++
		}
		for k := i; k < len(busy) && busy[k].a < b; k++ {
			out[w] += min(b, busy[k].b) - max(a, busy[k].a)
		}
	}
	return out
}

// Window returns the time range [a, b) of window w, ns.
func (u *Utilisation) Window(w int) (a, b int64) {
	return pixelStart(u.T0, u.T1, u.Windows, w), pixelStart(u.T0, u.T1, u.Windows, w+1)
}

// Of returns device d's (an index into Devices) utilisation over the whole
// range: busy time / range.
func (u *Utilisation) Of(d int) float64 {
	var b int64
	for _, x := range u.Busy[d] {
		b += x
	}
	return float64(b) / float64(u.T1-u.T0)
}

// Table returns one row per device and window: Device, Streams, the
// window's Start (ns) and End (ns), Busy (ns) and Idle (ns) time and
// Utilisation (busy / window length).
func (u *Utilisation) Table() *arrowio.Table {
	var dev, nst []int32
	var a, b, busy, idle []int64
	var util []float64
	for d, g := range u.Devices {
		for w := range u.Windows {
			wa, wb := u.Window(w)
			x := u.Busy[d][w]
			dev, nst = append(dev, g), append(nst, int32(u.Streams[d]))
			a, b, busy, idle = append(a, wa), append(b, wb), append(busy, x), append(idle, wb-wa-x)
			util = append(util, float64(x)/float64(wb-wa))
		}
	}
	return arrowio.MustTable(arrowio.Int32("Device", dev), arrowio.Int32("Streams", nst),
		arrowio.Int64("Start (ns)", a), arrowio.Int64("End (ns)", b),
		arrowio.Int64("Busy (ns)", busy).WithUnit("ns"), arrowio.Int64("Idle (ns)", idle).WithUnit("ns"),
		arrowio.Float64("Utilisation", util))
}

// plotWidth is the pixel width of the folded strips of Utilisation.Plot.
const plotWidth = 1200

// strip is device d's streams folded with Idle by time share into width pixels: a pixel is
// idle when the device is idle for more than half of it, so the strip agrees with the
// utilisation beside it.
func (u *Utilisation) strip(d, width int) *Folded {
	const fn = "fold.Utilisation.Plot"
	if u.tr != nil {
		if u.strips == nil || u.strips.m.width != width {
			var all []*trace.Process
			for _, ps := range u.procs {
				all = append(all, ps...)
			}
			checkGrid(fn, u.T0, u.T1, width)
			u.strips = run(fn, u.tr, all, &stripsMethod{u.T0, u.T1, width, streamsOf(all)}).(*stripsPart)
		}
		return &Folded{Op: Idle, ByTime: true, T0: u.T0, T1: u.T1, Width: width, Streams: len(u.procs[d]), tr: u.tr,
			State: u.strips.of(u.Devices[d]), devices: true}
	}
	return fold(fn, u.ix, u.streams[d], Idle, u.T0, u.T1, width, true)
}

// Plot draws one Idle-folded strip per device (1,200 pixels, by time share; idle time in
// yellow), its utilisation over the range in the lane's name.
func (u *Utilisation) Plot() *plotting.Figure {
	var lanes []plotting.Lane
	for d, g := range u.Devices {
		f := u.strip(d, plotWidth)
		lanes = append(lanes, f.lane(fmt.Sprintf("GPU %d (%.1f%%)", g, 100*u.Of(d)), f.State, true))
	}
	return plotting.Timeline(fmt.Sprintf("GPU utilisation: %d device(s), streams folded with select_idle", len(u.Devices)),
		lanes, plotting.WithXLabel("time"), plotting.WithXUnit(plotting.Seconds))
}

// String summarises the utilisation per device.
func (u *Utilisation) String() string {
	var parts []string
	for d, g := range u.Devices {
		if d == 8 {
			parts = append(parts, fmt.Sprintf("+ %d more", len(u.Devices)-8))
			break
		}
		parts = append(parts, fmt.Sprintf("GPU %d %.1f%%", g, 100*u.Of(d)))
	}
	return fmt.Sprintf("GPU utilisation over [%s, %s): %s", arrowio.FormatDuration(u.T0), arrowio.FormatDuration(u.T1), strings.Join(parts, ", "))
}

// MIMEBundle shows the utilisation as every method's result shows (display.Compose): the
// summary line, the first rows of Table and Plot.
func (u *Utilisation) MIMEBundle() map[string]any { return compose(u.String(), u.Table(), u.Plot()) }
