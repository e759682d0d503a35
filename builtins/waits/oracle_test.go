package waits_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/waits"
)

// The oracle follows SPEC38's definitions literally, quadratically, from the
// events alone (its own call stacks, its own message matching).

// ocall is a call of the oracle: a region instance, or a record alone.
type ocall struct {
	idx          int32 // event index of the Enter; -1 for a record alone
	region       int32
	enter, leave int64
	parent       int // index in ocalls of the enclosing call, -1 at the top
}

type oproc struct {
	calls  []ocall
	callOf map[int]int // record event index -> index in calls of its MPI call (-1: none)
	first  int64
	last   int64
}

func isMPI(tr *trace.Trace, region int32) bool {
	r := tr.Defs.Regions[region]
	return r.Paradigm == "mpi" || strings.HasPrefix(r.Name, "MPI_")
}

func oracleProcs(tr *trace.Trace) []oproc {
	var out []oproc
	for _, p := range tr.Processes() {
		op := oproc{callOf: map[int]int{}, first: p.Time[0], last: p.Time[len(p.Time)-1]}
		var stack []int
		for i, k := range p.Kind {
			switch k {
			case trace.Enter:
				parent := -1
				if len(stack) > 0 {
					parent = stack[len(stack)-1]
				}
				op.calls = append(op.calls, ocall{idx: int32(i), region: p.Ref[i], enter: p.Time[i], parent: parent})
				stack = append(stack, len(op.calls)-1)
			case trace.Leave:
				op.calls[stack[len(stack)-1]].leave = p.Time[i]
				stack = stack[:len(stack)-1]
			default:
				c := -1
				for s := len(stack) - 1; s >= 0; s-- {
					if isMPI(tr, op.calls[stack[s]].region) {
						c = stack[s]
						break
					}
				}
				op.callOf[i] = c
			}
		}
		out = append(out, op)
	}
	return out
}

// callAt returns the MPI call of record i on p (Enter = Leave = its time
// without one).
func (o *oproc) callAt(p *trace.Process, i int) ocall {
	if c := o.callOf[i]; c >= 0 {
		return o.calls[c]
	}
	return ocall{idx: -1, region: -1, enter: p.Time[i], leave: p.Time[i], parent: -1}
}

// omsg is a matched message.
type omsg struct {
	from, to       int
	sendEv, recvEv int // send record, receive completion record
	postEv         int // the receive's posting record
	completeEv     int // the MpiIsendComplete of an MpiIsend, -1 otherwise
}

