package msa

import (
	"sync/atomic"

	"github.com/tracebook/tracebook/builtins/work"
)

// The MSA's use of the two cores: both runs a function on two goroutines;
// halves and eachIndex split work between them. A panic in either worker
// (an interrupt, a memory error, a bug) is re-raised in the caller.

// both runs f(0) on the calling goroutine and f(1) on another, and waits;
// a panic in either is re-raised here.
func both(f func(w int)) { work.Parallel(2, f) }

// halves runs f over [0, n) in two halves on two goroutines when n is
// large enough (f(0, n) alone otherwise).
func halves(n int, f func(lo, hi int)) {
	if n < 64 {
		f(0, n)
		return
	}
	mid := n / 2
	both(func(w int) {
		if w == 0 {
			f(0, mid)
		} else {
			f(mid, n)
		}
	})
}

// eachIndex calls f(w, i) for every i in [0, n), handing out indexes one
// at a time to worker w = 0 and, if parallel, w = 1; after a panic in one
// worker the other takes no new index.
func eachIndex(n int, parallel bool, f func(w, i int)) {
	var next atomic.Int64
	var failed atomic.Bool
	run := func(w int) {
		defer func() {
			if r := recover(); r != nil {
				failed.Store(true)
				panic(r)
			}
		}()
		for !failed.Load() {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			f(w, i)
		}
	}
	if !parallel {
		run(0)
		return
	}
	both(run)
}
