package waits_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/waits"
)

// One small trace per kind of wait state, the expected instances computed
// by hand from SPEC38's definitions (in the comments). Regions are simNames
// (rMain, rCompute, rSend, ...); every location has main around its calls.

// hw is an expected instance: the waiting call (location, region, Enter),
// the wait, and the culprit with the Enter of its call (-1, 0 for the
// completions).
type hw struct {
	kind         waits.Kind
	proc         int
	region       int
	enter, leave int64
	wait         int64
	culprit      int
	culpritEnter int64
	clipped      bool
}

// enterAt returns the event index of the Enter at time t on location p
// that is not of main, -1 when there is none.
func enterAt(tr *trace.Trace, p int, t int64) int32 {
	pr := tr.Process(p)
	for i, k := range pr.Kind {
		if k == trace.Enter && pr.Time[i] == t && pr.Ref[i] != rMain {
			return int32(i)
		}
	}
	return -1
}

func (w hw) instance(tr *trace.Trace) waits.Instance {
	in := waits.Instance{Kind: w.kind, Process: int32(w.proc), Call: enterAt(tr, w.proc, w.enter), Region: int32(w.region),
		Enter: w.enter, Leave: w.leave, Wait: w.wait, Culprit: int32(w.culprit), CulpritCall: -1, CulpritEnter: w.culpritEnter,
		Clipped: w.clipped}
	if w.culprit >= 0 {
		in.CulpritCall = enterAt(tr, w.culprit, w.culpritEnter)
	}
	return in
}

// checkInstances compares r's instances with want, field by field but the
// call path (and CulpritEnter of the completions, which have no culprit).
func checkInstances(t *testing.T, tr *trace.Trace, r *waits.Result, want ...hw) {
	t.Helper()
	var exp []string
	for _, w := range want {
		exp = append(exp, instString(w.instance(tr)))
	}
	var got []string
	for _, in := range r.InstanceRows() {
		if !in.Kind.HasCulprit() {
			in.CulpritEnter = 0
		}
		got = append(got, instString(in))
	}
	slices.Sort(exp)
	slices.Sort(got)
	if !slices.Equal(got, exp) {
		t.Errorf("instances\n got %v\nwant %v", got, exp)
	}
}

func checkSegments(t *testing.T, r *waits.Result, length int64, want ...waits.Segment) {
	t.Helper()
	if got := nonEmpty(r.SegmentRows()); !slices.Equal(got, want) {
		t.Errorf("segments %v, want %v", got, want)
	}
	if got := r.PathLength(); got != length {
		t.Errorf("PathLength %d, want %d", got, length)
	}
}

// mains gives location i main from 0 to ends[i].
func mains(ends ...int64) []*loc {
	var ls []*loc
	for _, e := range ends {
		l := &loc{}
		l.call(rMain, 0, e)
		ls = append(ls, l)
	}
	return ls
}

// Late Sender with MPI_Recv. Rank 1 enters MPI_Recv [10,70] at 10; rank 0
// computes [1,50] and enters MPI_Send [51,60] at 51: w = min(S.Enter 51,
// R.Leave 70) - R.Enter 10 = 41, culprit 0 entering at 51. Late receiver
// for the send: P.Enter 10 - C.Enter 51 < 0, none.
// Critical path: the last event is rank 1's main Leave at 100 (rank 0 ends
// at 90). On rank 1 the latest culprit call before 100 is the MPI_Recv:
// segment [51,100] on 1, jump to (0, 51); on rank 0 no call before its
// MPI_Send waits: [0,51] on 0. PathLength 100. PathTime: compute [1,50]
// lies in [0,51] on 0: 49; MPI_Recv ∩ [51,100] on 1 = [51,70]: 19; main:
// 51-49 = 2 on rank 0, 49-19 = 30 on rank 1: 32; MPI_Send 0 (the path
// leaves rank 0 when it enters it).
func lateSenderRecv() []hcase {
	ls := mains(90, 100)
	ls[0].call(rCompute, 1, 50)
	ls[0].call(rSend, 51, 60)
	ls[0].send(trace.MpiSend, 52, 1, 0, 0)
	ls[1].call(rRecv, 10, 70)
	ls[1].send(trace.MpiRecv, 69, 0, 0, 0)
	tr := buildTrace(simNames, ls)
	return []hcase{{"late sender MPI_Recv", tr, []hw{{waits.LateSender, 1, rRecv, 10, 70, 41, 0, 51, false}},
		[]waits.Segment{{Process: 0, Start: 0, End: 51}, {Process: 1, Start: 51, End: 100}}, 100,
		map[string]int64{"compute": 49, "MPI_Recv": 19, "main": 32, "MPI_Send": 0, "solve": 0}}}
}

