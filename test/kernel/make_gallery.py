"""Writes notebooks/gallery.ipynb: every kind of figure the builtins and package plotting make,
each under one line saying which builtin makes it (outputs are produced by executing it).
Cells may carry metadata {"tracebook": {"expect": [substrings]}}: the notebook runner checks
that the executed cell's outputs contain each of them."""
from nbgen import code, md, write

md("""# Gallery: every figure tracebook draws

Each figure below is made by one builtin, named in the line above it. Figures show as a sharp PNG
(rendered at twice the resolution, displayed at its natural size), so they look the same in
JupyterLab, Notebook, VS Code, on GitHub and in `jupyter nbconvert --to html` reports;
`fig.SVGDisplay()` shows one as SVG and `fig.Save("fig.pdf")` writes a file (PNG, SVG or PDF).

Two generated runs of an SPMD code: version 0 with a growing load imbalance across ranks, and
version 1 (one call removed, one added) in which rank 5 also runs slow.""")
code('''cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Imbalance = 8, 6, 2, 0.5
runA := synth.Generate(cfg)
cfg.Version, cfg.SlowRank = 1, 5
runB := synth.Generate(cfg)

// lanesOf turns the call trees of the first n processes into timeline lanes (time in ms).
func lanesOf(tr *trace.Trace, n int) []plotting.Lane {
	var lanes []plotting.Lane
	for i := 0; i < n; i++ {
		p := tr.Process(i)
		ct := p.CallTree()
		var bars []plotting.Bar
		for k := 1; k < ct.Len(); k++ {
			bars = append(bars, plotting.Bar{Start: float64(ct.Enter[k]) / 1e6, End: float64(ct.Leave[k]) / 1e6,
				Level: int(ct.Depth[k]) - 1, Label: p.RegionName(ct.Region[k]), Color: -1})
		}
		lanes = append(lanes, plotting.Lane{Name: p.Label(), Bars: bars})
	}
	return lanes
}
runA''', expect=["8 locations"])

md("## Package plotting\n\n"
   "`plotting.Timeline` — a state timeline (Gantt chart with call levels), one lane per process; "
   "a function keeps its colour in every figure.")
code('''plotting.Timeline("run A: calls of four ranks", lanesOf(runA, 4), plotting.WithXLabel("time [ms]"))''',
     expect=["<Figure run A: calls of four ranks"])

md("`plotting.Lines` — metrics over time, one line per series (here: how long each call of "
   "`compute_flux` took on each rank; long series are reduced to their envelope).")
code('''var flux []plotting.Series
for i := 0; i < 4; i++ {
	p := runA.Process(i)
	ct := p.CallTree()
	s := plotting.Series{Name: p.Label()}
	for k := 1; k < ct.Len(); k++ {
		if p.RegionName(ct.Region[k]) == "compute_flux" {
			s.X = append(s.X, float64(ct.Enter[k])/1e6)
			s.Y = append(s.Y, float64(ct.Leave[k]-ct.Enter[k])/1e3)
		}
	}
	flux = append(flux, s)
}
plotting.Lines("compute_flux: duration of each call", "time [ms]", "duration [µs]", flux...)''',
     expect=["<Figure compute_flux: duration of each call"])

md("`plotting.Bars` — one horizontal bar per label, the value written at its end "
   "(here: exclusive time per function on rank 0, from `Process.RegionStats`).")
code('''p0 := runA.Process(0)
stats := p0.RegionStats()
sort.Slice(stats, func(i, j int) bool { return stats[i].Exclusive > stats[j].Exclusive })
var names []string
var excl []float64
for _, st := range stats {
	names = append(names, p0.RegionName(st.Region))
	excl = append(excl, float64(st.Exclusive)/1e6)
}
plotting.Bars("rank 0: exclusive time per function", names, excl, plotting.WithXLabel("exclusive time [ms]"))''',
     expect=["<Figure rank 0: exclusive time per function"])

md("`plotting.Boxes` — box plots with whiskers at the 2nd and 98th percentile, as in Brendel's "
   "profiles (here: invocation times per function over all ranks).")
