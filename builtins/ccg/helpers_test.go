package ccg

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// pb builds one location's events by hand.
type pb struct {
	p *trace.Process
}

func newPB() *pb { return &pb{p: &trace.Process{Name: "test"}} }

func (b *pb) ev(k trace.EventKind, t int64, ref int32) *pb {
	b.p.Kind = append(b.p.Kind, k)
	b.p.Time = append(b.p.Time, t)
	b.p.Ref = append(b.p.Ref, ref)
	return b
}
func (b *pb) enter(t int64, r int32) *pb { return b.ev(trace.Enter, t, r) }
func (b *pb) leave(t int64, r int32) *pb { return b.ev(trace.Leave, t, r) }

func (b *pb) msg(k trace.EventKind, t int64, peer, tag int32, bytes, req int64) *pb {
	return b.ev(k, t, b.p.Msgs.Add(peer, 0, tag, bytes, req))
}

func (b *pb) coll(t int64, op uint8, sent, recvd int64) *pb {
	return b.ev(trace.MpiCollectiveEnd, t, b.p.Colls.Add(op, 0, trace.RootNone, sent, recvd))
}

func (b *pb) metric(t int64, vals ...uint64) *pb {
	types := make([]uint8, len(vals))
	for i := range types {
		types[i] = trace.MetricUint64
	}
	return b.ev(trace.Metric, t, b.p.Metrics.Add(0, types, vals))
}

// regionDefs returns definitions with n regions r0, r1, ...
func regionDefs(n int) *trace.Definitions {
	d := &trace.Definitions{}
	for i := range n {
		d.Regions = append(d.Regions, trace.Region{Name: fmt.Sprintf("r%d", i), Role: "function", Paradigm: "user"})
	}
	// Metric class 0 (pb.metric): an accumulated counter, stored as
	// differences, and an absolute value, stored as it is.
	d.MetricMembers = []trace.MetricMember{{Name: "ins", ValueType: "uint64", Mode: "accumulated_start"},
		{Name: "level", ValueType: "uint64", Mode: "absolute_point"}}
	d.MetricClasses = []trace.MetricClass{{Members: []int32{0, 1}}}
	return d
}

func traceOf(nreg int, procs ...*trace.Process) *trace.Trace {
	for i, p := range procs {
		p.Rank = int32(i)
		p.Name = fmt.Sprintf("rank %d", i)
	}
	return trace.NewTrace(regionDefs(nreg), procs)
}

