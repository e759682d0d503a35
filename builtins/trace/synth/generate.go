package synth

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"

	"github.com/tracebook/tracebook/builtins/internal/mix"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// GenConfig configures Generate. The knobs match ../shared/tools/otf2gen.py
// spmd mode (--procs, --threads, --iters, --unit, --noise, --slow,
// --outlier, --variant) plus Depth/Fanout (nested calls inside each compute
// kernel), Imbalance (a linear per-rank slowdown) and MPI (off: ranks run
// their compute phases without communication).
//
// The shape knobs after Version build the process kinds of the structural
// clustering seed (SC IV, IX): helper threads of other call structures
// (ThreadKinds), GPU streams (GPUs, Streams), a master rank with extra work
// (MasterWork) and workload-dependent call structures (Workloads). Left
// zero, they change nothing: the trace is the one of the knobs before them.
// BTMZConfig, PIConGPUConfig, ParaDiSConfig and FD4Config set them to the
// seeds' shapes; COSMOSPECSConfig (Growth) and HybridGPUConfig to the
// imbalance and GPU-idle shapes of Weber ch. 6.
//
// The MPI and CUDA regions carry the roles Score-P writes: MPI_Barrier
// "barrier", MPI_Allreduce "coll_all2all", MPI_Isend, MPI_Irecv and
// MPI_Waitall "point2point", MPI_Init and MPI_Finalize "function",
// cudaLaunchKernel and cudaStreamSynchronize "wrapper"; DefaultSync counts
// MPI_Barrier, MPI_Allreduce, MPI_Waitall and cudaStreamSynchronize as
// synchronisation.
type GenConfig struct {
	Seed       int64
	Ranks      int // MPI ranks (location groups), >= 1
	Threads    int // extra worker-thread locations per rank
	Iterations int // solver iterations
	Depth      int // levels of nested calls below each compute kernel (0: kernels are leaves)
	Fanout     int // calls per nested level
	MPI        bool
	UnitNs     int64   // duration of one work unit, ns (otf2gen --unit)
	Imbalance  float64 // rank r's kernels run (1 + Imbalance*r/(Ranks-1)) times longer
	SlowRank   int     // a rank whose kernels run SlowFactor times longer; -1 for none
	SlowFactor float64
	// OutlierRank's iteration OutlierIter runs OutlierFactor times longer; OutlierIter -1 for none.
	OutlierRank   int
	OutlierIter   int
	OutlierFactor float64
	Noise         float64 // OS noise per call, in units (exponentially distributed)
	Version       int     // code version: 0 (otf2gen variant A) or 1 (variant B: apply_bc removed, compute_flux_correction added)

	// ThreadKinds adds helper threads whose call structure differs from
	// the workers': every rank gets Count threads of each kind, after its
	// Threads workers.
	ThreadKinds []ThreadKind
	// GPUs is the number of ranks that drive a GPU: the last GPUs ranks
	// (Ranks-GPUs .. Ranks-1), each with Streams stream locations in a
	// location group "GPU g" of type "accelerator" (Process.Label "GPU g
	// stream m"; g counts GPUs from 0). Per iteration a GPU rank calls
	// cudaLaunchKernel for each kernel (cuda_kernel_push, then
	// cuda_kernel_fields) on each stream, then cudaStreamSynchronize per
	// stream (paradigm "cuda", inside solve); each stream runs the kernels
	// (paradigm "cuda") as top-level calls. Stream locations follow all CPU
	// locations.
	GPUs    int
	Streams int // streams per GPU; > 0 exactly when GPUs > 0
	// MasterWork > 0 gives rank 0 a master role whose pair set is every
	// other rank's plus exactly MasterWork pairs: all ranks call setup_grid
	// (from init) and write_output (from main, at the end); rank 0 also
	// calls read_input before setup_grid and, before write_output, the
	// MasterWork-1 functions master_task_1 .. master_task_<MasterWork-1>
	// from main. BT-MZ: 1; PIConGPU: 66. 0 is the classic shape (rank 0
	// calls read_input instead of setup_grid, and alone calls write_output).
	MasterWork int
	// Workloads > 0 makes each rank's call structure depend on its
	// workload (ParaDiS, SC IX.B): rank r falls into one of Workloads
	// workload classes, drawn from a seeded hash of (Seed, r) with
	// probability proportional to 1/(k+1)^WorkloadSkew for class k (few
	// common classes, many rare ones: the number of distinct classes grows
	// with the rank count and saturates at Workloads). Class k takes a
	// fixed, seeded set of the WorkloadPaths optional code paths (each with
	// probability 1/2, all classes distinct): every iteration, solve calls
	// handle_collisions, remesh and split_multi_nodes (caller j%3; fewer
	// when WorkloadPaths < 3), and caller j%3 calls segment_op_<j/3> for
	// each taken path j (path j is that pair). Needs 1 <= WorkloadPaths
	// <= 62 and Workloads <= min(2^WorkloadPaths, 2^20).
	Workloads     int
	WorkloadPaths int
	WorkloadSkew  float64
	// Recursion > 0 adds a recursive sort (AMG2006's hypre_qsort2i, Weber
	// 5.2, Fig. 5.14): every iteration, after the kernels, solve calls
	// sort_step, which calls partition (a leaf) and then sort_step again,
	// a linear chain down to depth d in 1..Recursion; the deepest
	// sort_step calls only partition. d is drawn per (rank, iteration) from
	// a seeded hash of (Seed, rank, iteration): starting at 1, each deeper
	// level is taken with probability 3/4 (capped at Recursion), so fewer
	// and fewer ranks reach each deeper level. 4d events per iteration.
	Recursion int
	// Walk > 0 adds a tree walk (pepc's Barnes-Hut interaction lists,
	// Weber Table 5.9): every iteration, after the recursion, solve calls
	// tree_walk, whose children are a sequence of calls of the four kinds
	// interact_p2p, interact_m2p, traverse_node and fetch_remote: a seeded
	// base sequence of Walk calls, the same for all ranks and iterations,
	// mutated per (rank, iteration): each position independently with
	// probability WalkMutation (0..1) is substituted by another kind,
	// deleted, or followed by an inserted call of a random kind (one of
	// the three, equally likely). WalkMutation 0 gives every rank the base
	// sequence; it is ignored without Walk.
	Walk         int
	WalkMutation float64
	// Growth > 0 makes an imbalance grow gradually around one rank, as a
	// cloud forming over part of COSMO-SPECS's domain (Weber 6.2.4, Fig.
	// 6.12): the ranks sit row-major on a near-square grid of
	// cols = ceil(sqrt(Ranks)) columns (rank r at row r/cols, column
	// r%cols; the last row may be partial); rank r has the weight
	// w = max(0, 1 - d/GrowthRadius), d its Euclidean grid distance from
	// rank GrowthCenter (GrowthWeight), and in iteration it its compute
	// kernels run (1 + Growth*w*it/(Iterations-1)) times longer, on top of
	// Imbalance, SlowRank and the outlier (GPU kernels do not grow). So the
	// centre rank's kernels end 1+Growth times longer than they began,
	// ranks at GrowthRadius or farther do not change, and one iteration
	// grows nothing. Growth 0 leaves the trace as it was; Growth > 0 needs
	// GrowthRadius > 0, and 0 <= GrowthCenter < Ranks always.
	Growth       float64
	GrowthCenter int
	GrowthRadius float64
}

