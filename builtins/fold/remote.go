package fold

// Timeline and GPUUtilisation on a trace whose events are elsewhere (part.Remote: the ranks of
// an MPI job hold them). Every pass over the events runs where they are, as a method of the
// per-process contract, and the notebook builds the same result from the merged partials and
// the trace's definitions:
//
//   - "fold.span": the trace's span (first and last event), when WithRange does not give it;
//   - "fold.counts" (method.go): the state counts of the streams on the pixel grid, from
//     which every Op selects (hierarchical folding, 6.1.3);
//   - "fold.lanes": the unfolded lanes Plot draws below the fold (at most 32 streams): each
//     stream's own state per pixel and its measurement-off intervals;
//   - "fold.busy": per GPU device the union of its streams' busy time, which
//     GPUUtilisation sums per window;
//   - "fold.strips": per GPU device the counts by time share of its streams, which
//     Utilisation.Plot folds with Idle (one round for all devices).

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

func init() {
	part.Register(spanName, buildSpan, func(*trace.Trace) []part.Method { return []part.Method{spanMethod{}} })
	part.Register(lanesName, buildLanes, func(tr *trace.Trace) []part.Method {
		t0, t1 := localSpan(tr)
		return []part.Method{&lanesMethod{t0, t1, 50, false}, &lanesMethod{t0, t1, 9, true}}
	})
	part.Register(busyName, buildBusy, func(tr *trace.Trace) []part.Method {
		t0, t1 := localSpan(tr)
		ds := streamsOf(tr.Processes())
		return []part.Method{&busyMethod{t0, t1, 1, ds}, &busyMethod{t0 + (t1-t0)/3, t1 - (t1-t0)/3, 7, ds}, &busyMethod{t0, t1, 5, nil}}
	})
	part.Register(stripsName, buildStrips, func(tr *trace.Trace) []part.Method {
		t0, t1 := localSpan(tr)
		return []part.Method{&stripsMethod{t0, t1, 40, streamsOf(tr.Processes())}, &stripsMethod{t0, t1, 9, nil}}
	})
}

const (
	spanName   = "fold.span"
	lanesName  = "fold.lanes"
	busyName   = "fold.busy"
	stripsName = "fold.strips"
)

// run runs m over procs of tr through its executor, failing as fn.
func run(fn string, tr *trace.Trace, procs []*trace.Process, m part.Method) part.Partial {
	p, err := part.Run(tr, procs, m)
	if err != nil {
		work.FailErr(fn, err)
	}
	return p
}

// remoteSpan is span on a trace whose events are elsewhere.
func remoteSpan(fn string, tr *trace.Trace) (t0, t1 int64) {
	s := run(fn, tr, tr.Processes(), spanMethod{}).(*spanPart)
	t0, t1 = s.t0, s.t1
	if t1 <= t0 {
		t1 = t0 + 1
	}
	return t0, t1
}

// spanMethod is "fold.span": the first and last time stamps of some processes.
type spanMethod struct{}

func (spanMethod) Name() string   { return spanName }
func (spanMethod) Params() []byte { return []byte{1} }
func (spanMethod) Rounds() int    { return 1 }

func buildSpan(params []byte) (part.Method, error) {
	if len(params) != 1 || params[0] != 1 {
		return nil, work.Errorf(spanName, "parameters: %d bytes", len(params))
	}
	return spanMethod{}, nil
}

func (spanMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(spanName, "round %d of 1", round)
	}
	s := &spanPart{}
	if err := trace.EventsHere(spanName, procs...); err != nil {
		return nil, err
	}
	err := work.Try(func() {
		for i, p := range procs {
			if p == nil || p.Trace != tr {
				fail(spanName, "process %d is not a process of the trace", i)
			}
			if p.Len() == 0 {
				continue
			}
			s.add(p.Time[0], p.Time[p.Len()-1])
		}
	})
	return s, err
}

func (spanMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(spanName, "one round: nothing to decide")
}

func (spanMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(spanName, "round %d of 1", round)
	}
	d := part.NewDec(b)
	d.Version("span", 1)
	s := &spanPart{any: d.Bool()}
	if s.any {
		s.t0, s.t1 = d.Int(), d.Int()
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(spanName, "decoding: %v", err)
	}
	return s, nil
}

// spanPart is the partial of "fold.span".
type spanPart struct {
	any    bool // some process has events
	t0, t1 int64
}

