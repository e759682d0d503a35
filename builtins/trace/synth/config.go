package synth

import (
	"math"
)

// GenConfig configures Generate. The knobs match ../shared/tools/otf2gen.py
// spmd mode (--procs, --threads, --iters, --unit, --noise, --slow,
// --outlier, --variant) plus Depth/Fanout (nested calls inside each compute
// kernel), Imbalance (a linear per-rank slowdown) and MPI (off: ranks run
// their compute phases without communication).
//
// The shape knobs after Version are groups, each a type whose zero value
// is off (the trace is then the one of the knobs before them); their
// fields are promoted, so cfg.GPUs reads and sets GPU.GPUs. They build the
// process kinds of the structural clustering seed (SC IV, IX): helper
// threads of other call structures (HelperThreads), GPU streams (GPU), a
// master rank with extra work (Master) and workload-dependent call
// structures (Workload); and the structures and imbalances of Weber's
// thesis: a recursive sort (RecursiveSort), a mutated tree walk
// (TreeWalk), an imbalance growing around one rank (GrowingImbalance).
// BTMZConfig, PIConGPUConfig, ParaDiSConfig and FD4Config set them to the
// seeds' shapes; PEPCConfig to pepc's (Weber 5.2); COSMOSPECSConfig and
// HybridGPUConfig to the imbalance and GPU-idle shapes of Weber ch. 6.
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

	// The shape knobs, one group each; a group's zero value is off.
	HelperThreads
	GPU
	Master
	Workload
	RecursiveSort
	TreeWalk
	GrowingImbalance
}

// HelperThreads adds helper threads whose call structure differs from
// the workers': every rank gets Count threads of each of ThreadKinds,
// after its Threads workers. None: off.
type HelperThreads struct {
	ThreadKinds []ThreadKind
}

// GPU makes the last GPUs ranks (Ranks-GPUs .. Ranks-1) drive a GPU each,
// with Streams stream locations in a location group "GPU g" of type
// "accelerator" (Process.Label "GPU g stream m"; g counts GPUs from 0).
// Per iteration a GPU rank calls cudaLaunchKernel for each kernel
// (cuda_kernel_push, then cuda_kernel_fields) on each stream, then
// cudaStreamSynchronize per stream (paradigm "cuda", inside solve); each
// stream runs the kernels (paradigm "cuda") as top-level calls. Stream
// locations follow all CPU locations. Streams > 0 exactly when GPUs > 0;
// zero: off.
type GPU struct {
	GPUs    int
	Streams int // streams per GPU
}

// Master with MasterWork > 0 gives rank 0 a master role whose pair set is every
// other rank's plus exactly MasterWork pairs: all ranks call setup_grid
// (from init) and write_output (from main, at the end); rank 0 also calls
// read_input before setup_grid and, before write_output, the MasterWork-1
// functions master_task_1 .. master_task_<MasterWork-1> from main. BT-MZ:
// 1; PIConGPU: 66. 0 is the classic shape (rank 0 calls read_input
// instead of setup_grid, and alone calls write_output): off.
type Master struct {
	MasterWork int
}

// Workload with Workloads > 0 makes each rank's call structure depend on
// its workload (ParaDiS, SC IX.B): rank r falls into one of Workloads
// workload classes, drawn from a seeded hash of (Seed, r) with probability
// proportional to 1/(k+1)^WorkloadSkew for class k (few common classes,
// many rare ones: the number of distinct classes grows with the rank count
// and saturates at Workloads). Class k takes a fixed, seeded set of the
// WorkloadPaths optional code paths (each with probability 1/2, all
// classes distinct): every iteration, solve calls handle_collisions,
// remesh and split_multi_nodes (caller j%3; fewer when WorkloadPaths < 3),
// and caller j%3 calls segment_op_<j/3> for each taken path j (path j is
// that pair). Needs 1 <= WorkloadPaths <= 62 and Workloads <=
// min(2^WorkloadPaths, 2^20). Workloads 0: off.
type Workload struct {
	Workloads     int
	WorkloadPaths int
	WorkloadSkew  float64
}

