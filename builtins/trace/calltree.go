package trace

import (
	"math"
	"sort"

	"github.com/tracebook/tracebook/arrowio"
)

// CallTree is the call tree of one Process in pre-order, stored in columns.
// Node 0 is the virtual root ε (Region -1, Depth 0, Parent -1) spanning the
// first to the last event; every Enter is one node below it.
// The children of node i are i+1, End[i+1], End[End[i+1]], ... while < End[i].
//
// OTF2 requires proper nesting, but real traces break it: Score-P traces can
// end with calls never left (a run killed before its Leaves), and tables may
// lose or reorder events. The builder repairs each location's call stack by
// one rule, and counts every repair in Repairs (see CallRepairs):
//
//   - A Leave of the innermost open call's region closes that call.
//   - A Leave of the region of an enclosing open call (the innermost such,
//     for recursion) closes that call and every call opened inside it, all
//     at the Leave's time; the inner ones were never left.
//   - A Leave whose region matches no open call, or that comes while no
//     call is open, is ignored.
//   - Calls still open after the last event are closed at the time of the
//     location's last event (of any kind).
//   - A Leave whose Ref is negative (region unknown, as in hand-built
//     processes) closes the innermost call; it cannot be checked.
//
// Matching by region rather than closing the innermost call on any Leave
// keeps a lost Leave from shifting every later Leave onto the wrong call.
type CallTree struct {
	Region []int32 // region id per node, -1 for ε
	Parent []int32 // parent node, -1 for ε
	End    []int32 // one past the last node of the subtree
	Depth  []int32 // 0 for ε, 1 for top-level calls
	Enter  []int64 // ns
	Leave  []int64 // ns

	// Repairs counts the mismatched Enter/Leave events of the location and
	// how the tree was repaired; zero for a properly nested location.
	Repairs CallRepairs
}

// Len returns the number of nodes, ε included.
func (c *CallTree) Len() int { return len(c.Region) }

// Inclusive returns the duration of node i in ns.
func (c *CallTree) Inclusive(i int) int64 { return c.Leave[i] - c.Enter[i] }

// Exclusive returns the duration of node i minus its children's, in ns.
func (c *CallTree) Exclusive(i int) int64 {
	d := c.Leave[i] - c.Enter[i]
	for j := i + 1; j < int(c.End[i]); j = int(c.End[j]) {
		d -= c.Leave[j] - c.Enter[j]
	}
	return d
}

// Children returns the child nodes of node i (a new slice).
func (c *CallTree) Children(i int) []int32 {
	var out []int32
	for j := i + 1; j < int(c.End[i]); j = int(c.End[j]) {
		out = append(out, int32(j))
	}
	return out
}

// NumChildren returns the number of children of node i.
func (c *CallTree) NumChildren(i int) int {
	n := 0
	for j := i + 1; j < int(c.End[i]); j = int(c.End[j]) {
		n++
	}
	return n
}

// CallTree returns p's call tree, computed on first use and cached.
func (p *Process) CallTree() *CallTree {
	p.NeedEvents("CallTree")
	p.treeOnce.Do(func() { p.tree = buildCallTree(p.Kind, p.Time, p.Ref) })
	return p.tree
}

func buildCallTree(kind []EventKind, times []int64, ref []int32) *CallTree {
	n := 1
	for _, k := range kind {
		if k == Enter {
			n++
		}
	}
	if n > math.MaxInt32 {
		panic("trace: call tree larger than 2^31 nodes")
	}
	c := &CallTree{
		Region: make([]int32, 1, n), Parent: make([]int32, 1, n), End: make([]int32, n),
		Depth: make([]int32, 1, n), Enter: make([]int64, 1, n), Leave: make([]int64, n),
	}
	c.Region[0], c.Parent[0] = -1, -1
	var first, last int64
	if len(times) > 0 {
		first, last = times[0], times[len(times)-1]
	}
	c.Enter[0] = first
	stack := []int32{0}
	closeAbove := func(depth int, t int64) { // closes the calls above stack[:depth]
		for len(stack) > depth {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c.Leave[top] = t
			c.End[top] = int32(len(c.Region))
		}
	}
	for i, k := range kind {
		switch k {
		case Enter:
			top := stack[len(stack)-1]
			id := int32(len(c.Region))
			c.Region = append(c.Region, ref[i])
			c.Parent = append(c.Parent, top)
			c.Depth = append(c.Depth, int32(len(stack)))
			c.Enter = append(c.Enter, times[i])
			stack = append(stack, id)
		case Leave:
			// stack[0] is ε: open call d is stack[d+1].
			if n := len(stack); n > 1 && (ref[i] < 0 || c.Region[stack[n-1]] == ref[i]) { // the common case, inline
				top := stack[n-1]
				stack = stack[:n-1]
				c.Leave[top] = times[i]
				c.End[top] = int32(len(c.Region))
			} else if d := matchLeave(n-1, ref[i], func(d int) int32 { return c.Region[stack[d+1]] }, &c.Repairs); d >= 0 {
				closeAbove(d+1, times[i])
			}
		}
	}
	c.Repairs.OpenAtEnd = int64(len(stack) - 1)
	closeAbove(0, last)
	return c
}

