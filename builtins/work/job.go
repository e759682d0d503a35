package work

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
)

// arrowio imports no builtin: its file readers and writers and its table
// operations get their jobs and their memory check from here.
func init() {
	arrowio.SetJobs(func(label string, total int64, unit string) arrowio.Job { return Start(label, total, unit) })
	arrowio.SetReserve(Reserve)
}

var observer atomic.Pointer[func(label string, done, total int64)]

// Observe makes f see the progress of every job (its label, done and total
// units) as often as a bar would be updated, whether or not a bar shows:
// how a rank of an MPI job reports its progress to the notebook. Observe(nil)
// stops it.
func Observe(f func(label string, done, total int64)) {
	if f == nil {
		observer.Store(nil)
		return
	}
	observer.Store(&f)
}

// ShowAfter is how long a job runs before its progress bar appears.
const ShowAfter = time.Second

// Job is one piece of long work: it counts progress, shows a bar once it
// has run for ShowAfter (never for quick work), and tells its loop when the
// cell is interrupted. A nil *Job is valid and does nothing but the checks.
// Add, Set and Err may be called from several goroutines.
type Job struct {
	label, unit string
	total       int64
	start       time.Time
	cell        *cellState

	done     atomic.Int64
	nextLook atomic.Int64 // done count at which Add next looks at the clock

	mu    sync.Mutex
	bar   *display.Progress
	ended bool
}

// Start begins a job of total units (total <= 0: unknown) counted in unit
// ("events", "rows", "cells"; "" for plain counts).
func Start(label string, total int64, unit string) *Job {
	return &Job{label: label, unit: unit, total: total, start: now(), cell: current.Load()}
}

// Err returns ErrInterrupted once the cell that started the job has been
// interrupted.
func (j *Job) Err() error {
	st := current.Load()
	if j != nil {
		st = j.cell
	}
	if st.stopped.Load() {
		return ErrInterrupted
	}
	return nil
}

// Check panics with ErrInterrupted once the job's cell has been interrupted.
func (j *Job) Check() {
	if err := j.Err(); err != nil {
		panic(err)
	}
}

// Add records n more finished units and returns Err. Cheap enough to call
// every few microseconds of work: the clock is read at most every 1/64 of
// the total (or every 4096 units without a total).
func (j *Job) Add(n int64) error {
	if j == nil {
		return Err()
	}
	d := j.done.Add(n)
	if d >= j.nextLook.Load() {
		j.look(d)
	}
	return j.Err()
}

// Set records that done units are finished and returns Err.
func (j *Job) Set(done int64) error {
	if j == nil {
		return Err()
	}
	j.done.Store(done)
	j.look(done)
	return j.Err()
}

func (j *Job) look(d int64) {
	step := int64(4096)
	if j.total > 0 {
		step = max(1, j.total/64)
	}
	j.nextLook.Store(d + step)
	if f := observer.Load(); f != nil {
		(*f)(j.label, d, j.total)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return
	}
	if j.bar == nil {
		if now().Sub(j.start) < ShowAfter {
			return
		}
		j.bar = display.StartProgress(j.label, j.total, j.unit, j.start)
	}
	j.bar.Set64(d)
}

// Done ends the job; its bar (if shown) says done, or interrupted if the
// cell was interrupted.
func (j *Job) Done() {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return
	}
	j.ended = true
	if j.bar == nil {
		return
	}
	j.bar.Set64(j.done.Load())
	if j.cell.stopped.Load() {
		j.bar.End("interrupted")
	} else {
		j.bar.Done()
	}
}

// Context returns the context of the cell that started the job (for APIs
// that take one, such as Parquet's readers).
func (j *Job) Context() context.Context {
	if j == nil {
		return Context()
	}
	return j.cell.ctx
}
