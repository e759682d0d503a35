package waits_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/waits"
)

// spmd returns a generated SPMD run of about events events on ranks ranks
// with a slow rank, the shape of the measurements.
func spmd(b testing.TB, ranks int, events int64) *trace.Trace {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Threads, cfg.Iterations = ranks, 0, 1
	cfg.SlowRank, cfg.SlowFactor = ranks/3, 1.5
	one := synth.Generate(cfg).NumEvents()
	cfg.Iterations = 2
	per := synth.Generate(cfg).NumEvents() - one
	cfg.Iterations = max(1, int(1+(events-one)/per))
	return synth.Generate(cfg)
}

// BenchmarkAnalyze measures Analyze (wait states, delays, critical path)
// after loading, on 1M, 10M and (with -benchtime 1x and memory) 100M events.
func BenchmarkAnalyze(b *testing.B) {
	for _, n := range []int64{1e6, 1e7, 1e8} {
		b.Run(fmt.Sprintf("%dM", n/1e6), func(b *testing.B) {
			if n > 1e7 && testing.Short() {
				b.Skip("100M events: not in -short")
			}
			tr := spmd(b, 64, n)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			// the peak of the heap beyond the trace, sampled every 20 ms
			stop, peak := make(chan struct{}), make(chan uint64)
			go func() {
				var m runtime.MemStats
				var top uint64
				for {
					select {
					case <-stop:
						peak <- top
						return
					case <-time.After(20 * time.Millisecond):
						runtime.ReadMemStats(&m)
						top = max(top, m.HeapInuse)
					}
				}
			}()
			b.ResetTimer()
			var r *waits.Result
			for range b.N {
				r = waits.Analyze(tr)
			}
			b.StopTimer()
			close(stop)
			b.ReportMetric(float64(max(<-peak, before.HeapInuse)-before.HeapInuse)/1e6, "MB-peak-beyond-trace")
			b.ReportMetric(float64(before.HeapInuse)/float64(tr.NumEvents()), "B/event-trace")
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(tr.NumEvents()), "events")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/1e6, "MB-alloc/op")
			b.ReportMetric(float64(len(r.InstanceRows())), "waits")
		})
	}
}
