package waits_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// rec is one message or collective record of a hand-made or simulated
// location: its kind, time and the fields of its side-table row.
type rec struct {
	kind           trace.EventKind
	t              int64
	comm           int32
	peer, tag      int32
	req            int64
	op             uint8
	root           uint32
	sent, received int64
}

// loc is a location under construction: its calls (region index, Enter,
// Leave) and records, each record strictly inside its MPI call.
type loc struct {
	calls []tracetest.Call
	recs  []rec
	comm  int32 // the communicator of the records added next
}

func (l *loc) call(region int, enter, leave int64) {
	l.calls = append(l.calls, tracetest.Call{int64(region), enter, leave})
}

func (l *loc) send(kind trace.EventKind, t int64, peer, tag int32, req int64) {
	l.recs = append(l.recs, rec{kind: kind, t: t, comm: l.comm, peer: peer, tag: tag, req: req})
}

func (l *loc) coll(begin, end int64, op uint8, root uint32, sent, received int64) {
	l.recs = append(l.recs, rec{kind: trace.MpiCollectiveBegin, t: begin},
		rec{kind: trace.MpiCollectiveEnd, t: end, comm: l.comm, op: op, root: root, sent: sent, received: received})
}

// buildProcess merges l's records into the events of its calls
// (tracetest.Process) in time order: a record goes after every event at or
// before its time, so that a record strictly inside its call lies between
// the call's Enter and Leave.
func buildProcess(l *loc) *trace.Process {
	calls := slices.Clone(l.calls)
	slices.SortStableFunc(calls, func(a, b tracetest.Call) int {
		if a[1] != b[1] {
			return int(a[1] - b[1])
		}
		return int(b[2] - a[2])
	})
	base := tracetest.Process(calls...)
	recs := slices.Clone(l.recs)
	slices.SortStableFunc(recs, func(a, b rec) int { return int(a.t - b.t) })
	p := &trace.Process{}
	add := func(k trace.EventKind, t int64, ref int32) {
		p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, t), append(p.Ref, ref)
	}
	j := 0
	// flush writes the records at or before t
	flush := func(t int64) {
		for ; j < len(recs) && recs[j].t <= t; j++ {
			r := recs[j]
			switch r.kind {
			case trace.MpiCollectiveBegin:
				add(r.kind, r.t, -1)
			case trace.MpiCollectiveEnd:
				add(r.kind, r.t, p.Colls.Add(r.op, r.comm, r.root, r.sent, r.received))
			case trace.MpiIsendComplete, trace.MpiIrecvRequest:
				add(r.kind, r.t, p.Msgs.Add(-1, -1, -1, 0, r.req))
			default:
				add(r.kind, r.t, p.Msgs.Add(r.peer, r.comm, r.tag, 8, r.req))
			}
		}
	}
	for i := range base.Kind {
		flush(base.Time[i] - 1)
		add(base.Kind[i], base.Time[i], base.Ref[i])
		if i+1 == len(base.Kind) || base.Time[i+1] > base.Time[i] {
			flush(base.Time[i])
		}
	}
	flush(1 << 62)
	return p
}

// buildTrace returns a trace of locs over the regions named names (MPI_*
// regions of paradigm "mpi") with a communicator MPI_COMM_WORLD whose group
// holds every location (rank i = location i) and one communicator per sub
// (comm 1, 2, ...: its rank r is global rank sub[r]).
func buildTrace(names []string, locs []*loc, subs ...[]uint64) *trace.Trace {
	d := &trace.Definitions{}
	for _, n := range names {
		par := "user"
		if strings.HasPrefix(n, "MPI_") {
			par = "mpi"
		}
		d.Regions = append(d.Regions, trace.Region{Name: n, Canonical: n, Role: "function", Paradigm: par})
	}
	g := trace.Group{Name: "world", Type: "comm_locations", Paradigm: "mpi"}
	for i := range locs {
		g.Members = append(g.Members, uint64(i))
	}
	d.Groups = []trace.Group{g}
	d.Comms = []trace.Comm{{Name: "MPI_COMM_WORLD", Group: 0, Parent: -1}}
	for i, m := range subs {
		d.Groups = append(d.Groups, trace.Group{Name: fmt.Sprintf("sub %d", i+1), Type: "comm_group", Paradigm: "mpi", Members: m})
		d.Comms = append(d.Comms, trace.Comm{Name: fmt.Sprintf("sub %d", i+1), Group: int32(i + 1), Parent: 0})
	}
	var procs []*trace.Process
	for i, l := range locs {
		p := buildProcess(l)
		p.Rank, p.Name = int32(i), fmt.Sprintf("rank %d", i)
		procs = append(procs, p)
	}
	return trace.NewTrace(d, procs)
}

