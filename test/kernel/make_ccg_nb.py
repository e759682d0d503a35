"""Writes notebooks/ccg.ipynb: keep a long run compressed in memory and still
ask it questions (Complete Call Graphs, Knüpfer 2009, ch. 3-5)."""
from nbgen import code, md, write

md("""# A long run, compressed, still answering questions: Complete Call Graphs

A solver that runs thousands of iterations writes millions of events, and almost all of them
repeat: the same calls in the same order with nearly the same durations. Knüpfer's *Complete
Call Graph* (CCG) stores each location's call tree with its run times as durations, and stores
every sub-tree that repeats — exactly, or within bounds on the timing error — only once. The
queries an analyst needs (summaries of any time range, the call running at a time, a timeline,
matched messages) run on the compressed graph directly.""")

md("""## Sharing, on a small example

One rank, three iterations. Without bounds (`ccg.Lossless`) only exactly equal sub-trees are
shared; with unlimited bounds only the call structure has to agree, and the three iterations
become one node referenced three times. Each box shows a node's durations in ns: before,
of and between its children (2n+1 values, Knüpfer 3.2.1).""")
code('''tiny := synth.DefaultGenConfig()
tiny.Ranks, tiny.Iterations, tiny.MPI = 1, 3, false
small := synth.Generate(tiny)
exact := ccg.Build(small.Process(0), ccg.Lossless)
loose := ccg.Build(small.Process(0), ccg.Unlimited)
fmt.Println("lossless:", exact.Stats().N, "->", exact.Stats().Nodes, "nodes; unlimited:", loose.Stats().N, "->", loose.Stats().Nodes)
loose.Plot()''', expect=["lossless:", "nodes; unlimited:"])

md("""## An SMG2000-shaped run at the seed's bound settings

The seed measures a trace of the SMG2000 multigrid solver (8 ranks, 36M events). The generator
writes one of that shape: a setup phase, then V-cycles over the grid levels with halo exchanges
(`MPI_Isend`, `MPI_Irecv`, `MPI_Waitall`) and an `MPI_Allreduce` per iteration, timed by a tick
timer with a few percent of noise. Here 4 ranks × 250,000 events; `make bench` runs the full
size.""")
code('''run := synth.GenerateSMG(synth.SMG2000Config(4, 250000))
run''', expect=["4 locations"])
md("""`ccg.SweepBounds` builds the graph at the seed's settings — lossless, small scale (100 ns, 1%),
medium (10 µs, 10%), large (1 ms, 100%) and unlimited — and measures each. Larger bounds share
more sub-trees: compression grows by orders of magnitude while the observed deviation stays
within the bounds (Knüpfer Figs. 5.9-5.19). Request ids of non-blocking calls never repeat, but
stored as differences from the latest id they do, and stay exact.""")
code('''sw := ccg.SweepBounds(run)
sw''', expect=["lossless", "abs 1.000 ms, rel 100%", "unlimited", "R_nodes"])

md("""Pick the medium setting for analysis: timestamps within ±10 µs, every duration within 10%. The
summary line gives the sizes before and after, the ratios and the deviation actually observed.""")
code('''g := ccg.BuildTrace(run, ccg.MediumScale)
g''', expect=["CCG: 4 location(s)", "R_nodes", "deviation observed"])

md("""## Zooming: summaries over any time range

`g.Summary(t0, t1)` gives per region the calls entered, the inclusive and exclusive time inside
`[t0, t1)` and the communication there. The first query over the whole run counts each distinct
node once, weighted by how often it occurs; queries over other ranges reuse the cached partial
results of whole sub-trees, so zooming in only re-evaluates the nodes on the two paths to the
range's ends (Knüpfer 4.5.3).""")
code('''whole := g.Summary(0, g.End())
whole''', expect=["hypre_SMGRelax", "sends", "Exclusive (ns)"])
code('''mid := g.End() / 2
detail := g.Summary(mid, mid+g.End()/1000)
fmt.Println(detail)
detail.Table().Head(8)''', expect=["regions;", "Calls"])
md("""What runs at that moment on each rank, found by the timestamp search (4.5.2):""")
code('''g.At(mid)''', expect=["Call Path", "main > hypre_SMGSolve"])

md("""## The timeline, pixel by pixel

Each pixel column is a summary query over its time range; its state is the region with the most
exclusive time in it (4.5.4) — the state that timeline folding needs.""")
code('''tl := g.Timeline(800)
tl.Plot()''', expect=[])
code('''g.TimelineRange(mid, mid+g.End()/200, 400).Plot()''', expect=[])

md("""## Messages matched on the compressed graph

Point-to-point messages are matched across the ranks by the MPI rules (sender, receiver,
communicator, tag, in order), walking the locations in turns of `h` message events so that few
events wait for their partner at once (4.5.5). The lossy graph gives the same pairs as the
exact one; times within the bound.""")
code('''mm := ccg.Messages(g)
fmt.Println(mm)
mm.Table().Head(5)''', expect=["messages", "Latency (ns)"])
code('''ccg.Collectives(g).Head(4)''', expect=["ALLREDUCE"])

md("""## Keep it, ship it, restore it

The graph saves in a compact, checksummed binary file and restores much faster than it builds —
the form in which a long trace is kept and shipped (4.6).""")
code('''g.Save("smg.ccg")
back, err := ccg.Load("smg.ccg")
if err != nil {
	panic(err)
}
info, _ := os.Stat("smg.ccg")
fmt.Printf("%d bytes on disk for %d events (%.2f bytes/event); same summary: %v\\n",
	info.Size(), back.Stats().Events, float64(info.Size())/float64(back.Stats().Events),
	back.Summary(0, back.End()).Regions[0] == whole.Regions[0])
os.Remove("smg.ccg")''', expect=["bytes on disk", "same summary: true"])
md("""Tables export like every other: `arrowio.WriteParquet("summary.parquet", whole.Table())`.""")
write("notebooks/ccg.ipynb")
