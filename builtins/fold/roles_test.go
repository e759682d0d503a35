package fold

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// TestNoStateNames (issue 32, point 2): on CPU streams the time outside
// every call is "outside instrumented regions" (an MPI-only trace's
// application code), never "idle" or "no-state"; on accelerator streams it
// stays device idle time, in the summary and in the folded strip's legend.
// On main both said idle ("idle" bars, "no-state" in the summary).
func TestNoStateNames(t *testing.T) {
	// A CPU trace: rank 0 in a call half the time, rank 1 a quarter.
	cpu := traceOf([]string{"MPI_Send"}, newPB().enter(0, 0).leave(50, 0).ev(trace.ProgramEnd, 100, -1).p,
		newPB().enter(0, 0).leave(25, 0).ev(trace.ProgramEnd, 100, -1).p)
	f := Timeline(cpu, Idle, 4)
	if got := f.NoStateName(); got != trace.OutsideRegions {
		t.Errorf("CPU streams: NoState named %q", got)
	}
	if s := f.String(); !strings.Contains(s, "outside instrumented regions 50.0%") || strings.Contains(s, "no-state") {
		t.Errorf("CPU summary %q", s)
	}
	labels := func(f *Folded) []string {
		var out []string
		for _, b := range f.lane("fold", f.State, true).Bars {
			out = append(out, b.Label)
		}
		return out
	}
	if got := labels(f); len(got) != 2 || got[0] != "MPI_Send" || got[1] != trace.OutsideRegions {
		t.Errorf("CPU strip labels %q", got)
	}
	// Device streams: the same shape on GPU 0's streams is idle time.
	gpu := deviceTrace([]string{"kernel"}, newPB().enter(0, 0).leave(500, 0).ev(trace.ProgramEnd, 1000, -1).p)
	g := Timeline(gpu, Idle, 4, WithDevice(0))
	if s := g.String(); g.NoStateName() != "idle" || !strings.Contains(s, "idle 50.0%") {
		t.Errorf("GPU summary %q (%q)", s, g.NoStateName())
	}
	if got := labels(g); len(got) != 2 || got[1] != "idle" {
		t.Errorf("GPU strip labels %q", got)
	}
	// The CPU process and the GPU stream together: not every stream is a
	// device, so not idle.
	if got := Timeline(gpu, Idle, 4).NoStateName(); got != trace.OutsideRegions {
		t.Errorf("mixed streams: NoState named %q", got)
	}
}
