package imbalance

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Calls is the first, per-process stage of the dominant-function search (6.2.1): per region id
// of one trace, the number of invocations and their aggregated inclusive time over a set of
// processes (an invocation inside an invocation of the same function is part of it, see the
// package comment). Partial results of disjoint process subsets add up with Merge.
type Calls struct {
	Processes int     // processing elements counted
	Count     []int64 // invocations per region id
	Inclusive []int64 // aggregated inclusive time per region id, ns
	Events    int64   // events read
}

// CountCalls counts the invocations of every region on procs (all of one trace), one pass over
// each process's events.
func CountCalls(procs []*trace.Process) *Calls {
	const fn = "imbalance.CountCalls"
	defer work.RecoverAs(fn)
	nreg := regionCount(fn, procs)
	job := work.Start("counting calls", eventCount(procs), "events")
	defer job.Done()
	return countCalls(procs, nreg, job)
}

// countCalls counts on all cores, each worker a fixed share of the processes, and merges the
// workers' partial counts.
func countCalls(procs []*trace.Process, nreg int, job *work.Job) *Calls {
	c, _ := countCallsNested(procs, nreg, job)
	return c
}

// countCallsNested is countCalls that also tells which processes nest properly (need no
// call-stack repair).
func countCallsNested(procs []*trace.Process, nreg int, job *work.Job) (*Calls, []bool) {
	nested := make([]bool, len(procs))
	workers := min(len(procs), 2)
	parts := make([]*Calls, workers)
	work.Parallel(workers, func(w int) {
		c := newCounter(nreg)
		for i := w; i < len(procs); i += workers {
			nested[i] = c.process(procs[i], job)
		}
		parts[w] = &c.Calls
	})
	out := parts[0]
	for _, p := range parts[1:] {
		out = out.Merge(p)
	}
	return out, nested
}

// Merge returns the sum of c and o, partial counts of disjoint sets of processes of one trace.
func (c *Calls) Merge(o *Calls) *Calls {
	n := max(len(c.Count), len(o.Count))
	out := &Calls{Processes: c.Processes + o.Processes, Events: c.Events + o.Events,
		Count: make([]int64, n), Inclusive: make([]int64, n)}
	for _, s := range []*Calls{c, o} {
		for r := range s.Count {
			out.Count[r] += s.Count[r]
			out.Inclusive[r] += s.Inclusive[r]
		}
	}
	return out
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