code('''durs := map[string][]float64{}
for _, p := range runA.Processes() {
	ct := p.CallTree()
	for k := 1; k < ct.Len(); k++ {
		name := p.RegionName(ct.Region[k])
		durs[name] = append(durs[name], float64(ct.Leave[k]-ct.Enter[k])/1e3)
	}
}
pct := func(v []float64, q float64) float64 { return v[int(q*float64(len(v)-1)+0.5)] }
var boxes []plotting.Box
for _, name := range []string{"compute_flux", "update_cells", "apply_bc", "exchange", "MPI_Waitall", "MPI_Allreduce"} {
	v := durs[name]
	sort.Float64s(v)
	boxes = append(boxes, plotting.Box{Label: name, P2: pct(v, 0.02), P25: pct(v, 0.25), P50: pct(v, 0.5), P75: pct(v, 0.75), P98: pct(v, 0.98)})
}
plotting.Boxes("invocation time per function, all ranks", boxes, plotting.WithXLabel("inclusive time [µs]"))''',
     expect=["<Figure invocation time per function, all ranks"])

md("`plotting.Heatmap` — rows x columns of values with a colour bar, for example processes x "
   "time bins (here: the share of each time bin that 64 ranks spend in MPI, on a fixed [0, 1] "
   "scale with `plotting.WithColorRange(0, 1)` and a time axis with `plotting.WithXRange`).")
code('''wcfg := synth.DefaultGenConfig()
wcfg.Ranks, wcfg.Iterations, wcfg.Imbalance = 64, 8, 1.0
wide := synth.Generate(wcfg)
const bins = 80
span := float64(wide.Duration())
var rows []string
mpi := make([][]float64, wide.NumProcesses())
for i, p := range wide.Processes() {
	rows = append(rows, p.Label())
	mpi[i] = make([]float64, bins)
	ct := p.CallTree()
	for k := 1; k < ct.Len(); k++ {
		if !strings.HasPrefix(p.RegionName(ct.Region[k]), "MPI_") {
			continue
		}
		a, b := float64(ct.Enter[k])/span*bins, float64(ct.Leave[k])/span*bins
		for c := int(a); c < bins && float64(c) < b; c++ {
			mpi[i][c] += math.Min(b, float64(c+1)) - math.Max(a, float64(c))
		}
	}
}
plotting.Heatmap("share of time in MPI", rows, nil, mpi, plotting.WithColorRange(0, 1),
	plotting.WithXRange(0, span/1e6), plotting.WithXLabel("time [ms]"), plotting.WithYLabel("process"))''',
     expect=["<Figure share of time in MPI"])

md("Colour scales start at 0 unless told otherwise, so that small differences do not look large; "
   "`plotting.WithStretch()` spans the data's own range, and signed data gets a diverging scale "
   "around 0 (`plotting.WithDiverging()` asks for it). `plotting.Stack` puts figures above each "
   "other with their data areas aligned.")
code('''near := [][]float64{{0.378, 0.391, 0.405}, {0.380, 0.402, 0.399}}
plotting.Stack("one set of values, three colour scales",
	plotting.Heatmap("anchored at 0 (default)", nil, nil, near, plotting.WithSize(640, 150)),
	plotting.Heatmap("plotting.WithStretch()", nil, nil, near, plotting.WithStretch(), plotting.WithSize(640, 150)),
	plotting.Heatmap("signed: diverging around 0", nil, nil, [][]float64{{-0.4, 0.1, 0.9}, {0.3, -0.2, 0}}, plotting.WithSize(640, 150)))''',
     expect=["<Figure one set of values, three colour scales"])

md("`plotting.Matrix` — a heatmap with each value written in its cell (here: how often each "
   "function calls each other on rank 0, caller in the row, callee in the column).")
code('''ct0 := p0.CallTree()
column := map[string]int{} // function -> 1 + its row and column
var fns []string
for k := 1; k < ct0.Len(); k++ {
	if n := p0.RegionName(ct0.Region[k]); column[n] == 0 {
		fns = append(fns, n)
		column[n] = len(fns)
	}
}
calls := make([][]float64, len(fns))
for i := range calls {
	calls[i] = make([]float64, len(fns))
}
for k := 1; k < ct0.Len(); k++ {
	if par := ct0.Parent[k]; par > 0 {
		calls[column[p0.RegionName(ct0.Region[par])]-1][column[p0.RegionName(ct0.Region[k])]-1]++
	}
}
plotting.Matrix("rank 0: calls, caller x callee", fns, fns, calls, plotting.WithXLabel("callee"), plotting.WithYLabel("caller"))''',
     expect=["<Figure rank 0: calls, caller x callee"])

md("`plotting.Stack` — figures above each other on one x axis, one legend column "
   "(here: rank 3's calls over the durations of its `compute_flux` calls).")
code('''plotting.Stack("rank 3: calls and compute_flux durations",
	plotting.Timeline("", lanesOf(runA, 4)[3:], plotting.WithXLabel("time [ms]")),
	plotting.Lines("", "time [ms]", "compute_flux [µs]", flux[3]).Resize(640, 160))''',
     expect=["<Figure rank 3: calls and compute_flux durations"])