// ThreadKind is a kind of helper thread (GenConfig.ThreadKinds): Count
// threads per rank, each calling Start (paradigm "pthread") once per
// iteration, which calls the functions Calls (paradigm "user") in order.
type ThreadKind struct {
	Count int
	Start string
	Calls []string
}

// gpuKernels are the kernels every GPU stream runs per iteration, in order.
var gpuKernels = [...]string{"cuda_kernel_push", "cuda_kernel_fields"}

// workloadCallers call the workload-dependent segment_op_ functions.
var workloadCallers = [...]string{"handle_collisions", "remesh", "split_multi_nodes"}

// BTMZConfig imitates NAS BT-MZ (SC VI.A, Fig. 5; IX.B at 4,096 x 15):
// ranks MPI ranks with threads OpenMP threads each, rank 0 with one extra
// function pair; 3 pair sets (rank 0, the other ranks, the threads) and a
// concept lattice of 5 nodes, at any scale. Two iterations.
func BTMZConfig(ranks, threads int) GenConfig {
	return GenConfig{Seed: 1, Ranks: ranks, Threads: threads, Iterations: 2, Depth: 1, Fanout: 2, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1, MasterWork: 1}
}

// PIConGPUConfig imitates PIConGPU (SC IV, VI.A-B, Figs. 1, 6-7): ranks MPI
// ranks; rank 0 a master with 66 extra function pairs and no GPU; ranks
// 1.. each drive one GPU with streams CUDA streams; every rank has threads
// pthreads of two kinds (an I/O kind, (threads+1)/2 of them, and an event
// kind, threads/2). 5 pair sets (rank 0, GPU ranks, each thread kind,
// streams) when threads >= 2. Two iterations.
func PIConGPUConfig(ranks, threads, streams int) GenConfig {
	gpus := max(0, ranks-1)
	if gpus == 0 {
		streams = 0
	}
	var kinds []ThreadKind
	if threads < 0 {
		kinds = []ThreadKind{{Count: threads, Start: "pthread_io"}} // Generate rejects it
	}
	if n := (threads + 1) / 2; n > 0 {
		kinds = append(kinds, ThreadKind{Count: n, Start: "pthread_io", Calls: []string{"write_checkpoint", "compress_chunk"}})
	}
	if n := threads / 2; n > 0 {
		kinds = append(kinds, ThreadKind{Count: n, Start: "pthread_events", Calls: []string{"poll_events"}})
	}
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: 2, Depth: 1, Fanout: 2, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1,
		ThreadKinds: kinds, GPUs: gpus, Streams: streams, MasterWork: 66}
}

// ParaDiSConfig imitates ParaDiS (SC IX.B, Fig. 12c, Table III): MPI
// ranks whose call structure depends on their workload, so the number of
// distinct pair sets grows with scale. Seed 1: 8, 71, 199 and 216 pair sets
// at 8, 128, 1,024 and 4,096 ranks (seed: 7, 74, 187, 207-216), concept
// lattices of 88, 9,116, 46,979 and 51,868 nodes (seed: 6,367 at 128,
// 57,814 at 4,096), over 41 pairs. Two iterations.
func ParaDiSConfig(ranks int) GenConfig {
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: 2, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1,
		Workloads: paradisWorkloads, WorkloadPaths: paradisPaths, WorkloadSkew: paradisSkew}
}

// FD4Config imitates FD4 (SC Table III: 65,536 processes, 55 function
// pairs, 14 groups, 22 lattice nodes): pure MPI, one iteration, 13
// workload classes of uniform probability. Seed 1 at 65,536 (and 4,096)
// ranks: 14 pair sets over 54 pairs, a lattice of 25 nodes.
func FD4Config(ranks int) GenConfig {
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: 1, Depth: fd4Depth, Fanout: fd4Fanout, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1,
		Workloads: fd4Workloads, WorkloadPaths: fd4Paths}
}

// PEPCConfig imitates pepc, a Barnes-Hut tree code (Weber 5.2, Table 5.9:
// 16,384 processes with many structural differences between processes):
// MPI ranks with nested kernels (Depth 1, Fanout 4), a recursive sort of
// depth 1..12 (Recursion 12, Fig. 5.14's shape) and a tree walk of 200
// interaction calls mutated at 3% of the positions per rank and iteration,
// so that nearly every rank's tree_walk children differ a little from the
// others' and need a real alignment. Five iterations. Seed 1 at 16,384
// ranks: 2,300-2,522 events per rank (2,379 on average), 38,984,200
// events in all, 527 MB (Trace.MemoryBytes).
func PEPCConfig(ranks int) GenConfig {
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: pepcIterations, Depth: 1, Fanout: 4, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1,
		Recursion: pepcRecursion, Walk: pepcWalk, WalkMutation: pepcMutation}
}

