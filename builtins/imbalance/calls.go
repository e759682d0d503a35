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

// Calls is the first, per-process stage of the dominant-function search (6.2.1): per region id
// of one trace, the number of invocations and their aggregated inclusive time over a set of
// processes (an invocation inside an invocation of the same function is part of it, see the
// package comment). It is round 0's partial of the method "imbalance.analyze" (Method):
// partial counts of disjoint process subsets add up with Merge.
type Calls struct {
	Processes int     // processing elements counted
	Count     []int64 // invocations per region id
	Inclusive []int64 // aggregated inclusive time per region id, ns
	Events    int64   // events read

	procs []int32 // the processes counted (trace.Process.Index), ascending
	odd   []int32 // those of procs that do not nest properly (need call-stack repairs), ascending
}

// CountCalls counts the invocations of every region on procs (all of one trace), one pass over
// each process's events, one subset of the processes per core (part.RunRound of Method's
// round 0).
func CountCalls(procs []*trace.Process) *Calls {
	const fn = "imbalance.CountCalls"
	defer work.RecoverAs(fn)
	nreg := regionCount(fn, procs)
	job := work.Start("counting calls", eventCount(procs), "events")
	defer job.Done()
	return countCalls(fn, procs, &method{fn: -1, sync: make([]bool, nreg), job: job})
}

// countCalls runs m's round 0 over procs on all cores.
func countCalls(fn string, procs []*trace.Process, m *method) *Calls {
	p, err := part.RunRound(procs[0].Trace, procs, m, 0, nil)
	if err != nil {
		failErr(fn, err)
	}
	return p.(*Calls)
}

// Merge adds o, the counts of a disjoint set of processes of the same trace, into c. Counts
// of processes present in both, or of another kind of partial, are an error (c is unchanged
// then).
func (c *Calls) Merge(o part.Partial) error {
	const fn = "imbalance.Calls.Merge"
	oc, ok := o.(*Calls)
	if !ok {
		return part.Mismatch("imbalance.Calls", c, o)
	}
	procs, err := part.UnionProcesses(fn, c.procs, oc.procs)
	if err != nil {
		return err
	}
	if n := len(oc.Count); n > len(c.Count) {
		c.Count = append(c.Count, make([]int64, n-len(c.Count))...)
		c.Inclusive = append(c.Inclusive, make([]int64, n-len(c.Inclusive))...)
	}
	for r := range oc.Count {
		c.Count[r] += oc.Count[r]
		c.Inclusive[r] += oc.Inclusive[r]
	}
	c.Processes += oc.Processes
	c.Events += oc.Events
	c.procs = procs
	c.odd, _ = part.UnionProcesses(fn, c.odd, oc.odd)
	return nil
}

// callsVersion is the layout version of Calls.MarshalBinary.
const callsVersion = 1

// MarshalBinary encodes the counts (layout version 1): processes, events, counts and
// inclusive times per region, the processes counted and those that need call-stack repairs.
func (c *Calls) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(callsVersion)
	e.Uint(uint64(c.Processes))
	e.Int(c.Events)
	part.Ints(&e, c.Count)
	part.Ints(&e, c.Inclusive)
	part.Ints(&e, c.procs)
	part.Ints(&e, c.odd)
	return e.B, nil
}

// decodeCalls reads Calls.MarshalBinary.
func decodeCalls(b []byte) (*Calls, error) {
	d := part.NewDec(b)
	d.Version("Calls", callsVersion)
	np := d.Uint()
	c := &Calls{Events: d.Int()}
	c.Count = part.ReadInts[int64](d)
	c.Inclusive = part.ReadInts[int64](d)
	c.procs = part.ReadInts[int32](d)
	c.odd = part.ReadInts[int32](d)
	if err := d.Done(); err != nil {
		return nil, work.Errorf("imbalance.Calls", "decoding: %v", err)
	}
	switch {
	case np > 1<<40 || np < uint64(len(c.procs)):
		return nil, work.Errorf("imbalance.Calls", "decoding: %d processes counted, %d listed", np, len(c.procs))
	case len(c.Count) != len(c.Inclusive):
		return nil, work.Errorf("imbalance.Calls", "decoding: %d counts but %d inclusive times", len(c.Count), len(c.Inclusive))
	case !ascending(c.procs) || !ascending(c.odd):
		return nil, work.Errorf("imbalance.Calls", "decoding: process lists out of order")
	}
	c.Processes = int(np)
	return c, nil
}

// ascending reports whether s is strictly ascending.
func ascending(s []int32) bool {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return true
}

// Table returns one row per region invoked, as Ranked orders them: Region (the region id),
// Invocations, Inclusive (ns), and whether it is Eligible (Invoked >= 2p).
func (c *Calls) Table() *arrowio.Table {
	ids := c.Ranked()
	n := len(ids)
	calls, incl := make([]int64, n), make([]int64, n)
	elig := make([]bool, n)
	for i, r := range ids {
		calls[i], incl[i], elig[i] = c.Count[r], c.Inclusive[r], c.Eligible(r)
	}
	return arrowio.MustTable(arrowio.Int32("Region", slices.Clone(ids)), arrowio.Int64("Invocations", calls),
		arrowio.Int64("Inclusive (ns)", incl).WithUnit("ns"), arrowio.Bool("Invoked >= 2p", elig))
}

