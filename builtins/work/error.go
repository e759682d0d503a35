package work

import (
	"errors"
	"fmt"
)

// Error is the one error of every builtin's notebook surface: bad
// arguments, impossible requests, mismatched partials and interrupted work
// all panic with an *Error naming the builtin (Func), what was wrong (Msg)
// and the cause (Err), if any. Each method package aliases it (type Error =
// work.Error), so errors.As with any of them finds it. The kernel shows such
// a panic as an error named after Func; other panics stay "panic".
//
// Library callers that prefer errors use Try.
type Error struct {
	Func string // the builtin, e.g. "ccg.Build"
	Msg  string // what was wrong, naming the argument or the place
	Err  error  // the cause, if any (ErrInterrupted, a *MemoryError, a reader's error)
}

// Error returns "Func: Msg".
func (e *Error) Error() string { return e.Func + ": " + e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Fail panics with an *Error for fn with a formatted message.
func Fail(fn, format string, args ...any) {
	panic(&Error{Func: fn, Msg: fmt.Sprintf(format, args...)})
}

// FailErr panics with an *Error for fn whose message and cause are err. An
// err that is already an *Error of fn is panicked as it is.
func FailErr(fn string, err error) {
	var e *Error
	if errors.As(err, &e) && e.Func == fn {
		panic(e)
	}
	panic(&Error{Func: fn, Msg: err.Error(), Err: err})
}

// Errorf returns an *Error for fn with a formatted message, for functions
// that return their errors.
func Errorf(fn, format string, args ...any) *Error {
	return &Error{Func: fn, Msg: fmt.Sprintf(format, args...)}
}

// RecoverAs, deferred at the top of a builtin, turns work's own stops
// (Check's interruption, Reserve's *MemoryError) panicking below it into an
// *Error naming fn; errors.Is and errors.As still find the cause. Other
// panics continue unchanged.
func RecoverAs(fn string) {
	if r := recover(); r != nil {
		if e := StopError(r); e != nil {
			var we *Error
			if errors.As(e, &we) {
				panic(we)
			}
			panic(&Error{Func: fn, Msg: e.Error(), Err: e})
		}
		panic(r)
	}
}

// Try runs f and returns the *Error it panicked with (or work's own stop,
// as an *Error of "work"), nil if it returned; any other panic continues.
// It is the bridge from the notebook surface, which panics, to library
// callers that want errors, like gonum's mat.Maybe.
func Try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*Error); ok {
				err = e
				return
			}
			if e := StopError(r); e != nil {
				err = &Error{Func: "work", Msg: e.Error(), Err: e}
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}
