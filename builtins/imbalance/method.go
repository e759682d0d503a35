package imbalance

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The analysis under the per-process contract (builtins/part), registered as
// "imbalance.analyze", in two rounds:
//
//   - round 0: each subset of the processes counts its calls (*Calls, added by Merge);
//   - Decide: the root picks the dominant function from the merged counts, exactly as Analyze
//     does (or takes the one WithFunction names);
//   - round 1: each subset cuts its processes into the invocations of that function with their
//     synchronisation time (*SegmentSet, united by Merge); Summarize aligns the iterations and
//     summarises the merged segments.
//
// Analyze runs these rounds with part.RunRound, one subset per core.
func init() {
	part.Register(methodName, buildMethod, sampleMethods)
}

const methodName = "imbalance.analyze"

// method is the analysis with its parameters fixed: the synchronisation regions of the trace,
// whether they may segment the run, and the function WithFunction names.
type method struct {
	function string    // WithFunction's name, "" for the dominant function
	fn       int32     // its region id, -1 for none
	keepSync bool      // WithSyncCandidates
	sync     []bool    // per region id: synchronisation (subtracted from SOS-time)
	job      *work.Job // progress of a local run; not a parameter
}

// Method returns the analysis of Analyze with opts as a two-round method of the per-process
// contract (part.Method, registered as "imbalance.analyze"): round 0's partials are *Calls,
// round 1's *SegmentSet. The synchronisation regions (WithSync) and the function of
// WithFunction are resolved against tr's regions; WithProcesses is ignored (the processes are
// those each Compute is given). Bad options panic with an *Error.
//
//	m := imbalance.Method(tr)
//	p, _ := part.Run(tr, procs, m)
//	set := p.(*imbalance.SegmentSet)
//	r := imbalance.Summarize(tr, procs, set.Function, set.Segments)
func Method(tr *trace.Trace, opts ...Option) part.Method {
	const fn = "imbalance.Method"
	defer work.RecoverAs(fn)
	if tr == nil || tr.Defs == nil {
		fail(fn, "the trace is nil or has no definitions")
	}
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	m, _ := newMethod(fn, tr, o)
	return m
}

// newMethod resolves o against tr's regions and returns the method and its synchronisation
// classifier.
func newMethod(fn string, tr *trace.Trace, o options) (*method, *trace.SyncClassifier) {
	sc := o.sync
	if sc == nil {
		sc = trace.DefaultSync()
	}
	m := &method{function: o.function, fn: -1, keepSync: o.keepSync, sync: sc.Regions(tr)}
	if o.function != "" {
		if m.fn = tr.RegionID(o.function); m.fn < 0 {
			fail(fn, "WithFunction: no region named %q in the trace", o.function)
		}
	}
	return m, sc
}

func (m *method) Name() string { return methodName }

func (m *method) Rounds() int { return 2 }

// paramsVersion is the layout version of the method's parameters.
const paramsVersion = 1

// Params encodes the function's name and region id, WithSyncCandidates, the number of regions
// and the synchronisation regions' ids.
func (m *method) Params() []byte {
	var e part.Enc
	e.Uint(paramsVersion)
	e.String(m.function)
	e.Int(int64(m.fn))
	e.Bool(m.keepSync)
	e.Uint(uint64(len(m.sync)))
	var ids []int32
	for r, s := range m.sync {
		if s {
			ids = append(ids, int32(r))
		}
	}
	part.Ints(&e, ids)
	return e.B
}

func buildMethod(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", paramsVersion)
	m := &method{function: d.String(), fn: int32(d.Int()), keepSync: d.Bool()}
	nreg := d.Uint()
	ids := part.ReadInts[int32](d)
	if err := d.Done(); err != nil {
		return nil, work.Errorf(methodName, "parameters: %v", err)
	}
	if nreg > uint64(len(params))*8 && len(ids) > 0 || nreg > 1<<31 {
		return nil, work.Errorf(methodName, "parameters: %d regions", nreg)
	}
	m.sync = make([]bool, nreg)
	for _, r := range ids {
		if r < 0 || uint64(r) >= nreg {
			return nil, work.Errorf(methodName, "parameters: synchronisation region %d of %d", r, nreg)
		}
		m.sync[r] = true
	}
	if m.fn < -1 || int64(m.fn) >= int64(nreg) || (m.fn < 0) != (m.function == "") {
		return nil, work.Errorf(methodName, "parameters: function %q with region id %d of %d", m.function, m.fn, nreg)
	}
	return m, nil
}

