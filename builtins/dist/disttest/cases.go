package disttest

import (
	"sync"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Case is one method (or one view of a method) run on a trace.
type Case struct {
	Name string // "profile.CommMatrix"
	// Run computes the method on tr and renders every table of the result
	// in full, cell by cell (no truncation), as one string; two runs are
	// identical when the strings are equal. Results that name the trace
	// (Trace.Name) see the same name locally and distributed.
	Run func(tr *trace.Trace) (string, error)
	// Run2, for a case of two runs, is called instead of Run.
	Run2 func(a, b *trace.Trace) (string, error)
	// MayRefuse allows the case to fail on a trace it does not apply to,
	// with the same error locally and distributed.
	MayRefuse bool
}

var (
	mu    sync.Mutex
	cases []Case
)

// Add registers cases (from this package's files, one per method family).
func Add(cs ...Case) {
	mu.Lock()
	defer mu.Unlock()
	cases = append(cases, cs...)
}

// Cases returns every registered case.
func Cases() []Case {
	mu.Lock()
	defer mu.Unlock()
	return append([]Case(nil), cases...)
}