// randProc generates a properly nested random location: a few motifs
// (random call subtrees with atomic events) repeated with small timing
// variation, so that equal and similar sub-trees occur. durs are drawn
// from a small set so that exact repeats happen.
func randProc(rng *rand.Rand, nreg, reps int, jitter int64) *trace.Process {
	b := newPB()
	t := int64(rng.IntN(50))
	var req int64
	var ins uint64
	// A motif is a sequence of emit steps replayed per repetition.
	type step struct {
		kind   int // 0 enter, 1 leave, 2 send, 3 recv, 4 isend, 5 coll, 6 metric, 7 isend-complete
		region int32
		gap    int64
		peer   int32
		bytes  int64
	}
	var gen func(depth int) []step
	gen = func(depth int) []step {
		var out []step
		n := rng.IntN(4)
		if depth == 0 {
			n = 1 + rng.IntN(3)
		}
		for range n {
			r := int32(rng.IntN(nreg))
			out = append(out, step{kind: 0, region: r, gap: int64(rng.IntN(3) * 10)})
			if depth < 4 && rng.IntN(3) > 0 {
				out = append(out, gen(depth+1)...)
			}
			switch rng.IntN(8) {
			case 0:
				out = append(out, step{kind: 2, gap: 5, peer: int32(rng.IntN(4)), bytes: int64(rng.IntN(3) * 100)})
			case 1:
				out = append(out, step{kind: 3, gap: 5, peer: int32(rng.IntN(4)), bytes: int64(rng.IntN(3) * 100)})
			case 2:
				out = append(out, step{kind: 4, gap: 0, peer: int32(rng.IntN(4)), bytes: 64}, step{kind: 7, gap: 3})
			case 3:
				out = append(out, step{kind: 5, gap: 7, bytes: 8})
			case 4:
				out = append(out, step{kind: 6, gap: 1})
			}
			out = append(out, step{kind: 1, region: r, gap: int64(1 + rng.IntN(4)*10)})
		}
		return out
	}
	motifs := make([][]step, 1+rng.IntN(3))
	for i := range motifs {
		motifs[i] = gen(0)
	}
	for range reps {
		m := motifs[rng.IntN(len(motifs))]
		for _, s := range m {
			g := s.gap
			if jitter > 0 && g > 0 {
				g += rng.Int64N(2*jitter+1) - jitter
				g = max(g, 0)
			}
			t += g
			switch s.kind {
			case 0:
				b.enter(t, s.region)
			case 1:
				b.leave(t, s.region)
			case 2:
				b.msg(trace.MpiSend, t, s.peer, 1, s.bytes+int64(rng.IntN(2)), 0)
			case 3:
				b.msg(trace.MpiRecv, t, s.peer, 1, s.bytes, 0)
			case 4:
				req++
				b.msg(trace.MpiIsend, t, s.peer, 2, s.bytes, req)
			case 7:
				b.msg(trace.MpiIsendComplete, t, -1, -1, 0, req)
				b.p.Msgs.Comm[len(b.p.Msgs.Comm)-1] = -1
			case 5:
				b.ev(trace.MpiCollectiveBegin, t, -1)
				t += 3
				b.coll(t, 11, s.bytes, s.bytes*2)
			case 6:
				ins += uint64(1000 + rng.IntN(3))
				b.metric(t, ins, uint64(7+rng.IntN(2)))
			}
		}
	}
	return b.p
}

// sameProcess fails t unless q's events and side tables equal p's.
func sameProcess(t *testing.T, what string, p, q *trace.Process) {
	t.Helper()
	if !slices.Equal(p.Kind, q.Kind) {
		t.Fatalf("%s: kinds differ (%d vs %d events)", what, len(p.Kind), len(q.Kind))
	}
	if !slices.Equal(p.Time, q.Time) {
		for i := range p.Time {
			if p.Time[i] != q.Time[i] {
				t.Fatalf("%s: event %d (%s) time %d, want %d", what, i, p.Kind[i], q.Time[i], p.Time[i])
			}
		}
	}
	for i, k := range p.Kind {
		if k == trace.Enter || k == trace.Leave {
			if p.Ref[i] != q.Ref[i] {
				t.Fatalf("%s: event %d region %d, want %d", what, i, q.Ref[i], p.Ref[i])
			}
			continue
		}
		if got, want := payloadOf(q, i), payloadOf(p, i); !slices.Equal(got, want) {
			t.Fatalf("%s: event %d (%s) payload %v, want %v", what, i, k, got, want)
		}
	}
}

func payloadOf(p *trace.Process, i int) []int64 { return appendPayload(nil, p, i) }

// figure34 is the trace of Knüpfer Figures 3.2 / 3.4: main calls foo,
// which calls bar twice; bar calls MPI_Send three times, each with a send
// event; the first send goes to another peer (regions main, foo, bar,
// MPI_Send = 0..3).
func figure34() *pb {
	const mainR, foo, bar, send = 0, 1, 2, 3
	b := newPB().enter(0, mainR).enter(10, foo)
	tm := int64(10)
	for range 2 {
		tm += 10
		b.enter(tm, bar)
		for k := range 3 {
			peer := int32(2)
			if k == 0 {
				peer = 1
			}
			b.enter(tm+10, send).msg(trace.MpiSend, tm+15, peer, 0, 100, 0).leave(tm+20, send)
			tm += 10
		}
		tm += 10
		b.leave(tm, bar)
	}
	b.leave(tm+10, foo).leave(tm+20, mainR)
	return b
}
