"""Writes notebooks/waits.ipynb: why time is lost, not only where. Wait states with their
culprits, the delays that caused them traced back to the root cause, the critical path, and which
differences between two runs lie on it; on a generated run with one slow rank and on a real
Score-P trace."""
from nbgen import code, md, write

md("""# Why the time is lost: wait states, their root causes, and the critical path

A profile says *where* time goes: so much in `MPI_Allreduce`, so much in `MPI_Waitall`. It does
not say *why* a rank waits there, nor whose code to fix. `waits.Analyze(tr)` answers with the
methods of Scalasca's trace analysis:

- **wait states** (Scalasca's performance properties): a receive entered before its message was
  sent (*late sender*), a blocking send waiting for its receive (*late receiver*), a collective
  entered before the last participant (*wait at N×N*, *wait at barrier*), before the root (*late
  broadcast*), a root waiting for its first sender (*early reduce*) — each with the location that
  caused it;
- **delay costs** (Böhme et al. 2010): for each wait, the excess time of the culprit's code since
  the two last synchronised; a culprit that was late because it waited itself passes the cost on,
  so the costs end at the **root cause**;
- the **critical path** (Böhme et al. 2012): the chain of computation and communication that
  determined the run's length, found by a backward replay from the last event.""")

md("""## A run with one slow rank

The generator's iterative solver on 16 ranks: three compute kernels, a halo exchange with
`MPI_Irecv`/`MPI_Isend`/`MPI_Waitall` with the neighbours, an `MPI_Allreduce` ending each
iteration. Rank 5 computes 1.6 times slower than the others.""")
code('''cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations = 16, 20
cfg.SlowRank, cfg.SlowFactor = 5, 1.6
run := synth.Generate(cfg)
run.SetName("rank 5 slow")
r := waits.Analyze(run)
r''', expect=["wait at N×N", "late sender", "root cause: rank 5", "critical path"])

md("""The headline and the table: almost all the time in `MPI_Allreduce` is waiting for the last
rank to arrive, and the ranks next to rank 5 also wait for its messages in `MPI_Waitall`. The
heatmap shows it over time: every rank but one waits at the end of every iteration.

Who made them wait? Ranks 4, 5 and 6 enter `MPI_Allreduce` last, at the same instant: 4 and 6
after waiting for rank 5's messages. On such a tie the analysis names the first, rank 4, as the
culprit (*Caused*). The delay analysis follows the chain: rank 4's own waiting passes the cost
on, and the costs end where the excess computation is, on rank 5 (*Delay Cost*).""")
code('''r.Processes().Sort("Delay Cost (ns) desc").
	Select("Process", "Waiting (ns)", "Caused (ns)", "Delay Cost (ns)", "Critical Path (ns)").Head(4)''',
     expect=["Delay Cost", "rank 5", "rank 4"])
md("""Which code of the root cause: the delay costs per call path. All three kernels of rank 5
share the cost, in proportion to the time each takes beyond the others'.""")
code('''r.Delays().Head(6)''', expect=["apply_bc", "update_cells", "compute_flux"])

md("""## The critical path

The replay runs back from the last event: on a rank, back to the end of its latest wait, then
to the rank that caused the wait, at the time it entered the operation. The path holds no
waiting, only what the run had to wait *for*. Per call path, its time on the path next to its
mean time per rank: the **imbalance** ratio says how much more of that code the path runs
through than an average rank does. The kernels, at about 1.5, are what to balance.""")
code('''r.CriticalPath().Head(6)''', expect=["apply_bc", "Imbalance"])
md("""On the timeline, the critical path is shaded on the lanes it runs along (hover a shaded
stretch to see where the path came from).""")
code('''r.Timeline()''', expect=["<LiveTimeline", "16 lanes"])

md("""## Which differences explain a slowdown

Two runs of the same program, one without the slow rank. `compare.Runs` finds what changed per
group of ranks; `waits.Explain` says which of those differences lie on the critical path of the
slower run, and what share of the slowdown each explains. The critical path's time is split over
functions, so the shares add up.""")
code('''cfg.SlowRank = -1
base := synth.Generate(cfg)
base.SetName("balanced")
waits.Explain(compare.Runs(base, run))''', expect=["slower", "critical path", "of the slowdown"])
md("""The comparison flags `MPI_Allreduce` as slower: 3.4 ms more per rank, all of it waiting.
`MPI_Allreduce` has time on the critical path only for the ~115 µs its calls take once the last
rank has arrived, the same in both runs; the waiting that grew is not on the path (the path holds
no waiting), so it explains none of the slowdown. The kernels, whose mean time per rank hardly
changed (one rank of sixteen is slow), explain it. Aligning the runs rank by rank (`align.Runs`)
sees the kernels' change, and `waits.ExplainAlignment` ranks it first:""")
code('''waits.ExplainAlignment(align.Runs(base, run)).Table().Head(5)''', expect=["apply_bc", "Share of Slowdown"])

md("""## A real trace: Score-P's MPI ping-pong

Two ranks exchanging messages of growing size, measured by Score-P. `Main()` leaves out
`MPI_Init` and `MPI_Finalize`, which would otherwise be most of the critical path.""")
code('''pp := waits.Analyze(trace.Open("../test/data/traces/ping-pong-otf2/traces.otf2").Main())
pp''', expect=["late receiver", "late sender", "critical path"])
md("""Most of the waiting is *late receiver*: `MPI_Send` of a large message waits until the
other rank posts its receive (the rendezvous protocol), and the critical path alternates between
the ranks, message by message. OTF2 does not record the send protocol; as Scalasca does, a send
counts as waiting when its call was still running when the receive was posted.""")
code('''pp.Instances().Head(6)''', expect=["late receiver", "MPI_Send", "rank 1"])
code('''pp.Segments().Head(6)''', expect=["Start (ns)", "rank 0", "rank 1"])

md("""## Taking it further

Every table is an Arrow table: write it for pandas or R.""")
code('''path := filepath.Join(os.TempDir(), "waits-instances.parquet")
arrowio.WriteParquet(path, r.Instances())
back, err := arrowio.ReadParquet(path)
if err != nil {
	panic(err)
}
fmt.Println(back.NumRows(), "wait states written to", filepath.Base(path))''', expect=["wait states written to waits-instances.parquet"])

write("notebooks/waits.ipynb")
