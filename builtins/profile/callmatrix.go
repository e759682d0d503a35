package profile

import (
	"fmt"
	"math"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Matrix is the result of CallMatrix: per (caller, callee) cell and series the distributions
// of the callee's exclusive and inclusive time over the calls in that cell.
type Matrix struct {
	Series  []string
	Cells   []MatrixCell // ranked by the WithSortBy measure of the metric, then series in order
	Metric  string       // "exclusive" or "inclusive": what the plot shows and the ranking uses
	Closure bool         // the transitive closure (WithClosure)

	NumCells int   // cells with calls, before WithTop, WithFunctions and WithCaller
	Events   int64 // events read
	Repairs  trace.CallRepairs

	a *analysis
}

// MatrixCell is one cell of the call matrix in one series. Caller "" (region -1) is the virtual
// root: calls made outside any other call.
type MatrixCell struct {
	Caller, Callee             string
	CallerRegion, CalleeRegion int32
	Series                     int
	Exclusive, Inclusive       Dist
}

func (c *MatrixCell) dist(m int) Dist {
	if m == mInc {
		return c.Inclusive
	}
	return c.Exclusive
}

// CallMatrix computes Brendel's call matrix (3.2): the calls bucketed by calling function (rows,
// the virtual root "" included) and called function (columns), each bucket with the count and
// the distributions of exclusive and inclusive time, for all processes together, per process
// (WithPerProcess) or per group (WithGroups). WithClosure makes it the transitive closure.
// WithCaller restricts it to the calls of some functions (Fig. 17), WithFunctions to some
// functions (Fig. 18). WithTop and WithSortBy rank the cells. With WithCaller and WithFunctions
// together (Fig. 18) the rows are the callers of WithCaller and the columns the functions of
// WithFunctions.
func CallMatrix(tr *trace.Trace, opts ...Option) *Matrix {
	const fn = "profile.CallMatrix"
	defer work.RecoverAs(fn)
	o := collect(fn, tr, opts)
	return matrixOf(analyze(fn, tr, o))
}

func matrixOf(a *analysis) *Matrix {
	res, o := a.res, a.o
	m := &Matrix{Series: a.series, Metric: metricName(o.metric), Closure: o.closure,
		NumCells: len(res.cells), Events: res.events, Repairs: res.repairs, a: a}
	// Rows: the callers of WithCaller if given (whether or not WithFunctions names them: Brendel's
	// Fig. 17 -> 18 restricts the callees of main to the functions doing real work), else the
	// virtual root and the functions of WithFunctions. Columns: the functions of WithFunctions.
	keepFn := nameFilter(a.tr, o.funcs)
	keepCaller := func(r int32) bool { return r == -1 || keepFn(r) }
	if len(o.callers) > 0 {
		keepCaller = nameFilter(a.tr, o.callers)
	}
	var cs []int
	for c, k := range res.cells {
		if keepCaller(k.caller) && keepFn(k.callee) {
			cs = append(cs, c)
		}
	}
	score := func(c int) float64 {
		ds := make([]Dist, len(a.series))
		for s := range a.series {
			ds[s] = res.cell[s][c][o.metric]
		}
		return measureOf(o.measure, ds)
	}
	rankBy(cs, score, func(c int) string {
		return a.tr.RegionName(res.cells[c].caller) + "\x00" + a.tr.RegionName(res.cells[c].callee)
	})
	if o.top > 0 && len(cs) > o.top {
		cs = cs[:o.top]
	}
	for _, c := range cs {
		k := res.cells[c]
		for s := range a.series {
			d := res.cell[s][c]
			if d[0].Count == 0 {
				continue
			}
			m.Cells = append(m.Cells, MatrixCell{Caller: a.tr.RegionName(k.caller), Callee: a.tr.RegionName(k.callee),
				CallerRegion: k.caller, CalleeRegion: k.callee, Series: s, Exclusive: d[mExc], Inclusive: d[mInc]})
		}
	}
	return m
}

// Cell returns the cell (caller, callee) of series s, and whether it has calls.
func (m *Matrix) Cell(caller, callee string, s int) (MatrixCell, bool) {
	for _, c := range m.Cells {
		if c.Caller == caller && c.Callee == callee && c.Series == s {
			return c, true
		}
	}
	return MatrixCell{}, false
}

// Table returns one row per cell (and series): Caller ("" for the virtual root), Callee, the
// series column (Process or Group, when there are several series), Count, and the exclusive and
// inclusive distributions as in BoxProfile.Table.
func (m *Matrix) Table() *arrowio.Table {
	n := len(m.Cells)
	caller, callee, ser := make([]string, n), make([]string, n), make([]string, n)
	count := make([]int64, n)
	exc, inc := make([]Dist, n), make([]Dist, n)
	for i, c := range m.Cells {
		caller[i], callee[i], ser[i], count[i] = c.Caller, c.Callee, m.Series[c.Series], c.Exclusive.Count
		exc[i], inc[i] = c.Exclusive, c.Inclusive
	}
	cols := []arrowio.Column{arrowio.Dict("Caller", caller), arrowio.Dict("Callee", callee)}
	if col := seriesColumn(m.a.o); col != "" {
		cols = append(cols, arrowio.Dict(col, ser))
	}
	cols = append(cols, arrowio.Int64("Count", count))
	cols = append(cols, distColumns("Exclusive", exc)...)
	cols = append(cols, distColumns("Inclusive", inc)...)
	return arrowio.MustTable(cols...)
}

// noCalls marks the slice of a series that made no call in a cell.
var noCalls = [5]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}

