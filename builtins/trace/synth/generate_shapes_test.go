package synth

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// pairGroups groups tr's locations by identical pair sets (the hash
// clustering of package cluster), in order of first appearance.
func pairGroups(tr *trace.Trace) [][]int {
	var groups [][]int
	for _, g := range cluster.Structural(tr).HashClustering().Groups() {
		groups = append(groups, g.Procs)
	}
	return groups
}

// concepts returns the number of distinct pair sets of tr, of pairs, and
// of concepts of its lattice (package cluster, checked there against a
// brute-force enumeration).
func concepts(tr *trace.Trace) (sets, pairs, nodes int) {
	c := cluster.Structural(tr, cluster.WithNodeLimit(0))
	return c.HashClustering().Len(), c.Lattice().NumAttributes(), c.Lattice().Len()
}

// shapeConfigs exercise every shape knob alone and together.
func shapeConfigs() []GenConfig {
	base := GenConfig{Seed: 11, Ranks: 5, Threads: 2, Iterations: 3, Depth: 1, Fanout: 2, MPI: true, UnitNs: 1000, Noise: 0.5, SlowRank: -1, OutlierIter: -1}
	io := ThreadKind{Count: 2, Start: "pthread_io", Calls: []string{"write_chunk", "compress_chunk", "write_chunk"}}
	ev := ThreadKind{Count: 1, Start: "pthread_events"}
	var out []GenConfig
	add := func(f func(c *GenConfig)) {
		c := base
		f(&c)
		out = append(out, c)
	}
	add(func(c *GenConfig) { c.ThreadKinds = []ThreadKind{io, ev, {Start: "unused"}} })
	add(func(c *GenConfig) { c.ThreadKinds, c.Threads = []ThreadKind{ev}, 0 })
	add(func(c *GenConfig) { c.GPUs, c.Streams = 2, 3 })
	add(func(c *GenConfig) { c.GPUs, c.Streams, c.MPI = 5, 1, false })
	add(func(c *GenConfig) { c.MasterWork = 1 })
	add(func(c *GenConfig) { c.MasterWork, c.Ranks = 7, 1 })
	add(func(c *GenConfig) { c.Workloads, c.WorkloadPaths, c.WorkloadSkew = 30, 9, 0.5 })
	add(func(c *GenConfig) { c.Workloads, c.WorkloadPaths = 2, 1 })
	add(func(c *GenConfig) { c.Workloads, c.WorkloadPaths, c.MPI = 4, 2, false })
	add(func(c *GenConfig) {
		c.ThreadKinds, c.GPUs, c.Streams, c.MasterWork, c.Workloads, c.WorkloadPaths = []ThreadKind{io, ev}, 3, 2, 4, 8, 5
	})
	add(func(c *GenConfig) {
		c.ThreadKinds, c.GPUs, c.Streams, c.MasterWork, c.Iterations = []ThreadKind{io}, 1, 1, 2, 0
	})
	add(func(c *GenConfig) { c.Recursion, c.Walk, c.WalkMutation = 5, 12, 0.2 })
	add(func(c *GenConfig) {
		c.Recursion, c.Walk, c.WalkMutation, c.Workloads, c.WorkloadPaths, c.GPUs, c.Streams = 3, 7, 0.5, 4, 3, 2, 2
	})
	return append(out, BTMZConfig(4, 3), PIConGPUConfig(5, 3, 2), PIConGPUConfig(1, 1, 4), ParaDiSConfig(64), FD4Config(256), PEPCConfig(16))
}

