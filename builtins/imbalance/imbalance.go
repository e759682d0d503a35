package imbalance

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Option adjusts Analyze.
type Option func(*options)

type options struct {
	procs    []*trace.Process
	function string
	sync     *trace.SyncClassifier
	keepSync bool
}

// WithProcesses analyses only these processes of the trace (a cluster group, a node's ranks,
// or accelerator streams, which are left out by default); p in the 2p rule is their number.
func WithProcesses(ps ...*trace.Process) Option {
	return func(o *options) { o.procs = append([]*trace.Process(nil), ps...) }
}

// WithFunction segments the run by the named function instead of the dominant one: a
// function with shorter invocations for a finer segmentation (Weber 6.2.4, Fig. 6.12c), or
// another candidate of Candidates.
func WithFunction(name string) Option { return func(o *options) { o.function = name } }

// WithSync decides which regions are synchronisation, e.g.
// trace.DefaultSync().Include("spin_wait"); the default is trace.DefaultSync(). The same set
// is subtracted from the segments (SOS-time) and left out of the dominant-function candidates.
func WithSync(c *trace.SyncClassifier) Option { return func(o *options) { o.sync = c } }

// WithSyncCandidates keeps the synchronisation functions among the candidates for the
// dominant function. By default they are left out: the SOS-time of a synchronisation call is
// 0 by definition, so segmenting by one shows no imbalance.
func WithSyncCandidates() Option { return func(o *options) { o.keepSync = true } }

// Result is a runtime imbalance analysis: the segmenting function, the candidates it was chosen
// from, every segment's SOS-time, and the summaries per iteration and per process.
type Result struct {
	tr       *trace.Trace
	procs    []*trace.Process // analysed, in trace order
	calls    *Calls
	fn       int32
	chosen   bool // fn was given by WithFunction
	segs     []Segment
	iters    []Iteration
	perProc  []ProcessSummary
	syncDesc string
	sync     []bool // per region: synchronisation (nil for a Result of Summarize)
	keepSync bool   // WithSyncCandidates
}

// Analyze finds the time-dominant function of tr (6.2.1), cuts every analysed process's run into
// its invocations and computes their SOS-times (6.2.2), and summarises the imbalance per
// iteration and per process. See the package comment for the rules and the options.
func Analyze(tr *trace.Trace, opts ...Option) *Result {
	const fn = "imbalance.Analyze"
	defer work.RecoverAs(fn)
	if tr == nil {
		fail(fn, "the trace is nil")
	}
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	procs := o.procs
	if procs == nil {
		for _, p := range tr.Processes() {
			if gpu, _, _ := p.Place(); !gpu {
				procs = append(procs, p)
			}
		}
		if len(procs) == 0 {
			procs = tr.Processes()
		}
	}
	for _, p := range procs {
		if p == nil || p.Trace != tr {
			fail(fn, "WithProcesses: %v is not a process of this trace", p)
		}
	}
	procs = slices.Clone(procs)
	slices.SortFunc(procs, func(a, b *trace.Process) int { return cmp.Compare(a.Index, b.Index) })
	procs = slices.CompactFunc(procs, func(a, b *trace.Process) bool { return a == b })
	regionCount(fn, procs)
	m, sc := newMethod(fn, tr, o)

	// The two rounds of Method, one subset of the processes per core.
	events := eventCount(procs)
	job := work.Start("imbalance analysis", 2*events, "events")
	defer job.Done()
	m.job = job
	calls := countCalls(fn, procs, m)
	dom, msg := m.choose(tr.RegionName, calls)
	if dom < 0 {
		fail(fn, "%s", msg)
	}
	if err := work.Reserve("segments", 2*calls.Count[dom]*int64(segmentBytes)); err != nil {
		panic(err)
	}
	p, err := part.RunRound(tr, procs, m, 1, decide(calls, dom))
	if err != nil {
		failErr(fn, err)
	}
	r := summarize(tr, procs, dom, p.(*SegmentSet).Segments)
	r.calls, r.chosen, r.syncDesc, r.sync, r.keepSync = calls, o.function != "", sc.String(), m.sync, o.keepSync
	return r
}

