"""Writes notebooks/compare.ipynb: two runs of one program at 16 and 64 ranks compared in one cell
(compare.Runs): the groups matched across the runs, strong- and weak-scaling efficiency, the
diffed call tree, communication per process and the single calls that changed most; a code
version change at the same scale; two real Score-P runs of the ping-pong program."""
from nbgen import code, md, write

md("""# Four times the ranks: what changed, and what did it cost?

A scaling study compares runs that do not have the same number of processes. Pairing rank *i*
of one run with rank *i* of the other leaves 48 of 64 ranks without a partner, and summed times
grow with the process count whether the code scales or not. `compare.Runs(a, b)` compares two
runs of any size in one cell: it groups the processes of **both** runs by call structure
(hash clustering of caller→callee pairs, Weber 2016 5.1, in one pass over both runs), matches the
groups across the runs, and compares matched groups **per process**, ranked by what each change
costs, so that the first row is the answer.

The program: the generator's iterative solver (three compute kernels, a halo exchange with
`MPI_Isend`/`MPI_Irecv`/`MPI_Waitall`, an `MPI_Allreduce` ending each iteration). Run A has 16
ranks. For strong scaling, run B spreads the same total work over 64 ranks: every kernel call
does a quarter of the work (`UnitNs / 4`).""")
code('''cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations = 16, 20
a := synth.Generate(cfg)
a.SetName("16 ranks")
cfg.Ranks, cfg.UnitNs = 64, cfg.UnitNs/4 // the same total work over four times the ranks
b := synth.Generate(cfg)
b.SetName("64 ranks")
for _, run := range []*trace.Trace{a, b} {
	fmt.Printf("%s: %d processes, %d events\\n", run.Name(), len(run.Processes()), run.NumEvents())
}''', expect=["16 ranks: 16 processes", "64 ranks: 64 processes"])

md("""## One cell

The headline says what changed and what it cost: the groups and how they match; the time per
process in each run (the mean over all processes of the time in instrumented regions) with the
**strong-scaling efficiency** `T_A·P_A / (T_B·P_B)` — 1 is perfect scaling (four times the
processes, a quarter of the time each), 0.5 would mean the run spends twice the total processor
time; the change split exactly into computation, synchronisation and set-up/tear-down; the
costliest function; messages per process. The table ranks every function of every matched
group by its **cost**: the change of its time per process, weighted by the group's share of the
processes (the mean of its shares in the two runs), so a change on one process ranks below the
same change on all of them. The figure shows
the groups' sizes in both runs, the call tree of the costliest group coloured by change, and the
costliest changes.""")
code('''r := compare.Runs(a, b)
r''', expect=["64 ranks (64 processes)", "16 ranks (16 processes)", "2 groups — 2 equal<",
              "strong-scaling efficiency", "(0.25×)", "first: apply_bc in G1", "Efficiency", "Verdict"])

md("""Every kernel takes a quarter of the time per process, so the run scales almost perfectly. The
**Verdict** is a two-sided Wilcoxon-Mann-Whitney rank-sum test of the per-process times at the
1% level; group G0 holds one process in each run, too few for a test (`few processes`).

## Which processes are compared with which: the groups

The processes of both runs are grouped by their caller→callee pairs together. Rank 0 reads the
input file (`read_input`), every other rank sets up its grid (`setup_grid`): two structures, the
same in both runs, so two groups, each **equal** (the same pair set — the same `Hash A` and
`Hash B` as `cluster.Structural` gives) and holding 1 and 15 processes in run A, 1 and 63 in
run B. Groups whose structures differ are matched when their pairsim (Weber eq. 5.2) is at least
σ = 0.83 (`similar`); the rest are `only in A` or `only in B`, with the closest group of the
other run named. Every process of both runs is in exactly one group.""")
code('''gs := r.Groups()
na, nb := 0, 0
for i := 0; i < r.NumGroups(); i++ {
	ga, gb := r.Group(i)
	na, nb = na+len(ga), nb+len(gb)
	fmt.Printf("G%d %-7s %2d processes in %s, %2d in %s\\n", i, r.State(i), len(ga), a.Name(), len(gb), b.Name())
}
fmt.Println("accounted for:", na, "of", len(a.Processes()), "and", nb, "of", len(b.Processes()))
gs.Select("Group", "State", "Pairsim", "Processes A", "Processes B", "Members A", "Members B", "Time per Process A (ns)", "Time per Process B (ns)", "Ratio", "Cost (ns)")''',
     expect=["G0 equal    1 processes in 16 ranks,  1 in 64 ranks", "G1 equal   15 processes in 16 ranks, 63 in 64 ranks",
             "accounted for: 16 of 16 and 64 of 64", "rank 1 … rank 63", "Members B"])

