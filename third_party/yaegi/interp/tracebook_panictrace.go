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
	more  int // frames beyond maxPanicLines, not recorded
}

// add records one unwound frame; the first maxPanicLines are kept.
func (p *panicTraces) add(line string) {
	p.mu.Lock()
	if len(p.lines) < maxPanicLines {
		p.lines = append(p.lines, line)
	} else {
		p.more++
	}
	p.mu.Unlock()
}

// take removes and returns the lines.
func (p *panicTraces) take() ([]string, int) {
	p.mu.Lock()
	l, more := p.lines, p.more
	p.lines, p.more = nil, 0
	p.mu.Unlock()
	return l, more
}

// panicRecovered forgets the lines: the panic was recovered.
func (interp *Interpreter) panicRecovered() { interp.panics.take() }

// flushPanicTrace writes the lines to stderr: the panic leaves the program.
func (interp *Interpreter) flushPanicTrace() {
	lines, _ := interp.panics.take()
	for _, l := range lines {
		fmt.Fprintln(interp.stderr, l)
	}
}