func (s *spanPart) add(a, b int64) {
	if !s.any {
		s.any, s.t0, s.t1 = true, a, b
		return
	}
	s.t0, s.t1 = min(s.t0, a), max(s.t1, b)
}

// Merge widens the span to o's.
func (s *spanPart) Merge(o part.Partial) error {
	x, ok := o.(*spanPart)
	if !ok || x == nil {
		return part.Mismatch(spanName, s, o)
	}
	if x.any {
		s.add(x.t0, x.t1)
	}
	return nil
}

// MarshalBinary encodes whether there are events, and the span.
func (s *spanPart) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(1)
	e.Bool(s.any)
	if s.any {
		e.Int(s.t0)
		e.Int(s.t1)
	}
	return e.B, nil
}

// lanesMethod is "fold.lanes": each stream's own state per pixel (sampled or by time share)
// and its measurement-off intervals.
type lanesMethod struct {
	t0, t1 int64
	width  int
	byTime bool
}

func (m *lanesMethod) Name() string { return lanesName }
func (m *lanesMethod) Rounds() int  { return 1 }

func (m *lanesMethod) Params() []byte {
	return (&countsMethod{m.t0, m.t1, m.width, m.byTime}).Params()
}

func buildLanes(params []byte) (part.Method, error) {
	c, err := buildCounts(params)
	if err != nil {
		return nil, work.Errorf(lanesName, "%v", err)
	}
	cm := c.(*countsMethod)
	return &lanesMethod{cm.t0, cm.t1, cm.width, cm.byTime}, nil
}

func (m *lanesMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(lanesName, "round %d of 1", round)
	}
	out := &lanesPart{width: m.width}
	if len(procs) == 0 {
		return out, nil
	}
	if err := trace.EventsHere(lanesName, procs...); err != nil {
		return nil, err
	}
	err := work.Try(func() {
		ix := newIndex(lanesName, tr, procs)
		var samples []int32
		if m.byTime {
			_, samples = ix.timeCounts(lanesName, nil, m.t0, m.t1, m.width, true, false)
		} else {
			_, samples = ix.counts(lanesName, nil, m.t0, m.t1, m.width, true)
		}
		k := len(procs)
		for i, p := range procs {
			row := make([]int32, m.width)
			for x := range row {
				row[x] = samples[x*k+i]
			}
			off, open := offIntervals(p)
			out.lanes = append(out.lanes, lane{index: int32(p.Index), states: row, off: off, open: open})
		}
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out.lanes, func(a, b lane) int { return cmp.Compare(a.index, b.index) })
	for i := 1; i < len(out.lanes); i++ {
		if out.lanes[i].index == out.lanes[i-1].index {
			return nil, work.Errorf(lanesName, "process %d is given twice", out.lanes[i].index)
		}
	}
	return out, nil
}

func (m *lanesMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(lanesName, "one round: nothing to decide")
}

func (m *lanesMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(lanesName, "round %d of 1", round)
	}
	d := part.NewDec(b)
	d.Version("lanes", 1)
	if w := d.Uint(); d.Err() == nil && w != uint64(m.width) {
		d.Fail("lanes of %d pixels, the method has %d", w, m.width)
	}
	out := &lanesPart{width: m.width}
	n := d.Len(3)
	for i := 0; i < n && d.Err() == nil; i++ {
		l := lane{index: int32(min(d.Uint(), 1<<31-1)), states: make([]int32, 0, m.width)}
		if i > 0 && l.index <= out.lanes[i-1].index {
			d.Fail("lane of process %d out of order", l.index)
		}
		for len(l.states) < m.width && d.Err() == nil {
			st, run := int32(d.Int()), d.Uint()
			if d.Err() == nil && (run == 0 || run > uint64(m.width-len(l.states))) {
				d.Fail("a run of %d pixels", run)
			}
			for range run {
				l.states = append(l.states, st)
			}
		}
		l.open = d.Bool()
		no := d.Len(2)
		if l.open && no == 0 {
			d.Fail("an open off interval in a list of none")
		}
		for j := 0; j < no && d.Err() == nil; j++ {
			iv := trace.OffInterval{Start: d.Int(), End: d.Int()}
			l.off = append(l.off, iv)
		}
		out.lanes = append(out.lanes, l)
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(lanesName, "decoding: %v", err)
	}
	return out, nil
}

// lanesPart is the partial of "fold.lanes": the lanes of some streams, by process index.
type lanesPart struct {
	width int
	lanes []lane
}