// Late Sender in MPI_Waitall of two messages. Rank 2 posts MPI_Irecv from 0
// (req 1, [2,4]) and from 1 (req 2, [5,7]) and waits in MPI_Waitall
// [10,150]. Rank 0 sends at MPI_Send [81,90], rank 1 at [121,130]. Message
// from 0: w = min(81,150) - 10 = 71; from 1: min(121,150) - 10 = 111. The
// latest sender counts once: one instance, wait 111, culprit 1 at 121.
// Late receiver: the receives were posted at 2 and 5, before the sends: none.
// Critical path: rank 2 ends last (210): [121,210] on 2, jump to (1,121),
// no earlier wait on 1: [0,121] on 1. PathLength 210.
func lateSenderWaitall() []hcase {
	ls := mains(200, 200, 210)
	ls[2].call(rIrecv, 2, 4)
	ls[2].send(trace.MpiIrecvRequest, 3, 0, 0, 1)
	ls[2].call(rIrecv, 5, 7)
	ls[2].send(trace.MpiIrecvRequest, 6, 0, 0, 2)
	ls[2].call(rWaitall, 10, 150)
	ls[2].send(trace.MpiIrecv, 148, 0, 0, 1)
	ls[2].send(trace.MpiIrecv, 149, 1, 0, 2)
	ls[0].call(rCompute, 1, 80)
	ls[0].call(rSend, 81, 90)
	ls[0].send(trace.MpiSend, 82, 2, 0, 0)
	ls[1].call(rCompute, 1, 120)
	ls[1].call(rSend, 121, 130)
	ls[1].send(trace.MpiSend, 122, 2, 0, 0)
	tr := buildTrace(simNames, ls)
	return []hcase{{"late sender MPI_Waitall", tr, []hw{{waits.LateSender, 2, rWaitall, 10, 150, 111, 1, 121, false}},
		[]waits.Segment{{Process: 1, Start: 0, End: 121}, {Process: 2, Start: 121, End: 210}}, 210,
		map[string]int64{"compute": 119, "MPI_Waitall": 29, "MPI_Send": 0, "main": 210 - 119 - 29}}}
}

// Late Receiver with MPI_Send. Rank 0 enters MPI_Send [10,60] at 10; rank 1
// computes [1,40] and posts MPI_Recv [41,55] at 41. C = the send's call
// [10,60], P = the receive's call [41,55]; C.Leave 60 >= P.Enter 41, so
// w = 41 - 10 = 31, culprit 1 at 41. Late sender: min(10,55) - 41 < 0.
// Critical path: rank 0 ends last (100): [41,100] on 0, jump to (1,41),
// [0,41] on 1; PathLength 100.
func lateReceiverSend() []hcase {
	ls := mains(100, 90)
	ls[0].call(rSend, 10, 60)
	ls[0].send(trace.MpiSend, 11, 1, 0, 0)
	ls[1].call(rCompute, 1, 40)
	ls[1].call(rRecv, 41, 55)
	ls[1].send(trace.MpiRecv, 54, 0, 0, 0)
	tr := buildTrace(simNames, ls)
	return []hcase{{"late receiver MPI_Send", tr, []hw{{waits.LateReceiver, 0, rSend, 10, 60, 31, 1, 41, false}},
		[]waits.Segment{{Process: 1, Start: 0, End: 41}, {Process: 0, Start: 41, End: 100}}, 100, nil}}
}

