"""Writes notebooks/tables.ipynb: the table operations of arrowio (filter, sort, group-by, join,
concat, computed columns) on the profiles and events of two runs, and a zoomable figure."""
from nbgen import code, md, write

md("""# Tables: filter, sort, group and join — where did run B lose time?

Every builtin answers in an Arrow table. The table operations of `arrowio` work on any of them
and return a new table, so an analysis reads as one line per step; the names are those of
pandas (and pipit, which hands its users pandas DataFrames):

| tracebook | pandas | SQL |
|---|---|---|
| `t.Select(cols...)`, `t.Drop(cols...)`, `t.Rename(a, b)` | `df[cols]`, `drop`, `rename` | `SELECT` |
| `t.Filter(arrowio.Col("x").Gt(3).And(...))` | `df[mask]`, `query` | `WHERE` |
| `t.Sort("x", "y desc")` | `sort_values` (stable, nulls last) | `ORDER BY` |
| `t.GroupBy(keys...).Agg(arrowio.Count(), arrowio.Sum("x"), ...)` | `groupby().agg()` | `GROUP BY` |
| `t.Join(u, keys...)`, `t.LeftJoin(u, keys...)` | `merge(how="inner"/"left")` | `JOIN` |
| `arrowio.Concat(t, u)` | `concat` | `UNION ALL` |
| `t.WithColumn("d", arrowio.Col("End").Sub(arrowio.Col("Start")))` | `assign` | computed column |

Nulls behave as in SQL (and DuckDB): a comparison with null is null, `Filter` keeps the rows
where the predicate is true, and rows with a null group key form their own group (pandas drops
them by default). Long operations show a progress bar and stop at an interrupt.

Two generated runs of one SPMD code: version 0, and version 1 (one call removed, one added) in
which rank 5 runs slow. Their flat profiles: one row per process and function.""")
code('''cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Imbalance = 8, 6, 2, 0.5
runA := synth.Generate(cfg)
cfg.Version, cfg.SlowRank = 1, 5
runB := synth.Generate(cfg)
pa, pb := runA.Profile(), runB.Profile()
pa''', expect=["Exclusive (ns)", "rows x 8 columns"])

md("""## Filter, sort, select

The MPI functions called more than once in run A, the most exclusive time first.""")
code('''pa.Filter(arrowio.Col("Function").StartsWith("MPI_").And(arrowio.Col("Calls").Gt(1))).
	Sort("Exclusive (ns) desc").
	Select("Process", "Function", "Calls", "Exclusive (ns)").
	Head(6)''', expect=["MPI_", "6 rows x 4 columns"])

md("""## Group and aggregate

Per function over the ranks: how many ranks call it, the total, the median and the worst rank.
`Count`, `Sum`, `Mean`, `Min`, `Max`, `Median` and `Quantile` skip nulls; `As` names a result
column. Groups come ordered by their keys; here they are sorted by the total afterwards.""")
code('''pa.GroupBy("Function").
	Agg(arrowio.Count().As("ranks"), arrowio.Sum("Exclusive (ns)"), arrowio.Median("Exclusive (ns)"),
		arrowio.Max("Exclusive (ns)")).
	Sort("sum(Exclusive (ns)) desc").
	Head(6)''', expect=["ranks", "median(Exclusive (ns))", "max(Exclusive (ns))"])

md("""## Join the two runs

Each rank's functions in run B next to the same rank and function in run A (`LeftJoin`: the
functions that only run B has keep their row, with a null for A), and the difference as a
computed column. `B - A` keeps the unit of its operands, so it reads as a duration. What grew
most is MPI waiting (`MPI_Allreduce`, `MPI_Waitall`) on the other ranks: they wait for rank 5,
whose own computation (`update_cells`) is what got slower.""")
code('''a := pa.Select("Rank", "Function", "Exclusive (ns)").Rename("Exclusive (ns)", "A")
b := pb.Select("Process", "Rank", "Function", "Exclusive (ns)").Rename("Exclusive (ns)", "B")
diff := b.LeftJoin(a, "Rank", "Function").WithColumn("B - A", arrowio.Col("B").Sub(arrowio.Col("A")))
diff.Sort("B - A desc").Head(8)''', expect=["MPI_Allreduce", "rank 5      5  update_cells", "8 rows x 6 columns"])

md("""The functions that run B calls and run A does not: their `A` is null, and so is `B - A`.""")
code('''diff.Filter(arrowio.Col("A").IsNull()).
	GroupBy("Function").
	Agg(arrowio.Count().As("ranks"), arrowio.Sum("B"))''', expect=["ranks", "sum(B)"])

md("""## Concatenate

Both profiles in one table with a `Run` column, then the MPI time per run and function: the
total and the 90th percentile over the ranks.""")
code('''both := arrowio.Concat(pa.WithColumn("Run", arrowio.Lit("A")), pb.WithColumn("Run", arrowio.Lit("B")))
both.Filter(arrowio.Col("Function").StartsWith("MPI_")).
	GroupBy("Function", "Run").
	Agg(arrowio.Sum("Exclusive (ns)"), arrowio.Quantile("Exclusive (ns)", 0.9).As("p90 over ranks"))''',
     expect=["p90 over ranks", "MPI_Waitall"])

md("""## Events

The same operations on the events table (pipit's schema): the messages each rank of run B sent,
and their bytes. Instant events carry the MPI records; `In` tests against a list of values.""")
code('''ev := runB.Events()
ev.Filter(arrowio.Col("Name").In("MpiSend", "MpiIsend").And(arrowio.Col("Bytes").NotNull())).
	GroupBy("Process").
	Agg(arrowio.Count().As("messages"), arrowio.Sum("Bytes"), arrowio.Max("Bytes"))''',
     expect=["messages", "sum(Bytes)", "8 rows x 4 columns"])

md("""A mistake names the column and what does not fit, and the session goes on.""")
code('''pa.Filter(arrowio.Col("Function").Gt(3))''', raises=True,
     expect=['column "Function"', "cannot compare string with integer"])

md("""## A figure you can zoom

Figures of timelines, heatmaps and line plots carry a Vega-Lite view next to their image:
JupyterLab (and Notebook 7) show it, with zoom and pan (mouse wheel, drag) and the values under
the pointer; Notebook 6 and HTML reports show the image. Here, run B minus run A per rank and
function, in ms, for the functions with the largest total difference.""")
code('''top := diff.GroupBy("Function").Agg(arrowio.Sum("B - A").As("total")).Sort("total desc").Head(8)
fns, _ := top.Strings("Function")
col := map[string]int{}
for i, f := range fns {
	col[f] = i
}
ranks, _ := diff.Int32s("Rank")
names, _ := diff.Strings("Function")
delta, _ := diff.Int64s("B - A") // null (a function only in B) reads as 0
grid := make([][]float64, 8)
rows := make([]string, 8)
for r := range grid {
	grid[r], rows[r] = make([]float64, len(fns)), fmt.Sprintf("rank %d", r)
}
for i := range names {
	if c, ok := col[names[i]]; ok {
		grid[ranks[i]][c] += float64(delta[i]) / 1e6
	}
}
plotting.Heatmap("run B - run A: exclusive time [ms]", rows, fns, grid, plotting.WithDiverging())''',
     expect=["<Figure run B - run A"])

write("notebooks/tables.ipynb")
