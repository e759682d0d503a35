package cluster

import (
	"crypto/sha3"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Benchmarks named for the seed figures they answer (DESIGN.md §5):
// Weber Table 5.7 (fd4, 65,536 processes, hash clustering 555 ms), SC
// Fig. 12a (BT-MZ, 65,536 processes, lattice + matrix 2.5 s) and SC Fig.
// 12c / IX.B (ParaDiS, 4,096 processes, > 60 s). Run with
//
//	go test ./builtins/cluster -run '^$' -bench . -benchtime 10x

var (
	benchOnce  sync.Map // name -> *trace.Trace
	benchTrace = func(name string, cfg func() synth.GenConfig) *trace.Trace {
		if t, ok := benchOnce.Load(name); ok {
			return t.(*trace.Trace)
		}
		t := synth.Generate(cfg())
		for _, p := range t.Processes() {
			p.Pairs() // cached pair sets, as in the seed's measurement
		}
		benchOnce.Store(name, t)
		return t
	}
)

func fd4() *trace.Trace {
	return benchTrace("fd4", func() synth.GenConfig { return synth.FD4Config(65536) })
}

// hashOnly is hash clustering alone: equal pair sets grouped, names and
// SHA3-512 per distinct set.
func hashOnly(procs []*trace.Process) *HashClustering {
	c := &Clustering{procs: procs}
	c.sets = pairSets(procs, nil)
	c.setOf = make([]int32, len(procs))
	for s, d := range c.sets {
		for _, i := range d.procs {
			c.setOf[i] = int32(s)
		}
	}
	c.group(Pairs)
	for i := range c.groups {
		c.Hash(i)
	}
	return c.hash
}

// BenchmarkHashClusteringFD4 answers Weber Table 5.7 (fd4: 65,536
// processes, 14 groups, 555 ms) with pair sets cached.
func BenchmarkHashClusteringFD4(b *testing.B) {
	tr := fd4()
	b.ReportAllocs()
	b.ResetTimer()
	var h *HashClustering
	for range b.N {
		h = hashOnly(tr.Processes())
	}
	b.ReportMetric(float64(h.Len()), "groups")
	b.ReportMetric(float64(len(tr.Processes()))*float64(b.N)/b.Elapsed().Seconds(), "procs/s")
}

// BenchmarkHashClusteringFD4Fresh is the same from a freshly generated
// trace: call trees and pair sets are built inside the timing.
func BenchmarkHashClusteringFD4Fresh(b *testing.B) {
	b.ReportAllocs()
	var h *HashClustering
	for range b.N {
		b.StopTimer()
		tr := synth.Generate(synth.FD4Config(65536))
		runtime.GC()
		b.StartTimer()
		h = hashOnly(tr.Processes())
	}
	b.ReportMetric(float64(h.Len()), "groups")
}

// BenchmarkSHA3EveryProcessFD4 hashes every process's serialised pair set
// with SHA3-512, as Algorithm 5 reads literally (for comparison with the
// one-hash-per-distinct-set grouping above).
func BenchmarkSHA3EveryProcessFD4(b *testing.B) {
	tr := fd4()
	h := hashOnly(tr.Processes())
	ser := map[int]string{}
	for _, g := range h.Groups() {
		for _, p := range g.Procs {
			ser[p] = Serialize(g.Attrs)
		}
	}
	b.ResetTimer()
	for range b.N {
		for _, p := range tr.Processes() {
			sha3.Sum512([]byte(ser[p.Index]))
		}
	}
}

func structuralBench(b *testing.B, tr *trace.Trace) {
	b.ReportAllocs()
	b.ResetTimer()
	var c *Clustering
	for range b.N {
		c = Structural(tr)
		c.Matrix()
	}
	b.ReportMetric(float64(c.NumGroups()), "groups")
	b.ReportMetric(float64(c.Lattice().Len()), "nodes")
	b.ReportMetric(float64(len(tr.Processes()))*float64(b.N)/b.Elapsed().Seconds(), "procs/s")
	if c.Fallback() != nil {
		b.Fatalf("fell back: %v", c.Fallback())
	}
}

// BenchmarkLatticeMatrixBTMZ answers SC Fig. 12a: BT-MZ at 4,096 ranks x
// 15 threads = 65,536 processes, lattice + similarity matrix 2.5 s.
func BenchmarkLatticeMatrixBTMZ(b *testing.B) {
	structuralBench(b, benchTrace("btmz", func() synth.GenConfig { return synth.BTMZConfig(4096, 15) }))
}

// BenchmarkLatticeMatrixParaDiS answers SC Fig. 12c / IX.B: ParaDiS at
// 4,096 processes, ~200 groups, a lattice of ~50k nodes, > 60 s.
func BenchmarkLatticeMatrixParaDiS(b *testing.B) {
	structuralBench(b, benchTrace("paradis", func() synth.GenConfig { return synth.ParaDiSConfig(4096) }))
}

// BenchmarkSubsumptionParaDiS adds the pairs+ lattice and the subsumption
// matrix (SC VII) for the same run.
func BenchmarkSubsumptionParaDiS(b *testing.B) {
	tr := benchTrace("paradis", func() synth.GenConfig { return synth.ParaDiSConfig(4096) })
	c := Structural(tr)
	b.ResetTimer()
	for range b.N {
		c.sub = nil
		c.Subsumption()
	}
}

// BenchmarkGreedyMergeTies is the greedy merge (SC VIII.B) of g groups
// whose similarities take 11 values (tenths): many exact ties, which the
// merge decides in rational arithmetic. g = 2000 is the largest clustering
// whose summary line merges at σ.
func BenchmarkGreedyMergeTies(b *testing.B) {
	for _, g := range []int{200, 1000, 2000} {
		b.Run(fmt.Sprint(g), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, uint64(g)))
			num, den := make([][]int64, g), make([][]int64, g)
			for i := range g {
				num[i], den[i] = make([]int64, g), make([]int64, g)
				num[i][i], den[i][i] = 1, 1
			}
			for i := range g {
				for j := i + 1; j < g; j++ {
					v := int64(r.IntN(11))
					num[i][j], den[i][j], num[j][i], den[j][i] = v, 10, v, 10
				}
			}
			sizes := make([]int, g)
			for i := range sizes {
				sizes[i] = 1 + r.IntN(5)
			}
			sim := floats(num, den)
			b.ResetTimer()
			for range b.N {
				greedyMerge(sim, fracsOf(num, den), sizes, 0.5)
			}
		})
	}
}
