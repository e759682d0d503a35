package waits

import (
	"slices"
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// procCalls is the per-process part of the analysis: what the replay needs
// of one location, read in one pass over its events. Nothing in it refers to
// another location, so any machine holding the location computes it (see
// the "waits.calls" method).
//
// A sync call is an MPI call (the outermost instance of an MPI region: its
// paradigm is "mpi" or its name begins with "MPI_") holding at least one
// point-to-point or collective record; a record outside every MPI call is a
// call of its own, of no duration (a collective's MpiCollectiveBegin and End
// outside MPI calls bound one call, which ends at the next Enter or Leave at
// the latest). Gap g is the time between call g-1's
// Leave (or the location's first event) and call g's Enter (or its last
// event); its exclusive time per call path is kept, so that the time of any
// stretch between two calls is a sum of gaps and calls.
type procCalls struct {
	proc        int32 // index in tr.Processes()
	rank        int32
	first, last int64 // first and last event time (0 without events)

	// local call paths: path 0 is "outside every region"; path i > 0 is
	// region pRegion[i] called from path pParent[i]; parents come first.
	pParent, pRegion []int32

	// sync calls, in order
	cEnter, cLeave []int64
	cEvent         []int32 // event index of the Enter; -1 for a call of a record alone
	cRegion        []int32 // -1 for a call of a record alone
	cPath          []int32 // local path of the call (a record alone: the path it lies in)

	// gap g holds gPath/gTime[gOff[g]:gOff[g+1]], g in 0..len(calls)
	gOff  []int32
	gPath []int32
	gTime []int64

	// point-to-point records, in event order
	mKind               []trace.EventKind
	mPeer, mComm, mTag  []int32
	mBytes, mReq, mTime []int64
	mCall               []int32 // the record's call
	// MpiIsend: the call of its MpiIsendComplete; MpiIrecv: the call of its
	// MpiIrecvRequest; MpiSend, MpiRecv: the record's own call; else -1
	mAux []int32

	// collective records (MpiCollectiveEnd), in event order
	kOp          []uint8
	kComm        []int32
	kRoot        []uint32
	kSent, kRecv []int64
	kCall        []int32
}

// numCalls returns the number of sync calls.
func (c *procCalls) numCalls() int { return len(c.cEnter) }

// presize makes room for nm point-to-point and nk collective records, and
// as many calls at most.
func (c *procCalls) presize(nm, nk int) {
	c.mKind = make([]trace.EventKind, 0, nm)
	c.mPeer, c.mComm, c.mTag = make([]int32, 0, nm), make([]int32, 0, nm), make([]int32, 0, nm)
	c.mBytes, c.mReq, c.mTime = make([]int64, 0, nm), make([]int64, 0, nm), make([]int64, 0, nm)
	c.mCall, c.mAux = make([]int32, 0, nm), make([]int32, 0, nm)
	c.kOp, c.kComm, c.kRoot = make([]uint8, 0, nk), make([]int32, 0, nk), make([]uint32, 0, nk)
	c.kSent, c.kRecv, c.kCall = make([]int64, 0, nk), make([]int64, 0, nk), make([]int32, 0, nk)
	nc := nm + nk
	c.cEnter, c.cLeave = make([]int64, 0, nc), make([]int64, 0, nc)
	c.cEvent, c.cRegion, c.cPath = make([]int32, 0, nc), make([]int32, 0, nc), make([]int32, 0, nc)
	c.gOff = slices.Grow(c.gOff, nc+1)
	c.gPath, c.gTime = make([]int32, 0, nc), make([]int64, 0, nc)
}

// mpiRegions returns per region id whether it is an MPI region.
func mpiRegions(defs *trace.Definitions) []bool {
	if defs == nil {
		return nil
	}
	out := make([]bool, len(defs.Regions))
	for i, r := range defs.Regions {
		out[i] = r.Paradigm == "mpi" || strings.HasPrefix(r.Name, "MPI_")
	}
	return out
}

// callsCheck is how many events the pass reads between polls of interruption.
const callsCheck = 1 << 16

// scanner reads one location.
type scanner struct {
	c *procCalls

	// call paths: per path its last child (region, path), then a map
	child     map[uint64]int32
	lastReg   []int32
	lastChild []int32

	acc     []int64 // per local path: time in the open gap
	touched []int32

	// the open MPI call
	inCall     bool
	callDepth  int // stack depth of the call's region (-1: a collective outside MPI)
	callEnter  int64
	callEvent  int32
	callRegion int32
	callPath   int32
	callHas    bool // holds a record

	pendSend reqs // request -> its MpiIsend record
	pendRecv reqs // request -> the call of its MpiIrecvRequest
}

// reqs maps the ids of a location's pending requests to a value: a short
// list searched from its end (few requests are pending at a time), a map
// once it grows long.
type reqs struct {
	ids  []int64
	vals []int32
	big  map[int64]int32
}

const reqsShort = 32

func (q *reqs) put(id int64, v int32) {
	if q.big != nil {
		q.big[id] = v
		return
	}
	q.del(id) // an id reused while pending: the newer request counts
	q.ids, q.vals = append(q.ids, id), append(q.vals, v)
	if len(q.ids) > reqsShort {
		q.big = make(map[int64]int32, 2*len(q.ids))
		for i, x := range q.ids {
			q.big[x] = q.vals[i]
		}
		q.ids, q.vals = q.ids[:0], q.vals[:0]
	}
}

// take returns the value of id and forgets id.
func (q *reqs) take(id int64) (int32, bool) {
	if q.big != nil {
		v, ok := q.big[id]
		delete(q.big, id)
		return v, ok
	}
	for i := len(q.ids) - 1; i >= 0; i-- {
		if q.ids[i] == id {
			v := q.vals[i]
			q.ids, q.vals = slices.Delete(q.ids, i, i+1), slices.Delete(q.vals, i, i+1)
			return v, true
		}
	}
	return 0, false
}

func (q *reqs) del(id int64) { q.take(id) }

// pathOf returns the local path of region called from parent.
func (s *scanner) pathOf(parent, region int32) int32 {
	if s.lastReg[parent] == region {
		return s.lastChild[parent]
	}
	k := uint64(uint32(parent))<<32 | uint64(uint32(region))
	id, ok := s.child[k]
	if !ok {
		id = int32(len(s.c.pParent))
		s.c.pParent = append(s.c.pParent, parent)
		s.c.pRegion = append(s.c.pRegion, region)
		s.child[k] = id
		s.lastReg = append(s.lastReg, -2)
		s.lastChild = append(s.lastChild, -1)
		s.acc = append(s.acc, 0)
	}
	s.lastReg[parent], s.lastChild[parent] = region, id
	return id
}

// add gives path dt of the open gap.
func (s *scanner) add(path int32, dt int64) {
	if dt == 0 {
		return
	}
	if s.acc[path] == 0 {
		s.touched = append(s.touched, path)
	}
	s.acc[path] += dt
}

// closeGap ends the open gap.
func (s *scanner) closeGap() {
	c := s.c
	for _, p := range s.touched {
		if s.acc[p] != 0 {
			c.gPath = append(c.gPath, p)
			c.gTime = append(c.gTime, s.acc[p])
			s.acc[p] = 0
		}
	}
	s.touched = s.touched[:0]
	c.gOff = append(c.gOff, int32(len(c.gPath)))
}

// addCall appends a sync call (closing the gap before it).
func (s *scanner) addCall(enter, leave int64, event, region, path int32) {
	s.closeGap()
	c := s.c
	c.cEnter = append(c.cEnter, enter)
	c.cLeave = append(c.cLeave, leave)
	c.cEvent = append(c.cEvent, event)
	c.cRegion = append(c.cRegion, region)
	c.cPath = append(c.cPath, path)
}

// scanProcess reads p's events into its per-process part.
// progress (nil: none) is told how many events were read, every so often.
func scanProcess(p *trace.Process, isMPI []bool, progress func(n int64)) *procCalls {
	c := &procCalls{proc: int32(p.Index), rank: p.Rank, pParent: []int32{-1}, pRegion: []int32{-1}, gOff: []int32{0}}
	s := &scanner{c: c, child: map[uint64]int32{}, lastReg: []int32{-2}, lastChild: []int32{-1}, acc: []int64{0}}
	n := len(p.Kind)
	if n == 0 {
		c.gOff = append(c.gOff, 0)
		return c
	}
	c.first, c.last = p.Time[0], p.Time[n-1]
	c.presize(p.Msgs.Len(), p.Colls.Len())
	var stack []int32 // open calls' regions, outermost first
	var paths []int32 // their paths
	var repairs trace.CallRepairs
	cur := int32(0) // the innermost open call's path
	prev := c.first
	mpi := func(r int32) bool { return r >= 0 && int(r) < len(isMPI) && isMPI[r] }
	for lo := 0; lo < n; lo += callsCheck {
		work.Check()
		hi := min(n, lo+callsCheck)
		if progress != nil {
			progress(int64(hi - lo))
		}
		for i := lo; i < hi; i++ {
			t := p.Time[i]
			if !s.inCall {
				s.add(cur, t-prev)
			}
			prev = t
			switch k := p.Kind[i]; k {
			case trace.Enter:
				if s.inCall && s.callDepth < 0 {
					s.endCall(t) // a collective begun outside MPI calls ends at the next call at the latest
				}
				r := p.Ref[i]
				path := s.pathOf(cur, r)
				stack = append(stack, r)
				paths = append(paths, path)
				cur = path
				if !s.inCall && mpi(r) {
					s.inCall, s.callDepth, s.callEnter, s.callEvent, s.callRegion, s.callPath, s.callHas = true, len(stack)-1, t, int32(i), r, path, false
				}
			case trace.Leave:
				if s.inCall && s.callDepth < 0 {
					s.endCall(t)
				}
				d := trace.LeaveDepth(stack, p.Ref[i], &repairs)
				if d < 0 {
					continue
				}
				if s.inCall && s.callDepth >= d {
					s.endCall(t)
				}
				stack, paths = stack[:d], paths[:d]
				cur = 0
				if d > 0 {
					cur = paths[d-1]
				}
			case trace.MpiCollectiveBegin:
				if !s.inCall {
					s.inCall, s.callDepth, s.callEnter, s.callEvent, s.callRegion, s.callPath, s.callHas = true, -1, t, -1, -1, cur, false
				}
			case trace.MpiCollectiveEnd:
				alone := !s.inCall
				if alone {
					s.inCall, s.callDepth, s.callEnter, s.callEvent, s.callRegion, s.callPath = true, -1, t, -1, -1, cur
				}
				s.callHas = true
				row := p.Ref[i]
				cl := &p.Colls
				if row >= 0 && int(row) < cl.Len() {
					c.kOp = append(c.kOp, cl.Op[row])
					c.kComm = append(c.kComm, cl.Comm[row])
					c.kRoot = append(c.kRoot, cl.Root[row])
					c.kSent = append(c.kSent, cl.Sent[row])
					c.kRecv = append(c.kRecv, cl.Received[row])
					c.kCall = append(c.kCall, int32(c.numCalls()))
				}
				if s.callDepth < 0 {
					s.endCall(t)
				}
			case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv, trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
				alone := !s.inCall
				if alone {
					s.inCall, s.callDepth, s.callEnter, s.callEvent, s.callRegion, s.callPath = true, -1, t, -1, -1, cur
				}
				s.callHas = true
				s.message(p, i, k)
				if alone {
					s.endCall(t)
				}
			}
		}
	}
	if s.inCall { // a call left open at the end
		s.endCall(c.last)
	}
	s.closeGap()
	return c
}

// endCall ends the open MPI call at t: a sync call if it holds a record,
// else its time goes to the open gap, on its path.
func (s *scanner) endCall(t int64) {
	s.inCall = false
	if s.callHas {
		s.addCall(s.callEnter, t, s.callEvent, s.callRegion, s.callPath)
		return
	}
	s.add(s.callPath, t-s.callEnter)
}

// message appends point-to-point record i (of kind k) of p to the open call.
func (s *scanner) message(p *trace.Process, i int, k trace.EventKind) {
	c := s.c
	row := p.Ref[i]
	m := &p.Msgs
	if row < 0 || int(row) >= m.Len() {
		return
	}
	call := int32(c.numCalls())
	idx := int32(len(c.mKind))
	aux := int32(-1)
	req := m.Request[row]
	switch k {
	case trace.MpiSend, trace.MpiRecv:
		aux = call
	case trace.MpiIsend:
		if req != 0 {
			s.pendSend.put(req, idx)
		}
	case trace.MpiIsendComplete:
		if j, ok := s.pendSend.take(req); ok {
			c.mAux[j] = call
		}
	case trace.MpiIrecvRequest:
		if req != 0 {
			s.pendRecv.put(req, call)
		}
	case trace.MpiIrecv:
		if j, ok := s.pendRecv.take(req); ok && req != 0 {
			aux = j
		}
	case trace.MpiRequestCancelled:
		s.pendSend.del(req)
		s.pendRecv.del(req)
	}
	c.mKind = append(c.mKind, k)
	c.mPeer = append(c.mPeer, m.Peer[row])
	c.mComm = append(c.mComm, m.Comm[row])
	c.mTag = append(c.mTag, m.Tag[row])
	c.mBytes = append(c.mBytes, m.Bytes[row])
	c.mReq = append(c.mReq, req)
	c.mTime = append(c.mTime, p.Time[i])
	c.mCall = append(c.mCall, call)
	c.mAux = append(c.mAux, aux)
}