// Every shape has the event counts EventsPerRank and NumEvents promise
// (Generate reserves memory and capacity from them), non-decreasing times
// and properly nested calls (the call tree repairs nothing).
func TestGenerateShapeCounts(t *testing.T) {
	for i, cfg := range shapeConfigs() {
		tr := Generate(cfg)
		if got, want := tr.NumEvents(), cfg.NumEvents(); got != want {
			t.Errorf("config %d: %d events, NumEvents says %d", i, got, want)
		}
		helpers := 0
		for _, k := range cfg.ThreadKinds {
			helpers += k.Count
		}
		stride := 1 + cfg.Threads + helpers
		if got, want := tr.NumProcesses(), cfg.Ranks*stride+cfg.GPUs*cfg.Streams; got != want {
			t.Errorf("config %d: %d processes, want %d", i, got, want)
		}
		for j, p := range tr.Processes() {
			if p.Thread == 0 && int(p.Rank) < cfg.Ranks && j != int(p.Rank)*stride {
				t.Errorf("config %d: rank %d's master at %d", i, p.Rank, j)
			}
			if p.Thread == 0 && j < cfg.Ranks*stride && len(p.Kind) != cfg.EventsPerRank(int(p.Rank)) {
				t.Errorf("config %d: %v: EventsPerRank says %d", i, p, cfg.EventsPerRank(int(p.Rank)))
			}
			if cap(p.Kind) != len(p.Kind) || uint64(len(p.Kind)) != tr.Defs.Locations[j].NumEvents {
				t.Errorf("config %d: %v: capacity %d, declared %d", i, p, cap(p.Kind), tr.Defs.Locations[j].NumEvents)
			}
			for k := 1; k < len(p.Time); k++ {
				if p.Time[k] < p.Time[k-1] {
					t.Fatalf("config %d: %v: time goes backwards at %d", i, p, k)
				}
			}
			if r := p.CallTree().Repairs; !r.IsZero() {
				t.Errorf("config %d: %v: repairs %+v", i, p, r)
			}
		}
	}
}

// The seed presets at full size: properly nested everywhere.
func TestPresetsNested(t *testing.T) {
	if testing.Short() {
		t.Skip("large presets")
	}
	for _, cfg := range []GenConfig{BTMZConfig(16, 15), PIConGPUConfig(17, 2, 1), ParaDiSConfig(1024), FD4Config(4096), PEPCConfig(512)} {
		tr := Generate(cfg)
		for _, p := range tr.Processes() {
			if r := p.CallTree().Repairs; !r.IsZero() {
				t.Fatalf("%+v: %v: repairs %+v", cfg, p, r)
			}
		}
	}
}

// pairNames returns p's pairs as "caller>callee" names (ε as "").
func pairNames(p *trace.Process) map[string]bool {
	m := map[string]bool{}
	for _, q := range p.Pairs() {
		m[p.RegionName(q.Caller)+">"+p.RegionName(q.Callee)] = true
	}
	return m
}

// minus returns the sorted elements of a not in b.
func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// BT-MZ (SC Fig. 5): 3 groups (rank 0; the other ranks; all threads), rank
// 0 with one pair more than the others, a lattice of 5 nodes.
func TestBTMZShape(t *testing.T) {
	for _, n := range []int{16, 64} {
		tr := Generate(BTMZConfig(n, 15))
		groups := pairGroups(tr)
		var masters, threads []int
		for r := 0; r < n; r++ {
			for th := 0; th < 16; th++ {
				if th == 0 && r > 0 {
					masters = append(masters, r*16)
				} else if th > 0 {
					threads = append(threads, r*16+th)
				}
			}
		}
		if want := [][]int{{0}, threads, masters}; fmt.Sprint(groups) != fmt.Sprint(want) {
			t.Fatalf("%d ranks: groups %v, want %v", n, groups, want)
		}
		p0, p1 := pairNames(tr.Process(0)), pairNames(tr.Process(16))
		if extra, missing := minus(p0, p1), minus(p1, p0); fmt.Sprint(extra) != "[init>read_input]" || len(missing) != 0 {
			t.Errorf("rank 0 has %v more, %v less than rank 1", extra, missing)
		}
		if _, _, nodes := concepts(tr); nodes != 5 {
			t.Errorf("%d ranks: %d concepts, want 5", n, nodes)
		}
	}
}

