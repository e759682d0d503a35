package waits

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// ExplainRow is one difference between two runs and the part of the
// slowdown it explains (Explain, ExplainAlignment).
type ExplainRow struct {
	Function string // the region name
	// Verdict is what the comparison says of the function: "slower",
	// "faster", "only in A" or "only in B"; for compare.Runs the distinct
	// verdicts of its groups, joined by ", " in the comparison's order.
	Verdict string
	// Change is the comparison's own measure of the difference, ns: for
	// compare.Runs the sum of Cost over the function's differing groups
	// (change of exclusive time per process, weighted by the group's share
	// of the processes); for align.Runs the function's exclusive time
	// summed over all locations of run B minus that of run A.
	Change int64
	// OnPath is true when the function has critical-path time in the
	// slower run (run B when the paths are equally long).
	OnPath bool
	// Path is the function's exclusive time on the critical path of run A
	// and of run B (PathTime), ns.
	Path [2]int64
	// PathChange is the slower run's Path minus the faster run's, ns.
	PathChange int64
	// Share is PathChange / the slowdown: the fraction of the slowdown the
	// difference explains (negative when it shortened the path); NaN when
	// the runs' critical paths are equally long.
	Share float64
}

// Explanation says which differences between two runs lie on the critical
// path of the slower run and how much of the slowdown they explain
// (Explain, ExplainAlignment).
type Explanation struct {
	source string    // "compare.Runs" or "align.Runs"
	names  [2]string // the runs
	length [2]int64  // PathLength of each run
	slow   int       // the slower run: 1 unless run A's path is longer
	rows   []ExplainRow
	others int64 // path change of the functions that are no difference
	// the function, no difference, whose path change is largest (> 0; "" for none)
	topOther       string
	topOtherChange int64
	outside        int64 // path change of the time outside every region
}

// difference is one function that differs between the runs, as the
// comparison says.
type difference struct {
	function string
	verdict  string
	change   int64
}

// pathTimes is what the explanation needs of an analysis (*Result).
type pathTimes interface {
	PathLength() int64
	PathTime(name string) int64
}

// Explain says which differences of the comparison c lie on the critical
// path of the slower run and what share of the slowdown each explains:
// "of the 37 differences, these 3 are on the critical path and explain 92%
// of the slowdown".
//
// # Method
//
// Analyze runs on both runs (once when they are the same trace). The
// slower run is the one with the longer critical path (PathLength; run B
// when they are equal), and the slowdown is PathLength(slower) -
// PathLength(faster). The critical path's time is partitioned over the
// functions (PathTime of each region name: the exclusive time of its
// calls within the path's segments) plus the time outside every region,
// so per function f the critical-path change PathTime_slower(f) -
// PathTime_faster(f), summed over all functions and the outside time, is
// the slowdown exactly. A difference's share of the slowdown is its
// function's critical-path change divided by the slowdown (negative when
// the function shortened the path; NaN without a slowdown).
//
// The differences are the functions of c.FunctionRows() whose Verdict is
// "slower", "faster", "only in A" or "only in B"; a function with such
// rows in several groups is one difference (its verdicts joined, its Costs
// summed). A difference is on the critical path when its function has
// critical-path time in the slower run (PathTime > 0). Rows are ranked by
// their path change, largest first (so by share of the slowdown when there
// is one), ties by name. The critical path covers whole runs, whatever
// processes c compared (compare.WithProcesses).
//
// A nil c panics with an *Error.
func Explain(c *compare.Result) *Explanation {
	const fn = "waits.Explain"
	if c == nil {
		work.Fail(fn, "nil comparison (want the result of compare.Runs)")
	}
	defer work.RecoverAs(fn)
	a, b := c.Traces()
	diffs := compareDifferences(c.FunctionRows())
	na, nb := c.Names()
	return explainRuns("compare.Runs", [2]string{na, nb}, a, b, diffs)
}

