"""Writes notebooks/profiles.ipynb: what an analyst opens first, for one run and for two runs side
by side: box-plot profiles and call matrices (Brendel 2018), the comparison of two code versions,
and who talks to whom (pipit's communication matrix and message histogram)."""
from nbgen import code, md, write

md("""# What changed between two versions? Profiles, call matrices and communication

Before any structural method, an analyst looks at profiles: how long each function takes, how
that time is distributed over its calls and processes, who calls whom, and who talks to whom.
A flat profile sums; it hides whether a function got slower in every call or in a few, and on
which ranks. Brendel (2018) draws each function's calls as a box plot — the 2nd, 25th, 50th,
75th and 98th percentile — and buckets them by caller and callee in a *call matrix*.

Two generated runs of one SPMD code: version 0, and version 1 in which one call was removed,
one added, and rank 5 runs slow.""")
code('''cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Noise = 8, 40, 1, 0.3
v0 := synth.Generate(cfg)
cfg.Version, cfg.SlowRank, cfg.SlowFactor = 1, 5, 1.6
v1 := synth.Generate(cfg)
v0''', expect=["8 locations"])

md("""## The box-plot profile

`profile.Boxes` computes, per function over all its calls, the count, sum, minimum, maximum and
the five percentiles of exclusive and inclusive time — exact, by selection. The plot shows the
functions with the most exclusive time, box thickness by the number of calls, and the call
counts on the left.""")
code('''profile.Boxes(v0, profile.WithTop(8))''', expect=["functions", "first by sum exclusive time", "Exclusive P50 (ns)"])

md("""Per process (Brendel Fig. 10-13): one colour per rank. In version 1, rank 5's boxes sit to
the right of the others for the compute kernels.""")
code('''profile.Boxes(v1, profile.WithPerProcess(), profile.WithFunctions("compute_flux", "update_cells", "MPI_Allreduce"))''',
     expect=["rank 5", "update_cells", "first 20 of 24 rows"])

md("""The numbers behind the plot are an Arrow table (`Name`, `Count`, `Exclusive (ns)`,
`Inclusive (ns)` and their percentiles), ready for pandas or R with `arrowio.Write`.""")
code('''pf := profile.Boxes(v1, profile.WithPerProcess())
flux, _ := pf.Row("compute_flux", 5)
base, _ := pf.Row("compute_flux", 0)
fmt.Printf("compute_flux median: rank 0 %s, rank 5 %s\\n", arrowio.FormatDuration(int64(base.Exclusive.P50)), arrowio.FormatDuration(int64(flux.Exclusive.P50)))
pf.Table().Head(4)''', expect=["compute_flux median: rank 0", "Exclusive P98 (ns)"])

md("""## The call matrix

Callers are rows (the virtual root first), callees columns; each cell is a square of concentric
rings — the 2nd percentile outside (1/14 of the area), then the 25th (3/14), the median (6/14),
the 75th (3/14) and the 98th in the centre (1/14) — coloured from green (short) over orange to
red (long).""")
code('''profile.CallMatrix(v0, profile.WithInclusive())''', expect=["call matrix: 23 cells", "first by sum inclusive time: (root)", "Caller", "Callee"])

md("""Restricted to the calls made by `solve` (Brendel Fig. 17), one slice per rank clockwise from
the top-left corner (Fig. 19): rank 5's slices stand out.""")
code('''profile.CallMatrix(v1, profile.WithCaller("solve"), profile.WithPerProcess())''', expect=["solve", "rank 5"])

md("""Brendel's next step (Fig. 18) keeps only the functions that do real work: `Functions` names the
callees, and the caller of `Caller` stays the row without being named again.""")
code('''profile.CallMatrix(v1, profile.WithCaller("solve"), profile.WithFunctions("compute_flux", "update_cells"), profile.WithPerProcess())''',
     expect=["solve -> update_cells", "compute_flux", "rank 5", "16 rows"])

md("""The transitive closure (Brendel 3.2) buckets each call under every function below it on the
stack, so runs where a function was inlined still compare cell by cell: the root's row is the
whole profile.""")
code('''cl := profile.CallMatrix(v1, profile.WithClosure(), profile.WithCaller("main"))
c, _ := cl.Cell("main", "compute_flux", 0)
fmt.Println("compute_flux below main:", c.Exclusive.Count, "calls")''', expect=["compute_flux below main: 320 calls"])

