package disttest

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// The structural methods: clustering (groups, lattice, matrices, the
// coarsened groups and the baselines), MSA (Stage 1 on the job, the merge
// of the representatives here), the CCG (built on the job, summaries here)
// and the comparison of two runs.
func init() {
	Add(
		Case{Name: "cluster.Structural", Run: func(tr *trace.Trace) (string, error) { return structureRun(clusterAll(tr, cluster.Pairs)) }},
		Case{Name: "cluster.Structural(Funcs)", Run: func(tr *trace.Trace) (string, error) { return structureRun(clusterAll(tr, cluster.Funcs)) }},
		Case{Name: "cluster.Structural(PairsPlus)", Run: func(tr *trace.Trace) (string, error) {
			return structureRun(clusterAll(tr, cluster.PairsPlus))
		}},
		Case{Name: "cluster.Structural(WithProcesses)", Run: func(tr *trace.Trace) (string, error) {
			return structureRun(func(b *strings.Builder) {
				ps := structureOdd(tr)
				c := cluster.Structural(tr, cluster.WithProcesses(ps...))
				structureTables(b, "clustering", c.Table(), c.GroupTable(), c.Lattice().Table(), c.Matrix().Table(), c.Coarsen(0.5).Table())
			})
		}},
		Case{Name: "ccg.BuildTrace(Lossless)", Run: func(tr *trace.Trace) (string, error) { return structureRun(ccgAll(tr, ccg.Lossless)) }},
		Case{Name: "ccg.BuildTrace(lossy, a shard per location)", Run: func(tr *trace.Trace) (string, error) {
			return structureRun(ccgAll(tr, ccg.Bounds{Abs: 2000, Rel: 0.05}, ccg.WithShards(tr.NumProcesses())))
		}},
		Case{Name: "compare.Runs", Run2: func(a, b *trace.Trace) (string, error) { return structureRun(compareAll(a, b)) }},
		Case{Name: "msa.Group", Run: func(tr *trace.Trace) (string, error) { return structureRun(msaAll(tr)) }},
	)
}

// structureRun runs f, which renders a result, and returns its panic as an
// error.
func structureRun(f func(b *strings.Builder)) (s string, err error) {
	var b strings.Builder
	err = work.Try(func() { f(&b) })
	return b.String(), err
}

// structureTables renders tables in full: per table its title, its columns
// with their types and units, and every cell.
func structureTables(b *strings.Builder, title string, ts ...*arrowio.Table) {
	for k, t := range ts {
		fmt.Fprintf(b, "== %s [%d]: %d x %d\n", title, k, t.NumRows(), t.NumCols())
		rec := t.Record()
		for i, f := range rec.Schema().Fields() {
			fmt.Fprintf(b, "%s %s %v", f.Name, f.Type, f.Metadata)
			if i+1 < len(rec.Schema().Fields()) {
				b.WriteString(" | ")
			}
		}
		b.WriteByte('\n')
		for r := range int(rec.NumRows()) {
			for c := range int(rec.NumCols()) {
				if c > 0 {
					b.WriteString(" | ")
				}
				b.WriteString(rec.Column(c).ValueStr(r))
			}
			b.WriteByte('\n')
		}
	}
}

// structureText renders a value's text and, for a panic, its message.
func structureText(b *strings.Builder, title string, f func() string) {
	var s string
	if err := work.Try(func() { s = f() }); err != nil {
		s = "panic: " + err.Error()
	}
	fmt.Fprintf(b, "== %s\n%s\n", title, s)
}

// structureTable renders the table f returns, or its panic.
func structureTable(b *strings.Builder, title string, f func() *arrowio.Table) {
	var t *arrowio.Table
	if err := work.Try(func() { t = f() }); err != nil {
		fmt.Fprintf(b, "== %s\npanic: %v\n", title, err)
		return
	}
	structureTables(b, title, t)
}

// structureFigure renders a figure as SVG and writes its size and digest
// (the figure of a distributed result must be drawn from the same data).
func structureFigure(b *strings.Builder, title string, f func() *plotting.Figure) {
	var svg []byte
	err := work.Try(func() {
		var err error
		if svg, err = f().SVG(); err != nil {
			work.FailErr(title, err)
		}
	})
	if err != nil {
		fmt.Fprintf(b, "== figure %s\npanic: %v\n", title, err)
		return
	}
	fmt.Fprintf(b, "== figure %s: %d bytes of SVG, sha256 %x\n", title, len(svg), sha256.Sum256(svg))
}

