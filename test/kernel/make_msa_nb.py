"""Writes notebooks/msa.ipynb: where exactly do the members of a structural
group differ, and how many of them take each path? (multiple sequence
alignment into a merged call tree, Weber 5.2)."""
from nbgen import code, md, write

md("""# Where do alike processes differ? Multiple sequence alignment

Structural clustering groups processes by the caller → callee pairs they execute. Two ranks
with the same pairs can still run them differently: a recursive sort that goes three levels
deep on one rank and twelve on another has the same pairs. Weber 2016, 5.2, aligns the call
trees of a whole group at once (multiple sequence alignment, hierarchically over the call
trees, Algorithm 7) into one **merged call tree**: each node is *equal* (every process calls
it), *gap* (some processes do not) or *different* (the processes call different functions
there), and knows which processes take part and how long their invocations took.""")

md("""## The seed's worked example

Five short sequences (Weber Fig. 5.8). The guide order decides which pairwise alignments build
the block. With up to 250 sequences it comes from the Max2FreqHashing similarity matrix, sorted
(Table 5.2): 1–2, 1–5, 5–3, 3–4 — comparisons of two sequences not yet in the block wait.""")
code('''fig58 := []string{"ababababab", "aaaabbbb", "cde", "dec", "decb"}
fmt.Println("Max2FreqHashing(research, sequence) =", msa.FreqSimilarity("research", "sequence", 2))
guided := msa.Strings(fig58, msa.WithGuide(msa.GuideMatrix))
guided.Comparisons().Head(6)''', expect=["Max2FreqHashing(research, sequence) = 5", "Sequence 1", "18"])
code('''guided.GuideTable()''', expect=["Partner", "Sequence 5"])
md("""Above 250 sequences the matrix is too expensive, and the Max3FreqHashing ranking takes over:
every sequence is aligned to the *main sequence*, the one with the most occurrences of the three
most frequent characters (Tables 5.3–5.4). The result is Figure 5.10 exactly; the guided block
above aligns *d* and *e* better, as the seed says.""")
code('''ranked := msa.Strings(fig58, msa.WithGuide(msa.GuideRanking))
fmt.Println("top characters:", ranked.TopCharacters())
for i, row := range ranked.Aligned() {
	fmt.Println(ranked.Label(i), row)
}
fmt.Println("sum-of-pairs score: ranking", ranked.SumOfPairs(align.Scoring{}), "vs guided", guided.SumOfPairs(align.Scoring{}))
ranked.Plot()''', expect=["top characters: [b 10 a 9 c 3]", "Sequence 2 a-aaab-bbb", "------decb"])

md("""## A run with a recursive, workload-dependent sort

64 ranks of an iterative solver. In every iteration each rank sorts its particles with a
recursive `sort_step` (like AMG2006's `hypre_qsort2i`, Weber Fig. 5.14) whose depth depends on
the rank's data, and walks a tree (`tree_walk`) whose interaction list differs slightly from rank
to rank. Structural clustering puts ranks 1–63 together: same pairs.""")
code('''cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations = 64, 2
cfg.Recursion = 14                          // sort depth 1..14, fewer ranks at each level
cfg.Walk, cfg.WalkMutation = 24, 0.05       // interaction lists: 24 calls, 5% edits per rank
run := synth.Generate(cfg)
c := cluster.Structural(run)
c''', expect=["3 groups", "rank 1 … rank 63"])
md("""Merge the big group. The summary counts the distinct call trees (Stage 1 of Table 5.9 aligns
each once) and the node states; the table has one row per merged node.""")
code('''m := msa.Group(c.Group(1))
m''', expect=["merged call tree of 62 processes", "sort_step [gap, 52]"])
md("""**Where do they part ways?** `Divergences()` lists the top of every subtree that not all
processes share: the second level of the sort (52 of 62 ranks go deeper than one level) and the
edits of the interaction lists.""")
code('''m.Divergences()''', expect=["main > solve > sort_step > sort_step", "gap"])
md("""The recursion as a merged call tree (Fig. 5.14): white nodes are shared by all processes;
the colour runs from dark red (almost all) to light blue (one process) as ranks stop sorting.""")
code('''sortNode := m.Find("sort_step")[0]
m.PlotFrom(sortNode, -1)''', expect=[])
md("""How long? Each node has the minimum, median and maximum inclusive time of its invocations
(one per process) and the slowest process: the deep sorts are the slow ones.""")
code('''t := m.Table()
for _, v := range m.Find("sort_step")[:4] {
	st := m.Stats(v)
	fmt.Printf("depth %d: %d ranks, median %v, max %v (%s)\\n", m.Depth(v), m.Count(v),
		time.Duration(st.Median), time.Duration(st.Max), m.Processes()[st.Slowest].Label())
}
t.Head(12)''', expect=["depth 3: 62 ranks", "depth 4: 52 ranks", "Slowest"])
md("""The MSA block behind one node: the children of `tree_walk` in the first iteration, one row per
distinct sequence (with the ranks that have it), one column per child node of the merged tree.""")
code('''walk := m.Find("tree_walk")[0]
m.PlotBlock(walk)''', expect=[])
code('''m.Block(walk).Head(5)''', expect=["Processes"])
md("""And one process's own path through the merged tree: every call of rank 5 has its merged
node (`Path`), so its calls can be compared with the group's at the same place.""")
code('''p5 := c.Group(1)[4]
nodes, calls := m.Path(p5)
fmt.Println(p5.Label(), "places", len(calls), "calls; its deepest sort_step is merged node", nodes[len(nodes)-1])
deep := 0
for _, v := range nodes {
	if m.Region(v) == "sort_step" && m.Depth(v) > deep {
		deep = m.Depth(v)
	}
}
fmt.Println(p5.Label(), "sorts down to call depth", deep)''', expect=["places", "sorts down to call depth"])

md("""## At scale

A pepc-shaped run (Table 5.9) of 1,024 ranks, every one with its own call tree. The stages are
those of Table 5.9, plus the time statistics. `make bench` measures 16,384 ranks.""")
code('''big := synth.Generate(synth.PEPCConfig(1024))
bm := msa.Align(big.Processes()...)
fmt.Println(bm.String()[:strings.Index(bm.String(), "\\n")])
bm.Stages()''', expect=["merged call tree of 1,024 processes", "multiple sequence alignment"])
md("""Tables export like every other: `arrowio.WriteParquet("merged.parquet", m.Table())` for pandas or R.""")
code('''arrowio.WriteParquet("merged.parquet", m.Table())
back, _ := arrowio.ReadParquet("merged.parquet")
fmt.Println(back.NumRows(), "merged nodes written and read back")
os.Remove("merged.parquet")''', expect=["merged nodes written and read back"])
write("notebooks/msa.ipynb")
