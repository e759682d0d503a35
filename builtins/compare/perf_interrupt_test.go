package compare

import (
	"errors"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// Runs stops at an interrupt with an *Error wrapping work.ErrInterrupted (the latency is
// logged: figures go to the benchmarks' note), and the next call gives the result of a run
// never interrupted.
func TestRunsStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("compares two runs of about 2.5M events each")
	}
	ca := synth.COSMOSPECSConfig(1024, 16)
	ca.Depth, ca.Fanout = 2, 4
	cb := synth.COSMOSPECSConfig(2048, 8)
	cb.Depth, cb.Fanout = 2, 4
	a, b := synth.Generate(ca), synth.Generate(cb)
	stopped := 0
	for _, after := range []time.Duration{5 * time.Millisecond, 40 * time.Millisecond} {
		out := worktest.Interrupt(t, after, 10*time.Second, func() { Runs(a, b) })
		if out.Finished {
			t.Logf("finished before the interrupt at %v", after)
			continue
		}
		stopped++
		var e *Error
		err, _ := out.Panic.(error)
		if !errors.As(err, &e) || e.Func != "compare.Runs" || !errors.Is(err, work.ErrInterrupted) {
			t.Fatalf("interrupted after %v: panicked with %#v", after, out.Panic)
		}
		t.Logf("interrupted after %v: stopped %v later", after, out.Latency)
	}
	if stopped == 0 {
		t.Skip("finished before every interrupt (machine too fast for this input)")
	}
	got := Runs(a, b).String()
	fa, fb := fresh(a), fresh(b)
	if want := Runs(fa, fb).String(); got != want {
		t.Fatalf("after the interrupts:\n%s\nwant (fresh processes)\n%s", got, want)
	}
}
