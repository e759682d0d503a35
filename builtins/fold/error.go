package fold

import "github.com/tracebook/tracebook/builtins/work"

// Error is the panic value of the notebook surface for bad arguments,
// impossible requests and interrupted work: the one error of every builtin
// (work.Error), named after the function.
type Error = work.Error

func fail(fn, format string, args ...any) { work.Fail(fn, format, args...) }
