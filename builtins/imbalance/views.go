package imbalance

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/plotting"
)

// Candidates lists the invoked functions for the choice of 6.2.1: first the function that
// segments the run, then the other functions that qualify, then those that do not (invoked
// fewer than 2p times, or synchronisation, see WithSyncCandidates), each part by aggregated
// inclusive time. Columns: Rank, Function, Invocations, Inclusive (ns) and Mean Inclusive
// (ns), Invoked >= 2p (whether the 2p rule admits it), Synchronisation, Qualifies, and Segments
// the Run. Empty for a Result made by Summarize.
func (r *Result) Candidates() *arrowio.Table {
	var skip []bool
	if !r.keepSync {
		skip = r.sync
	}
	var ids []int32
	if r.calls != nil {
		ids = r.calls.Ranked()
		part := func(id int32) int {
			switch {
			case id == r.fn:
				return 0
			case r.calls.Qualifies(id, skip):
				return 1
			}
			return 2
		}
		slices.SortStableFunc(ids, func(a, b int32) int { return cmp.Compare(part(a), part(b)) })
	}
	n := len(ids)
	rank, calls, incl, mean := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	name := make([]string, n)
	elig, syn, qual, dom := make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	for i, id := range ids {
		rank[i], name[i] = int64(i+1), r.tr.RegionName(id)
		calls[i], incl[i] = r.calls.Count[id], r.calls.Inclusive[id]
		mean[i] = incl[i] / calls[i]
		elig[i], dom[i] = r.calls.Eligible(id), id == r.fn
		syn[i], qual[i] = int(id) < len(r.sync) && r.sync[id], r.calls.Qualifies(id, skip)
	}
	return arrowio.MustTable(arrowio.Int64("Rank", rank), arrowio.String("Function", name),
		arrowio.Int64("Invocations", calls), arrowio.Int64("Inclusive (ns)", incl).WithUnit("ns"),
		arrowio.Int64("Mean Inclusive (ns)", mean).WithUnit("ns"), arrowio.Bool("Invoked >= 2p", elig),
		arrowio.Bool("Synchronisation", syn), arrowio.Bool("Qualifies", qual),
		arrowio.Bool("Segments the Run", dom))
}

// Segments has one row per segment: process, the process's invocation number, the iteration
// it is aligned to, start, end, duration, SOS-time and synchronisation time (ns).
func (r *Result) Segments() *arrowio.Table {
	n := len(r.segs)
	proc := make([]string, n)
	loc, inv, iter := make([]int32, n), make([]int64, n), make([]int64, n)
	start, end, dur, sos, syn := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, s := range r.segs {
		proc[i], loc[i], inv[i], iter[i] = r.label(s.Location), int32(s.Location), int64(s.Invocation), int64(s.Iteration)
		start[i], end[i], dur[i], sos[i], syn[i] = s.Start, s.End, s.Duration(), s.SOS(), s.Sync
	}
	return arrowio.MustTable(arrowio.Dict("Process", proc), arrowio.Int32("Location", loc),
		arrowio.Int64("Invocation", inv), arrowio.Int64("Iteration", iter), arrowio.Int64("Start (ns)", start),
		arrowio.Int64("End (ns)", end), arrowio.Int64("Duration (ns)", dur).WithUnit("ns"),
		arrowio.Int64("SOS-time (ns)", sos).WithUnit("ns"), arrowio.Int64("Sync (ns)", syn).WithUnit("ns"))
}

// Table is the main table of the result: Iterations.
func (r *Result) Table() *arrowio.Table { return r.Iterations() }

// Iterations has one row per iteration: its time span, the processes that have it, the largest
// and mean SOS-time, their ratio (imbalance), the recoverable time (max - mean), how many
// processes have the largest SOS-time, the culprit (empty on a tie, with one process, or when
// nothing is computed) and the synchronisation time summed over the processes (time lost to
// waiting).
func (r *Result) Iterations() *arrowio.Table { return r.iterationTable(r.iters) }

