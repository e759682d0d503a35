package profile

import (
	"fmt"
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Option configures Boxes, CallMatrix and Compare.
type Option func(*options)

type options struct {
	procs      []*trace.Process
	perProcess bool
	groups     [][]*trace.Process
	groupNames []string
	metric     int
	top        int
	measure    string
	funcs      []string
	callers    []string
	closure    bool
}

// WithExclusive plots and ranks by exclusive time (the default; tables always carry both).
func WithExclusive() Option { return func(o *options) { o.metric = mExc } }

// WithInclusive plots and ranks by inclusive time.
func WithInclusive() Option { return func(o *options) { o.metric = mInc } }

// WithPerProcess makes every process its own series: one box per function and process, one slice
// per process in the call matrix (Brendel Fig. 10-13, 19). By default all processes form one
// series.
func WithPerProcess() Option { return func(o *options) { o.perProcess = true } }

// WithGroups makes each group of processes (e.g. the groups of cluster.Structural) a series, named
// "group 0", "group 1", ... in argument order. The groups must be disjoint; processes in no
// group are left out.
func WithGroups(gs ...[]*trace.Process) Option {
	return func(o *options) {
		o.groups = append([][]*trace.Process(nil), gs...)
		o.groupNames = nil
	}
}

// WithNamedGroups is WithGroups with a name per group.
func WithNamedGroups(names []string, gs ...[]*trace.Process) Option {
	return func(o *options) {
		o.groups = append([][]*trace.Process(nil), gs...)
		o.groupNames = append([]string(nil), names...)
	}
}

// WithProcesses restricts the analysis to the given processes (all of the trace by default).
func WithProcesses(ps ...*trace.Process) Option {
	return func(o *options) { o.procs = append([]*trace.Process(nil), ps...) }
}

// WithTop keeps the n functions (call-matrix cells) ranked first by the measure of WithSortBy; 0 keeps
// all (the default for tables; plots show at most 20 functions and say so).
func WithTop(n int) Option { return func(o *options) { o.top = n } }

// Measures of WithSortBy.
var measures = []string{"sum", "count", "mean", "min", "p2", "p25", "p50", "p75", "p98", "max"}

// WithSortBy ranks functions by a measure of the plotted metric: "sum" (the default), "count",
// "mean", "min", "p2", "p25", "p50" (the median), "p75", "p98" or "max", largest first. With
// several series a function ranks by the sum (sum, count) or the largest value (the others)
// over the series.
func WithSortBy(measure string) Option { return func(o *options) { o.measure = measure } }

// WithFunctions restricts the rows to the named functions (and, in the call matrix, the callees to
// them and the callers to them and the virtual root, unless WithCaller names the callers).
func WithFunctions(names ...string) Option {
	return func(o *options) { o.funcs = append([]string(nil), names...) }
}

// WithCaller restricts the call matrix to the calls made by the named functions ("" is the virtual
// root), Brendel Fig. 17; with WithFunctions, to their calls of those functions (Fig. 18), whether
// or not WithFunctions names the callers too.
func WithCaller(names ...string) Option {
	return func(o *options) { o.callers = append([]string(nil), names...) }
}

// WithClosure makes the call matrix the transitive closure (Brendel 3.2): a call counts in the cell
// of every distinct function on the call stack below it, not only of its immediate caller, so
// that runs where some functions were inlined compare cell by cell.
func WithClosure() Option { return func(o *options) { o.closure = true } }

func collect(fn string, tr *trace.Trace, opts []Option) options {
	o := parse(fn, opts)
	o.bind(fn, tr)
	for _, name := range append(append([]string(nil), o.funcs...), o.callers...) {
		if name != "" && tr.RegionID(name) < 0 {
			fail(fn, "no function %q in the trace", name)
		}
	}
	return o
}

// parse applies opts and checks what does not depend on a trace.
func parse(fn string, opts []Option) options {
	o := options{measure: "sum"}
	for _, f := range opts {
		if f != nil { // a nil option is ignored (docs/surface.md)
			f(&o)
		}
	}
	if o.top < 0 {
		fail(fn, "WithTop(%d): need n >= 0", o.top)
	}
	if !isMeasure(o.measure) {
		fail(fn, "WithSortBy(%q): unknown measure; want one of %s", o.measure, strings.Join(measures, ", "))
	}
	if o.perProcess && o.groups != nil {
		fail(fn, "WithPerProcess and WithGroups exclude each other")
	}
	if o.groupNames != nil && len(o.groupNames) != len(o.groups) {
		fail(fn, "WithNamedGroups: %d names for %d groups", len(o.groupNames), len(o.groups))
	}
	return o
}

// bind checks o against tr and defaults the processes to all of tr's.
func (o *options) bind(fn string, tr *trace.Trace) {
	if tr == nil {
		fail(fn, "the trace is nil")
	}
	if o.procs == nil {
		o.procs = tr.Processes()
	}
	for i, p := range o.procs {
		if p == nil {
			fail(fn, "process %d is nil", i)
		}
		if p.Trace != tr {
			fail(fn, "process %s (argument %d) belongs to another trace", p.Name, i)
		}
	}
}

func isMeasure(m string) bool {
	for _, x := range measures {
		if x == m {
			return true
		}
	}
	return false
}

// seriesOf returns the processes analysed, the series of each and the series' names.
func (o *options) seriesOf(fn string) ([]*trace.Process, []int, []string) {
	switch {
	case o.perProcess:
		s := make([]int, len(o.procs))
		names := make([]string, len(o.procs))
		for i, p := range o.procs {
			s[i], names[i] = i, p.Label()
		}
		return o.procs, s, names
	case o.groups != nil:
		in := map[*trace.Process]bool{}
		for _, p := range o.procs {
			in[p] = true
		}
		group := map[*trace.Process]int{}
		var procs []*trace.Process
		var series []int
		names := make([]string, len(o.groups))
		for g, ps := range o.groups {
			names[g] = fmt.Sprintf("group %d", g)
			if o.groupNames != nil {
				names[g] = o.groupNames[g]
			}
			if len(ps) == 0 {
				fail(fn, "group %d is empty", g)
			}
			for _, p := range ps {
				if p == nil {
					fail(fn, "group %d holds a nil process", g)
				}
				if prev, dup := group[p]; dup {
					fail(fn, "process %s is in groups %d and %d; groups must be disjoint", p.Name, prev, g)
				}
				group[p] = g
				if !in[p] {
					fail(fn, "process %s of group %d is not among the analysed processes", p.Name, g)
				}
				procs = append(procs, p)
				series = append(series, g)
			}
		}
		return procs, series, names
	}
	return o.procs, make([]int, len(o.procs)), []string{"all"}
}