// String summarises the counts: "calls of 3 processes: 7 regions invoked, 90 events".
func (c *Calls) String() string {
	return fmt.Sprintf("calls of %d processes: %d regions invoked, %s events", c.Processes, len(c.Ranked()), arrowio.FormatCount(c.Events))
}

// Ranked returns the region ids that were invoked, by aggregated inclusive time (largest
// first), then by invocations (more first), then by id.
func (c *Calls) Ranked() []int32 {
	var ids []int32
	for r, n := range c.Count {
		if n > 0 {
			ids = append(ids, int32(r))
		}
	}
	slices.SortFunc(ids, func(a, b int32) int {
		if x := cmp.Compare(c.Inclusive[b], c.Inclusive[a]); x != 0 {
			return x
		}
		if x := cmp.Compare(c.Count[b], c.Count[a]); x != 0 {
			return x
		}
		return cmp.Compare(a, b)
	})
	return ids
}

// Eligible reports whether region r is invoked at least 2p times for the p processes counted.
func (c *Calls) Eligible(r int32) bool {
	return r >= 0 && int(r) < len(c.Count) && c.Count[r] > 0 && c.Count[r] >= 2*int64(c.Processes)
}

// Qualifies reports whether region r may be the dominant function: it is Eligible and not
// left out by skip (skip[r] true; nil leaves out nothing). Analyze leaves out the
// synchronisation regions (trace.SyncClassifier.Regions) unless WithSyncCandidates.
func (c *Calls) Qualifies(r int32, skip []bool) bool {
	return c.Eligible(r) && !(int(r) < len(skip) && skip[r])
}

// Dominant returns the time-dominant function of 6.2.1 among the regions skip does not leave
// out: the first of Ranked that Qualifies, or -1 if none does.
func (c *Calls) Dominant(skip []bool) int32 {
	for _, r := range c.Ranked() {
		if c.Qualifies(r, skip) {
			return r
		}
	}
	return -1
}

// counter is one worker's pass state: per region the open invocations, and the call stack.
type counter struct {
	Calls
	open  []int32 // open invocations per region
	reg   []int32 // call stack: region ids, outermost first
	start []int64 // enter times
}

func newCounter(nreg int) *counter {
	return &counter{Calls: Calls{Count: make([]int64, nreg), Inclusive: make([]int64, nreg)}, open: make([]int32, nreg)}
}

// chunk is how many events a pass reads between progress reports and interrupt checks.
const chunk = 1 << 16

// process counts p's calls and reports whether p nests properly (no repair was needed).
func (c *counter) process(p *trace.Process, job *work.Job) bool {
	c.Processes++
	c.Events += int64(len(p.Kind))
	c.procs = append(c.procs, int32(p.Index))
	reg, start := c.reg[:0], c.start[:0]
	open := c.open
	nreg := uint32(len(open))
	times, refs := p.Time, p.Ref
	var repairs trace.CallRepairs
	anonymous := false // a Leave without a region closed the innermost call
	for i, k := range p.Kind {
		if i&(chunk-1) == chunk-1 {
			if err := job.Add(chunk); err != nil {
				panic(err)
			}
		}
		switch k {
		case trace.Enter:
			r := refs[i]
			if uint32(r) >= nreg {
				r = -1
			} else {
				open[r]++
			}
			reg, start = append(reg, r), append(start, times[i])
		case trace.Leave:
			if d := trace.LeaveDepth(reg, refs[i], &repairs); d >= 0 {
				anonymous = anonymous || refs[i] < 0
				reg, start = c.closeTo(reg, start, d, times[i])
			}
		}
	}
	job.Add(int64(len(p.Kind) % chunk))
	leftOpen := len(reg)
	if n := len(p.Time); n > 0 {
		reg, start = c.closeTo(reg, start, 0, p.Time[n-1])
	}
	c.reg, c.start = reg, start
	return repairs.IsZero() && leftOpen == 0 && !anonymous
}

// closeTo closes the open calls above depth d at time t.
func (c *counter) closeTo(reg []int32, start []int64, d int, t int64) ([]int32, []int64) {
	for n := len(reg); n > d; n-- {
		if q := reg[n-1]; q >= 0 {
			if c.open[q]--; c.open[q] == 0 {
				c.Count[q]++
				c.Inclusive[q] += t - start[n-1]
			}
		}
	}
	return reg[:d], start[:d]
}

// regionCount checks that procs belong to one trace and returns its number of regions.
func regionCount(fn string, procs []*trace.Process) int {
	if len(procs) == 0 {
		fail(fn, "no processes to analyse")
	}
	tr := procs[0].Trace
	for i, p := range procs {
		if p == nil {
			fail(fn, "process %d is nil", i)
		}
		if p.Trace != tr {
			fail(fn, "process %s belongs to another trace than %s", p, procs[0])
		}
	}
	if tr == nil || tr.Defs == nil {
		fail(fn, "process %s has no trace definitions", procs[0])
	}
	return len(tr.Defs.Regions)
}

func eventCount(procs []*trace.Process) int64 {
	var n int64
	for _, p := range procs {
		n += int64(len(p.Kind))
	}
	return n
}