// Late Receiver with MPI_Isend + MPI_Wait. Rank 0: MPI_Isend [5,8] (req 7),
// MPI_Wait [10,60] completing req 7. Rank 1: MPI_Recv [41,55]. C = the
// MPI_Wait [10,60], P = [41,55]: w = 41 - 10 = 31, culprit 1 at 41. The
// same with MPI_Waitall instead of MPI_Wait: no late receiver (only
// MPI_Wait counts), and no late sender (the Isend at 5 is before 41).
func lateReceiverIsendWait() []hcase {
	var cs []hcase
	for _, waitRegion := range []int{rWait, rWaitall} {
		ls := mains(100, 90)
		ls[0].call(rIsend, 5, 8)
		ls[0].send(trace.MpiIsend, 6, 1, 0, 7)
		ls[0].call(waitRegion, 10, 60)
		ls[0].send(trace.MpiIsendComplete, 59, 0, 0, 7)
		ls[1].call(rCompute, 1, 40)
		ls[1].call(rRecv, 41, 55)
		ls[1].send(trace.MpiRecv, 54, 0, 0, 0)
		tr := buildTrace(simNames, ls)
		if waitRegion == rWait {
			cs = append(cs, hcase{"late receiver MPI_Isend+MPI_Wait", tr, []hw{{waits.LateReceiver, 0, rWait, 10, 60, 31, 1, 41, false}}, nil, 0, nil})
		} else {
			cs = append(cs, hcase{"no late receiver MPI_Isend+MPI_Waitall", tr, nil, nil, 0, nil})
		}
	}
	return cs
}

// collTrace returns a trace of one collective call per location, [enter[i],
// leave[i]] of region, with main [0,100] around it.
func collTrace(region int, root uint32, enter, leave, sent, received []int64) *trace.Trace {
	var ls []*loc
	op := collOp(map[int]string{rBarrier: "BARRIER", rAllreduce: "ALLREDUCE", rBcast: "BCAST", rReduce: "REDUCE", rScan: "SCAN"}[region])
	for i := range enter {
		l := &loc{}
		l.call(rMain, 0, 100)
		l.call(region, enter[i], leave[i])
		l.coll(enter[i]+1, leave[i]-1, op, root, sent[i], received[i])
		ls = append(ls, l)
	}
	return buildTrace(simNames, ls)
}

// Wait at Barrier and Barrier Completion. Enters 31, 51, 21; leaves 60, 58,
// 70. maxEnter = 51 (rank 1). Wait at barrier: rank 0 min(51,60) - 31 = 20,
// rank 2 min(51,70) - 21 = 30, culprit 1 at 51. Completion: minLeave = 58
// (>= 51): rank 0 60 - 58 = 2, rank 2 70 - 58 = 12.
func barrierCase() []hcase {
	tr := collTrace(rBarrier, trace.RootNone, []int64{31, 51, 21}, []int64{60, 58, 70}, []int64{0, 0, 0}, []int64{0, 0, 0})
	return []hcase{{"wait at barrier", tr, []hw{{waits.WaitAtBarrier, 0, rBarrier, 31, 60, 20, 1, 51, false},
		{waits.WaitAtBarrier, 2, rBarrier, 21, 70, 30, 1, 51, false},
		{waits.BarrierCompletion, 0, rBarrier, 31, 60, 2, -1, 0, false},
		{waits.BarrierCompletion, 2, rBarrier, 21, 70, 12, -1, 0, false}}, nil, 0, nil}}
}