md("""## Comparing the two versions

`profile.Compare` matches functions by name and reports, per function, the change of the call
count and of each percentile, ranked by the time gained or lost. The verdict is a hint with a
stated rule: *slower* or *faster* when each run has at least `profile.MinVerdictCalls` (20)
calls and the middle halves (25th to 75th percentile) of the two distributions do not overlap —
two samples of one distribution do that by chance in fewer than 2 of 1,000 comparisons at 20
calls each — and *too few calls* below 20 on either side. The headline names the function that
changed most.""")
code('''cmp := profile.Compare(v0, v1, profile.WithTop(8))
cmp''', expect=["generated A, 8 ranks vs generated B, 8 ranks", "most changed", "only in"])

md("""The whole run mixes rank 5 with the others. Comparing process groups — here rank 5 against
the rest, in practice the matching groups of `cluster.Structural` of the two runs — separates
them: the verdict for rank 5's kernels is *slower*. The headline names the largest change over
all groups (the rest's `update_cells`: more processes, so more time, though rank 5's change per
call is larger).""")
code('''rest0, rest1 := []*trace.Process{}, []*trace.Process{}
for i := 0; i < 8; i++ {
	if i != 5 {
		rest0, rest1 = append(rest0, v0.Process(i)), append(rest1, v1.Process(i))
	}
}
byGroup := profile.CompareGroups(v0, v1, [][]*trace.Process{{v0.Process(5)}, rest0}, [][]*trace.Process{{v1.Process(5)}, rest1},
	profile.WithFunctions("compute_flux", "update_cells"))
fmt.Println(byGroup.Headline())
for _, r := range byGroup.Rows {
	fmt.Printf("group %d %-13s median %s -> %s  %s\\n", r.Group, r.Function, arrowio.FormatDuration(int64(r.A.P50)), arrowio.FormatDuration(int64(r.B.P50)), r.Verdict)
}''', expect=["group 0 compute_flux", "slower", "most changed: update_cells in group 1"])

md("""## Who talks to whom

pipit's communication views, with pipit's names: `CommMatrix` counts every send (MPI_Send,
MPI_Isend) from its rank to the receiving rank — messages and bytes — and `Matrix("size")` or
`Matrix("count")` gives the dense matrix pipit's `comm_matrix` returns.""")
code('''cm := profile.CommMatrix(v1)
cm''', expect=["8 ranks:", "point-to-point messages", "heaviest"])
code('''m := cm.Matrix("count")
fmt.Println("rank 0 sends to rank 1:", m[0][1], "messages")''', expect=["rank 0 sends to rank 1:"])

md("""The message sizes, binned as `numpy.histogram` of the send sizes would bin them (pipit's
`message_histogram`), and every message matched with its receive, with its latency.""")
code('''profile.MessageHistogram(v1, 10)''', expect=["sends in 10 bins", "Bin Start (B)"])
code('''profile.Messages(v1)''', expect=["messages matched", "latency min", "unmatched: 0 sends, 0 receives"])

md("""## A real trace

The ping-pong trace of two ranks (Score-P, OTF2): `MPI_Send` and `MPI_Recv` are called eight
times per rank from `main`.""")
code('''pp := trace.Open("../test/data/traces/ping-pong-otf2/traces.otf2")
pp.Main().Timeline()''', expect=["<LiveTimeline", "16 messages"])
md("""Its loop (`Main()`, without `MPI_Init` and `MPI_Finalize`) on the master timeline: the eight
round trips, each message a line from send to receive. The same calls as box plots per rank:""")
code('''profile.Boxes(pp, profile.WithPerProcess())''', expect=["MPI_Send", "rank 1"])
md("""Brendel's walk-through (Figs. 16-18) uses this very program: the calls `main` makes, narrowed to
the two that do real work.""")
code('''profile.CallMatrix(pp, profile.WithCaller("int main(int, char**)"), profile.WithFunctions("MPI_Send", "MPI_Recv"), profile.WithInclusive())''',
     expect=["int main(int, char**) -> MPI_Send", "MPI_Recv", "2 rows"])
code('''profile.CallMatrix(pp, profile.WithInclusive()).Table()''', expect=["MPI_Init", "Callee"])
md("""Its messages: 16 sends, eight each way, of 16 KiB doubling up to 2 MiB — the counts and sizes
`otf2-print` shows, and that pipit's CSV export of this trace gives too.""")
code('''fmt.Println(profile.CommMatrix(pp))
fmt.Println(profile.Messages(pp))''', expect=["2 ranks: 16 point-to-point messages, 8.0 MiB", "16 messages matched"])

write("notebooks/profiles.ipynb")