// check returns an error unless procs are processes of tr, a trace of the method's regions.
func (m *method) check(tr *trace.Trace, procs []*trace.Process) error {
	if tr == nil || tr.Defs == nil {
		return work.Errorf(methodName, "the trace is nil or has no definitions")
	}
	if len(tr.Defs.Regions) != len(m.sync) {
		return work.Errorf(methodName, "the method was made for a trace of %d regions, this one has %d", len(m.sync), len(tr.Defs.Regions))
	}
	for i, p := range procs {
		if p == nil || p.Trace != tr {
			return work.Errorf(methodName, "process %d (%v) is not a process of this trace", i, p)
		}
		if err := trace.EventsHere(methodName, p); err != nil {
			return err
		}
	}
	return nil
}

// Compute counts the calls of procs (round 0) or cuts them into segments (round 1).
func (m *method) Compute(tr *trace.Trace, procs []*trace.Process, round int, decision []byte) (part.Partial, error) {
	if err := m.check(tr, procs); err != nil {
		return nil, err
	}
	nreg := len(tr.Defs.Regions)
	switch round {
	case 0:
		c := newCounter(nreg)
		for _, p := range procs {
			if !c.process(p, m.job) {
				c.odd = append(c.odd, int32(p.Index))
			}
		}
		out := &c.Calls
		if !ascending(out.procs) {
			slices.Sort(out.procs)
			slices.Sort(out.odd)
			if !ascending(out.procs) {
				return nil, work.Errorf(methodName, "a process is given twice")
			}
		}
		return out, nil
	case 1:
		dc, err := decodeDecision(decision)
		if err != nil {
			return nil, err
		}
		if dc.fn < 0 || int(dc.fn) >= nreg {
			return nil, work.Errorf(methodName, "decision: region id %d is not a region of the trace", dc.fn)
		}
		s := newSegmenter(nreg, dc.fn, m.sync)
		set := &SegmentSet{Function: dc.fn}
		if dc.processes > 0 {
			s.out = make([]Segment, 0, dc.invocations*int64(len(procs))/dc.processes+16)
		}
		for _, p := range procs {
			if _, odd := slices.BinarySearch(dc.odd, int32(p.Index)); odd {
				s.process(p, m.job)
			} else {
				s.processNested(p, m.job)
			}
			set.procs = append(set.procs, int32(p.Index))
		}
		set.Segments = slices.Clip(s.out)
		if !ascending(set.procs) {
			slices.Sort(set.procs)
			if !ascending(set.procs) {
				return nil, work.Errorf(methodName, "a process is given twice")
			}
			slices.SortFunc(set.Segments, bySegmentOrder)
		}
		return set, nil
	}
	return nil, work.Errorf(methodName, "round %d of 2", round)
}

// decision is what the root decides after round 0: the segmenting function, its invocations
// and the processes counted (to size the buffers), and the processes that need call-stack
// repairs (the others take the faster pass).
type decision struct {
	fn          int32
	invocations int64
	processes   int64
	odd         []int32
}

const decisionVersion = 1

func (dc decision) encode() []byte {
	var e part.Enc
	e.Uint(decisionVersion)
	e.Int(int64(dc.fn))
	e.Int(dc.invocations)
	e.Int(dc.processes)
	part.Ints(&e, dc.odd)
	return e.B
}

func decodeDecision(b []byte) (decision, error) {
	d := part.NewDec(b)
	d.Version("decision", decisionVersion)
	dc := decision{fn: int32(d.Int()), invocations: d.Int(), processes: d.Int()}
	dc.odd = part.ReadInts[int32](d)
	if err := d.Done(); err != nil {
		return dc, work.Errorf(methodName, "decision: %v", err)
	}
	if dc.invocations < 0 || dc.processes < 0 || !ascending(dc.odd) {
		return dc, work.Errorf(methodName, "decision: impossible values")
	}
	return dc, nil
}

// decide is the decision for the segmenting function fn after the counts c.
func decide(c *Calls, fn int32) []byte {
	return decision{fn: fn, invocations: c.Count[fn], processes: int64(c.Processes), odd: c.odd}.encode()
}

