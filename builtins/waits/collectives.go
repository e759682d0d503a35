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
	rank  int32 // its rank in the communicator
	enter int64
	leave int64
	call  int32
	op    uint8
	root  uint32
	sent  int64
	recvd int64
}

// collectives forms the collective instances (the k-th collective record
// of every location on a communicator) and finds their wait states.
func (r *Result) collectives() {
	cr := trace.NewRankResolver(r.tr.Defs)
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
			if cr.Self(comm) {
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
			ms = append(ms, member{comm: comm, ord: o, at: int32(a), enter: c.cEnter[j], leave: c.cLeave[j], call: j,
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
func (r *Result) instance(ps []member, cr *trace.RankResolver) {
	op, root := ps[0].op, ps[0].root
	for _, p := range ps[1:] {
		if p.op != op || p.root != root {
			r.skipped["collective instances whose participants record different operations or roots"]++
			return
		}
	}
	if n := cr.Size(ps[0].comm); n > 0 && len(ps) < n {
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
			if uint32(cr.Local(ps[i].comm, r.pc[ps[i].at].rank)) == root {
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
			ps[i].rank = cr.Local(ps[i].comm, r.pc[ps[i].at].rank)
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