// PIConGPU (SC VI): rank 0 a master with 66 pairs of its own and no GPU,
// GPU ranks alike, two kinds of pthreads, CUDA streams labelled as GPU
// streams.
func TestPIConGPUShape(t *testing.T) {
	const ranks, threads, streams = 17, 3, 2
	tr := Generate(PIConGPUConfig(ranks, threads, streams))
	stride := 1 + threads
	if tr.NumProcesses() != ranks*stride+(ranks-1)*streams {
		t.Fatalf("%d processes", tr.NumProcesses())
	}
	for g := 0; g < ranks-1; g++ {
		for m := 0; m < streams; m++ {
			p := tr.Process(ranks*stride + g*streams + m)
			gpu, n, s := p.Place()
			if want := fmt.Sprintf("GPU %d stream %d", g, m); p.Label() != want || !gpu || n != int32(g) || s != int32(m) {
				t.Errorf("stream %d/%d: label %q (%v %d %d), want %q", g, m, p.Label(), gpu, n, s, want)
			}
			if got := fmt.Sprint(minus(pairNames(p), nil)); got != "[>cuda_kernel_fields >cuda_kernel_push]" {
				t.Errorf("%v: pairs %s", p, got)
			}
		}
	}
	for r := 0; r < ranks; r++ {
		if p := tr.Process(r * stride); p.Label() != fmt.Sprintf("rank %d", r) {
			t.Errorf("rank %d labelled %q", r, p.Label())
		}
		if p := tr.Process(r*stride + 3); p.Label() != fmt.Sprintf("rank %d thread 3", r) {
			t.Errorf("rank %d thread 3 labelled %q", r, p.Label())
		}
	}
	groups := pairGroups(tr)
	sizes := []int{}
	for _, g := range groups {
		sizes = append(sizes, len(g))
	}
	// rank 0; io threads (2 per rank); event threads; GPU ranks; streams
	if fmt.Sprint(sizes) != "[1 34 17 16 32]" || groups[0][0] != 0 || groups[3][0] != stride || groups[4][0] != ranks*stride {
		t.Fatalf("groups %v", groups)
	}
	p0, p1 := pairNames(tr.Process(0)), pairNames(tr.Process(stride))
	extra, missing := minus(p0, p1), minus(p1, p0)
	if len(extra) != 66 || !slices.Contains(extra, "init>read_input") || !slices.Contains(extra, "main>master_task_65") ||
		fmt.Sprint(missing) != "[solve>cudaLaunchKernel solve>cudaStreamSynchronize]" {
		t.Errorf("rank 0 has %d pairs more (%v), %v less than rank 1", len(extra), extra, missing)
	}
	if got := fmt.Sprint(minus(pairNames(tr.Process(1)), nil)); got != "[>pthread_io pthread_io>compress_chunk pthread_io>write_checkpoint]" {
		t.Errorf("io thread pairs %s", got)
	}
	if got := fmt.Sprint(minus(pairNames(tr.Process(3)), nil)); got != "[>pthread_events pthread_events>poll_events]" {
		t.Errorf("event thread pairs %s", got)
	}
	for _, name := range []string{"cudaLaunchKernel", "cudaStreamSynchronize", "cuda_kernel_push", "cuda_kernel_fields"} {
		if r := tr.Defs.Regions[tr.RegionID(name)]; r.Paradigm != "cuda" {
			t.Errorf("%s: paradigm %q", name, r.Paradigm)
		}
	}
	if r := tr.Defs.Regions[tr.RegionID("pthread_io")]; r.Paradigm != "pthread" {
		t.Errorf("pthread_io: paradigm %q", r.Paradigm)
	}
	s, _ := kernelStats(t, tr, 1, "cudaLaunchKernel")
	if s.Calls != 2*streams*2 { // iterations x streams x kernels
		t.Errorf("cudaLaunchKernel called %d times", s.Calls)
	}
	// each kernel starts after its launch, and the synchronisation waits for it
	host, stream := tr.Process(stride).CallTree(), tr.Process(ranks*stride).CallTree()
	var launches, syncs []int
	for i := 1; i < host.Len(); i++ {
		switch tr.RegionName(host.Region[i]) {
		case "cudaLaunchKernel":
			launches = append(launches, i)
		case "cudaStreamSynchronize":
			syncs = append(syncs, i)
		}
	}
	for k := 1; k < stream.Len(); k++ { // stream 0 runs the first 2 launches of each iteration
		it, j := (k-1)/2, (k-1)%2
		l, y := launches[it*2*streams+j], syncs[it*streams]
		if stream.Enter[k] < host.Leave[l] || host.Leave[y] < stream.Leave[k] {
			t.Errorf("kernel %d [%d,%d]: launch left %d, sync left %d", k, stream.Enter[k], stream.Leave[k], host.Leave[l], host.Leave[y])
		}
	}
}