// COSMOSPECSConfig imitates COSMO-SPECS (Weber 6.2.4, Figs. 6.12-6.13): an
// MPI code whose imbalance grows gradually over the run around one spot
// of the domain (Growth 3: the centre rank's kernels end 4 times longer
// than they began, its grid neighbours up to GrowthRadius 1.5 less so),
// plus one outlier iteration on another rank (rank ranks/5 runs iteration
// iterations/2 4 times longer). The centre is the rank at row rows/2,
// column cols/2-1 of the rank grid (GenConfig.Growth): rank 54 of 100 (a
// 10 x 10 grid), as process 54 in Weber's figure. Low noise (0.05), so the
// culprits stand out; Depth 1, Fanout 2.
func COSMOSPECSConfig(ranks, iterations int) GenConfig {
	center := 0
	if ranks > 0 {
		cols := gridCols(ranks)
		rows := (ranks + cols - 1) / cols
		center = min(ranks-1, rows/2*cols+max(0, cols/2-1))
	}
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: iterations, Depth: 1, Fanout: 2, MPI: true, UnitNs: 10000, Noise: 0.05,
		SlowRank: -1, SlowFactor: 1, OutlierRank: ranks / 5, OutlierIter: iterations / 2, OutlierFactor: 4,
		Growth: 3, GrowthCenter: center, GrowthRadius: 1.5}
}

// HybridGPUConfig imitates a hybrid MPI + CUDA code (Weber 6.1.4, GPU
// utilisation): ranks MPI ranks, each driving one GPU with streams CUDA
// streams (GPUs = ranks). Every iteration a rank runs its compute kernels
// on the host (39 units), then launches the two GPU kernels (4 and 8
// units) on each stream in turn and waits for them in
// cudaStreamSynchronize, then exchanges halos and calls MPI_Allreduce. A
// stream runs its two kernels back to back (no gap inside an iteration;
// stream m starts 0.2 m units after stream 0, the streams overlap), so
// the gaps lie between iterations: the device is idle while its host
// computes and communicates, about three quarters of the run (no stream
// busy during 77% of the solve phase with 1 stream, 76% with 8; seed 1,
// 4 ranks, 10 iterations). Noise 0.1, Depth 1, Fanout 2, no slow rank or
// outlier.
func HybridGPUConfig(ranks, streams, iterations int) GenConfig {
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: iterations, Depth: 1, Fanout: 2, MPI: true, UnitNs: 10000, Noise: 0.1,
		SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1, GPUs: ranks, Streams: streams}
}

// ImbalanceBenchConfig is the benchmark trace of the imbalance and folding
// analyses (issue 14: 100M events, 1,024 ranks): COSMOSPECSConfig(1024,
// 643) with deeper kernels (Depth 2, Fanout 4): 97,748 events per rank
// (152 per iteration), 100,093,954 events in all, 1.47 GB
// (Trace.MemoryBytes); the growth centre is rank 527 (row 16, column 15
// of a 32 x 32 grid), the outlier rank 204 in iteration 321.
func ImbalanceBenchConfig() GenConfig {
	cfg := COSMOSPECSConfig(1024, 643)
	cfg.Depth, cfg.Fanout = 2, 4
	return cfg
}

// gridCols returns the columns of the rank grid of GenConfig.Growth:
// ceil(sqrt(ranks)).
func gridCols(ranks int) int {
	c := int(math.Sqrt(float64(ranks)))
	for c*c < ranks {
		c++
	}
	for c > 1 && (c-1)*(c-1) >= ranks {
		c--
	}
	return max(1, c)
}

// GrowthWeight returns rank r's weight w in the growing imbalance of
// GenConfig.Growth: max(0, 1 - d/GrowthRadius), d the Euclidean distance
// between r and GrowthCenter on the rank grid; 0 without Growth.
func (cfg GenConfig) GrowthWeight(r int) float64 {
	if cfg.Growth <= 0 || cfg.GrowthRadius <= 0 || cfg.Ranks < 1 {
		return 0
	}
	cols := gridCols(cfg.Ranks)
	dy, dx := float64(r/cols-cfg.GrowthCenter/cols), float64(r%cols-cfg.GrowthCenter%cols)
	return max(0, 1-math.Sqrt(dx*dx+dy*dy)/cfg.GrowthRadius)
}

// Tuned shape constants (see the tests for the counts they give).
const (
	paradisWorkloads, paradisPaths, paradisSkew           = 215, 21, 0.8
	fd4Workloads, fd4Paths, fd4Depth, fd4Fanout           = 13, 4, 1, 10
	pepcIterations, pepcRecursion, pepcWalk, pepcMutation = 5, 12, 200, 0.03
)

// DefaultGenConfig returns otf2gen.py's spmd defaults: 4 ranks, 20
// iterations, unit 10 µs, noise 0.2, MPI on, no slow rank, no outlier.
func DefaultGenConfig() GenConfig {
	return GenConfig{
		Seed: 1, Ranks: 4, Iterations: 20, Fanout: 2, MPI: true, UnitNs: 10000,
		SlowRank: -1, SlowFactor: 1.8, OutlierRank: 0, OutlierIter: -1, OutlierFactor: 3,
		Noise: 0.2,
	}
}

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

// workload is the class table of GenConfig.Workloads.
type workload struct {
	cum     []float64 // cum[k]: summed weight of classes 0..k
	masks   []uint64  // paths class k takes
	callers int       // workloadCallers in use
}