md("""## What does not scale

Per function, `Efficiency` is the scaling efficiency of the function's mean time per process in
the group, `T_A·P_A / (T_B·P_B)` with `P` the runs' processes (16 and 64: a function exactly a
quarter as long per process shows 1.0). The kernels sit at about 1; the function that scales
worst is the collective. In the generator every rank's `MPI_Allreduce` waits for the slowest
rank of the iteration, and the slowest of 64 noisy ranks is slower than the slowest of 16: the
collective absorbs the imbalance, and more of it at larger scale.""")
code('''var worst compare.FunctionRow
for _, w := range r.FunctionRows() {
	if w.Group == 1 && w.Role != trace.SetUp && (worst.Function == "" || w.Efficiency < worst.Efficiency) {
		worst = w
	}
}
fmt.Printf("lowest efficiency in G1: %s %.2f (%s -> %s per process)\\n", worst.Function, worst.Efficiency,
	arrowio.FormatDuration(worst.Mean[0]), arrowio.FormatDuration(worst.Mean[1]))
r.Functions().Filter(arrowio.Col("Group").Eq(1)).Sort("Efficiency").
	Select("Function", "Role", "Time per Process A (ns)", "Time per Process B (ns)", "Ratio", "Efficiency", "Cost (ns)", "Verdict")''',
     expect=["lowest efficiency in G1: MPI_Allreduce", "synchronisation", "compute_flux", "faster"])

md("""## The call trees, diffed

`Tree()` is hatchet's diff of call-tree profiles, computed from the events of every process: the
union of both runs' call paths, one row per path in pre-order (callees ranked by the absolute
change), with its state — `equal`, `only in A`, `only in B`, or `different` when the callees or
the order of their first calls differ — and per run the calls per process and the **inclusive**
time per process (mean, and the maximum with its process). Here the loop of group G1:""")
code('''r.Tree().Filter(arrowio.Col("Group").Eq(1).And(arrowio.Col("Path").StartsWith("main > solve"))).
	Select("Path", "State", "Calls per Process A", "Calls per Process B", "Time per Process A (ns)", "Time per Process B (ns)", "Max B (ns)", "Max Process B", "Change (ns)", "Ratio")''',
     expect=["main > solve > exchange > MPI_Waitall", "equal", "Max Process B"])

md("""`Comm()` compares the communication per process: messages and bytes sent and received,
bytes per message, partners (distinct communicator and peer) and collectives. Each rank still
exchanges its halo with two neighbours, with messages of the same size: the generator does not
shrink the halo when the domain is cut finer, as a real strong-scaling run would.""")
code('''r.Comm().Select("Group", "State", "Messages Sent per Process A", "Messages Sent per Process B", "Bytes per Message A (B)", "Bytes per Message B (B)", "Partners per Process A", "Partners per Process B", "Collectives per Process B", "Messages Ratio", "Bytes Ratio")''',
     expect=["Messages Sent per Process A", "Partners per Process B", "Bytes Ratio"])

md("""## Weak scaling, and the single calls that changed

The same program at 64 ranks with the *same* work per rank is a weak-scaling run:
`WithWeakScaling()` reports `T_A / T_B`. Now the computation stays the same and the first row is
the answer to what costs time at scale: the `MPI_Allreduce`.""")
code('''cfg.UnitNs = synth.DefaultGenConfig().UnitNs // the work per rank of the 16-rank run
weak := synth.Generate(cfg)
weak.SetName("64 ranks weak")
w := compare.Runs(a, weak, compare.WithWeakScaling())
fmt.Println(w.Headline())''', expect=["weak-scaling efficiency", "first: MPI_Allreduce in G1"])

md("""A profile says the collective costs more on average; `Where()` says which calls. For each
matched group it takes a representative process of each run (in run A the process with the
group's median time, in run B the same rank when the group has it), aligns the two call
sequences hierarchically (Weber ch. 3, `align.Pair`) and ranks the aligned calls by the change of
their own (exclusive) time: which call of which function, on which rank, at what time in each
run — the per-occurrence difference that averages hide.""")
code('''w.Where().Head(8)''', expect=["MPI_Allreduce", "Occurrence A", "Occurrence B", "Exclusive B (ns)"])

