package waits

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The per-location part under the per-process contract (builtins/part),
// registered as "waits.calls", in one round: each subset of the locations
// reads its events into their MPI calls, records and time per call path
// between calls (*Calls, united by Merge). The matching of messages, the
// collective instances, the wait states, the delays and the critical path
// need the partners of every location: Analyze computes them where the
// merged partial is (the notebook), from the partial alone.
func init() {
	part.Register(methodName, func(params []byte) (part.Method, error) {
		if len(params) != 0 {
			return nil, work.Errorf(methodName, "parameters: %d bytes, the method takes none", len(params))
		}
		return &method{}, nil
	}, func(*trace.Trace) []part.Method { return []part.Method{&method{}} })
}

const methodName = "waits.calls"

// method is the per-location part of Analyze.
type method struct {
	job *work.Job // progress of a local run; not a parameter
}

// Method returns the per-location part of Analyze as a method of the
// per-process contract (part.Method, registered as "waits.calls"); its
// partials are *Calls, and Replay turns the merged one into the analysis.
//
//	p, _ := part.Run(tr, tr.Processes(), waits.Method())
//	r := waits.Replay(tr, p.(*waits.Calls))
func Method() part.Method { return &method{} }

func (m *method) Name() string                             { return methodName }
func (m *method) Params() []byte                           { return nil }
func (m *method) Rounds() int                              { return 1 }
func (m *method) Decide(int, part.Partial) ([]byte, error) { return nil, nil }

// Compute reads the events of procs into their per-location parts.
func (m *method) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(methodName, "round %d of 1", round)
	}
	if tr == nil {
		return nil, work.Errorf(methodName, "the trace is nil")
	}
	isMPI := mpiRegions(tr.Defs)
	out := &Calls{}
	var progress func(int64)
	if m.job != nil {
		progress = func(n int64) {
			if err := m.job.Add(n); err != nil {
				panic(err)
			}
		}
	}
	for i, p := range procs {
		if p == nil || p.Trace != tr {
			return nil, work.Errorf(methodName, "process %d (%v) is not a process of this trace", i, p)
		}
		if err := trace.EventsHere(methodName, p); err != nil {
			return nil, err
		}
		out.procs = append(out.procs, scanProcess(p, isMPI, progress))
	}
	slices.SortFunc(out.procs, func(a, b *procCalls) int { return cmp.Compare(a.proc, b.proc) })
	for i := 1; i < len(out.procs); i++ {
		if out.procs[i].proc == out.procs[i-1].proc {
			return nil, work.Errorf(methodName, "process %d is given twice", out.procs[i].proc)
		}
	}
	return out, nil
}

// Decode reads a partial written by Calls.MarshalBinary.
func (m *method) Decode(round int, data []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(methodName, "round %d of 1", round)
	}
	return decodeCalls(data)
}

// Calls is the per-location part of Analyze over a set of locations: for
// each, its MPI calls holding point-to-point or collective records, those
// records, and its time per call path between the calls.
type Calls struct {
	procs []*procCalls // by location index
}

// Len returns the number of locations held.
func (c *Calls) Len() int { return len(c.procs) }

// Merge absorbs o, the part of other locations.
func (c *Calls) Merge(o part.Partial) error {
	x, ok := o.(*Calls)
	if !ok {
		return work.Errorf(methodName, "cannot merge a %T", o)
	}
	all := append(slices.Clone(c.procs), x.procs...)
	slices.SortFunc(all, func(a, b *procCalls) int { return cmp.Compare(a.proc, b.proc) })
	for i := 1; i < len(all); i++ {
		if all[i].proc == all[i-1].proc {
			return work.Errorf(methodName, "location %d is in both partials", all[i].proc)
		}
	}
	c.procs = all
	return nil
}

const callsVersion = 1

// MarshalBinary encodes the parts, location by location.
func (c *Calls) MarshalBinary() ([]byte, error) {
	e := &part.Enc{}
	e.Uint(callsVersion)
	e.Uint(uint64(len(c.procs)))
	for _, p := range c.procs {
		e.Int(int64(p.proc))
		e.Int(int64(p.rank))
		e.Int(p.first)
		e.Int(p.last)
		part.Ints(e, p.pParent)
		part.Ints(e, p.pRegion)
		part.Ints(e, p.cEnter)
		part.Ints(e, p.cLeave)
		part.Ints(e, p.cEvent)
		part.Ints(e, p.cRegion)
		part.Ints(e, p.cPath)
		part.Ints(e, p.gOff)
		part.Ints(e, p.gPath)
		part.Ints(e, p.gTime)
		part.Uints(e, p.mKind)
		part.Ints(e, p.mPeer)
		part.Ints(e, p.mComm)
		part.Ints(e, p.mTag)
		part.Ints(e, p.mBytes)
		part.Ints(e, p.mReq)
		part.Ints(e, p.mTime)
		part.Ints(e, p.mCall)
		part.Ints(e, p.mAux)
		part.Uints(e, p.kOp)
		part.Ints(e, p.kComm)
		part.Uints(e, p.kRoot)
		part.Ints(e, p.kSent)
		part.Ints(e, p.kRecv)
		part.Ints(e, p.kCall)
	}
	return e.B, nil
}