// workload returns cfg's class table, nil without Workloads. The masks are
// distinct seeded random subsets of the paths, each path with probability 1/2.
func (cfg GenConfig) workload() *workload {
	if cfg.Workloads <= 0 || cfg.WorkloadPaths < 1 || cfg.WorkloadPaths > 62 || cfg.Workloads > 1<<min(cfg.WorkloadPaths, 20) {
		return nil // (Generate rejects the invalid ones)
	}
	w := &workload{cum: make([]float64, cfg.Workloads), masks: make([]uint64, 0, cfg.Workloads),
		callers: min(len(workloadCallers), cfg.WorkloadPaths)}
	sum := 0.0
	for k := range w.cum {
		sum += math.Pow(float64(k+1), -cfg.WorkloadSkew)
		w.cum[k] = sum
	}
	rnd := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x776f726b6c6f6164))
	seen := make(map[uint64]bool, cfg.Workloads)
	for len(w.masks) < cfg.Workloads {
		m := rnd.Uint64() & (1<<cfg.WorkloadPaths - 1)
		if !seen[m] {
			seen[m] = true
			w.masks = append(w.masks, m)
		}
	}
	return w
}

// class returns rank r's workload class.
func (w *workload) class(seed int64, r int) int {
	u := float64(mix.Mix64(mix.Mix64(uint64(seed))^uint64(r))>>11) / (1 << 53)
	x := u * w.cum[len(w.cum)-1]
	return min(sort.SearchFloat64s(w.cum, x), len(w.cum)-1)
}

// mask returns the paths rank r takes.
func (w *workload) mask(seed int64, r int) uint64 { return w.masks[w.class(seed, r)] }

// splitmix is a splitmix64 generator: the per-(rank, iteration) draws of
// the Recursion and Walk knobs.
type splitmix uint64

// newSplitmix seeds a generator from (seed, salt, r, it).
func newSplitmix(seed int64, salt uint64, r, it int) splitmix {
	return splitmix(mix.Mix64(mix.Mix64(mix.Mix64(uint64(seed)^salt)^uint64(r)) ^ uint64(it)))
}

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	return mix.Mix64(uint64(*s))
}

// float returns a uniform draw in [0, 1).
func (s *splitmix) float() float64 { return float64(s.next()>>11) / (1 << 53) }

// recursionContinue is the probability that the sort of GenConfig.Recursion
// goes one level deeper.
const recursionContinue = 0.75

// recursionDepth returns how deep rank r's sort recurses in iteration it
// (1..Recursion).
func (cfg GenConfig) recursionDepth(r, it int) int {
	s := newSplitmix(cfg.Seed, 0x726563757273696f, r, it)
	d := 1
	for d < cfg.Recursion && s.float() < recursionContinue {
		d++
	}
	return d
}

// walkKinds are the calls of the tree walk of GenConfig.Walk.
var walkKinds = [...]string{"interact_p2p", "interact_m2p", "traverse_node", "fetch_remote"}

// walkDur is the duration of each walk kind, in 1/100 units.
var walkDur = [len(walkKinds)]int64{8, 5, 2, 12}

// walk is the base sequence of GenConfig.Walk with a scratch buffer for
// the mutated ones (not safe for concurrent use).
type walk struct {
	seed int64
	p    float64
	base []uint8 // indices into walkKinds
	buf  []uint8
}

// walk returns cfg's tree walk, nil without Walk.
func (cfg GenConfig) walk() *walk {
	if cfg.Walk <= 0 {
		return nil
	}
	w := &walk{seed: cfg.Seed, p: cfg.WalkMutation, base: make([]uint8, cfg.Walk)}
	rnd := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7472656577616c6b))
	for i := range w.base {
		w.base[i] = uint8(rnd.IntN(len(walkKinds)))
	}
	return w
}

