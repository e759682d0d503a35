package interp

import "fmt"

// This file is tracebook's addition to yaegi (see ../PATCHES.md): unbounded
// recursion in interpreted code grew the goroutine's stack until Go's fatal
// "stack overflow", which no recover catches and which ends the process.
// With Options.MaxCallDepth, each interpreted call counts its depth in its
// frame, and a call past the limit panics with a CallDepthError instead.
//
// A call of a declared function (call) knows its caller's frame. A func
// value (a function literal, and every function of a notebook, which the
// session declares as a variable) is a reflect.MakeFunc closure that knows
// only the frame it was made in: the interpreted call stores its depth in
// Interpreter.depthHint just before the reflect call, and the closure takes
// it on entry (enterDepth). Without a hint (a call from compiled code, or
// from another goroutine) the depth counts from the frame the closure was
// made in. Goroutines calling closures at the same moment may take each
// other's hint: a depth is then miscounted for one call (a runaway
// recursion is caught a little later, or a call made while another
// goroutine is at the limit panics too).

// CallDepthError is the panic value of an interpreted call made deeper than
// Options.MaxCallDepth.
type CallDepthError struct {
	Func  string // the function called, as written at the call ("f", "t.Walk"), or "function"
	Limit int32
}

func (e *CallDepthError) Error() string {
	return fmt.Sprintf("%s: call depth exceeds %d (unbounded recursion?)", e.Func, e.Limit)
}

// RuntimeError makes the panic a runtime.Error, as a stack overflow would
// be in a language that reports it.
func (e *CallDepthError) RuntimeError() {}

// callName names the function a call node calls, for CallDepthError.
func callName(n *node) string {
	switch {
	case n == nil:
	case n.kind == identExpr && n.ident != "":
		return n.ident
	case n.kind == selectorExpr && len(n.child) == 2:
		if x := callName(n.child[0]); x != "function" {
			return x + "." + n.child[1].ident
		}
		return n.child[1].ident
	case n.kind == funcDecl && len(n.child) > 1:
		return n.child[1].ident
	}
	return "function"
}

// enterDepth returns the depth of a closure's frame called now; made is the
// frame it was made in (or its clone).
func (interp *Interpreter) enterDepth(made *frame) int32 {
	d := interp.depthHint.Swap(0)
	if d == 0 {
		d = made.depth + 1
	}
	if max := int32(interp.opt.maxCallDepth); max > 0 && d > max {
		panic(&CallDepthError{Func: "function", Limit: max})
	}
	return d
}
