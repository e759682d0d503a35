package profile

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// analysis is one engine run with the options that shaped it.
type analysis struct {
	tr     *trace.Trace
	o      options
	series []string
	res    *result
}

// analyze runs the engine over the options' processes and series, or takes the result of the
// previous run over the same processes and series (Boxes then CallMatrix of one trace, as a
// notebook does, run the engine once: it computes both).
func analyze(fn string, tr *trace.Trace, o options) *analysis {
	procs, series, names := o.seriesOf(fn)
	key := cacheKey{tr: tr, closure: o.closure, procs: procs, series: series}
	if res := lastResult(key); res != nil {
		return &analysis{tr: tr, o: o, series: names, res: res}
	}
	size := make([]int, len(names))
	var events int64
	for i, p := range procs {
		size[series[i]]++
		events += int64(len(p.Kind))
	}
	single := true
	for _, n := range size {
		single = single && n <= 1
	}
	e := &engine{fn: fn, procs: procs, series: series, nseries: len(names), nreg: len(tr.Defs.Regions),
		single: single, closure: o.closure, events: events}
	var res *result
	switch {
	case len(procs) == 0:
		res = newResult(len(names), nil, nil)
	case part.Remote(tr): // the events are on the ranks of a job: every pass runs there
		e.tr = tr
		res = e.runRemote()
	default:
		for _, p := range procs {
			p.NeedEvents(fn) // a skeleton without an executor
		}
		res = e.run()
		res.events = events
	}
	remember(key, res)
	return &analysis{tr: tr, o: o, series: names, res: res}
}

// cacheKey identifies an engine run: the trace, the processes, their series and the closure.
type cacheKey struct {
	tr      *trace.Trace
	closure bool
	procs   []*trace.Process
	series  []int
}

func (k cacheKey) equal(o cacheKey) bool {
	return k.tr == o.tr && k.closure == o.closure && slices.Equal(k.procs, o.procs) && slices.Equal(k.series, o.series)
}

// cache is the last engine run (one entry: its results are small, the traces large).
var cache struct {
	sync.Mutex
	key cacheKey
	res *result
}

func lastResult(k cacheKey) *result {
	cache.Lock()
	defer cache.Unlock()
	if cache.res != nil && cache.key.equal(k) {
		return cache.res
	}
	return nil
}

// forget empties the cache (for tests and benchmarks that measure a cold run).
func forget() { remember(cacheKey{}, nil) }

func remember(k cacheKey, res *result) {
	cache.Lock()
	defer cache.Unlock()
	cache.key, cache.res = k, res
}

// BoxProfile is the result of Boxes: per function and series the distributions of exclusive and
// inclusive time.
type BoxProfile struct {
	Series []string // "all", the process labels (WithPerProcess) or the group names (WithGroups)
	Rows   []BoxRow // functions ranked by the WithSortBy measure of the metric, then series in order
	Metric string   // "exclusive" or "inclusive": what the plot shows and the ranking uses

	Functions int   // functions called in the analysed processes, before WithTop and WithFunctions
	Events    int64 // events read
	Repairs   trace.CallRepairs

	a    *analysis
	kept int // functions after WithFunctions, before WithTop
}

// BoxRow is one function in one series.
type BoxRow struct {
	Function  string
	Region    int32
	Series    int // index into BoxProfile.Series
	Exclusive Dist
	Inclusive Dist
}

// Dist returns the row's distribution of metric m (mExc or mInc).
func (r *BoxRow) dist(m int) Dist {
	if m == mInc {
		return r.Inclusive
	}
	return r.Exclusive
}

// Boxes computes the box-plot profile (Brendel 3.1): per function the count, sum, minimum,
// maximum and 2nd, 25th, 50th, 75th and 98th percentiles of exclusive and inclusive time over
// its invocations (every invocation is a measurement, recursive ones included), for all
// processes together, per process (WithPerProcess) or per group (WithGroups). Options: WithExclusive /
// WithInclusive (what is plotted and ranked), WithTop, WithSortBy, WithFunctions, WithProcesses.
func Boxes(tr *trace.Trace, opts ...Option) *BoxProfile {
	const fn = "profile.Boxes"
	defer work.RecoverAs(fn)
	o := collect(fn, tr, opts)
	return boxesOf(analyze(fn, tr, o))
}

// boxesOf builds the profile view of an analysis.
func boxesOf(a *analysis) *BoxProfile {
	res, o := a.res, a.o
	b := &BoxProfile{Series: a.series, Metric: metricName(o.metric), Functions: len(res.funcs),
		Events: res.events, Repairs: res.repairs, a: a}
	keep := nameFilter(a.tr, o.funcs)
	var fs []int
	for f, r := range res.funcs {
		if keep(r) {
			fs = append(fs, f)
		}
	}
	score := func(f int) float64 {
		ds := make([]Dist, len(a.series))
		for s := range a.series {
			ds[s] = res.fun[s][f][o.metric]
		}
		return measureOf(o.measure, ds)
	}
	rankBy(fs, score, func(f int) string { return a.tr.RegionName(res.funcs[f]) })
	b.kept = len(fs)
	if o.top > 0 && len(fs) > o.top {
		fs = fs[:o.top]
	}
	for _, f := range fs {
		for s := range a.series {
			d := res.fun[s][f]
			if d[0].Count == 0 {
				continue
			}
			b.Rows = append(b.Rows, BoxRow{Function: a.tr.RegionName(res.funcs[f]), Region: res.funcs[f],
				Series: s, Exclusive: d[mExc], Inclusive: d[mInc]})
		}
	}
	return b
}

