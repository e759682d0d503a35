package fold

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Option configures Timeline and GPUUtilisation.
type Option func(*options)

type options struct {
	procs   []*trace.Process
	device  int
	hasDev  bool
	t0, t1  int64
	ranged  bool
	windows int
	byTime  int8 // WithTimeShare: 1 on, -1 off, 0 the op's default
}

// WithProcesses folds only the given processes (a cluster group, the
// threads of one rank, ...).
func WithProcesses(ps ...*trace.Process) Option {
	return func(o *options) { o.procs = append(o.procs, ps...) }
}

// WithDevice folds only the streams of GPU g (Process.Place's number), among
// the processes of WithProcesses if given.
func WithDevice(g int) Option { return func(o *options) { o.device, o.hasDev = g, true } }

// WithRange restricts the result to [t0, t1) ns; the default is the trace's
// whole span, from its first to its last event.
func WithRange(t0, t1 int64) Option { return func(o *options) { o.t0, o.t1, o.ranged = t0, t1, true } }

// WithWindows splits GPUUtilisation's range into n equal windows (the last
// ones a nanosecond longer where the range does not divide). Timeline
// ignores it.
func WithWindows(n int) Option { return func(o *options) { o.windows = n } }

// WithTimeShare decides how a stream's state at a pixel is chosen: by time share (true), the
// state the stream spends the most time in within the pixel, or sampled (false), its state at
// the pixel's start, the seed's sampling (6.1) that a timeline viewer uses. The default is by
// time share for Idle, whose busy-or-idle decision then rests on the device's busy time within
// the pixel (the seed's PIConGPU case, 6.1.4), and sampled for Max, Min and Diff. GPUUtilisation
// ignores it.
func WithTimeShare(on bool) Option {
	return func(o *options) {
		o.byTime = -1
		if on {
			o.byTime = 1
		}
	}
}

// timeShare tells whether op folds by time share under o.
func (o *options) timeShare(op Op) bool {
	if o.byTime != 0 {
		return o.byTime > 0
	}
	return op == Idle
}

// resolve applies opts for fn: the processes selected (nil for all) and
// the time range.
func resolve(fn string, tr *trace.Trace, opts []Option) options {
	if tr == nil {
		fail(fn, "nil trace")
	}
	var o options
	for _, f := range opts {
		if f != nil { // a nil option is ignored
			f(&o)
		}
	}
	for i, p := range o.procs {
		if p == nil || p.Trace != tr {
			fail(fn, "process %d of WithProcesses (%v) is not a location of this trace", i, p)
		}
	}
	if o.hasDev {
		from := o.procs
		if from == nil {
			from = tr.Processes()
		}
		var sel []*trace.Process
		for _, p := range from {
			if gpu, g, _ := p.Place(); gpu && int(g) == o.device {
				sel = append(sel, p)
			}
		}
		if len(sel) == 0 {
			fail(fn, "no streams of GPU %d (devices: %v)", o.device, devices(from))
		}
		o.procs = sel
	} else if o.procs != nil && len(o.procs) == 0 {
		fail(fn, "WithProcesses: no processes")
	}
	if !o.ranged {
		if part.Remote(tr) {
			o.t0, o.t1 = remoteSpan(fn, tr)
		} else {
			o.t0, o.t1 = localSpan(tr)
		}
	}
	if o.t1 <= o.t0 {
		fail(fn, "empty interval [%d, %d): need t0 < t1 (ns)", o.t0, o.t1)
	}
	return o
}

// localSpan returns [first event, last event] of tr as a half-open range (one
// ns longer when the trace has one time stamp only).
func localSpan(tr *trace.Trace) (t0, t1 int64) {
	first := true
	for _, p := range tr.Processes() {
		if p.Len() == 0 {
			continue
		}
		a, b := p.Time[0], p.Time[p.Len()-1]
		if first || a < t0 {
			t0 = a
		}
		if first || b > t1 {
			t1 = b
		}
		first = false
	}
	if t1 <= t0 {
		t1 = t0 + 1
	}
	return t0, t1
}