// seq returns rank r's tree_walk children in iteration it, valid until the
// next call: the base sequence, each position mutated with probability p.
func (w *walk) seq(r, it int) []uint8 {
	out := w.buf[:0]
	if w.p <= 0 {
		return w.base
	}
	s := newSplitmix(w.seed, 0x6d75746174696f6e, r, it)
	const nk = uint64(len(walkKinds))
	for _, k := range w.base {
		if s.float() >= w.p {
			out = append(out, k)
			continue
		}
		x := s.next()
		pick := x & 0xffffffff
		switch (x >> 32) % 3 {
		case 0: // substitution by another kind
			out = append(out, uint8((uint64(k)+1+pick%(nk-1))%nk))
		case 1: // deletion
		case 2: // insertion after the call
			out = append(out, k, uint8(pick%nk))
		}
	}
	w.buf = out
	return out
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

func neighbours(r, n int) []int {
	if n <= 1 {
		return nil
	}
	a, b := (r-1+n)%n, (r+1)%n
	if a == b {
		return []int{a}
	}
	if a > b {
		a, b = b, a
	}
	return []int{a, b}
}

type genProc struct {
	p     *trace.Process
	clock int64
	req   int64
}

func (g *genProc) ev(k trace.EventKind, t int64, ref int32) {
	p := g.p
	p.Kind = append(p.Kind, k)
	p.Time = append(p.Time, t)
	p.Ref = append(p.Ref, ref)
}

func (g *genProc) msg(k trace.EventKind, t int64, peer, tag int32, bytes, req int64) {
	g.ev(k, t, g.p.Msgs.Add(peer, commOf(peer), tag, bytes, req))
}

func commOf(peer int32) int32 {
	if peer < 0 {
		return -1
	}
	return 0
}

type generator struct {
	cfg     GenConfig
	rnd     *rand.Rand
	aux     *rand.Rand // noise of the shape knobs, so that they leave rnd's draws alone
	defs    *trace.Definitions
	regions map[string]int32
	subs    [][][]int32 // [kernel][level][j] region ids of nested calls
}

func (g *generator) region(name, paradigm string) int32 {
	if id, ok := g.regions[name]; ok {
		return id
	}
	id := int32(len(g.defs.Regions))
	g.defs.Regions = append(g.defs.Regions, trace.Region{Name: name, Canonical: name, Role: "function", Paradigm: paradigm})
	g.regions[name] = id
	return id
}

func (g *generator) noise() int64 {
	if g.cfg.Noise <= 0 {
		return 0
	}
	return int64(g.rnd.ExpFloat64() * float64(g.cfg.UnitNs) * g.cfg.Noise)
}

// auxNoise is noise drawn from aux.
func (g *generator) auxNoise() int64 {
	if g.cfg.Noise <= 0 {
		return 0
	}
	return int64(g.aux.ExpFloat64() * float64(g.cfg.UnitNs) * g.cfg.Noise)
}

// call writes Enter/Leave of region id lasting dur (>= 1) at gp's clock.
func (gp *genProc) call(id int32, dur int64) {
	gp.ev(trace.Enter, gp.clock, id)
	gp.clock += max(1, dur)
	gp.ev(trace.Leave, gp.clock, id)
}

// nested writes a kernel call with its subtree: each level splits its
// parent's duration into Fanout+1 parts, children take one part each.
func (g *generator) nested(gp *genProc, ids [][]int32, id int32, level int, t0, dur int64) {
	gp.ev(trace.Enter, t0, id)
	end := t0 + max(1, dur)
	if level < len(ids) {
		f := int64(len(ids[level]))
		part := dur / (f + 1)
		gap := part / (f + 1)
		t := t0
		for _, c := range ids[level] {
			t += gap
			g.nested(gp, ids, c, level+1, t, part)
			t += max(1, part)
		}
		end = max(end, t)
	}
	gp.ev(trace.Leave, end, id)
	gp.clock = end
}

// Generate returns a deterministic synthetic SPMD trace (same Seed, same
// trace): an iterative solver modelled on otf2gen.py spmd mode, see GenConfig.
// Times are ns; with s = 1 + Threads + the ThreadKinds counts, location i*s
// is rank i's master thread, the Threads locations after it are its workers
// and the helper threads follow, kind by kind; GPU stream locations come
// after all ranks' (GPU g's stream m at Ranks*s + g*Streams + m). Generate
// panics with a *work.Error on an invalid configuration (Ranks < 1, negative
// counts, UnitNs < 1, inconsistent shape knobs).
func Generate(cfg GenConfig) *trace.Trace {
	cfg.mustCheck()
	if cfg.Depth > 0 && cfg.Fanout == 0 {
		cfg.Depth = 0
	}
	// The memory check comes before NumEvents, whose loops take time in
	// proportion to the events.
	if err := work.Reserve(generateFunc, cfg.eventBound(false)*trace.EventBytes); err != nil {
		work.FailErr(generateFunc, err)
	}
	total := cfg.NumEvents()
	if err := work.Reserve(generateFunc, total*trace.EventBytes); err != nil {
		work.FailErr(generateFunc, err)
	}
	job := work.Start(generateFunc, int64(cfg.Iterations), "iterations")
	defer job.Done()
	g := &generator{
		cfg:     cfg,
		rnd:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7472616365626f6f)),
		aux:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7368617065730a00)),
		defs:    &trace.Definitions{Properties: map[string]string{"generator": "tracebook trace.Generate"}},
		regions: map[string]int32{},
	}
	defs := g.defs
	unit := cfg.UnitNs
	// Roles as Score-P writes them: MPI_Init and MPI_Finalize "function",
	// the CUDA runtime calls "wrapper" (the kernels "function").
	mpi := func(name, role string) int32 {
		id := g.region(name, "mpi")
		defs.Regions[id].Role = role
		return id
	}
	user := func(name string) int32 { return g.region(name, "user") }
	rMain, rInit, rRead, rSetup := user("main"), user("init"), user("read_input"), user("setup_grid")
	var rMPIInit, rIsend, rIrecv, rWaitall, rAllreduce, rFinalize, rBarrier int32
	if cfg.MPI {
		rMPIInit, rIsend, rIrecv = mpi("MPI_Init", "function"), mpi("MPI_Isend", "point2point"), mpi("MPI_Irecv", "point2point")
		rWaitall, rAllreduce = mpi("MPI_Waitall", "point2point"), mpi("MPI_Allreduce", "coll_all2all")
		rFinalize, rBarrier = mpi("MPI_Finalize", "function"), mpi("MPI_Barrier", "barrier")
	}
	rSolve, rExchange, rWrite := user("solve"), user("exchange"), user("write_output")
	kernelNames := []string{"compute_flux", "update_cells", "apply_bc"}
	if cfg.Version == 1 {
		kernelNames = []string{"compute_flux", "compute_flux_correction", "update_cells"}
	}
	kernels := make([]int32, len(kernelNames))
	g.subs = make([][][]int32, len(kernelNames))
	for k, name := range kernelNames {
		kernels[k] = user(name)
		for l := 1; l <= cfg.Depth; l++ {
			var level []int32
			for j := 0; j < cfg.Fanout; j++ {
				level = append(level, user(fmt.Sprintf("%s_L%d_%d", name, l, j)))
			}
			g.subs[k] = append(g.subs[k], level)
		}
	}
	rOmp := -int32(1)
	if cfg.Threads > 0 {
		rOmp = g.region("omp_parallel_region", "openmp")
		defs.Regions[rOmp].Role = "parallel"
	}
	// Shape knobs: their regions follow the classic ones.
	kinds := make([]genKind, len(cfg.ThreadKinds))
	helpers := 0
	for i, k := range cfg.ThreadKinds {
		kinds[i] = genKind{ThreadKind: k, start: g.region(k.Start, "pthread")}
		for _, c := range k.Calls {
			kinds[i].calls = append(kinds[i].calls, user(c))
		}
		helpers += k.Count
	}
	var rLaunch, rSync int32
	var gpuK []int32
	if cfg.Streams > 0 {
		rLaunch, rSync = g.region("cudaLaunchKernel", "cuda"), g.region("cudaStreamSynchronize", "cuda")
		defs.Regions[rLaunch].Role, defs.Regions[rSync].Role = "wrapper", "wrapper"
		for _, k := range gpuKernels {
			gpuK = append(gpuK, g.region(k, "cuda"))
		}
	}
	var rTasks []int32
	for i := 1; i < cfg.MasterWork; i++ {
		rTasks = append(rTasks, user(fmt.Sprintf("master_task_%d", i)))
	}
	wl := cfg.workload()
	var wlCallers []int32
	var wlOps []int32
	if wl != nil {
		for _, c := range workloadCallers[:wl.callers] {
			wlCallers = append(wlCallers, user(c))
		}
		for j := 0; j*wl.callers < cfg.WorkloadPaths; j++ {
			wlOps = append(wlOps, user(fmt.Sprintf("segment_op_%d", j)))
		}
	}
	var rSortStep, rPartition, rTreeWalk int32
	if cfg.Recursion > 0 {
		rSortStep, rPartition = user("sort_step"), user("partition")
	}
	wk := cfg.walk()
	var walkIDs []int32
	if wk != nil {
		rTreeWalk = user("tree_walk")
		for _, k := range walkKinds {
			walkIDs = append(walkIDs, user(k))
		}
	}

	// Definitions: machine -> node 0 -> ranks -> locations.
	defs.SystemTree = []trace.SystemTreeNode{{Name: "machine", Class: "machine", Parent: -1}, {Name: "node 0", Class: "node", Parent: 0}}
	stride := cfg.Threads + 1 + helpers
	ncpu := cfg.Ranks * stride
	gpu0 := cfg.Ranks - cfg.GPUs // first GPU rank
	nloc := ncpu
	if cfg.Streams > 0 {
		nloc += cfg.GPUs * cfg.Streams
	}
	ngroups := cfg.Ranks
	if cfg.Streams > 0 {
		ngroups += cfg.GPUs
	}
	defs.LocationGroups = make([]trace.LocationGroup, ngroups)
	defs.Locations = make([]trace.Location, nloc)
	procs := make([]*trace.Process, nloc)
	store := make([]trace.Process, nloc) // one allocation for 65,536 processes
	ranks := make([]genProc, cfg.Ranks)
	members := make([]uint64, cfg.Ranks)
	for r := 0; r < cfg.Ranks; r++ {
		if r%4096 == 4095 {
			job.Check()
		}
		members[r] = uint64(r)
		defs.LocationGroups[r] = trace.LocationGroup{Name: fmt.Sprintf("MPI Rank %d", r), Type: "process", SystemNode: 1}
		for t := 0; t < stride; t++ {
			i := r*stride + t
			p := &store[i]
			p.Rank, p.Thread = int32(r), int32(t)
			n := 4 * cfg.Iterations
			if t > cfg.Threads {
				n = cfg.eventsPerThread(cfg.ThreadKinds[kindOf(cfg.ThreadKinds, t-cfg.Threads-1)])
			}
			locName := "Master thread"
			if t == 0 {
				n = cfg.eventsPerRank(r, wl, wk)
				p.Name = fmt.Sprintf("MPI Rank %d", r)
			} else {
				locName = fmt.Sprintf("Thread %d", t)
				p.Name = fmt.Sprintf("MPI Rank %d / Thread %d", r, t)
			}
			p.Kind, p.Time, p.Ref = make([]trace.EventKind, 0, n), make([]int64, 0, n), make([]int32, 0, n)
			defs.Locations[i] = trace.Location{Name: locName, Type: "cpu_thread", Group: int32(r), NumEvents: uint64(n)}
			procs[i] = p
		}
		ranks[r].p = procs[r*stride]
		if cfg.MPI {
			nb := len(neighbours(r, cfg.Ranks))
			m := &ranks[r].p.Msgs
			nm := 4 * nb * cfg.Iterations
			m.Peer, m.Comm, m.Tag = make([]int32, 0, nm), make([]int32, 0, nm), make([]int32, 0, nm)
			m.Bytes, m.Request = make([]int64, 0, nm), make([]int64, 0, nm)
			c := &ranks[r].p.Colls
			nc := cfg.Iterations
			c.Op, c.Comm, c.Root = make([]uint8, 0, nc), make([]int32, 0, nc), make([]uint32, 0, nc)
			c.Sent, c.Received = make([]int64, 0, nc), make([]int64, 0, nc)
		}
	}
	// GPU streams: one accelerator location group per GPU rank.
	streams := make([][]genProc, cfg.Ranks)
	for r := gpu0; r < cfg.Ranks && cfg.Streams > 0; r++ {
		gi := r - gpu0
		grp := cfg.Ranks + gi
		defs.LocationGroups[grp] = trace.LocationGroup{Name: fmt.Sprintf("GPU %d", gi), Type: "accelerator", SystemNode: 1}
		streams[r] = make([]genProc, cfg.Streams)
		n := cfg.eventsPerStream()
		for m := 0; m < cfg.Streams; m++ {
			i := ncpu + gi*cfg.Streams + m
			p := &store[i]
			p.Rank, p.Thread = int32(grp), int32(m)
			p.Name = fmt.Sprintf("GPU %d / CUDA Stream %d", gi, m)
			p.Kind, p.Time, p.Ref = make([]trace.EventKind, 0, n), make([]int64, 0, n), make([]int32, 0, n)
			defs.Locations[i] = trace.Location{Name: fmt.Sprintf("CUDA Stream %d", m), Type: "accelerator_stream", Group: int32(grp), NumEvents: uint64(n)}
			procs[i] = p
			streams[r][m].p = p
		}
	}
	if cfg.MPI {
		defs.Groups = []trace.Group{
			{Name: "MPI locations", Type: "comm_locations", Paradigm: "mpi", Members: members},
			{Name: "MPI_COMM_WORLD group", Type: "comm_group", Paradigm: "mpi", Members: members},
		}
		defs.Comms = []trace.Comm{{Name: "MPI_COMM_WORLD", Group: 1, Parent: -1}}
	}

	// init
	for r := range ranks {
		gp := &ranks[r]
		gp.clock = int64(g.rnd.Float64() * float64(unit))
		gp.ev(trace.Enter, gp.clock, rMain)
		gp.clock += unit
		if cfg.MPI {
			gp.call(rMPIInit, 50*unit+g.noise())
		}
		gp.ev(trace.Enter, gp.clock, rInit)
		gp.clock += unit
		if r == 0 {
			gp.call(rRead, 20*unit+g.noise())
			if cfg.MasterWork > 0 {
				gp.call(rSetup, 5*unit+g.auxNoise())
			}
		} else {
			gp.call(rSetup, 5*unit+g.noise())
		}
		gp.ev(trace.Leave, gp.clock, rInit)
	}
	if cfg.MPI {
		var tSync int64
		for r := range ranks {
			tSync = max(tSync, ranks[r].clock)
		}
		tSync += unit
		for r := range ranks {
			ranks[r].call(rBarrier, tSync-ranks[r].clock)
		}
	}

	var growth []float64 // GrowthWeight per rank; nil when nothing grows
	if cfg.Growth > 0 && cfg.Iterations > 1 {
		growth = make([]float64, cfg.Ranks)
		for r := range growth {
			growth[r] = cfg.GrowthWeight(r)
		}
	}
	post := make([]int64, cfg.Ranks)
	for it := 0; it < cfg.Iterations; it++ {
		job.Add(1)
		job.Check()
		for r := range ranks {
			if r%4096 == 4095 {
				job.Check() // one iteration of 65,536 ranks takes ~0.3 s
			}
			gp := &ranks[r]
			gp.ev(trace.Enter, gp.clock, rSolve)
			gp.clock += unit / 4
			factor := 1.0
			if cfg.Ranks > 1 {
				factor += cfg.Imbalance * float64(r) / float64(cfg.Ranks-1)
			}
			if r == cfg.SlowRank {
				factor *= cfg.SlowFactor
			}
			if cfg.OutlierIter == it && r == cfg.OutlierRank {
				factor *= cfg.OutlierFactor
			}
			if growth != nil && growth[r] > 0 {
				factor *= 1 + cfg.Growth*growth[r]*float64(it)/float64(cfg.Iterations-1)
			}
			for k, id := range kernels {
				dur := int64(float64(int64(10+3*k)*unit)*factor) + g.noise()
				g.nested(gp, g.subs[k], id, 0, gp.clock, dur)
			}
			if cfg.Recursion > 0 {
				g.sort(gp, cfg.recursionDepth(r, it), rSortStep, rPartition)
			}
			if wk != nil {
				if cfg.Walk > 1024 {
					job.Check()
				}
				g.treeWalk(gp, wk.seq(r, it), rTreeWalk, walkIDs)
			}
			if wl != nil {
				mask := wl.mask(cfg.Seed, r)
				for c, id := range wlCallers {
					gp.ev(trace.Enter, gp.clock, id)
					gp.clock += unit / 10
					for j := c; j < cfg.WorkloadPaths; j += len(wlCallers) {
						if mask>>j&1 != 0 {
							gp.call(wlOps[j/len(wlCallers)], unit/2+g.auxNoise())
						}
					}
					gp.clock += unit / 10
					gp.ev(trace.Leave, gp.clock, id)
				}
			}
			if ss := streams[r]; ss != nil {
				g.launch(gp, ss, rLaunch, rSync, gpuK)
			}
			if !cfg.MPI {
				gp.ev(trace.Leave, gp.clock, rSolve)
				gp.clock += unit / 10
			}
		}
		if cfg.MPI {
			tag := int32(it % 1000)
			for r := range ranks {
				gp := &ranks[r]
				gp.ev(trace.Enter, gp.clock, rExchange)
				gp.clock += unit / 8
				nb := neighbours(r, cfg.Ranks)
				for range nb {
					gp.req++
					gp.ev(trace.Enter, gp.clock, rIrecv)
					gp.clock += unit / 10
					gp.msg(trace.MpiIrecvRequest, gp.clock, -1, -1, 0, gp.req)
					gp.clock += unit / 10
					gp.ev(trace.Leave, gp.clock, rIrecv)
				}
				for _, peer := range nb {
					gp.req++
					gp.ev(trace.Enter, gp.clock, rIsend)
					gp.clock += unit / 10
					gp.msg(trace.MpiIsend, gp.clock, int32(peer), tag, int64(4096*(1+r%3)), gp.req)
					gp.clock += unit / 10
					gp.ev(trace.Leave, gp.clock, rIsend)
				}
				post[r] = gp.clock
			}
			for r := range ranks {
				gp := &ranks[r]
				gp.ev(trace.Enter, gp.clock, rWaitall)
				done := post[r]
				nb := neighbours(r, cfg.Ranks)
				for _, p := range nb {
					done = max(done, post[p])
				}
				gp.clock = max(gp.clock+unit/10, done+unit/5)
				// requests of this iteration: receives first, then sends
				base := gp.req - int64(2*len(nb))
				for i, peer := range nb {
					gp.msg(trace.MpiIrecv, gp.clock, int32(peer), tag, int64(4096*(1+peer%3)), base+int64(i)+1)
				}
				for i := range nb {
					gp.msg(trace.MpiIsendComplete, gp.clock, -1, -1, 0, base+int64(len(nb)+i)+1)
				}
				gp.clock += unit / 10
				gp.ev(trace.Leave, gp.clock, rWaitall)
				gp.ev(trace.Leave, gp.clock, rExchange)
				gp.clock += unit / 10
			}
			var tAll int64
			for r := range ranks {
				gp := &ranks[r]
				gp.ev(trace.Enter, gp.clock, rAllreduce)
				gp.ev(trace.MpiCollectiveBegin, gp.clock, -1)
				tAll = max(tAll, gp.clock)
			}
			tAll += unit / 2
			for r := range ranks {
				gp := &ranks[r]
				gp.clock = tAll + g.noise()/10
				gp.ev(trace.MpiCollectiveEnd, gp.clock, gp.p.Colls.Add(11, 0, trace.RootNone, 8, 8)) // ALLREDUCE
				gp.clock += unit / 20
				gp.ev(trace.Leave, gp.clock, rAllreduce)
				gp.ev(trace.Leave, gp.clock, rSolve)
				gp.clock += unit / 10
			}
		}
		for r := 0; r < cfg.Ranks && cfg.Threads > 0; r++ {
			end := ranks[r].clock
			for t := 1; t <= cfg.Threads; t++ {
				p := procs[r*stride+t]
				t0 := end - 10*unit
				if n := len(p.Time); n > 0 {
					t0 = max(t0, p.Time[n-1])
				}
				t0 = max(t0, 0)
				kernel := kernels[0]
				a := t0 + unit
				b := max(a, t0+6*unit+g.noise())
				c := max(b, t0+7*unit+g.noise())
				for _, e := range [...]struct {
					k   trace.EventKind
					t   int64
					ref int32
				}{{trace.Enter, t0, rOmp}, {trace.Enter, a, kernel}, {trace.Leave, b, kernel}, {trace.Leave, c, rOmp}} {
					p.Kind = append(p.Kind, e.k)
					p.Time = append(p.Time, e.t)
					p.Ref = append(p.Ref, e.ref)
				}
			}
		}
		for r := 0; r < cfg.Ranks && helpers > 0; r++ {
			end := ranks[r].clock
			t := cfg.Threads + 1
			for _, k := range kinds {
				for range k.Count {
					g.helper(procs[r*stride+t], k, end)
					t++
				}
			}
		}
	}
	var last int64
	for r := range ranks {
		gp := &ranks[r]
		if r == 0 {
			for _, id := range rTasks {
				gp.call(id, 2*unit+g.auxNoise())
			}
			gp.call(rWrite, 15*unit+g.noise())
		} else if cfg.MasterWork > 0 {
			gp.call(rWrite, 2*unit+g.auxNoise())
		}
		if cfg.MPI {
			gp.call(rFinalize, 5*unit+g.noise())
		}
		gp.clock += unit
		gp.ev(trace.Leave, gp.clock, rMain)
		last = max(last, gp.clock)
	}
	for _, p := range procs {
		if n := len(p.Time); n > 0 {
			last = max(last, p.Time[n-1])
		}
	}
	defs.Clock = trace.Clock{Resolution: 1e9, Offset: 0, Length: uint64(last)}
	t := trace.NewTrace(defs, procs)
	t.SetGeneratorName(fmt.Sprintf("generated %s, %d ranks", string(rune('A'+cfg.Version)), cfg.Ranks))
	return t
}

