package ccg

import (
	"errors"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// A long build stops at an interrupt with an *Error naming the builtin
// that wraps work.ErrInterrupted, and the next build runs normally.
func TestBuildStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a large trace")
	}
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout = 4, 4000, 2, 4
	tr := synth.Generate(cfg)
	out := worktest.Interrupt(t, 50*time.Millisecond, 10*time.Second, func() { BuildTrace(tr, Bounds{Abs: 1000, Rel: 0.05}) })
	if out.Finished {
		t.Skip("finished before the interrupt (machine too fast for this input)")
	}
	err, _ := out.Panic.(error)
	var e *Error
	if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != "ccg.BuildTrace" {
		t.Fatalf("interrupted build panicked with %#v", out.Panic)
	}
	t.Logf("build stopped %v after the interrupt", out.Latency)
	g := Build(tr.Process(0), Lossless)
	if g.Stats().Events != int64(tr.Process(0).Len()) {
		t.Fatal("build after the interrupt failed")
	}
	// The initial summary query over an uncompressed-ish graph, and the
	// timeline, stop too.
	out = worktest.Interrupt(t, 20*time.Millisecond, 10*time.Second, func() { g.Timeline(60000) })
	if !out.Finished {
		err, _ := out.Panic.(error)
		if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != "ccg.Graph.Timeline" {
			t.Fatalf("interrupted timeline panicked with %#v", out.Panic)
		}
		t.Logf("timeline stopped %v after the interrupt", out.Latency)
	}
	if s := g.Summary(0, g.End()); len(s.Regions) == 0 {
		t.Fatal("summary after the interrupt is empty")
	}
}
