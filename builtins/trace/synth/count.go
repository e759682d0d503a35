package synth

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tracebook/tracebook/builtins/work"
)

// Event counts and the checks of a GenConfig, before Generate writes.

// EventsPerRank returns the number of events Generate writes on rank r's
// master-thread location. Like Generate it panics with a *work.Error on a
// config Generate rejects.
func (cfg GenConfig) EventsPerRank(r int) int {
	cfg.mustCheck()
	return cfg.eventsPerRank(r, cfg.workload(), cfg.walk())
}

func (cfg GenConfig) eventsPerRank(r int, wl *workload, wk *walk) int {
	sub := 0
	for l, f := 1, 1; l <= cfg.Depth; l++ {
		f *= cfg.Fanout
		sub += f
	}
	perKernel := 2 * (1 + sub)
	n := 5
	perIter := 2 + 3*perKernel
	if cfg.MPI {
		nb := neighbours(r, cfg.Ranks)
		n += 4
		perIter += 8*len(nb) + 8
		n += 2 // finalize
	}
	if wl != nil {
		perIter += 2*wl.callers + 2*bits.OnesCount64(wl.mask(cfg.Seed, r))
	}
	if cfg.isGPU(r) {
		perIter += cfg.Streams * (2*len(gpuKernels) + 2)
	}
	n += cfg.Iterations*perIter + 1
	for it := 0; it < cfg.Iterations && (cfg.Recursion > 0 || wk != nil); it++ {
		if cfg.Recursion > 0 {
			n += 4 * cfg.recursionDepth(r, it)
		}
		if wk != nil {
			n += 2 + 2*len(wk.seq(r, it))
		}
	}
	if r == 0 {
		n += 2 // write_output
	}
	if cfg.MasterWork > 0 {
		n += 2 // setup_grid (rank 0) or write_output (the others)
		if r == 0 {
			n += 2 * (cfg.MasterWork - 1)
		}
	}
	return n
}

// eventsPerThread returns the events of one helper thread of kind k.
func (cfg GenConfig) eventsPerThread(k ThreadKind) int {
	return cfg.Iterations * (2 + 2*len(k.Calls))
}

// eventsPerStream returns the events of one GPU stream.
func (cfg GenConfig) eventsPerStream() int { return cfg.Iterations * 2 * len(gpuKernels) }

// isGPU reports whether rank r drives a GPU.
func (cfg GenConfig) isGPU(r int) bool { return cfg.Streams > 0 && r >= cfg.Ranks-cfg.GPUs }

// NumEvents returns the total number of events Generate writes. Like
// Generate it panics with a *work.Error on a config Generate rejects.
func (cfg GenConfig) NumEvents() int64 {
	cfg.mustCheck()
	var n int64
	wl, wk := cfg.workload(), cfg.walk()
	for r := 0; r < cfg.Ranks; r++ {
		n += int64(cfg.eventsPerRank(r, wl, wk))
	}
	for _, k := range cfg.ThreadKinds {
		n += int64(cfg.Ranks) * int64(k.Count) * int64(cfg.eventsPerThread(k))
	}
	if cfg.Streams > 0 {
		n += int64(cfg.GPUs) * int64(cfg.Streams) * int64(cfg.eventsPerStream())
	}
	return n + int64(cfg.Ranks)*int64(cfg.Threads)*int64(cfg.Iterations)*4
}

// Limits of Generate's inputs, checked before any loop or allocation they
// size: a trace far beyond any memory is an error at once, not a spin in
// NumEvents or a fatal out-of-memory.
const (
	maxGenCount     = 1 << 24 // Ranks, Threads, Iterations, ThreadKinds' Counts, Streams, MasterWork, Recursion, Walk
	maxGenDepth     = 64      // Depth (the generator recurses per level)
	maxGenLocations = 1 << 24 // locations in all
	maxGenEvents    = 1 << 32 // events in all (56 GB of event data)
)

