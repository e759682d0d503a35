package fold

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// A long index build stops at an interrupt with an *Error naming the
// builtin that wraps work.ErrInterrupted, caches nothing, and the next
// fold runs normally.
func TestTimelineStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a large trace")
	}
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout = 16, 4000, 2, 4
	tr := synth.Generate(cfg)
	out := worktest.Interrupt(t, 20*time.Millisecond, 10*time.Second, func() { Timeline(tr, Max, 1600) })
	if out.Finished {
		t.Skip("finished before the interrupt (machine too fast for this input)")
	}
	err, _ := out.Panic.(error)
	var e *Error
	if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != "fold.Timeline" {
		t.Fatalf("interrupted fold panicked with %#v", out.Panic)
	}
	t.Logf("fold stopped %v after the interrupt", out.Latency)
	cache.Lock()
	cached := cache.ix
	cache.Unlock()
	if cached != nil && cached.tr == tr {
		t.Fatal("an interrupted build was cached")
	}
	sub := tr.Processes()[:2]
	f := Timeline(tr, Max, 100, WithProcesses(sub...))
	ix := NewIndex(tr, sub...)
	c := ix.Counts(nil, f.T0, f.T1, 100)
	if want := c.Select(Max); f.Streams != 2 || len(want) != 100 || !slices.Equal(f.State, want) {
		t.Fatal("fold after the interrupt differs from a fresh index")
	}
}