// Decide picks the segmenting function from the merged counts of round 0, as Analyze does.
func (m *method) Decide(round int, merged part.Partial) ([]byte, error) {
	c, ok := merged.(*Calls)
	if round != 0 || !ok {
		return nil, work.Errorf(methodName+".Decide", "round %d: a %T, want round 0's *imbalance.Calls", round, merged)
	}
	fn, msg := m.choose(func(r int32) string { return fmt.Sprintf("region %d", r) }, c)
	if fn < 0 {
		return nil, work.Errorf(methodName+".Decide", "%s", msg)
	}
	return decide(c, fn), nil
}

// choose returns the segmenting function for the counts c: the one WithFunction names, or the
// dominant function of 6.2.1 among the regions that qualify; -1 and the reason if there is
// none. name names regions in the reason.
func (m *method) choose(name func(int32) string, c *Calls) (int32, string) {
	p := c.Processes
	if m.function != "" {
		if int(m.fn) >= len(c.Count) || c.Count[m.fn] == 0 {
			return -1, fmt.Sprintf("WithFunction: %q is never invoked on the %d analysed processes", m.function, p)
		}
		return m.fn, ""
	}
	skip := m.skip()
	if dom := c.Dominant(skip); dom >= 0 {
		return dom, ""
	}
	if left := leftOut(name, c, skip, -1); left != "" {
		return -1, fmt.Sprintf("no function but synchronisation calls is invoked at least 2p = %d times on the p = %d analysed processes, so none segments the run (6.2.1); left out as synchronisation (SOS-time 0): %s; keep them with WithSyncCandidates, or name a function with WithFunction",
			2*p, p, left)
	}
	return -1, fmt.Sprintf("no function is invoked at least 2p = %d times on the p = %d analysed processes, so none segments the run (6.2.1); name one with WithFunction (the most invoked: %s)",
		2*p, p, mostInvoked(name, c))
}

// skip returns the regions left out of the candidates: the synchronisation regions, unless
// WithSyncCandidates.
func (m *method) skip() []bool {
	if m.keepSync {
		return nil
	}
	return m.sync
}

// Decode reads a partial of round 0 (*Calls) or 1 (*SegmentSet).
func (m *method) Decode(round int, b []byte) (part.Partial, error) {
	switch round {
	case 0:
		return decodeCalls(b)
	case 1:
		return decodeSegmentSet(b)
	}
	return nil, work.Errorf(methodName, "round %d of 2", round)
}

// sampleMethods are the contract suite's instances for tr: the default analysis (or, where no
// function but synchronisation is invoked 2p times, WithSyncCandidates) and the segmentation
// by the most invoked function, when those can decide over all of tr's processes.
func sampleMethods(tr *trace.Trace) []part.Method {
	if tr == nil || tr.Defs == nil || tr.NumProcesses() == 0 {
		return nil
	}
	c := CountCalls(tr.Processes())
	var out []part.Method
	for _, o := range []options{{}, {keepSync: true}} {
		m, _ := newMethod("imbalance.sampleMethods", tr, o)
		if fn, _ := m.choose(tr.RegionName, c); fn >= 0 {
			out = append(out, m)
			break
		}
	}
	if ids := c.Ranked(); len(ids) > 0 {
		top := ids[0]
		for _, r := range ids {
			if c.Count[r] > c.Count[top] {
				top = r
			}
		}
		m, _ := newMethod("imbalance.sampleMethods", tr, options{function: tr.RegionName(top)})
		if m.fn == top {
			out = append(out, m)
		}
	}
	return out
}

// SegmentSet is round 1's partial of the method "imbalance.analyze" (Method): the segments of
// a set of processes for one segmenting function, united by Merge. Summarize turns the
// segments of all processes into a Result.
type SegmentSet struct {
	Function int32     // region id of the segmenting function
	Segments []Segment // by location, then invocation; Iteration is Invocation until Summarize

	procs []int32 // the processes cut (trace.Process.Index), ascending
}

// bySegmentOrder orders segments by location, then invocation.
func bySegmentOrder(a, b Segment) int {
	if x := cmp.Compare(a.Location, b.Location); x != 0 {
		return x
	}
	return cmp.Compare(a.Invocation, b.Invocation)
}

