package waits

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting"
)

// label names location index i of the trace ("rank 3").
func (r *Result) label(i int32) string {
	if i < 0 || int(i) >= len(r.procs) {
		return ""
	}
	return r.procs[i].Label()
}

// rank returns the rank of location index i.
func (r *Result) rank(i int32) int32 {
	if i < 0 || int(i) >= len(r.procs) {
		return -1
	}
	return r.procs[i].Rank
}

// leaf returns the name of the region of call path p ("" for path 0).
func (r *Result) leaf(p int32) string {
	if p <= 0 || int(p) >= len(r.pRegion) {
		return ""
	}
	return r.tr.RegionName(r.pRegion[p])
}

// totalWait returns the waiting time of every kind, summed.
func (r *Result) totalWait() (byKind [numKinds]int64, all int64) {
	for i := range r.inst {
		byKind[r.inst[i].Kind] += r.inst[i].Wait
		all += r.inst[i].Wait
	}
	return byKind, all
}

// pathRow is one row of Table: a kind of wait at one call path.
type pathRow struct {
	kind      Kind
	path      int32
	instances int64
	wait      int64
	locs      int64
}

func (r *Result) pathRows() []pathRow {
	type key struct {
		kind Kind
		path int32
	}
	idx := map[key]int{}
	var rows []pathRow
	seen := map[[2]int64]bool{}
	for i := range r.inst {
		in := &r.inst[i]
		k := key{in.Kind, in.Path}
		j, ok := idx[k]
		if !ok {
			j = len(rows)
			idx[k] = j
			rows = append(rows, pathRow{kind: in.Kind, path: in.Path})
		}
		rows[j].instances++
		rows[j].wait += in.Wait
		if s := [2]int64{int64(j), int64(in.Process)}; !seen[s] {
			seen[s] = true
			rows[j].locs++
		}
	}
	slices.SortFunc(rows, func(a, b pathRow) int {
		return cmp.Or(cmp.Compare(b.wait, a.wait), cmp.Compare(a.kind, b.kind), cmp.Compare(a.path, b.path))
	})
	return rows
}

// Table returns the main table: the waiting time per kind and call path of
// the waiting calls, the largest first: Kind, Call Path, Function (the MPI
// call), Instances, Locations (that wait there), Wait (ns) and Share (of
// all waiting time).
func (r *Result) Table() *arrowio.Table { return r.pathTable(r.pathRows()) }

func (r *Result) pathTable(rows []pathRow) *arrowio.Table {
	_, all := r.totalWait()
	n := len(rows)
	kind, path, fn := make([]string, n), make([]string, n), make([]string, n)
	inst, locs, wait := make([]int64, n), make([]int64, n), make([]int64, n)
	share := make([]float64, n)
	for i, x := range rows {
		kind[i], path[i], fn[i] = x.kind.String(), r.PathName(x.path), r.leaf(x.path)
		inst[i], locs[i], wait[i] = x.instances, x.locs, x.wait
		share[i] = frac(x.wait, all)
	}
	return arrowio.MustTable(arrowio.Dict("Kind", kind), arrowio.String("Call Path", path), arrowio.Dict("Function", fn),
		arrowio.Int64("Instances", inst), arrowio.Int64("Locations", locs), arrowio.Int64("Wait (ns)", wait).WithUnit("ns"),
		arrowio.Float64("Share", share))
}