// Wait at N×N on MPI_Allreduce. Enters 10, 40, 25; leaves 60, 61, 65; all
// send and receive. maxEnter = 40 (rank 1): rank 0 waits min(40,60) - 10 =
// 30, rank 2 min(40,65) - 25 = 15. Completion: minLeave 60: rank 1 61-60 =
// 1, rank 2 65-60 = 5.
func allreduceCase() []hcase {
	tr := collTrace(rAllreduce, trace.RootNone, []int64{10, 40, 25}, []int64{60, 61, 65}, []int64{8, 8, 8}, []int64{8, 8, 8})
	return []hcase{{"wait at N×N MPI_Allreduce", tr, []hw{{waits.WaitAtNxN, 0, rAllreduce, 10, 60, 30, 1, 40, false},
		{waits.WaitAtNxN, 2, rAllreduce, 25, 65, 15, 1, 40, false},
		{waits.NxNCompletion, 1, rAllreduce, 40, 61, 1, -1, 0, false},
		{waits.NxNCompletion, 2, rAllreduce, 25, 65, 5, -1, 0, false}}, nil, 0, nil}}
}

// Late Broadcast, root rank 1 entering at 30. Rank 0 [10,50] waits
// min(30,50) - 10 = 20, culprit 1 at 30; rank 2 enters at 40, after the
// root: no wait; the root never waits.
func lateBroadcastCase() []hcase {
	tr := collTrace(rBcast, 1, []int64{10, 30, 40}, []int64{50, 35, 45}, []int64{0, 8, 0}, []int64{8, 0, 8})
	return []hcase{{"late broadcast", tr, []hw{{waits.LateBroadcast, 0, rBcast, 10, 50, 20, 1, 30, false}}, nil, 0, nil}}
}

// Early Reduce, root rank 0 entering at 10 [10,60]; the others enter at 30
// and 40: first = 30 (rank 1), w = min(30,60) - 10 = 20, culprit 1 at 30.
func earlyReduceCase() []hcase {
	tr := collTrace(rReduce, 0, []int64{10, 30, 40}, []int64{60, 35, 45}, []int64{8, 8, 8}, []int64{24, 0, 0})
	return []hcase{{"early reduce", tr, []hw{{waits.EarlyReduce, 0, rReduce, 10, 60, 20, 1, 30, false}}, nil, 0, nil}}
}

// Early Scan. Enters 30, 10, 20, 45 (ranks 0..3). Rank 0: m = 30, its own:
// none. Rank 1: m = max(30,10) = 30 (rank 0): w = min(30,50) - 10 = 20.
// Rank 2: m = max(30,10,20) = 30: w = min(30,55) - 20 = 10. Rank 3: m = 45,
// its own: none.
func earlyScanCase() []hcase {
	tr := collTrace(rScan, trace.RootNone, []int64{30, 10, 20, 45}, []int64{40, 50, 55, 60}, []int64{8, 8, 8, 8}, []int64{8, 8, 8, 8})
	return []hcase{{"early scan", tr, []hw{{waits.EarlyScan, 1, rScan, 10, 50, 20, 0, 30, false},
		{waits.EarlyScan, 2, rScan, 20, 55, 10, 0, 30, false}}, nil, 0, nil}}
}

// A clock violation: rank 0's MPI_Recv [10,30] completes before rank 1
// enters its MPI_Send [40,45]. w = min(40,30) - 10 = 20, culprit 1 at 40,
// Clipped (40 > 30). Late receiver: P.Enter 10 - C.Enter 40 < 0. The
// critical path skips a clipped wait: rank 0 ends last (100), no
// non-clipped wait: one segment [0,100] on 0.
func clippedCase() []hcase {
	ls := mains(100, 90)
	ls[0].call(rRecv, 10, 30)
	ls[0].send(trace.MpiRecv, 29, 1, 0, 0)
	ls[1].call(rSend, 40, 45)
	ls[1].send(trace.MpiSend, 41, 0, 0, 0)
	tr := buildTrace(simNames, ls)
	return []hcase{{"clipped late sender", tr, []hw{{waits.LateSender, 0, rRecv, 10, 30, 20, 1, 40, true}},
		[]waits.Segment{{Process: 0, Start: 0, End: 100}}, 100, map[string]int64{"MPI_Recv": 20, "main": 80}}}
}

