package synth

import (
	"errors"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// allKnobsConfig defines every region Generate can define: MPI, worker and
// helper threads, GPUs, master work, workloads, recursion and the walk.
func allKnobsConfig() GenConfig {
	c := GenConfig{Seed: 7, Ranks: 4, Threads: 1, Iterations: 2, Depth: 1, Fanout: 2, MPI: true, UnitNs: 1000, Noise: 0.3, SlowRank: -1, OutlierIter: -1,
		HelperThreads: HelperThreads{ThreadKinds: []ThreadKind{{Count: 1, Start: "pthread_io", Calls: []string{"write_chunk"}}}}, GPU: GPU{GPUs: 2, Streams: 2}, Master: Master{MasterWork: 3},
		Workload: Workload{Workloads: 4, WorkloadPaths: 4}, RecursiveSort: RecursiveSort{Recursion: 3}, TreeWalk: TreeWalk{Walk: 5, WalkMutation: 0.3}}
	return c
}

// The generated MPI and CUDA regions carry Score-P's roles and paradigms;
// all others are "function" (the OpenMP parallel region "parallel").
func TestGenerateRoles(t *testing.T) {
	want := map[string][2]string{
		"MPI_Init":              {"mpi", "function"},
		"MPI_Finalize":          {"mpi", "function"},
		"MPI_Barrier":           {"mpi", "barrier"},
		"MPI_Allreduce":         {"mpi", "coll_all2all"},
		"MPI_Isend":             {"mpi", "point2point"},
		"MPI_Irecv":             {"mpi", "point2point"},
		"MPI_Waitall":           {"mpi", "point2point"},
		"cudaLaunchKernel":      {"cuda", "wrapper"},
		"cudaStreamSynchronize": {"cuda", "wrapper"},
		"cuda_kernel_push":      {"cuda", "function"},
		"cuda_kernel_fields":    {"cuda", "function"},
		"omp_parallel_region":   {"openmp", "parallel"},
		"pthread_io":            {"pthread", "function"},
	}
	tr := Generate(allKnobsConfig())
	seen := 0
	for _, r := range tr.Defs.Regions {
		w, ok := want[r.Name]
		if !ok {
			w = [2]string{"user", "function"}
		} else {
			seen++
		}
		if r.Paradigm != w[0] || r.Role != w[1] {
			t.Errorf("%s: paradigm %q role %q, want %q %q", r.Name, r.Paradigm, r.Role, w[0], w[1])
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d expected regions defined", seen, len(want))
	}
}

// DefaultSync classifies exactly the generated barrier, collective, wait and
// stream synchronisation as synchronisation.
func TestGenerateSyncRegions(t *testing.T) {
	for _, cfg := range []GenConfig{allKnobsConfig(), HybridGPUConfig(3, 2, 2), COSMOSPECSConfig(9, 3)} {
		tr := Generate(cfg)
		var got []string
		for id, s := range trace.DefaultSync().Regions(tr) {
			if s {
				got = append(got, tr.Defs.Regions[id].Name)
			}
		}
		sort.Strings(got)
		want := "MPI_Allreduce MPI_Barrier MPI_Waitall"
		if cfg.Streams > 0 {
			want += " cudaStreamSynchronize"
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%+v: sync regions %s, want %s", cfg, g, want)
		}
	}
}

// preRoleDigests are goldenDigests as recorded before the generator gave
// its MPI and CUDA regions roles (all were "function").
var preRoleDigests = []string{
	"5ef77d7deb09e614b64077ed",
	"fc888ed4de0c1c7b46bc6b88",
	"d0c163dda367aaa75ddcd756",
	"5deefea5a5144a004f803a73",
	"597ed22de0a5d2ac796c4850",
	"9bd879f3ea2e7d7e84dd7b2c",
}

// The roles are the only change to the golden traces; Growth 0 changes
// nothing, whatever GrowthCenter and GrowthRadius say.
func TestGenerateGoldenOnlyRolesChanged(t *testing.T) {
	for i, cfg := range goldenConfigs {
		tr := Generate(cfg)
		for j := range tr.Defs.Regions {
			if r := &tr.Defs.Regions[j]; r.Paradigm != "openmp" {
				r.Role = "function"
			}
		}
		if got := traceDigest(tr); got != preRoleDigests[i] {
			t.Errorf("config %d with the old roles: digest %s, want %s", i, got, preRoleDigests[i])
		}
		cfg.GrowthCenter, cfg.GrowthRadius = cfg.Ranks-1, 2
		if got := traceDigest(Generate(cfg)); got != goldenDigests[i] {
			t.Errorf("config %d with Growth 0, GrowthCenter %d: digest %s, want %s", i, cfg.GrowthCenter, got, goldenDigests[i])
		}
	}
}

// kernelTimes returns the summed inclusive time of the compute kernels
// (compute_flux, update_cells, apply_bc) on p per iteration: each kernel is
// entered once per iteration on a master thread and not recursively.
func kernelTimes(p *trace.Process, iterations int) []int64 {
	out := make([]int64, iterations)
	var seen [3]int
	open := [3]int64{}
	for i, k := range p.Kind {
		j := -1
		switch p.RegionName(p.Ref[i]) {
		case "compute_flux":
			j = 0
		case "update_cells":
			j = 1
		case "apply_bc":
			j = 2
		}
		switch {
		case j < 0:
		case k == trace.Enter:
			open[j] = p.Time[i]
		case k == trace.Leave:
			out[seen[j]] += p.Time[i] - open[j]
			seen[j]++
		}
	}
	return out
}

// With Growth, the kernels of a rank at grid distance d from the centre run
// (1 + Growth*w*it/(Iterations-1)) times longer in iteration it, w =
// max(0, 1 - d/GrowthRadius), multiplying Imbalance's factor; ranks with
// w = 0 do not change.
func TestGenerateGrowth(t *testing.T) {
	// 12 ranks: a 3 x 4 grid; centre 5 at row 1, column 1.
	cfg := GenConfig{Seed: 3, Ranks: 12, Iterations: 5, Depth: 1, Fanout: 2, MPI: true, UnitNs: 1000, Imbalance: 0.25,
		SlowRank: -1, OutlierIter: -1, GrowingImbalance: GrowingImbalance{Growth: 3, GrowthCenter: 5, GrowthRadius: 1.5}}
	rad := cfg.GrowthRadius // a variable: constant arithmetic would round otherwise
	near, diag := 1-1/rad, 1-math.Sqrt2/rad
	weight := []float64{diag, near, diag, 0, near, 1, near, 0, diag, near, diag, 0}
	tr := Generate(cfg)
	for r := 0; r < cfg.Ranks; r++ {
		if got := cfg.GrowthWeight(r); got != weight[r] {
			t.Errorf("GrowthWeight(%d) = %v, want %v", r, got, weight[r])
		}
		got := kernelTimes(tr.Processes()[r], cfg.Iterations)
		for it, d := range got {
			f := (1 + cfg.Imbalance*float64(r)/float64(cfg.Ranks-1)) * (1 + cfg.Growth*weight[r]*float64(it)/float64(cfg.Iterations-1))
			var want int64
			for k := range 3 {
				want += int64(float64(int64(10+3*k)*cfg.UnitNs) * f)
			}
			if d != want {
				t.Errorf("rank %d (w %.3f) iteration %d: kernels %d ns, want %d", r, weight[r], it, d, want)
			}
		}
		if weight[r] == 0 && got[0] != got[cfg.Iterations-1] {
			t.Errorf("rank %d (w 0): kernels %d ns first, %d last", r, got[0], got[cfg.Iterations-1])
		}
	}
	// The centre's kernels end exactly 1+Growth times longer (Imbalance 0).
	cfg.Imbalance = 0
	got := kernelTimes(Generate(cfg).Processes()[5], cfg.Iterations)
	if got[0] != 39000 || got[cfg.Iterations-1] != 4*39000 {
		t.Errorf("centre: kernels %v ns, want 39000 first and %d last", got, 4*39000)
	}
	// One iteration: nothing grows.
	cfg.Iterations = 1
	if got := kernelTimes(Generate(cfg).Processes()[5], 1); got[0] != 39000 {
		t.Errorf("one iteration: centre's kernels %d ns, want 39000", got[0])
	}
}

// The rank grid is ceil(sqrt(Ranks)) columns wide; COSMOSPECSConfig's
// centre sits at row rows/2, column cols/2-1: 54 of 100 (Weber's process 54).
func TestCOSMOSPECSCentre(t *testing.T) {
	for _, c := range []struct{ ranks, cols, centre int }{
		{1, 1, 0}, {2, 2, 0}, {3, 2, 2}, {5, 3, 3}, {12, 4, 5}, {16, 4, 9}, {17, 5, 11}, {100, 10, 54}, {1024, 32, 527}, {1025, 33, 543},
	} {
		if got := gridCols(c.ranks); got != c.cols {
			t.Errorf("gridCols(%d) = %d, want %d", c.ranks, got, c.cols)
		}
		cfg := COSMOSPECSConfig(c.ranks, 4)
		if cfg.GrowthCenter != c.centre || cfg.check() != nil {
			t.Errorf("COSMOSPECSConfig(%d): centre %d, want %d (check: %v)", c.ranks, cfg.GrowthCenter, c.centre, cfg.check())
		}
	}
	// 100 ranks on a 10 x 10 grid: rank 44 is a neighbour of 54, 43 a
	// diagonal one, 56 two columns away (w 0).
	cfg := COSMOSPECSConfig(100, 8)
	if cfg.Growth != 3 || cfg.GrowthRadius != 1.5 || cfg.Noise != 0.05 || cfg.SlowRank != -1 || cfg.OutlierFactor != 4 {
		t.Errorf("COSMOSPECSConfig(100, 8) = %+v", cfg)
	}
	rad := cfg.GrowthRadius
	for r, w := range map[int]float64{54: 1, 44: 1 - 1/rad, 64: 1 - 1/rad, 53: 1 - 1/rad, 55: 1 - 1/rad, 43: 1 - math.Sqrt2/rad, 56: 0, 20: 0, 0: 0} {
		if got := cfg.GrowthWeight(r); got != w {
			t.Errorf("COSMOSPECSConfig(100): GrowthWeight(%d) = %v, want %v", r, got, w)
		}
	}
}

// In the COSMO-SPECS preset the culprits are clear despite the noise: the
// centre rank is the slowest in the last iteration, the outlier rank in
// the outlier iteration.
func TestCOSMOSPECSCulprits(t *testing.T) {
	cfg := COSMOSPECSConfig(100, 8)
	tr := Generate(cfg)
	slowest := make([]int, cfg.Iterations)
	best := make([]int64, cfg.Iterations)
	for r := 0; r < cfg.Ranks; r++ {
		for it, d := range kernelTimes(tr.Processes()[r], cfg.Iterations) {
			if d > best[it] {
				best[it], slowest[it] = d, r
			}
		}
	}
	if slowest[cfg.Iterations-1] != 54 || slowest[cfg.OutlierIter] != 20 || cfg.OutlierIter != 4 || cfg.OutlierRank != 20 {
		t.Errorf("slowest rank per iteration %v; want 54 last, 20 in iteration 4 (outlier %d in %d)", slowest, cfg.OutlierRank, cfg.OutlierIter)
	}
}

// The new presets and Growth keep the counts NumEvents and EventsPerRank
// promise, non-decreasing times and proper nesting.
func TestGenerateImbalanceCounts(t *testing.T) {
	growth := GenConfig{Seed: 5, Ranks: 7, Threads: 1, Iterations: 4, Depth: 2, Fanout: 2, MPI: true, UnitNs: 100, Noise: 0.4, SlowRank: 2, SlowFactor: 2,
		OutlierIter: 1, OutlierRank: 3, OutlierFactor: 3, GrowingImbalance: GrowingImbalance{Growth: 2, GrowthCenter: 6, GrowthRadius: 3}, GPU: GPU{GPUs: 2, Streams: 3}}
	for i, cfg := range []GenConfig{COSMOSPECSConfig(12, 5), COSMOSPECSConfig(1, 3), HybridGPUConfig(3, 4, 3), HybridGPUConfig(1, 1, 1), growth} {
		tr := Generate(cfg)
		if got, want := tr.NumEvents(), cfg.NumEvents(); got != want {
			t.Errorf("config %d: %d events, NumEvents says %d", i, got, want)
		}
		if got, want := tr.NumProcesses(), cfg.Ranks*(1+cfg.Threads)+cfg.GPUs*cfg.Streams; got != want {
			t.Errorf("config %d: %d processes, want %d", i, got, want)
		}
		for j, p := range tr.Processes() {
			if p.Thread == 0 && j < cfg.Ranks*(1+cfg.Threads) && len(p.Kind) != cfg.EventsPerRank(int(p.Rank)) {
				t.Errorf("config %d: %v: %d events, EventsPerRank says %d", i, p, len(p.Kind), cfg.EventsPerRank(int(p.Rank)))
			}
			if cap(p.Kind) != len(p.Kind) {
				t.Errorf("config %d: %v: capacity %d, %d events", i, p, cap(p.Kind), len(p.Kind))
			}
			for k := 1; k < len(p.Time); k++ {
				if p.Time[k] < p.Time[k-1] {
					t.Fatalf("config %d: %v: time goes backwards at %d", i, p, k)
				}
			}
			if r := p.CallRepairs(); !r.IsZero() {
				t.Errorf("config %d: %v: repairs %+v", i, p, r)
			}
		}
	}
}

// Bad Growth knobs panic with a *work.Error naming Generate and the field.
func TestGenerateBadGrowth(t *testing.T) {
	good := COSMOSPECSConfig(16, 4)
	for _, c := range []struct {
		field string
		f     func(c *GenConfig)
	}{
		{"Growth", func(c *GenConfig) { c.Growth = -0.5 }},
		{"Growth", func(c *GenConfig) { c.Growth = math.NaN() }},
		{"Growth", func(c *GenConfig) { c.Growth = math.Inf(1) }},
		{"GrowthRadius", func(c *GenConfig) { c.GrowthRadius = 0 }},
		{"GrowthRadius", func(c *GenConfig) { c.GrowthRadius = -1 }},
		{"GrowthRadius", func(c *GenConfig) { c.GrowthRadius = math.NaN() }},
		{"GrowthCenter", func(c *GenConfig) { c.GrowthCenter = -1 }},
		{"GrowthCenter", func(c *GenConfig) { c.GrowthCenter = 16 }},
		{"GrowthCenter", func(c *GenConfig) { c.Growth, c.GrowthCenter = 0, 16 }},
	} {
		cfg := good
		c.f(&cfg)
		func() {
			defer func() {
				var e *work.Error
				r, _ := recover().(error)
				if !errors.As(r, &e) || e.Func != "synth.Generate" || !strings.HasPrefix(e.Msg, c.field+" ") {
					t.Errorf("%s: panic %v", c.field, r)
				}
			}()
			Generate(cfg)
		}()
	}
	good.Growth, good.GrowthRadius = 0, 0 // no radius needed without Growth
	Generate(good)
}

// ImbalanceBenchConfig's event count (the benchmarks report events/s from it).
func TestImbalanceBenchConfigCount(t *testing.T) {
	cfg := ImbalanceBenchConfig()
	if got := cfg.NumEvents(); got != 100093954 || cfg.EventsPerRank(1) != 97748 || cfg.Ranks != 1024 || cfg.GrowthCenter != 527 {
		t.Errorf("NumEvents %d, EventsPerRank(1) %d, %d ranks, centre %d; want 100,093,954, 97,748, 1,024, 527", got, cfg.EventsPerRank(1), cfg.Ranks, cfg.GrowthCenter)
	}
}
