package imbalance

import (
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

var (
	benchOnce sync.Once
	benchTr   *trace.Trace
)

func bigTrace(b *testing.B) *trace.Trace {
	benchOnce.Do(func() {
		t0 := time.Now()
		benchTr = synth.Generate(synth.ImbalanceBenchConfig())
		b.Logf("generated %d events on %d locations in %v (%d MB)", benchTr.NumEvents(), benchTr.NumProcesses(), time.Since(t0), benchTr.MemoryBytes()>>20)
	})
	return benchTr
}

// BenchmarkAnalyze100M: dominant function + SOS-time over 100M events on 1,024 ranks
// (target <= 1 s on 2 cores).
func BenchmarkAnalyze100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		r := Analyze(tr)
		if r.Function() != "solve" {
			b.Fatalf("dominant %s", r.Function())
		}
	}
	b.ReportMetric(float64(tr.NumEvents())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}
