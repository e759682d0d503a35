package trace

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
)

// Windows and phases (issue 32, "What to build": "Windows and phases as
// trace operations returning a *trace.Trace (same name, same definitions)
// that every builtin accepts ... calls cut by a window are clipped and
// marked, never dropped silently").
//
// A cut (Window, Between, Without, Main, Subset) returns a new *Trace that
// shares the definitions, the Path and the side tables (messages,
// collectives, metrics) of the trace it was cut from; times stay those of
// the full trace. Each process of the cut holds one contiguous range of
// its source's events, [Clip.Lo, Clip.Hi), plus the calls cut by the
// range's ends, clipped: a synthetic Enter at the cut's start for each
// call open before the range (outermost first) and a synthetic Leave at
// its end for each call still open after it (innermost first). Process.Clip
// counts them, Trace.Summary and the HTML summary say how many, and the
// call tree of a cut is the one of the clipped events (CallTree applies
// its repair rule to the range exactly as to the full trace, from the
// same open calls). When no call is cut, the event columns are sub-slices
// of the source's (nothing is copied); otherwise the range is copied once
// with its clipped calls (13 bytes an event). Cutting a cut cuts the
// original trace again: Clip.Source is always a process of the trace read
// or generated, so message matching can see the whole run.

// Cut says how a trace was cut from the trace read or generated
// (Trace.Cut; nil for that trace itself).
type Cut struct {
	Source *Trace   // the trace read or generated (never itself a cut)
	Steps  []string // the operations, in order: `Window(1s, 2s)`, `Between("solve", 2, 5)`, `Main()`, `Subset(0, 3)`
	// Subset is true when some of Source's processes are left out.
	// Process.Index keeps the location's index in Source (and in
	// Definitions.Locations) and Trace.Process(i) looks a location up by
	// that index: see Trace.Subset.
	Subset bool
}

// String is the operations joined: "Main() · Window(1s, 2s)".
func (c *Cut) String() string { return strings.Join(c.Steps, " · ") }

// Clip says which events of its source a process of a cut holds
// (Process.Clip; nil for a process of a trace read or generated).
//
// The process's events are Entered synthetic Enters at Start (the calls
// open before the range, outermost first), then the source's events
// [Lo, Hi), then Left synthetic Leaves at End (the calls still open after
// the range, innermost first). Event i of the process with
// Entered <= i < Entered+Hi-Lo is event Lo+i-Entered of Source. Calls
// still open at the end of the source itself are not clipped (Left counts
// none of them when Hi is the source's length): the call tree closes them
// at the last event and counts them in CallRepairs.OpenAtEnd, as for the
// source.
type Clip struct {
	Source     *Process // the process of Cut.Source
	Lo, Hi     int      // the source's events held
	Start, End int64    // ns: where clipped calls enter and leave
	Entered    int      // calls clipped at the start: synthetic Enters, events 0 .. Entered-1
	Left       int      // calls clipped at the end: synthetic Leaves, the last Left events
}

// Whole reports whether the process holds all of its source's events, unclipped.
func (c *Clip) Whole() bool {
	return c.Lo == 0 && c.Hi == len(c.Source.Kind) && c.Entered == 0 && c.Left == 0
}

// SourceIndex returns the index in Clip.Source of event i of the process,
// or -1 for a synthetic Enter or Leave.
func (c *Clip) SourceIndex(i int) int {
	j := i - c.Entered
	if j < 0 || j >= c.Hi-c.Lo {
		return -1
	}
	return c.Lo + j
}

// Root returns the trace t was cut from (t.Cut.Source), or t itself when it
// was read or generated.
func (t *Trace) Root() *Trace {
	if t.Cut != nil {
		return t.Cut.Source
	}
	return t
}

