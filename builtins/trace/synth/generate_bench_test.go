package synth

import "testing"

func benchGenerate(b *testing.B, cfg GenConfig) {
	var events int64
	for i := 0; i < b.N; i++ {
		tr := Generate(cfg)
		events += tr.NumEvents()
		if i == b.N-1 {
			b.ReportMetric(float64(tr.MemoryBytes())/float64(tr.NumEvents()), "bytes/event")
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkGenerate1M: 16 ranks, depth-2 kernels, ~1M events.
func BenchmarkGenerate1M(b *testing.B) {
	benchGenerate(b, GenConfig{Seed: 1, Ranks: 16, Iterations: 1000, Depth: 2, Fanout: 2, MPI: true, UnitNs: 10000, SlowRank: -1, OutlierIter: -1, Noise: 0.2})
}

// BenchmarkGenerate50MOneLocation: the seeds' 50M events in one location
// (enter/leave only: depth 3, fanout 4 kernels).
func BenchmarkGenerate50MOneLocation(b *testing.B) {
	cfg := GenConfig{Seed: 1, Ranks: 1, Depth: 3, Fanout: 4, UnitNs: 100000, SlowRank: -1, OutlierIter: -1, Noise: 0.1}
	cfg.Iterations = 1
	perIter := cfg.EventsPerRank(0) - GenConfig{Ranks: 1, UnitNs: 1}.EventsPerRank(0)
	cfg.Iterations = 50_000_000 / perIter
	benchGenerate(b, cfg)
}

// BenchmarkGenerate65536Locations: 65,536 MPI ranks, 2 iterations each.
func BenchmarkGenerate65536Locations(b *testing.B) {
	benchGenerate(b, GenConfig{Seed: 1, Ranks: 65536, Iterations: 2, MPI: true, UnitNs: 10000, SlowRank: -1, OutlierIter: -1, Noise: 0.2})
}
