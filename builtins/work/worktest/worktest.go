// Package worktest interrupts long builtins in tests the way the kernel
// does: it runs fn under a cell context (work.SetContext), cancels it after
// a delay and measures how long fn takes to stop.
package worktest

import (
	"context"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/work"
)

// finishGrace is how soon after the cancel a normal return still counts as
// work finished before the call would have noticed (builtins stop within
// 100 ms of an interrupt; twice that leaves room for a loaded machine).
const finishGrace = 200 * time.Millisecond

// Outcome is what an interrupted call did.
type Outcome struct {
	Latency  time.Duration // from the cancel to fn's return (or panic)
	Finished bool          // fn returned (did not panic) before the cancel, or within finishGrace after it: its work was done before it next polled
	Panic    any           // fn's panic value, if it panicked
}

// Interrupt runs fn under a fresh cell context, cancels that context after
// `after`, and waits (at most `limit`) for fn to return or panic. It fails
// t if fn does not stop within limit: limit is a hang guard, not a timing
// assertion (latency figures go to benchmarks and notes). A call that
// returns normally after the cancel finished its work in the moment before
// it would have polled again: that counts as Finished, as a return before
// the cancel does (on a loaded machine the input meant to take seconds may
// be done at the instant of the cancel).
func Interrupt(t testing.TB, after, limit time.Duration, fn func()) Outcome {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	work.SetContext(ctx)
	defer work.SetContext(context.Background())
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		fn()
	}()
	select {
	case p := <-done:
		return Outcome{Finished: true, Panic: p}
	case <-time.After(after):
	}
	cancel()
	start := time.Now()
	select {
	case p := <-done:
		l := time.Since(start)
		return Outcome{Latency: l, Panic: p, Finished: p == nil && l < finishGrace}
	case <-time.After(limit):
		t.Fatalf("work did not stop within %v of the interrupt", limit)
	}
	return Outcome{}
}
