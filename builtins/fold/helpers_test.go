package fold

import (
	"fmt"
	"math/rand/v2"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// pb builds one location's events by hand.
type pb struct{ p *trace.Process }

func newPB() *pb { return &pb{p: &trace.Process{}} }

func (b *pb) ev(k trace.EventKind, t int64, ref int32) *pb {
	b.p.Kind = append(b.p.Kind, k)
	b.p.Time = append(b.p.Time, t)
	b.p.Ref = append(b.p.Ref, ref)
	return b
}
func (b *pb) enter(t int64, r int32) *pb { return b.ev(trace.Enter, t, r) }
func (b *pb) leave(t int64, r int32) *pb { return b.ev(trace.Leave, t, r) }

// traceOf returns a trace of CPU processes over regions named names (tracetest.Trace).
var traceOf = tracetest.Trace

func regionNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r%d", i)
	}
	return out
}

// randProc returns a random location over nreg regions: nested calls, ties
// in time, a few Leaves that do not nest (of an enclosing call, of no open
// call, with no call open, of an unknown region), other events, and
// sometimes calls left open at the end.
func randProc(rng *rand.Rand, nreg, events int) *trace.Process {
	b := newPB()
	t := int64(rng.IntN(20))
	var stack []int32
	for range events {
		t += int64(rng.IntN(4)) // 0: ties
		switch x := rng.IntN(100); {
		case x < 45 && len(stack) < 8:
			r := int32(rng.IntN(nreg))
			stack = append(stack, r)
			b.enter(t, r)
		case x < 85 && len(stack) > 0:
			b.leave(t, stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		case x < 89 && len(stack) > 1: // an enclosing call's Leave
			j := rng.IntN(len(stack) - 1)
			b.leave(t, stack[j])
			stack = stack[:j]
		case x < 92: // a region that may be open or not
			b.leave(t, int32(rng.IntN(nreg)))
			stack = nil // the builder's stack is the truth; ours only guides
			stackFromEvents(b.p, &stack)
		case x < 94 && len(stack) > 0:
			b.leave(t, -1)
			stack = stack[:len(stack)-1]
		default:
			b.ev(trace.MpiSend, t, b.p.Msgs.Add(0, 0, 0, 8, 0))
		}
	}
	if rng.IntN(3) > 0 {
		for len(stack) > 0 {
			t += int64(rng.IntN(3))
			b.leave(t, stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
	}
	return b.p
}

// stackFromEvents recomputes the open calls after all of p's events with
// bruteStack.
func stackFromEvents(p *trace.Process, stack *[]int32) {
	*stack = bruteStack(p, len(p.Kind))
}

// bruteStack replays the first n events of p with the repair rule of
// trace.CallTree, written out here (no trace.MatchLeave): a Leave of the
// innermost call (or of region < 0) closes it; of an enclosing call, that
// call and those inside; otherwise it is ignored.
func bruteStack(p *trace.Process, n int) []int32 {
	var st []int32
	for i := range n {
		switch p.Kind[i] {
		case trace.Enter:
			st = append(st, p.Ref[i])
		case trace.Leave:
			r := p.Ref[i]
			if len(st) == 0 {
				continue
			}
			if r < 0 {
				st = st[:len(st)-1]
				continue
			}
			for j := len(st) - 1; j >= 0; j-- {
				if st[j] == r {
					st = st[:j]
					break
				}
			}
		}
	}
	return st
}

// bruteState is the state of p at t by a scan of all its events.
func bruteState(p *trace.Process, t int64) int32 {
	if len(p.Time) == 0 || t >= p.Time[len(p.Time)-1] {
		return NoState // from the last event on (calls left open are closed there)
	}
	n := 0
	for n < len(p.Time) && p.Time[n] <= t {
		n++
	}
	st := bruteStack(p, n)
	if len(st) == 0 {
		return NoState
	}
	return st[len(st)-1]
}

// bruteSelect applies eq. 6.1-6.4 literally to seq, ties to the smallest
// state in the order (region id ascending, NoState greatest).
func bruteSelect(op Op, seq []int32) int32 {
	count := func(s int32, seq []int32) int {
		n := 0
		for _, x := range seq {
			if x == s {
				n++
			}
		}
		return n
	}
	less := func(a, b int32) bool {
		if a == NoState {
			return false
		}
		return b == NoState || a < b
	}
	pick := func(seq []int32, better func(ci, ck int) bool) int32 {
		if len(seq) == 0 {
			return NoState
		}
		var cands []int32
		for _, si := range seq {
			ok := true
			for _, sk := range seq {
				if better(count(sk, seq), count(si, seq)) {
					ok = false
				}
			}
			if ok {
				cands = append(cands, si)
			}
		}
		best := cands[0]
		for _, c := range cands {
			if less(c, best) {
				best = c
			}
		}
		return best
	}
	var rest []int32
	for _, s := range seq {
		if s != NoState {
			rest = append(rest, s)
		}
	}
	maxOK := func(ck, ci int) bool { return ck > ci } // violates count(s_k) <= count(s_i)
	minOK := func(ck, ci int) bool { return ck < ci }
	switch op {
	case Max:
		return pick(seq, maxOK)
	case Min:
		return pick(seq, minOK)
	case Diff:
		same := true
		for _, s := range seq {
			if s != seq[0] {
				same = false
			}
		}
		if same {
			return NoState
		}
		return pick(rest, minOK)
	case Idle:
		if len(rest) == 0 {
			return NoState
		}
		return pick(rest, maxOK)
	}
	panic("op")
}