// Window returns the trace restricted to the time window [t0, t1): on every
// process, the events at t0 <= time < t1, the calls open at t0 entered at t0
// and those open at t1 left at t1 (clipped and counted, see Clip). Times
// are from the trace's start, as everywhere in the model: untyped
// constants are nanoseconds (tr.Window(2e9, 3e9)) or carry their unit
// (tr.Window(2*time.Second, 3*time.Second)); an int64 variable of ns is
// converted with time.Duration(x). A call that ends exactly at t0 lies
// outside the window (its Leave is not taken, it is not clipped); one that
// starts at t1 too. A cut's own range bounds a window of it: the window
// of a window is their intersection. Processes with no event in the window
// and no call open across it are kept, empty. It panics with a message
// naming the bad argument when t1 < t0.
func (t *Trace) Window(t0, t1 time.Duration) *Trace {
	if t1 < t0 {
		panic(fmt.Sprintf("trace.Window(%v, %v): the window ends before it starts", t0, t1))
	}
	a, b := int64(t0), int64(t1)
	return t.cut(fmt.Sprintf("Window(%v, %v)", t0, t1), func(p *Process) span {
		src, lo, hi := p, 0, len(p.Kind)
		start, end := a, b
		if c := p.Clip; c != nil { // in the source: its range, and this window
			src, lo, hi = c.Source, c.Lo, c.Hi
			start, end = max(start, c.Start), min(end, c.End)
		}
		l := lo + sort.Search(hi-lo, func(i int) bool { return src.Time[lo+i] >= a })
		h := lo + sort.Search(hi-lo, func(i int) bool { return src.Time[lo+i] >= b })
		return span{src: src, lo: l, hi: max(l, h), limit: hi, start: start, end: max(start, end), window: true}
	})
}

// span is one process's range of its root source.
type span struct {
	src        *Process
	lo, hi     int
	start, end int64
	// window: a Window's range, whose first Leaves at start closing calls
	// entered before it are dropped (such a call does not overlap it) and
	// which, empty, still holds the calls open across it.
	window bool
	limit  int // a Window's: the end of the events it may take (its source's range)
}

// Between returns the trace between the Enter and the Leave of region's
// invocations on each process: with no numbers, from the first invocation's
// Enter to the last one's Leave; Between(region, k) the k-th invocation
// alone; Between(region, from, to) invocations from .. to-1 (counted from 0,
// a half-open range as in a Go slice expression). Invocations are counted
// per process, in order, outermost only (a recursive call inside an
// invocation is part of it).
//
// SPMD runs: each process is cut at its own invocations (a per-process
// window), so every rank holds the same iterations even when the ranks
// reach them at different times (launch skew, imbalance); times stay those
// of the trace. A process without the region, or with fewer invocations
// than from+1, is kept with no events. For one time window over all
// processes instead, use tr.Window(tr.Span(region, ...)). Calls open at
// the invocation's Enter (main, ...) are clipped there, those open after
// its Leave clipped at the Leave (see Clip). It panics with a message
// naming the bad argument for an unknown region or bad numbers.
func (t *Trace) Between(region string, invocations ...int) *Trace {
	step := fmt.Sprintf("Between(%q%s)", region, intArgs(invocations))
	from, to := t.invocationRange("trace.Between", region, invocations)
	ids := t.regionIDs("trace.Between", region)
	return t.cut(step, func(p *Process) span {
		in := invocationsOf(p, ids, to)
		sp := span{src: p, lo: 0, hi: 0}
		if from < len(in) {
			last := in[min(to, len(in))-1]
			sp = span{src: p, lo: in[from].enter, hi: len(p.Kind), start: p.Time[in[from].enter], end: p.Time[len(p.Kind)-1]}
			if last.leave < len(p.Kind) { // else never left: to the end
				sp.hi, sp.end = last.leave+1, p.Time[last.leave]
			}
		}
		return rootSpan(p, sp)
	})
}

// Span returns the time span of region's invocations over all processes:
// from the earliest Enter of the first invocation selected (as in Between)
// to the latest Leave of the last, so that tr.Window(tr.Span("solve"))
// cuts every process at the same times. Both are 0 when no process has the
// region.
func (t *Trace) Span(region string, invocations ...int) (time.Duration, time.Duration) {
	from, to := t.invocationRange("trace.Span", region, invocations)
	ids := t.regionIDs("trace.Span", region)
	lo, hi, ok := int64(math.MaxInt64), int64(math.MinInt64), false
	for _, p := range t.procs {
		in := invocationsOf(p, ids, to)
		if from >= len(in) {
			continue
		}
		last := in[min(to, len(in))-1]
		end := p.Time[len(p.Time)-1]
		if last.leave < len(p.Kind) {
			end = p.Time[last.leave]
		}
		lo, hi, ok = min(lo, p.Time[in[from].enter]), max(hi, end), true
	}
	if !ok {
		return 0, 0
	}
	return time.Duration(lo), time.Duration(hi + 1) // [lo, hi]: the Leave at hi is inside the window
}