// MasterWork n: rank 0's pairs are every other rank's plus exactly n.
func TestMasterWork(t *testing.T) {
	for _, n := range []int{1, 2, 66} {
		cfg := GenConfig{Seed: 1, Ranks: 3, Threads: 1, Iterations: 2, MPI: true, UnitNs: 100, SlowRank: -1, OutlierIter: -1, Master: Master{MasterWork: n}}
		tr := Generate(cfg)
		p0, p1, p2 := pairNames(tr.Process(0)), pairNames(tr.Process(2)), pairNames(tr.Process(4))
		if extra, missing := minus(p0, p1), minus(p1, p0); len(extra) != n || len(missing) != 0 || len(minus(p1, p2))+len(minus(p2, p1)) != 0 {
			t.Errorf("MasterWork %d: rank 0 has %v more, %v less", n, extra, missing)
		}
	}
}

// ParaDiS (SC IX.B): the number of distinct pair sets grows with scale;
// the lattice at 4,096 ranks has ~50,000 nodes. Counts for Seed 1.
func TestParaDiSShape(t *testing.T) {
	for _, c := range []struct{ ranks, groups, concepts int }{
		{8, 8, 88}, {128, 71, 9116}, {1024, 199, 46979}, {4096, 216, 51868},
	} {
		if c.ranks > 128 && testing.Short() {
			continue
		}
		cfg := ParaDiSConfig(c.ranks)
		tr := Generate(cfg)
		sets, na, nodes := concepts(tr)
		if sets != c.groups || na != 41 {
			t.Errorf("%d ranks: %d pair sets over %d pairs, want %d over 41", c.ranks, sets, na, c.groups)
		}
		if nodes != c.concepts {
			t.Errorf("%d ranks: %d concepts, want %d", c.ranks, nodes, c.concepts)
		}
		// oracle: a rank's workload pairs are the paths of its class; rank 0
		// (read_input) is a group of its own
		wl := cfg.workload()
		masks := map[uint64]bool{}
		for r := 0; r < c.ranks; r++ {
			mask := wl.mask(cfg.Seed, r)
			if r > 0 {
				masks[mask] = true
			}
			want := map[string]bool{}
			for j := 0; j < cfg.WorkloadPaths; j++ {
				if mask>>j&1 != 0 {
					want[fmt.Sprintf("%s>segment_op_%d", workloadCallers[j%3], j/3)] = true
				}
			}
			got := map[string]bool{}
			for k := range pairNames(tr.Process(r)) {
				if strings.Contains(k, ">segment_op_") {
					got[k] = true
				}
			}
			if fmt.Sprint(minus(got, nil)) != fmt.Sprint(minus(want, nil)) {
				t.Fatalf("%d ranks: rank %d (mask %b): %v", c.ranks, r, mask, minus(got, nil))
			}
		}
		if len(masks)+1 != sets {
			t.Errorf("%d ranks: %d classes among ranks 1.., %d pair sets", c.ranks, len(masks), sets)
		}
	}
}

// The workload classes are distinct path sets, drawn with the configured skew.
func TestWorkloadClasses(t *testing.T) {
	cfg := GenConfig{Seed: 4, Workload: Workload{Workloads: 16, WorkloadPaths: 4, WorkloadSkew: 1}}
	wl := cfg.workload()
	seen := map[uint64]bool{}
	for _, m := range wl.masks {
		seen[m] = true
	}
	if len(seen) != 16 {
		t.Errorf("masks %b are not the 16 subsets of 4 paths", wl.masks)
	}
	count := make([]int, 16)
	const n = 200000
	for r := 0; r < n; r++ {
		count[wl.class(cfg.Seed, r)]++
	}
	h := 0.0
	for k := 1; k <= 16; k++ {
		h += 1 / float64(k)
	}
	for k, c := range count { // binomial: 5 standard deviations
		p := 1 / float64(k+1) / h
		if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(c)-n*p) > 5*sd {
			t.Errorf("class %d drawn %d times, want %.0f ± %.0f", k, c, n*p, sd)
		}
	}
}

