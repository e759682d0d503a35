package ccg

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// pingTrace: rank 0 computes for a jittered time and sends to rank 1,
// which receives latency ns later, n times (regions: 0 work, 1 send,
// 2 recv, 3 wait).
func pingTrace(rng *rand.Rand, n int, latency int64) *trace.Trace {
	a, b := newPB(), newPB()
	var t int64
	for range n {
		a.enter(t, 0)
		t += 500 + rng.Int64N(200)
		a.leave(t, 0).enter(t+5, 1)
		at := t + 10
		a.msg(trace.MpiSend, at, 1, 7, 64, 0).leave(at+5, 1)
		b.enter(at-50-rng.Int64N(30), 3).leave(at-40, 3).enter(at-30, 2)
		b.msg(trace.MpiRecv, at+latency, 0, 7, 64, 0).leave(at+latency+5, 2)
		t = at + latency + 20
	}
	return traceOf(4, a.p, b.p)
}

// bruteOrder matches the decompressed messages in order per (sender,
// receiver, tag) and counts those received before they were sent.
func bruteOrder(tr *trace.Trace) (msgs, reversed int64, worst int64) {
	type key struct{ from, to, tag int32 }
	sends := map[key][]int64{}
	recvs := map[key][]int64{}
	for _, p := range tr.Processes() {
		for i, k := range p.Kind {
			r := p.Ref[i]
			switch k {
			case trace.MpiSend:
				kk := key{p.Rank, p.Msgs.Peer[r], p.Msgs.Tag[r]}
				sends[kk] = append(sends[kk], p.Time[i])
			case trace.MpiRecv:
				kk := key{p.Msgs.Peer[r], p.Rank, p.Msgs.Tag[r]}
				recvs[kk] = append(recvs[kk], p.Time[i])
			}
		}
	}
	for kk, s := range sends {
		r := recvs[kk]
		for i := range min(len(s), len(r)) {
			msgs++
			if d := r[i] - s[i]; d < 0 {
				reversed++
				worst = min(worst, d)
			}
		}
	}
	return msgs, reversed, worst
}

// Lossy bounds can move a send and its receive towards each other by up
// to Abs each: MessageOrder reports every message received before it was
// sent, as a brute-force match of the decompressed events finds them, and
// the summary line says so.
func TestMessageOrderReported(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	found := 0
	for it := range 60 {
		tr := pingTrace(rng, 20+rng.IntN(40), 1+rng.Int64N(40))
		b := Bounds{Abs: 10 + rng.Int64N(200), Rel: 0.5}
		g := BuildTrace(tr, b)
		o := g.MessageOrder()
		msgs, rev, worst := bruteOrder(g.Trace())
		if o.Messages != msgs || o.Reversed != rev || o.Worst != worst {
			t.Fatalf("case %d (%s): %+v; brute force: %d messages, %d reversed, worst %d", it, b, o, msgs, rev, worst)
		}
		if _, orev, _ := bruteOrder(tr); orev != 0 {
			t.Fatalf("case %d: the original has %d reversed messages", it, orev)
		}
		line, _ := g.MIMEBundle()["text/plain"].(string)
		if !strings.Contains(line, "messages: "+o.String()) {
			t.Fatalf("case %d: summary line %q does not report %q", it, line, o)
		}
		if rev > 0 {
			found++
			if o.First.Recv >= o.First.Send {
				t.Fatalf("case %d: first reversed message %+v", it, o.First)
			}
		}
	}
	if found == 0 {
		t.Fatal("no case reversed a message: the test shows nothing")
	}
	t.Logf("%d of 60 cases reversed messages", found)
	// Lossless graphs keep every message in order, and their line does
	// not mention the check.
	tr := pingTrace(rng, 30, 1)
	if line, _ := BuildTrace(tr, Lossless).MIMEBundle()["text/plain"].(string); strings.Contains(line, "messages:") {
		t.Fatalf("lossless summary line %q", line)
	}
}