// Ties of late senders: rank 0 waits in MPI_Waitall [10,100] for messages
// from 1 (MPI_Send [165,175], record at 170) and 2 (MPI_Send [155,170],
// record at 160), both after its Leave (clock violations): w = min(165,100)
// - 10 = min(155,100) - 10 = 90 for both. The tie goes to the earlier
// message in send order, rank 2's (160 < 170): culprit 2 at 155, Clipped.
func lateSenderTie() []hcase {
	ls := mains(200, 200, 200)
	ls[0].call(rIrecv, 1, 3)
	ls[0].send(trace.MpiIrecvRequest, 2, 0, 0, 1)
	ls[0].call(rIrecv, 4, 6)
	ls[0].send(trace.MpiIrecvRequest, 5, 0, 0, 2)
	ls[0].call(rWaitall, 10, 100)
	ls[0].send(trace.MpiIrecv, 98, 1, 0, 1)
	ls[0].send(trace.MpiIrecv, 99, 2, 0, 2)
	ls[1].call(rSend, 165, 175)
	ls[1].send(trace.MpiSend, 170, 0, 0, 0)
	ls[2].call(rSend, 155, 170)
	ls[2].send(trace.MpiSend, 160, 0, 0, 0)
	tr := buildTrace(simNames, ls)
	return []hcase{{"late sender tie", tr, []hw{{waits.LateSender, 0, rWaitall, 10, 100, 90, 2, 155, true}}, nil, 0, nil}}
}

// hcase is a hand-made trace with its expected instances and, when segs
// is not nil, its critical path.
type hcase struct {
	name     string
	tr       *trace.Trace
	want     []hw
	segs     []waits.Segment
	length   int64
	pathTime map[string]int64
}

func handmadeCases() []hcase {
	var cs []hcase
	for _, f := range []func() []hcase{lateSenderRecv, lateSenderWaitall, lateReceiverSend, lateReceiverIsendWait,
		barrierCase, allreduceCase, lateBroadcastCase, earlyReduceCase, earlyScanCase, clippedCase, lateSenderTie} {
		cs = append(cs, f()...)
	}
	return cs
}

// TestHandmade checks Analyze on every hand-made trace: its instances
// exactly, and on four of them the critical path and PathTime.
func TestHandmade(t *testing.T) {
	for _, c := range handmadeCases() {
		t.Run(c.name, func(t *testing.T) {
			r := waits.Analyze(c.tr)
			checkInstances(t, c.tr, r, c.want...)
			if c.segs != nil {
				checkSegments(t, r, c.length, c.segs...)
			}
			for name, want := range c.pathTime {
				if got := r.PathTime(name); got != want {
					t.Errorf("PathTime(%q) = %d, want %d", name, got, want)
				}
			}
		})
	}
}

// The hand-made expectations agree with the oracle's (both derived from
// the definitions independently): its instances, its replay, its PathTime.
func TestHandmadeOracleAgrees(t *testing.T) {
	for _, c := range handmadeCases() {
		o := newOracle(c.tr)
		var got, want []string
		for _, in := range o.sortedInsts() {
			got = append(got, instString(in.Instance))
		}
		for _, w := range c.want {
			want = append(want, instString(w.instance(c.tr)))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: oracle %v, by hand %v", c.name, got, want)
		}
		if c.segs != nil {
			if segs := nonEmpty(o.replay()); !slices.Equal(segs, c.segs) {
				t.Errorf("%s: oracle replay %v, by hand %v", c.name, segs, c.segs)
			}
		}
		for name, want := range c.pathTime {
			if got := o.pathTime(c.segs, name); got != want {
				t.Errorf("%s: oracle PathTime(%q) = %d, by hand %d", c.name, name, got, want)
			}
		}
	}
}