// FD4 (SC Table III): 65,536 ranks in 14 groups over ~55 pairs.
func TestFD4Shape(t *testing.T) {
	n := 65536
	if testing.Short() {
		n = 4096
	}
	tr := Generate(FD4Config(n))
	sets, na, nodes := concepts(tr)
	if sets != 14 || na != 54 {
		t.Errorf("%d pair sets over %d pairs, want 14 over 54", sets, na)
	}
	if nodes != 25 {
		t.Errorf("%d concepts, want 25", nodes)
	}
}

// Same Seed, same trace; another Seed, another trace.
func TestShapesDeterministic(t *testing.T) {
	for _, cfg := range shapeConfigs() {
		a, b := traceDigest(Generate(cfg)), traceDigest(Generate(cfg))
		cfg.Seed++
		if c := traceDigest(Generate(cfg)); a != b || a == c {
			t.Errorf("%+v: digests %s %s, seed+1 %s", cfg, a, b, c)
		}
	}
}

// Inconsistent shape knobs panic with a *work.Error naming Generate.
func TestGenerateBadShapes(t *testing.T) {
	good := BTMZConfig(4, 1)
	for _, f := range []func(c *GenConfig){
		func(c *GenConfig) { c.Ranks = 0 },
		func(c *GenConfig) { c.GPUs, c.Streams = 5, 1 },
		func(c *GenConfig) { c.GPUs, c.Streams = 1, 0 },
		func(c *GenConfig) { c.GPUs, c.Streams = 0, 1 },
		func(c *GenConfig) { c.GPUs, c.Streams = -1, 1 },
		func(c *GenConfig) { c.MasterWork = -1 },
		func(c *GenConfig) { c.ThreadKinds = []ThreadKind{{Count: 1}} },
		func(c *GenConfig) { c.ThreadKinds = []ThreadKind{{Count: -1, Start: "x"}} },
		func(c *GenConfig) { c.Workloads = 3 },
		func(c *GenConfig) { c.Workloads, c.WorkloadPaths = 5, 2 },
		func(c *GenConfig) { c.Workloads, c.WorkloadPaths = 2, 63 },
		func(c *GenConfig) { c.Workloads, c.WorkloadPaths, c.WorkloadSkew = 2, 3, -1 },
		func(c *GenConfig) { c.Workloads, c.WorkloadPaths = -1, 3 },
		func(c *GenConfig) { *c = PIConGPUConfig(4, -1, 1) },
		func(c *GenConfig) { *c = PIConGPUConfig(4, 2, -1) },
	} {
		c := good
		f(&c)
		func() {
			defer func() {
				var e *work.Error
				if r, _ := recover().(error); !errors.As(r, &e) || e.Func != "synth.Generate" {
					t.Errorf("%+v: panic %v", c, r)
				}
			}()
			Generate(c)
		}()
	}
	Generate(good)
}

func benchShape(b *testing.B, cfg GenConfig) {
	b.ReportAllocs()
	benchGenerate(b, cfg)
}

// BenchmarkGenerateBTMZ65536Locations: BT-MZ-like, 4,096 ranks x 16 threads (SC IX.B).
func BenchmarkGenerateBTMZ65536Locations(b *testing.B) { benchShape(b, BTMZConfig(4096, 15)) }

// BenchmarkGenerateFD4: FD4-like, 65,536 ranks (SC Table III).
func BenchmarkGenerateFD4(b *testing.B) { benchShape(b, FD4Config(65536)) }

// BenchmarkGenerateParaDiS4096: ParaDiS-like, 4,096 ranks (SC IX.B).
func BenchmarkGenerateParaDiS4096(b *testing.B) { benchShape(b, ParaDiSConfig(4096)) }