// plotSide is the most rows (callers) and columns (callees) a plot shows.
const plotSide = 24

// Plot draws the colour-coded box-plot squares of Brendel Fig. 14-19: callers as rows (the
// virtual root first, shown as "(root)"), callees as columns, each cell a square of concentric
// rings for the 2nd, 25th, 50th, 75th and 98th percentile (areas 1, 3, 6, 3, 1 of 14) on a
// green-orange-red scale, cut into one slice per series clockwise from the top-left corner. The
// cells ranked first are shown, at most 24 callers and 24 callees.
func (m *Matrix) Plot() *plotting.Figure {
	rowIdx, colIdx := map[int32]int{}, map[int32]int{}
	var rows, cols []string
	var cells []plotting.SquareCell
	at := map[[2]int]int{}
	shown, total := 0, 0
	seen := map[[2]int32]bool{}
	for _, c := range m.Cells {
		key := [2]int32{c.CallerRegion, c.CalleeRegion}
		if !seen[key] {
			seen[key] = true
			total++
		}
		r, okR := rowIdx[c.CallerRegion]
		col, okC := colIdx[c.CalleeRegion]
		if (!okR && len(rows) >= plotSide) || (!okC && len(cols) >= plotSide) {
			continue
		}
		if !okR {
			r = len(rows)
			rowIdx[c.CallerRegion] = r
			name := c.Caller
			if c.CallerRegion == -1 {
				name = "(root)"
			}
			rows = append(rows, name)
		}
		if !okC {
			col = len(cols)
			colIdx[c.CalleeRegion] = col
			cols = append(cols, c.Callee)
		}
		i, ok := at[[2]int{r, col}]
		if !ok {
			i = len(cells)
			at[[2]int{r, col}] = i
			sl := make([][5]float64, len(m.Series))
			for s := range sl {
				sl[s] = noCalls
			}
			cells = append(cells, plotting.SquareCell{Row: r, Col: col, Slices: sl})
			shown++
		}
		d := c.dist(m.a.o.metric)
		cells[i].Slices[c.Series] = d.Percentiles()
	}
	top := 0.0
	for _, c := range cells {
		for _, sl := range c.Slices {
			if !math.IsNaN(sl[4]) {
				top = max(top, sl[4])
			}
		}
	}
	div, unit := durationUnit(top)
	for i := range cells {
		for s := range cells[i].Slices {
			for k := range cells[i].Slices[s] {
				cells[i].Slices[s][k] /= div
			}
		}
	}
	kind := "call matrix"
	if m.Closure {
		kind = "call matrix (transitive closure)"
	}
	title := fmt.Sprintf("%s, %s time per call (%s)", kind, m.Metric, unit)
	if shown < total {
		title += fmt.Sprintf(" (%d of %d cells)", shown, total)
	}
	return plotting.BoxSquares(title, rows, cols, cells, plotting.WithXLabel("callee"), plotting.WithYLabel("caller"))
}

// Headline is the one-line summary of the matrix: its cells and the first by the ranking.
func (m *Matrix) Headline() string {
	kind := "call matrix"
	if m.Closure {
		kind = "call matrix (transitive closure)"
	}
	if len(m.Cells) == 0 {
		return kind + ": no calls in the analysed processes"
	}
	c := m.Cells[0]
	d := c.dist(m.a.o.metric)
	caller := c.Caller
	if c.CallerRegion == -1 {
		caller = "(root)"
	}
	s := fmt.Sprintf("%s: %d cells, %s events; first by %s %s time: %s -> %s (%s calls, median %s, 98th percentile %s)",
		kind, m.NumCells, arrowio.FormatCount(m.Events), m.a.o.measure, m.Metric, caller, c.Callee,
		arrowio.FormatCount(d.Count), fmtNs(d.P50), fmtNs(d.P98))
	if len(m.Series) > 1 {
		s += " in " + m.Series[c.Series]
	}
	if !m.Repairs.IsZero() {
		s += "; call stacks repaired: " + m.Repairs.String()
	}
	return s
}

// String returns the headline and the table as text.
func (m *Matrix) String() string { return m.Headline() + "\n" + m.Table().String() }

// MIMEBundle renders the headline, the first rows of the table and the plot.
func (m *Matrix) MIMEBundle() map[string]any { return bundle(m.Headline(), m.Table(), m.Plot()) }