// genKind is a ThreadKind with its region ids.
type genKind struct {
	ThreadKind
	start int32
	calls []int32
}

// kindOf returns the index of the kind of helper thread i (0-based among a
// rank's helpers).
func kindOf(kinds []ThreadKind, i int) int {
	for k, kind := range kinds {
		if i < kind.Count {
			return k
		}
		i -= kind.Count
	}
	panic("trace: kindOf: helper index out of range")
}

// helper writes one iteration of a helper thread, ending near its rank's
// iteration end: Start enclosing its calls.
func (g *generator) helper(p *trace.Process, k genKind, end int64) {
	unit := g.cfg.UnitNs
	gp := genProc{p: p}
	t0 := end - int64(2+len(k.calls))*unit
	if n := len(p.Time); n > 0 {
		t0 = max(t0, p.Time[n-1])
	}
	gp.clock = max(t0, 0)
	gp.ev(trace.Enter, gp.clock, k.start)
	for _, id := range k.calls {
		gp.clock += unit / 10
		gp.call(id, unit+g.auxNoise())
	}
	gp.clock += unit / 10
	gp.ev(trace.Leave, gp.clock, k.start)
}

// sort writes the recursive sort of GenConfig.Recursion, d levels deep:
// each sort_step calls partition, then (above the deepest) sort_step.
func (g *generator) sort(gp *genProc, d int, rStep, rPartition int32) {
	unit := g.cfg.UnitNs
	for range d {
		gp.ev(trace.Enter, gp.clock, rStep)
		gp.clock += unit / 50
		gp.call(rPartition, unit/8+g.auxNoise()/8)
	}
	for range d {
		gp.clock += unit / 50
		gp.ev(trace.Leave, gp.clock, rStep)
	}
}

