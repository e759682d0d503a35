// Package cluster groups the processes of a run by their call structure:
// structural clustering after Weber 2016, section 5.1, and the
// structural-clustering paper (shared/seeds/weber-2016-structural-clustering.txt,
// "SC").
//
// # Exact thresholds
//
// Every similarity the package compares with a threshold is a fraction of
// attribute counts (pairsim = |A ∩ B| / |A ∪ B|, SC eq. 1), and a
// threshold is read as the decimal it is typed as (σ = 0.6 is 3/5, eps =
// 0.3 is 3/10: the shortest decimal that rounds to the float64). The
// comparisons are exact, not within a tolerance:
//
//   - Merge(σ) (SC VIII.B) merges while the largest similarity is >= σ; a
//     merged group's similarity is the process-weighted average, which
//     comes to Σ n_x n_y sim(x, y) / (N_X N_Y) over the parts x, y of the
//     two merged groups. Floating point decides when two values are
//     farther apart than its proven error bound; closer ones are equal
//     when their sums agree modulo the prime 2^61 - 1 (kept beside the
//     floats, so ties cost two multiplications) and are ordered in
//     rational arithmetic otherwise. Three groups with every pairsim 3/5
//     merge at σ = 0.6 whatever their sizes; ties between equal
//     similarities go to the pair of lowest group numbers.
//   - DBSCAN(c, eps, minPts): two processes are neighbours when 1 - pairsim
//     <= eps exactly, so processes at exactly 70% similarity are neighbours
//     at eps = 0.3 (Weber 5.3.1). The float32 distance matrix is adjusted
//     by at most one float32 step where it would say otherwise.
//
// # Regions and members
//
// Functions are identified by region name: two regions of one name are one
// function (as in package msa, in one trace and across traces, and in
// align.Pair). A region named "" is a function like any other; only the
// virtual root of the pairs is ε (serialised, the empty name is `\0`).
// Members are listed exactly: "rank 0, rank 2, rank 4", a range "rank 1 …
// rank 15" only when every rank between is a member.
package cluster
