// Package cluster finds which processes of a run behave alike, by their call structure:
// structural clustering after Weber 2016, section 5.1 (shared/seeds/weber-2016-structural-
// performance-comparison.txt), and the structural-clustering paper
// (shared/seeds/weber-2016-structural-clustering.txt, "SC").
//
//	c := cluster.Structural(tr)  // groups of equal pair sets; summary with kinds and members
//	c.Table()                    // per process: its group, hash and set sizes
//	c.GroupTable()               // per group: processes, kinds, members, attributes, hash
//	c.Group(1)                   // the processes of group 1, for align.Pair or msa
//	c.Lattice()                  // the concept lattice of the groups, drawn (SC IV-VI)
//	c.Matrix()                   // pairsim between groups, read off the lattice (SC VI.B)
//	c.Subsumption()              // pairsub: how much of group j's behaviour group i includes (SC VII)
//	m := c.Coarsen(0.8)          // the greedy merge of similar groups at σ (SC VIII.B)
//	m.Pair(0); m.TimePair(0)     // the pairs of processes to align (SC VIII.D)
//	cluster.KMedoids(c, 2, 6)    // baselines on the process x process distance (Weber 5.1.2)
//	cluster.DBSCAN(c, 0.3, 2)
//
// # Method
//
// Attributes (Weber 5.1.1, SC VII): a process's caller -> callee pairs with the virtual root ε
// above its outermost functions (Pairs, the default; pairsim), their transitive closure
// (PairsPlus; pairsub) or the functions it calls (Funcs; funcsim), chosen by WithMeasure.
// Functions are identified by region name: two regions of one name are one function (as in
// package msa, in one trace and across traces, and in align.Pair). A region named "" is a
// function like any other; only the virtual root is ε (serialised, the empty name is `\0`).
//
// Hash clustering (Weber 5.1.2, Algorithm 5): each process's attribute set is sorted,
// serialised and hashed with SHA3-512; processes with equal hashes form a group. Equal pair
// sets are found first on region ids and the SHA3 is computed once per group; no collision can
// merge two different sets, which are compared exactly. Groups are numbered by their first
// process.
//
// Concept lattice (SC IV-VI): the groups' attribute sets are inserted into the concept lattice
// with AddIntent (van der Merwe, Obiedkov and Kourie 2004); in the reduced labelling every
// process and every attribute is in exactly one node. Similarities are sums of own-attribute
// counts over the nodes above two groups (SC VI.B), never set intersections. A lattice past
// the node guard (WithNodeLimit, DefaultNodeLimit) falls back to functions (SC IX.B), and the
// summary says so.
//
// Exact thresholds. Every similarity compared with a threshold is a fraction of attribute
// counts (pairsim = |A ∩ B| / |A ∪ B|, SC eq. 1), and a threshold is read as the decimal it is
// typed as (σ = 0.6 is 3/5, eps = 0.3 is 3/10: the shortest decimal that rounds to the
// float64). The comparisons are exact, not within a tolerance:
//
//   - Coarsen(σ) (the merge of SC VIII.B) merges while the largest similarity is >= σ; a
//     merged group's similarity is the process-weighted average, which comes to
//     Σ n_x n_y sim(x, y) / (N_X N_Y) over the parts x, y of the two merged groups. Floating
//     point decides when two values are farther apart than its proven error bound; closer ones
//     are equal when their sums agree modulo the prime 2^61 - 1 (kept beside the floats, so
//     ties cost two multiplications) and are ordered in rational arithmetic otherwise. Three
//     groups with every pairsim 3/5 merge at σ = 0.6 whatever their sizes; ties between equal
//     similarities go to the pair of lowest group numbers. Per coarsened group, Pair is the
//     least similar two (one of each of its two least similar parts) and TimePair the two
//     whose exclusive time per function differs most (L1), SC VIII.D.
//   - DBSCAN(c, eps, minPts): two processes are neighbours when 1 - pairsim <= eps exactly,
//     so processes at exactly 70% similarity are neighbours at eps = 0.3 (Weber 5.3.1). The
//     float32 distance matrix is adjusted by at most one float32 step where it would say
//     otherwise.
//
// Members are listed exactly: "rank 0, rank 2, rank 4", a range "rank 1 … rank 15" only when
// every rank between is a member.
//
// # Many machines
//
// Both structures merge (SC VI.C): the hash clustering and the concept lattice of disjoint
// process subsets combine into those of the union. Under the per-process contract
// (builtins/part) they are the registered methods "cluster.hash" (HashMethod; partial
// *HashClustering) and "cluster.lattice" (LatticeMethod; partial *Lattice): Compute over a
// subset of the processes, HashClustering.Merge and Lattice.Merge absorbing the other partial
// (disjoint processes and one measure, else an error), and canonical encodings (attributes by
// name, groups by first process; the lattice of its objects is unique, so its encoding is its
// objects) so that any order of merges gives the same bytes. Structural itself builds the
// groups and the lattice in one pass on one core.
//
// On a distributed trace (a skeleton whose events are on the ranks of a job, part.Remote),
// Structural runs "cluster.hash" under Pairs on the job (one round; its partial is each
// distinct pair set by name with its processes, a few hundred bytes for SPMD runs) and builds
// everything else here from it: every structure (funcs, pairs, pairs+) follows from a pair set
// by name. Coarsen's time pairs need the members' exclusive time per function: it runs
// "cluster.profiles" (ProfilesMethod) once over the members of merged groups of two or more
// processes. The results, tables and views are those of the local trace, cell by cell.
// StructureOf and HashClustering.Add read a process's events and panic on a distributed one.
// A lattice computed with part.Run(LatticeMethod) on a job comes back without its trace: its
// members are listed by process index, not by label.
//
// Bad arguments panic with an *Error naming the function; long work shows progress and stops
// at an interrupt.
package cluster
