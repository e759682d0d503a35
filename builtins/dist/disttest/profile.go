package disttest

// The cases of packages profile, imbalance and fold: every view of their results rendered in
// full (every table cell by cell, the headline, the plot's data).

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/fold"
	"github.com/tracebook/tracebook/builtins/imbalance"
	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting"
)

func init() {
	cs := profileCases()
	for i := range cs {
		cs[i].MayRefuse = true // e.g. GPU utilisation of a trace without GPU streams
	}
	Add(cs...)
}

// renderer collects the views of a result as text.
type renderer struct{ b strings.Builder }

func (r *renderer) line(format string, args ...any) { fmt.Fprintf(&r.b, format+"\n", args...) }

// table writes every cell of t, one row a line, nulls as "∅", floats exactly.
func (r *renderer) table(name string, t *arrowio.Table) {
	rec := t.Record()
	r.line("== %s: %d rows x %d columns", name, rec.NumRows(), rec.NumCols())
	r.b.WriteString(strings.Join(t.ColumnNames(), " | "))
	r.b.WriteByte('\n')
	cols := rec.Columns()
	for i := range int(rec.NumRows()) {
		for j, c := range cols {
			if j > 0 {
				r.b.WriteString(" | ")
			}
			r.b.WriteString(profileCell(c, i))
		}
		r.b.WriteByte('\n')
	}
}

func profileCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "∅"
	}
	switch a := a.(type) {
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Dictionary:
		return strconv.Quote(a.Dictionary().ValueStr(a.GetValueIndex(i)))
	case *array.String:
		return strconv.Quote(a.Value(i))
	}
	return a.ValueStr(i)
}

// figure writes a plot's data: its Vega-Lite spec (the data it draws), else its SVG.
func (r *renderer) figure(name string, f *plotting.Figure) error {
	if f == nil {
		r.line("== %s: no figure", name)
		return nil
	}
	if spec := f.VegaLite(); spec != nil {
		b, err := json.Marshal(spec)
		if err != nil {
			return err
		}
		r.line("== %s (Vega-Lite): %s", name, b)
		return nil
	}
	svg, err := f.SVG()
	if err != nil {
		return err
	}
	r.line("== %s (SVG): %s", name, svg)
	return nil
}

// run renders what f writes, turning a panic (an *Error of the builtin, a *trace.Error) into
// the error.
func run(f func(r *renderer) error) (out string, err error) {
	var r renderer
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("panic: %v", v)
			}
		}
		out = r.b.String()
	}()
	return r.b.String(), f(&r)
}

// halves returns the first and second half of tr's processes.
func halves(tr *trace.Trace) [][]*trace.Process {
	ps := tr.Processes()
	if len(ps) < 2 {
		return [][]*trace.Process{ps}
	}
	return [][]*trace.Process{ps[:len(ps)/2], ps[len(ps)/2:]}
}

func boxesCase(name string, opts func(tr *trace.Trace) []profile.Option) Case {
	return Case{Name: name, Run: func(tr *trace.Trace) (string, error) {
		return run(func(r *renderer) error {
			b := profile.Boxes(tr, opts(tr)...)
			r.line("%s", b.Headline())
			r.line("series %q functions %d events %d repairs %v", b.Series, b.Functions, b.Events, b.Repairs)
			r.table("Table", b.Table())
			return r.figure("Plot", b.Plot())
		})
	}}
}

func matrixCase(name string, opts func(tr *trace.Trace) []profile.Option) Case {
	return Case{Name: name, Run: func(tr *trace.Trace) (string, error) {
		return run(func(r *renderer) error {
			m := profile.CallMatrix(tr, opts(tr)...)
			r.line("%s", m.Headline())
			r.line("series %q cells %d events %d repairs %v", m.Series, m.NumCells, m.Events, m.Repairs)
			r.table("Table", m.Table())
			return r.figure("Plot", m.Plot())
		})
	}}
}

func commCase(name string, opts func(tr *trace.Trace) []profile.CommOption) Case {
	return Case{Name: name, Run: func(tr *trace.Trace) (string, error) {
		return run(func(r *renderer) error {
			c := profile.CommMatrix(tr, opts(tr)...)
			r.line("%s", c.String())
			r.line("ranks %v sends %d bytes %d outside %d unresolved %d pairs %d", c.Ranks, c.Sends, c.Bytes, c.Outside, c.Unresolved, c.Pairs())
			r.table("Table", c.Table())
			r.table("Collectives", c.Collectives())
			r.line("== Matrix(count): %v", c.Matrix("count"))
			r.line("== Matrix(size): %v", c.Matrix("size"))
			return r.figure("Plot", c.Plot())
		})
	}}
}

