package imbalance

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/plotting"
)

// Candidates ranks the invoked functions by aggregated inclusive time (6.2.1): invocations,
// inclusive time and its mean, whether the 2p rule admits the function, and which one segments
// the run. Empty for a Result made by Summarize.
func (r *Result) Candidates() *arrowio.Table {
	var ids []int32
	if r.calls != nil {
		ids = r.calls.Ranked()
	}
	n := len(ids)
	rank, calls, incl, mean := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	name := make([]string, n)
	elig, dom := make([]bool, n), make([]bool, n)
	for i, id := range ids {
		rank[i], name[i] = int64(i+1), r.tr.RegionName(id)
		calls[i], incl[i] = r.calls.Count[id], r.calls.Inclusive[id]
		mean[i] = incl[i] / calls[i]
		elig[i], dom[i] = r.calls.Eligible(id), id == r.fn
	}
	return arrowio.MustTable(arrowio.Int64("rank", rank), arrowio.String("function", name),
		arrowio.Int64("invocations", calls), arrowio.Int64("inclusive (ns)", incl).WithUnit("ns"),
		arrowio.Int64("mean inclusive (ns)", mean).WithUnit("ns"), arrowio.Bool("invoked >= 2p", elig),
		arrowio.Bool("segments the run", dom))
}

// Segments has one row per segment: process, iteration, start, end, duration, SOS-time and
// synchronisation time (ns).
func (r *Result) Segments() *arrowio.Table {
	n := len(r.segs)
	proc := make([]string, n)
	loc, iter := make([]int32, n), make([]int64, n)
	start, end, dur, sos, syn := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, s := range r.segs {
		proc[i], loc[i], iter[i] = r.label(s.Location), int32(s.Location), int64(s.Iteration)
		start[i], end[i], dur[i], sos[i], syn[i] = s.Start, s.End, s.Duration(), s.SOS(), s.Sync
	}
	return arrowio.MustTable(arrowio.Dict("process", proc), arrowio.Int32("location", loc),
		arrowio.Int64("iteration", iter), arrowio.Int64("start (ns)", start).WithUnit("ns"),
		arrowio.Int64("end (ns)", end).WithUnit("ns"), arrowio.Int64("duration (ns)", dur).WithUnit("ns"),
		arrowio.Int64("SOS-time (ns)", sos).WithUnit("ns"), arrowio.Int64("sync (ns)", syn).WithUnit("ns"))
}

// Iterations has one row per iteration: its time span, the processes that have it, the largest
// and mean SOS-time, their ratio (imbalance), the recoverable time (max - mean), the culprit
// and the synchronisation time summed over the processes (time lost to waiting).
func (r *Result) Iterations() *arrowio.Table { return r.iterationTable(r.iters) }

func (r *Result) iterationTable(its []Iteration) *arrowio.Table {
	n := len(its)
	idx, start, end, procs, maxs, rec, syn := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	mean, ratio := make([]float64, n), make([]float64, n)
	culprit := make([]string, n)
	for i, x := range its {
		idx[i], start[i], end[i], procs[i] = int64(x.Index), x.Start, x.End, int64(x.Processes)
		maxs[i], mean[i], ratio[i], rec[i], syn[i] = x.MaxSOS, x.MeanSOS, x.Ratio(), int64(math.Round(x.Recoverable)), x.Sync
		culprit[i] = r.label(x.Culprit)
	}
	return arrowio.MustTable(arrowio.Int64("iteration", idx), arrowio.Int64("start (ns)", start).WithUnit("ns"),
		arrowio.Int64("end (ns)", end).WithUnit("ns"), arrowio.Int64("processes", procs),
		arrowio.Int64("max SOS-time (ns)", maxs).WithUnit("ns"), arrowio.Float64("mean SOS-time (ns)", mean),
		arrowio.Float64("max/mean", ratio), arrowio.Int64("recoverable (ns)", rec).WithUnit("ns"),
		arrowio.Dict("culprit", culprit), arrowio.Int64("sync (ns)", syn).WithUnit("ns"))
}