func (r *Result) iterationTable(its []Iteration) *arrowio.Table {
	n := len(its)
	idx, start, end, procs, maxs, rec, syn := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	atMax := make([]int64, n)
	mean, ratio := make([]float64, n), make([]float64, n)
	culprit := make([]string, n)
	for i, x := range its {
		idx[i], start[i], end[i], procs[i] = int64(x.Index), x.Start, x.End, int64(x.Processes)
		maxs[i], mean[i], ratio[i], rec[i], syn[i] = x.MaxSOS, x.MeanSOS, x.Ratio(), int64(math.Round(x.Recoverable)), x.Sync
		atMax[i], culprit[i] = int64(x.AtMax), r.label(x.Culprit)
	}
	return arrowio.MustTable(arrowio.Int64("Iteration", idx), arrowio.Int64("Start (ns)", start),
		arrowio.Int64("End (ns)", end), arrowio.Int64("Processes", procs),
		arrowio.Int64("Max SOS-time (ns)", maxs).WithUnit("ns"), arrowio.Float64("Mean SOS-time (ns)", mean).WithUnit("ns"),
		arrowio.Float64("Max/Mean", ratio), arrowio.Int64("Recoverable (ns)", rec).WithUnit("ns"),
		arrowio.Int64("At Max", atMax), arrowio.Dict("Culprit", culprit), arrowio.Int64("Sync (ns)", syn).WithUnit("ns"))
}

// Processes has one row per analysed process: its segments, summed SOS-time and
// synchronisation time, in how many iterations it is the slowest alone (and which share of the
// iterations with two or more processes that is), and in how many it ties for the slowest.
func (r *Result) Processes() *arrowio.Table {
	n := len(r.perProc)
	proc := make([]string, n)
	loc := make([]int32, n)
	segs, sos, syn, slow, tied := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	share := make([]float64, n)
	iters := r.compared()
	for i, p := range r.perProc {
		proc[i], loc[i] = r.label(p.Location), int32(p.Location)
		segs[i], sos[i], syn[i], slow[i], tied[i] = int64(p.Segments), p.SOS, p.Sync, int64(p.Slowest), int64(p.Tied)
		if iters > 0 {
			share[i] = float64(p.Slowest) / float64(iters)
		}
	}
	return arrowio.MustTable(arrowio.Dict("Process", proc), arrowio.Int32("Location", loc),
		arrowio.Int64("Segments", segs), arrowio.Int64("SOS-time (ns)", sos).WithUnit("ns"),
		arrowio.Int64("Sync (ns)", syn).WithUnit("ns"), arrowio.Int64("Slowest in", slow),
		arrowio.Float64("Slowest Share", share), arrowio.Int64("Tied in", tied))
}

// compared counts the iterations with two or more processes: those that can have a culprit.
func (r *Result) compared() int {
	n := 0
	for _, x := range r.iters {
		if x.Processes > 1 {
			n++
		}
	}
	return n
}

func (r *Result) label(loc int) string {
	if loc < 0 {
		return ""
	}
	return r.tr.Process(loc).Label()
}