// Merge adds o, the segments of a disjoint set of processes for the same function, to s. A
// partial of another function, of processes present in both or of another kind is an error (s
// is unchanged then).
func (s *SegmentSet) Merge(o part.Partial) error {
	const fn = "imbalance.SegmentSet.Merge"
	os, ok := o.(*SegmentSet)
	if !ok {
		return part.Mismatch("imbalance.SegmentSet", s, o)
	}
	if os.Function != s.Function {
		return work.Errorf(fn, "the partials segment different functions (region ids %d and %d)", s.Function, os.Function)
	}
	procs, err := part.UnionProcesses(fn, s.procs, os.procs)
	if err != nil {
		return err
	}
	s.procs = procs
	a, b := s.Segments, os.Segments
	switch {
	case len(b) == 0:
	case len(a) == 0 || bySegmentOrder(a[len(a)-1], b[0]) < 0:
		s.Segments = append(a, b...)
	default:
		out := make([]Segment, 0, len(a)+len(b))
		i, j := 0, 0
		for i < len(a) || j < len(b) {
			if j == len(b) || i < len(a) && bySegmentOrder(a[i], b[j]) < 0 {
				out = append(out, a[i])
				i++
			} else {
				out = append(out, b[j])
				j++
			}
		}
		s.Segments = out
	}
	return nil
}

const segmentSetVersion = 1

// MarshalBinary encodes the segments (layout version 1): the function, the processes cut and
// per segment its location, invocation, start, duration and synchronisation time.
func (s *SegmentSet) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(segmentSetVersion)
	e.Int(int64(s.Function))
	part.Ints(&e, s.procs)
	e.Uint(uint64(len(s.Segments)))
	for _, g := range s.Segments {
		e.Int(int64(g.Location))
		e.Int(int64(g.Invocation))
		e.Int(g.Start)
		e.Int(g.End - g.Start)
		e.Int(g.Sync)
	}
	return e.B, nil
}

func decodeSegmentSet(b []byte) (*SegmentSet, error) {
	d := part.NewDec(b)
	d.Version("SegmentSet", segmentSetVersion)
	s := &SegmentSet{Function: int32(d.Int())}
	s.procs = part.ReadInts[int32](d)
	n := d.Len(5)
	s.Segments = make([]Segment, n)
	for i := range s.Segments {
		g := &s.Segments[i]
		g.Location, g.Invocation = int(d.Int()), int(d.Int())
		g.Iteration = g.Invocation
		g.Start = d.Int()
		g.End = g.Start + d.Int()
		g.Sync = d.Int()
		if i > 0 && bySegmentOrder(s.Segments[i-1], *g) >= 0 {
			d.Fail("segment %d out of order", i)
		}
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf("imbalance.SegmentSet", "decoding: %v", err)
	}
	if !ascending(s.procs) {
		return nil, work.Errorf("imbalance.SegmentSet", "decoding: processes out of order")
	}
	return s, nil
}

// Table returns one row per segment: Location, Invocation, Start (ns), End (ns), Duration
// (ns), SOS-time (ns) and Sync (ns).
func (s *SegmentSet) Table() *arrowio.Table {
	n := len(s.Segments)
	loc, inv := make([]int32, n), make([]int64, n)
	start, end, dur, sos, syn := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, g := range s.Segments {
		loc[i], inv[i] = int32(g.Location), int64(g.Invocation)
		start[i], end[i], dur[i], sos[i], syn[i] = g.Start, g.End, g.Duration(), g.SOS(), g.Sync
	}
	return arrowio.MustTable(arrowio.Int32("Location", loc), arrowio.Int64("Invocation", inv),
		arrowio.Int64("Start (ns)", start), arrowio.Int64("End (ns)", end),
		arrowio.Int64("Duration (ns)", dur).WithUnit("ns"), arrowio.Int64("SOS-time (ns)", sos).WithUnit("ns"),
		arrowio.Int64("Sync (ns)", syn).WithUnit("ns"))
}

// String summarises the partial: "segments of region 2 on 3 processes: 9 segments".
func (s *SegmentSet) String() string {
	return fmt.Sprintf("segments of region %d on %d processes: %d segments", s.Function, len(s.procs), len(s.Segments))
}