func (t *Trace) invocationRange(fn, region string, inv []int) (from, to int) {
	switch len(inv) {
	case 0:
		return 0, math.MaxInt
	case 1:
		if inv[0] < 0 {
			panic(fmt.Sprintf("%s(%q, %d): invocations are counted from 0", fn, region, inv[0]))
		}
		return inv[0], inv[0] + 1
	case 2:
		if inv[0] < 0 || inv[1] <= inv[0] {
			panic(fmt.Sprintf("%s(%q, %d, %d): want 0 <= from < to (invocations from .. to-1)", fn, region, inv[0], inv[1]))
		}
		return inv[0], inv[1]
	}
	panic(fmt.Sprintf("%s(%q, ...): want at most two numbers (from, to), got %d", fn, region, len(inv)))
}

// regionIDs returns the ids of the regions called name (a trace may define
// one name more than once); it panics naming the region when there is none.
func (t *Trace) regionIDs(fn, name string) []int32 {
	var ids []int32
	for i, r := range t.Defs.Regions {
		if r.Name == name {
			ids = append(ids, int32(i))
		}
	}
	if len(ids) == 0 {
		panic(fmt.Sprintf("%s: the trace has no region %q", fn, name))
	}
	return ids
}

func intArgs(v []int) string {
	var b strings.Builder
	for _, x := range v {
		b.WriteString(", " + strconv.Itoa(x))
	}
	return b.String()
}

// invocation is one outermost call of the regions looked for: the indices
// of its Enter and of the event that closed it (len(Kind) when never left).
type invocation struct{ enter, leave int }

// invocationsOf lists p's outermost invocations of the regions ids, the
// first max of them, by the call-tree repair rule.
func invocationsOf(p *Process, ids []int32, limit int) []invocation {
	var out []invocation
	var stack []int32
	var r CallRepairs
	open := -1 // depth of the open invocation, -1: none
	for i, k := range p.Kind {
		if i&(1<<20-1) == 1<<20-1 {
			work.Check()
		}
		switch k {
		case Enter:
			if open < 0 && slices.Contains(ids, p.Ref[i]) {
				if len(out) == limit {
					return out
				}
				open = len(stack)
				out = append(out, invocation{enter: i, leave: len(p.Kind)})
			}
			stack = append(stack, p.Ref[i])
		case Leave:
			if d := LeaveDepth(stack, p.Ref[i], &r); d >= 0 {
				stack = stack[:d]
				if open >= 0 && d <= open {
					out[len(out)-1].leave, open = i, -1
				}
			}
		}
	}
	return out
}

// rootSpan maps a range of p's own events (p may be a cut) to its root
// source: the clipped calls of p at the range's ends become calls clipped
// at the same times.
func rootSpan(p *Process, sp span) span {
	c := p.Clip
	if c == nil {
		return sp
	}
	n := c.Hi - c.Lo
	lo := c.Lo + min(max(sp.lo-c.Entered, 0), n)
	hi := c.Lo + min(max(sp.hi-c.Entered, 0), n)
	start, end := sp.start, sp.end
	if sp.lo < c.Entered { // starts among p's clipped Enters: at their time
		start = c.Start
	}
	if sp.hi > c.Entered+n { // ends among p's clipped Leaves
		end = c.End
	}
	if sp.lo >= sp.hi {
		lo, hi = c.Lo, c.Lo
	}
	return span{src: c.Source, lo: lo, hi: max(lo, hi), start: start, end: max(start, end), window: sp.window}
}

