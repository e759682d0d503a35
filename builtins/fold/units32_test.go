package fold

import (
	"slices"
	"testing"

	"github.com/tracebook/tracebook/plotting/plottest"
)

// Issue 32: the time axis of a folded timeline read "time (s)" with ticks like 1e-08; it reads
// in the unit of its range now.
func TestPlotTimeAxisInHumanUnits(t *testing.T) {
	p := newPB().enter(0, 0).enter(1, 1).leave(3, 1).leave(7, 0).p
	q := newPB().enter(4, 1).leave(12, 1).p
	tr := traceOf([]string{"a", "b"}, p, q)
	texts := plottest.Texts(t, Timeline(tr, Idle, 3, WithRange(0, 12)).Plot())
	if !slices.Contains(texts, "time [ns]") || !slices.Contains(texts, "12") {
		t.Errorf("no axis in ns: %q", texts)
	}
	if bad := plottest.Exponents(texts); len(bad) > 0 {
		t.Errorf("tick labels with exponents %q", bad)
	}
}
