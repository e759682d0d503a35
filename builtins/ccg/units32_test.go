package ccg

import (
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting/plottest"
)

// Issue 32: CCG timelines read "time (s)" with ticks like 1e-06; they read in the unit of their
// range now (the real ping-pong trace spans about a second).
func TestTimelinePlotInHumanUnits(t *testing.T) {
	tr, err := trace.Load("../../test/data/traces/ping-pong-otf2/traces.otf2") // the repository's copy
	if err != nil {
		t.Fatal(err)
	}
	small := traceOf(8, figure34().p)
	for name, tl := range map[string]*Timeline{
		"ping-pong":  BuildTrace(tr, Lossless).Timeline(200),
		"figure 3.4": Build(small.Process(0), Lossless).Timeline(20),
	} {
		texts := plottest.Texts(t, tl.Plot())
		if l, ok := plottest.HasPrefix(texts, "time ["); !ok || !slices.Contains([]string{"time [s]", "time [ms]", "time [µs]", "time [ns]"}, l) {
			t.Errorf("%s: no time axis with a unit: %q", name, texts)
		}
		if bad := plottest.Exponents(texts); len(bad) > 0 {
			t.Errorf("%s: tick labels with exponents %q", name, bad)
		}
	}
}
