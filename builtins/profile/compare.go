package profile

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Comparison is the result of Compare: per function (and group) the distributions of the
// metric in run A and run B and how they changed.
type Comparison struct {
	Runs   [2]string // the names of run A and run B (their trace.Trace.Name, see runNames)
	Groups []string  // the group pairs' names (CompareGroups); nil for whole runs
	Rows   []CompareRow
	Metric string // "exclusive" or "inclusive"

	a, b *analysis
	o    options
}

// CompareRow is one function (in one group pair) of a Comparison.
type CompareRow struct {
	Function string
	Group    int     // index into Comparison.Groups; 0 for whole runs
	A, B     Dist    // the metric's distribution in each run (Count 0: not called there)
	Change   int64   // B.Sum - A.Sum, ns: time gained (< 0) or lost (> 0)
	Verdict  Verdict // what the distributions' overlap says
}

// Verdict is Compare's hint whether a function's change is more than noise.
type Verdict int8

// Verdicts. Slower and Faster need at least MinVerdictCalls calls in each run, and then mean
// that the middle halves of the two distributions (25th to 75th percentile) do not overlap; see
// MinVerdictCalls for how often that happens by chance. With fewer calls the verdict is
// FewCalls, whatever the percentiles say.
const (
	Similar  Verdict = iota // the 25-75 ranges overlap
	Slower                  // B's 25th percentile is above A's 75th
	Faster                  // B's 75th percentile is below A's 25th
	OnlyA                   // called in A only
	OnlyB                   // called in B only
	FewCalls                // called in both, fewer than MinVerdictCalls times in one of them
)

// MinVerdictCalls is the fewest calls each run needs for a Slower or Faster verdict. The rule
// is a significance rule on what a Dist holds (counts and percentiles, mergeable across
// machines; no raw samples): when both runs draw their calls from one continuous
// distribution, their middle halves come out disjoint by chance in 100% of comparisons with
// one call each, 57% with two, 21% with five, 3.5% with ten, 0.18% with 20 each and less with
// more calls on either side (0.03% with 20 and 40), measured over 200,000 simulated pairs per
// size and checked by TestCompareVerdictFalseAlarmRate. So a table of 50 functions of which
// none changed shows a false verdict in fewer than one comparison in ten. Disjoint middle
// halves are an effect-size rule as well: B's slower three quarters of the calls all lie above
// A's faster three quarters (or the other way round).
const MinVerdictCalls = 20

var verdictNames = [...]string{"", "slower", "faster", "only in A", "only in B", "too few calls"}

// String returns "slower", "faster", "only in A", "only in B", "too few calls", or "" for
// Similar.
func (v Verdict) String() string { return verdictNames[v] }

func verdict(a, b Dist) Verdict {
	switch {
	case a.Count == 0:
		return OnlyB
	case b.Count == 0:
		return OnlyA
	case a.Count < MinVerdictCalls || b.Count < MinVerdictCalls:
		return FewCalls
	case b.P25 > a.P75:
		return Slower
	case b.P75 < a.P25:
		return Faster
	}
	return Similar
}

// Compare compares two runs function by function (matched by name): the change of the number
// of calls and of each percentile of the metric (exclusive time by default; WithInclusive), and a
// hint whether the change is more than noise (Verdict), ranked by the time gained or lost (the
// change of the summed time, largest absolute first). Options: WithExclusive, WithInclusive, WithTop,
// WithFunctions. The plot pairs the two runs' box plots per function.
func Compare(a, b *trace.Trace, opts ...Option) *Comparison {
	const fn = "profile.Compare"
	defer work.RecoverAs(fn)
	if a == nil || b == nil {
		fail(fn, "a trace is nil")
	}
	return compare(fn, a, b, nil, nil, opts)
}

// CompareGroups compares two runs group by group: ga[i] (processes of a) is compared with
// gb[i] (processes of b), e.g. the matching structural groups of cluster.Structural of the two
// runs. Rows are per group pair and function.
func CompareGroups(a, b *trace.Trace, ga, gb [][]*trace.Process, opts ...Option) *Comparison {
	const fn = "profile.CompareGroups"
	defer work.RecoverAs(fn)
	if a == nil || b == nil {
		fail(fn, "a trace is nil")
	}
	if len(ga) != len(gb) || len(ga) == 0 {
		fail(fn, "%d groups of a and %d of b: need the same number, at least one", len(ga), len(gb))
	}
	return compare(fn, a, b, ga, gb, opts)
}