md("`plotting.DAG` — a directed acyclic graph drawn top-down in layers (longest path from the "
   "top), ordered to avoid crossings; here the concept lattice of the structural-clustering "
   "paper's Table I.")
code('''plotting.DAG("concept lattice of SC Table I", []plotting.DAGNode{
	{Lines: []string{"procs (0)", "pairs: ε→F1"}},
	{Lines: []string{"procs: P1", "pairs: F1→F2"}},
	{Lines: []string{"procs: P2, P4", "pairs: F1→F3"}},
	{Lines: []string{"procs: P3", "pairs (0)"}},
}, [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}})''', expect=["<Figure concept lattice of SC Table I"])

md("`plotting.TextGrid` — a grid of labelled cells, each with its fill colour (here an MSA "
   "block as in Weber Fig. 5.10: gaps grey, columns green where every row agrees).")
code('''import "image/color"

green, grey := color.RGBA{0xb7, 0xe1, 0xa1, 0xff}, color.RGBA{0xee, 0xee, 0xee, 0xff}
plotting.TextGrid("an MSA block", []string{"rank 0", "rank 1"}, nil,
	[][]string{{"main", "init", "solve"}, {"main", "—", "solve"}},
	[][]color.Color{{green, grey, green}, {green, grey, green}})''', expect=["<Figure an MSA block"])

md("## Figures of the builtins\n\n"
   "`tr.Timeline()` — the master timeline of a trace: every location a lane of nested calls, "
   "messages as lines from send to receive, collectives as markers, counters and measurement-off "
   "shading; interactive in the notebook (wheel zoom, drag a range, shift+drag pan, hover, click "
   "for the call path, the window's time per function beside it), the same picture where no "
   "script runs. Above 64 locations, groups of ranks are folded into strips of their dominant "
   "function (`trace.WithExpand(g)` opens one).")
code('''runA.Timeline()''', expect=["<LiveTimeline generated A, 8 ranks", "8 lanes"])

md("`align.Pair(p, q).Timeline()` — the alignment on the same interactive view: both processes' "
   "calls on the aligned positions, the comparison states between them.")
code('''align.Pair(runA.Process(5), runB.Process(5)).Timeline()''', expect=["<LiveTimeline"])

md("`align.Pair(p, q).Plot()` — two processes aligned (Weber Figs. 4.6-4.8): both call timelines "
   "on the aligned positions with the comparison state between them, then the Dissimilarity "
   "and the Runtime skew timelines.")
code('''align.Pair(runA.Process(5), runB.Process(5)).Plot()''', expect=["<Figure rank 5: generated A, 8 ranks vs generated B, 8 ranks"])

md("`align.Runs(a, b).Plot()` — every process of one run against the same process of the other: "
   "Dissimilarity (on its full 0 to 1 scale) and Runtime skew (diverging around 0) per process.")
code('''align.Runs(runA, runB).Plot()''', expect=["<Figure generated A, 8 ranks vs generated B, 8 ranks, process by process"])

md("With many processes the heatmaps average groups of consecutive ranks so that the figure stays "
   "a bounded size; the axis says how (here 512 ranks).")
code('''bcfg := synth.DefaultGenConfig()
bcfg.Ranks, bcfg.Iterations = 512, 2
bigA := synth.Generate(bcfg)
bcfg.Version, bcfg.SlowRank = 1, 300
bigB := synth.Generate(bcfg)
align.Runs(bigA, bigB).Plot()''', expect=["<Figure generated A, 512 ranks vs generated B, 512 ranks, process by process"])

md("`cluster.Structural(tr).Lattice()` and `.Matrix()` — the concept lattice of a run's process "
   "groups (own processes and pairs per node, coloured by process kind) and the pairsim matrix "
   "between the groups (the structural-clustering paper's Figs. 5-7 and Table II).")
code('''cl := cluster.Structural(synth.Generate(synth.PIConGPUConfig(5, 2, 2)))
cl.Lattice()''', expect=["concept lattice (pairs)"])
code('''cl.Matrix()''', expect=["pairsim of 5 groups"])

md("`msa.Align(procs...).Plot()` and `msa.Strings(seqs).Plot()` — a merged call tree (Weber "
   "Figs. 5.12-5.15: white where every process takes part, otherwise coloured by how many do; "
   "different functions merged in red) and the MSA block behind a node.")
