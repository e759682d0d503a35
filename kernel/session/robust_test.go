package session

import (
	"runtime"
	"testing"
)

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Issue 29, defect 8: re-running a cell frees what its previous run held.
func TestRerunFreesMemory(t *testing.T) {
	s, _, _, _ := newTest(t)
	const cell = "big := make([]byte, 200<<20)\nbig[len(big)-1] = 1"
	mustRun(t, s, cell)
	one := liveHeap()
	for i := 0; i < 9; i++ {
		mustRun(t, s, cell)
	}
	ten := liveHeap()
	t.Logf("heap after 1 run %d MB, after 10 runs %d MB", one>>20, ten>>20)
	if float64(ten) > 1.5*float64(one) {
		t.Fatalf("heap after 10 runs of a 200 MB cell: %d MB, after one: %d MB", ten>>20, one>>20)
	}
	if got := text(mustRun(t, s, "len(big) + int(big[len(big)-1])")); got != "209715201" {
		t.Fatalf("len(big) + last = %s", got)
	}
}