// compareDifferences returns the differences among a comparison's rows:
// per function with a row of verdict "slower", "faster", "only in A" or
// "only in B", its distinct verdicts joined by ", " and the sum of those
// rows' Cost, in the order of the functions' first such rows.
func compareDifferences(rows []compare.FunctionRow) []difference {
	var diffs []difference
	at := map[string]int{}
	seen := map[[2]string]bool{}
	for _, w := range rows {
		switch w.Verdict {
		case "slower", "faster", "only in A", "only in B":
		default:
			continue
		}
		i, ok := at[w.Function]
		if !ok {
			i = len(diffs)
			at[w.Function] = i
			diffs = append(diffs, difference{function: w.Function})
		}
		d := &diffs[i]
		if !seen[[2]string{w.Function, w.Verdict}] {
			seen[[2]string{w.Function, w.Verdict}] = true
			if d.verdict != "" {
				d.verdict += ", "
			}
			d.verdict += w.Verdict
		}
		d.change += w.Cost
	}
	return diffs
}

// ExplainAlignment is Explain for a location-by-location comparison
// (align.Runs): the same method, with these differences: per function
// (region name), its exclusive time summed over the locations of each run
// (the rows of r, trace.Process.RegionStats); a function whose sum differs
// between the runs is a difference, "slower" or "faster" in run B, "only in
// A" or "only in B" when the other run never calls it. Change is the sum of
// run B minus that of run A (ns). Every change counts, however small: the
// alignment has no test of significance (compare.Runs has one), so noisy
// runs have many differences, and the ranking by path change tells the
// ones that matter.
//
// A nil r panics with an *Error.
func ExplainAlignment(r *align.RunsResult) *Explanation {
	const fn = "waits.ExplainAlignment"
	if r == nil {
		work.Fail(fn, "nil comparison (want the result of align.Runs)")
	}
	defer work.RecoverAs(fn)
	a, b := r.Traces()
	type sums struct{ excl, calls [2]int64 }
	per := map[string]*sums{}
	var order []string
	for k, side := range [2][]*trace.Process{r.A, r.B} {
		for _, p := range side {
			if p == nil {
				continue
			}
			for _, st := range p.RegionStats() {
				name := p.RegionName(st.Region)
				s := per[name]
				if s == nil {
					s = &sums{}
					per[name] = s
					order = append(order, name)
				}
				s.excl[k] += st.Exclusive
				s.calls[k] += st.Calls
			}
		}
	}
	var diffs []difference
	for _, name := range order {
		s := per[name]
		d := difference{function: name, change: s.excl[1] - s.excl[0]}
		switch {
		case s.calls[1] == 0:
			d.verdict = "only in A"
		case s.calls[0] == 0:
			d.verdict = "only in B"
		case d.change > 0:
			d.verdict = "slower"
		case d.change < 0:
			d.verdict = "faster"
		default:
			continue
		}
		diffs = append(diffs, d)
	}
	na, nb := labels.Pair(a, b, "A", "B")
	return explainRuns("align.Runs", [2]string{na, nb}, a, b, diffs)
}

// explainRuns analyses both runs and explains the differences.
func explainRuns(source string, names [2]string, a, b *trace.Trace, diffs []difference) *Explanation {
	ra := Analyze(a)
	rb := ra
	if b != a {
		rb = Analyze(b)
	}
	return explain(source, names, [2][]string{regionNames(a), regionNames(b)}, [2]pathTimes{ra, rb}, diffs)
}

// regionNames returns the distinct names of tr's regions.
func regionNames(tr *trace.Trace) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range tr.Defs.Regions {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	return out
}

// explain splits the critical paths res of the runs, whose regions have
// the names regions, over the functions and explains diffs.
func explain(source string, names [2]string, regions [2][]string, res [2]pathTimes, diffs []difference) *Explanation {
	e := &Explanation{source: source, names: names, slow: 1}
	var path [2]map[string]int64
	var inRegions [2]int64
	for k := range res {
		e.length[k] = res[k].PathLength()
		path[k] = map[string]int64{}
		for _, name := range regions[k] {
			t := res[k].PathTime(name)
			path[k][name] = t
			inRegions[k] += t
		}
	}
	if e.length[0] > e.length[1] {
		e.slow = 0
	}
	slow, fast := e.slow, 1-e.slow
	slowdown := e.length[slow] - e.length[fast]
	e.outside = (e.length[slow] - inRegions[slow]) - (e.length[fast] - inRegions[fast])
	isDiff := map[string]bool{}
	for _, d := range diffs {
		isDiff[d.function] = true
		row := ExplainRow{Function: d.function, Verdict: d.verdict, Change: d.change,
			Path: [2]int64{path[0][d.function], path[1][d.function]}}
		row.OnPath = row.Path[slow] > 0
		row.PathChange = row.Path[slow] - row.Path[fast]
		row.Share = math.NaN()
		if slowdown != 0 {
			row.Share = float64(row.PathChange) / float64(slowdown)
		}
		e.rows = append(e.rows, row)
	}
	// the functions that are no difference, each name once over both runs
	for k := range regions {
		for _, name := range regions[k] {
			if isDiff[name] {
				continue
			}
			isDiff[name] = true
			c := path[slow][name] - path[fast][name]
			e.others += c
			if c > 0 && (c > e.topOtherChange || c == e.topOtherChange && name < e.topOther) {
				e.topOther, e.topOtherChange = name, c
			}
		}
	}
	slices.SortStableFunc(e.rows, func(x, y ExplainRow) int {
		return cmp.Or(cmp.Compare(y.PathChange, x.PathChange), strings.Compare(x.Function, y.Function))
	})
	return e
}

