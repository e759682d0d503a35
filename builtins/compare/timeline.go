package compare

import (
	"fmt"
	"strings"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Timeline returns the timeline of matched group G<group> (plotting.LiveTimeline): the calls of
// its representatives in both runs (the processes Where aligns: the median process of run A
// and its counterpart in run B) aligned hierarchically, with the comparison states between
// them (align.Result.Timeline). A comparison holds no other per-time information: its groups,
// functions and call paths are summed over time. The Notes name the representatives and the
// group's largest changes of single calls (Where). It panics with an *Error for a group out of
// range or a group of one run only.
func (r *Result) Timeline(group int) *plotting.LiveTimeline {
	const fn = "compare.Result.Timeline"
	defer work.RecoverAs(fn)
	g, pa, pb := r.groupPair(fn, group)
	lt := align.Pair(pa, pb).Timeline()
	na, nb := r.Names()
	lt.Title = fmt.Sprintf("G%d (%s): %s %s vs %s %s", group, g.state, na, pa.Label(), nb, pb.Label())
	notes := []string{fmt.Sprintf("the representatives of G%d, aligned hierarchically (align.Pair): %s of %s (the median process of its %d) and %s of %s (of %d)",
		group, pa.Label(), na, len(g.procs[0]), pb.Label(), nb, len(g.procs[1]))}
	var top []string
	for _, w := range r.whereRows() {
		if w.Group == group && len(top) < 5 {
			top = append(top, fmt.Sprintf("%s %s", w.Path, signed(float64(w.Change))))
		}
	}
	if len(top) > 0 {
		notes = append(notes, "largest changes of single calls (Where): "+strings.Join(top, "; "))
	}
	lt.Notes = append(notes, lt.Notes...)
	return lt
}

// groupPair returns matched group G<group> and its representatives in both runs, their events
// here (fetched from a distributed run); it fails for a group out of range or of one run only.
func (r *Result) groupPair(fn string, group int) (*group, *trace.Process, *trace.Process) {
	if group < 0 || group >= len(r.groups) {
		fail(fn, "group %d: there are %d (G0..G%d)", group, len(r.groups), len(r.groups)-1)
	}
	g := r.groups[group]
	if len(g.procs[0]) == 0 || len(g.procs[1]) == 0 {
		fail(fn, "G%d is %s: only one run has it, so there is nothing to align", group, g.state)
	}
	pa, pb := r.representatives(g)
	for k, p := range [2]*trace.Process{pa, pb} { // a distributed run's: brought here
		if err := part.Fetch(r.runs[k].tr, []*trace.Process{p}); err != nil {
			work.FailErr(fn, err)
		}
	}
	return g, pa, pb
}

// WriteChrome writes matched group G<group> as Chrome/Perfetto Trace Event Format JSON (gzip
// if path ends in .gz): its representatives in both runs aligned hierarchically, each side's
// calls and a track of the comparison states on the aligned time axis (align.Result.WriteChrome).
// It panics with an *Error for a group out of range or of one run only, or a failed write.
func (r *Result) WriteChrome(group int, path string) {
	const fn = "compare.Result.WriteChrome"
	defer work.RecoverAs(fn)
	_, pa, pb := r.groupPair(fn, group)
	a := align.Pair(pa, pb)
	if err := work.Try(func() { a.WriteChrome(path) }); err != nil {
		work.FailErr(fn, err)
	}
}