code('''mcfg := synth.DefaultGenConfig()
mcfg.Ranks, mcfg.Iterations, mcfg.Recursion = 16, 1, 6
mrun := synth.Generate(mcfg)
mg := msa.Align(mrun.Processes()[1:]...)
mg.PlotFrom(mg.Find("solve")[0], -1)''', expect=["<Figure merged call tree below node"])
code('''msa.Strings([]string{"ababababab", "aaaabbbb", "cde", "dec", "decb"}).Plot()''', expect=["<Figure MSA block: 5 sequences"])

md("`ccg.Build(p, bounds).Plot()`, `g.Timeline(width).Plot()` and `ccg.SweepBounds(tr).Plot()` — a "
   "compressed call graph (Knüpfer Fig. 3.4: each shared sub-tree drawn once, with its node's durations), "
   "the per-pixel timeline of a graph, and compression against the deviation bounds (Figs. 5.9-5.19).")
code('''gcfg := synth.DefaultGenConfig()
gcfg.Ranks, gcfg.Iterations, gcfg.MPI = 1, 3, false
ccg.Build(synth.Generate(gcfg).Process(0), ccg.Unlimited).Plot()''', expect=["<Figure compressed call graph"])
code('''smgRun := synth.GenerateSMG(synth.SMG2000Config(2, 40000))
ccg.BuildTrace(smgRun, ccg.MediumScale).Timeline(600).Plot()''', expect=["<Figure CCG timeline"])
code('''ccg.SweepBounds(smgRun).Plot()''', expect=["<Figure compression against the deviation bounds"])

md("`imbalance.Analyze(tr).Plot()` — the SOS-time of every invocation of the dominant function on a "
   "rank x time heatmap, cold blue to warm red, with the iteration boundaries, and the imbalance "
   "(max/mean SOS-time) per iteration beneath (Weber Figs. 6.11-6.13). Rows that do not fit are "
   "binned by their maximum.")
code('''imbalance.Analyze(synth.Generate(synth.COSMOSPECSConfig(64, 16))).Plot()''', expect=["<Figure runtime imbalance: solve"])

md("`fold.Timeline(tr, op, width).Plot()` and `fold.GPUUtilisation(tr).Plot()` — many timelines "
   "folded into one strip (Weber 6.1), above the streams themselves when there are at most 32; "
   "for `fold.Idle` the idle pixels are yellow.")
code('''foldRun := synth.Generate(synth.HybridGPUConfig(2, 3, 6))
fold.Timeline(foldRun, fold.Idle, 800, fold.WithDevice(1)).Plot()''', expect=["<Figure folded timeline: select_idle of 3 streams"])
code('''fold.GPUUtilisation(foldRun).Plot()''', expect=["<Figure GPU utilisation: 2 device(s)"])

md("`profile.Boxes(tr).Plot()`, `profile.Compare(a, b).Plot()` (with `plotting.GroupedBoxes`) — "
   "Brendel's box-plot profile: per function one box per series (process, group or run), "
   "thicker the more calls it has, the call counts on the left (Figs. 10-13).")
code('''profile.Boxes(runB, profile.WithPerProcess(), profile.WithTop(4)).Plot()''', expect=["<Figure exclusive time per call (top 4 of"])
code('''profile.Compare(runA, runB, profile.WithTop(6)).Plot()''', expect=["<Figure generated A, 8 ranks vs generated B, 8 ranks: exclusive time per call"])

md("`profile.CallMatrix(tr).Plot()` (with `plotting.BoxSquares`) — Brendel's call matrix: callers "
   "as rows, callees as columns, each cell a square of concentric rings for the 2nd, 25th, 50th, "
   "75th and 98th percentile (areas 1:3:6:3:1), green to red, one slice per process clockwise "
   "from the top-left corner (Figs. 14-19).")
code('''profile.CallMatrix(runB, profile.WithCaller("solve"), profile.WithPerProcess()).Plot()''', expect=["<Figure call matrix, exclusive time per call"])

md("`profile.CommMatrix(tr).Plot()` and `profile.MessageHistogram(tr, bins).Plot()` — pipit's "
   "communication matrix (bytes from sender to receiver) and message size histogram.")
code('''profile.CommMatrix(runB).Plot()''', expect=["<Figure"])
code('''profile.MessageHistogram(runB, 8).Plot()''', expect=["<Figure"])

md("## SVG on request\n\n`fig.SVGDisplay()` shows any figure as SVG (vector graphics, sharp at any zoom) "
   "instead of PNG; an SVG of many bars or cells is large, so PNG is the default.")
code('''plotting.Bars("SVG display", []string{"a", "b"}, []float64{2, 3}, plotting.WithSize(320, 100)).SVGDisplay()''',
     expect=["<svg", "<Figure SVG display"])

write("notebooks/gallery.ipynb")