func foldCase(name string, op fold.Op, opts func(tr *trace.Trace) []fold.Option) Case {
	return Case{Name: name, Run: func(tr *trace.Trace) (string, error) {
		return run(func(r *renderer) error {
			f := fold.Timeline(tr, op, 257, opts(tr)...)
			r.line("%s", f.String())
			r.line("op %v by time %v [%d, %d) width %d streams %d no state %q", f.Op, f.ByTime, f.T0, f.T1, f.Width, f.Streams, f.NoStateName())
			r.table("Table", f.Table())
			return r.figure("Plot", f.Plot())
		})
	}}
}

func none[T any](*trace.Trace) []T { return nil }

func profileCases() []Case {
	return []Case{
		boxesCase("profile.Boxes", none[profile.Option]),
		boxesCase("profile.Boxes/per-process", func(*trace.Trace) []profile.Option {
			return []profile.Option{profile.WithPerProcess(), profile.WithInclusive()}
		}),
		boxesCase("profile.Boxes/groups", func(tr *trace.Trace) []profile.Option {
			hs := halves(tr)
			names := []string{"first", "second"}[:len(hs)]
			return []profile.Option{profile.WithNamedGroups(names, hs...), profile.WithSortBy("p50"), profile.WithTop(6)}
		}),
		boxesCase("profile.Boxes/processes", func(tr *trace.Trace) []profile.Option {
			return []profile.Option{profile.WithProcesses(halves(tr)[0]...), profile.WithSortBy("p98")}
		}),
		matrixCase("profile.CallMatrix", none[profile.Option]),
		matrixCase("profile.CallMatrix/closure", func(*trace.Trace) []profile.Option {
			return []profile.Option{profile.WithClosure(), profile.WithInclusive()}
		}),
		matrixCase("profile.CallMatrix/per-process", func(*trace.Trace) []profile.Option {
			return []profile.Option{profile.WithPerProcess(), profile.WithClosure()}
		}),
		{Name: "profile.Compare", Run2: func(a, b *trace.Trace) (string, error) {
			return run(func(r *renderer) error {
				c := profile.Compare(a, b)
				r.line("%s", c.Headline())
				r.table("Table", c.Table())
				if err := r.figure("Plot", c.Plot()); err != nil {
					return err
				}
				g := profile.CompareGroups(a, b, halves(a), halves(b), profile.WithInclusive())
				r.line("%s", g.Headline())
				r.table("Groups", g.Table())
				return nil
			})
		}},
		commCase("profile.CommMatrix", none[profile.CommOption]),
		commCase("profile.CommMatrix/ranks", func(tr *trace.Trace) []profile.CommOption {
			var ranks []int
			seen := map[int32]bool{}
			for _, p := range halves(tr)[0] {
				if !seen[p.Rank] {
					seen[p.Rank] = true
					ranks = append(ranks, int(p.Rank))
				}
			}
			return []profile.CommOption{profile.WithRanks(ranks...)}
		}),
		{Name: "profile.MessageHistogram", Run: func(tr *trace.Trace) (string, error) {
			return run(func(r *renderer) error {
				h := profile.MessageHistogram(tr, 20)
				r.line("%s", h.String())
				r.table("Table", h.Table())
				return r.figure("Plot", h.Plot())
			})
		}},
		{Name: "imbalance.Analyze", Run: func(tr *trace.Trace) (string, error) {
			return run(func(r *renderer) error {
				a := imbalance.Analyze(tr)
				r.line("%s", a.String())
				r.table("Candidates", a.Candidates())
				r.table("Segments", a.Segments())
				r.table("Iterations", a.Iterations())
				r.table("Processes", a.Processes())
				return r.figure("Plot", a.Plot())
			})
		}},
		foldCase("fold.Timeline/max", fold.Max, none[fold.Option]),
		foldCase("fold.Timeline/min", fold.Min, none[fold.Option]),
		foldCase("fold.Timeline/diff", fold.Diff, func(*trace.Trace) []fold.Option { return []fold.Option{fold.WithTimeShare(true)} }),
		foldCase("fold.Timeline/idle", fold.Idle, none[fold.Option]),
		foldCase("fold.Timeline/group", fold.Max, func(tr *trace.Trace) []fold.Option {
			return []fold.Option{fold.WithProcesses(halves(tr)[0]...)}
		}),
		{Name: "fold.GPUUtilisation", Run: func(tr *trace.Trace) (string, error) {
			return run(func(r *renderer) error {
				u := fold.GPUUtilisation(tr, fold.WithWindows(13))
				r.line("%s", u.String())
				r.line("[%d, %d) windows %d devices %v streams %v busy %v", u.T0, u.T1, u.Windows, u.Devices, u.Streams, u.Busy)
				r.table("Table", u.Table())
				return r.figure("Plot", u.Plot())
			})
		}},
	}
}

// CasesOf returns the registered cases whose names start with prefix ("profile.").
func CasesOf(prefix string) []Case {
	var out []Case
	for _, c := range Cases() {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}
