// Package msa aligns groups of processes by multiple sequence alignment
// (Weber 2016, 5.2; shared/seeds/weber-2016-structural-performance-
// comparison.txt) into a merged call tree that says, node by node, whether
// all processes of the group agree (equal), some are missing (gap) or they
// call different functions (different), which processes take part, and how
// long their invocations take.
//
//	t := msa.Group(c.Group(1), opts...) // or msa.Align(procs...): the merged call tree (*Tree)
//	t.Divergences()                     // where the processes part ways: call path, state, which
//	t.Table()                           // one row per merged node: regions, state, processes, times
//	t.Plot()                            // the merged call tree (Figs. 5.12-5.15); PlotFrom(v, depth) below a node
//	t.Block(v); t.PlotBlock(v)          // the MSA block of node v's children (Fig. 5.10)
//	t.Path(p); t.Find("solve")          // the nodes of one process's calls; the nodes of a region
//	t.Stages()                          // the time of each stage of Table 5.9
//	msa.Strings(seqs, opts...)          // plain sequences aligned into a *Block (the worked examples)
//
// Options: WithGuide, WithMatrixLimit, WithScoring, WithMethod. Long
// merges show progress and stop when the cell is interrupted; bad
// arguments panic with an *Error naming the function.
//
// # Method
//
// The methods, as the seed defines them:
//
//   - MaxKFreqHashing (Algorithm 6, after Seker): the similarity of two
//     sequences is the summed occurrences, in both, of the characters that
//     are among the K most frequent of each ("research"/"sequence" = 5).
//     The seed leaves ties for the K-th place open; they are resolved in
//     favour of the pair (the largest score any admissible choice gives),
//     which makes the score independent of symbol numbering and reproduces
//     the similarity matrix of 5.2.2.
//   - Guide order (5.2.2): GuideMatrix sorts the Max2FreqHashing similarity
//     matrix and follows it top-down, skipping comparisons of two sequences
//     already in the block and postponing those of two new ones, retried
//     (earliest first) after each addition (Table 5.2: 1-2, 1-5, 5-3,
//     3-4). GuideRanking is the Max3FreqHashing heuristic: the three most
//     frequent characters overall (ties by first occurrence), each
//     sequence's count of them, all sequences aligned to the main sequence
//     in that order (Tables 5.3-5.4). GuideAuto takes the matrix for up to
//     250 sequences (5.3.2) and the ranking above; the limit counts the
//     distinct sequences of one MSA (equal ones are aligned once).
//   - Progressive MSA (5.2.1-5.2.2): each step aligns a new sequence with
//     its partner's own sequence by align's exact methods, chosen by size
//     (align.Auto), and gaps opened in the partner are opened in every row
//     ("once a gap, always a gap"). Ties between optimal pairwise
//     alignments follow align's rule, one rule for both packages: the
//     shorter sequence's elements as early as the score allows, so of
//     three calls against two the third is the extra one (as in align.Pair
//     and Weber's Figs. 3.7 and 3.21(c)), and an equal node compares
//     iteration k with iteration k. The seed contradicts itself here: its
//     Figure 5.10 places ties late ("------decb" under "ababababab"); our
//     block of Figure 5.8 is Figure 5.10 read backwards (the block of the
//     reversed sequences, reversed, is Figure 5.10 exactly). The merge of
//     two processes pairs their calls exactly as align.Pair(p, q) does, p
//     the first of the two in the stable order (see below). A new symbol
//     that the pairwise alignment puts against a gap of the partner goes
//     into a column the block already has there (a gap of the partner
//     opened for another row) if that column holds the same symbol (most
//     such matches, in order); otherwise it opens a new column, as early
//     as the pairwise alignment allows. Without that reuse, aligning many
//     sequences to one main sequence would give every process its own
//     column for the same extra call.
//   - Hierarchical MSA (Algorithm 7): the call trees are traversed in
//     parallel from their roots; at each merged node the children of the
//     participating processes are aligned by progressive MSA and the
//     traversal continues into each aligned column. Stage 1 of Table 5.9
//     groups processes with identical call trees (a 64-bit subtree hash,
//     confirmed by exact comparison) and aligns each group once, keeping
//     its multiplicity; below that, participants with identical subtrees
//     are collapsed the same way at every node, so each distinct subtree is
//     visited once however many processes share it.
//
// A merged node's state is Equal when every process of the group takes
// part with one region, Gap when some do not take part (and the others
// agree), Different when the participants have different regions (Figure
// 5.13, step four). Beyond the seed, every node carries the minimum, lower
// median and maximum inclusive time of its participants' invocations (one
// per process) and the slowest process.
//
// Choices where the seed is silent:
//
//   - Region identity is by name, everywhere: two regions of one name are
//     one region in a merge of processes of one trace as across traces (as
//     in package cluster and in align.Pair), so the same group merges the
//     same way whichever traces its processes come from. A region named ""
//     is a region like any other; only node 0 is the root ε.
//   - The merged tree does not depend on the order the processes are
//     given in. Every step that could (which sequence starts a block,
//     ties of the guide order, representatives of identical subtrees, the
//     slowest of equal times) follows the stable order (run, kind, thread,
//     rank) of the processes; runs are ordered by name (the directory of
//     an OTF2 archive, the stem of an events file). Members and
//     Stats.Slowest are still indexes into the group as given.
//   - Processes are named exactly: the Which column and the block's row
//     labels list ranks ("rank 0, rank 2, rank 4") or ranges that hold
//     every rank between ("rank 1 … rank 15"), with the run's name when
//     the group holds processes of several runs ("v1: rank 0; v2: rank
//     0"). A Different node says who calls which region ("d: rank 0,
//     rank 1 | e: rank 2"; Alternatives gives the indexes).
//   - Divergences lists every node that is not equal relative to its
//     parent: some of the parent's processes do not take part, or they
//     call different regions. That is the top of each gap or different
//     subtree under equal nodes and every further split below it
//     (main(a(x)), main(a(y)), main: a, and x | y below it).
//
// # Many machines
//
// Stage 1 is per process: Stage1Method, registered as "msa.stage1",
// groups a subset of the processes of a trace by identical call trees; its
// partial, a *Classes, carries each class's tree by region names and its
// members, and Classes.Merge joins the groupings of disjoint subsets (a
// class joins the class with an identical tree or stays one of its own),
// with a canonical encoding whatever the merge order. The alignment below
// Stage 1 needs the distinct trees of all processes at once and runs where
// they meet. Align and Group run Stage 1 exactly this way, one subset of
// the processes per core (part.RunRound), when the group's processes come
// from one trace; a group of processes of several traces is grouped in two
// halves on two cores, the groupings merged by the same rule.
//
// On a distributed trace (a skeleton whose events are on the ranks of a
// job, part.Remote), Group and Align run Stage 1 on the job, bring the
// events of each class's representative to the notebook (part.Fetch) and
// merge their call trees here: the merge reads no other tree. The time
// statistics are computed on the job by "msa.stats" (StatsMethod), whose
// parameters are where each class's calls sit in the merged tree: round 0
// gives each node's count, minimum, maximum and slowest process, and the
// lower medians are selected exactly in further rounds (bucket counts of
// an interval that shrinks 16-fold a round; the values themselves once at
// most 32 are left), so what moves grows with the merged tree, not with
// the processes' calls. The result is the local one, node for node. A
// group of a distributed trace merges only with processes of that trace.
//
// Renamed: Align and Tree were Merge and Merged; the old names remain,
// deprecated ("Merge" names the merge of partials everywhere).
package msa
