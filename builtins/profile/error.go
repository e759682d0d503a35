package profile

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/work"
)

// Error is the panic value of the notebook surface for bad arguments and interrupted work.
type Error struct {
	Func string // e.g. "profile.Boxes"
	Msg  string
	Err  error // the cause, if any (work.ErrInterrupted, a *work.MemoryError)
}

func (e *Error) Error() string { return e.Func + ": " + e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func fail(fn, format string, args ...any) {
	panic(&Error{Func: fn, Msg: fmt.Sprintf(format, args...)})
}

// recoverAs turns work's interrupt and memory panics into an *Error naming fn (errors.Is still
// finds work.ErrInterrupted).
func recoverAs(fn string) {
	if r := recover(); r != nil {
		if e := work.StopError(r); e != nil {
			panic(&Error{Func: fn, Msg: e.Error(), Err: e})
		}
		panic(r)
	}
}