// Rows returns the differences as Go values, ranked as Table.
func (e *Explanation) Rows() []ExplainRow { return slices.Clone(e.rows) }

// PathLengths returns the critical path's length in run A and in run B, ns.
func (e *Explanation) PathLengths() (a, b int64) { return e.length[0], e.length[1] }

// Slowdown returns how much longer the slower run's critical path is, ns
// (0 when they are equally long).
func (e *Explanation) Slowdown() int64 { return e.length[e.slow] - e.length[1-e.slow] }

// Remainder returns the part of the slowdown that no difference explains,
// ns: the critical-path change of the functions that are no difference, and
// that of the time outside every region. With the rows' PathChange they sum
// to Slowdown.
func (e *Explanation) Remainder() (functions, outside int64) { return e.others, e.outside }

// Table has one row per difference, ranked by the share of the slowdown it
// explains, largest first: Function, Verdict (as the comparison says it),
// Change (ns; the comparison's measure, see ExplainRow), On Critical Path
// (of the slower run), Path A (ns) and Path B (ns) (the function's
// critical-path time in each run), Path Change (ns; slower run minus
// faster run) and Share of Slowdown (a fraction; null without a
// slowdown). Verdict and Change compare run B with run A, as the comparison
// does, whichever run is slower; Path Change is always slower minus faster.
func (e *Explanation) Table() *arrowio.Table {
	n := len(e.rows)
	fn, verdict := make([]string, n), make([]string, n)
	ch, pa, pb, pc := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	on, ok := make([]bool, n), make([]bool, n)
	frac := make([]float64, n)
	for i, w := range e.rows {
		fn[i], verdict[i], ch[i], on[i] = w.Function, w.Verdict, w.Change, w.OnPath
		pa[i], pb[i], pc[i], frac[i], ok[i] = w.Path[0], w.Path[1], w.PathChange, w.Share, !math.IsNaN(w.Share)
	}
	return arrowio.MustTable(
		arrowio.Dict("Function", fn), arrowio.Dict("Verdict", verdict), arrowio.Int64("Change (ns)", ch).WithUnit("ns"),
		arrowio.Bool("On Critical Path", on),
		arrowio.Int64("Path A (ns)", pa).WithUnit("ns"), arrowio.Int64("Path B (ns)", pb).WithUnit("ns"),
		arrowio.Int64("Path Change (ns)", pc).WithUnit("ns"), arrowio.NullableFloat64("Share of Slowdown", frac, ok),
	)
}

func percent(part, whole int64) string { return share(float64(part) / float64(whole)) }

