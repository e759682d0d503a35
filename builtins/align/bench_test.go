package align

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Weber Tables 3.2-3.6: the five input sets at 1k..1M. NW is capped at 10k
// (memory), the quadratic methods at 30k; Auto runs every size.
func BenchmarkWeberTables(b *testing.B) {
	for _, set := range weberSets {
		for _, n := range []int{1000, 10000, 100000, 1000000} {
			x, y := set.gen(n)
			for _, m := range []Method{Auto, NW, BitParallel, BiWFA} {
				if (m == NW && n > 10000) || (m == BitParallel && n > 30000) || (m == BiWFA && n > 30000 && set.name != "Equal") {
					continue
				}
				b.Run(fmt.Sprintf("%s/%d/%v", set.name, n, m), func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						Align(x, y, WithMethod(m))
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/float64(n), "ns/cell")
				})
			}
		}
	}
}

func benchPair(b *testing.B, x, y []int32, m Method) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Align(x, y, WithMethod(m))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x))/float64(len(y)), "ns/cell")
}

// Random 20k x 20k over 4 and 20 symbols: the full alignment (score and
// path) by each exact method that finishes in seconds.
func BenchmarkRandom20k(b *testing.B) {
	for _, sigma := range []int{4, 20} {
		r := rand.New(rand.NewSource(7))
		x, y := randomSeq(r, 20000, sigma), randomSeq(r, 20000, sigma)
		for _, m := range []Method{Auto, BitParallel, Hirschberg, BiWFA} {
			b.Run(fmt.Sprintf("sigma%d/%v", sigma, m), func(b *testing.B) { benchPair(b, x, y, m) })
		}
	}
}

func BenchmarkEqual95_100k(b *testing.B) {
	r := rand.New(rand.NewSource(7))
	randomSeq(r, 20000, 20)
	randomSeq(r, 20000, 20)
	x := randomSeq(r, 100000, 20)
	y := mutate(r, x, 0.05, 20)
	for _, m := range []Method{Auto, BiWFA} {
		b.Run(m.String(), func(b *testing.B) { benchPair(b, x, y, m) })
	}
}

func BenchmarkLargeEqualBlocks1M(b *testing.B) {
	x, y := weberSets[3].gen(1_000_000)
	benchPair(b, x, y, Auto)
}

// paradisRank0 generates rank 0 of a ParaDiS-shaped run: one rank, call
// depth 4, fanout 3, with as many iterations as give about events events.
func paradisRank0(events int, version int, seed int64) *trace.Process {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Depth, cfg.Fanout, cfg.MPI = 1, 4, 3, false
	cfg.Version, cfg.Seed = version, seed
	cfg.Iterations = 0
	base := cfg.EventsPerRank(0)
	cfg.Iterations = 1
	cfg.Iterations = (events - base) / (cfg.EventsPerRank(0) - base)
	p := synth.Generate(cfg).Process(0)
	p.CallTree()
	return p
}

func benchHierarchical(b *testing.B, p, q *trace.Process) {
	var r *Result
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r = Pair(p, q)
	}
	e, _, _, _ := r.Counts()
	b.ReportMetric(float64(p.Len()), "eventsA")
	b.ReportMetric(float64(q.Len()), "eventsB")
	b.ReportMetric(float64(e)/float64(r.Len()), "equal-frac")
}

// A ParaDiS-shaped pair from the generator: two code versions, B with 20%
// more iterations (2.0M vs 2.4M events, ~40% equal), hierarchical alignment.
func BenchmarkHierarchicalParaDiS(b *testing.B) {
	benchHierarchical(b, paradisRank0(2_000_000, 0, 1), paradisRank0(2_400_000, 1, 1))
}

// The large ParaDiS-shaped pair of issue 4: 22M vs 20M events, the same
// code version (~90% equal). Run with -benchtime=1x; it needs about 2 GB.
func BenchmarkHierarchicalParaDiS22M(b *testing.B) {
	benchHierarchical(b, paradisRank0(22_000_000, 0, 1), paradisRank0(20_000_000, 0, 2))
}

// The Dissimilarity table of an empty process against 300k calls (issue
// 10: 123 ms and quadratic before sampling over time).
func BenchmarkDissimilarity300k(b *testing.B) {
	n := 300_000
	names := make([]string, n)
	enter, leave := make([]int64, n), make([]int64, n)
	for i := range names {
		names[i] = "f"
		enter[i], leave[i] = int64(i)*100, int64(i)*100+50
	}
	ops := appendN(nil, OpGapA, n)
	r := timedResult(nil, names, ops, []int64{}, []int64{}, enter, leave)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.vt = nil
		_ = r.Dissimilarity()
	}
}

// The score pass alone: one last row of 20k x 20k random (4 and 20 symbols)
// by each row kernel on one core, in ns per cell.
func BenchmarkKernelRow20k(b *testing.B) {
	for _, sigma := range []int{4, 20} {
		r := rand.New(rand.NewSource(7))
		x, y := randomSeq(r, 20000, sigma), randomSeq(r, 20000, sigma)
		for _, k := range []struct {
			name string
			use  func(*hirschberg) bool
		}{{"bits", (*hirschberg).useBits}, {"bitsGo", func(h *hirschberg) bool { h.noVector = true; return h.useBits() }}, {"bytes", (*hirschberg).useBytes}, {"scalar", func(*hirschberg) bool { return true }}} {
			b.Run(fmt.Sprintf("sigma%d/%s", sigma, k.name), func(b *testing.B) {
				h := newHirschberg(x, y, DefaultScoring, false, nil)
				k.use(h)
				out := make([]int, len(y)+1)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					h.row(0, len(x), 0, len(y), false, out)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x))/float64(len(y)), "ns/cell")
			})
		}
	}
}