// structureBundle writes every entry of a display bundle: text in full,
// other data by size and digest.
func structureBundle(b *strings.Builder, title string, f func() map[string]any) {
	var m map[string]any
	if err := work.Try(func() { m = f() }); err != nil {
		fmt.Fprintf(b, "== bundle %s\npanic: %v\n", title, err)
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			fmt.Fprintf(b, "== bundle %s %s\n%s\n", title, k, v)
		case []byte:
			fmt.Fprintf(b, "== bundle %s %s: %d bytes, sha256 %x\n", title, k, len(v), sha256.Sum256(v))
		default:
			fmt.Fprintf(b, "== bundle %s %s: %v\n", title, k, v)
		}
	}
}

func structureLabels(ps []*trace.Process) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Label()
	}
	return strings.Join(s, ", ")
}

func clusterAll(tr *trace.Trace, m cluster.Measure) func(b *strings.Builder) {
	return func(b *strings.Builder) {
		c := cluster.Structural(tr, cluster.WithMeasure(m))
		structureText(b, "String", c.String)
		structureTables(b, "clustering", c.Table(), c.GroupTable(), c.HashClustering().Table())
		for i := range c.NumGroups() {
			fmt.Fprintf(b, "G%d: %s | %s\n", i, c.GroupLabel(i), structureLabels(c.Group(i)))
		}
		structureText(b, "Fallback", func() string { return fmt.Sprint(c.Fallback()) })
		structureTable(b, "Lattice", func() *arrowio.Table { return c.Lattice().Table() })
		structureText(b, "Lattice.String", func() string { return c.Lattice().String() })
		structureTable(b, "Matrix", func() *arrowio.Table { return c.Matrix().Table() })
		structureText(b, "Matrix.String", func() string { return c.Matrix().String() })
		structureTable(b, "Subsumption", func() *arrowio.Table { return c.Subsumption().Table() })
		structureBundle(b, "Clustering", c.MIMEBundle)
		structureFigure(b, "Lattice", func() *plotting.Figure { return c.Lattice().Plot() })
		structureFigure(b, "Matrix", func() *plotting.Figure { return c.Matrix().Plot() })
		structureFigure(b, "Subsumption", func() *plotting.Figure { return c.Subsumption().Plot() })
		for _, sigma := range []float64{0, 0.5, cluster.DefaultSigma, 1} {
			var co *cluster.Coarsened
			structureText(b, fmt.Sprint("Coarsen ", sigma), func() string { co = cluster.Structural(tr, cluster.WithMeasure(m)).Coarsen(sigma); return co.String() })
			if co == nil {
				continue
			}
			structureTables(b, "Coarsen", co.Table())
			structureBundle(b, "Coarsen", co.MIMEBundle)
			for i := range co.Len() {
				p, q := co.Pair(i)
				x, y := co.TimePair(i)
				fmt.Fprintf(b, "M%d: %s | pair %v %v | time %v %v\n", i, structureLabels(co.Group(i)), structureLabel(p), structureLabel(q), structureLabel(x), structureLabel(y))
			}
		}
		n := c.NumProcesses()
		structureTable(b, "KMedoids", func() *arrowio.Table { return cluster.KMedoids(c, 1, min(n, 3)).Table() })
		structureText(b, "KMedoids.String", func() string { return cluster.KMedoids(c, 1, min(n, 3)).String() })
		structureTable(b, "DBSCAN", func() *arrowio.Table { return cluster.DBSCAN(c, 0.3, 2).Table() })
		structureText(b, "DBSCAN.String", func() string { return cluster.DBSCAN(c, 0.3, 2).String() })
		structureBundle(b, "DBSCAN", func() map[string]any { return cluster.DBSCAN(c, 0.3, 2).MIMEBundle() })
		structureText(b, "DBSCAN.Cluster(0)", func() string { return structureLabels(cluster.DBSCAN(c, 0.3, 1).Cluster(0)) })
	}
}

// oddProcesses returns every other process of tr, from the second (the
// first when it has one).
func structureOdd(tr *trace.Trace) []*trace.Process {
	var out []*trace.Process
	for i, p := range tr.Processes() {
		if i%2 == 1 || tr.NumProcesses() == 1 {
			out = append(out, p)
		}
	}
	return out
}

func structureLabel(p *trace.Process) string {
	if p == nil {
		return "-"
	}
	return p.Label()
}

