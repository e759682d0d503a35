package work

import (
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