func metricName(m int) string {
	if m == mInc {
		return "inclusive"
	}
	return "exclusive"
}

// nameFilter returns a test of region ids against names (all pass when names is empty).
func nameFilter(tr *trace.Trace, names []string) func(int32) bool {
	if len(names) == 0 {
		return func(int32) bool { return true }
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	return func(r int32) bool { return want[tr.RegionName(r)] }
}

// measureOf is the ranking score of a function over its series' distributions.
func measureOf(m string, ds []Dist) float64 {
	one := func(d Dist) float64 {
		switch m {
		case "count":
			return float64(d.Count)
		case "mean":
			return d.Mean()
		case "min":
			return float64(d.Min)
		case "p2":
			return d.P2
		case "p25":
			return d.P25
		case "p50":
			return d.P50
		case "p75":
			return d.P75
		case "p98":
			return d.P98
		case "max":
			return float64(d.Max)
		}
		return float64(d.Sum)
	}
	add := m == "sum" || m == "count"
	v := math.Inf(-1)
	if add {
		v = 0
	}
	for _, d := range ds {
		if d.Count == 0 {
			continue
		}
		if add {
			v += one(d)
		} else {
			v = max(v, one(d))
		}
	}
	return v
}

// rankBy sorts ids by score (largest first), then by name, then by id.
func rankBy(ids []int, score func(int) float64, name func(int) string) {
	sc := make(map[int]float64, len(ids))
	for _, i := range ids {
		sc[i] = score(i)
	}
	slices.SortStableFunc(ids, func(x, y int) int {
		if c := cmp.Compare(sc[y], sc[x]); c != 0 {
			return c
		}
		if c := strings.Compare(name(x), name(y)); c != 0 {
			return c
		}
		return x - y
	})
}

// Row returns the row of function fn in series s (index into Series), and whether there is one.
func (b *BoxProfile) Row(fn string, s int) (BoxRow, bool) {
	for _, r := range b.Rows {
		if r.Function == fn && r.Series == s {
			return r, true
		}
	}
	return BoxRow{}, false
}

// seriesColumn is the name of the series column: "Process", "Group", or "" for one series.
func seriesColumn(o options) string {
	switch {
	case o.perProcess:
		return trace.ColProcess
	case o.groups != nil:
		return "Group"
	}
	return ""
}

// distColumns returns the columns of a list of distributions under a prefix ("Exclusive"): the
// sum ("Exclusive (ns)"), min ("Exclusive Min (ns)"), the percentiles ("Exclusive P50 (ns)", as
// WithSortBy names them) and max, in ns.
func distColumns(prefix string, ds []Dist) []arrowio.Column {
	n := len(ds)
	sum, mn, mx := make([]int64, n), make([]int64, n), make([]int64, n)
	var ps [5][]float64
	for k := range ps {
		ps[k] = make([]float64, n)
	}
	for i, d := range ds {
		sum[i], mn[i], mx[i] = d.Sum, d.Min, d.Max
		for k, v := range d.Percentiles() {
			ps[k][i] = v
		}
	}
	cols := []arrowio.Column{arrowio.Int64(prefix+" (ns)", sum).WithUnit("ns"), arrowio.Int64(prefix+" Min (ns)", mn).WithUnit("ns")}
	for k, p := range boxPercentiles {
		cols = append(cols, arrowio.Float64(fmt.Sprintf("%s P%d (ns)", prefix, p), ps[k]).WithUnit("ns"))
	}
	return append(cols, arrowio.Int64(prefix+" Max (ns)", mx).WithUnit("ns"))
}

// Table returns one row per function (and series): Name, the series column (Process or Group,
// when there are several series), Count, then for exclusive time "Exclusive (ns)" (the sum),
// "Exclusive Min (ns)", "Exclusive P2 (ns)" ... "Exclusive P98 (ns)", "Exclusive Max (ns)", and
// the same for inclusive time ("Inclusive ... (ns)"), in the style of docs/surface.md (pipit's
// flat profile calls the sums time.exc and time.inc).
func (b *BoxProfile) Table() *arrowio.Table {
	n := len(b.Rows)
	name, ser := make([]string, n), make([]string, n)
	count := make([]int64, n)
	exc, inc := make([]Dist, n), make([]Dist, n)
	for i, r := range b.Rows {
		name[i], ser[i], count[i] = r.Function, b.Series[r.Series], r.Exclusive.Count
		exc[i], inc[i] = r.Exclusive, r.Inclusive
	}
	cols := []arrowio.Column{arrowio.Dict("Name", name)}
	if c := seriesColumn(b.a.o); c != "" {
		cols = append(cols, arrowio.Dict(c, ser))
	}
	cols = append(cols, arrowio.Int64("Count", count))
	cols = append(cols, distColumns("Exclusive", exc)...)
	cols = append(cols, distColumns("Inclusive", inc)...)
	return arrowio.MustTable(cols...)
}

// plotFunctions is the most functions a plot shows when WithTop does not say.
const plotFunctions = 20

// Plot draws the profile as horizontal box plots per function, one colour per series and box
// thickness by invocation count, with the invocation counts on the left (Brendel Fig. 10-13):
// the functions ranked first (at most 20 unless WithTop says otherwise).
func (b *BoxProfile) Plot() *plotting.Figure {
	rows := b.plotRows()
	title := fmt.Sprintf("%s time per call", b.Metric)
	if len(rows) < b.kept {
		title += fmt.Sprintf(" (top %d of %d functions by %s)", len(rows), b.kept, b.a.o.measure)
	}
	unit := scaleBoxes(rows)
	return plotting.GroupedBoxes(title, b.Series, rows, plotting.WithXLabel(b.Metric+" time per call ("+unit+")"))
}

// durationUnit returns the unit that shows durations up to maxNs ns with 1 to 1000 of it: its
// size in ns and its name.
func durationUnit(maxNs float64) (float64, string) {
	switch {
	case maxNs >= 1e9:
		return 1e9, "s"
	case maxNs >= 1e6:
		return 1e6, "ms"
	case maxNs >= 1e3:
		return 1e3, "µs"
	}
	return 1, "ns"
}

// scaleBoxes converts the boxes' ns to the unit that suits the largest and returns its name.
func scaleBoxes(rows []plotting.BoxRow) string {
	top := 0.0
	for _, r := range rows {
		for _, x := range r.Boxes {
			top = max(top, x.P98)
		}
	}
	div, unit := durationUnit(top)
	for _, r := range rows {
		for i := range r.Boxes {
			x := &r.Boxes[i]
			x.P2, x.P25, x.P50, x.P75, x.P98 = x.P2/div, x.P25/div, x.P50/div, x.P75/div, x.P98/div
		}
	}
	return unit
}

// plotRows groups the rows by function for plotting.GroupedBoxes: the first 20 functions, or
// as many as WithTop keeps.
func (b *BoxProfile) plotRows() []plotting.BoxRow {
	var out []plotting.BoxRow
	limit := plotFunctions
	if b.a.o.top > 0 {
		limit = b.a.o.top
	}
	for i, r := range b.Rows {
		if i == 0 || b.Rows[i-1].Function != r.Function {
			if len(out) == limit {
				break
			}
			out = append(out, plotting.BoxRow{Label: r.Function})
		}
		d := r.dist(b.a.o.metric)
		row := &out[len(out)-1]
		row.Boxes = append(row.Boxes, plotting.SeriesBox{Series: r.Series, Count: d.Count,
			P2: d.P2, P25: d.P25, P50: d.P50, P75: d.P75, P98: d.P98})
	}
	return out
}

// Headline is the one-line summary of the profile.
func (b *BoxProfile) Headline() string {
	if len(b.Rows) == 0 {
		return "no calls in the analysed processes"
	}
	top := b.Rows[0]
	d := top.dist(b.a.o.metric)
	s := fmt.Sprintf("%d functions, %s events; first by %s %s time: %s (%s calls, median %s, 98th percentile %s)",
		b.Functions, arrowio.FormatCount(b.Events), b.a.o.measure, b.Metric, top.Function,
		arrowio.FormatCount(d.Count), fmtNs(d.P50), fmtNs(d.P98))
	if len(b.Series) > 1 {
		s += fmt.Sprintf(" in %s", b.Series[top.Series])
	}
	if !b.Repairs.IsZero() {
		s += "; call stacks repaired: " + b.Repairs.String()
	}
	return s
}

func fmtNs(v float64) string { return arrowio.FormatDuration(int64(math.Round(v))) }

// String returns the headline and the table as text.
func (b *BoxProfile) String() string { return b.Headline() + "\n" + b.Table().String() }

// MIMEBundle shows the profile as every method's result shows (display.Compose): the
// headline, the first rows of Table and Plot.
func (b *BoxProfile) MIMEBundle() map[string]any {
	return bundle(b.Headline(), b.Table(), b.Plot())
}

// bundle is the cell output of a view, through display.Composition: a headline, the first
// headRows rows of its table with a note on how many it has, and a figure (nil for none).
func bundle(headline string, t *arrowio.Table, fig *plotting.Figure) map[string]any {
	return display.Composition{Headline: headline, Table: t.Head(headRows), Note: headNote(t.NumRows(), "rows", "Table()"),
		Figures: []display.MIMEBundler{fig}}.MIMEBundle()
}

// headNote is the note under a table that shows the first headRows of n rows: "first 20 of
// 1,234 rows; Table() has them all", "" when it shows them all.
func headNote(n int, what, where string) string {
	if n <= headRows {
		return ""
	}
	return fmt.Sprintf("first %d of %s %s; %s has them all", headRows, arrowio.FormatCount(int64(n)), what, where)
}