// Processes has one row per analysed process: its segments, summed SOS-time and
// synchronisation time, and in how many iterations (and which share of them) it is the slowest.
func (r *Result) Processes() *arrowio.Table {
	n := len(r.perProc)
	proc := make([]string, n)
	loc := make([]int32, n)
	segs, sos, syn, slow := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	share := make([]float64, n)
	iters := 0
	for _, x := range r.iters {
		if x.Processes > 0 {
			iters++
		}
	}
	for i, p := range r.perProc {
		proc[i], loc[i] = r.label(p.Location), int32(p.Location)
		segs[i], sos[i], syn[i], slow[i] = int64(p.Segments), p.SOS, p.Sync, int64(p.Slowest)
		if iters > 0 {
			share[i] = float64(p.Slowest) / float64(iters)
		}
	}
	return arrowio.MustTable(arrowio.Dict("process", proc), arrowio.Int32("location", loc),
		arrowio.Int64("segments", segs), arrowio.Int64("SOS-time (ns)", sos).WithUnit("ns"),
		arrowio.Int64("sync (ns)", syn).WithUnit("ns"), arrowio.Int64("slowest in", slow),
		arrowio.Float64("slowest share", share))
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
	title := fmt.Sprintf("SOS-time of %s (ms)", r.Function())
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
		plotting.WithXLabel("time (s)"), plotting.WithYLabel("process"))
	line := plotting.Lines("imbalance per iteration", "iteration start (s)", "max / mean SOS-time",
		plotting.Series{Name: "max/mean", X: xs, Y: ys})
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
// iterations, how much time".
func (r *Result) String() string {
	var b strings.Builder
	how := "dominant function"
	if r.chosen {
		how = "segmenting function (chosen)"
	}
	var calls int64
	for _, p := range r.perProc {
		calls += int64(p.Segments)
	}
	fmt.Fprintf(&b, "%s %s: %s invocations on %d processes", how, r.Function(), arrowio.FormatCount(calls), len(r.procs))
	var rec float64
	var syn int64
	for _, x := range r.iters {
		rec += x.Recoverable
		syn += x.Sync
	}
	if w, ok := r.Worst(); ok && w.Culprit < 0 {
		fmt.Fprintf(&b, "; every SOS-time is 0: %s runs only synchronisation, so it shows no imbalance (segment by a computing function with WithFunction)", r.Function())
	} else if ok {
		fmt.Fprintf(&b, "; worst iteration %d (max/mean SOS-time %.3g, culprit %s, %s recoverable)",
			w.Index, w.Ratio(), r.label(w.Culprit), arrowio.FormatDuration(int64(math.Round(w.Recoverable))))
	}
	if i := r.culprit(); i >= 0 {
		p := r.perProc[i]
		fmt.Fprintf(&b, "; %s is the slowest in %d of %d iterations", r.label(p.Location), p.Slowest, len(r.iters))
	}
	fmt.Fprintf(&b, "; recoverable by perfect balance %s in all, time in synchronisation %s summed over processes",
		arrowio.FormatDuration(int64(math.Round(rec))), arrowio.FormatDuration(syn))
	return b.String()
}

// MIMEBundle renders the headline, the iterations with the largest recoverable time and the plot.
func (r *Result) MIMEBundle() map[string]any {
	line := r.String()
	worst := slices.Clone(r.iters)
	slices.SortStableFunc(worst, func(a, b Iteration) int { return cmp.Compare(b.Recoverable, a.Recoverable) })
	note := ""
	if len(worst) > 10 {
		worst = worst[:10]
		note = "<p>the 10 of " + strconv.Itoa(len(r.iters)) + " iterations with the most recoverable time; all in r.Iterations()</p>"
	}
	tb := r.iterationTable(worst).MIMEBundle()
	h, _ := tb["text/html"].(string)
	return map[string]any{
		"text/plain": line + "\n" + fmt.Sprint(tb["text/plain"]),
		"text/html":  "<p><b>" + html.EscapeString(line) + "</b></p>" + h + note + r.Plot().HTMLImage(),
	}
}