// Delay by hand. Rank 1 computes [2,10] and waits in MPI_Recv [11,70];
// rank 0 computes [1,31], solves [31,51] and sends at MPI_Send [52,60]:
// late sender, W = 52 - 11 = 41. No earlier synchronisation: the intervals
// start at the first events (0). On rank 1, (0,11): main 3, main → compute
// 8. On rank 0, (0,52): main 2, main → compute 30, main → solve 20.
// Excess: main 0, compute 22, solve 20 (sum 42). Costs: compute
// floor(41*22/42) = 21, solve floor(41*20/42) = 19, the remainder 1 to
// compute (the largest excess): compute 22, solve 19.
// On the Late Sender MPI_Recv trace: rank 1 (0,10) main 10; rank 0 (0,51)
// main 2, main → compute 49: all 41 to main → compute. On the MPI_Waitall
// trace: rank 2 (0,10) main 6, main → MPI_Irecv 4; rank 1 (0,121) main 2,
// main → compute 119: all 111 to main → compute.
func TestHandmadeDelay(t *testing.T) {
	ls := mains(100, 100)
	ls[0].call(rCompute, 1, 31)
	ls[0].call(rSolve, 31, 51)
	ls[0].call(rSend, 52, 60)
	ls[0].send(trace.MpiSend, 53, 1, 0, 0)
	ls[1].call(rCompute, 2, 10)
	ls[1].call(rRecv, 11, 70)
	ls[1].send(trace.MpiRecv, 69, 0, 0, 0)
	cs := handmadeCases()
	for _, c := range []struct {
		tr   *trace.Trace
		want map[delayKey]int64
	}{
		{buildTrace(simNames, ls), map[delayKey]int64{{waits.LateSender, "main → compute"}: 22, {waits.LateSender, "main → solve"}: 19}},
		{cs[0].tr, map[delayKey]int64{{waits.LateSender, "main → compute"}: 41}},
		{cs[1].tr, map[delayKey]int64{{waits.LateSender, "main → compute"}: 111}},
	} {
		checkDelays(t, c.tr, waits.Analyze(c.tr), c.want)
	}
}

// Delay after an MPI_Waitall of many messages between the same two
// locations: the previous synchronisation point is the waiter's MPI_Waitall
// with the culprit's LAST MPI_Isend it completed (the latest of c's calls
// of that point). Rank 0 posts 20 receives (MPI_Irecv [1+3k,3+3k]), waits
// in MPI_Waitall [61,400], computes [401,410] and receives tag 1 in MPI_Recv
// [411,600]. Rank 1 computes [10+15k,20+15k] and sends at MPI_Isend
// [21+15k,23+15k], k = 0..19 (the last at [306,308]), solves [310,500]
// and sends tag 1 at MPI_Send [501,510].
// Late sender in the MPI_Waitall: w = min(306,400) - 61 = 245, culprit 1 at
// 306; no earlier synchronisation (the MPI_Irecv calls only post): rank 0
// (0,61): main 21, MPI_Irecv 40; rank 1 (0,306): compute 200, MPI_Isend 38,
// main 68. Excess main 47, compute 200, MPI_Isend 38 (sum 285): main
// floor(245*47/285) = 40, MPI_Isend floor(245*38/285) = 32, compute
// floor(245*200/285) = 171 + the remainder 2 = 173.
// Late sender in the MPI_Recv: w = 501 - 411 = 90, culprit 1 at 501; the
// previous point: MPI_Waitall [61,400] with MPI_Isend [306,308]: rank 0
// (400,411): main 2, compute 9; rank 1 (308,501): main 3, solve 190. Excess
// main 1, solve 190 (sum 191): main 0, solve 89 + the remainder 1 = 90.
func TestHandmadeDelayManyMessages(t *testing.T) {
	ls := mains(1000, 1000)
	for k := range int64(20) {
		ls[0].call(rIrecv, 1+3*k, 3+3*k)
		ls[0].send(trace.MpiIrecvRequest, 2+3*k, 0, 0, 100+k)
		ls[0].send(trace.MpiIrecv, 380+k, 1, 0, 100+k)
		ls[1].call(rCompute, 10+15*k, 20+15*k)
		ls[1].call(rIsend, 21+15*k, 23+15*k)
		ls[1].send(trace.MpiIsend, 22+15*k, 0, 0, 200+k)
	}
	ls[0].call(rWaitall, 61, 400)
	ls[0].call(rCompute, 401, 410)
	ls[0].call(rRecv, 411, 600)
	ls[0].send(trace.MpiRecv, 599, 1, 1, 0)
	ls[1].call(rSolve, 310, 500)
	ls[1].call(rSend, 501, 510)
	ls[1].send(trace.MpiSend, 502, 0, 1, 0)
	tr := buildTrace(simNames, ls)
	want := map[delayKey]int64{{waits.LateSender, "main"}: 40, {waits.LateSender, "main → compute"}: 173,
		{waits.LateSender, "main → MPI_Isend"}: 32, {waits.LateSender, "main → solve"}: 90}
	checkDelays(t, tr, waits.Analyze(tr), want)
}