// Plot draws the SOS-time of every segment on a rank x time heatmap (cold blue for short,
// warm red for long; Weber Figs. 6.11-6.13) with the iteration boundaries, and beneath it the
// imbalance (max/mean SOS-time) per iteration. Rows that do not fit are binned by their
// maximum, so that one slow rank among thousands stays red.
func (r *Result) Plot() *plotting.Figure {
	title := "SOS-time of " + r.Function()
	if len(r.segs) == 0 {
		return plotting.Heatmap(title, nil, nil, nil)
	}
	t0, t1 := r.segs[0].Start, r.segs[0].End
	for _, s := range r.segs {
		t0, t1 = min(t0, s.Start), max(t1, s.End)
	}
	if t1 <= t0 {
		t1 = t0 + 1
	}
	labels, values := r.grid(t0, t1, 600, 1024)
	var marks, xs, ys []float64
	for _, x := range r.iters {
		if x.Processes == 0 {
			continue
		}
		marks = append(marks, float64(x.Start)/1e9)
		xs, ys = append(xs, float64(x.Start)/1e9), append(ys, x.Ratio())
	}
	heat := plotting.Heatmap(title, labels, nil, values, plotting.WithColdWarm(), plotting.WithBinMax(),
		plotting.WithXRange(float64(t0)/1e9, float64(t1)/1e9), plotting.WithMarks(marks...),
		plotting.WithXLabel("time"), plotting.WithXUnit(plotting.Seconds), plotting.WithYLabel("process"),
		plotting.WithColorUnit(plotting.Milliseconds))
	// The line on the heatmap's time axis, so that the stack's x axes agree.
	line := plotting.Lines("imbalance per iteration", "iteration start", "max / mean SOS-time",
		plotting.Series{Name: "max/mean", X: xs, Y: ys}).XUnit(plotting.Seconds)
	if len(xs) > 0 {
		line = line.XRange(float64(t0)/1e9, float64(t1)/1e9)
	}
	return plotting.Stack("runtime imbalance: "+r.Function(), heat, line)
}

// grid is the heatmap's data: per row and per column of [t0, t1) the largest SOS-time (ms) of
// the segments overlapping it, NaN where none does. A row is one process, or k consecutive
// processes (their maximum) when there are more than maxRows, so that the grid stays small for
// any run (the heatmap bins it further, also by the maximum).
func (r *Result) grid(t0, t1 int64, cols, maxRows int) ([]string, [][]float64) {
	k := (len(r.procs) + maxRows - 1) / maxRows
	labels := make([]string, (len(r.procs)+k-1)/k)
	values := make([][]float64, len(labels))
	for i := range labels {
		labels[i] = r.procs[i*k].Label()
		if last := r.procs[min(len(r.procs), (i+1)*k)-1]; last != r.procs[i*k] {
			labels[i] += " – " + last.Label()
		}
		values[i] = make([]float64, cols)
		for j := range values[i] {
			values[i][j] = math.NaN()
		}
	}
	row := make(map[int]int, len(r.procs))
	for i, p := range r.procs {
		row[p.Index] = i / k
	}
	span := float64(t1 - t0)
	for _, s := range r.segs {
		v, ok := row[s.Location]
		if !ok {
			continue
		}
		a := max(int(float64(s.Start-t0)/span*float64(cols)), 0)
		b := min(int(float64(s.End-t0)/span*float64(cols)), cols-1)
		ms := float64(s.SOS()) / 1e6
		for j := a; j <= b; j++ {
			if x := values[v][j]; math.IsNaN(x) || ms > x {
				values[v][j] = ms
			}
		}
	}
	return labels, values
}