// share formats a fraction as a percentage with one decimal, "0.0%" (not
// "-0.0%") for a small negative one.
func share(x float64) string {
	p := math.Round(1000*x) / 10
	if p == 0 {
		p = 0
	}
	return fmt.Sprintf("%.1f%%", p)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Headline says which run is slower and by how much on the critical path
// (and when the difference is below 1% of the faster path, that its shares
// are noise), how many of the differences have time on it (naming up to
// three) and what share of the slowdown they explain, what the differences
// without time on it account for (a function gone from the slower run's
// path shortens it: a negative share), and what the other functions
// (naming the one that explains most) and the time outside every region
// explain: the shares add up to 100% (to rounding).
func (e *Explanation) Headline() string {
	slow, fast := e.slow, 1-e.slow
	var on, off []string
	var onChange, offChange int64
	for _, w := range e.rows {
		if w.OnPath {
			on = append(on, w.Function)
			onChange += w.PathChange
		} else {
			off = append(off, w.Function)
			offChange += w.PathChange
		}
	}
	names := func(fs []string) string {
		if len(fs) == 0 {
			return ""
		}
		l := " (" + strings.Join(fs[:min(3, len(fs))], ", ")
		if len(fs) > 3 {
			l += ", …"
		}
		return l + ")"
	}
	// "none has", "1 has", "all 5 have", "3 have" time on the critical path
	have := func(k int) string {
		switch {
		case k == 0:
			return "none has"
		case k == len(e.rows) && k > 1:
			return fmt.Sprintf("all %d have", k)
		case k == 1:
			return "1 has"
		}
		return fmt.Sprintf("%d have", k)
	}
	d := e.Slowdown()
	if d == 0 {
		l := fmt.Sprintf("No slowdown (%s): the critical paths of %s and %s are both %s long", e.source, e.names[0], e.names[1],
			arrowio.FormatDuration(e.length[0]))
		if len(e.rows) == 0 {
			return l + "; the comparison finds no differences"
		}
		return l + fmt.Sprintf("; of the %s, %s time on the critical path of %s%s",
			plural(len(e.rows), "difference", "differences"), have(len(on)), e.names[slow], names(on))
	}
	l1 := fmt.Sprintf("%s is slower (%s): its critical path is %s longer (%s vs %s)", e.names[slow], e.source,
		arrowio.FormatDuration(d), arrowio.FormatDuration(e.length[slow]), arrowio.FormatDuration(e.length[fast]))
	if d*100 < e.length[fast] {
		l1 += fmt.Sprintf("; %s of the faster path: shares of a difference so small are noise", percent(d, e.length[fast]))
	}
	most := ""
	if e.topOther != "" {
		most = fmt.Sprintf(" (most: %s %s)", e.topOther, percent(e.topOtherChange, d))
	}
	rest := fmt.Sprintf("other functions %s%s, time outside every region %s", percent(e.others, d), most, percent(e.outside, d))
	if len(e.rows) == 0 {
		return l1 + "\nThe comparison finds no differences; " + rest
	}
	// the parts, in shares of the slowdown, add up to 100%: the differences
	// with time on the path, those without, the other functions, the time
	// outside every region
	l2 := fmt.Sprintf("Of the %s, ", plural(len(e.rows), "difference", "differences"))
	if len(on) == 0 {
		l2 += fmt.Sprintf("none has time on the critical path (they account for %s of the slowdown)", percent(offChange, d))
	} else {
		l2 += fmt.Sprintf("%s time on the critical path%s: %s of the slowdown", have(len(on)), names(on), percent(onChange, d))
		if len(off) > 0 {
			l2 += fmt.Sprintf("; the other %d, without%s: %s", len(off), names(off), percent(offChange, d))
		}
	}
	return l1 + "\n" + l2 + "; " + rest
}

// String returns the headline and the first ten ranked differences, each
// with its critical-path time in run A → run B.
func (e *Explanation) String() string {
	var b strings.Builder
	b.WriteString(e.Headline())
	b.WriteString("\n")
	for i, w := range e.rows {
		if i == 10 {
			fmt.Fprintf(&b, "… (%d more rows in Table)\n", len(e.rows)-10)
			break
		}
		sh := "n/a"
		if !math.IsNaN(w.Share) {
			sh = share(w.Share)
		}
		path := "off the path"
		if w.OnPath {
			path = "on the path"
		}
		fmt.Fprintf(&b, "%-28s %-20s %-12s path %10s → %10s  %7s of the slowdown\n", w.Function, w.Verdict, path,
			arrowio.FormatDuration(w.Path[0]), arrowio.FormatDuration(w.Path[1]), sh)
	}
	return b.String()
}

// MIMEBundle shows the headline and the first 20 ranked differences.
func (e *Explanation) MIMEBundle() map[string]any {
	t := e.Table()
	note := ""
	if t.NumRows() > 20 {
		note = fmt.Sprintf("first 20 of %s differences; Table() has them all", arrowio.FormatCount(int64(t.NumRows())))
		t = t.Head(20)
	}
	return display.Composition{Headline: e.Headline(), Table: t, Note: note}.MIMEBundle()
}
