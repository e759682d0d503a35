package imbalance

import (
	"errors"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// flatTrace is procs locations of n iterations of step { MPI_Barrier } each, built directly
// in columns (quick to make, long to analyse).
func flatTrace(procs, n int) *trace.Trace {
	var ps []*trace.Process
	for range procs {
		p := &trace.Process{Kind: make([]trace.EventKind, 0, 4*n), Time: make([]int64, 0, 4*n), Ref: make([]int32, 0, 4*n)}
		for i := range int64(n) {
			p.Kind = append(p.Kind, trace.Enter, trace.Enter, trace.Leave, trace.Leave)
			p.Time = append(p.Time, 10*i, 10*i+4, 10*i+7, 10*i+9)
			p.Ref = append(p.Ref, 0, 1, 1, 0)
		}
		ps = append(ps, p)
	}
	return traceOf([]string{"step", "MPI_Barrier"}, ps...)
}

// An analysis stops at an interrupt with an *Error naming Analyze that wraps
// work.ErrInterrupted, and the next analysis runs normally.
func TestAnalyzeStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 40M-event trace")
	}
	tr := flatTrace(4, 2_500_000)
	out := worktest.Interrupt(t, 30*time.Millisecond, 10*time.Second, func() { Analyze(tr) })
	if out.Finished {
		t.Skip("finished before the interrupt (machine too fast for this input)")
	}
	err, _ := out.Panic.(error)
	var e *Error
	if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != "imbalance.Analyze" {
		t.Fatalf("interrupted analysis panicked with %#v", out.Panic)
	}
	t.Logf("analysis stopped %v after the interrupt", out.Latency)
	small := flatTrace(2, 10)
	if r := Analyze(small); len(r.SegmentList()) != 20 || r.SegmentList()[0].SOS() != 6 {
		t.Fatalf("analysis after the interrupt: %v", r.SegmentList())
	}
}