func frac(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Instances returns one row per wait state, by location and time: Kind,
// Rank, Process, Call Path, Enter (ns), Leave (ns), Wait (ns), Culprit
// Rank and Culprit (null for the completion kinds), Culprit Enter (ns) and
// Clipped (the culprit entered after the call was left: clocks out of
// step).
func (r *Result) Instances() *arrowio.Table {
	n := len(r.inst)
	kind, proc, path, culprit := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	rank, crank := make([]int32, n), make([]int32, n)
	enter, leave, wait, center := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	valid := make([]bool, n)
	clipped := make([]bool, n)
	names := map[int32]string{}
	for i, j := range r.order {
		in := &r.inst[j]
		kind[i], proc[i], rank[i] = in.Kind.String(), r.label(in.Process), r.rank(in.Process)
		name, ok := names[in.Path]
		if !ok {
			name = r.PathName(in.Path)
			names[in.Path] = name
		}
		path[i] = name
		enter[i], leave[i], wait[i], clipped[i] = in.Enter, in.Leave, in.Wait, in.Clipped
		if in.Culprit >= 0 {
			valid[i] = true
			culprit[i], crank[i], center[i] = r.label(in.Culprit), r.rank(in.Culprit), in.CulpritEnter
		}
	}
	return arrowio.MustTable(arrowio.Dict("Kind", kind), arrowio.Int32("Rank", rank), arrowio.Dict("Process", proc),
		arrowio.Dict("Call Path", path), arrowio.Int64("Enter (ns)", enter), arrowio.Int64("Leave (ns)", leave),
		arrowio.Int64("Wait (ns)", wait).WithUnit("ns"), arrowio.NullableInt32("Culprit Rank", crank, valid),
		arrowio.NullableDict("Culprit", culprit, valid), arrowio.NullableInt64("Culprit Enter (ns)", center, valid),
		arrowio.Bool("Clipped", clipped))
}

// Processes returns one row per location: Rank, Process, Time (ns) (first
// to last event), MPI (ns) (in MPI calls that communicate or synchronise),
// the waiting time of each kind that occurs (ns), Waiting (ns) (all
// kinds), Caused (ns) (waiting of others this location was the culprit
// of), Delay Cost (ns) (waiting anywhere its excess execution time caused,
// directly or passed on: the root causes; see Delays) and Critical Path
// (ns) (its time on the critical path).
func (r *Result) Processes() *arrowio.Table {
	n := len(r.pc)
	rank := make([]int32, n)
	proc := make([]string, n)
	span, mpi, waiting, caused, onPath := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	var byKind [numKinds][]int64
	for k := range byKind {
		byKind[k] = make([]int64, n)
	}
	for i, c := range r.pc {
		rank[i], proc[i] = c.rank, r.label(c.proc)
		span[i], mpi[i] = c.last-c.first, r.mpiTime(i)
	}
	for i := range r.inst {
		in := &r.inst[i]
		byKind[in.Kind][in.at] += in.Wait
		waiting[in.at] += in.Wait
		if in.cAt >= 0 {
			caused[in.cAt] += in.Wait
		}
	}
	for _, s := range r.segs {
		onPath[s.at] += s.End - s.Start
	}
	cols := []arrowio.Column{arrowio.Int32("Rank", rank), arrowio.Dict("Process", proc), arrowio.Int64("Time (ns)", span).WithUnit("ns"),
		arrowio.Int64("MPI (ns)", mpi).WithUnit("ns")}
	for k := range byKind {
		if slices.ContainsFunc(byKind[k], func(v int64) bool { return v != 0 }) {
			cols = append(cols, arrowio.Int64(arrowio.TitleCase(Kind(k).String())+" (ns)", byKind[k]).WithUnit("ns"))
		}
	}
	cols = append(cols, arrowio.Int64("Waiting (ns)", waiting).WithUnit("ns"), arrowio.Int64("Caused (ns)", caused).WithUnit("ns"),
		arrowio.Int64("Delay Cost (ns)", slices.Clone(r.delayAt)).WithUnit("ns"), arrowio.Int64("Critical Path (ns)", onPath).WithUnit("ns"))
	return arrowio.MustTable(cols...)
}

// Delays returns the delay costs (Böhme et al.): per call path on the
// culprits, the waiting time its excess execution time caused, directly
// (short-term) or through the waits it made the culprits pass on
// (long-term), the largest first: Kind (of the wait the delay directly
// caused), Call Path, Function, Cost (ns) and Share (of all waiting that
// has a culprit). Waiting that no excess explains is a row of its own, Call
// Path "(no excess: not attributed)".
func (r *Result) Delays() *arrowio.Table {
	var all int64
	for i := range r.inst {
		if in := &r.inst[i]; in.Kind.HasCulprit() && !in.Clipped && in.cAt >= 0 {
			all += in.Wait
		}
	}
	var kind, path, fn []string
	var cost []int64
	var share []float64
	for _, d := range r.DelayRows() {
		kind, path, cost = append(kind, d.Kind.String()), append(path, d.Path), append(cost, d.Cost)
		fn = append(fn, lastName(d.Path))
		share = append(share, frac(d.Cost, all))
	}
	for k, v := range r.unattributed {
		if v > 0 {
			kind, path, cost = append(kind, Kind(k).String()), append(path, "(no excess: not attributed)"), append(cost, v)
			fn = append(fn, "")
			share = append(share, frac(v, all))
		}
	}
	return arrowio.MustTable(arrowio.Dict("Kind", kind), arrowio.String("Call Path", path), arrowio.Dict("Function", fn),
		arrowio.Int64("Cost (ns)", cost).WithUnit("ns"), arrowio.Float64("Share", share))
}

// lastName returns the last region of a call path's name.
func lastName(path string) string {
	if i := strings.LastIndex(path, " → "); i >= 0 {
		return path[i+len(" → "):]
	}
	return path
}

// CriticalPath returns the critical path per call path, the longest first:
// Call Path, Function, Path (ns) (its time on the critical path), Share
// (of the path's length), Total (ns) (its time over all locations), Mean
// per Location (ns) and Imbalance (Path over Mean per Location: above 1, a
// location's share of this call path holds the run up; Böhme et al.'s
// critical-path imbalance, as a ratio).
func (r *Result) CriticalPath() *arrowio.Table {
	var ids []int32
	for p, v := range r.pathTime {
		if v != 0 {
			ids = append(ids, int32(p))
		}
	}
	slices.SortFunc(ids, func(a, b int32) int { return cmp.Or(cmp.Compare(r.pathTime[b], r.pathTime[a]), cmp.Compare(a, b)) })
	n := len(ids)
	path, fn := make([]string, n), make([]string, n)
	pt, total := make([]int64, n), make([]int64, n)
	share, mean, imb := make([]float64, n), make([]float64, n), make([]float64, n)
	locs := max(1, len(r.pc))
	for i, p := range ids {
		path[i], fn[i], pt[i], total[i] = r.PathName(p), r.leaf(p), r.pathTime[p], r.totalTime[p]
		share[i] = frac(pt[i], r.pathLength)
		mean[i] = float64(total[i]) / float64(locs)
		imb[i] = math.NaN()
		if mean[i] > 0 {
			imb[i] = float64(pt[i]) / mean[i]
		}
	}
	return arrowio.MustTable(arrowio.String("Call Path", path), arrowio.Dict("Function", fn), arrowio.Int64("Path (ns)", pt).WithUnit("ns"),
		arrowio.Float64("Share", share), arrowio.Int64("Total (ns)", total).WithUnit("ns"),
		arrowio.Float64("Mean per Location (ns)", mean).WithUnit("ns"), arrowio.Float64("Imbalance", imb))
}

// Segments returns the critical path's segments by time: Rank, Process,
// Start (ns), End (ns), Duration (ns).
func (r *Result) Segments() *arrowio.Table {
	n := len(r.segs)
	rank := make([]int32, n)
	proc := make([]string, n)
	start, end, dur := make([]int64, n), make([]int64, n), make([]int64, n)
	for i, s := range r.segs {
		rank[i], proc[i] = r.rank(s.Process), r.label(s.Process)
		start[i], end[i], dur[i] = s.Start, s.End, s.End-s.Start
	}
	return arrowio.MustTable(arrowio.Int32("Rank", rank), arrowio.Dict("Process", proc), arrowio.Int64("Start (ns)", start),
		arrowio.Int64("End (ns)", end), arrowio.Int64("Duration (ns)", dur).WithUnit("ns"))
}

// plotRows and plotCols bound the heatmap of Plot.
const (
	plotRows = 64
	plotCols = 240
)

// Plot draws the share of time each location spends waiting over the
// run (all kinds; locations grouped into at most 64 rows), with the
// critical path's jumps between locations marked by its segments' starts.
func (r *Result) Plot() *plotting.Figure {
	n := len(r.pc)
	title := "Share of time waiting"
	if n == 0 || r.tEnd <= r.t0 {
		return plotting.Heatmap(title+" (no events)", []string{""}, []string{""}, [][]float64{{0}})
	}
	k := (n + plotRows - 1) / plotRows
	rows := (n + k - 1) / k
	labels := make([]string, rows)
	size := make([]int, rows)
	for i, c := range r.pc {
		row := i / k
		size[row]++
		if size[row] == 1 {
			labels[row] = r.label(c.proc)
		} else {
			labels[row] = fmt.Sprintf("%s …%d", strings.SplitN(labels[row], " …", 2)[0], size[row])
		}
	}
	span := float64(r.tEnd - r.t0)
	bin := span / plotCols
	values := make([][]float64, rows)
	for i := range values {
		values[i] = make([]float64, plotCols)
	}
	for i := range r.inst {
		in := &r.inst[i]
		a, b := float64(in.Enter-r.t0), float64(in.Enter+in.Wait-r.t0)
		row := int(in.at) / k
		for j := max(0, int(a/bin)); j < plotCols && float64(j)*bin < b; j++ {
			lo, hi := max(a, float64(j)*bin), min(b, float64(j+1)*bin)
			if hi > lo {
				values[row][j] += (hi - lo) / bin / float64(size[row])
			}
		}
	}
	cols := make([]string, plotCols)
	for j := range cols {
		cols[j] = arrowio.FormatDuration(int64(float64(j) * bin))
	}
	_, all := r.totalWait()
	title = fmt.Sprintf("%s: %s of waiting over %d locations; critical path %s", title, arrowio.FormatDuration(all), n, arrowio.FormatDuration(r.pathLength))
	return plotting.Heatmap(title, labels, cols, values, plotting.WithXLabel("time since the first event"),
		plotting.WithYLabel("location"), plotting.WithColorRange(0, 1))
}

// String is the headline: how much time waits, of which kinds, who causes
// it, which code delays, and what the critical path runs through.
func (r *Result) String() string {
	var b strings.Builder
	name := r.tr.Name()
	if name == "" {
		name = "trace"
	}
	byKind, all := r.totalWait()
	var mpi int64
	for a := range r.pc {
		mpi += r.mpiTime(a)
	}
	fmt.Fprintf(&b, "%s: %s waiting in %s wait states", name, arrowio.FormatDuration(all), arrowio.FormatCount(int64(len(r.inst))))
	if mpi > 0 {
		fmt.Fprintf(&b, " (%.0f%% of the %s in communicating MPI calls)", 100*frac(all, mpi), arrowio.FormatDuration(mpi))
	}
	fmt.Fprintf(&b, " over %d locations, %s messages and %s collective operations", len(r.pc), arrowio.FormatCount(r.Messages), arrowio.FormatCount(r.Collectives))
	type kv struct {
		k Kind
		v int64
	}
	var ks []kv
	for k, v := range byKind {
		if v > 0 {
			ks = append(ks, kv{Kind(k), v})
		}
	}
	slices.SortFunc(ks, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
	var parts []string
	for _, x := range ks {
		parts = append(parts, fmt.Sprintf("%s %s", x.k, arrowio.FormatDuration(x.v)))
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, "; %s", strings.Join(parts, ", "))
	}
	if len(r.delayAt) > 0 {
		if top := slices.Index(r.delayAt, slices.Max(r.delayAt)); r.delayAt[top] > 0 {
			var all int64
			for _, v := range r.delayAt {
				all += v
			}
			fmt.Fprintf(&b, "; root cause: %s (%.0f%% of the delay costs)", r.label(r.pc[top].proc), 100*frac(r.delayAt[top], all))
		}
	}
	if d := r.DelayRows(); len(d) > 0 {
		fmt.Fprintf(&b, "; the largest delay: %s (%s of waiting caused)", d[0].Path, arrowio.FormatDuration(d[0].Cost))
	}
	if len(r.segs) > 0 {
		locs := map[int32]bool{}
		for _, s := range r.segs {
			locs[s.at] = true
		}
		n := "locations"
		if len(locs) == 1 {
			n = "location"
		}
		fmt.Fprintf(&b, "; critical path %s through %d %s", arrowio.FormatDuration(r.pathLength), len(locs), n)
		best := int32(-1)
		for p, v := range r.pathTime {
			if p > 0 && v > 0 && r.pParent[p] >= 0 && (best < 0 || v > r.pathTime[best]) && !r.isMPIPath(int32(p)) {
				best = int32(p)
			}
		}
		if best > 0 {
			mean := float64(r.totalTime[best]) / float64(max(1, len(r.pc)))
			fmt.Fprintf(&b, ", most in %s (%.0f%%", r.PathName(best), 100*frac(r.pathTime[best], r.pathLength))
			if mean > 0 {
				fmt.Fprintf(&b, ", imbalance %.2f", float64(r.pathTime[best])/mean)
			}
			b.WriteString(")")
		}
	}
	if len(r.skipped) > 0 {
		var s []string
		for k, v := range r.skipped {
			s = append(s, fmt.Sprintf("%s %s", arrowio.FormatCount(v), k))
		}
		slices.Sort(s)
		fmt.Fprintf(&b, "; not analysed: %s", strings.Join(s, ", "))
	}
	if r.UnmatchedSends+r.UnmatchedRecvs > 0 {
		fmt.Fprintf(&b, "; %s sends and %s receives without a partner in the trace", arrowio.FormatCount(r.UnmatchedSends), arrowio.FormatCount(r.UnmatchedRecvs))
	}
	return b.String()
}

// isMPIPath reports whether call path p ends in an MPI region (as the
// per-location part decides it: mpiRegions).
func (r *Result) isMPIPath(p int32) bool {
	reg := r.pRegion[p]
	return reg >= 0 && int(reg) < len(r.mpi) && r.mpi[reg]
}

// mpiTime returns the time of location part a in its communicating MPI calls.
func (r *Result) mpiTime(a int) int64 {
	var t int64
	c := r.pc[a]
	for j := range c.cEnter {
		t += c.cLeave[j] - c.cEnter[j]
	}
	return t
}

// headRows is the number of rows of Table the MIME bundle shows.
const headRows = 15

// MIMEBundle shows the result as every method's result shows
// (display.Compose): the headline, the first rows of Table and Plot.
func (r *Result) MIMEBundle() map[string]any {
	rows := r.pathRows()
	note := ""
	if len(rows) > headRows {
		note = fmt.Sprintf("the %d of %s call paths with the most waiting; Table() has them all, Instances() every wait, Delays() the causes, CriticalPath() the path",
			headRows, arrowio.FormatCount(int64(len(rows))))
		rows = rows[:headRows]
	}
	return display.Composition{Headline: r.String(), Table: r.pathTable(rows), Note: note,
		Figures: []display.MIMEBundler{r.Plot()}}.MIMEBundle()
}

// Timeline returns the trace's master timeline (trace.Trace.Timeline, with
// opts) with the critical path shaded on the lanes of its locations, each
// segment labelled with where the path comes from; segments on locations
// folded into strips are named in a note.
func (r *Result) Timeline(opts ...trace.TimelineOption) *plotting.LiveTimeline {
	lt := r.tr.Timeline(opts...)
	lane := map[string]int{}
	for i, l := range lt.Lanes {
		if l.Kind == plotting.LaneCalls || l.Kind == plotting.LaneAccelerator {
			lane[l.Name] = i
		}
	}
	hidden := 0
	for i, s := range r.segs {
		name := r.label(s.Process)
		j, ok := lane[name]
		if !ok {
			hidden++
			continue
		}
		label := "critical path"
		if i > 0 {
			label = fmt.Sprintf("critical path (from %s, which waited for %s)", r.label(r.segs[i-1].Process), name)
		}
		lt.Shades = append(lt.Shades, plotting.LiveShade{Lane: j, Start: s.Start, End: s.End, Label: label})
	}
	lt.Title += fmt.Sprintf(" · critical path %s shaded", arrowio.FormatDuration(r.pathLength))
	if hidden > 0 {
		lt.Notes = append(lt.Notes, fmt.Sprintf("%d critical-path segments on locations folded into strips not shaded (expand them with trace.WithExpand)", hidden))
	}
	return lt
}
