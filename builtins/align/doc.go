// Package align compares two processes structurally: pairwise sequence
// alignment of their function-call sequences and call trees, and the
// alignment-based comparison metrics built on it.
//
// It implements, from shared/seeds/weber-2016-structural-performance-comparison.txt
// (Weber 2016): the scoring of eq. 3.1/3.2 and Needleman-Wunsch (3.2.2),
// Hirschberg's linear-space variant (3.2.2), an output-sensitive exact method
// (3.2.2; here its modern form, the wavefront alignment WFA and its
// bidirectional linear-memory variant BiWFA, Marco-Sola et al. 2021/2023),
// the special cases of 3.2.3, the most-frequent-function anchor heuristic of
// 3.2.4, the tie-breaking discussion of 3.2.5, the hierarchical alignment
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
// Ties (3.2.5). Many alignments can be optimal. Needleman-Wunsch traces back
// from the bottom-right corner and, as Weber describes, follows the
// predecessor field with the highest value; equal fields are taken in the
// order GapB (an element of A alone), GapA (an element of B alone), diagonal.
// The effect is that matches are placed as early as possible: 'aabaabaa'
// against 'aa' aligns the first two a's, Weber's first alignment. The
// special cases (containment: first occurrence) agree with that choice; the
// other exact methods return an optimal alignment of the same score that may
// place equal-scoring gaps elsewhere.
//
// Notebook surface: Strings, Sequences, Pair and Runs return *Result and
// *RunsResult, whose Table, Dissimilarity, Skew, FunctionTimeDiff and Plot
// methods give Arrow tables and figures. Bad arguments panic with an *Error
// naming the function (the notebook convention of the kernel).
package align
