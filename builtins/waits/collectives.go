package waits

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// op categories of the collective wait states
const (
	catNone    = iota
	catBarrier // Wait at Barrier, Barrier Completion
	catNxN     // Wait at N×N, N×N Completion
	cat1toN    // Late Broadcast
	catNto1    // Early Reduce
	catScan    // Early Scan
)

// category returns the wait-state category of OTF2 collective op.
func category(op uint8) int {
	switch trace.CollectiveOpName(op) {
	case "BARRIER":
		return catBarrier
	case "ALLGATHER", "ALLGATHERV", "ALLREDUCE", "ALLTOALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK":
		return catNxN
	case "BCAST", "SCATTER", "SCATTERV":
		return cat1toN
	case "REDUCE", "GATHER", "GATHERV":
		return catNto1
	case "SCAN", "EXSCAN":
		return catScan
	}
	return catNone // ALLTOALLV, ALLTOALLW and the rest: no wait state (as Scalasca)
}

// member is one participant of a collective instance: its collective
// record rec of location at.
type member struct {
	comm  int32
	ord   int32 // the instance: the record's ordinal on its communicator
	at    int32
	rec   int32
	rank  int32 // its rank in the communicator
	enter int64
	leave int64
	call  int32
	op    uint8
	root  uint32
	sent  int64
	recvd int64
}

// commRanks maps global ranks to communicator ranks.
type commRanks struct {
	defs *trace.Definitions
	inv  map[int32]map[int32]int32 // comm -> global rank -> comm rank (groups listing their ranks)
}

// self reports whether comm is a MPI_COMM_SELF (its group of type
// "comm_self"): every location has its own, under one definition.
func (c *commRanks) self(comm int32) bool {
	d := c.defs
	if d == nil || comm < 0 || int(comm) >= len(d.Comms) {
		return false
	}
	g := d.Comms[comm].Group
	return g >= 0 && int(g) < len(d.Groups) && d.Groups[g].Type == "comm_self"
}

// size returns the number of members of comm's group, 0 when unknown.
func (c *commRanks) size(comm int32) int {
	d := c.defs
	if d == nil || comm < 0 || int(comm) >= len(d.Comms) {
		return 0
	}
	g := d.Comms[comm].Group
	if g < 0 || int(g) >= len(d.Groups) {
		return 0
	}
	return len(d.Groups[g].Members)
}

// rank returns the rank in comm of the location of global rank global.
func (c *commRanks) rank(comm, global int32) int32 {
	d := c.defs
	if d == nil || comm < 0 || int(comm) >= len(d.Comms) {
		return global
	}
	g := d.Comms[comm].Group
	if g < 0 || int(g) >= len(d.Groups) {
		return global
	}
	grp := &d.Groups[g]
	switch grp.Type {
	case "comm_self":
		return 0
	case "comm_group":
		m, ok := c.inv[comm]
		if !ok {
			m = make(map[int32]int32, len(grp.Members))
			for i, x := range grp.Members {
				if x <= 1<<31-1 {
					m[int32(x)] = int32(i)
				}
			}
			if c.inv == nil {
				c.inv = map[int32]map[int32]int32{}
			}
			c.inv[comm] = m
		}
		if x, ok := m[global]; ok {
			return x
		}
		return -1
	}
	return global
}

// collectives forms the collective instances (the k-th collective record
// of every location on a communicator) and finds their wait states.
func (r *Result) collectives() {
	cr := &commRanks{defs: r.tr.Defs}
	n := 0
	for _, c := range r.pc {
		n += len(c.kOp)
	}
	ms := make([]member, 0, n)
	for a, c := range r.pc {
		ord := map[int32]int32{}
		last, lastOrd, started := int32(0), int32(0), false // the map is read once per change of communicator
		for k := range c.kOp {
			comm := c.kComm[k]
			if cr.self(comm) {
				continue // one participant: no wait, no synchronisation with another location
			}
			if !started || comm != last {
				if started {
					ord[last] = lastOrd
				}
				last, lastOrd, started = comm, ord[comm], true
			}
			o := lastOrd
			lastOrd++
			j := c.kCall[k]
			ms = append(ms, member{comm: comm, ord: o, at: int32(a), rec: int32(k), enter: c.cEnter[j], leave: c.cLeave[j], call: j,
				op: c.kOp[k], root: c.kRoot[k], sent: c.kSent[k], recvd: c.kRecv[k]})
		}
	}
	// by communicator and ordinal (a stable radix sort: within an
	// instance, by location as appended)
	minComm, maxOrd := int64(0), int64(0)
	for i := range ms {
		minComm, maxOrd = min(minComm, int64(ms[i].comm)), max(maxOrd, int64(ms[i].ord))
	}
	keys := make([]int64, len(ms))
	for i := range ms {
		keys[i] = (int64(ms[i].comm)-minComm)*(maxOrd+1) + int64(ms[i].ord)
	}
	ms = p2p.Gather(p2p.StableOrder(keys), ms)
	r.inst = slices.Grow(r.inst, 2*len(ms)) // a wait and a completion per participant at most
	r.collCalls = make([][]commCalls, len(r.pc))
	for lo := 0; lo < len(ms); {
		hi := lo + 1
		for hi < len(ms) && ms[hi].comm == ms[lo].comm && ms[hi].ord == ms[lo].ord {
			hi++
		}
		if r.Collectives%checkEvery == 0 {
			work.Check()
		}
		r.Collectives++
		inst := int32(len(r.collStart))
		r.collStart = append(r.collStart, int32(len(r.collAt)))
		for _, m := range ms[lo:hi] {
			r.collAt = append(r.collAt, m.at)
			r.collCall = append(r.collCall, m.call)
			cs := r.collCalls[m.at]
			if len(cs) == 0 || cs[len(cs)-1].comm != m.comm {
				cs = append(cs, commCalls{comm: m.comm})
			}
			cs[len(cs)-1].calls = append(cs[len(cs)-1].calls, collCall{m.call, inst})
			r.collCalls[m.at] = cs
		}
		r.instance(ms[lo:hi], cr)
		lo = hi
	}
	r.collStart = append(r.collStart, int32(len(r.collAt)))
}