type lane struct {
	index  int32 // trace.Process.Index
	states []int32
	off    []trace.OffInterval
	open   bool // the last off interval was still open at the process's last event (its End)
}

// offIntervals is trace.Process.MeasurementOffIntervals without what depends on the other
// processes of p's trace: an interval still open at p's last event ends there, and open
// says so (the notebook extends it to the last event of the whole trace, as
// MeasurementOffIntervals does; on a rank, p's trace holds only a share of the processes).
func offIntervals(p *trace.Process) (off []trace.OffInterval, open bool) {
	var start int64
	for i, k := range p.Kind {
		switch {
		case k == trace.MeasurementOff && !open:
			open, start = true, p.Time[i]
		case k == trace.MeasurementOn && open:
			open = false
			off = append(off, trace.OffInterval{Start: start, End: p.Time[i]})
		}
	}
	if open {
		off = append(off, trace.OffInterval{Start: start, End: p.Time[len(p.Time)-1]})
	}
	return off, open
}

// Merge adds the lanes of other streams.
func (l *lanesPart) Merge(o part.Partial) error {
	x, ok := o.(*lanesPart)
	if !ok || x == nil {
		return part.Mismatch(lanesName, l, o)
	}
	if x.width != l.width {
		return work.Errorf(lanesName+".Merge", "lanes of %d and %d pixels", l.width, x.width)
	}
	out, err := part.MergeSorted(lanesName+".Merge", "process", l.lanes, x.lanes, func(x lane) int { return int(x.index) })
	if err != nil {
		return err
	}
	l.lanes = out
	return nil
}

// MarshalBinary encodes each lane's states as runs and its off intervals.
func (l *lanesPart) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(1)
	e.Uint(uint64(l.width))
	e.Uint(uint64(len(l.lanes)))
	for _, ln := range l.lanes {
		e.Uint(uint64(ln.index))
		for x := 0; x < len(ln.states); {
			y := x
			for y < len(ln.states) && ln.states[y] == ln.states[x] {
				y++
			}
			e.Int(int64(ln.states[x]))
			e.Uint(uint64(y - x))
			x = y
		}
		e.Bool(ln.open)
		e.Uint(uint64(len(ln.off)))
		for _, iv := range ln.off {
			e.Int(iv.Start)
			e.Int(iv.End)
		}
	}
	return e.B, nil
}

// deviceStreams are the number of streams of each GPU device among the processes a method
// runs over (ascending by device): a partial that has counted all of a device's streams
// reduces them to what the result needs (the busy time per window, the strip's states), so
// that the bytes sent up the reduction tree do not grow with the device's kernels.
type deviceStreams []struct{ device, streams int32 }

// streamsOf counts the GPU streams of procs per device.
func streamsOf(procs []*trace.Process) deviceStreams {
	n := map[int32]int32{}
	for _, p := range procs {
		if gpu, g, _ := p.Place(); gpu {
			n[g]++
		}
	}
	var out deviceStreams
	for g, k := range n {
		out = append(out, struct{ device, streams int32 }{g, k})
	}
	slices.SortFunc(out, func(a, b struct{ device, streams int32 }) int { return cmp.Compare(a.device, b.device) })
	return out
}

// of returns the streams of device g (0 if unknown).
func (ds deviceStreams) of(g int32) int32 {
	i, ok := slices.BinarySearchFunc(ds, g, func(e struct{ device, streams int32 }, g int32) int { return cmp.Compare(e.device, g) })
	if !ok {
		return 0
	}
	return ds[i].streams
}

func (ds deviceStreams) encode(e *part.Enc) {
	e.Uint(uint64(len(ds)))
	for _, x := range ds {
		e.Int(int64(x.device))
		e.Uint(uint64(x.streams))
	}
}

func decodeDeviceStreams(d *part.Dec) deviceStreams {
	n := d.Len(2)
	var ds deviceStreams
	for i := 0; i < n && d.Err() == nil; i++ {
		g, k := int32(d.Int()), d.Uint()
		if d.Err() == nil && (k == 0 || k > 1<<31-1 || i > 0 && g <= ds[i-1].device) {
			d.Fail("device %d with %d streams", g, k)
		}
		ds = append(ds, struct{ device, streams int32 }{g, int32(k)})
	}
	return ds
}

// busyMethod is "fold.busy": per GPU device, the union of its streams' busy time in [t0, t1),
// reduced to the busy time per window once all the device's streams are counted.
type busyMethod struct {
	t0, t1  int64
	windows int
	streams deviceStreams
}

