// Package tracetest has the traces tests share: locations written by hand
// as lists of calls, and random locations whose call stacks need the call
// tree's repairs. It is for tests only; notebooks have no use for it.
package tracetest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Call is one call of a hand-made location: {region, enter, leave}, the
// region's index and its Enter and Leave times (ns). An array, so that
// lists of calls stay short: Process(Call{0, 0, 110}, Call{1, 10, 40}).
type Call [3]int64

// Process returns a location holding calls, given in pre-order (each call
// after the call it is nested in, siblings by time): the Enter and Leave
// events are written by a stack, a call being left before the next call
// entered at or after its Leave. Calls must nest; a call's Leave may equal
// its successor's Enter.
func Process(calls ...Call) *trace.Process {
	p := &trace.Process{}
	var open []Call
	closeUntil := func(t int64) {
		for len(open) > 0 && open[len(open)-1][2] <= t {
			c := open[len(open)-1]
			open = open[:len(open)-1]
			p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, c[2]), append(p.Ref, int32(c[0]))
		}
	}
	for _, c := range calls {
		closeUntil(c[1])
		p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, c[1]), append(p.Ref, int32(c[0]))
		open = append(open, c)
	}
	closeUntil(math.MaxInt64)
	return p
}

// Trace returns a trace over regions named names (region i is names[i],
// role "function", paradigm "user") whose processes are procs, process i
// being rank i named "rank i".
func Trace(names []string, procs ...*trace.Process) *trace.Trace {
	d := &trace.Definitions{}
	for _, n := range names {
		d.Regions = append(d.Regions, trace.Region{Name: n, Role: "function", Paradigm: "user"})
	}
	for i, p := range procs {
		p.Rank, p.Name = int32(i), fmt.Sprintf("rank %d", i)
	}
	return trace.NewTrace(d, procs)
}

// RandomRegions is the number of regions of RandomTrace, named r0..r5.
const RandomRegions = 6

// RandomTrace returns procs random locations of up to events events each
// over the regions r0..r5: mostly nested calls, and some Leaves of the
// wrong region or without a call (the call tree repairs them), calls left
// open at the end, and MpiSend instants (message row 0 to peer 0, tag 1,
// 8 bytes). With distinct every event has its own time; otherwise many
// share times. The same rng state gives the same trace.
func RandomTrace(rng *rand.Rand, procs, events int, distinct bool) *trace.Trace {
	defs := &trace.Definitions{}
	for i := range RandomRegions {
		defs.Regions = append(defs.Regions, trace.Region{Name: fmt.Sprintf("r%d", i)})
	}
	var ps []*trace.Process
	for range procs {
		p := &trace.Process{}
		var stack []int32
		t := int64(rng.IntN(5))
		for range rng.IntN(events + 1) {
			if distinct || rng.IntN(3) > 0 {
				t += 1 + int64(rng.IntN(4))
			}
			switch x := rng.IntN(20); {
			case x < 9:
				r := int32(rng.IntN(RandomRegions))
				stack = append(stack, r)
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, t), append(p.Ref, r)
			case x < 17 && len(stack) > 0:
				r := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, r)
			case x < 18:
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, int32(rng.IntN(RandomRegions))) // may need a repair
			default:
				row := p.Msgs.Add(0, 0, 1, 8, 0)
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.MpiSend), append(p.Time, t), append(p.Ref, row)
			}
		}
		ps = append(ps, p)
	}
	return trace.NewTrace(defs, ps)
}