// devices lists the GPU numbers among ps.
func devices(ps []*trace.Process) []int32 {
	seen := map[int32]bool{}
	var out []int32
	for _, p := range ps {
		if gpu, g, _ := p.Place(); gpu && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// cache keeps the index of the last process set folded, so that zooming
// (the same processes, another range or width) costs only the fold.
var cache struct {
	sync.Mutex
	ix *Index
}

// indexFor returns an index holding procs (all of tr's when nil) and their
// stream numbers in it: the cached one if it holds them all, otherwise a
// new one, which replaces it.
func indexFor(fn string, tr *trace.Trace, procs []*trace.Process) (*Index, []int) {
	cache.Lock()
	defer cache.Unlock()
	if procs == nil {
		procs = tr.Processes()
	}
	if ix := cache.ix; ix != nil && ix.tr == tr {
		streams := make([]int, len(procs))
		ok := true
		for i, p := range procs {
			j, in := ix.pos[p]
			if !in {
				ok = false
				break
			}
			streams[i] = j
		}
		if ok {
			return ix, streams
		}
	}
	cache.ix = nil // let the old one go before building
	ix := newIndex(fn, tr, procs)
	cache.ix = ix
	streams := make([]int, len(procs))
	for i := range streams {
		streams[i] = i
	}
	return ix, streams
}

// Folded is a folded timeline: many streams' states reduced to one state
// per pixel by an Op (Weber 6.1).
type Folded struct {
	Op      Op
	ByTime  bool      // states by time share within each pixel (WithTimeShare), not sampled
	T0, T1  int64     // [T0, T1), ns; pixels as in Counts
	Width   int       // pixels
	Streams int       // streams folded
	State   []int32   // per pixel: region id, or NoState
	Share   []float64 // per pixel: the fraction of streams in State; for Idle by time share, the share of the pixel's time the streams are all idle (NoState) or not

	tr      *trace.Trace
	devices bool                  // every stream folded is an accelerator stream: NoState is device idle time
	names   []string              // stream labels, when kept
	samples [][]int32             // per stream, per pixel: its own state, when at most plotStreams streams
	off     [][]trace.OffInterval // per kept stream: its measurement-off intervals
}

// plotStreams is the most streams Plot draws unfolded below the fold.
const plotStreams = 32

// Timeline folds the streams of tr (all processes, or those of
// WithProcesses and WithDevice) into width pixels (1..65536) over the
// trace's span (or WithRange) with op; Idle by the time share within each
// pixel, the others by sampling each pixel's start (WithTimeShare changes
// either; see the package comment). The state index of the processes is
// cached (one entry: the last process set indexed, or any subset of it),
// so refolding the same processes at another range, width or op costs
// only sampling and counting. It panics with an *Error for bad arguments.
func Timeline(tr *trace.Trace, op Op, width int, opts ...Option) *Folded {
	const fn = "fold.Timeline"
	defer work.RecoverAs(fn)
	if !op.valid() {
		fail(fn, "unknown operation %d (use fold.Max, Min, Diff or Idle)", int(op))
	}
	o := resolve(fn, tr, opts)
	checkGrid(fn, o.t0, o.t1, width)
	if part.Remote(tr) {
		return remoteFold(fn, tr, o.procs, op, o.t0, o.t1, width, o.timeShare(op))
	}
	ix, streams := indexFor(fn, tr, o.procs)
	return fold(fn, ix, streams, op, o.t0, o.t1, width, o.timeShare(op))
}

func fold(fn string, ix *Index, streams []int, op Op, t0, t1 int64, width int, byTime bool) *Folded {
	keep := len(streams) <= plotStreams
	var c *Counts
	var samples []int32
	if byTime {
		c, samples = ix.timeCounts(fn, streams, t0, t1, width, keep, op == Idle)
	} else {
		c, samples = ix.counts(fn, streams, t0, t1, width, keep)
	}
	procs := make([]*trace.Process, len(streams))
	for i, s := range streams {
		procs[i] = ix.procs[s]
	}
	f := folded(ix.tr, procs, c, op, byTime)
	if keep {
		k := len(streams)
		for i, p := range procs {
			f.names = append(f.names, p.Label())
			f.off = append(f.off, p.MeasurementOffIntervals())
			row := make([]int32, width)
			for x := range row {
				row[x] = samples[x*k+i]
			}
			f.samples = append(f.samples, row)
		}
	}
	return f
}

// folded is the fold of procs by op from their counts c (without the unfolded lanes).
func folded(tr *trace.Trace, procs []*trace.Process, c *Counts, op Op, byTime bool) *Folded {
	f := &Folded{Op: op, ByTime: byTime, T0: c.T0, T1: c.T1, Width: c.Width, Streams: len(procs), tr: tr,
		State: make([]int32, c.Width), Share: make([]float64, c.Width), devices: len(procs) > 0}
	for _, p := range procs {
		if gpu, _, _ := p.Place(); !gpu {
			f.devices = false
		}
	}
	for x := range c.Width {
		f.State[x], f.Share[x] = c.selectAt(op, x)
	}
	return f
}

// remoteFold is the fold of procs (nil: all of tr's) on a trace whose events are elsewhere:
// the counts, and for at most plotStreams streams their lanes, computed where the events are.
func remoteFold(fn string, tr *trace.Trace, procs []*trace.Process, op Op, t0, t1 int64, width int, byTime bool) *Folded {
	if procs == nil {
		procs = tr.Processes()
	}
	c := run(fn, tr, procs, CountsMethod(t0, t1, width, byTime)).(*Counts)
	f := folded(tr, procs, c, op, byTime)
	if len(procs) <= plotStreams {
		l := run(fn, tr, procs, &lanesMethod{t0, t1, width, byTime}).(*lanesPart)
		var last *spanPart // the trace's span, when an off interval lasts to its end
		for _, ln := range l.lanes {
			if ln.open && last == nil {
				last = run(fn, tr, tr.Processes(), spanMethod{}).(*spanPart)
			}
			if ln.open && last.any {
				iv := &ln.off[len(ln.off)-1]
				iv.End = max(iv.End, last.t1)
			}
		}
		for _, p := range procs {
			i, ok := slices.BinarySearchFunc(l.lanes, int32(p.Index), func(x lane, i int32) int { return cmp.Compare(x.index, i) })
			if !ok {
				fail(fn, "the job returned no lane of %s (process %d)", p.Label(), p.Index)
			}
			f.names = append(f.names, p.Label())
			f.off = append(f.off, l.lanes[i].off)
			f.samples = append(f.samples, l.lanes[i].states)
		}
	}
	return f
}

// Pixel returns the time range [a, b) of pixel x, ns.
func (f *Folded) Pixel(x int) (a, b int64) {
	return pixelStart(f.T0, f.T1, f.Width, x), pixelStart(f.T0, f.T1, f.Width, x+1)
}

func (f *Folded) name(s int32) string {
	if s == NoState {
		return ""
	}
	return f.tr.RegionName(s)
}

// NoStateName names NoState in f's figure and summary: "idle" when every
// stream folded is an accelerator stream (a device outside every kernel or
// copy is idle), otherwise trace.OutsideRegions, "outside instrumented
// regions": a CPU location outside every call runs code the trace does not
// show (the application between MPI calls of an MPI-only trace, a worker
// thread between parallel regions), which is neither idle nor known to be
// computation.
func (f *Folded) NoStateName() string {
	if f.devices {
		return "idle"
	}
	return trace.OutsideRegions
}

// outsideFill is the colour of time outside instrumented regions on CPU
// streams (light grey: not the devices' yellow idle).
var outsideFill = color.RGBA{R: 0xd9, G: 0xd9, B: 0xd9, A: 0xff}

// Table returns one row per pixel: Pixel, Start (ns), End (ns), State (the
// region's name; null for NoState) and Share (as Share: the fraction of
// streams in that state; for Idle by time share the share of the pixel's
// time idle or busy).
func (f *Folded) Table() *arrowio.Table {
	px := make([]int32, f.Width)
	a, b := make([]int64, f.Width), make([]int64, f.Width)
	names, valid := make([]string, f.Width), make([]bool, f.Width)
	for x := range f.Width {
		px[x] = int32(x)
		a[x], b[x] = f.Pixel(x)
		names[x], valid[x] = f.name(f.State[x]), f.State[x] != NoState
	}
	return arrowio.MustTable(arrowio.Int32("Pixel", px),
		arrowio.Int64("Start (ns)", a), arrowio.Int64("End (ns)", b),
		arrowio.NullableDict("State", names, valid), arrowio.Float64("Share", append([]float64(nil), f.Share...)))
}

// idleFill is the colour of device idle time (Weber Figure 6.4: yellow).
var idleFill = color.RGBA{R: 0xf2, G: 0xc8, B: 0x1f, A: 0xff}

// lane draws one row of pixel states, consecutive equal states as one bar;
// with idle, NoState is a bar named NoStateName (yellow "idle" for devices,
// grey "outside instrumented regions" otherwise), otherwise empty.
func (f *Folded) lane(name string, row []int32, idle bool) plotting.Lane {
	l := plotting.Lane{Name: name, FullHeight: true}
	for x := 0; x < len(row); {
		y := x
		for y < len(row) && row[y] == row[x] {
			y++
		}
		a, _ := f.Pixel(x)
		_, b := f.Pixel(y - 1)
		bar := plotting.Bar{Start: float64(a) / 1e9, End: float64(b) / 1e9, Color: -1}
		switch {
		case row[x] != NoState:
			bar.Label = f.name(row[x])
			l.Bars = append(l.Bars, bar)
		case idle:
			bar.Label, bar.Fill = f.NoStateName(), idleFill
			if !f.devices {
				bar.Fill = outsideFill
			}
			l.Bars = append(l.Bars, bar)
		}
		x = y
	}
	return l
}

// offFill is the colour of the times a stream's measurement was off (as
// Vampir greys them).
var offFill = color.RGBA{R: 0xa0, G: 0xa0, B: 0xa0, A: 0xff}

// OffLabel is the legend label of the grey bars Plot draws over the times a
// stream's measurement was off (trace.Process.MeasurementOffIntervals).
const OffLabel = "measurement off"

// Plot draws the folded strip (a legend of its regions; for Idle the
// no-state pixels as yellow "idle" on accelerator streams, grey "outside
// instrumented regions" on others, see NoStateName) above the unfolded
// timelines of the streams, sampled at the same pixels, when there are at
// most 32 streams; on those, the times the measurement was off are grey bars
// labelled OffLabel over the state sampled there.
func (f *Folded) Plot() *plotting.Figure {
	how := "sampled"
	if f.ByTime {
		how = "by time share"
	}
	return plotting.Timeline(fmt.Sprintf("folded timeline: select_%s of %d streams (%s), %d pixels", f.Op, f.Streams, how, f.Width),
		f.lanes(), plotting.WithXLabel("time"), plotting.WithXUnit(plotting.Seconds))
}

// lanes are the lanes Plot draws.
func (f *Folded) lanes() []plotting.Lane {
	lanes := []plotting.Lane{f.lane(fmt.Sprintf("%s of %d", f.Op, f.Streams), f.State, f.Op == Idle)}
	for i, row := range f.samples {
		l := f.lane(f.names[i], row, false)
		for _, iv := range f.off[i] {
			a, b := max(iv.Start, f.T0), min(iv.End, f.T1)
			if a < b {
				l.Bars = append(l.Bars, plotting.Bar{Start: float64(a) / 1e9, End: float64(b) / 1e9, Color: -1, Label: OffLabel, Fill: offFill})
			}
		}
		lanes = append(lanes, l)
	}
	return lanes
}

// String summarises the fold: operation, streams, range and the states
// that cover the most pixels (NoState by NoStateName).
func (f *Folded) String() string {
	n := map[int32]int{}
	for _, s := range f.State {
		n[s]++
	}
	st := make([]int32, 0, len(n))
	for s := range n {
		st = append(st, s)
	}
	sort.Slice(st, func(i, j int) bool {
		if n[st[i]] != n[st[j]] {
			return n[st[i]] > n[st[j]]
		}
		return order(st[i]) < order(st[j])
	})
	var parts []string
	for i, s := range st {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("+ %d more", len(st)-5))
			break
		}
		name := f.name(s)
		if s == NoState {
			name = f.NoStateName()
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%%", name, 100*float64(n[s])/float64(f.Width)))
	}
	return fmt.Sprintf("fold.%s: %d streams, %d pixels over [%s, %s): %s", f.Op, f.Streams, f.Width,
		arrowio.FormatDuration(f.T0), arrowio.FormatDuration(f.T1), strings.Join(parts, ", "))
}

// MIMEBundle shows the fold as every method's result shows (display.Compose): the summary
// line, the first rows of Table and Plot.
func (f *Folded) MIMEBundle() map[string]any { return compose(f.String(), f.Table(), f.Plot()) }

// headRows is the number of table rows a result's display shows.
const headRows = 20

// compose is a result's display through display.Composition: the headline, the first
// headRows rows of its table with a note on how many there are, and the figure.
func compose(headline string, t *arrowio.Table, fig *plotting.Figure) map[string]any {
	note := ""
	if n := t.NumRows(); n > headRows {
		note = fmt.Sprintf("first %d of %s rows; Table() has them all", headRows, arrowio.FormatCount(int64(n)))
	}
	return display.Composition{Headline: headline, Table: t.Head(headRows), Note: note,
		Figures: []display.MIMEBundler{fig}}.MIMEBundle()
}
