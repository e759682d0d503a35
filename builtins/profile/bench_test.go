package profile

import (
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
)

var (
	benchOnce sync.Once
	benchTr   *trace.Trace
)

// bigTrace is the 100M-event generated run of the imbalance benchmark (1,024 ranks).
func bigTrace(b *testing.B) *trace.Trace {
	benchOnce.Do(func() {
		t0 := time.Now()
		benchTr = trace.Generate(trace.ImbalanceBenchConfig())
		b.Logf("generated %d events on %d locations in %v (%d MB)", benchTr.NumEvents(), benchTr.NumProcesses(), time.Since(t0), benchTr.MemoryBytes()>>20)
	})
	return benchTr
}

func mevents(b *testing.B, n int64) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// BenchmarkBoxes100M: the box-plot profile of all processes together over 100M events
// (target, with the call matrix: <= 1 s on 2 cores).
func BenchmarkBoxes100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		if p := Boxes(tr); len(p.Rows) == 0 {
			b.Fatal("no rows")
		}
	}
	mevents(b, tr.NumEvents())
}

// BenchmarkCallMatrix100M: the direct call matrix of all processes together over 100M events.
func BenchmarkCallMatrix100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		if m := CallMatrix(tr); len(m.Cells) == 0 {
			b.Fatal("no cells")
		}
	}
	mevents(b, tr.NumEvents())
}

// BenchmarkBoxesPerProcess100M: one series per process (exact selection per process).
func BenchmarkBoxesPerProcess100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		if p := Boxes(tr, PerProcess()); len(p.Rows) == 0 {
			b.Fatal("no rows")
		}
	}
	mevents(b, tr.NumEvents())
}
