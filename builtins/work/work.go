package work

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrInterrupted is the error (and the panic value of Check) of work stopped
// by an interrupt.
var ErrInterrupted = errors.New("interrupted")

// current is the running cell's state: its context and a flag set once
// the context is done, read by Check with one atomic load.
type cellState struct {
	ctx     context.Context
	stopped atomic.Bool
	stop    func() bool // unregisters the AfterFunc
}

var (
	mu      sync.Mutex
	current atomic.Pointer[cellState]
)

func init() { SetContext(context.Background()) }

// SetContext makes ctx the context of the work that follows (the kernel
// calls it before each cell with the cell's context). Cancelling ctx makes
// Check panic, Err and Job.Add return ErrInterrupted.
func SetContext(ctx context.Context) {
	if ctx == nil {
		ctx = context.Background()
	}
	mu.Lock()
	defer mu.Unlock()
	st := &cellState{ctx: ctx}
	if ctx.Err() != nil {
		st.stopped.Store(true)
	} else if ctx.Done() != nil {
		st.stop = context.AfterFunc(ctx, func() { st.stopped.Store(true) })
	}
	if old := current.Swap(st); old != nil && old.stop != nil {
		old.stop()
	}
}

// Context returns the context of the running cell (context.Background
// outside the kernel).
func Context() context.Context { return current.Load().ctx }

// Stopped reports whether the running cell has been interrupted.
func Stopped() bool { return current.Load().stopped.Load() }

// Err returns ErrInterrupted once the running cell has been interrupted, nil
// before.
func Err() error {
	if Stopped() {
		return ErrInterrupted
	}
	return nil
}

// Check panics with ErrInterrupted once the running cell has been
// interrupted. It costs one atomic load; call it every few milliseconds of
// work in loops that have no error to return.
func Check() {
	if Stopped() {
		panic(ErrInterrupted)
	}
}

// Interrupted reports whether err (or a panic value) is an interruption.
func Interrupted(v any) bool {
	e, ok := v.(error)
	return ok && errors.Is(e, ErrInterrupted)
}

// StopError returns v, a recovered panic value, as an error if it is one
// of work's own stops: an interruption (Check) or a *MemoryError (from
// Reserve); nil otherwise. Builtins wrap such errors in their own error
// type, keeping them visible to errors.Is and errors.As.
func StopError(v any) error {
	e, ok := v.(error)
	if !ok {
		return nil
	}
	var me *MemoryError
	if errors.Is(e, ErrInterrupted) || errors.As(e, &me) {
		return e
	}
	return nil
}

// now is replaced in tests.
var now = time.Now