// instance finds the wait states of one collective instance.
func (r *Result) instance(ps []member, cr *commRanks) {
	op, root := ps[0].op, ps[0].root
	for _, p := range ps[1:] {
		if p.op != op || p.root != root {
			r.skipped["collective instances whose participants record different operations or roots"]++
			return
		}
	}
	if n := cr.size(ps[0].comm); n > 0 && len(ps) < n {
		r.skipped["collective instances with participants missing from the trace"]++
		return
	}
	if len(ps) < 2 {
		return
	}
	switch category(op) {
	case catBarrier:
		last := &ps[0]
		minLeave := ps[0].leave
		for i := range ps {
			if ps[i].enter > last.enter {
				last = &ps[i]
			}
			minLeave = min(minLeave, ps[i].leave)
		}
		for i := range ps {
			r.addColl(WaitAtBarrier, &ps[i], last.enter, last)
		}
		for i := range ps {
			r.completion(BarrierCompletion, &ps[i], minLeave, last.enter)
		}
	case catNxN:
		var last *member
		for i := range ps {
			if ps[i].sent != 0 && (last == nil || ps[i].enter > last.enter) {
				last = &ps[i]
			}
		}
		if last == nil {
			return
		}
		for i := range ps {
			if ps[i].recvd != 0 {
				r.addColl(WaitAtNxN, &ps[i], last.enter, last)
			}
		}
		var first *member
		for i := range ps {
			if ps[i].sent != 0 && ps[i].recvd != 0 && (first == nil || ps[i].leave < first.leave) {
				first = &ps[i]
			}
		}
		if first != nil {
			for i := range ps {
				if ps[i].sent != 0 && ps[i].recvd != 0 {
					r.completion(NxNCompletion, &ps[i], first.leave, last.enter)
				}
			}
		}
	case cat1toN, catNto1:
		var rt *member
		for i := range ps {
			if uint32(cr.rank(ps[i].comm, r.pc[ps[i].at].rank)) == root {
				rt = &ps[i]
				break
			}
		}
		if rt == nil {
			r.skipped["rooted collective instances whose root is not in the trace"]++
			return
		}
		if category(op) == cat1toN {
			for i := range ps {
				if &ps[i] != rt && ps[i].recvd != 0 {
					r.addColl(LateBroadcast, &ps[i], rt.enter, rt)
				}
			}
			return
		}
		if rt.recvd == 0 {
			return
		}
		var first *member
		for i := range ps {
			if &ps[i] != rt && ps[i].sent != 0 && (first == nil || ps[i].enter < first.enter) {
				first = &ps[i]
			}
		}
		if first != nil {
			r.addColl(EarlyReduce, rt, first.enter, first)
		}
	case catScan:
		// by communicator rank: each waits for the latest of the ranks up to its own
		for i := range ps {
			ps[i].rank = cr.rank(ps[i].comm, r.pc[ps[i].at].rank)
		}
		order := make([]*member, len(ps))
		for i := range ps {
			order[i] = &ps[i]
		}
		slices.SortStableFunc(order, func(a, b *member) int { return cmp.Compare(a.rank, b.rank) })
		var last *member
		for lo := 0; lo < len(order); {
			hi := lo + 1
			for hi < len(order) && order[hi].rank == order[lo].rank {
				hi++
			}
			for _, p := range order[lo:hi] {
				if last == nil || p.enter > last.enter {
					last = p
				}
			}
			for _, p := range order[lo:hi] {
				if p.sent != 0 || p.recvd != 0 {
					r.addColl(EarlyScan, p, last.enter, last)
				}
			}
			lo = hi
		}
	}
}

// addColl adds the wait of participant p until end, caused by culprit.
func (r *Result) addColl(k Kind, p *member, end int64, culprit *member) {
	w := min(end, p.leave) - p.enter
	if w <= 0 {
		return
	}
	in := r.newInstance(k, p.at, p.call, w, -1, -1, end > p.leave)
	c := r.pc[culprit.at]
	in.cAt, in.cCall = culprit.at, culprit.call
	in.Culprit, in.CulpritCall, in.CulpritEnter = c.proc, c.cEvent[culprit.call], culprit.enter
	r.inst = append(r.inst, in)
}

// completion adds the completion time of participant p: from the first
// Leave (not before the last Enter) to its own.
func (r *Result) completion(k Kind, p *member, minLeave, maxEnter int64) {
	if minLeave < maxEnter {
		minLeave = maxEnter
	}
	if w := p.leave - minLeave; w > 0 {
		r.inst = append(r.inst, r.newInstance(k, p.at, p.call, w, -1, -1, false))
	}
}