// treeWalk writes the tree walk of GenConfig.Walk: tree_walk calling the
// kinds of seq in order.
func (g *generator) treeWalk(gp *genProc, seq []uint8, rWalk int32, ids []int32) {
	unit := g.cfg.UnitNs
	gp.ev(trace.Enter, gp.clock, rWalk)
	gp.clock += unit / 20
	for _, k := range seq {
		gp.clock += unit / 100
		gp.call(ids[k], walkDur[k]*unit/100+g.auxNoise()/20)
	}
	gp.clock += unit / 20
	gp.ev(trace.Leave, gp.clock, rWalk)
}

// launch writes a GPU rank's kernel launches on each of its streams and
// the synchronisations that wait for them; the streams run the kernels
// back to back, each starting no earlier than its launch.
func (g *generator) launch(gp *genProc, ss []genProc, rLaunch, rSync int32, kernels []int32) {
	unit := g.cfg.UnitNs
	for m := range ss {
		s := &ss[m]
		for k, id := range kernels {
			gp.call(rLaunch, unit/10)
			s.clock = max(s.clock, gp.clock)
			s.call(id, int64(4+4*k)*unit+g.auxNoise())
		}
	}
	for m := range ss {
		gp.ev(trace.Enter, gp.clock, rSync)
		gp.clock = max(gp.clock+unit/10, ss[m].clock)
		gp.ev(trace.Leave, gp.clock, rSync)
	}
}
