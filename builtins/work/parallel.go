package work

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Parallel runs f(0) on the calling goroutine and f(1) .. f(n-1) on new
// ones, and waits for all. A panic in any of them (an interrupt from
// Check, a memory error, a bug) is re-raised in the caller once all have
// returned; the first one wins. n < 1 runs nothing.
func Parallel(n int, f func(w int)) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var pv any
	run := func(w int) {
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				if pv == nil {
					pv = r
				}
				mu.Unlock()
			}
		}()
		f(w)
	}
	for w := 1; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	if n > 0 {
		run(0)
	}
	wg.Wait()
	if pv != nil {
		panic(pv)
	}
}

// Each calls f(w, i) for every i in [0, n), spread over the cores: each of
// min(GOMAXPROCS, n) workers (w is its number, for per-worker state) takes
// the next i from a shared counter, so uneven items balance. Panics are
// re-raised as Parallel does.
func Each(n int, f func(w, i int)) {
	var next atomic.Int64
	Parallel(min(runtime.GOMAXPROCS(0), n), func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			f(w, i)
		}
	})
}
