package ccg

import (
	"runtime"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// heapGrowth returns how many bytes of heap what build returns keeps
// alive (full GCs before and after: two, so that what sync.Pools of earlier
// tests hold in their victim caches is freed before, not during, the
// measurement).
func heapGrowth(build func() *Graph) (*Graph, int64) {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m0)
	g := build()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(g)
	return g, int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
}

// R_memory's m (Stats.Bytes) is what the graph holds: a fresh graph, as
// measured by the heap it keeps alive, within 10% of it.
func TestMemoryCountsWhatTheGraphHolds(t *testing.T) {
	tr := synth.GenerateSMG(synth.SMG2000Config(2, 150_000))
	for _, b := range []Bounds{Lossless, SmallScale, MediumScale} {
		g, held := heapGrowth(func() *Graph { return BuildTrace(tr, b) })
		s := g.Stats()
		ratio := float64(held) / float64(s.Bytes)
		t.Logf("%s: %d nodes, Stats.Bytes %d, heap held %d (%.3f)", b, s.Nodes, s.Bytes, held, ratio)
		if ratio < 0.9 || ratio > 1.1 {
			t.Fatalf("%s: the graph holds %d bytes of heap, Stats says %d (x%.2f)", b, held, s.Bytes, ratio)
		}
	}
	g := BuildTrace(tr, Lossless)
	data := saved(t, g)
	h, held := heapGrowth(func() *Graph { return restored(t, data) })
	runtime.KeepAlive(g)
	runtime.KeepAlive(data)
	if s := h.Stats(); float64(held) > 1.1*float64(s.Bytes) || float64(held) < 0.9*float64(s.Bytes) {
		t.Fatalf("restored: holds %d bytes of heap, Stats says %d", held, s.Bytes)
	}
}
