package synth

import (
	"math"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// kernelStats returns rank r's master-thread statistics of the named region.
func kernelStats(t *testing.T, tr *trace.Trace, rank int, name string) (trace.RegionStat, bool) {
	t.Helper()
	for _, p := range tr.Processes() {
		if int(p.Rank) != rank || p.Thread != 0 {
			continue
		}
		id := tr.RegionID(name)
		for _, s := range p.RegionStats() {
			if s.Region == id && id >= 0 {
				return s, true
			}
		}
		return trace.RegionStat{}, false
	}
	t.Fatalf("no rank %d", rank)
	return trace.RegionStat{}, false
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// The generator's knobs do what GenConfig says, measured on the trace.
func TestGeneratorKnobs(t *testing.T) {
	base := GenConfig{Seed: 3, Ranks: 4, Iterations: 6, Depth: 1, Fanout: 2, MPI: true, UnitNs: 1000,
		SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1}

	t.Run("version", func(t *testing.T) {
		v1 := base
		v1.Version = 1
		a, b := Generate(base), Generate(v1)
		for r := 0; r < base.Ranks; r++ {
			if s, ok := kernelStats(t, a, r, "apply_bc"); !ok || s.Calls != int64(base.Iterations) {
				t.Fatalf("version 0 rank %d: apply_bc %+v", r, s)
			}
			if _, ok := kernelStats(t, a, r, "compute_flux_correction"); ok {
				t.Fatal("version 0 calls compute_flux_correction")
			}
			if s, ok := kernelStats(t, b, r, "compute_flux_correction"); !ok || s.Calls != int64(base.Iterations) {
				t.Fatalf("version 1 rank %d: compute_flux_correction %+v", r, s)
			}
			if _, ok := kernelStats(t, b, r, "apply_bc"); ok {
				t.Fatal("version 1 calls apply_bc")
			}
		}
	})
	t.Run("slow rank", func(t *testing.T) {
		c := base
		c.SlowRank, c.SlowFactor = 2, 2.5
		tr := Generate(c)
		slow, _ := kernelStats(t, tr, 2, "compute_flux")
		other, _ := kernelStats(t, tr, 1, "compute_flux")
		if !near(float64(slow.Inclusive)/float64(other.Inclusive), 2.5, 0.02) {
			t.Fatalf("slow rank: %d vs %d ns", slow.Inclusive, other.Inclusive)
		}
	})
	t.Run("outlier iteration", func(t *testing.T) {
		c := base
		c.OutlierRank, c.OutlierIter, c.OutlierFactor = 1, 3, 4
		tr := Generate(c)
		s, _ := kernelStats(t, tr, 1, "update_cells")
		if !near(float64(s.Max)/float64(s.Min), 4, 0.02) {
			t.Fatalf("outlier: max %d min %d ns", s.Max, s.Min)
		}
		o, _ := kernelStats(t, tr, 0, "update_cells")
		if o.Max != o.Min {
			t.Fatalf("rank 0 without noise should have equal iterations: %+v", o)
		}
	})
	t.Run("imbalance", func(t *testing.T) {
		c := base
		c.Imbalance = 1 // rank r: 1 + r/3 times longer
		tr := Generate(c)
		r0, _ := kernelStats(t, tr, 0, "compute_flux")
		for r := 1; r < c.Ranks; r++ {
			s, _ := kernelStats(t, tr, r, "compute_flux")
			if want := 1 + float64(r)/3; !near(float64(s.Inclusive)/float64(r0.Inclusive), want, 0.02) {
				t.Fatalf("rank %d: ratio %.3f, want %.3f", r, float64(s.Inclusive)/float64(r0.Inclusive), want)
			}
		}
	})
	t.Run("noise", func(t *testing.T) {
		c := base
		c.Noise = 2
		tr := Generate(c)
		s, _ := kernelStats(t, tr, 0, "update_cells")
		if s.Max == s.Min {
			t.Fatal("noise did not vary the kernel durations")
		}
		q, _ := kernelStats(t, Generate(base), 0, "update_cells")
		if s.Inclusive <= q.Inclusive {
			t.Fatalf("noise should only add time: %d vs %d", s.Inclusive, q.Inclusive)
		}
	})
}

// The seeds' largest process count (65,536; DESIGN.md §5, hash clustering) builds, with
// the event count the configuration promises.
func TestGenerate65536Ranks(t *testing.T) {
	c := GenConfig{Seed: 1, Ranks: 65536, Iterations: 1, MPI: true, UnitNs: 1000, SlowRank: -1, OutlierIter: -1}
	tr := Generate(c)
	if tr.NumProcesses() != 65536 || tr.NumEvents() != c.NumEvents() {
		t.Fatalf("%d processes, %d events; want 65536, %d", tr.NumProcesses(), tr.NumEvents(), c.NumEvents())
	}
}