func oracleMessages(tr *trace.Trace) []omsg {
	type key struct{ from, to, comm, tag int32 }
	sends := map[key][]int{}
	type post struct{ post, done int }
	recvs := map[key][]post{}
	var keys []key
	// peers are communicator ranks: to a location through the group's
	// global rank
	rr := trace.NewRankResolver(tr.Defs)
	locOf := func(p *trace.Process, row int32) int32 {
		g, _ := rr.Global(p.Msgs.Comm[row], p.Msgs.Peer[row], p.Rank)
		for _, q := range tr.Processes() {
			if q.Rank == g {
				return int32(q.Index)
			}
		}
		return -1
	}
	for a, p := range tr.Processes() {
		for i, k := range p.Kind {
			switch k {
			case trace.MpiSend, trace.MpiIsend:
				r := p.Ref[i]
				kk := key{int32(a), locOf(p, r), p.Msgs.Comm[r], p.Msgs.Tag[r]}
				if len(sends[kk]) == 0 {
					keys = append(keys, kk)
				}
				sends[kk] = append(sends[kk], i)
			case trace.MpiRecv, trace.MpiIrecv:
				r := p.Ref[i]
				kk := key{locOf(p, r), int32(a), p.Msgs.Comm[r], p.Msgs.Tag[r]}
				postAt := i
				if k == trace.MpiIrecv {
					for j := i - 1; j >= 0; j-- {
						if p.Kind[j] == trace.MpiIrecvRequest && p.Msgs.Request[p.Ref[j]] == p.Msgs.Request[r] {
							postAt = j
							break
						}
					}
				}
				recvs[kk] = append(recvs[kk], post{postAt, i})
			}
		}
	}
	var out []omsg
	for _, kk := range keys {
		rs := slices.Clone(recvs[kk])
		slices.SortFunc(rs, func(x, y post) int { return x.post - y.post })
		for n, s := range sends[kk] {
			if n >= len(rs) {
				break
			}
			m := omsg{from: int(kk.from), to: int(kk.to), sendEv: s, recvEv: rs[n].done, postEv: rs[n].post, completeEv: -1}
			p := tr.Process(m.from)
			if p.Kind[s] == trace.MpiIsend {
				req := p.Msgs.Request[p.Ref[s]]
				for j := s + 1; j < p.Len(); j++ {
					if p.Kind[j] == trace.MpiIsendComplete && p.Msgs.Request[p.Ref[j]] == req {
						m.completeEv = j
						break
					}
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// oinst is an oracle instance with the culprits that tie with Culprit and
// its tie-break key (the send time of a late sender's message).
type oinst struct {
	waits.Instance
	ties []int32
	tie  int64
}

type instKey struct {
	kind    waits.Kind
	process int32
	call    int32
	enter   int64
}

func keyOf(in waits.Instance) instKey { return instKey{in.Kind, in.Process, in.Call, in.Enter} }

// offer keeps, per call and kind, the instance with the largest wait; on a
// tie the one with the smaller (tie, Culprit) when ordered, else the first.
func offer(m map[instKey]*oinst, in waits.Instance, tie int64, ordered bool) {
	k := keyOf(in)
	old, ok := m[k]
	switch {
	case !ok || in.Wait > old.Wait:
		m[k] = &oinst{Instance: in, ties: []int32{in.Culprit}, tie: tie}
	case in.Wait == old.Wait:
		if !ordered {
			old.ties = append(old.ties, in.Culprit)
		}
		if ordered && (tie < old.tie || tie == old.tie && in.Culprit < old.Culprit) {
			old.Instance, old.tie = in, tie
		}
	}
}

func mkInst(kind waits.Kind, proc int, c ocall, w int64, culprit int, cc ocall) waits.Instance {
	in := waits.Instance{Kind: kind, Process: int32(proc), Call: c.idx, Region: c.region, Enter: c.enter, Leave: c.leave,
		Wait: w, Culprit: int32(culprit), CulpritCall: cc.idx, CulpritEnter: cc.enter}
	if culprit < 0 {
		in.CulpritCall, in.CulpritEnter = -1, 0
	} else {
		in.Clipped = cc.enter > c.leave
	}
	return in
}

func oracleInstances(tr *trace.Trace, ops []oproc, msgs []omsg) map[instKey]*oinst {
	out := map[instKey]*oinst{}
	ps := tr.Processes()
	// Late Sender
	for _, m := range msgs {
		R := ops[m.to].callAt(ps[m.to], m.recvEv)
		if R.idx >= 0 && strings.HasPrefix(tr.RegionName(R.region), "MPI_Test") {
			continue
		}
		S := ops[m.from].callAt(ps[m.from], m.sendEv)
		w := min(S.enter, R.leave) - R.enter
		if w <= 0 {
			continue
		}
		offer(out, mkInst(waits.LateSender, m.to, R, w, m.from, S), ps[m.from].Time[m.sendEv], true)
	}
	// Late Receiver
	for _, m := range msgs {
		sp := ps[m.from]
		var C ocall
		switch sp.Kind[m.sendEv] {
		case trace.MpiSend:
			C = ops[m.from].callAt(sp, m.sendEv)
			if C.idx >= 0 && tr.RegionName(C.region) == "MPI_Bsend" {
				continue
			}
		case trace.MpiIsend:
			if m.completeEv < 0 {
				continue
			}
			C = ops[m.from].callAt(sp, m.completeEv)
			if C.idx < 0 || tr.RegionName(C.region) != "MPI_Wait" {
				continue
			}
		}
		P := ops[m.to].callAt(ps[m.to], m.postEv)
		if C.leave < P.enter {
			continue
		}
		if w := P.enter - C.enter; w > 0 {
			offer(out, mkInst(waits.LateReceiver, m.from, C, w, m.to, P), 0, false)
		}
	}
	// Collectives
	rr := trace.NewRankResolver(tr.Defs)
	for comm := range tr.Defs.Comms {
		type part struct {
			loc  int
			call ocall
			ev   int
		}
		var perLoc [][]part
		for a, p := range ps {
			var list []part
			for i, k := range p.Kind {
				if k != trace.MpiCollectiveEnd || p.Colls.Comm[p.Ref[i]] != int32(comm) {
					continue
				}
				c := ops[a].callAt(p, i)
				if c.idx < 0 {
					c.leave = p.Time[i]
					for j := i - 1; j >= 0; j-- {
						if p.Kind[j] == trace.MpiCollectiveBegin {
							c.enter = p.Time[j]
							break
						}
					}
				}
				list = append(list, part{a, c, i})
			}
			perLoc = append(perLoc, list)
		}
		g := tr.Defs.Comms[comm].Group
		members := -1
		if g >= 0 {
			members = len(tr.Defs.Groups[g].Members)
		}
		commRank := func(loc int) int {
			if g >= 0 {
				return slices.Index(tr.Defs.Groups[g].Members, uint64(ps[loc].Rank))
			}
			return loc
		}
		for k := 0; ; k++ {
			var parts []part
			for _, list := range perLoc {
				if k < len(list) {
					parts = append(parts, list[k])
				}
			}
			if len(parts) == 0 {
				break
			}
			row := func(x part) int32 { return ps[x.loc].Ref[x.ev] }
			opOf := func(x part) uint8 { return ps[x.loc].Colls.Op[row(x)] }
			sent := func(x part) int64 { return ps[x.loc].Colls.Sent[row(x)] }
			recvd := func(x part) int64 { return ps[x.loc].Colls.Received[row(x)] }
			same := true
			for _, x := range parts {
				same = same && opOf(x) == opOf(parts[0])
			}
			if !same || members >= 0 && len(parts) < members || len(parts) < 2 {
				continue
			}
			// last returns the participant with the max Enter among those
			// that pass (ties: lowest location index).
			last := func(pass func(x part) bool) int {
				best := -1
				for i, x := range parts {
					if pass(x) && (best < 0 || x.call.enter > parts[best].call.enter) {
						best = i
					}
				}
				return best
			}
			add := func(kind waits.Kind, x part, w int64, culprit int) {
				if w <= 0 {
					return
				}
				if culprit < 0 {
					offer(out, mkInst(kind, x.loc, x.call, w, -1, ocall{}), 0, false)
					return
				}
				offer(out, mkInst(kind, x.loc, x.call, w, parts[culprit].loc, parts[culprit].call), 0, false)
			}
			completion := func(kind waits.Kind, maxEnter int64, pass func(x part) bool) {
				minLeave := int64(1 << 62)
				for _, x := range parts {
					if pass(x) {
						minLeave = min(minLeave, x.call.leave)
					}
				}
				minLeave = max(minLeave, maxEnter)
				for _, x := range parts {
					if pass(x) {
						add(kind, x, x.call.leave-minLeave, -1)
					}
				}
			}
			all := func(part) bool { return true }
			name := trace.CollectiveOpName(opOf(parts[0]))
			rootLoc := -1
			if r := ps[parts[0].loc].Colls.Root[row(parts[0])]; r != trace.RootNone {
				gr, _ := rr.Global(int32(comm), int32(r), ps[parts[0].loc].Rank)
				for i, x := range parts {
					if ps[x.loc].Rank == gr {
						rootLoc = i
					}
				}
			}
			switch name {
			case "BARRIER":
				c := last(all)
				me := parts[c].call.enter
				for _, x := range parts {
					add(waits.WaitAtBarrier, x, min(me, x.call.leave)-x.call.enter, c)
				}
				completion(waits.BarrierCompletion, me, all)
			case "ALLGATHER", "ALLGATHERV", "ALLREDUCE", "ALLTOALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK":
				c := last(func(x part) bool { return sent(x) != 0 })
				if c < 0 {
					continue
				}
				me := parts[c].call.enter
				for _, x := range parts {
					if recvd(x) != 0 {
						add(waits.WaitAtNxN, x, min(me, x.call.leave)-x.call.enter, c)
					}
				}
				completion(waits.NxNCompletion, me, func(x part) bool { return sent(x) != 0 && recvd(x) != 0 })
			case "BCAST", "SCATTER", "SCATTERV":
				if rootLoc < 0 {
					continue
				}
				re := parts[rootLoc].call.enter
				for i, x := range parts {
					if i != rootLoc && recvd(x) != 0 {
						add(waits.LateBroadcast, x, min(re, x.call.leave)-x.call.enter, rootLoc)
					}
				}
			case "REDUCE", "GATHER", "GATHERV":
				if rootLoc < 0 || recvd(parts[rootLoc]) == 0 {
					continue
				}
				first := -1
				for i, x := range parts {
					if i != rootLoc && sent(x) != 0 && (first < 0 || x.call.enter < parts[first].call.enter) {
						first = i
					}
				}
				if first >= 0 {
					r := parts[rootLoc]
					add(waits.EarlyReduce, r, min(parts[first].call.enter, r.call.leave)-r.call.enter, first)
				}
			case "SCAN", "EXSCAN":
				for _, x := range parts {
					if sent(x) == 0 && recvd(x) == 0 {
						continue
					}
					own := commRank(x.loc)
					c := last(func(y part) bool { return commRank(y.loc) <= own })
					add(waits.EarlyScan, x, min(parts[c].call.enter, x.call.leave)-x.call.enter, c)
				}
			}
		}
	}
	return out
}

// oracle is the whole literal analysis of one trace.
type oracle struct {
	tr    *trace.Trace
	ops   []oproc
	msgs  []omsg
	insts map[instKey]*oinst
}

func newOracle(tr *trace.Trace) *oracle {
	o := &oracle{tr: tr, ops: oracleProcs(tr)}
	o.msgs = oracleMessages(tr)
	o.insts = oracleInstances(tr, o.ops, o.msgs)
	return o
}

// sortedInsts returns the oracle's instances by process, Enter, kind.
func (o *oracle) sortedInsts() []*oinst {
	var out []*oinst
	for _, in := range o.insts {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b *oinst) int {
		return cmp.Or(cmp.Compare(a.Process, b.Process), cmp.Compare(a.Enter, b.Enter), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// culpritInsts returns the non-clipped instances with a culprit.
func (o *oracle) culpritInsts() []*oinst {
	var out []*oinst
	for _, in := range o.sortedInsts() {
		if in.Kind.HasCulprit() && !in.Clipped {
			out = append(out, in)
		}
	}
	return out
}

// replay is SPEC38's backward replay, literally.
func (o *oracle) replay() []waits.Segment {
	ps := o.tr.Processes()
	e, tend := 0, ps[0].Time[ps[0].Len()-1]
	for i, p := range ps {
		if t := p.Time[p.Len()-1]; t > tend {
			e, tend = i, t
		}
	}
	insts := o.culpritInsts()
	var segs []waits.Segment
	p, t, before := e, tend, int32(-1) // before: only calls with an Enter event before it (-1: Enter < t)
	for {
		var best *oinst
		for _, in := range insts {
			if int(in.Process) != p {
				continue
			}
			ok := in.Enter < t
			if before >= 0 {
				ok = in.Call < before
			}
			if !ok {
				continue
			}
			switch {
			case best == nil || in.Enter > best.Enter || in.Enter == best.Enter && in.Call > best.Call:
				best = in
			case in.Call == best.Call && in.Enter == best.Enter:
				if in.CulpritEnter > best.CulpritEnter || in.CulpritEnter == best.CulpritEnter && in.Kind < best.Kind {
					best = in
				}
			}
		}
		if best == nil {
			segs = append(segs, waits.Segment{Process: int32(p), Start: o.ops[p].first, End: t})
			break
		}
		segs = append(segs, waits.Segment{Process: int32(p), Start: best.CulpritEnter, End: t})
		p, t, before = int(best.Culprit), best.CulpritEnter, best.CulpritCall
	}
	slices.Reverse(segs)
	return segs
}

// nonEmpty drops zero-length segments.
func nonEmpty(segs []waits.Segment) []waits.Segment {
	return slices.DeleteFunc(slices.Clone(segs), func(s waits.Segment) bool { return s.Start == s.End })
}

// pathTime is SPEC38's PathTime over segs: the exclusive time of every call
// of a region named name cut to the segments.
func (o *oracle) pathTime(segs []waits.Segment, name string) int64 {
	var sum int64
	overlap := func(a, b, s, e int64) int64 { return max(0, min(b, e)-max(a, s)) }
	for _, s := range segs {
		calls := o.ops[s.Process].calls
		for i, c := range calls {
			if o.tr.RegionName(c.region) != name {
				continue
			}
			ex := overlap(c.enter, c.leave, s.Start, s.End)
			for _, d := range calls {
				if d.parent == i {
					ex -= overlap(d.enter, d.leave, s.Start, s.End)
				}
			}
			sum += ex
		}
	}
	return sum
}

// dag is SPEC38's oracle graph for the critical path.
type dag struct {
	nodes []dnode
	id    map[dnode]int
	out   [][]dedge
	src   int
}

type dnode struct {
	p int
	t int64
}

type dedge struct {
	to int
	w  int64
}

func (o *oracle) buildDAG() *dag {
	d := &dag{id: map[dnode]int{}}
	node := func(p int, t int64) int {
		n := dnode{p, t}
		if i, ok := d.id[n]; ok {
			return i
		}
		d.id[n] = len(d.nodes)
		d.nodes = append(d.nodes, n)
		d.out = append(d.out, nil)
		return len(d.nodes) - 1
	}
	t0 := int64(1 << 62)
	for _, op := range o.ops {
		t0 = min(t0, op.first)
	}
	insts := o.culpritInsts()
	times := make([][]int64, len(o.ops))
	for p, op := range o.ops {
		times[p] = append(times[p], op.first, op.last)
		for _, c := range op.calls {
			times[p] = append(times[p], c.enter, c.leave)
		}
	}
	for _, in := range insts {
		times[in.Process] = append(times[in.Process], in.Enter+in.Wait)
	}
	src := node(-1, t0)
	d.src = src
	for p := range o.ops {
		slices.Sort(times[p])
		times[p] = slices.Compact(times[p])
		d.out[src] = append(d.out[src], dedge{node(p, times[p][0]), times[p][0] - t0})
		for i := 1; i < len(times[p]); i++ {
			a, b := times[p][i-1], times[p][i]
			w := b - a
			for _, in := range insts {
				if int(in.Process) == p && in.Enter <= a && b <= in.Enter+in.Wait {
					w = 0
				}
			}
			d.out[node(p, a)] = append(d.out[node(p, a)], dedge{node(p, b), w})
		}
	}
	// dependency edges from every partner that could have caused the wait
	for _, in := range insts {
		end := node(int(in.Process), in.Enter+in.Wait)
		for _, pe := range o.partners(in) {
			if pe.t <= in.Enter+in.Wait {
				from := node(pe.p, pe.t)
				d.out[from] = append(d.out[from], dedge{end, 0})
			}
		}
	}
	return d
}

// partners returns the (location, call Enter) of every partner that could
// have caused in, by its kind's definition.
func (o *oracle) partners(in *oinst) []dnode {
	ps := o.tr.Processes()
	var out []dnode
	switch in.Kind {
	case waits.LateSender:
		for _, m := range o.msgs {
			R := o.ops[m.to].callAt(ps[m.to], m.recvEv)
			if m.to == int(in.Process) && R.idx == in.Call && R.enter == in.Enter {
				out = append(out, dnode{m.from, o.ops[m.from].callAt(ps[m.from], m.sendEv).enter})
			}
		}
	case waits.LateReceiver:
		for _, m := range o.msgs {
			ev := m.sendEv
			if m.completeEv >= 0 {
				ev = m.completeEv
			}
			C := o.ops[m.from].callAt(ps[m.from], ev)
			if m.from == int(in.Process) && C.idx == in.Call && C.enter == in.Enter {
				out = append(out, dnode{m.to, o.ops[m.to].callAt(ps[m.to], m.postEv).enter})
			}
		}
	default:
		// collectives: the participants of the same instance (the k-th on
		// its communicator) that pass the kind's filter
		k, comm := o.collIndex(int(in.Process), in.Call)
		for q := range ps {
			qev := o.nthColl(q, k, comm)
			if qev < 0 || q == int(in.Process) {
				continue
			}
			row := ps[q].Ref[qev]
			c := o.ops[q].callAt(ps[q], qev)
			sent, root := ps[q].Colls.Sent[row], ps[q].Colls.Root[row]
			switch in.Kind {
			case waits.WaitAtNxN:
				if sent == 0 {
					continue
				}
			case waits.LateBroadcast:
				g, _ := trace.NewRankResolver(o.tr.Defs).Global(comm, int32(root), ps[q].Rank)
				if root == trace.RootNone || g != ps[q].Rank {
					continue
				}
			case waits.EarlyReduce:
				if sent == 0 {
					continue
				}
			case waits.EarlyScan:
				if o.commRank(comm, q) > o.commRank(comm, int(in.Process)) {
					continue
				}
			}
			out = append(out, dnode{q, c.enter})
		}
	}
	return out
}

// collIndex returns which collective instance (the k-th MpiCollectiveEnd
// on communicator comm) of location p the call with Enter event call holds.
func (o *oracle) collIndex(p int, call int32) (k int, comm int32) {
	pr := o.tr.Process(p)
	n := map[int32]int{}
	for i, kind := range pr.Kind {
		if kind == trace.MpiCollectiveEnd {
			c := pr.Colls.Comm[pr.Ref[i]]
			if o.ops[p].callAt(pr, i).idx == call {
				return n[c], c
			}
			n[c]++
		}
	}
	return -1, -1
}

// nthColl returns the event index of location p's k-th MpiCollectiveEnd on
// communicator comm, -1 when it has none.
func (o *oracle) nthColl(p, k int, comm int32) int {
	pr := o.tr.Process(p)
	n := 0
	for i, kind := range pr.Kind {
		if kind == trace.MpiCollectiveEnd && pr.Colls.Comm[pr.Ref[i]] == comm {
			if n == k {
				return i
			}
			n++
		}
	}
	return -1
}

// longest returns the longest path lengths from the source (DP over a
// topological order); ok is false when the graph has a cycle.
func (d *dag) longest() ([]int64, bool) {
	indeg := make([]int, len(d.nodes))
	for _, es := range d.out {
		for _, e := range es {
			indeg[e.to]++
		}
	}
	var queue []int
	for i, n := range indeg {
		if n == 0 {
			queue = append(queue, i)
		}
	}
	dist := make([]int64, len(d.nodes))
	for i := range dist {
		dist[i] = -1 << 62
	}
	dist[d.src] = 0
	seen := 0
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		seen++
		for _, e := range d.out[u] {
			if dist[u] > -1<<62 {
				dist[e.to] = max(dist[e.to], dist[u]+e.w)
			}
			if indeg[e.to]--; indeg[e.to] == 0 {
				queue = append(queue, e.to)
			}
		}
	}
	return dist, seen == len(d.nodes)
}

// enumerate returns the maximum over all paths from the source to target,
// enumerated one by one, and how many there are; ok is false past limit.
func (d *dag) enumerate(target, limit int) (best int64, n int, ok bool) {
	best = -1
	var walk func(u int, l int64) bool
	walk = func(u int, l int64) bool {
		if u == target {
			n++
			best = max(best, l)
			return n <= limit
		}
		for _, e := range d.out[u] {
			if !walk(e.to, l+e.w) {
				return false
			}
		}
		return true
	}
	ok = walk(d.src, 0)
	return best, n, ok
}

func (d *dag) hasEdge(a, b dnode) (int64, bool) {
	i, ok := d.id[a]
	j, ok2 := d.id[b]
	if !ok || !ok2 {
		return 0, false
	}
	for _, e := range d.out[i] {
		if e.to == j {
			return e.w, true
		}
	}
	return 0, false
}

// zeroPath reports whether b is reached from a by edges of weight 0
// between nodes at the same time (a jump, perhaps through empty segments).
func (d *dag) zeroPath(a, b dnode) bool {
	i, ok := d.id[a]
	j, ok2 := d.id[b]
	if !ok || !ok2 {
		return false
	}
	seen := map[int]bool{i: true}
	stack := []int{i}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if u == j {
			return true
		}
		for _, e := range d.out[u] {
			if e.w == 0 && d.nodes[e.to].t == a.t && !seen[e.to] {
				seen[e.to] = true
				stack = append(stack, e.to)
			}
		}
	}
	return false
}

// segWeight returns the weight of the program-order path on s.Process from
// s.Start to s.End in d; ok is false when either end is no node.
func (d *dag) segWeight(s waits.Segment) (int64, bool) {
	u, ok := d.id[dnode{int(s.Process), s.Start}]
	if !ok {
		return 0, false
	}
	var w int64
	for d.nodes[u].t < s.End {
		next := -1
		for _, e := range d.out[u] {
			if n := d.nodes[e.to]; n.p == int(s.Process) && n.t > d.nodes[u].t {
				next = e.to
				w += e.w
				break
			}
		}
		if next < 0 {
			return 0, false
		}
		u = next
	}
	return w, d.nodes[u].t == s.End
}

func instString(in waits.Instance) string {
	return fmt.Sprintf("{%v p%d call %d [%d,%d] wait %d culprit %d call %d enter %d clipped %v}",
		in.Kind, in.Process, in.Call, in.Enter, in.Leave, in.Wait, in.Culprit, in.CulpritCall, in.CulpritEnter, in.Clipped)
}

// compareInstances returns the first difference between got and the
// oracle's instances, "" when none.
func compareInstances(o *oracle, got []waits.Instance) string {
	for i := 1; i < len(got); i++ {
		if a, b := got[i-1], got[i]; a.Process > b.Process || a.Process == b.Process && a.Enter > b.Enter {
			return "instances not by process and time: " + instString(a) + " before " + instString(b)
		}
	}
	seen := map[instKey]bool{}
	for _, g := range got {
		k := keyOf(g)
		want, ok := o.insts[k]
		if !ok {
			return "extra instance " + instString(g)
		}
		if seen[k] {
			return "duplicate instance " + instString(g)
		}
		seen[k] = true
		w := want.Instance
		if g.Region != w.Region || g.Leave != w.Leave || g.Wait != w.Wait {
			return "instance " + instString(g) + ", want " + instString(w)
		}
		if w.Kind.HasCulprit() {
			ok := g.Culprit == w.Culprit && g.CulpritCall == w.CulpritCall && g.CulpritEnter == w.CulpritEnter
			if !ok && slices.Contains(want.ties, g.Culprit) && g.CulpritEnter == w.CulpritEnter {
				ok = true // a tie the definition leaves open
			}
			if !ok || g.Clipped != w.Clipped {
				return "instance " + instString(g) + ", want " + instString(w)
			}
		} else if g.Culprit != -1 {
			return "completion instance with a culprit " + instString(g)
		}
	}
	for _, w := range o.sortedInsts() {
		if !seen[keyOf(w.Instance)] {
			return "missing instance " + instString(w.Instance)
		}
	}
	return ""
}

// checkPath compares r's critical path with the literal replay and checks
// it against the DAG; "" when it agrees.
func checkPath(o *oracle, got []waits.Segment, pathLength int64, exhaustive, useDAG bool) string {
	want := o.replay()
	if !slices.Equal(nonEmpty(got), nonEmpty(want)) {
		return fmt.Sprintf("segments %v, want (literal replay) %v", got, want)
	}
	var length int64
	for i, s := range got {
		length += s.End - s.Start
		if i > 0 && got[i-1].End != s.Start {
			return fmt.Sprintf("segments %v: %d and %d do not touch", got, i-1, i)
		}
	}
	if pathLength != length {
		return fmt.Sprintf("PathLength %d, sum of segments %d", pathLength, length)
	}
	if !useDAG {
		return ""
	}
	d := o.buildDAG()
	dist, ok := d.longest()
	if !ok {
		return "" // a cycle of simultaneous events: no DAG to check against
	}
	ps := o.tr.Processes()
	e, tend := 0, ps[0].Time[ps[0].Len()-1]
	for i, p := range ps {
		if t := p.Time[p.Len()-1]; t > tend {
			e, tend = i, t
		}
	}
	target := d.id[dnode{e, tend}]
	segs := nonEmpty(got)
	if len(segs) == 0 {
		return "empty critical path"
	}
	// the path's weight in the DAG: the source edge, the segments, the jumps
	w, ok := d.hasEdge(dnode{-1, d.nodes[d.src].t}, dnode{int(segs[0].Process), segs[0].Start})
	if !ok {
		return fmt.Sprintf("path starts at %v, no edge from the source", segs[0])
	}
	for i, s := range segs {
		sw, ok := d.segWeight(s)
		if !ok {
			return fmt.Sprintf("segment %v is no program-order path of the DAG", s)
		}
		w += sw
		if i > 0 {
			a := dnode{int(segs[i-1].Process), segs[i-1].End}
			b := dnode{int(s.Process), s.Start}
			if a != b {
				if !d.zeroPath(a, b) {
					return fmt.Sprintf("jump %v -> %v is no edge of the DAG", a, b)
				}
			}
		}
	}
	if w != dist[target] {
		return fmt.Sprintf("path weight %d in the DAG, longest path %d", w, dist[target])
	}
	if exhaustive {
		best, n, ok := d.enumerate(target, 200000)
		if ok && best != dist[target] {
			return fmt.Sprintf("enumeration of %d paths: max %d, DP %d", n, best, dist[target])
		}
	}
	return ""
}

// The oracle's own graph: on every simulated trace the DP over the DAG is
// a longest path (checked by enumerating all paths on the small ones), and
// the literal replay's path is one of them.
func TestOracleSelfConsistent(t *testing.T) {
	enumerated, cycles := 0, 0
	kinds := make([]int, waits.NumKinds)
	for seed := range uint64(200) {
		tr := simulate(seed, 3, 2)
		o := newOracle(tr)
		for _, in := range o.insts {
			kinds[in.Kind]++
		}
		d := o.buildDAG()
		dist, ok := d.longest()
		if !ok {
			cycles++
			continue
		}
		ps := tr.Processes()
		e, tend := 0, ps[0].Time[ps[0].Len()-1]
		for i, p := range ps {
			if x := p.Time[p.Len()-1]; x > tend {
				e, tend = i, x
			}
		}
		target := d.id[dnode{e, tend}]
		if best, n, ok := d.enumerate(target, 100000); ok {
			enumerated++
			if best != dist[target] {
				t.Fatalf("seed %d: enumeration of %d paths gives %d, DP %d", seed, n, best, dist[target])
			}
		}
		segs := o.replay()
		var l int64
		for _, s := range segs {
			l += s.End - s.Start
		}
		t0 := slices.Min(func() []int64 {
			var f []int64
			for _, op := range o.ops {
				f = append(f, op.first)
			}
			return f
		}())
		if l+o.ops[segs[0].Process].first-t0 != dist[target] {
			t.Fatalf("seed %d: replay length %d (+ start %d), longest path %d; segments %v", seed, l,
				o.ops[segs[0].Process].first-t0, dist[target], segs)
		}
	}
	if enumerated < 50 || cycles > 0 {
		t.Errorf("only %d traces small enough to enumerate, %d with a cycle", enumerated, cycles)
	}
	for k, n := range kinds {
		if n == 0 {
			t.Errorf("no %v in 200 simulated traces", waits.Kind(k))
		}
	}
	t.Logf("instances per kind %v, %d traces enumerated", kinds, enumerated)
}

// TestAgainstOracle compares Analyze with the literal oracle on random
// simulated traces: the instances, the critical path, PathTime per region.
func TestAgainstOracle(t *testing.T) {
	failures := 0
	for seed := range uint64(300) {
		tr := simulate(seed, 5, 1+int(seed%4))
		o := newOracle(tr)
		r := waits.Analyze(tr)
		if msg := compareInstances(o, r.InstanceRows()); msg != "" {
			t.Errorf("seed %d (simulate(%d, 5, %d)): %s", seed, seed, 1+seed%4, msg)
			failures++
		} else if msg := checkPath(o, r.SegmentRows(), r.PathLength(), seed%4 == 0, true); msg != "" {
			t.Errorf("seed %d (simulate(%d, 5, %d)): critical path: %s", seed, seed, 1+seed%4, msg)
			failures++
		} else {
			for _, name := range simNames {
				if got, want := r.PathTime(name), o.pathTime(r.SegmentRows(), name); got != want {
					t.Errorf("seed %d: PathTime(%q) = %d, want %d", seed, name, got, want)
					failures++
					break
				}
			}
		}
		if failures >= 5 {
			t.Fatal("stopping after 5 failing seeds")
		}
	}
}

// delayKey is a row of the delay table.
type delayKey struct {
	kind waits.Kind
	path string
}

// callPath returns the " → "-joined names from the outermost call down to
// call i of location p.
func (o *oracle) callPath(p, i int) string {
	var names []string
	for ; i >= 0; i = o.ops[p].calls[i].parent {
		names = append(names, o.tr.RegionName(o.ops[p].calls[i].region))
	}
	slices.Reverse(names)
	return strings.Join(names, " → ")
}

// execTime returns the execution time per call path on location p in the
// interval (a, b): the exclusive time of every call cut to it, less the
// waiting portions of the location's wait instances with a culprit.
func (o *oracle) execTime(p int, a, b int64) map[string]int64 {
	out := map[string]int64{}
	if b <= a {
		return out
	}
	overlap := func(x, y int64) int64 { return max(0, min(y, b)-max(x, a)) }
	calls := o.ops[p].calls
	for i, c := range calls {
		ex := overlap(c.enter, c.leave)
		for _, d := range calls {
			if d.parent == i {
				ex -= overlap(d.enter, d.leave)
			}
		}
		// the waiting portions of this call (the union of its instances')
		var wait int64
		for _, in := range o.sortedInsts() {
			if int(in.Process) == p && in.Call == c.idx && in.Kind.HasCulprit() {
				wait = max(wait, overlap(in.Enter, in.Enter+in.Wait))
			}
		}
		if ex -= wait; ex > 0 {
			out[o.callPath(p, i)] += ex
		}
	}
	return out
}

// syncPoints returns the pairs (call on w, call on c) of every message
// between w and c (w's end, c's end) and of every collective both took part
// in (the k-th of each on a communicator: the simulated collectives are
// never skipped, every member takes part).
func (o *oracle) syncPoints(w, c int) [][2]ocall {
	ps := o.tr.Processes()
	var out [][2]ocall
	for _, m := range o.msgs {
		switch {
		case m.from == w && m.to == c:
			out = append(out, [2]ocall{o.ops[w].callAt(ps[w], m.sendEv), o.ops[c].callAt(ps[c], m.recvEv)})
		case m.from == c && m.to == w:
			out = append(out, [2]ocall{o.ops[w].callAt(ps[w], m.recvEv), o.ops[c].callAt(ps[c], m.sendEv)})
		}
	}
	for comm := range o.tr.Defs.Comms {
		for k := 0; ; k++ {
			ew, ec := o.nthColl(w, k, int32(comm)), o.nthColl(c, k, int32(comm))
			if ew < 0 || ec < 0 {
				break
			}
			out = append(out, [2]ocall{o.ops[w].callAt(ps[w], ew), o.ops[c].callAt(ps[c], ec)})
		}
	}
	return out
}

// commRank returns location p's rank in communicator comm (through its
// group), -1 when it is no member.
func (o *oracle) commRank(comm int32, p int) int {
	if g := o.tr.Defs.Comms[comm].Group; g >= 0 {
		return slices.Index(o.tr.Defs.Groups[g].Members, uint64(o.tr.Process(p).Rank))
	}
	return p
}

// waitIn returns the waiting time of location p in the interval (a, b):
// the union of the waiting portions of each of its calls' instances with a
// culprit, cut to the interval.
func (o *oracle) waitIn(p int, a, b int64) int64 {
	var sum int64
	for _, c := range o.ops[p].calls {
		var w int64
		for _, in := range o.sortedInsts() {
			if int(in.Process) == p && in.Call == c.idx && in.Kind.HasCulprit() {
				w = max(w, max(0, min(in.Enter+in.Wait, b)-max(in.Enter, a)))
			}
		}
		sum += w
	}
	return sum
}

// delays is the delay cost per (kind, call path), literally (Böhme et
// al.'s short- and long-term costs as the package notes define them), with
// two readings where SPEC38 leaves room: the previous synchronisation point
// must be before the wait on both sides (its call on c enters before the
// culprit call), and when the waiter's call of that point is the other end
// of several messages with c, c's call is the latest of theirs. Each wait,
// latest end first (ties by location, call, kind), splits its waiting time
// plus what later waits passed to it between the culprit's excess
// execution per call path and its excess waiting; the latter goes to the
// culprit's waits in the interval by their waiting times. It returns the
// costs and the waiting no excess explains.
func (o *oracle) delays() (map[delayKey]int64, int64) {
	out := map[delayKey]int64{}
	var lost int64
	insts := o.culpritInsts()
	order := slices.Clone(insts)
	slices.SortStableFunc(order, func(a, b *oinst) int { return cmp.Compare(b.CulpritEnter, a.CulpritEnter) })
	pool := map[*oinst]int64{}
	done := map[*oinst]bool{}
	for _, in := range order {
		w, c := int(in.Process), int(in.Culprit)
		wa, ca := o.ops[w].first, o.ops[c].first
		var latest *[2]ocall
		for _, sp := range o.syncPoints(w, c) {
			if sp[0].enter < in.Enter && sp[1].enter < in.CulpritEnter && (latest == nil || sp[0].enter > latest[0].enter ||
				sp[0].enter == latest[0].enter && sp[1].enter > latest[1].enter) {
				latest = &sp
			}
		}
		if latest != nil {
			wa, ca = latest[0].leave, latest[1].leave
		}
		tw := o.execTime(w, wa, in.Enter)
		tc := o.execTime(c, ca, in.CulpritEnter)
		excess := map[string]int64{}
		var sum int64
		var paths []string
		for cp, x := range tc {
			if e := x - tw[cp]; e > 0 {
				excess[cp] = e
				sum += e
				paths = append(paths, cp)
			}
		}
		eWait := max(0, o.waitIn(c, ca, in.CulpritEnter)-o.waitIn(w, wa, in.Enter))
		total := in.Wait + pool[in]
		done[in] = true
		if sum+eWait == 0 {
			lost += total
			continue
		}
		prop := total * eWait / (sum + eWait)
		if prop > 0 {
			var ys []*oinst
			var ysum int64
			var top *oinst
			for _, y := range insts {
				if int(y.Process) == c && y.Enter > ca && y.Enter < in.CulpritEnter {
					ys = append(ys, y)
					ysum += y.Wait
					if top == nil || y.Wait > top.Wait {
						top = y
					}
				}
			}
			if ysum == 0 {
				lost += prop
			} else {
				give := func(y *oinst, v int64) {
					if done[y] {
						lost += v
					} else {
						pool[y] += v
					}
				}
				var given int64
				for _, y := range ys {
					v := prop * y.Wait / ysum
					give(y, v)
					given += v
				}
				give(top, prop-given)
			}
		}
		direct := total - prop
		if direct == 0 || sum == 0 {
			continue
		}
		slices.Sort(paths)
		var given int64
		top := paths[0]
		for _, cp := range paths {
			cost := direct * excess[cp] / sum
			out[delayKey{in.Kind, cp}] += cost
			given += cost
			if excess[cp] > excess[top] {
				top = cp
			}
		}
		out[delayKey{in.Kind, top}] += direct - given
	}
	for k, v := range out {
		if v == 0 {
			delete(out, k)
		}
	}
	return out, lost
}

// compareDelays returns the first difference between r's delay rows and
// the oracle's, "" when none.
func compareDelays(o *oracle, rows []waits.Delay) string {
	want, _ := o.delays()
	got := map[delayKey]int64{}
	for _, d := range rows {
		if d.Cost != 0 {
			got[delayKey{d.Kind, d.Path}] += d.Cost
		}
	}
	var keys []delayKey
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b delayKey) int { return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.path, b.path)) })
	for _, k := range keys {
		if got[k] != want[k] {
			return fmt.Sprintf("delay of %v at %q: %d, want %d", k.kind, k.path, got[k], want[k])
		}
	}
	return ""
}

// TestDelaysAgainstOracle compares the delay table with the literal
// oracle on random simulated traces.
func TestDelaysAgainstOracle(t *testing.T) {
	failures := 0
	for seed := range uint64(300) {
		tr := simulate(seed, 5, 1+int(seed%4))
		o := newOracle(tr)
		if msg := compareDelays(o, waits.Analyze(tr).DelayRows()); msg != "" {
			t.Errorf("seed %d (simulate(%d, 5, %d)): %s", seed, seed, 1+seed%4, msg)
			if failures++; failures >= 5 {
				t.Fatal("stopping after 5 failing seeds")
			}
		}
	}
}

// The delay oracle conserves waiting: its costs, none negative, and the
// waiting it cannot attribute sum to the waits that have a culprit (costs
// move between kinds when a wait passes its cost on to an earlier one), and
// some waits pass costs on.
func TestDelayOracleBounds(t *testing.T) {
	attributed, passedOn := 0, 0
	for seed := range uint64(100) {
		tr := simulate(seed, 5, 3)
		o := newOracle(tr)
		var waitSum, costSum int64
		for _, in := range o.culpritInsts() {
			waitSum += in.Wait
		}
		costs, lost := o.delays()
		for k, v := range costs {
			if v < 0 {
				t.Fatalf("seed %d: negative cost %v %d", seed, k, v)
			}
			costSum += v
			attributed++
		}
		if costSum+lost != waitSum {
			t.Fatalf("seed %d: costs %d + not attributed %d != waits %d", seed, costSum, lost, waitSum)
		}
		byKind := map[waits.Kind]int64{}
		for k, v := range costs {
			byKind[k.kind] += v
		}
		for _, in := range o.culpritInsts() {
			if byKind[in.Kind] > 0 {
				byKind[in.Kind] -= in.Wait
			}
		}
		for _, v := range byKind {
			if v > 0 { // a kind got more than its own waits: costs were passed on to it
				passedOn++
				break
			}
		}
	}
	if attributed == 0 {
		t.Error("no delay attributed in 100 simulated traces")
	}
	if passedOn == 0 {
		t.Error("no simulated trace passes a wait's cost on to an earlier wait")
	}
}

// skewed returns simulate(seed, ...) with every location's clock shifted by
// up to 40 ns: clock condition violations, clipped waits.
func skewed(seed uint64, maxLocs, rounds int) *trace.Trace {
	tr := simulate(seed, maxLocs, rounds)
	rng := rand.New(rand.NewPCG(seed, 99))
	for _, p := range tr.Processes() {
		off := int64(rng.IntN(40))
		for i := range p.Time {
			p.Time[i] += off
		}
	}
	return tr
}

// TestAgainstOracleSkewed compares Analyze with the oracle on traces with
// skewed clocks: the instances (with Clipped), the literal replay (which
// skips clipped waits; no longest-path check, the clocks contradict the
// causality it assumes) and the delays.
func TestAgainstOracleSkewed(t *testing.T) {
	failures, clipped := 0, 0
	for seed := range uint64(300) {
		tr := skewed(seed, 5, 1+int(seed%4))
		o := newOracle(tr)
		for _, in := range o.insts {
			if in.Clipped {
				clipped++
			}
		}
		r := waits.Analyze(tr)
		msg := compareInstances(o, r.InstanceRows())
		if msg == "" {
			msg = checkPath(o, r.SegmentRows(), r.PathLength(), false, false)
		}
		if msg == "" {
			msg = compareDelays(o, r.DelayRows())
		}
		if msg != "" {
			t.Errorf("seed %d (skewed(%d, 5, %d)): %s", seed, seed, 1+seed%4, msg)
			if failures++; failures >= 5 {
				t.Fatal("stopping after 5 failing seeds")
			}
		}
	}
	if clipped == 0 {
		t.Error("no clipped wait in 300 skewed traces")
	}
}

// The comparisons have teeth: Analyze's answers on simulated traces, each
// changed a little, are rejected.
func TestOracleCatchesMutations(t *testing.T) {
	tried := 0
	for seed := range uint64(40) {
		tr := simulate(seed, 4, 3)
		o := newOracle(tr)
		r := waits.Analyze(tr)
		insts, segs, delays := r.InstanceRows(), r.SegmentRows(), r.DelayRows()
		if len(insts) == 0 || len(nonEmpty(segs)) < 2 || len(delays) == 0 {
			continue
		}
		tried++
		for name, mutate := range map[string]func([]waits.Instance) []waits.Instance{
			"wait+1":  func(x []waits.Instance) []waits.Instance { x[0].Wait++; return x },
			"culprit": func(x []waits.Instance) []waits.Instance { x[0].Culprit = (x[0].Culprit + 1) % 5; return x },
			"dropped": func(x []waits.Instance) []waits.Instance { return x[1:] },
			"kind": func(x []waits.Instance) []waits.Instance {
				x[0].Kind = (x[0].Kind + 1) % waits.Kind(waits.NumKinds)
				return x
			},
			"enter": func(x []waits.Instance) []waits.Instance {
				i := slices.IndexFunc(x, func(in waits.Instance) bool { return in.Kind.HasCulprit() })
				x[max(i, 0)].CulpritEnter--
				return x
			},
			"duplicated": func(x []waits.Instance) []waits.Instance { return append(x, x[len(x)-1]) },
		} {
			if compareInstances(o, mutate(slices.Clone(insts))) == "" {
				t.Errorf("seed %d: instances %s: not caught", seed, name)
			}
		}
		segs = nonEmpty(segs)
		moved := slices.Clone(segs)
		moved[0].End--
		moved[1].Start--
		if checkPath(o, moved, r.PathLength(), false, true) == "" {
			t.Errorf("seed %d: a moved jump not caught", seed)
		}
		if checkPath(o, segs, r.PathLength()+1, false, true) == "" {
			t.Errorf("seed %d: a wrong PathLength not caught", seed)
		}
		d := slices.Clone(delays)
		d[0].Cost++
		if compareDelays(o, d) == "" {
			t.Errorf("seed %d: a wrong delay not caught", seed)
		}
	}
	if tried < 10 {
		t.Errorf("only %d traces with instances, a critical path of 2 segments and delays", tried)
	}
}
