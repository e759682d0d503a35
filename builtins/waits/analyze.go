package waits

import (
	"slices"
	"strings"

	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// instance is an Instance with the call indices the replay works with.
type instance struct {
	Instance
	at    int32 // the waiting location: index into Result.pc
	call  int32 // the waiting call: index into pc[at]'s calls
	cAt   int32 // the culprit: index into Result.pc; -1 without
	cCall int32 // the culprit's call; -1 without
}

// Analyze finds the wait states of tr's MPI operations with their culprits
// (Scalasca's late sender, late receiver, wait at barrier, wait at N×N,
// late broadcast, early reduce, early scan, barrier and N×N completion),
// the delays on the culprits that caused them (Böhme et al.'s short-term
// delay costs, per call path) and the critical path of the run (backward
// replay). See the package notes for the definitions.
//
// The per-location part runs on every core, or on the ranks of an MPI job
// for a distributed trace (the "waits.calls" method); the matching and the
// replay run here on what that part keeps of each location (its MPI calls,
// its records and its time per call path between them). It shows progress
// and stops when interrupted; a nil trace panics with an *Error.
func Analyze(tr *trace.Trace) *Result {
	const fn = "waits.Analyze"
	defer work.RecoverAs(fn)
	if tr == nil {
		fail(fn, "trace is nil")
	}
	procs := tr.Processes()
	if err := work.Reserve(fn+": MPI calls and records", estimate(tr)); err != nil {
		work.FailErr(fn, err)
	}
	job := work.Start(fn, tr.NumEvents(), "events")
	defer job.Done()
	m := &method{job: job}
	got, err := part.Run(tr, procs, m)
	if err != nil {
		work.FailErr(fn, err)
	}
	return analyze(tr, got.(*Calls).procs, true)
}

// estimate is the memory Analyze needs beyond the trace, at most: the
// per-location parts (a call, a record or a gap entry per event at worst,
// about 24 bytes each), the matching (about 100 bytes per message) and the
// replay's tables.
func estimate(tr *trace.Trace) int64 {
	var records int64
	for _, p := range tr.Processes() {
		records += int64(p.Msgs.Len() + p.Colls.Len())
	}
	return tr.NumEvents()*8 + records*160
}

func fail(fn, format string, args ...any) { work.Fail(fn, format, args...) }

// analyze is the replay over the per-location parts (by location index);
// own says the parts are its own to trim (Analyze's, not a caller's).
func analyze(tr *trace.Trace, pcs []*procCalls, own bool) *Result {
	r := &Result{tr: tr, procs: tr.Processes(), pc: pcs, skipped: map[string]int64{}, mpi: mpiRegions(tr.Defs)}
	r.unifyPaths()
	// the run's first and last event, and the location of the last
	r.t0, r.tEnd, r.endAt = 0, 0, -1
	for i, c := range pcs {
		if c.first == 0 && c.last == 0 && c.numCalls() == 0 && len(c.gPath) == 0 {
			continue // no events
		}
		if r.endAt < 0 {
			r.t0, r.tEnd, r.endAt = c.first, c.last, int32(i)
			continue
		}
		r.t0 = min(r.t0, c.first)
		if c.last > r.tEnd {
			r.tEnd, r.endAt = c.last, int32(i)
		}
	}
	job := work.Start("waits: matching, wait states, critical path, delays", 5, "steps")
	defer job.Done()
	for i, step := range []func(){r.pointToPoint, r.collectives, r.sortInstances, r.criticalPath, r.delays} {
		step()
		if i == 0 {
			r.trim(own)
		}
		if err := job.Add(1); err != nil {
			panic(err)
		}
	}
	return r
}

// unifyPaths numbers the call paths of all locations in one table: path 0
// is outside every region, the others (parent, region) in the order the
// locations (by index) first call them.
func (r *Result) unifyPaths() {
	r.pParent, r.pRegion = []int32{-1}, []int32{-1}
	index := map[uint64]int32{}
	r.gmap = make([][]int32, len(r.pc))
	for i, c := range r.pc {
		g := make([]int32, len(c.pParent))
		for l := 1; l < len(c.pParent); l++ {
			parent := g[c.pParent[l]]
			k := uint64(uint32(parent))<<32 | uint64(uint32(c.pRegion[l]))
			id, ok := index[k]
			if !ok {
				id = int32(len(r.pParent))
				r.pParent = append(r.pParent, parent)
				r.pRegion = append(r.pRegion, c.pRegion[l])
				index[k] = id
			}
			g[l] = id
		}
		r.gmap[i] = g
	}
}

// PathName returns the names of the regions of call path id from the
// outermost call, joined by " → " ("main → solve → MPI_Waitall"); "(outside
// every region)" for path 0.
func (r *Result) PathName(id int32) string {
	if id <= 0 || int(id) >= len(r.pParent) {
		return "(outside every region)"
	}
	var names []string
	for p := id; p > 0; p = r.pParent[p] {
		names = append(names, r.tr.RegionName(r.pRegion[p]))
	}
	slices.Reverse(names)
	return strings.Join(names, " → ")
}

// gpath returns the global call path of call j of location a.
func (r *Result) gpath(a int32, local int32) int32 {
	if local < 0 {
		return -1
	}
	return r.gmap[a][local]
}

// newInstance returns the instance of a wait of kind k of call j of
// location a; culprit location ca, its call cj (-1, -1: none).
func (r *Result) newInstance(k Kind, a, j int32, wait int64, ca, cj int32, clipped bool) instance {
	c := r.pc[a]
	in := instance{at: a, call: j, cAt: ca, cCall: cj}
	in.Kind, in.Process, in.Call, in.Region = k, c.proc, c.cEvent[j], c.cRegion[j]
	in.Path = r.gpath(a, c.cPath[j])
	if in.Call < 0 {
		in.Region = -1
	}
	in.Enter, in.Leave, in.Wait, in.Clipped = c.cEnter[j], c.cLeave[j], wait, clipped
	in.Culprit, in.CulpritCall = -1, -1
	if ca >= 0 {
		cc := r.pc[ca]
		in.Culprit, in.CulpritCall, in.CulpritEnter = cc.proc, cc.cEvent[cj], cc.cEnter[cj]
	}
	return in
}

// pointToPoint matches the messages (internal/p2p, posting order) and
// finds late senders and late receivers.
func (r *Result) pointToPoint() {
	ranks := make([]int32, len(r.pc))
	for i, c := range r.pc {
		ranks[i] = c.rank
	}
	res := trace.NewRankResolver(r.tr.Defs)
	m, mr := p2p.Match(ranks, func(i int, emit func(*p2p.Record)) {
		c := r.pc[i]
		var e p2p.Record
		for j, k := range c.mKind {
			if j%checkEvery == 0 {
				work.Check()
			}
			peer := c.mPeer[j]
			switch k {
			case trace.MpiSend, trace.MpiIsend, trace.MpiRecv, trace.MpiIrecv:
				peer, _ = res.Global(c.mComm[j], peer, c.rank)
			}
			e = p2p.Record{Kind: k, Peer: peer, Comm: c.mComm[j], Tag: c.mTag[j], Bytes: c.mBytes[j], Request: c.mReq[j],
				Time: c.mTime[j], Ref: int64(j)}
			emit(&e)
		}
	}, p2p.Columns{Refs: true})
	r.msgs = m
	r.Messages = int64(m.Len())
	r.UnmatchedSends, r.UnmatchedRecvs = 0, 0
	for _, e := range mr.Pending {
		if e.Send {
			r.UnmatchedSends++
		} else {
			r.UnmatchedRecvs++
		}
	}
	// the MPI calls whose names the definitions single out, by region id
	roles := make([]uint8, 0)
	if d := r.tr.Defs; d != nil {
		roles = make([]uint8, len(d.Regions))
		for i, reg := range d.Regions {
			switch {
			case strings.HasPrefix(reg.Name, "MPI_Test"):
				roles[i] = roleTest
			case reg.Name == "MPI_Bsend":
				roles[i] = roleBsend
			case reg.Name == "MPI_Wait":
				roles[i] = roleWait
			}
		}
	}
	role := func(region int32, want uint8) bool {
		return region >= 0 && int(region) < len(roles) && roles[region] == want
	}
	// candidates: every late-sender wait of a receive call, every
	// late-receiver wait of a send completion call; the largest of each
	// call (the first message in send order on ties) makes its instance
	var cands []cand
	for x := range m.Len() {
		if x%checkEvery == 0 {
			work.Check()
		}
		sa, ra := m.SendLoc[x], m.RecvLoc[x]
		s, rc := r.pc[sa], r.pc[ra]
		si, ri := m.SendRef[x], m.RecvRef[x]
		S, R := s.mCall[si], rc.mCall[ri]
		// late sender: the receive's completion call R waits for the send's call S
		if !role(rc.cRegion[R], roleTest) {
			end := min(s.cEnter[S], rc.cLeave[R])
			if w := end - rc.cEnter[R]; w > 0 {
				cands = append(cands, cand{LateSender, ra, R, int32(x), w, sa, S, s.cEnter[S] > rc.cLeave[R]})
			}
		}
		// late receiver: the send's completion call C waits for the
		// receive's posting call P
		C := int32(-1)
		switch s.mKind[si] {
		case trace.MpiSend:
			if !role(s.cRegion[S], roleBsend) {
				C = S
			}
		case trace.MpiIsend:
			if a := s.mAux[si]; a >= 0 && role(s.cRegion[a], roleWait) {
				C = a
			}
		}
		if C < 0 {
			continue
		}
		P := rc.mAux[ri]
		if P < 0 {
			P = R
		}
		if s.cLeave[C] < rc.cEnter[P] {
			continue
		}
		if w := rc.cEnter[P] - s.cEnter[C]; w > 0 {
			cands = append(cands, cand{LateReceiver, sa, C, int32(x), w, ra, P, false})
		}
	}
	// by call (a stable radix sort: within a call, in message order), then
	// the largest wait of each call, the first on ties
	keys := make([]int64, len(cands))
	maxCalls := int64(1)
	for _, c := range r.pc {
		maxCalls = max(maxCalls, int64(c.numCalls()))
	}
	for i, c := range cands {
		keys[i] = (int64(c.at)*maxCalls+int64(c.call))<<1 | int64(c.kind)
	}
	order := p2p.StableOrder(keys)
	r.inst = slices.Grow(r.inst, len(cands))
	for lo := 0; lo < len(order); {
		best := order[lo]
		hi := lo + 1
		for ; hi < len(order) && keys[order[hi]] == keys[order[lo]]; hi++ {
			if cands[order[hi]].wait > cands[best].wait {
				best = order[hi]
			}
		}
		c := &cands[best]
		r.inst = append(r.inst, r.newInstance(c.kind, c.at, c.call, c.wait, c.ca, c.cj, c.clipped))
		lo = hi
	}
}

// roles of MPI calls in the point-to-point definitions
const (
	roleTest  = 1 + iota // MPI_Test*: never waits
	roleBsend            // MPI_Bsend: buffered, never waits for its receive
	roleWait             // MPI_Wait: completes one request
)

// cand is a wait of one message, a candidate for its call's instance.
type cand struct {
	kind     Kind
	at, call int32
	seq      int32 // the message, by send order
	wait     int64
	ca, cj   int32
	clipped  bool
}

// trim drops what the matching needed and nothing after it does: the
// messages' columns but their ends, and (of parts of its own) the records'
// envelopes.
func (r *Result) trim(own bool) {
	if m := r.msgs; m != nil {
		r.msgs = &p2p.Messages{SendLoc: m.SendLoc, RecvLoc: m.RecvLoc, SendRef: m.SendRef, RecvRef: m.RecvRef}
	}
	if !own {
		return
	}
	for _, c := range r.pc {
		c.mPeer, c.mComm, c.mTag, c.mBytes, c.mReq, c.mTime = nil, nil, nil, nil, nil, nil
	}
}

// checkEvery is how many items the replay handles between polls of
// interruption.
const checkEvery = 1 << 14

// sortInstances orders the instances by location, call, kind (r.order: a
// radix sort of one key, the instances stay where they are).
func (r *Result) sortInstances() {
	maxCalls := int64(1)
	for _, c := range r.pc {
		maxCalls = max(maxCalls, int64(c.numCalls()))
	}
	keys := make([]int64, len(r.inst))
	for i := range r.inst {
		in := &r.inst[i]
		keys[i] = (int64(in.at)*maxCalls+int64(in.call))<<4 | int64(in.Kind)
	}
	r.order = p2p.StableOrder(keys)
}