// decodeCalls reads MarshalBinary's encoding and checks that every index
// in it points inside its tables, so that a damaged partial is an error,
// never a panic in the replay.
func decodeCalls(b []byte) (*Calls, error) {
	d := part.NewDec(b)
	d.Version(methodName, callsVersion)
	n := d.Len(8)
	out := &Calls{}
	for range n {
		if d.Err() != nil {
			break
		}
		p := &procCalls{proc: int32(d.Int()), rank: int32(d.Int()), first: d.Int(), last: d.Int()}
		p.pParent, p.pRegion = part.ReadInts[int32](d), part.ReadInts[int32](d)
		p.cEnter, p.cLeave = part.ReadInts[int64](d), part.ReadInts[int64](d)
		p.cEvent, p.cRegion, p.cPath = part.ReadInts[int32](d), part.ReadInts[int32](d), part.ReadInts[int32](d)
		p.gOff, p.gPath, p.gTime = part.ReadInts[int32](d), part.ReadInts[int32](d), part.ReadInts[int64](d)
		p.mKind = part.ReadUints[trace.EventKind](d)
		p.mPeer, p.mComm, p.mTag = part.ReadInts[int32](d), part.ReadInts[int32](d), part.ReadInts[int32](d)
		p.mBytes, p.mReq, p.mTime = part.ReadInts[int64](d), part.ReadInts[int64](d), part.ReadInts[int64](d)
		p.mCall, p.mAux = part.ReadInts[int32](d), part.ReadInts[int32](d)
		p.kOp = part.ReadUints[uint8](d)
		p.kComm, p.kRoot = part.ReadInts[int32](d), part.ReadUints[uint32](d)
		p.kSent, p.kRecv, p.kCall = part.ReadInts[int64](d), part.ReadInts[int64](d), part.ReadInts[int32](d)
		if d.Err() == nil {
			if msg := p.check(); msg != "" {
				d.Fail("location %d: %s", p.proc, msg)
			}
		}
		out.procs = append(out.procs, p)
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	for i := 1; i < len(out.procs); i++ {
		if out.procs[i].proc <= out.procs[i-1].proc {
			return nil, work.Errorf(methodName, "locations out of order in the partial")
		}
	}
	return out, nil
}

// check returns what is inconsistent in a decoded part, "" if nothing.
func (p *procCalls) check() string {
	np, nc := len(p.pParent), len(p.cEnter)
	switch {
	case np == 0 || len(p.pRegion) != np:
		return "call path table"
	case len(p.cLeave) != nc || len(p.cEvent) != nc || len(p.cRegion) != nc || len(p.cPath) != nc:
		return "call columns of different lengths"
	case len(p.gOff) != nc+2 || p.gOff[0] != 0 || int(p.gOff[nc+1]) != len(p.gPath) || len(p.gTime) != len(p.gPath):
		return "gap table"
	}
	for i := 1; i < np; i++ {
		if p.pParent[i] < 0 || int(p.pParent[i]) >= i {
			return "call path parent"
		}
	}
	for i := 1; i < len(p.gOff); i++ {
		if p.gOff[i] < p.gOff[i-1] {
			return "gap offsets"
		}
	}
	inPaths := func(s []int32) bool {
		for _, v := range s {
			if v < 0 || int(v) >= np {
				return false
			}
		}
		return true
	}
	inCalls := func(s []int32, none bool) bool {
		for _, v := range s {
			if (v < 0 && !(none && v == -1)) || int(v) >= nc {
				return false
			}
		}
		return true
	}
	nm := len(p.mKind)
	switch {
	case !inPaths(p.cPath) || !inPaths(p.gPath):
		return "call path index"
	case len(p.mPeer) != nm || len(p.mComm) != nm || len(p.mTag) != nm || len(p.mBytes) != nm || len(p.mReq) != nm ||
		len(p.mTime) != nm || len(p.mCall) != nm || len(p.mAux) != nm:
		return "record columns of different lengths"
	case !inCalls(p.mCall, false) || !inCalls(p.mAux, true) || !inCalls(p.kCall, false):
		return "call index of a record"
	}
	nk := len(p.kOp)
	if len(p.kComm) != nk || len(p.kRoot) != nk || len(p.kSent) != nk || len(p.kRecv) != nk || len(p.kCall) != nk {
		return "collective columns of different lengths"
	}
	return ""
}

// Replay is the rest of Analyze on the merged per-location part of tr's
// locations (Method): matching, wait states, delays and the critical path.
func Replay(tr *trace.Trace, c *Calls) *Result {
	const fn = "waits.Replay"
	defer work.RecoverAs(fn)
	if tr == nil || c == nil {
		fail(fn, "trace or partial is nil")
	}
	n := len(tr.Processes())
	for _, p := range c.procs {
		if p.proc < 0 || int(p.proc) >= n {
			fail(fn, "the partial holds location %d; the trace has %d", p.proc, n)
		}
	}
	return analyze(tr, c.procs, false)
}