func (m *busyMethod) Name() string { return busyName }
func (m *busyMethod) Rounds() int  { return 1 }

func (m *busyMethod) Params() []byte {
	var e part.Enc
	e.Uint(2)
	e.Int(m.t0)
	e.Int(m.t1)
	e.Uint(uint64(m.windows))
	m.streams.encode(&e)
	return e.B
}

func buildBusy(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", 2)
	m := &busyMethod{t0: d.Int(), t1: d.Int()}
	w := d.Uint()
	m.streams = decodeDeviceStreams(d)
	if err := d.Done(); err != nil || m.t1 <= m.t0 || w < 1 || w > 1<<16 {
		return nil, work.Errorf(busyName, "parameters: [%d, %d) in %d windows: %v", m.t0, m.t1, w, err)
	}
	m.windows = int(w)
	return m, nil
}

func (m *busyMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(busyName, "round %d of 1", round)
	}
	out := &busyPart{m: m}
	if err := trace.EventsHere(busyName, procs...); err != nil {
		return nil, err
	}
	err := work.Try(func() {
		var events int64
		for i, p := range procs {
			if p == nil || p.Trace != tr {
				fail(busyName, "process %d is not a process of the trace", i)
			}
			events += int64(p.Len())
		}
		job := work.Start(busyName, events, "events")
		defer job.Done()
		byDev := map[int32]*deviceBusy{}
		for _, p := range procs {
			gpu, g, _ := p.Place()
			if !gpu {
				continue
			}
			st := build(p, job)
			db := byDev[g]
			if db == nil {
				db = &deviceBusy{device: g}
				byDev[g] = db
			}
			db.busy = union(db.busy, st.busy(m.t0, m.t1))
			db.streams++
		}
		for _, db := range byDev {
			out.complete(db)
			out.devices = append(out.devices, *db)
		}
		slices.SortFunc(out.devices, func(a, b deviceBusy) int { return cmp.Compare(a.device, b.device) })
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *busyMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(busyName, "one round: nothing to decide")
}

func (m *busyMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(busyName, "round %d of 1", round)
	}
	d := part.NewDec(b)
	d.Version("busy", 2)
	out := &busyPart{m: m}
	n := d.Len(3)
	for i := 0; i < n && d.Err() == nil; i++ {
		db := deviceBusy{device: int32(d.Int()), streams: int32(min(d.Uint(), 1<<31-1))}
		if i > 0 && db.device <= out.devices[i-1].device {
			d.Fail("device %d out of order", db.device)
		}
		if d.Bool() {
			db.perWindow = make([]int64, m.windows)
			for w := range db.perWindow {
				db.perWindow[w] = d.Int()
			}
			if d.Err() == nil && db.streams != m.streams.of(db.device) {
				d.Fail("device %d complete with %d of its %d streams", db.device, db.streams, m.streams.of(db.device))
			}
			out.devices = append(out.devices, db)
			continue
		}
		k := d.Len(2)
		at := int64(0)
		for j := 0; j < k && d.Err() == nil; j++ {
			var a int64
			if j == 0 {
				a = d.Int()
			} else {
				a = at + int64(d.Uint())
			}
			iv := ival{a, a + int64(d.Uint())}
			if j > 0 && iv.a <= at || iv.b <= iv.a {
				d.Fail("busy interval [%d, %d) out of order", iv.a, iv.b)
			}
			at = iv.b
			db.busy = append(db.busy, iv)
		}
		out.devices = append(out.devices, db)
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(busyName, "decoding: %v", err)
	}
	return out, nil
}

// busyPart is the partial of "fold.busy": per device (ascending) its busy intervals, ordered
// and disjoint, or, once all its streams are counted, its busy time per window.
type busyPart struct {
	m       *busyMethod
	devices []deviceBusy
}

type deviceBusy struct {
	device    int32
	streams   int32   // streams counted
	busy      []ival  // until all are counted
	perWindow []int64 // then: busy ns per window
}

// complete reduces db to its busy time per window when all its streams are counted.
func (b *busyPart) complete(db *deviceBusy) {
	if db.perWindow == nil && db.streams == b.m.streams.of(db.device) {
		db.perWindow = perWindow(db.busy, b.m.t0, b.m.t1, b.m.windows)
		db.busy = nil
	}
}