// String is the headline: the segmenting function and the answer to "which rank, which
// iterations, how much time", with ties and balanced iterations said as such.
func (r *Result) String() string {
	var b strings.Builder
	how := "dominant function"
	if r.chosen {
		how = "segmenting function (chosen)"
	}
	fmt.Fprintf(&b, "%s %s: %s invocations on %d processes", how, r.Function(), arrowio.FormatCount(int64(len(r.segs))), len(r.procs))
	if r.calls != nil && !r.chosen && !r.keepSync {
		if left := leftOut(r.tr.RegionName, r.calls, r.sync, r.fn); left != "" {
			fmt.Fprintf(&b, " (ranked above it but left out as synchronisation, SOS-time 0: %s; WithSyncCandidates keeps them)", left)
		}
	}
	var rec float64
	var syn int64
	computed, balanced, ties, single := false, true, 0, 0
	for _, x := range r.iters {
		rec += x.Recoverable
		syn += x.Sync
		computed = computed || x.MaxSOS > 0
		balanced = balanced && x.Recoverable == 0
		if x.Processes < 2 {
			single++
		} else if x.AtMax > 1 && x.MaxSOS > 0 {
			ties++
		}
	}
	switch w, ok := r.Worst(); {
	case !ok:
	case len(r.procs) == 1:
		lo, hi := r.segs[0].SOS(), r.segs[0].SOS()
		for _, s := range r.segs {
			lo, hi = min(lo, s.SOS()), max(hi, s.SOS())
		}
		fmt.Fprintf(&b, "; one process, so no other to compare it with (SOS-times from %s to %s)",
			arrowio.FormatDuration(lo), arrowio.FormatDuration(hi))
	case !computed:
		fmt.Fprintf(&b, "; every SOS-time is 0: %s runs only synchronisation, so it shows no imbalance (segment by a computing function with WithFunction)", r.Function())
	case balanced:
		b.WriteString("; every iteration is balanced: in each, all processes have the same SOS-time")
	default:
		who := "culprit " + r.label(w.Culprit)
		if w.Culprit < 0 {
			who = fmt.Sprintf("%d processes tied at the largest", w.AtMax)
		}
		fmt.Fprintf(&b, "; worst iteration %d (max/mean SOS-time %.3g, %s, %s recoverable)",
			w.Index, w.Ratio(), who, arrowio.FormatDuration(int64(math.Round(w.Recoverable))))
	}
	compared := r.compared()
	switch c := r.culprits(); {
	case len(c) == 1:
		p := r.perProc[c[0]]
		fmt.Fprintf(&b, "; %s is the slowest in %d of %d iterations", r.label(p.Location), p.Slowest, compared)
	case len(c) > 1:
		var names []string
		for i, j := range c {
			if i == 3 {
				names = append(names, fmt.Sprintf("%d more", len(c)-3))
				break
			}
			names = append(names, r.label(r.perProc[j].Location))
		}
		last := len(names) - 1
		fmt.Fprintf(&b, "; %s and %s are each the slowest in %d of %d iterations", strings.Join(names[:last], ", "), names[last],
			r.perProc[c[0]].Slowest, compared)
	case computed && !balanced:
		b.WriteString("; no process is the slowest alone in any iteration")
	}
	if ties > 0 && !balanced {
		fmt.Fprintf(&b, "; %d of %d iterations tied at the largest SOS-time", ties, compared)
	}
	if single > 0 && len(r.procs) > 1 {
		fmt.Fprintf(&b, "; %d iterations of one process only (invocations the other processes do not have, such as set-up calls; iterations are aligned by start time)", single)
	}
	fmt.Fprintf(&b, "; recoverable by perfect balance %s in all, time in synchronisation %s summed over processes",
		arrowio.FormatDuration(int64(math.Round(rec))), arrowio.FormatDuration(syn))
	return b.String()
}

// shownIterations is the number of iterations MIMEBundle shows.
const shownIterations = 10

// MIMEBundle shows the result as every method's result shows (display.Compose): the headline,
// the rows of Table with the largest recoverable time (the 10 worst iterations, with a note
// when there are more) and Plot.
func (r *Result) MIMEBundle() map[string]any {
	worst := slices.Clone(r.iters)
	slices.SortStableFunc(worst, func(a, b Iteration) int { return cmp.Compare(b.Recoverable, a.Recoverable) })
	note := ""
	if len(worst) > shownIterations {
		worst = worst[:shownIterations]
		note = fmt.Sprintf("the %d of %s iterations with the most recoverable time; Table() has them all",
			shownIterations, arrowio.FormatCount(int64(len(r.iters))))
	}
	return display.Composition{Headline: r.String(), Table: r.iterationTable(worst), Note: note,
		Figures: []display.MIMEBundler{r.Plot()}}.MIMEBundle()
}