md("""## A code version change at the same scale

Version 1 of the solver drops the kernel `apply_bc` and calls a new one,
`compute_flux_correction`, between `compute_flux` and `update_cells`. Both runs have 16 ranks.
The structures differ, so no group is `equal`: each group of version 0 is matched to its
counterpart of version 1 as `similar` (pairsim above σ), and the headline's structure line names
the calls found in one run only.""")
code('''vcfg := synth.DefaultGenConfig()
vcfg.Ranks, vcfg.Iterations = 16, 20
v0 := synth.Generate(vcfg)
v0.SetName("version 0")
vcfg.Version = 1
v1 := synth.Generate(vcfg)
v1.SetName("version 1")
vr := compare.Runs(v0, v1)
vr''', expect=["2 groups — 2 similar<", "Structure:", "apply_bc only in version 0",
               "compute_flux_correction only in version 1", "only in A", "only in B", "slower"])
md("""The ranked table gives the bill: `apply_bc`'s time per process is gone, `compute_flux_correction`'s
is new, and `update_cells` is slower (verdict `slower` for the 15 ranks of G1). The generator
gives each kernel the work of its position in the loop, and `update_cells` moved from second to
third place, where `apply_bc` was: the time per process is unchanged. The groups, both
`similar`:""")
code('''vr.Groups().Select("Group", "State", "Pairsim", "Processes A", "Processes B", "Members A")''',
     expect=["similar", "Pairsim", "rank 1 … rank 15"])

md("""In the diffed tree, `solve` is `different` (its callees differ; `Note` lists both orders), and
the two kernels are marked `only in A` and `only in B`, with a time per process of 0 on the
other side.""")
code('''vr.Tree().Filter(arrowio.Col("Group").Eq(1).And(arrowio.Col("State").Ne("equal"))).
	Select("Path", "State", "Note", "Calls per Process A", "Calls per Process B", "Time per Process A (ns)", "Time per Process B (ns)", "Change (ns)")''',
     expect=["different", "main > solve > apply_bc", "only in A", "main > solve > compute_flux_correction", "only in B"])

md("""## Two real runs

The test data hold two Score-P runs of the same MPI ping-pong program on 2 ranks: the second one
recorded three PAPI counters as well. Their call structures are equal, so there is one group.""")
code('''pp := trace.Open("../test/data/traces/ping-pong-otf2/traces.otf2")
papi := trace.Open("../test/data/traces/ping-pong-otf2-papi/traces.otf2")
compare.Runs(pp, papi)''', expect=["1 group — 1 equal<", "set-up/tear-down +15", "first: MPI_Send in G0", "few processes"])

md("""Of the 16 ms per process that the second run takes longer, 15.5 ms are set-up: `MPI_Init`,
which takes 97% of both runs. Its difference is launch time, not the program's, so set-up and
tear-down rows rank last by design, and the headline's costliest function is `MPI_Send`. To
compare the loops only, cut each run between its set-up and tear-down with `Main()`:""")
code('''loops := compare.Runs(pp.Main(), papi.Main())
fmt.Println(loops.Headline())
loops.Functions().Select("Function", "Calls per Process A", "Calls per Process B", "Time per Process A (ns)", "Time per Process B (ns)", "Ratio", "Verdict")''',
     expect=["set-up/tear-down +0 ns", "first: MPI_Send in G0", "Messages sent per process 8 → 8", "MPI_Recv"])

md("""`Where()` aligns rank 0 of one loop with rank 0 of the other (each run's representative) and
ranks the single calls by the change of their own time:""")
code('''loops.Where().Head(6)''', expect=["MPI_Send", "rank 0", "Occurrence A"])

md("""What the comparison finds, honestly: the same calls and the same messages (8 per process, of
the same sizes), and a loop 10% slower in the run with PAPI counters, `MPI_Send` by 13% and
`MPI_Recv` by 11%. On rank 0 every call is slower by a few µs — what reading three counters at
each enter and leave would cost — and four of the longest transfers (sends 5, 7 and 8, receive
8) by 80-100 µs each, most of the change. Those four look like variation of the transfer time
rather than measurement overhead, and two single runs of two processes cannot tell: the
rank-sum test needs more processes than that, so every verdict is `few processes`.""")

md("""## For pandas

Every view is an Arrow table. `r.Functions()` as Parquet, for pandas
(`pd.read_parquet(path)`) or R; durations keep their unit in the column metadata.""")
code('''dir, _ := os.MkdirTemp("", "tracebook-compare")
path := filepath.Join(dir, "scaling-functions.parquet")
arrowio.WriteParquet(path, r.Functions())
back, _ := arrowio.ReadParquet(path)
fmt.Println(back.NumRows(), "of", r.Functions().NumRows(), "rows written and read back, columns:", back.NumCols())
os.RemoveAll(dir)''', expect=["rows written and read back"])

write("notebooks/compare.ipynb")