// Merge unites the busy time of each device with o's.
func (b *busyPart) Merge(o part.Partial) error {
	x, ok := o.(*busyPart)
	if !ok || x == nil {
		return part.Mismatch(busyName, b, o)
	}
	for _, d := range x.devices {
		i, found := slices.BinarySearchFunc(b.devices, d.device, func(e deviceBusy, g int32) int { return cmp.Compare(e.device, g) })
		if !found {
			b.devices = slices.Insert(b.devices, i, d)
			continue
		}
		db := &b.devices[i]
		if db.perWindow != nil || d.perWindow != nil {
			return work.Errorf(busyName+".Merge", "device %d: a partial holds all its streams and the other more", d.device)
		}
		db.busy = union(db.busy, d.busy)
		db.streams += d.streams
		b.complete(db)
	}
	return nil
}

// busyOf returns device g's busy time per window.
func (b *busyPart) busyOf(g int32) []int64 {
	i, ok := slices.BinarySearchFunc(b.devices, g, func(e deviceBusy, g int32) int { return cmp.Compare(e.device, g) })
	switch {
	case !ok:
		return perWindow(nil, b.m.t0, b.m.t1, b.m.windows)
	case b.devices[i].perWindow != nil:
		return b.devices[i].perWindow
	}
	return perWindow(b.devices[i].busy, b.m.t0, b.m.t1, b.m.windows)
}

// MarshalBinary encodes per device its streams and either its busy time per window or its
// intervals as gaps and lengths.
func (b *busyPart) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(2)
	e.Uint(uint64(len(b.devices)))
	for _, d := range b.devices {
		e.Int(int64(d.device))
		e.Uint(uint64(d.streams))
		e.Bool(d.perWindow != nil)
		if d.perWindow != nil {
			for _, v := range d.perWindow {
				e.Int(v)
			}
			continue
		}
		e.Uint(uint64(len(d.busy)))
		for j, iv := range d.busy {
			if j == 0 {
				e.Int(iv.a)
			} else {
				e.Uint(uint64(iv.a - d.busy[j-1].b))
			}
			e.Uint(uint64(iv.b - iv.a))
		}
	}
	return e.B, nil
}

// stripsMethod is "fold.strips": per GPU device, the counts by time share (with the busy
// time) of its streams on one pixel grid, reduced to the strip's states (Idle) once all the
// device's streams are counted; the strips Utilisation.Plot draws, in one round for every
// device.
type stripsMethod struct {
	t0, t1  int64
	width   int
	streams deviceStreams
}

func (m *stripsMethod) Name() string { return stripsName }
func (m *stripsMethod) Rounds() int  { return 1 }

func (m *stripsMethod) Params() []byte {
	e := part.Enc{B: (&countsMethod{m.t0, m.t1, m.width, true}).Params()}
	m.streams.encode(&e)
	return e.B
}

func buildStrips(params []byte) (part.Method, error) {
	// the grid as "fold.counts" encodes it, then the devices' streams
	d := part.NewDec(params)
	d.Version("parameter", countsParamsVersion)
	m := &stripsMethod{t0: d.Int(), t1: d.Int()}
	w := d.Uint()
	byTime := d.Bool()
	m.streams = decodeDeviceStreams(d)
	if err := d.Done(); err != nil || !byTime || w < 1 || w > 1<<16 || m.t1 <= m.t0 {
		return nil, work.Errorf(stripsName, "parameters: %d pixels over [%d, %d) by time %v: %v", w, m.t0, m.t1, byTime, err)
	}
	m.width = int(w)
	return m, nil
}

