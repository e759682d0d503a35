package msa

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Benchmarks of Weber's Tables 5.8-5.9 shapes (DESIGN §5):
//   go test ./builtins/msa -run '^$' -bench . -benchtime 3x -benchmem
// The traces are generated once per process; call trees are built (and
// cached) before the timer, as Table 5.9 excludes loading.

var benchTraces sync.Map

func benchTrace(name string, cfg synth.GenConfig) *trace.Trace {
	if t, ok := benchTraces.Load(name); ok {
		return t.(*trace.Trace)
	}
	tr := synth.Generate(cfg)
	for _, p := range tr.Processes() {
		p.CallTree()
	}
	benchTraces.Store(name, tr)
	return tr
}

func benchMerge(b *testing.B, tr *trace.Trace) {
	procs := tr.Processes()
	var m *Tree
	b.ResetTimer()
	for range b.N {
		m = Align(procs...)
	}
	b.StopTimer()
	st := m.StageTimes()
	b.ReportMetric(float64(st[0].Milliseconds()), "group-ms")
	b.ReportMetric(float64(st[1].Milliseconds()), "guide-ms")
	b.ReportMetric(float64(st[2].Milliseconds()), "msa-ms")
	b.ReportMetric(float64(st[3].Milliseconds()), "tree-ms")
	b.ReportMetric(float64(st[4].Milliseconds()), "stats-ms")
	b.ReportMetric(float64(m.NumNodes()), "nodes")
	b.ReportMetric(float64(tr.NumEvents())/(b.Elapsed().Seconds()/float64(b.N)), "events/s")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	e, g, d := m.StateCounts()
	distinct, msas, rows, steps := m.counts()
	b.Logf("%d events; %s; equal %d gap %d different %d; distinct %d msas %d rows %d steps %d; methods %v", tr.NumEvents(), m.headline(), e, g, d, distinct, msas, rows, steps, m.al.methods)
}

// pepc-shaped, 16,384 processes (Table 5.9: 4 min 53 s; target <= 30 s).
func BenchmarkMergePEPC16384(b *testing.B) {
	benchMerge(b, benchTrace("pepc16384", synth.PEPCConfig(16384)))
}

// fd4-shaped, 65,536 processes (Table 5.9: 4.6 s; target <= 1 s).
func BenchmarkMergeFD4x65536(b *testing.B) {
	benchMerge(b, benchTrace("fd4", synth.FD4Config(65536)))
}

// Max3FreqHashing guide order for 1,024 sequences of ~1M symbols
// (Table 5.8: 11.4 s for 1,024 ParaDiS processes; target <= 1 s). The
// sequences (4 GiB) are generated once: ParaDiS-like, 40 region ids,
// lengths 0.9-1.1M.
var bigSeqs [][]int32

func BenchmarkMax3Ranking1024x1M(b *testing.B) {
	if bigSeqs == nil {
		rng := rand.New(rand.NewPCG(1, 2))
		bigSeqs = make([][]int32, 1024)
		for i := range bigSeqs {
			n := 900_000 + rng.IntN(200_000)
			s := make([]int32, n)
			for j := range s {
				s[j] = int32(rng.IntN(8) + rng.IntN(8)*rng.IntN(5))
			}
			bigSeqs[i] = s
		}
	}
	w := make([]int64, len(bigSeqs))
	for i := range w {
		w[i] = 1
	}
	var total int64
	for _, s := range bigSeqs {
		total += int64(len(s))
	}
	b.SetBytes(4 * total)
	b.ResetTimer()
	for range b.N {
		rankingOrder(bigSeqs, w)
	}
	b.ReportMetric(float64(total)/(b.Elapsed().Seconds()/float64(b.N)), "symbols/s")
}