// leftOut lists the eligible functions that skip leaves out and that rank above fn (all of
// them for fn -1), with their invocations: "MPI_Send (16 invocations), MPI_Recv (16)".
func leftOut(name func(int32) string, c *Calls, skip []bool, fn int32) string {
	var parts []string
	for _, r := range c.Ranked() {
		if r == fn {
			break
		}
		if c.Eligible(r) && !c.Qualifies(r, skip) {
			n := arrowio.FormatCount(c.Count[r])
			if len(parts) == 0 {
				n += " invocations"
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", name(r), n))
		}
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more", len(parts)-4))
	}
	return strings.Join(parts, ", ")
}

const segmentBytes = 48

func mostInvoked(name func(int32) string, c *Calls) string {
	best := int32(-1)
	for r, n := range c.Count {
		if n > 0 && (best < 0 || n > c.Count[best]) {
			best = int32(r)
		}
	}
	if best < 0 {
		return "none; the processes have no calls"
	}
	return name(best) + " with " + arrowio.FormatCount(c.Count[best]) + " invocations"
}

// Iteration summarises the segments aligned to one iteration (at most one per process).
type Iteration struct {
	Index       int
	Processes   int
	Start, End  int64   // first start and last end, ns
	MaxSOS      int64   // ns
	MeanSOS     float64 // ns
	AtMax       int     // processes whose SOS-time is MaxSOS
	Culprit     int     // location index of the one process with MaxSOS; -1 on a tie, with one process, or if MaxSOS is 0
	Recoverable float64 // MaxSOS - MeanSOS, ns
	Sync        int64   // synchronisation time summed over the processes, ns
}

// Ratio is MaxSOS / MeanSOS (1 is perfect balance; NaN when every SOS-time is 0).
func (it Iteration) Ratio() float64 { return float64(it.MaxSOS) / it.MeanSOS }

// ProcessSummary summarises one process's segments.
type ProcessSummary struct {
	Location int
	Segments int
	SOS      int64 // summed, ns
	Sync     int64 // summed, ns
	Slowest  int   // iterations in which it is the culprit (the one process with the largest SOS-time)
	Tied     int   // iterations in which it shares the largest SOS-time (above 0) with others
}

// Summarize builds a Result from the segments of procs (any order) for the function fn: the
// final, global stage of the analysis, after SegmentsOf on each process (possibly on other
// machines). It aligns the iterations (see the package comment) and sets each segment's
// Iteration. Candidates is empty unless the Result comes from Analyze.
func Summarize(tr *trace.Trace, procs []*trace.Process, fn int32, segs []Segment) *Result {
	segs = slices.Clone(segs)
	slices.SortFunc(segs, func(a, b Segment) int {
		if x := cmp.Compare(a.Location, b.Location); x != 0 {
			return x
		}
		if x := cmp.Compare(a.Invocation, b.Invocation); x != 0 {
			return x
		}
		return cmp.Compare(a.Start, b.Start)
	})
	return summarize(tr, procs, fn, segs)
}

// summarize is Summarize for segments in location and invocation order, which it keeps.
func summarize(tr *trace.Trace, procs []*trace.Process, fn int32, segs []Segment) *Result {
	r := &Result{tr: tr, procs: procs, fn: fn, segs: segs}
	at := map[int]int{} // location -> row of perProc
	for i, p := range procs {
		at[p.Index] = i
		r.perProc = append(r.perProc, ProcessSummary{Location: p.Index})
	}
	r.iters = make([]Iteration, align(segs))
	for i := range r.iters {
		r.iters[i] = Iteration{Index: i, Culprit: -1, MaxSOS: -1}
	}
	for _, s := range segs {
		x := &r.iters[s.Iteration]
		sos := s.SOS()
		if x.Processes == 0 {
			x.Start, x.End = s.Start, s.End
		}
		x.Processes++
		x.Start, x.End = min(x.Start, s.Start), max(x.End, s.End)
		x.MeanSOS += float64(sos)
		x.Sync += s.Sync
		switch {
		case sos > x.MaxSOS:
			x.MaxSOS, x.AtMax, x.Culprit = sos, 1, s.Location
		case sos == x.MaxSOS:
			x.AtMax++
		}
		if i, ok := at[s.Location]; ok {
			ps := &r.perProc[i]
			ps.Segments++
			ps.SOS += sos
			ps.Sync += s.Sync
		}
	}
	for i := range r.iters {
		x := &r.iters[i]
		x.MeanSOS /= float64(x.Processes)
		x.Recoverable = float64(x.MaxSOS) - x.MeanSOS
		// The culprit is the one process slower than all others: none on a tie, in an
		// iteration of one process, or when nothing is computed.
		if x.AtMax > 1 || x.Processes < 2 || x.MaxSOS <= 0 {
			x.Culprit = -1
		}
		if j, ok := at[x.Culprit]; ok {
			r.perProc[j].Slowest++
		}
	}
	for _, s := range segs {
		if x := &r.iters[s.Iteration]; x.AtMax > 1 && x.MaxSOS > 0 && s.SOS() == x.MaxSOS {
			if j, ok := at[s.Location]; ok {
				r.perProc[j].Tied++
			}
		}
	}
	return r
}

// Function returns the name of the segmenting function.
func (r *Result) Function() string { return r.tr.RegionName(r.fn) }

// SegmentList returns the segments, ordered by location and iteration. Shared; do not modify.
func (r *Result) SegmentList() []Segment { return r.segs }

// IterationList returns the per-iteration summaries. Shared; do not modify.
func (r *Result) IterationList() []Iteration { return r.iters }

// ProcessList returns the per-process summaries in trace order. Shared; do not modify.
func (r *Result) ProcessList() []ProcessSummary { return r.perProc }

// Culprit returns the process that is the culprit (the one slowest process) of the most
// iterations; nil without one, or when several processes are the culprit equally often.
func (r *Result) Culprit() *trace.Process {
	if c := r.culprits(); len(c) == 1 {
		return r.tr.Process(r.perProc[c[0]].Location)
	}
	return nil
}

// culprits returns the rows of perProc that are the culprit of the most iterations (at least
// one), in trace order.
func (r *Result) culprits() []int {
	var out []int
	for i, p := range r.perProc {
		switch {
		case p.Slowest == 0:
		case len(out) == 0 || p.Slowest > r.perProc[out[0]].Slowest:
			out = append(out[:0], i)
		case p.Slowest == r.perProc[out[0]].Slowest:
			out = append(out, i)
		}
	}
	return out
}

// Worst returns the iteration with the largest recoverable time (the lowest index on ties);
// ok is false without iterations.
func (r *Result) Worst() (it Iteration, ok bool) {
	best := -1
	for i, x := range r.iters {
		if x.Processes > 0 && (best < 0 || x.Recoverable > r.iters[best].Recoverable) {
			best = i
		}
	}
	if best < 0 {
		return Iteration{}, false
	}
	return r.iters[best], true
}
