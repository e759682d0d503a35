package ccg

import (
	"strings"
	"testing"
)

func TestTimelineAndSweepHeadlines(t *testing.T) {
	tr := partTrace()
	g := BuildTrace(tr, Lossless)
	if got, want := g.TimelineRange(0, 2_000_000, 17).String(), "CCG timeline of 4 location(s), [0 ns, 2.000 ms) in 17 pixels"; got != want {
		t.Errorf("Timeline.String() = %q, want %q", got, want)
	}
	s := SweepBounds(tr, Lossless, Unlimited).String()
	lines := strings.Split(s, "\n")
	if len(lines) != 3 || lines[0] != "compression at 2 bound settings" || !strings.HasPrefix(lines[1], "lossless: R_nodes ") ||
		!strings.HasPrefix(lines[2], "unlimited: R_nodes ") {
		t.Errorf("Sweep.String() = %q", s)
	}
}