// DefaultSetup are the regions Main cuts away: the set-up and tear-down of
// MPI (MPI_Init, MPI_Init_thread, MPI_Finalize, MPI sessions) and of
// OpenSHMEM, the calls the roles of time (SyncClassifier.RoleOf) count as
// set-up/tear-down, less Score-P's own buffer flushes and measurement-off
// regions, which happen in the middle of a run.
var DefaultSetup = []string{"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Session_init", "MPI_Session_finalize",
	"shmem_init", "shmem_init_thread", "shmem_finalize", "start_pes"}

// Main returns the part of the run between set-up and tear-down:
// Without(DefaultSetup...).
func (t *Trace) Main() *Trace { return t.without("Main()", DefaultSetup) }

// Without returns the trace without the set-up and tear-down calls of the
// named regions (tr.Without("MPI_Init", "MPI_Finalize")): on each process,
// from the Leave of the last leading invocation of one of them to the Enter
// of the first trailing one. An invocation is leading when no work precedes
// it and trailing when no work follows it, work being every event outside
// the named invocations but Enters, Leaves of calls that hold a named
// invocation (main around MPI_Init), metric samples and ProgramBegin/End;
// so main is clipped at MPI_Init's Leave and MPI_Finalize's Enter, and
// invocations in the middle of the run are kept (cut those with a Window).
// A process without leading or trailing invocations keeps that end. Names
// the trace does not define are ignored; if it defines none of them, Without
// panics naming them.
func (t *Trace) Without(regions ...string) *Trace {
	var b strings.Builder
	for i, r := range regions {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(r))
	}
	return t.without("Without("+b.String()+")", regions)
}

func (t *Trace) without(step string, regions []string) *Trace {
	var ids []int32
	for i, r := range t.Defs.Regions {
		if slices.Contains(regions, r.Name) {
			ids = append(ids, int32(i))
		}
	}
	if len(ids) == 0 && !strings.HasPrefix(step, "Main") {
		panic(fmt.Sprintf("trace.%s: the trace defines none of these regions", step))
	}
	return t.cut(step, func(p *Process) span {
		lo, hi := mainRange(p, ids)
		sp := span{src: p, lo: lo, hi: hi}
		if lo < hi {
			sp.start, sp.end = p.Time[lo], p.Time[hi-1]
			if lo > 0 {
				sp.start = p.Time[lo-1] // the leading invocation's Leave
			}
			if hi < len(p.Kind) {
				sp.end = p.Time[hi] // the trailing invocation's Enter
			}
		} else if lo < len(p.Kind) {
			sp.start, sp.end = p.Time[lo], p.Time[lo]
		}
		return rootSpan(p, sp)
	})
}

// mainRange returns the events of p after its leading invocations of ids
// and before its trailing ones (see Without).
func mainRange(p *Process, ids []int32) (lo, hi int) {
	type frame struct {
		region int32
		named  bool // the call holds a named invocation
	}
	var stack []frame
	var regions []int32 // of the stack, for LeaveDepth
	var r CallRepairs
	open := -1 // depth of the open named invocation
	firstWork, lastWork := len(p.Kind), -1
	lastLeading, firstTrailing := -1, len(p.Kind) // Leave of the last leading invocation, Enter of the first invocation after the last work
	pendingEnter := -1                            // Enter of the last named invocation begun after the last work so far
	for i, k := range p.Kind {
		if i&(1<<20-1) == 1<<20-1 {
			work.Check()
		}
		isWork := false
		switch k {
		case Enter:
			if open < 0 && slices.Contains(ids, p.Ref[i]) {
				open = len(stack)
				for j := range stack {
					stack[j].named = true
				}
				if pendingEnter < 0 {
					pendingEnter = i
				}
			}
			stack = append(stack, frame{region: p.Ref[i]})
			regions = append(regions, p.Ref[i])
		case Leave:
			d := LeaveDepth(regions, p.Ref[i], &r)
			if d < 0 {
				isWork = open < 0
				break
			}
			if open < 0 {
				for _, f := range stack[d:] {
					if !f.named {
						isWork = true
					}
				}
			}
			stack, regions = stack[:d], regions[:d]
			if open >= 0 && d <= open {
				open = -1
				if firstWork == len(p.Kind) {
					lastLeading = i
				}
			}
		case Metric, ProgramBegin, ProgramEnd:
		default:
			isWork = open < 0
		}
		if isWork {
			firstWork = min(firstWork, i)
			lastWork, pendingEnter = i, -1
		}
	}
	if pendingEnter >= 0 {
		firstTrailing = pendingEnter
	}
	lo, hi = lastLeading+1, firstTrailing
	if lastLeading < 0 && pendingEnter < 0 && firstWork == len(p.Kind) { // no named invocation, no work: all kept
		return 0, len(p.Kind)
	}
	if lastWork < 0 { // no work at all: nothing between set-up and tear-down
		return lo, lo
	}
	return lo, max(lo, hi)
}