func compare(fn string, a, b *trace.Trace, ga, gb [][]*trace.Process, opts []Option) *Comparison {
	o := parse(fn, opts)
	if o.procs != nil || o.perProcess || o.groups != nil || o.closure || len(o.callers) > 0 {
		fail(fn, "WithProcesses, WithPerProcess, WithGroups, WithNamedGroups, WithClosure and WithCaller do not apply; CompareGroups compares parts of the runs")
	}
	for _, name := range o.funcs {
		if a.RegionID(name) < 0 && b.RegionID(name) < 0 {
			fail(fn, "no function %q in either run", name)
		}
	}
	oa, ob := o, o
	oa.bind(fn, a)
	ob.bind(fn, b)
	if ga != nil {
		oa.groups, ob.groups = ga, gb
	}
	c := &Comparison{Runs: runNames(a, b), Metric: metricName(oa.metric), o: oa}
	c.a, c.b = analyze(fn, a, oa), analyze(fn, b, ob)
	if ga != nil {
		c.Groups = c.a.series
	}
	nseries := len(c.a.series)
	keep := map[string]bool{}
	for _, n := range oa.funcs {
		keep[n] = true
	}
	for s := range nseries {
		byName := map[string]*CompareRow{}
		var rows []*CompareRow
		side := func(an *analysis, isB bool) {
			for f, r := range an.res.funcs {
				d := an.res.fun[s][f][oa.metric]
				name := an.tr.RegionName(r)
				if d.Count == 0 || len(keep) > 0 && !keep[name] {
					continue
				}
				row := byName[name]
				if row == nil {
					row = &CompareRow{Function: name, Group: s, A: summarize(nil), B: summarize(nil)}
					byName[name] = row
					rows = append(rows, row)
				}
				if isB {
					row.B = d
				} else {
					row.A = d
				}
			}
		}
		side(c.a, false)
		side(c.b, true)
		for _, r := range rows {
			r.Change = r.B.Sum - r.A.Sum
			r.Verdict = verdict(r.A, r.B)
		}
		slices.SortStableFunc(rows, func(x, y *CompareRow) int {
			if c := cmp.Compare(abs(y.Change), abs(x.Change)); c != 0 {
				return c
			}
			return cmp.Compare(x.Function, y.Function)
		})
		if oa.top > 0 && len(rows) > oa.top {
			rows = rows[:oa.top]
		}
		for _, r := range rows {
			c.Rows = append(c.Rows, *r)
		}
	}
	return c
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// runNames names the runs by their Names (trace.Trace.Name: the directory of an OTF2 archive,
// a name given to trace.Open, ...); "A" and "B" for runs nothing names, " (A)" and " (B)" added
// to equal names.
func runNames(a, b *trace.Trace) [2]string {
	na, nb := labels.Pair(a, b, "A", "B")
	return [2]string{na, nb}
}

// Row returns the row of function fn (in group g), and whether there is one.
func (c *Comparison) Row(fn string, g int) (CompareRow, bool) {
	for _, r := range c.Rows {
		if r.Function == fn && r.Group == g {
			return r, true
		}
	}
	return CompareRow{}, false
}

// Table returns one row per function (and group pair): Name, Group (with CompareGroups),
// "Count A", "Count B", "Count Change", then for the metric ("Exclusive" or "Inclusive") the
// summed time of A, of B and its change ("Exclusive A (ns)", "Exclusive B (ns)", "Exclusive
// Change (ns)"), each percentile's A, B and change ("Exclusive P50 A (ns)" ...), in ns, and
// "Verdict" ("slower", "faster", "only in A", "only in B" or "").
func (c *Comparison) Table() *arrowio.Table {
	n := len(c.Rows)
	name, group, verdicts := make([]string, n), make([]string, n), make([]string, n)
	ca, cb, cd := make([]int64, n), make([]int64, n), make([]int64, n)
	sa, sb, sd := make([]int64, n), make([]int64, n), make([]int64, n)
	var pa, pb, pd [5][]float64
	for k := range 5 {
		pa[k], pb[k], pd[k] = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	for i, r := range c.Rows {
		name[i], verdicts[i] = r.Function, r.Verdict.String()
		if c.Groups != nil {
			group[i] = c.Groups[r.Group]
		}
		ca[i], cb[i], cd[i] = r.A.Count, r.B.Count, r.B.Count-r.A.Count
		sa[i], sb[i], sd[i] = r.A.Sum, r.B.Sum, r.Change
		xa, xb := r.A.Percentiles(), r.B.Percentiles()
		for k := range 5 {
			pa[k][i], pb[k][i], pd[k][i] = xa[k], xb[k], xb[k]-xa[k]
		}
	}
	prefix := "Exclusive"
	if c.Metric == "inclusive" {
		prefix = "Inclusive"
	}
	cols := []arrowio.Column{arrowio.Dict("Name", name)}
	if c.Groups != nil {
		cols = append(cols, arrowio.Dict("Group", group))
	}
	cols = append(cols, arrowio.Int64("Count A", ca), arrowio.Int64("Count B", cb), arrowio.Int64("Count Change", cd),
		arrowio.Int64(prefix+" A (ns)", sa).WithUnit("ns"), arrowio.Int64(prefix+" B (ns)", sb).WithUnit("ns"),
		arrowio.Int64(prefix+" Change (ns)", sd).WithUnit("ns"))
	// a percentile of a run without calls is NaN: null in the table
	nonNaN := func(v []float64) []bool {
		ok := make([]bool, len(v))
		for i, x := range v {
			ok[i] = !math.IsNaN(x)
		}
		return ok
	}
	for k, p := range boxPercentiles {
		for j, part := range [][]float64{pa[k], pb[k], pd[k]} {
			label := [...]string{"A", "B", "Change"}[j]
			cols = append(cols, arrowio.NullableFloat64(fmt.Sprintf("%s P%d %s (ns)", prefix, p, label), part, nonNaN(part)).WithUnit("ns"))
		}
	}
	cols = append(cols, arrowio.Dict("Verdict", verdicts))
	return arrowio.MustTable(cols...)
}

// Plot draws the two runs' box plots side by side per function (the first 20 rows, or WithTop),
// run A in the first colour and run B in the second.
func (c *Comparison) Plot() *plotting.Figure {
	limit := plotFunctions
	if c.o.top > 0 {
		limit = c.o.top
	}
	var rows []plotting.BoxRow
	for _, r := range c.Rows {
		if len(rows) == limit {
			break
		}
		label := r.Function
		if c.Groups != nil {
			label = c.Groups[r.Group] + ": " + label
		}
		row := plotting.BoxRow{Label: label}
		for s, d := range []Dist{r.A, r.B} {
			if d.Count > 0 {
				row.Boxes = append(row.Boxes, plotting.SeriesBox{Series: s, Count: d.Count,
					P2: d.P2, P25: d.P25, P50: d.P50, P75: d.P75, P98: d.P98})
			}
		}
		rows = append(rows, row)
	}
	title := fmt.Sprintf("%s vs %s: %s time per call, by time gained or lost", c.Runs[0], c.Runs[1], c.Metric)
	unit := scaleBoxes(rows)
	return plotting.GroupedBoxes(title, c.Runs[:], rows, plotting.WithXLabel(c.Metric+" time per call ("+unit+")"))
}

// Headline summarises the comparison: the total change and the function (in the group pair)
// that changed most, over all group pairs.
func (c *Comparison) Headline() string {
	var ta, tb int64
	for _, r := range c.Rows {
		ta += r.A.Sum
		tb += r.B.Sum
	}
	s := fmt.Sprintf("%s vs %s, %s time over %d functions: %s → %s (%s)", c.Runs[0], c.Runs[1], c.Metric,
		len(c.Rows), arrowio.FormatDuration(ta), arrowio.FormatDuration(tb), signedDuration(tb-ta))
	if ta > 0 {
		s += fmt.Sprintf(", %+.1f%%", 100*float64(tb-ta)/float64(ta))
	}
	if r, ok := c.mostChanged(); ok {
		s += "; most changed: " + r.Function
		if c.Groups != nil {
			s += " in " + c.Groups[r.Group]
		}
		s += " " + signedDuration(r.Change)
		if r.A.Count > 0 && r.B.Count > 0 {
			s += fmt.Sprintf(" (median %s → %s)", fmtNs(r.A.P50), fmtNs(r.B.P50))
		}
		if v := r.Verdict.String(); v != "" {
			s += ", " + v
		}
	}
	return s
}

// mostChanged returns the row with the largest absolute change over all groups (the first in
// the table's order on ties); ok is false without rows.
func (c *Comparison) mostChanged() (CompareRow, bool) {
	best := -1
	for i, r := range c.Rows {
		if best < 0 || abs(r.Change) > abs(c.Rows[best].Change) {
			best = i
		}
	}
	if best < 0 {
		return CompareRow{}, false
	}
	return c.Rows[best], true
}

func signedDuration(ns int64) string {
	if ns < 0 {
		return "−" + arrowio.FormatDuration(-ns)
	}
	return "+" + arrowio.FormatDuration(ns)
}

// String returns the headline and the table as text.
func (c *Comparison) String() string { return c.Headline() + "\n" + c.Table().String() }

// MIMEBundle renders the headline, the first rows of the table and the plot.
func (c *Comparison) MIMEBundle() map[string]any { return bundle(c.Headline(), c.Table(), c.Plot()) }
