package trace_test

import (
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// ccg.Messages on the graph of a window matches in the whole run: the
// messages and cut counts of profile.Messages on the same window (the
// brute-force filter of the whole run's messages is in profile's test),
// no unmatched operation the whole run does not have.
func TestCCGMessagesOfWindow(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.MPI, cfg.Ranks, cfg.Iterations = true, 5, 6
	tr := synth.Generate(cfg)
	d := tr.Duration()
	for k := range 7 {
		w := tr.Window(time.Duration(d*int64(k)/8+d/50), time.Duration(d*int64(k)/8+d/5))
		want := profile.Messages(w)
		got := ccg.Messages(ccg.BuildTrace(w, ccg.Bounds{}))
		s, r, inc := got.Unmatched()
		if got.Len() != want.Len() || got.CutSends != want.CutSends || got.CutRecvs != want.CutRecvs || s+r+inc != 0 {
			t.Errorf("window %d: ccg %v\nprofile %v", k, got, want)
		}
		for i := range got.Len() {
			if got.Send[i] != want.Send[i] || got.Recv[i] != want.Recv[i] {
				t.Fatalf("window %d: message %d: ccg %+v, profile %+v", k, i, got.Message(i), want.Message(i))
			}
		}
	}
}