// checkLimits returns which input of cfg is beyond Generate's limits, or
// nil; its cost does not depend on the inputs' values.
func (cfg GenConfig) checkLimits() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Ranks", cfg.Ranks}, {"Threads", cfg.Threads}, {"Iterations", cfg.Iterations}, {"Streams", cfg.Streams},
		{"MasterWork", cfg.MasterWork}, {"Recursion", cfg.Recursion}, {"Walk", cfg.Walk}} {
		if f.v > maxGenCount {
			return fmt.Errorf("config field %s %d: the limit is %d", f.name, f.v, maxGenCount)
		}
	}
	if cfg.Depth > maxGenDepth {
		return fmt.Errorf("config field Depth %d: the limit is %d", cfg.Depth, maxGenDepth)
	}
	locs := int64(1 + max(0, cfg.Threads))
	for i, k := range cfg.ThreadKinds {
		if k.Count > maxGenCount {
			return fmt.Errorf("config field ThreadKinds[%d].Count %d: the limit is %d", i, k.Count, maxGenCount)
		}
		locs = satAdd(locs, int64(max(0, k.Count)))
	}
	locs = satAdd(satMul(int64(max(0, cfg.Ranks)), locs), satMul(int64(max(0, cfg.GPUs)), int64(max(0, cfg.Streams))))
	if locs > maxGenLocations {
		return fmt.Errorf("config fields Ranks %d, Threads %d, ThreadKinds' Counts, GPUs %d and Streams %d: %d locations, the limit is %d",
			cfg.Ranks, cfg.Threads, cfg.GPUs, cfg.Streams, locs, maxGenLocations)
	}
	if n := cfg.eventBound(true); n > maxGenEvents {
		return fmt.Errorf("config fields Ranks %d, Iterations %d, Depth %d, Fanout %d and the shape knobs: up to %d events, the limit is %d",
			cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout, n, int64(maxGenEvents))
	}
	return nil
}

// eventBound returns a bound on the events Generate writes, computed in
// closed form (saturating at math.MaxInt64): an upper bound if upper, else
// a lower bound (each sort recursing once, each tree walk empty, no
// workload path taken), for the memory check before the exact count.
func (cfg GenConfig) eventBound(upper bool) int64 {
	n0 := func(v int) int64 { return int64(max(0, v)) }
	sub := int64(0)
	for l, f := 1, int64(1); l <= min(cfg.Depth, maxGenDepth) && cfg.Fanout > 0; l++ {
		f = satMul(f, n0(cfg.Fanout))
		sub = satAdd(sub, f)
	}
	perIter := satAdd(2, satMul(6, satAdd(1, sub))) // 2 + 3 kernels of 2*(1+sub)
	if cfg.MPI {
		perIter = satAdd(perIter, int64(8*len(neighbours(0, min(max(cfg.Ranks, 1), 3)))+8))
	}
	if cfg.Workloads > 0 {
		perIter = satAdd(perIter, int64(2*min(len(workloadCallers), max(0, cfg.WorkloadPaths))))
		if upper {
			perIter = satAdd(perIter, satMul(2, n0(cfg.WorkloadPaths)))
		}
	}
	gpuIter := satMul(n0(cfg.Streams), int64(2*len(gpuKernels)+2))
	if cfg.Recursion > 0 {
		perIter = satAdd(perIter, 4)
		if upper {
			perIter = satAdd(perIter, satMul(4, n0(cfg.Recursion)))
		}
	}
	if cfg.Walk > 0 {
		perIter = satAdd(perIter, 2)
		if upper { // each call mutated into at most two
			perIter = satAdd(perIter, satMul(4, n0(cfg.Walk)))
		}
	}
	iters := n0(cfg.Iterations)
	// Each master thread: the iterations and at most 16 more events, and
	// rank 0 2*MasterWork at most for the master work.
	master := satMul(iters, perIter)
	if upper {
		master = satAdd(master, 16)
	}
	ranks := n0(cfg.Ranks)
	n := satAdd(satMul(ranks, master), satMul(n0(cfg.GPUs), satMul(iters, gpuIter)))
	if upper {
		n = satAdd(n, satMul(2, n0(cfg.MasterWork)))
	}
	n = satAdd(n, satMul(ranks, satMul(n0(cfg.Threads), satMul(iters, 4))))
	for _, k := range cfg.ThreadKinds {
		n = satAdd(n, satMul(ranks, satMul(n0(k.Count), satMul(iters, satAdd(2, satMul(2, int64(len(k.Calls))))))))
	}
	n = satAdd(n, satMul(satMul(n0(cfg.GPUs), n0(cfg.Streams)), satMul(iters, int64(2*len(gpuKernels)))))
	return n
}

