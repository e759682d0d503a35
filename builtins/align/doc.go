// Package align compares two processes structurally, or two runs location by location: it
// aligns their function-call sequences and call trees and measures the differences with the
// alignment-based metrics of Weber 2016, chapters 3 and 4
// (shared/seeds/weber-2016-structural-performance-comparison.txt).
//
//	r := align.Strings("mcacmam", "mcacbcmbm")        // Weber's worked example (Figs. 3.6, 3.7)
//	r = align.Pair(runA.Process(3), runB.Process(3))  // two processes: hierarchical (Algorithm 2)
//	r.Table()                                         // per aligned pair: State, Function A/B, Level, times
//	r.Dissimilarity()                                 // the Dissimilarity timeline (4.2)
//	r.Skew()                                          // the Runtime skew timeline (4.3)
//	r.FunctionTimeDiff()                              // the Function time difference table (4.4)
//	r.Plot()                                          // aligned timelines, state bar, dissimilarity, skew (Figs. 4.6-4.8)
//	rr := align.Runs(runA, runB)                      // every location of two runs, paired by rank and thread
//	rr.Table()                                        // per location: computation, synchronisation, set-up, outside time
//	rr.Plot()                                         // per location: heatmaps of the computation change, dissimilarity, skew
//
// Options: WithMethod, WithScoring, WithBudget, WithFlat (flat alignment of whole processes),
// WithStopAtDiff; RunsBy pairs the locations by another key (ByIndex, ByName). Runs are named
// by (*trace.Trace).Name, "A" and "B" when nothing names them. Results show through
// display.Compose (headline, table, figure). Bad arguments panic with an *Error naming the
// function (work.Error).
//
// # Method
//
// It implements, from Weber 2016: the scoring of eq. 3.1/3.2 and Needleman-Wunsch (3.2.2),
// Hirschberg's linear-space variant (3.2.2), an output-sensitive exact method
// (3.2.2; here its modern form, the wavefront alignment WFA and its
// bidirectional linear-memory variant BiWFA, Marco-Sola et al. 2021/2023,
// with flat wavefronts and 8-symbol extension), a bit-vector DP kernel
// computing 64 cells per machine word for any integer scoring whose
// max-form match weight D (bitpar.go) is at most 8 (in the manner of
// BitPAl, Loving et al. 2014; Myers' unit-cost method is D = 1; on amd64
// with AVX2 and D <= 4, four words per instruction, bplanes.go), under
// Hirschberg's split with both halves on two cores,
// the special cases of 3.2.3 (containment generalised to subsequences),
// the most-frequent-function anchor heuristic of 3.2.4, the tie-breaking
// discussion of 3.2.5, the hierarchical alignment
// (Algorithm 2, 3.3.1) with the score correction of 3.4.2 and the error of
// 3.5.3, and the metrics of chapter 4 (Similarity eq. 4.1-4.5, Dissimilarity
// timeline 4.2, Runtime skew timeline 4.3, Function time difference table 4.4).
// The settable scores are Farah and Schnorr's α, β, γ
// (shared/seeds/farah-schnorr-trace-comparison-alignment.txt, 3.1).
//
// Scores. A Scoring {Match, Mismatch, Gap} (default 2, -1, -1) is maximised.
// For Match > Mismatch and Match > 2*Gap, maximising it is minimising an edit
// cost with match cost 0:
//
//	2*score = Match*(|A|+|B|) - cost2,  mismatch cost2 = 2*(Match-Mismatch), gap cost2 = Match-2*Gap
//
// (divided by the gcd of the two costs; for the default: score = |A|+|B| -
// cost with mismatch 3, gap 2). That makes the wavefront methods exact. When
// Match == Mismatch the transform gives a zero mismatch cost and the
// dynamic-programming methods are used instead. Scorings with Match <=
// 2*Gap reward gaps as much as matches and are rejected.
//
// Ties (3.2.5). Many alignments can be optimal; every method returns the
// same one (BiWFA excepted, below), so results never depend on the method
// Auto picks by size. The rule: the shorter sequence's elements are placed
// as early as the optimal score allows, so the longer one's surplus goes
// as far to the end as it can (for equal lengths, A's elements early). In
// the DP matrix (A down the rows) that is the lower envelope of the
// optimal paths when |A| <= |B| and the upper one otherwise; envelopes are
// what Hirschberg's split (the first or last best column), the wavefront
// traceback and the special cases can honour exactly. It reproduces Weber's
// worked examples: Fig. 3.7 (mcac--mam), the first alignment of 3.2.5
// ('aabaabaa' against 'aa' aligns the first two a's) and Fig. 3.21(c) (of
// three A calls against two, the third is the gap). Package msa breaks
// the ties of its pairwise steps by this same rule (through Path), so a
// merged call tree pairs calls as Pair does. Weber's traceback
// ("the field with the highest score") leaves equal fields open and is not
// an envelope, so no linear-space method could follow it. Needleman-Wunsch
// traces back preferring GapA, then the diagonal, then GapB (for the lower
// envelope; a longer A is aligned transposed). BiWFA, when selected with
// WithMethod(BiWFA) or by Auto for similar inputs whose full wavefronts
// would exceed 4 MiB (an alignment cost above about 1,400 with the default
// scoring, where the full WFA's memory traffic makes it slower than BiWFA
// on two cores), returns an optimal alignment whose ties may differ: its
// breakpoints lie on some optimal path, not necessarily the envelope.
//
// Auto. After the special cases it estimates the share of edited symbols
// from sampled k-mers (drift-proof: the share of a's k-mers found in b,
// k chosen so chance matches are rare for the alphabet), hence the optimal
// cost s, and compares the wavefront's time (about s^2/G cells) with the
// bit-vector DP's (n*m cells at a cost per cell growing with D^2). The
// wavefront runs with a work budget of half the DP's estimated time and
// gives way to the DP if it exceeds it, so a wrong estimate costs at most
// half again the DP's time. Result.Why reports the estimate and the choice.
//
// Runs: roles of time (beyond the seed). Weber compares two runs location
// by location (Figs. 4.7, 4.9); Runs adds which part of each location's
// time changed, by trace.TimeRole: computation (calls that are neither
// synchronisation nor set-up), synchronisation, set-up/tear-down (MPI_Init,
// MPI_Finalize, ...), and the time outside every instrumented region
// (trace.OutsideRegions). Set-up is neither computation nor
// synchronisation: on real runs MPI_Init is 95-99% of the span and its
// differences are launch skew, which counted as computation made every
// early-launched rank "compute +720 ms". Time outside instrumented regions
// is not computation either (in an MPI-only trace it is the application's
// code, in a threaded one a worker waiting between parallel regions): it
// has its own line and columns, never "idle". The summary's role lines:
// computation and outside time, the larger largest change first, then
// set-up, which never leads. trace.DefaultSync().Compute("MPI_Init",
// "MPI_Finalize") (WithSync) counts set-up as computation again.
//
// Runs heatmaps: each aligned pair covers [vt[k], vt[k+1]) of the aligned
// time axis (Weber Fig. 4.2; Result.axis) and is drawn over every column it
// covers, not only the one where it starts. A pair's computation change is
// the computation in B's stretch of the axis (the element's enter to the
// next element's enter: its own time, then after a leaf the time of the
// calls it returns to) minus that in A's, so a parent's computation between
// its calls shows where it happens, not at the parent's enter; it is shared
// among the pair's columns in proportion to the overlap (so a row sums to
// the location's computation change). A skew is averaged weighted by
// overlap.
//
// # Many machines
//
// A pairwise alignment needs both whole sequences, so it is not split by processes: align has
// no partial of the per-process contract (builtins/part) and registers no method. What is
// per-location is Runs: each row is Pair of one location of run A and its partner in run B
// plus their trace.SyncTimes, computed from those two processes alone, one pair per core. On
// many machines each machine aligns the pairs of its locations and the root concatenates the
// rows in run A's order (pairLocations decides the order and the pairing, from the locations'
// keys only). Within one alignment, Hirschberg's split runs its two halves on two cores.
// Package msa builds on Path and Resolve for its pairwise steps.
package align
