package profile

import (
	"errors"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// flatTrace is procs locations of n iterations of step { MPI_Send }, built directly in columns
// (quick to make, long to analyse).
func flatTrace(procs, n int) *trace.Trace {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "step"}, {Name: "MPI_Send"}}}
	var ps []*trace.Process
	for range procs {
		p := &trace.Process{Kind: make([]trace.EventKind, 0, 4*n), Time: make([]int64, 0, 4*n), Ref: make([]int32, 0, 4*n)}
		for i := range int64(n) {
			p.Kind = append(p.Kind, trace.Enter, trace.Enter, trace.Leave, trace.Leave)
			p.Time = append(p.Time, 10*i, 10*i+4, 10*i+7+i%3, 10*i+9+i%3)
			p.Ref = append(p.Ref, 0, 1, 1, 0)
		}
		ps = append(ps, p)
	}
	return trace.NewTrace(defs, ps)
}

// Boxes, CallMatrix and Compare stop at an interrupt with an *Error naming them that wraps
// work.ErrInterrupted, in any of their passes, and the next call runs normally.
func TestStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 40M-event trace")
	}
	tr := flatTrace(4, 2_500_000)
	for _, c := range []struct {
		name string
		f    func()
		// after: an interrupt late enough to land in the second pass (the first takes ~100 ms)
		after time.Duration
	}{
		{"profile.Boxes", func() { Boxes(tr) }, 20 * time.Millisecond},
		{"profile.Boxes", func() { Boxes(tr) }, 250 * time.Millisecond},
		{"profile.CallMatrix", func() { CallMatrix(tr, WithPerProcess()) }, 20 * time.Millisecond},
		{"profile.Compare", func() { Compare(tr, tr) }, 400 * time.Millisecond},
	} {
		out := worktest.Interrupt(t, c.after, 10*time.Second, c.f)
		if out.Finished {
			t.Logf("%s finished before the interrupt after %v (machine too fast for this input)", c.name, c.after)
			continue
		}
		err, _ := out.Panic.(error)
		var e *Error
		if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != c.name {
			t.Fatalf("%s: interrupted run panicked with %#v", c.name, out.Panic)
		}
		t.Logf("%s stopped %v after an interrupt at %v", c.name, out.Latency, c.after)
	}
	small := flatTrace(2, 10)
	if b := Boxes(small); len(b.Rows) != 2 || b.Rows[0].Exclusive.Count != 20 {
		t.Fatalf("profile after the interrupts: %+v", b.Rows)
	}
}
