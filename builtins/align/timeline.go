package align

import (
	"fmt"
	"math"

	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Timeline returns the alignment as an interactive timeline (plotting.LiveTimeline), as Plot
// draws it: the calls of A, the comparison states (Equal, Diff, GapA, GapB in
// plotting.StateColor, over the lane's full height) and the calls of B, on the aligned time
// axis of Weber Fig. 4.2 in ns (each pair as long as its longer side: both sides' calls line
// up; the runs' real times are not on it). For aligned sequences (no times) a pair is 1 ns
// long. Every pair's call is a bar (Plot leaves out the narrowest), its level the call depth.
func (r *Result) Timeline() *plotting.LiveTimeline {
	const fn = "align.Result.Timeline"
	defer work.RecoverAs(fn)
	n := len(r.state)
	if err := work.Reserve(fn, int64(n)*2*64); err != nil {
		panic(err)
	}
	vt := r.axis()
	x := make([]int64, len(vt))
	for k, v := range vt {
		x[k] = int64(math.Round(v))
	}
	laneA := plotting.LiveLane{Name: r.sides.lane(true, r.LabelA), Kind: plotting.LaneCalls, Info: "run A: " + r.sides.lane(true, r.LabelA)}
	laneB := plotting.LiveLane{Name: r.sides.lane(false, r.LabelB), Kind: plotting.LaneCalls, Info: "run B: " + r.sides.lane(false, r.LabelB)}
	for k := range n {
		if k&(1<<16-1) == 0 {
			work.Check()
		}
		start, end, lvl := x[k], x[r.end[k]], int(r.depth[k])-1
		if i := r.ia[k]; i >= 0 {
			laneA.Bars = append(laneA.Bars, plotting.LiveBar{Start: start, End: end, Level: lvl, Label: r.names[r.a[i]]})
		}
		if j := r.ib[k]; j >= 0 {
			laneB.Bars = append(laneB.Bars, plotting.LiveBar{Start: start, End: end, Level: lvl, Label: r.names[r.b[j]]})
		}
	}
	runA, runB := r.sides.run(true, r.LabelA), r.sides.run(false, r.LabelB)
	names := stateNames(runA, runB)
	states := plotting.LiveLane{Name: "state", Kind: plotting.LaneStates,
		Info: fmt.Sprintf("Equal: the same call in both; Diff: different calls aligned; %s; %s", names[GapA], names[GapB])}
	stateRuns(r.state, func(k, e int, s State) {
		states.Bars = append(states.Bars, plotting.LiveBar{Start: x[k], End: x[e], Label: names[s], Fill: plotting.StateColor(int(s))})
	})
	title := laneA.Name + " vs " + laneB.Name
	if s := r.sides; s.procA != "" && s.procA == s.procB && s.runA != "" {
		title = fmt.Sprintf("%s: %s vs %s", s.procA, s.runA, s.runB)
	}
	lt := &plotting.LiveTimeline{Title: "alignment " + title, Lanes: []plotting.LiveLane{laneA, states, laneB}}
	if r.enterA != nil {
		lt.Notes = append(lt.Notes, "time is the aligned (virtual) time of Weber Fig. 4.2: each aligned pair as long as its longer side, so that both sides' calls line up; the runs' own times are in Table()")
	} else {
		lt.Notes = append(lt.Notes, "aligned sequences without times: each pair is drawn 1 ns long")
	}
	if n > 0 {
		lt.Start, lt.End = x[0], max(x[n], x[0]+1)
	}
	return lt
}

// Timeline returns the timeline of the alignment of row i (Names[i]), as Result.Timeline; it
// panics with an *Error for a row out of range or a location of one run only.
func (rr *RunsResult) Timeline(row int) *plotting.LiveTimeline {
	const fn = "align.RunsResult.Timeline"
	if row < 0 || row >= len(rr.Results) {
		fail(fn, "row %d out of range: the result has rows 0..%d", row, len(rr.Results)-1)
	}
	if rr.Results[row] == nil {
		fail(fn, "row %d (%s) is a location of one run only: nothing is aligned", row, rr.Names[row])
	}
	return rr.Results[row].Timeline()
}