// The previous synchronisation point lies behind many collectives the
// culprit took no part in. Ranks 0, 1, 2 meet at MPI_Barrier (world): rank
// 0 [21,200] after init [1,20], rank 2 [22,200], rank 1 [101,200] after
// compute [1,100]. Ranks 0 and 2 then call MPI_Allreduce 70 times on a
// communicator of their own, together ([201+3k,203+3k]), and rank 0
// receives in MPI_Recv [420,500] what rank 1 sends at MPI_Send [451,460]
// after solve [201,450].
// Wait at barrier: rank 0 101 - 21 = 80, rank 2 101 - 22 = 79, culprit 1;
// no earlier synchronisation: rank 0 (0,21) main 2, init 19; rank 2
// (0,22) main 22; rank 1 (0,101) main 2, compute 99: all to main → compute
// (80 + 79 = 159).
// Late sender: 451 - 420 = 31, culprit 1. The previous synchronisation of
// 0 and 1 is the barrier: rank 0 (200,420): MPI_Allreduce 140, main 80;
// rank 1 (200,451): main 1, solve 250: all 31 to main → solve.
func TestHandmadeDelayBehindCollectives(t *testing.T) {
	ls := mains(600, 600, 600)
	ls[0].call(rInit, 1, 20)
	ls[0].call(rBarrier, 21, 200)
	ls[0].coll(22, 199, collOp("BARRIER"), trace.RootNone, 0, 0)
	ls[2].call(rBarrier, 22, 200)
	ls[2].coll(23, 199, collOp("BARRIER"), trace.RootNone, 0, 0)
	ls[1].call(rCompute, 1, 100)
	ls[1].call(rBarrier, 101, 200)
	ls[1].coll(102, 199, collOp("BARRIER"), trace.RootNone, 0, 0)
	for _, p := range []int{0, 2} {
		ls[p].comm = 1
		for k := range int64(70) {
			ls[p].call(rAllreduce, 201+3*k, 203+3*k)
			ls[p].coll(202+3*k, 202+3*k, collOp("ALLREDUCE"), trace.RootNone, 8, 8)
		}
		ls[p].comm = 0
	}
	ls[0].call(rRecv, 420, 500)
	ls[0].send(trace.MpiRecv, 499, 1, 0, 0)
	ls[1].call(rSolve, 201, 450)
	ls[1].call(rSend, 451, 460)
	ls[1].send(trace.MpiSend, 452, 0, 0, 0)
	tr := buildTrace(simNames, ls, []uint64{0, 2})
	want := map[delayKey]int64{{waits.WaitAtBarrier, "main → compute"}: 159, {waits.LateSender, "main → solve"}: 31}
	// (Analyze once looked back over at most 64 collectives and started
	// the intervals at the first events instead: main → compute 8, main →
	// solve 23.)
	checkDelays(t, tr, waits.Analyze(tr), want)
}

