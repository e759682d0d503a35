package msa

import "fmt"

// Error is the panic value of the notebook surface for bad arguments and
// impossible requests.
type Error struct {
	Func string // e.g. "msa.Merge"
	Msg  string
	Err  error // the cause, if any (work.ErrInterrupted, a *work.MemoryError)
}

func (e *Error) Error() string { return e.Func + ": " + e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func fail(fn, format string, args ...any) {
	panic(&Error{Func: fn, Msg: fmt.Sprintf(format, args...)})
}
