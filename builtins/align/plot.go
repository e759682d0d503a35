package align

import (
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting"
)

// sides names the two sides of a comparison for figures: the runs (traces) and the processes.
type sides struct {
	runA, runB   string // "" when both processes come from one trace
	procA, procB string // process labels such as "rank 3"
}

func sidesOf(p, q *trace.Process) sides {
	s := sides{procA: p.Label(), procB: q.Label()}
	if p.Trace != q.Trace {
		s.runA, s.runB = runNames(p.Trace, q.Trace)
	}
	return s
}

// lane is the name of side A (a) or B: "run · process", or the process alone within one run;
// fallback for results without processes.
func (s sides) lane(a bool, fallback string) string {
	run, proc := s.runB, s.procB
	if a {
		run, proc = s.runA, s.procA
	}
	switch {
	case proc == "":
		return fallback
	case run == "":
		return proc
	}
	return run + " · " + proc
}

// run is the name of run A (a) or B, or the lane name when both sides are of one run.
func (s sides) run(a bool, fallback string) string {
	r := s.runB
	if a {
		r = s.runA
	}
	if r != "" {
		return r
	}
	return s.lane(a, fallback)
}

// runNames names two runs for headlines and figures: each trace's Name ((*trace.Trace).Name),
// or "A" / "B" for a trace nothing names; equal names get " (A)" and " (B)" (docs/surface.md).
func runNames(a, b *trace.Trace) (string, string) { return labels.Pair(a, b, "A", "B") }

// stateNames are the legend entries of the state lane; GapA is a pair present only in B.
func stateNames(nameA, nameB string) [4]string {
	return [4]string{
		Equal: "Equal",
		Diff:  "Diff",
		GapA:  "GapA: only in " + nameB,
		GapB:  "GapB: only in " + nameA,
	}
}

// stateRuns calls f for each run [k, e) of pairs of one state s, in order.
func stateRuns(state []State, f func(k, e int, s State)) {
	for k := 0; k < len(state); {
		e := k
		for e < len(state) && state[e] == state[k] {
			e++
		}
		f(k, e, state[k])
		k = e
	}
}

// stateBars is the state lane: one bar per run of equal states, grouped by state in the order
// Equal, Diff, GapA, GapB (the legend's order), each in the colour of plotting.StateColor.
func stateBars(state []State, names [4]string, x []float64) []plotting.Bar {
	var byState [4][]plotting.Bar
	stateRuns(state, func(k, e int, s State) {
		byState[s] = append(byState[s], plotting.Bar{Start: x[k], End: x[e], Label: names[s],
			Color: int(s), Fill: plotting.StateColor(int(s))})
	})
	var out []plotting.Bar
	for _, bs := range byState {
		out = append(out, bs...)
	}
	return out
}