// A wait passed on: rank 2 computes [0,50] and sends to rank 1, which
// waits in MPI_Recv [10,55] (late sender, 50-10 = 40, culprit 2) and then
// sends to rank 0, which waits in MPI_Recv [10,60] (55-10 = 45, culprit 1).
// Rank 0's wait, the later (it ends at 55): no previous synchronisation of
// 0 and 1, so the intervals start at 0. Rank 0 in (0,10): compute 10.
// Rank 1 in (0,55): compute 10, MPI_Recv 45 less its waiting 40 = 5, and
// waiting 40. Excess execution: main → MPI_Recv 5; excess waiting 40. Of
// the 45, 45*40/45 = 40 pass on to rank 1's wait in the interval, 5 stay
// with main → MPI_Recv. Rank 1's wait then has 40 + 40 = 80 to give: rank 1
// in (0,10) computes 10, rank 2 in (0,50) computes 50: all 80 to main →
// compute (rank 2). Delay costs per location: rank 1 5, rank 2 80, and
// nothing unattributed. The critical path: all end at 100, rank 0 first:
// [55,100] on 0, [50,55] on 1, [0,50] on 2.
func TestHandmadeDelayPassedOn(t *testing.T) {
	ls := mains(100, 100, 100)
	ls[2].call(rCompute, 0, 50)
	ls[2].call(rSend, 50, 52)
	ls[2].send(trace.MpiSend, 51, 1, 0, 0)
	ls[1].call(rCompute, 0, 10)
	ls[1].call(rRecv, 10, 55)
	ls[1].send(trace.MpiRecv, 54, 2, 0, 0)
	ls[1].call(rSend, 55, 57)
	ls[1].send(trace.MpiSend, 56, 0, 0, 0)
	ls[0].call(rCompute, 0, 10)
	ls[0].call(rRecv, 10, 60)
	ls[0].send(trace.MpiRecv, 59, 1, 0, 0)
	tr := buildTrace(simNames, ls)
	r := waits.Analyze(tr)
	checkInstances(t, tr, r, hw{waits.LateSender, 1, rRecv, 10, 55, 40, 2, 50, false}, hw{waits.LateSender, 0, rRecv, 10, 60, 45, 1, 55, false})
	want := map[delayKey]int64{{waits.LateSender, "main → MPI_Recv"}: 5, {waits.LateSender, "main → compute"}: 80}
	checkDelays(t, tr, r, want)
	if _, lost := newOracle(tr).delays(); lost != 0 {
		t.Errorf("the oracle leaves %d ns not attributed, by hand 0", lost)
	}
	if u := r.Unattributed(waits.LateSender); u != 0 {
		t.Errorf("%d ns not attributed, want 0", u)
	}
	byLoc, err := r.Processes().Int64s("Delay Cost (ns)")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(byLoc, []int64{0, 5, 80}) {
		t.Errorf("delay cost per location %v, want [0 5 80]", byLoc)
	}
	checkSegments(t, r, 100, waits.Segment{Process: 2, Start: 0, End: 50}, waits.Segment{Process: 1, Start: 50, End: 55},
		waits.Segment{Process: 0, Start: 55, End: 100})
}

// checkDelays compares the delay costs per kind and call path of the
// oracle on tr and of r (Analyze of tr) with want, derived by hand.
func checkDelays(t *testing.T, tr *trace.Trace, r *waits.Result, want map[delayKey]int64) {
	t.Helper()
	if o, _ := newOracle(tr).delays(); !maps.Equal(o, want) {
		t.Errorf("oracle delays %v, by hand %v", o, want)
	}
	got := map[delayKey]int64{}
	for _, d := range r.DelayRows() {
		if d.Cost != 0 {
			got[delayKey{d.Kind, d.Path}] += d.Cost
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("delays %v, want %v", got, want)
	}
}