// msaAll merges every process of tr and each structural group (as Group
// takes them) and renders every view but the stage times (wall clock).
func msaAll(tr *trace.Trace) func(b *strings.Builder) {
	return func(b *strings.Builder) {
		groups := [][]*trace.Process{tr.Processes()}
		c := cluster.Structural(tr)
		for i := range c.NumGroups() {
			groups = append(groups, c.Group(i))
		}
		for k, g := range groups {
			m := msa.Group(g)
			fmt.Fprintf(b, "== group %d: %s\n", k, structureLabels(m.Processes()))
			structureText(b, "String", m.String)
			structureTables(b, "tree", m.Table(), m.Divergences())
			structureBundle(b, "tree", m.MIMEBundle)
			structureFigure(b, "tree", m.Plot)
			structureFigure(b, "tree from 1", func() *plotting.Figure { return m.PlotFrom(min(1, m.NumNodes()-1), 2) })
			for v := range m.NumNodes() {
				st := m.Stats(v)
				regions, members := m.Alternatives(v)
				fmt.Fprintf(b, "node %d: parent %d depth %d %s %s count %d members %v path %q stats %+v participants %s alternatives %q %v\n",
					v, m.Parent(v), m.Depth(v), m.Region(v), m.State(v), m.Count(v), m.Members(v), m.CallPath(v), st,
					structureLabels(m.Participants(v)), regions, members)
				if len(m.Children(v)) > 0 {
					structureTable(b, fmt.Sprint("Block ", v), func() *arrowio.Table { return m.Block(v) })
					if v < 3 {
						structureFigure(b, fmt.Sprint("Block ", v), func() *plotting.Figure { return m.PlotBlock(v) })
					}
				}
			}
			for _, p := range m.Processes() {
				nodes, calls := m.Path(p)
				fmt.Fprintf(b, "path %s: %v %v\n", p.Label(), nodes, calls)
			}
		}
	}
}

// ccgAll builds the graph of tr under b and renders its views: the graph
// and per-location tables, statistics, summaries over the whole run and
// its middle third, what runs at three times, the timeline, the matched
// messages and collectives, and every location's events.
func ccgAll(tr *trace.Trace, bd ccg.Bounds, opts ...ccg.Option) func(b *strings.Builder) {
	return func(b *strings.Builder) {
		g := ccg.BuildTrace(tr, bd, opts...)
		ccgViews(b, g)
		if tr.NumProcesses() > 1 && bd == ccg.Lossless { // BuildProcesses takes no options: a lossy graph of its shards depends on the split
			ps := tr.Processes()
			h := ccg.BuildProcesses(bd, ps[1:]...)
			b.WriteString("== BuildProcesses(1:)\n")
			ccgViews(b, h)
		}
		b.WriteString("== Build(0)\n")
		ccgViews(b, ccg.Build(tr.Process(0), bd, opts...))
	}
}

func ccgViews(b *strings.Builder, g *ccg.Graph) {
	structureText(b, "String", g.String)
	fmt.Fprintf(b, "Stats %+v\n", g.Stats())
	end := g.End()
	structureTables(b, "graph", g.Table(), g.Summary(0, end).Table(), g.Summary(end/3, 2*end/3).Table(), g.Timeline(64).Table())
	structureText(b, "Summary", func() string { return g.Summary(0, end).String() })
	for _, t := range []int64{0, end / 2, end - 1} {
		structureTables(b, fmt.Sprint("At ", t), g.At(t))
	}
	fmt.Fprintf(b, "MessageOrder %+v\n", g.MessageOrder())
	structureTable(b, "Messages", func() *arrowio.Table { return ccg.Messages(g).Table() })
	structureTable(b, "Collectives", func() *arrowio.Table { return ccg.Collectives(g) })
	structureTable(b, "Events", g.Events)
	structureBundle(b, "Summary", g.Summary(0, end).MIMEBundle)
	structureFigure(b, "Graph", g.Plot)
	structureFigure(b, "Timeline", func() *plotting.Figure { return g.Timeline(300).Plot() })
	r := g.Recompress(ccg.Bounds{Abs: 5000, Rel: 0.1}, ccg.WithShards(1))
	fmt.Fprintf(b, "Recompress Stats %+v\n", r.Stats())
	structureTables(b, "Recompress", r.Table())
	for loc := range g.NumLocations() {
		structureTables(b, fmt.Sprint("Loc ", loc), g.Loc(loc).Table(), g.Loc(loc).Summary(0, end).Table())
		fmt.Fprintf(b, "Loc %d Stats %+v\n", loc, g.Loc(loc).Stats())
	}
}

// compareAll compares a and b and renders every table, the headline and
// the groups' processes.
func compareAll(x, y *trace.Trace) func(b *strings.Builder) {
	return func(b *strings.Builder) {
		r := compare.Runs(x, y)
		structureText(b, "String", r.String)
		structureTables(b, "comparison", r.Groups(), r.Functions(), r.Tree(), r.Comm(), r.Where())
		for i := range r.NumGroups() {
			pa, pb := r.Group(i)
			fmt.Fprintf(b, "group %d %v: %s | %s\n", i, r.State(i), structureLabels(pa), structureLabels(pb))
		}
		structureTables(b, "by rank", compare.Runs(x, y, compare.WithMatchByRank()).Functions())
		some := compare.Runs(x, y, compare.WithProcesses(structureOdd(x)...))
		structureTables(b, "some of A", some.Groups(), some.Functions(), some.Where())
		structureText(b, "Headline", r.Headline)
		structureFigure(b, "comparison", r.Plot)
	}
}
