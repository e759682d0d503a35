package trace_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// interrupted runs fn under an already interrupted cell: long work must
// notice at its first check and stop with work.ErrInterrupted.
func interrupted(fn func()) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	work.SetContext(ctx)
	defer work.SetContext(context.Background())
	fn()
}

// Loading every format, writing every format and Events stop at an
// interrupt: the error unwraps to work.ErrInterrupted (the kernel reports
// the cell as interrupted), a write leaves no file behind, and the same
// calls succeed once the cell is no longer interrupted.
func TestTablesStopAtInterrupt(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 4, 1000 // > 64k rows: several batches
	tr := synth.Generate(cfg)
	ev := tr.Events()
	defer ev.Release()
	if ev.NumRows() < 100_000 {
		t.Fatalf("test trace too small: %d rows", ev.NumRows())
	}
	dir := t.TempDir()
	for _, ext := range []string{".parquet", ".arrow", ".csv"} {
		path := filepath.Join(dir, "events"+ext)
		arrowio.Write(path, ev)
		var err error
		interrupted(func() { _, err = trace.Load(path) })
		if !errors.Is(err, work.ErrInterrupted) {
			t.Errorf("Load(%s) in an interrupted cell: %v", ext, err)
		}
		out := filepath.Join(dir, "again"+ext)
		interrupted(func() {
			defer func() { err, _ = recover().(error) }()
			arrowio.Write(out, ev)
		})
		if !errors.Is(err, work.ErrInterrupted) {
			t.Errorf("Write(%s) in an interrupted cell: %v", ext, err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*again*")); len(left) != 0 {
			t.Errorf("interrupted write left %v", left)
		}
		back, err := trace.Load(path)
		if err != nil || back.NumEvents() != tr.NumEvents() {
			t.Errorf("Load(%s) after the interrupt: %v", ext, err)
		}
	}
	var p any
	interrupted(func() {
		defer func() { p = recover() }()
		tr.Events()
	})
	if !work.Interrupted(p) {
		t.Errorf("Events in an interrupted cell panicked with %v", p)
	}
}

// An OTF2 load stops at an interrupt, within one check of 16k events.
func TestOTF2LoadStopsAtInterrupt(t *testing.T) {
	anchor := tooltest.BenchTrace(t)
	var err error
	interrupted(func() { _, err = trace.Load(anchor) })
	if !errors.Is(err, work.ErrInterrupted) {
		t.Fatalf("OTF2 load in an interrupted cell: %v", err)
	}
	var te *trace.Error
	if !errors.As(err, &te) || te.Path == "" {
		t.Fatalf("error does not name the file: %v", err)
	}
	// And mid-way: the load runs, the interrupt comes, it stops.
	out := worktest.Interrupt(t, 5*time.Millisecond, 10*time.Second, func() { trace.Open(anchor) })
	if !out.Finished {
		if e, ok := out.Panic.(*trace.Error); !ok || !errors.Is(e, work.ErrInterrupted) {
			t.Fatalf("interrupted Open panicked with %#v", out.Panic)
		}
		t.Logf("OTF2 load stopped %v after the interrupt", out.Latency)
	}
}

// Loading checks its memory need first: a limit below the trace's size is
// an error naming the need, not an allocation.
func TestLoadChecksMemory(t *testing.T) {
	anchor := tooltest.BenchTrace(t)
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "8M")
	_, err := trace.Load(anchor)
	var me *work.MemoryError
	if !errors.As(err, &me) || me.Need < 8<<20 {
		t.Fatalf("load under an 8 MiB limit: %v", err)
	}
}
