package profile

import (
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Messages on a window: matched in the whole run, the messages with both
// records in the window kept (the brute-force filter of the whole run's
// messages by time), those with one record outside counted as cut, not
// as unmatched; the same for a subset.
func TestMessagesOfWindow(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.MPI, cfg.Ranks, cfg.Iterations = true, 6, 8
	tr := synth.Generate(cfg)
	whole := Messages(tr)
	if whole.Len() == 0 || whole.UnmatchedSends+whole.UnmatchedRecvs != 0 {
		t.Fatalf("whole run: %v", whole)
	}
	d := tr.Duration()
	for k := range 9 {
		t0, t1 := d*int64(k)/10, d*int64(k)/10+d/7
		w := Messages(tr.Window(time.Duration(t0), time.Duration(t1)))
		var want, cutS, cutR int64
		for i := range whole.Len() {
			s, r := whole.Send[i] >= t0 && whole.Send[i] < t1, whole.Recv[i] >= t0 && whole.Recv[i] < t1
			switch {
			case s && r:
				want++
			case s:
				cutS++
			case r:
				cutR++
			}
		}
		if int64(w.Len()) != want || w.CutSends != cutS || w.CutRecvs != cutR || w.UnmatchedSends+w.UnmatchedRecvs != 0 {
			t.Errorf("window [%d, %d): %v; want %d messages, %d/%d cut", t0, t1, w, want, cutS, cutR)
		}
		for i := range w.Len() {
			if w.Send[i] < t0 || w.Recv[i] >= t1 {
				t.Fatalf("message %d outside the window: %+v", i, w.Message(i))
			}
		}
	}
	s := Messages(tr.Subset(0, 1, 2))
	var want int64
	for i := range whole.Len() {
		if whole.SendProcess[i] < 3 && whole.RecvProcess[i] < 3 {
			want++
		}
	}
	if int64(s.Len()) != want || s.UnmatchedSends+s.UnmatchedRecvs != 0 || s.CutSends == 0 {
		t.Errorf("subset: %v; want %d messages", s, want)
	}
}
