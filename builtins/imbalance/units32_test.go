package imbalance

import (
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting/plottest"
)

// Issue 32: the imbalance heatmap's time axis read "time (s)" with ticks like 1e-08 and its
// colour bar was in ms whatever the SOS-times; both read in the unit of their range now, and the
// line beneath shares the heatmap's time range.
func TestPlotInHumanUnits(t *testing.T) {
	r := Analyze(seedTrace(), WithSync(trace.DefaultSync().Include("MPI")))
	texts := plottest.Texts(t, r.Plot())
	for _, want := range []string{"time [ns] (binned by 2, max)", "iteration start [ns]", "ns"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no %q in %q", want, texts)
		}
	}
	if bad := plottest.Exponents(texts); len(bad) > 0 {
		t.Errorf("tick labels with exponents %q", bad)
	}
}