// The regions of simulated traces.
var simNames = []string{"main", "compute", "solve", "init", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
	"MPI_Waitall", "MPI_Wait", "MPI_Sendrecv", "MPI_Barrier", "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce", "MPI_Scan",
	"MPI_Allgather", "MPI_Alltoall", "MPI_Scatter", "MPI_Gather", "MPI_Exscan", "MPI_Alltoallv"}

const (
	rMain = iota
	rCompute
	rSolve
	rInit
	rSend
	rRecv
	rIsend
	rIrecv
	rWaitall
	rWait
	rSendrecv
	rBarrier
	rAllreduce
	rBcast
	rReduce
	rScan
	rAllgather
	rAlltoall
	rScatter
	rGather
	rExscan
	rAlltoallv
)

func collOp(name string) uint8 {
	op, ok := trace.ParseCollectiveOp(name)
	if !ok {
		panic(name)
	}
	return op
}

// simulate returns a random trace that cannot deadlock and is causally
// consistent: a receive completes no earlier than its send's record plus a
// latency, a synchronous send no earlier than its receive was posted, a
// collective's waiting participants no earlier than the last one they wait
// for entered. Every call lasts at least 2 ns and calls on a location are
// separated by at least 1 ns, records lie strictly inside their calls.
func simulate(seed uint64, maxLocs, rounds int) *trace.Trace {
	rng := rand.New(rand.NewPCG(seed, seed*7+1))
	n := 2 + rng.IntN(maxLocs-1)
	locs := make([]*loc, n)
	now := make([]int64, n) // each location's clock: the end of its last call
	start := make([]int64, n)
	for i := range locs {
		locs[i] = &loc{}
		start[i] = int64(rng.IntN(20))
		now[i] = start[i] + 1
	}
	dur := func(max int) int64 { return 2 + int64(rng.IntN(max)) }
	gap := func() int64 { return 1 + int64(rng.IntN(3)) }
	lat := int64(1 + rng.IntN(3))
	var req int64
	// a second communicator over some locations in a shuffled order
	var sub []int
	if n >= 3 && rng.IntN(2) == 0 {
		sub = rng.Perm(n)[:2+rng.IntN(n-1)]
	}
	// mpiCall enters an MPI call on p after a gap and returns its Enter.
	enter := func(p int) int64 { now[p] += gap(); return now[p] }
	compute := func(p int) {
		for range rng.IntN(3) {
			e := enter(p)
			d := dur(40)
			r := rCompute + rng.IntN(3)
			locs[p].call(r, e, e+d)
			if d > 6 && rng.IntN(2) == 0 { // a nested call
				ce := e + 1 + int64(rng.IntN(int(d-4)))
				cl := ce + 1 + int64(rng.IntN(int(e+d-1-ce)))
				locs[p].call(rCompute+rng.IntN(3), ce, cl)
			}
			now[p] = e + d
		}
	}
	for range rounds {
		for p := range n {
			compute(p)
		}
		perm := rng.Perm(n)
		for k := 0; k+1 < len(perm); k += 2 {
			a, b := perm[k], perm[k+1]
			tag := int32(rng.IntN(2))
			comm := int32(0)
			pr := func(x int) int32 { return int32(x) } // x's rank in comm
			if sub != nil && slices.Contains(sub, a) && slices.Contains(sub, b) && rng.IntN(2) == 0 {
				comm = 1
				pr = func(x int) int32 { return int32(slices.Index(sub, x)) }
			}
			locs[a].comm, locs[b].comm = comm, comm
			switch rng.IntN(4) {
			case 0: // a: MPI_Send to b; b: MPI_Recv from a (sometimes synchronous)
				sync := rng.IntN(2) == 0
				se := enter(a)
				re := enter(b)
				srec := se + 1
				rl := max(re+dur(5), srec+lat+1)
				rrec := rl - 1
				sl := se + dur(5)
				if sync {
					sl = max(sl, re+lat+1)
				}
				locs[a].call(rSend, se, sl)
				locs[a].send(trace.MpiSend, srec, pr(b), tag, 0)
				locs[b].call(rRecv, re, rl)
				locs[b].send(trace.MpiRecv, rrec, pr(a), tag, 0)
				now[a], now[b] = sl, rl
			case 1: // both: MPI_Irecv, MPI_Isend (one or two messages), MPI_Waitall
				msgs := 1 + rng.IntN(2)
				var isendAt [2][]int64    // record times of the Isends
				var rreq, sreq [2][]int64 // request ids
				pair := [2]int{a, b}
				for s, p := range pair {
					for range msgs {
						e := enter(p)
						req++
						rreq[s] = append(rreq[s], req)
						locs[p].call(rIrecv, e, e+2)
						locs[p].send(trace.MpiIrecvRequest, e+1, 0, 0, req)
						now[p] = e + 2
					}
					if rng.IntN(2) == 0 {
						compute(p)
					}
					for range msgs {
						e := enter(p)
						req++
						sreq[s] = append(sreq[s], req)
						locs[p].call(rIsend, e, e+2)
						locs[p].send(trace.MpiIsend, e+1, pr(pair[1-s]), tag, req)
						isendAt[s] = append(isendAt[s], e+1)
						now[p] = e + 2
					}
					if rng.IntN(2) == 0 {
						compute(p)
					}
				}
				for s, p := range pair {
					e := enter(p)
					last := slices.Max(isendAt[1-s]) + lat
					l := max(e+dur(4)+int64(2*msgs), last+int64(2*msgs)+1)
					locs[p].call(rWaitall, e, l)
					t := l - 1 - int64(2*msgs)
					for m := range msgs {
						t++
						locs[p].send(trace.MpiIsendComplete, t, 0, 0, sreq[s][m])
						t++
						locs[p].send(trace.MpiIrecv, t, pr(pair[1-s]), tag, rreq[s][m])
					}
					now[p] = l
				}
			case 2: // a: MPI_Isend + MPI_Wait (sometimes synchronous); b: MPI_Recv
				sync := rng.IntN(2) == 0
				req++
				ie := enter(a)
				locs[a].call(rIsend, ie, ie+2)
				locs[a].send(trace.MpiIsend, ie+1, pr(b), tag, req)
				now[a] = ie + 2
				if rng.IntN(2) == 0 {
					compute(a)
				}
				we := enter(a)
				re := enter(b)
				rl := max(re+dur(5), ie+1+lat+1)
				wl := we + dur(4)
				if sync {
					wl = max(wl, re+lat+1)
				}
				locs[a].call(rWait, we, wl)
				locs[a].send(trace.MpiIsendComplete, wl-1, 0, 0, req)
				locs[b].call(rRecv, re, rl)
				locs[b].send(trace.MpiRecv, rl-1, pr(a), tag, 0)
				now[a], now[b] = wl, rl
			case 3: // both: MPI_Sendrecv with each other
				ae, be := enter(a), enter(b)
				al := max(ae+dur(4)+2, be+1+lat+2)
				bl := max(be+dur(4)+2, ae+1+lat+2)
				locs[a].call(rSendrecv, ae, al)
				locs[a].send(trace.MpiSend, ae+1, pr(b), tag, 0)
				locs[a].send(trace.MpiRecv, al-1, pr(b), tag, 0)
				locs[b].call(rSendrecv, be, bl)
				locs[b].send(trace.MpiSend, be+1, pr(a), tag, 0)
				locs[b].send(trace.MpiRecv, bl-1, pr(a), tag, 0)
				now[a], now[b] = al, bl
			}
		}
		if rng.IntN(2) == 0 {
			ops := []int{rBarrier, rAllreduce, rBcast, rReduce, rScan, rAllgather, rAlltoall, rScatter, rGather, rExscan, rAlltoallv}
			op := ops[rng.IntN(len(ops))]
			members := make([]int, n) // the participants by communicator rank
			for i := range members {
				members[i] = i
			}
			comm := int32(0)
			if sub != nil && rng.IntN(3) == 0 {
				members, comm = sub, 1
			}
			m := len(members)
			root := rng.IntN(m)
			enters := make([]int64, m)
			for i, p := range members {
				enters[i] = enter(p)
			}
			maxEnter := slices.Max(enters)
			// an N×N participant that sends or receives nothing, sometimes
			mute, deaf := -1, -1
			if rng.IntN(4) == 0 {
				mute = rng.IntN(m)
			}
			if rng.IntN(4) == 0 {
				deaf = rng.IntN(m)
			}
			maxSender := int64(-1)
			for i, e := range enters {
				if i != mute {
					maxSender = max(maxSender, e)
				}
			}
			for i, p := range members {
				e := enters[i]
				l := e + dur(4)
				var sent, received int64
				rt := uint32(trace.RootNone)
				name := strings.ToUpper(strings.TrimPrefix(simNames[op], "MPI_"))
				switch op {
				case rBarrier:
					l = max(l, maxEnter+lat+1)
				case rAllreduce, rAllgather, rAlltoall:
					l = max(l, maxSender+lat+1)
					sent, received = 8, 8
					if i == mute {
						sent = 0
					}
					if i == deaf {
						received = 0
					}
				case rAlltoallv:
					l = max(l, maxEnter+lat+1)
					sent, received = 8, 8
				case rBcast, rScatter:
					rt = uint32(root)
					if i == root {
						sent = 8
					} else {
						received = 8
						l = max(l, enters[root]+lat+1)
					}
				case rReduce, rGather:
					rt = uint32(root)
					if i == root {
						received = 8 * int64(m)
						l = max(l, maxEnter+lat+1)
					}
					sent = 8
				case rScan, rExscan:
					sent, received = 8, 8
					l = max(l, slices.Max(enters[:i+1])+lat+1)
				}
				locs[p].call(op, e, l)
				locs[p].comm = comm
				locs[p].coll(e+1, l-1, collOp(name), rt, sent, received)
				now[p] = l
			}
		}
	}
	end := slices.Max(now)
	for p := range n {
		locs[p].call(rMain, start[p], max(now[p], end-int64(rng.IntN(5)))+1)
	}
	if sub != nil {
		var g []uint64
		for _, p := range sub {
			g = append(g, uint64(p))
		}
		return buildTrace(simNames, locs, g)
	}
	return buildTrace(simNames, locs)
}