// RecursiveSort with Recursion > 0 adds a recursive sort (AMG2006's
// hypre_qsort2i, Weber 5.2, Fig. 5.14): every iteration, after the
// kernels, solve calls sort_step, which calls partition (a leaf) and then
// sort_step again, a linear chain down to depth d in 1..Recursion; the
// deepest sort_step calls only partition. d is drawn per (rank, iteration)
// from a seeded hash of (Seed, rank, iteration): starting at 1, each
// deeper level is taken with probability 3/4 (capped at Recursion), so
// fewer and fewer ranks reach each deeper level. 4d events per iteration.
// Recursion 0: off.
type RecursiveSort struct {
	Recursion int
}

// TreeWalk with Walk > 0 adds a tree walk (pepc's Barnes-Hut interaction
// lists, Weber Table 5.9): every iteration, after the recursion, solve
// calls tree_walk, whose children are a sequence of calls of the four
// kinds interact_p2p, interact_m2p, traverse_node and fetch_remote: a
// seeded base sequence of Walk calls, the same for all ranks and
// iterations, mutated per (rank, iteration): each position independently
// with probability WalkMutation (0..1) is substituted by another kind,
// deleted, or followed by an inserted call of a random kind (one of the
// three, equally likely). WalkMutation 0 gives every rank the base
// sequence; it is ignored without Walk. Walk 0: off.
type TreeWalk struct {
	Walk         int
	WalkMutation float64
}

// GrowingImbalance with Growth > 0 makes an imbalance grow gradually around one
// rank, as a cloud forming over part of COSMO-SPECS's domain (Weber 6.2.4,
// Fig. 6.12): the ranks sit row-major on a near-square grid of cols =
// ceil(sqrt(Ranks)) columns (rank r at row r/cols, column r%cols; the last
// row may be partial); rank r has the weight w = max(0, 1 -
// d/GrowthRadius), d its Euclidean grid distance from rank GrowthCenter
// (GenConfig.GrowthWeight), and in iteration it its compute kernels run (1
// + Growth*w*it/(Iterations-1)) times longer, on top of Imbalance,
// SlowRank and the outlier (GPU kernels do not grow). So the centre rank's
// kernels end 1+Growth times longer than they began, ranks at GrowthRadius
// or farther do not change, and one iteration grows nothing. Growth 0
// leaves the trace as it was (off); Growth > 0 needs GrowthRadius > 0, and
// 0 <= GrowthCenter < Ranks always.
type GrowingImbalance struct {
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
	return GenConfig{Seed: 1, Ranks: ranks, Threads: threads, Iterations: 2, Depth: 1, Fanout: 2, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1, Master: Master{MasterWork: 1}}
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
		HelperThreads: HelperThreads{ThreadKinds: kinds}, GPU: GPU{GPUs: gpus, Streams: streams}, Master: Master{MasterWork: 66}}
}

// ParaDiSConfig imitates ParaDiS (SC IX.B, Fig. 12c, Table III): MPI
// ranks whose call structure depends on their workload, so the number of
// distinct pair sets grows with scale. Seed 1: 8, 71, 199 and 216 pair sets
// at 8, 128, 1,024 and 4,096 ranks (seed: 7, 74, 187, 207-216), concept
// lattices of 88, 9,116, 46,979 and 51,868 nodes (seed: 6,367 at 128,
// 57,814 at 4,096), over 41 pairs. Two iterations.
func ParaDiSConfig(ranks int) GenConfig {
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: 2, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1,
		Workload: Workload{Workloads: paradisWorkloads, WorkloadPaths: paradisPaths, WorkloadSkew: paradisSkew}}
}

// FD4Config imitates FD4 (SC Table III: 65,536 processes, 55 function
// pairs, 14 groups, 22 lattice nodes): pure MPI, one iteration, 13
// workload classes of uniform probability. Seed 1 at 65,536 (and 4,096)
// ranks: 14 pair sets over 54 pairs, a lattice of 25 nodes.
func FD4Config(ranks int) GenConfig {
	return GenConfig{Seed: 1, Ranks: ranks, Iterations: 1, Depth: fd4Depth, Fanout: fd4Fanout, MPI: true, UnitNs: 10000, Noise: 0.2, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1,
		Workload: Workload{Workloads: fd4Workloads, WorkloadPaths: fd4Paths}}
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
		RecursiveSort: RecursiveSort{Recursion: pepcRecursion}, TreeWalk: TreeWalk{Walk: pepcWalk, WalkMutation: pepcMutation}}
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
		GrowingImbalance: GrowingImbalance{Growth: 3, GrowthCenter: center, GrowthRadius: 1.5}}
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
		SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1, GPU: GPU{GPUs: ranks, Streams: streams}}
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
