// Package synth generates deterministic synthetic traces in memory: the
// same configuration gives the same trace, bit for bit, at any size.
//
// Generate writes an iterative SPMD solver modelled on otf2gen.py's spmd
// mode (GenConfig): MPI ranks with worker threads, nested compute kernels,
// halo exchanges and an MPI_Allreduce per iteration, a slow rank, an
// outlier iteration, OS noise, and shape knobs for the process kinds of
// the seeds (helper threads, GPU streams, a master rank, workload-dependent
// call structures, a recursive sort, a mutated tree walk, a growing
// imbalance). Each knob left at its zero value changes nothing. The
// presets imitate the seeds' applications: BTMZConfig, PIConGPUConfig,
// ParaDiSConfig, FD4Config, PEPCConfig, COSMOSPECSConfig,
// HybridGPUConfig, ImbalanceBenchConfig; DefaultGenConfig is otf2gen's
// default. GenerateSMG writes the SMG2000-shaped benchmark trace of
// Knüpfer's complete call graphs (SMG2000Config).
//
//	cfg := synth.DefaultGenConfig()
//	cfg.Ranks, cfg.Iterations = 8, 50
//	tr := synth.Generate(cfg) // a *trace.Trace, named "generated A, 8 ranks"
//
// An invalid configuration panics with a *work.Error naming the field
// (TryGenerateSMG returns it); a trace beyond the memory limit with a
// *work.MemoryError, before anything is allocated.
//
// The generators were trace.Generate, trace.GenConfig, ... before issue
// 33; the notebook keeps those names for one release (package symbols).
package synth