// satAdd and satMul add and multiply non-negative int64s, saturating at
// math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// mustCheck panics with Generate's *work.Error if cfg cannot be generated.
func (cfg GenConfig) mustCheck() {
	if err := cfg.check(); err != nil {
		work.FailErr(generateFunc, err)
	}
}

// generateFunc names Generate in its errors.
const generateFunc = "synth.Generate"

// check returns why cfg cannot be generated, or nil.
func (cfg GenConfig) check() error {
	if cfg.Ranks < 1 || cfg.Threads < 0 || cfg.Iterations < 0 || cfg.Depth < 0 || cfg.Fanout < 0 || cfg.UnitNs < 1 {
		return fmt.Errorf("invalid config %+v (need Ranks >= 1, UnitNs >= 1, counts >= 0)", cfg)
	}
	if err := cfg.checkLimits(); err != nil {
		return err
	}
	for i, k := range cfg.ThreadKinds {
		if k.Count < 0 || k.Count > 0 && k.Start == "" {
			return fmt.Errorf("ThreadKinds[%d] %+v: need Count >= 0 and a Start region", i, k)
		}
	}
	if cfg.GPUs < 0 || cfg.GPUs > cfg.Ranks || cfg.Streams < 0 || (cfg.GPUs > 0) != (cfg.Streams > 0) {
		return fmt.Errorf("GPUs %d, Streams %d: need 0 <= GPUs <= Ranks (%d), and Streams > 0 exactly when GPUs > 0", cfg.GPUs, cfg.Streams, cfg.Ranks)
	}
	if cfg.MasterWork < 0 {
		return fmt.Errorf("MasterWork %d < 0", cfg.MasterWork)
	}
	if cfg.Workloads < 0 || cfg.Workloads > 0 && (cfg.WorkloadPaths < 1 || cfg.WorkloadPaths > 62 ||
		cfg.Workloads > 1<<min(cfg.WorkloadPaths, 20) || cfg.WorkloadSkew < 0 || math.IsNaN(cfg.WorkloadSkew)) {
		return fmt.Errorf("workload knobs: Workloads %d, WorkloadPaths %d, WorkloadSkew %g: need 1 <= WorkloadPaths <= 62, Workloads <= min(2^WorkloadPaths, 2^20), WorkloadSkew >= 0",
			cfg.Workloads, cfg.WorkloadPaths, cfg.WorkloadSkew)
	}
	if cfg.Recursion < 0 {
		return fmt.Errorf("recursion knob: Recursion %d < 0", cfg.Recursion)
	}
	if cfg.Walk < 0 {
		return fmt.Errorf("walk knob: Walk %d < 0", cfg.Walk)
	}
	if !(cfg.WalkMutation >= 0 && cfg.WalkMutation <= 1) {
		return fmt.Errorf("WalkMutation %g: need 0 <= WalkMutation <= 1", cfg.WalkMutation)
	}
	if !(cfg.Growth >= 0) || math.IsInf(cfg.Growth, 1) {
		//lint:ignore ST1005 the message starts with the field's name, as the others here do
		return fmt.Errorf("Growth %g: need 0 <= Growth < +Inf", cfg.Growth)
	}
	if cfg.Growth > 0 && !(cfg.GrowthRadius > 0) {
		return fmt.Errorf("GrowthRadius %g: need GrowthRadius > 0 with Growth %g", cfg.GrowthRadius, cfg.Growth)
	}
	if cfg.GrowthCenter < 0 || cfg.GrowthCenter >= cfg.Ranks {
		return fmt.Errorf("GrowthCenter %d: need 0 <= GrowthCenter < Ranks (%d)", cfg.GrowthCenter, cfg.Ranks)
	}
	return nil
}
