package waits

import (
	"cmp"
	"slices"
	"sync"

	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/trace"
)

// Delay is the delay cost of one call path (Böhme et al. 2010): the waiting
// time elsewhere that the excess time of this call path on the culprits
// caused, directly in waits of kind Kind or through the waits those
// passed the cost on to (see the package notes).
type Delay struct {
	Kind Kind
	Path string // the call path on the culprit, "main → solve → compute"
	Cost int64  // ns
}

// Result is the wait-state analysis of one trace (Analyze).
type Result struct {
	Messages       int64 // matched point-to-point messages
	UnmatchedSends int64 // sends without a receive in the trace
	UnmatchedRecvs int64 // receives without a send in the trace
	Collectives    int64 // collective instances (the k-th operation of every participant on a communicator)

	tr    *trace.Trace
	procs []*trace.Process
	pc    []*procCalls // the per-location parts, by location index

	pParent, pRegion []int32   // the global call paths (0: outside every region)
	gmap             [][]int32 // per part: local path -> global path

	t0, tEnd int64
	endAt    int32 // the part with the last event, -1 for an empty trace

	mpi     []bool     // per region id: an MPI region (mpiRegions)
	inst    []instance // point-to-point ones first, then the collectives'
	order   []int32    // inst by location, call, kind
	msgs    *p2p.Messages
	skipped map[string]int64 // what could not be analysed, by reason

	// collective instances: members collAt[collStart[i]:collStart[i+1]]
	// (by location), their calls collCall; per part its calls of instances
	collStart, collAt, collCall []int32
	collCalls                   [][]commCalls // per part, per communicator (in the order of the instances)

	segs       []segment
	pathLength int64
	pathTime   []int64 // per global path: time on the critical path
	byNameOnce sync.Once
	byName     map[string]int64 // pathTime per region name
	totalTime  []int64          // per global path: time over all locations

	delay        [][]int64 // per kind, per global path on the culprit: delay cost
	delayAt      []int64   // per part: the delay costs of its call paths
	unattributed [numKinds]int64
	propagated   [numKinds]int64 // waiting of each kind passed on to earlier waits
}

// InstanceRows returns the wait states, by location, call and kind.
func (r *Result) InstanceRows() []Instance {
	out := make([]Instance, len(r.inst))
	for i, j := range r.order {
		out[i] = r.inst[j].Instance
	}
	return out
}

// SegmentRows returns the critical path, by time.
func (r *Result) SegmentRows() []Segment {
	out := make([]Segment, len(r.segs))
	for i, s := range r.segs {
		out[i] = s.Segment
	}
	return out
}

// PathLength returns the critical path's length, ns: the sum of its
// segments, from the first event of the location where it begins to the
// last event of the run.
func (r *Result) PathLength() int64 { return r.pathLength }

// PathTime returns the time on the critical path spent exclusively in the
// regions named name (all their call paths), ns. A sync call's time
// counts for its MPI region whole, regions called inside it included.
func (r *Result) PathTime(name string) int64 {
	r.byNameOnce.Do(func() {
		r.byName = map[string]int64{}
		for p := 1; p < len(r.pRegion); p++ {
			if r.pathTime[p] != 0 {
				r.byName[r.tr.RegionName(r.pRegion[p])] += r.pathTime[p]
			}
		}
	})
	return r.byName[name]
}

// DelayRows returns the delay costs per kind and call path of the
// culprits, the largest first.
func (r *Result) DelayRows() []Delay {
	var out []Delay
	for k, row := range r.delay {
		for p, v := range row {
			if v != 0 {
				out = append(out, Delay{Kind: Kind(k), Path: r.PathName(int32(p)), Cost: v})
			}
		}
	}
	slices.SortFunc(out, func(a, b Delay) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Path, b.Path))
	})
	return out
}

// Unattributed returns the cost of waits of kind k that no delay explains:
// the culprit had no excess over the waiter since their previous
// synchronisation, or the waits it passed the cost on to were clipped, ns.
func (r *Result) Unattributed(k Kind) int64 {
	if int(k) < len(r.unattributed) {
		return r.unattributed[k]
	}
	return 0
}

// Skipped returns what the analysis left out, by reason ("collective
// instances with participants missing from the trace": 4).
func (r *Result) Skipped() map[string]int64 {
	out := make(map[string]int64, len(r.skipped))
	for k, v := range r.skipped {
		out[k] = v
	}
	return out
}