// Subset returns the trace of the given locations alone (indices into the
// trace's Definitions.Locations, as Process.Index; in the order given, no
// repeats). Indices stay global: each process keeps its Index (and so its
// label, rank and place), and Trace.Process(i) of the subset returns the
// process of location i, panicking if it is not in the subset; iterate
// Processes() for the subset's own order. Builtins that take
// WithProcesses still take processes of any trace. Messages whose partner
// is not in the subset are matched in the whole run and counted as cut
// (profile.Messages).
func (t *Trace) Subset(locations ...int) *Trace {
	seen := map[int]bool{}
	var ps []*Process
	for _, i := range locations {
		if seen[i] {
			panic(fmt.Sprintf("trace.Subset: location %d given twice", i))
		}
		seen[i] = true
		ps = append(ps, t.Process(i))
	}
	step := "Subset(" + strings.TrimPrefix(intArgs(locations), ", ") + ")"
	nt := t.cutProcs(step, ps, func(p *Process) span {
		return rootSpan(p, span{src: p, lo: 0, hi: len(p.Kind), start: firstTime(p), end: lastTime(p)})
	})
	nt.Cut.Subset = len(ps) < t.Root().NumProcesses()
	return nt
}

func firstTime(p *Process) int64 {
	if len(p.Time) == 0 {
		return 0
	}
	return p.Time[0]
}

func lastTime(p *Process) int64 {
	if len(p.Time) == 0 {
		return 0
	}
	return p.Time[len(p.Time)-1]
}

// cut applies f to every process of t.
func (t *Trace) cut(step string, f func(p *Process) span) *Trace {
	nt := t.cutProcs(step, t.procs, f)
	nt.Cut.Subset = t.Cut != nil && t.Cut.Subset
	return nt
}

// cutProcs builds the cut of procs (processes of t) whose ranges f gives,
// the processes in parallel, each a job's step.
func (t *Trace) cutProcs(step string, procs []*Process, f func(p *Process) span) *Trace {
	for _, p := range procs {
		p.NeedEvents("trace." + step[:strings.IndexByte(step, '(')])
	}
	root := t.Root()
	c := &Cut{Source: root, Steps: []string{step}}
	if t.Cut != nil {
		c.Steps = append(slices.Clone(t.Cut.Steps), step)
	}
	out := make([]*Process, len(procs))
	var total int64
	for _, p := range procs {
		total += int64(len(p.Kind))
	}
	job := work.Start("trace."+step[:strings.IndexByte(step, '(')], total, "events")
	defer job.Done()
	work.Each(len(procs), func(_, i int) {
		p := procs[i]
		out[i] = clip(p, f(p))
		if err := job.Add(int64(len(p.Kind))); err != nil {
			panic(err)
		}
	})
	// metric streams and damaged locations are the run's, shared (a
	// stream's samples are not cut)
	nt := &Trace{Defs: t.Defs, Path: t.Path, procs: out, Cut: c, streams: root.streams, damaged: root.damaged}
	for _, p := range out {
		p.Trace = nt
	}
	if len(procs) != len(root.procs) || t.Cut != nil && t.Cut.Subset {
		nt.indexByProcess()
	}
	return nt
}

