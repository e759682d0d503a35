package fold

import (
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Benchmarks of Weber 6.1 at issue 14's scale:
//   go test ./builtins/fold -run '^$' -bench . -benchtime 5x -benchmem
// BenchmarkIndexBuild indexes a generated 1,024-rank trace of about 100M
// events (the state index every fold starts from); BenchmarkFold folds its
// 1,024 streams to 1,600 pixels with the index built (target <= 20 ms on 2
// cores); BenchmarkGPUUtilisation measures 64 devices x 8 streams.

var (
	bigOnce sync.Once
	big     *trace.Trace
	bigGen  time.Duration
	bigIx   *Index
)

// bigTrace: 1,024 ranks, 643 iterations of kernels nested 2 deep with
// fanout 4: 100,095,490 events, 97,751 per rank.
func bigTrace(b *testing.B) *trace.Trace {
	bigOnce.Do(func() {
		cfg := synth.DefaultGenConfig()
		cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout = 1024, 643, 2, 4
		st := time.Now()
		big = synth.Generate(cfg)
		bigGen = time.Since(st)
	})
	b.Logf("trace: %d events on %d locations, %.1f bytes/event, generated in %v", big.NumEvents(), big.NumProcesses(),
		float64(big.MemoryBytes())/float64(big.NumEvents()), bigGen)
	return big
}

func BenchmarkIndexBuild(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	var ix *Index
	for range b.N {
		ix = NewIndex(tr)
	}
	b.StopTimer()
	bigIx = ix
	ev := float64(tr.NumEvents())
	b.ReportMetric(ev*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(ix.Bytes()), "index-bytes")
	b.ReportMetric(float64(ix.Bytes())/ev, "index-b/event")
}

func BenchmarkFold(b *testing.B) {
	tr := bigTrace(b)
	ix := bigIx
	if ix == nil {
		ix = NewIndex(tr)
		bigIx = ix
	}
	t0, t1 := localSpan(tr)
	streams := make([]int, len(ix.st))
	for i := range streams {
		streams[i] = i
	}
	for _, c := range []struct {
		op     Op
		byTime bool
	}{{Max, false}, {Idle, false}, {Max, true}, {Idle, true}} {
		name := c.op.String()
		if c.byTime {
			name += "-timeshare"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var f *Folded
			for range b.N {
				f = fold("bench", ix, streams, c.op, t0, t1, 1600, c.byTime)
			}
			b.ReportMetric(float64(f.Streams*f.Width)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
	// A zoom through the notebook surface, the index cached.
	b.Run("zoom", func(b *testing.B) {
		b.ReportAllocs()
		cache.Lock()
		cache.ix = ix
		cache.Unlock()
		for i := range b.N {
			a := t0 + int64(i%10)*(t1-t0)/20
			Timeline(tr, Max, 1600, WithRange(a, a+(t1-t0)/2))
		}
	})
}

// BenchmarkFoldSmallIndex folds 1,024 streams of 1,200 events each (1.2M events, an index of
// about 10 MB that stays in the caches) to 1,600 pixels: the cost of the fold itself when each
// sample is not a cache miss, beside BenchmarkFold's 100M events where it is.
func BenchmarkFoldSmallIndex(b *testing.B) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout = 1024, 8, 2, 4
	tr := synth.Generate(cfg)
	ix := NewIndex(tr)
	b.Logf("trace: %d events on %d locations; index %d bytes", tr.NumEvents(), tr.NumProcesses(), ix.Bytes())
	t0, t1 := localSpan(tr)
	streams := make([]int, len(ix.st))
	for i := range streams {
		streams[i] = i
	}
	for _, byTime := range []bool{false, true} {
		name := "sampled"
		if byTime {
			name = "timeshare"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var f *Folded
			for range b.N {
				f = fold("bench", ix, streams, Max, t0, t1, 1600, byTime)
			}
			b.ReportMetric(float64(f.Streams*f.Width)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

var (
	gpuOnce sync.Once
	gpuTr   *trace.Trace
)

func BenchmarkGPUUtilisation(b *testing.B) {
	gpuOnce.Do(func() {
		cfg := synth.DefaultGenConfig()
		cfg.Ranks, cfg.GPUs, cfg.Streams, cfg.Iterations = 64, 64, 8, 2000
		gpuTr = synth.Generate(cfg)
	})
	tr := gpuTr
	b.Logf("trace: %d events on %d locations", tr.NumEvents(), tr.NumProcesses())
	b.Run("cold", func(b *testing.B) { // the index of the GPU streams built each time
		for range b.N {
			cache.Lock()
			cache.ix = nil
			cache.Unlock()
			GPUUtilisation(tr, WithWindows(100))
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			GPUUtilisation(tr, WithWindows(100))
		}
	})
}
