package work

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// Parallel runs every worker once and re-raises a worker's panic in the
// caller after all have returned.
func TestParallel(t *testing.T) {
	for n := 0; n <= 5; n++ {
		var ran [5]atomic.Int32
		Parallel(n, func(w int) { ran[w].Add(1) })
		for w := range 5 {
			if want := int32(0); w < n {
				want = 1
				if got := ran[w].Load(); got != want {
					t.Fatalf("n=%d: worker %d ran %d times", n, w, got)
				}
			} else if ran[w].Load() != want {
				t.Fatalf("n=%d: worker %d ran", n, w)
			}
		}
	}
	var done atomic.Int32
	defer func() {
		if r := recover(); r != "boom 2" || done.Load() != 3 {
			t.Fatalf("panic %v after %d of 3 other workers", r, done.Load())
		}
	}()
	Parallel(4, func(w int) {
		if w == 2 {
			panic("boom 2")
		}
		done.Add(1)
	})
}

// Each calls f once for every index, from at most GOMAXPROCS workers, and
// re-raises a panic of f.
func TestEach(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		seen := make([]atomic.Int32, n)
		var maxW atomic.Int32
		Each(n, func(w, i int) {
			seen[i].Add(1)
			for {
				m := maxW.Load()
				if int32(w) <= m || maxW.CompareAndSwap(m, int32(w)) {
					break
				}
			}
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
		if w := int(maxW.Load()); n > 0 && w >= min(runtime.GOMAXPROCS(0), n) {
			t.Fatalf("n=%d: worker %d, want < %d", n, w, min(runtime.GOMAXPROCS(0), n))
		}
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the panic of f", r)
		}
	}()
	Each(10, func(_, i int) {
		if i == 5 {
			panic("boom")
		}
	})
	t.Fatal("Each returned after f panicked")
}
