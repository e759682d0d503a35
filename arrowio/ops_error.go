package arrowio

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// TableError is the error of a table operation ([Table.Filter], [Table.Sort], [Table.GroupBy],
// [Table.Join], [Concat], ...) given a column, type or argument that does not fit. The
// operations panic with it, like the builtins, so that they chain in one line of a cell; the
// kernel shows the message and the session goes on. Err, if set, is the cause (an interrupt or
// a memory error: errors.Is finds it).
type TableError struct {
	Op     string // the operation, such as "Filter" or "GroupBy.Agg"
	Column string // the column at fault, if one is
	Msg    string
	Err    error
}

func (e *TableError) Error() string {
	s := "arrowio: " + e.Op
	if e.Column != "" {
		s += fmt.Sprintf(": column %q", e.Column)
	}
	return s + ": " + e.Msg
}

// Unwrap returns the cause.
func (e *TableError) Unwrap() error { return e.Err }

// opFail panics with a TableError.
func opFail(op, column, format string, args ...any) {
	panic(&TableError{Op: op, Column: column, Msg: fmt.Sprintf(format, args...)})
}

// opStop panics with a TableError wrapping err (an interrupt or a memory error).
func opStop(op string, err error) {
	var te *TableError
	if errors.As(err, &te) {
		panic(te)
	}
	panic(&TableError{Op: op, Msg: err.Error(), Err: err})
}

// Reserver checks that need bytes can be allocated for what before a large allocation: it
// returns an error naming both when the machine lacks the memory.
type Reserver func(what string, need int64) error

var reserver atomic.Pointer[Reserver]

// SetReserve installs the memory check of large table operations (nil: none). The kernel's
// work package installs its own, as it does the job starter ([SetJobs]).
func SetReserve(r Reserver) {
	if r == nil {
		reserver.Store(nil)
		return
	}
	reserver.Store(&r)
}

// reserve panics with a TableError if need bytes are not available for op.
func reserve(op string, need int64) {
	if r := reserver.Load(); r != nil {
		if err := (*r)("arrowio."+op, need); err != nil {
			opStop(op, err)
		}
	}
}

// opJob is a table operation's job: step counts rows and panics with a TableError once the
// cell is interrupted.
type opJob struct {
	op  string
	job Job
}

func startOp(op string, total int64) *opJob {
	return &opJob{op: op, job: startJob("arrowio."+op, total, "rows")}
}

func (j *opJob) step(n int) {
	if err := j.job.Add(int64(n)); err != nil {
		opStop(j.op, err)
	}
}

// tick is step for loops over rows: it counts a chunk (and looks at the job) at the end of
// every opChunk rows.
func (j *opJob) tick(r int) {
	if r&(opChunk-1) == opChunk-1 {
		j.step(opChunk)
	}
}

func (j *opJob) done() { j.job.Done() }