// clip builds the process of p (a process of the cut's input) holding the
// range sp of its root source.
func clip(p *Process, sp span) *Process {
	src := sp.src
	lo, hi := sp.lo, sp.hi
	var stack []int32 // regions of the open calls
	var r CallRepairs
	replay := func(a, b int) {
		for i := a; i < b; i++ {
			if i&(1<<20-1) == 1<<20-1 {
				work.Check()
			}
			switch src.Kind[i] {
			case Enter:
				stack = append(stack, src.Ref[i])
			case Leave:
				if d := LeaveDepth(stack, src.Ref[i], &r); d >= 0 {
					stack = stack[:d]
				}
			}
		}
	}
	whole := lo == 0 && hi == len(src.Kind)
	empty := lo >= hi && (!sp.window || lo == 0 || lo >= len(src.Kind)) // nothing, not even a call across it
	var entered, left []int32
	if !whole && !empty {
		replay(0, lo)
		if sp.window {
			for lo < sp.limit && src.Kind[lo] == Leave && src.Time[lo] == sp.start && len(stack) > 0 {
				d := LeaveDepth(stack, src.Ref[lo], &r)
				if d < 0 {
					break
				}
				stack = stack[:d]
				lo++
			}
			hi = max(lo, hi)
		}
		if lo < len(src.Kind) { // else only Leaves at start were left: nothing
			entered = slices.Clone(stack)
		}
		if hi < len(src.Kind) { // calls open at the source's end are its own (CallRepairs.OpenAtEnd)
			replay(lo, hi)
			left = stack
		}
	}
	if empty {
		hi = lo
	}
	q := &Process{Index: p.Index, Location: p.Location, Rank: p.Rank, Thread: p.Thread, Name: p.Name, Msgs: src.Msgs, Colls: src.Colls, Metrics: src.Metrics}
	q.Clip = &Clip{Source: src, Lo: lo, Hi: hi, Start: sp.start, End: sp.end, Entered: len(entered), Left: len(left)}
	if whole {
		q.Skipped = src.Skipped
	}
	if len(entered) == 0 && len(left) == 0 {
		q.Kind, q.Time, q.Ref = src.Kind[lo:hi:hi], src.Time[lo:hi:hi], src.Ref[lo:hi:hi]
		return q
	}
	n := len(entered) + (hi - lo) + len(left)
	if err := work.Reserve("trace.Window", 13*int64(n)); err != nil {
		work.FailErr("trace.Window", err)
	}
	q.Kind, q.Time, q.Ref = make([]EventKind, n), make([]int64, n), make([]int32, n)
	e := len(entered)
	for i, reg := range entered {
		q.Kind[i], q.Time[i], q.Ref[i] = Enter, sp.start, reg
	}
	copy(q.Kind[e:], src.Kind[lo:hi])
	copy(q.Time[e:], src.Time[lo:hi])
	copy(q.Ref[e:], src.Ref[lo:hi])
	for i := range left {
		j := e + hi - lo + i
		q.Kind[j], q.Time[j], q.Ref[j] = Leave, sp.end, left[len(left)-1-i]
	}
	return q
}

// Clipped returns the calls clipped at the start and at the end of a cut
// over all its processes, and the processes with any (0, 0, 0 for a trace
// read or generated).
func (t *Trace) Clipped() (atStart, atEnd int64, procs int) {
	for _, p := range t.procs {
		if c := p.Clip; c != nil {
			atStart += int64(c.Entered)
			atEnd += int64(c.Left)
			if c.Entered+c.Left > 0 {
				procs++
			}
		}
	}
	return
}

// cutLine is the summary's sentence on a cut, after "cut ": the steps, the
// source, the clipped calls and the processes left empty; "" for a trace
// read or generated.
func (t *Trace) cutLine() string {
	if t.Cut == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s processes, %s events", t.Cut, arrowio.FormatCount(int64(t.Cut.Source.NumProcesses())),
		arrowio.FormatCount(t.Cut.Source.NumEvents()))
	s, e, n := t.Clipped()
	if s+e > 0 {
		fmt.Fprintf(&b, "; calls clipped on %s processes: %s at the start (entered before it), %s at the end (left after it)",
			arrowio.FormatCount(int64(n)), arrowio.FormatCount(s), arrowio.FormatCount(e))
	} else {
		b.WriteString("; no call clipped")
	}
	empty := 0
	for _, p := range t.procs {
		if len(p.Kind) == 0 {
			empty++
		}
	}
	if empty > 0 {
		fmt.Fprintf(&b, "; %s processes empty", arrowio.FormatCount(int64(empty)))
	}
	return b.String()
}