// The simulated traces are consistent by construction: every location's
// events are in time order, its calls nest and every record lies inside an
// MPI call.
func TestSimulateWellFormed(t *testing.T) {
	kinds := map[trace.EventKind]int{}
	subMsgs, subColls := 0, 0
	for seed := range uint64(50) {
		tr := simulate(seed, 5, 4)
		for _, p := range tr.Processes() {
			for _, c := range p.Msgs.Comm {
				if c == 1 {
					subMsgs++
				}
			}
			for _, c := range p.Colls.Comm {
				if c == 1 {
					subColls++
				}
			}
			if !slices.IsSorted(p.Time) {
				t.Fatalf("seed %d: process %d times not sorted", seed, p.Index)
			}
			var stack []int32
			for i, k := range p.Kind {
				kinds[k]++
				switch k {
				case trace.Enter:
					stack = append(stack, p.Ref[i])
				case trace.Leave:
					if len(stack) == 0 || stack[len(stack)-1] != p.Ref[i] {
						t.Fatalf("seed %d: process %d event %d: unmatched leave", seed, p.Index, i)
					}
					stack = stack[:len(stack)-1]
				default:
					if len(stack) == 0 || !strings.HasPrefix(tr.RegionName(stack[len(stack)-1]), "MPI_") {
						t.Fatalf("seed %d: process %d event %d (%v): not inside an MPI call", seed, p.Index, i, k)
					}
				}
			}
			if len(stack) != 0 {
				t.Fatalf("seed %d: process %d: calls left open", seed, p.Index)
			}
		}
	}
	for _, k := range []trace.EventKind{trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv,
		trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiCollectiveBegin, trace.MpiCollectiveEnd} {
		if kinds[k] == 0 {
			t.Errorf("no %v record in 50 simulated traces", k)
		}
	}
	if subMsgs == 0 || subColls == 0 {
		t.Errorf("%d messages and %d collectives on a second communicator in 50 simulated traces", subMsgs, subColls)
	}
}
