package interp

import (
	"fmt"
	"sync"
)

// A panic's interpreted call stack, one "L:C: panic: f(...)" line per
// frame it unwinds, used to be written to stderr as each frame unwound, so a
// panic that interpreted code recovered printed lines anyway (Go prints
// nothing then). The lines are now kept while the panic unwinds, dropped
// when recover() stops it, and written when it leaves the program
// (Execute), in the same order as before.
//
// One buffer serves the interpreter: goroutines are not told apart (Go has
// no cheap goroutine id, and reading it from runtime.Stack at each frame
// made unwinding a deep recursion quadratic). So when two goroutines'
// panics unwind at the same moment, the printed stack of one may hold
// frames of the other, or lose some; what the program computes is not
// affected.

const maxPanicLines = 4096

type panicTraces struct {
	mu    sync.Mutex
	lines []string
}

// add records one unwound frame; the first maxPanicLines are kept.
func (p *panicTraces) add(line string) {
	p.mu.Lock()
	if len(p.lines) < maxPanicLines {
		p.lines = append(p.lines, line)
	}
	p.mu.Unlock()
}

// take removes and returns the lines.
func (p *panicTraces) take() []string {
	p.mu.Lock()
	l := p.lines
	p.lines = nil
	p.mu.Unlock()
	return l
}

// panicRecovered forgets the lines: the panic was recovered.
func (interp *Interpreter) panicRecovered() { interp.panics.take() }

// flushPanicTrace writes the lines to stderr: the panic leaves the program.
func (interp *Interpreter) flushPanicTrace() {
	for _, l := range interp.panics.take() {
		fmt.Fprintln(interp.stderr, l)
	}
}
