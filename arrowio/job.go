package arrowio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
)

// Job is long table work (reading or writing a file) as the notebook sees
// it: Add counts finished rows and returns a non-nil error once the work
// must stop (the cell was interrupted); Done ends it. arrowio imports no
// builtin, so the kernel's mechanism (package builtins/work) installs itself
// with SetJobs; without it jobs never stop and show nothing.
type Job interface {
	Add(n int64) error
	Done()
	Context() context.Context
}

// JobStarter starts a Job of total units counted in unit.
type JobStarter func(label string, total int64, unit string) Job

var starter atomic.Pointer[JobStarter]

// SetJobs installs the starter of long-work jobs (nil: none).
func SetJobs(s JobStarter) {
	if s == nil {
		starter.Store(nil)
		return
	}
	starter.Store(&s)
}

func startJob(label string, total int64, unit string) Job {
	if s := starter.Load(); s != nil {
		return (*s)(label, total, unit)
	}
	return noJob{}
}

type noJob struct{}

func (noJob) Add(int64) error          { return nil }
func (noJob) Done()                    {}
func (noJob) Context() context.Context { return context.Background() }

// batchRows is the number of rows read or written between two looks at the
// job: a few milliseconds of work.
const batchRows = 64 << 10

// pathless drops the file name of an *fs.PathError (the temporary file of
// an atomic write, which the user never named), keeping the operation and
// the cause: "create: permission denied".
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