func (m *stripsMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(stripsName, "round %d of 1", round)
	}
	if err := trace.EventsHere(stripsName, procs...); err != nil {
		return nil, err
	}
	out := &stripsPart{m: m}
	err := work.Try(func() {
		byDev := map[int32][]*trace.Process{}
		for _, p := range procs {
			if gpu, g, _ := p.Place(); gpu {
				byDev[g] = append(byDev[g], p)
			}
		}
		for g, ps := range byDev {
			ix := newIndex(stripsName, tr, ps)
			c, _ := ix.timeCounts(stripsName, nil, m.t0, m.t1, m.width, false, true)
			c.procs = ix.procsOf(nil)
			dc := deviceCounts{device: g, counts: c}
			out.complete(&dc)
			out.devices = append(out.devices, dc)
		}
		slices.SortFunc(out.devices, func(a, b deviceCounts) int { return cmp.Compare(a.device, b.device) })
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *stripsMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(stripsName, "one round: nothing to decide")
}

func (m *stripsMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(stripsName, "round %d of 1", round)
	}
	d := part.NewDec(b)
	d.Version("strips", 1)
	out := &stripsPart{m: m}
	n := d.Len(2)
	for i := 0; i < n && d.Err() == nil; i++ {
		g := int32(d.Int())
		if i > 0 && g <= out.devices[i-1].device {
			d.Fail("device %d out of order", g)
			break
		}
		if d.Bool() { // complete: the states as runs
			dc := deviceCounts{device: g, streams: int32(min(d.Uint(), 1<<31-1)), states: make([]int32, 0, m.width)}
			if d.Err() == nil && dc.streams != m.streams.of(g) {
				d.Fail("device %d complete with %d of its %d streams", g, dc.streams, m.streams.of(g))
			}
			for len(dc.states) < m.width && d.Err() == nil {
				st, run := int32(d.Int()), d.Uint()
				if d.Err() == nil && (run == 0 || run > uint64(m.width-len(dc.states))) {
					d.Fail("a run of %d pixels", run)
				}
				for range run {
					dc.states = append(dc.states, st)
				}
			}
			out.devices = append(out.devices, dc)
			continue
		}
		cb := d.Bytes()
		if d.Err() != nil {
			break
		}
		c, err := decodeCounts(cb)
		if err != nil {
			d.Fail("device %d: %v", g, err)
			break
		}
		if c.T0 != m.t0 || c.T1 != m.t1 || c.Width != m.width || !c.ByTime {
			d.Fail("device %d: counts on another grid", g)
			break
		}
		out.devices = append(out.devices, deviceCounts{device: g, counts: c})
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(stripsName, "decoding: %v", err)
	}
	return out, nil
}

// stripsPart is the partial of "fold.strips": per device (ascending) the counts of its
// streams, or, once all are counted, the Idle-selected state of each pixel.
type stripsPart struct {
	m       *stripsMethod
	devices []deviceCounts
}

type deviceCounts struct {
	device  int32
	counts  *Counts // until all its streams are counted
	streams int32   // then: the streams counted
	states  []int32 // and the strip's states
}

// complete reduces dc to the strip's states when all its streams are counted.
func (s *stripsPart) complete(dc *deviceCounts) {
	if dc.counts != nil && int32(dc.counts.Streams()) == s.m.streams.of(dc.device) {
		dc.streams = int32(dc.counts.Streams())
		dc.states = dc.counts.Select(Idle)
		dc.counts = nil
	}
}

// of returns the states of device g's strip.
func (s *stripsPart) of(g int32) []int32 {
	if i, ok := slices.BinarySearchFunc(s.devices, g, func(e deviceCounts, g int32) int { return cmp.Compare(e.device, g) }); ok {
		if dc := &s.devices[i]; dc.counts != nil {
			return dc.counts.Select(Idle)
		} else {
			return dc.states
		}
	}
	return (&countsMethod{s.m.t0, s.m.t1, s.m.width, true}).empty().Select(Idle)
}

// Merge merges each device's counts with o's.
func (s *stripsPart) Merge(o part.Partial) error {
	x, ok := o.(*stripsPart)
	if !ok || x == nil {
		return part.Mismatch(stripsName, s, o)
	}
	for _, d := range x.devices {
		i, found := slices.BinarySearchFunc(s.devices, d.device, func(e deviceCounts, g int32) int { return cmp.Compare(e.device, g) })
		if !found {
			s.devices = slices.Insert(s.devices, i, d)
			continue
		}
		dc := &s.devices[i]
		if dc.counts == nil || d.counts == nil {
			return work.Errorf(stripsName+".Merge", "device %d: a partial holds all its streams and the other more", d.device)
		}
		if err := dc.counts.Merge(d.counts); err != nil {
			return err
		}
		s.complete(dc)
	}
	return nil
}

// MarshalBinary encodes per device its states as runs, or its counts (Counts.MarshalBinary).
func (s *stripsPart) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(1)
	e.Uint(uint64(len(s.devices)))
	for _, d := range s.devices {
		e.Int(int64(d.device))
		e.Bool(d.counts == nil)
		if d.counts == nil {
			e.Uint(uint64(d.streams))
			for x := 0; x < len(d.states); {
				y := x
				for y < len(d.states) && d.states[y] == d.states[x] {
					y++
				}
				e.Int(int64(d.states[x]))
				e.Uint(uint64(y - x))
				x = y
			}
			continue
		}
		b, err := d.counts.MarshalBinary()
		if err != nil {
			return nil, err
		}
		e.Bytes(b)
	}
	return e.B, nil
}