// Sequence returns the flat pre-order sequence of region ids of p's calls
// (the call tree without ε), the input of flat alignment. Shared; do not modify.
func (p *Process) Sequence() []int32 { return p.CallTree().Region[1:] }

// Pair is a caller->callee relation; Caller is -1 for the virtual root ε.
type Pair struct {
	Caller int32
	Callee int32
}

// Pairs returns the set of caller->callee region pairs of p's call tree,
// including (ε, r) for top-level regions r, sorted by (Caller, Callee).
// Computed once and cached; do not modify.
func (p *Process) Pairs() []Pair {
	p.NeedEvents("Pairs")
	p.pairsOnce.Do(func() {
		c := p.CallTree()
		seen := make(map[Pair]struct{})
		for i := 1; i < c.Len(); i++ {
			seen[Pair{c.Region[c.Parent[i]], c.Region[i]}] = struct{}{}
		}
		out := make([]Pair, 0, len(seen))
		for q := range seen {
			out = append(out, q)
		}
		sort.Slice(out, func(i, j int) bool {
			if out[i].Caller != out[j].Caller {
				return out[i].Caller < out[j].Caller
			}
			return out[i].Callee < out[j].Callee
		})
		p.pairs = out
	})
	return p.pairs
}

// RegionStat is the invocation statistics of one region on one process.
// Times exclude the intervals during which the measurement was off
// (Process.MeasurementOffIntervals): an off interval inside a call is not
// time of that call, of its callers (Inclusive) nor of the innermost one
// (Exclusive), since the trace does not say what ran then. The call tree
// itself keeps the recorded Enter and Leave times.
type RegionStat struct {
	Region    int32
	Calls     int64
	Inclusive int64 // ns, summed over all invocations (recursive calls count again)
	Exclusive int64 // ns
	Min, Max  int64 // inclusive ns of the shortest and longest invocation
}

// RegionStats returns per-region statistics of p ordered by region id,
// for regions called at least once. Computed once and cached.
func (p *Process) RegionStats() []RegionStat {
	p.NeedEvents("RegionStats")
	p.statsOnce.Do(func() {
		c := p.CallTree()
		idx := make(map[int32]int)
		var out []RegionStat
		var offIn, offEx []int64 // off time inside each call, and not inside its callees
		if off := p.MeasurementOffIntervals(); len(off) > 0 {
			cov := newOffCover(off)
			offIn, offEx = make([]int64, c.Len()), make([]int64, c.Len())
			for i := 1; i < c.Len(); i++ {
				offIn[i] = cov.overlap(c.Enter[i], c.Leave[i])
				offEx[i] += offIn[i]
				offEx[c.Parent[i]] -= offIn[i]
			}
		}
		for i := 1; i < c.Len(); i++ {
			r := c.Region[i]
			j, ok := idx[r]
			if !ok {
				j = len(out)
				idx[r] = j
				out = append(out, RegionStat{Region: r, Min: math.MaxInt64, Max: math.MinInt64})
			}
			s := &out[j]
			inc, exc := c.Inclusive(i), c.Exclusive(i)
			if offIn != nil {
				inc, exc = inc-offIn[i], exc-offEx[i]
			}
			s.Calls++
			s.Inclusive += inc
			s.Exclusive += exc
			s.Min = min(s.Min, inc)
			s.Max = max(s.Max, inc)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Region < out[j].Region })
		p.stats = out
	})
	return p.stats
}

// Profile returns a flat profile table: per process (location) and function, the number of
// calls and the summed inclusive and exclusive time. Columns: Process (the short label, "rank
// 3" or "rank 3 thread 2", see Process.Label), Function, Calls, Inclusive (ns) and Exclusive
// (ns) (int64 ns, marked with unit "ns" so they read as durations), then Rank, Thread and
// Process name (the full name, "MPI Rank 3 / Thread 2").
func (t *Trace) Profile() *arrowio.Table {
	var rank, thread []int32
	var label, pname, fn []string
	var calls, inc, exc []int64
	for _, p := range t.procs {
		l := p.Label()
		for _, s := range p.RegionStats() {
			label = append(label, l)
			pname = append(pname, p.Name)
			rank = append(rank, p.Rank)
			thread = append(thread, p.Thread)
			fn = append(fn, t.RegionName(s.Region))
			calls = append(calls, s.Calls)
			inc = append(inc, s.Inclusive)
			exc = append(exc, s.Exclusive)
		}
	}
	return arrowio.MustTable(
		arrowio.Dict(ColProcess, label), arrowio.Dict("Function", fn), arrowio.Int64("Calls", calls),
		arrowio.Int64("Inclusive (ns)", inc).WithUnit("ns"), arrowio.Int64("Exclusive (ns)", exc).WithUnit("ns"),
		arrowio.Int32("Rank", rank), arrowio.Int32(ColThread, thread), arrowio.Dict("Process name", pname))
}
