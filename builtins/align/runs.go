package align

import (
	"fmt"
	"html"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// RunsResult compares two runs location by location (Weber Figs. 4.7, 4.9)
// and answers which locations changed: per location the computation time
// (time inside calls, outside synchronisation; see trace.SyncClassifier)
// and the synchronisation time in each run. A slow rank shows as a change
// in computation; the ranks that merely wait for it show a change in
// synchronisation only.
//
// Rows are the locations of both runs: those of run A in A's order, each
// location found only in run B after the row of its predecessor in B (or
// first). A location present in only one run has a nil Result and a nil
// process on the other side.
type RunsResult struct {
	Names   []string         // per row: the location ("rank 3 thread 1"; "rank 0 thread 1 / rank 1" when the paired locations differ)
	A, B    []*trace.Process // per row: the location in run A and in run B, nil where missing
	Results []*Result        // per row: the alignment of A[i] with B[i], nil for a location of one run only

	key        string // how the locations were paired, for the summary
	runA, runB string
	ta, tb     *trace.Trace
	sync       *trace.SyncClassifier
	timesA     []trace.SyncTimes // per row; zero where A[i] is nil
	timesB     []trace.SyncTimes
}

// PairKey keys a location for RunsBy: a location of run A and one of run B
// are compared when their keys are equal. When several locations of a run
// share a key, the k-th of run A pairs with the k-th of run B.
type PairKey func(p *trace.Process) string

// ByRankThread keys a location by its rank and thread (for accelerator
// streams: GPU and stream), its Process.Label "rank 3 thread 1"; the
// default of Runs. The rank is the MPI rank where the trace tells it (see
// Process.Place): the rank a table states, or for OTF2 the location group
// numbered among the groups of its kind — the MPI rank for Score-P traces,
// with accelerator groups not shifting the ranks.
func ByRankThread(p *trace.Process) string { return p.Label() }

// ByIndex keys a location by its index in its trace: location i of run A
// against location i of run B (the pairing of Runs before it paired by rank
// and thread).
func ByIndex(p *trace.Process) string { return strconv.Itoa(p.Index) }

// ByName keys a location by its full name ("MPI Rank 3 / Thread 1").
func ByName(p *trace.Process) string { return p.Name }

// Runs compares two runs location by location: the locations of a and b
// with the same rank and thread (ByRankThread) are aligned, in parallel;
// locations present in only one run are kept as rows of their own and
// named in the summary. Computation and synchronisation times follow
// trace.DefaultSync (see WithSync).
func Runs(a, b *trace.Trace, opts ...Option) *RunsResult {
	return runs("align.Runs", a, b, ByRankThread, "rank and thread", opts)
}

// RunsBy is Runs with the locations paired by key: ByRankThread (Runs's
// pairing), ByIndex, ByName, or any func(*trace.Process) string, as in
//
//	align.RunsBy(runA, runB, align.ByName)
func RunsBy(a, b *trace.Trace, key PairKey, opts ...Option) *RunsResult {
	if key == nil {
		fail("align.RunsBy", "nil key (use align.ByRankThread, align.ByIndex or align.ByName)")
	}
	how := "a custom key"
	for _, k := range []struct {
		f    PairKey
		name string
	}{{ByRankThread, "rank and thread"}, {ByIndex, "index"}, {ByName, "name"}} {
		if reflect.ValueOf(k.f).Pointer() == reflect.ValueOf(key).Pointer() {
			how = k.name
		}
	}
	return runs("align.RunsBy", a, b, key, how, opts)
}

func runs(fn string, a, b *trace.Trace, key PairKey, how string, opts []Option) *RunsResult {
	if a == nil || b == nil {
		fail(fn, "nil trace")
	}
	o := collect(fn, opts)
	defer surfaceRecover(fn)
	rr := pairLocations(a, b, key)
	rr.key, rr.ta, rr.tb = how, a, b
	rr.runA, rr.runB = "run A", "run B"
	if a != b {
		rr.runA, rr.runB = runNames(a, b)
	}
	n := len(rr.Names)
	paired := 0
	for i := range rr.A {
		if rr.A[i] != nil && rr.B[i] != nil {
			paired++
		}
	}
	job := work.Start(fn, int64(paired), "pairs")
	defer job.Done()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failure any // the first panic of a pair (bad input, interrupt), re-raised here
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := 0; i < n; i++ {
		if rr.A[i] == nil || rr.B[i] == nil {
			continue
		}
		if job.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if failure == nil || work.Interrupted(failure) && !work.Interrupted(r) {
						failure = r
					}
					mu.Unlock()
				}
			}()
			rr.Results[i] = pair(rr.A[i], rr.B[i], o)
			job.Add(1)
		}(i)
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
	job.Check()
	rr.computeTimes()
	return rr
}

// pairLocations builds the rows: run A's locations in order, each paired
// with the next unused location of run B with the same key; then run B's
// unpaired locations, each after the row of its nearest paired predecessor
// in B.
func pairLocations(a, b *trace.Trace, key PairKey) *RunsResult {
	byKey := map[string][]int{} // key -> B's locations with it, in order
	for j, q := range b.Processes() {
		k := key(q)
		byKey[k] = append(byKey[k], j)
	}
	rowOfB := make([]int, b.NumProcesses())
	for j := range rowOfB {
		rowOfB[j] = -1
	}
	pa := a.Processes()
	partner := make([]int, len(pa))
	for i, p := range pa {
		partner[i] = -1
		k := key(p)
		if js := byKey[k]; len(js) > 0 {
			partner[i], byKey[k] = js[0], js[1:]
			rowOfB[js[0]] = i
		}
	}
	// after[i+1]: B-only locations placed after A's row i (after[0]: first).
	after := make([][]int, len(pa)+1)
	last := -1
	for j := range b.Processes() {
		if rowOfB[j] >= 0 {
			last = rowOfB[j]
			continue
		}
		after[last+1] = append(after[last+1], j)
	}
	rr := &RunsResult{}
	add := func(p, q *trace.Process) {
		rr.A, rr.B = append(rr.A, p), append(rr.B, q)
		rr.Names = append(rr.Names, rowLabel(p, q))
	}
	for _, j := range after[0] {
		add(nil, b.Process(j))
	}
	for i, p := range pa {
		var q *trace.Process
		if partner[i] >= 0 {
			q = b.Process(partner[i])
		}
		add(p, q)
		for _, j := range after[i+1] {
			add(nil, b.Process(j))
		}
	}
	rr.Results = make([]*Result, len(rr.A))
	return rr
}

func rowLabel(p, q *trace.Process) string {
	switch {
	case p == nil:
		return ByRankThread(q)
	case q == nil:
		return ByRankThread(p)
	}
	la, lb := ByRankThread(p), ByRankThread(q)
	if la == lb {
		return la
	}
	return la + " / " + lb
}

// WithSync returns the comparison with computation and synchronisation
// times recomputed under the classifier c (nil: trace.DefaultSync), for
// example trace.DefaultSync().Include("spin_wait"). The alignments are
// shared, not recomputed.
func (rr *RunsResult) WithSync(c *trace.SyncClassifier) *RunsResult {
	n := *rr
	n.sync = c
	n.computeTimes()
	return &n
}

func (rr *RunsResult) computeTimes() {
	rr.timesA = make([]trace.SyncTimes, len(rr.A))
	rr.timesB = make([]trace.SyncTimes, len(rr.B))
	ca, cb := rr.classifiers()
	for i := range rr.A {
		if p := rr.A[i]; p != nil {
			rr.timesA[i] = ca.Times(p)
		}
		if q := rr.B[i]; q != nil {
			rr.timesB[i] = cb.Times(q)
		}
	}
}

// classifiers are rr's synchronisation classifier bound to run A and to run B.
func (rr *RunsResult) classifiers() (a, b *trace.SyncClassifier) {
	return rr.sync.Bind(rr.ta), rr.sync.Bind(rr.tb)
}

// Times returns the computation/synchronisation split of row i in run A
// and in run B (zero on a side where the location is missing).
func (rr *RunsResult) Times(i int) (a, b trace.SyncTimes) {
	if i < 0 || i >= len(rr.Names) {
		fail("align.RunsResult.Times", "row %d out of range (0..%d)", i, len(rr.Names)-1)
	}
	return rr.timesA[i], rr.timesB[i]
}

func (rr *RunsResult) paired(i int) bool { return rr.A[i] != nil && rr.B[i] != nil }

// Table has one row per location: rank and thread (for accelerator streams:
// GPU and stream) and full name in each run, then the computation time in
// A and B, its change (ns and % of A), the synchronisation time in A and B
// and its change, then the alignment's similarity, score, counts and final
// runtime skew. Columns of a missing side and of the alignment are null
// for a location of one run only; compute_change_pct is null when A does
// not compute.
func (rr *RunsResult) Table() *arrowio.Table {
	n := len(rr.Names)
	rank, thread := make([]int32, n), make([]int32, n)
	nameA, nameB := make([]string, n), make([]string, n)
	hasA, hasB, both := make([]bool, n), make([]bool, n), make([]bool, n)
	ca, cb, cd, sa, sb, sd := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	pct, sim := make([]float64, n), make([]float64, n)
	pctOK := make([]bool, n)
	score, eq, df, ga, gb, skew := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	skewOK := make([]bool, n)
	for i := range rr.Names {
		p := rr.A[i]
		if p == nil {
			p = rr.B[i]
		}
		_, rank[i], thread[i] = p.Place()
		if q := rr.A[i]; q != nil {
			nameA[i], hasA[i] = q.Name, true
			ca[i], sa[i] = rr.timesA[i].ComputeNs, rr.timesA[i].SyncNs
		}
		if q := rr.B[i]; q != nil {
			nameB[i], hasB[i] = q.Name, true
			cb[i], sb[i] = rr.timesB[i].ComputeNs, rr.timesB[i].SyncNs
		}
		r := rr.Results[i]
		if r == nil {
			continue
		}
		both[i] = true
		cd[i], sd[i] = cb[i]-ca[i], sb[i]-sa[i]
		if ca[i] != 0 {
			pct[i], pctOK[i] = 100*float64(cd[i])/float64(ca[i]), true
		}
		sim[i], score[i] = r.Similarity(), int64(r.Score())
		e, d, x, y := r.Counts()
		eq[i], df[i], ga[i], gb[i] = int64(e), int64(d), int64(x), int64(y)
		if _, _, _, sk := r.skew(); len(sk) > 0 {
			skew[i], skewOK[i] = sk[len(sk)-1], true
		}
	}
	return arrowio.MustTable(arrowio.Int32("rank", rank), arrowio.Int32("thread", thread),
		arrowio.NullableString("name_a", nameA, hasA), arrowio.NullableString("name_b", nameB, hasB),
		arrowio.NullableInt64("compute_a_ns", ca, hasA), arrowio.NullableInt64("compute_b_ns", cb, hasB),
		arrowio.NullableInt64("compute_change_ns", cd, both), arrowio.NullableFloat64("compute_change_pct", pct, pctOK),
		arrowio.NullableInt64("sync_a_ns", sa, hasA), arrowio.NullableInt64("sync_b_ns", sb, hasB),
		arrowio.NullableInt64("sync_change_ns", sd, both),
		arrowio.NullableFloat64("similarity", sim, both), arrowio.NullableInt64("score", score, both),
		arrowio.NullableInt64("equal", eq, both), arrowio.NullableInt64("diff", df, both),
		arrowio.NullableInt64("gap_a", ga, both), arrowio.NullableInt64("gap_b", gb, both),
		arrowio.NullableInt64("final_skew_ns", skew, skewOK))
}

// summary is the lines above the table: what was compared, the location
// whose computation changed most against the others, and the locations of
// one run only.
func (rr *RunsResult) summary() []string {
	paired, only := 0, [2][]string{}
	for i := range rr.Names {
		switch {
		case rr.paired(i):
			paired++
		case rr.A[i] != nil:
			only[0] = append(only[0], rr.Names[i])
		default:
			only[1] = append(only[1], rr.Names[i])
		}
	}
	lines := []string{fmt.Sprintf("runs compared: %s vs %s, %d location pairs (paired by %s)", rr.runA, rr.runB, paired, rr.key)}
	if l := rr.computeLine(); l != "" {
		lines = append(lines, l)
	}
	for s, names := range only {
		if len(names) == 0 {
			continue
		}
		run, other := rr.runA, rr.runB
		if s == 1 {
			run, other = rr.runB, rr.runA
		}
		list := names
		if len(list) > 8 {
			list = append(list[:8:8], fmt.Sprintf("… %d more", len(names)-8))
		}
		lines = append(lines, fmt.Sprintf("only in %s (%d, not compared, no partner in %s): %s", run, len(names), other, strings.Join(list, ", ")))
	}
	return lines
}

// computeLine names the paired location whose computation time changed most
// (by absolute change; the first on ties) and bounds the others' changes:
// "rank 3 computes +1.200 ms (+100.0%); the other 3 within ±0.0% (±0 ns)".
func (rr *RunsResult) computeLine() string {
	best, bestAbs := -1, int64(-1)
	for i := range rr.Names {
		if !rr.paired(i) {
			continue
		}
		if d := abs64(rr.timesB[i].ComputeNs - rr.timesA[i].ComputeNs); d > bestAbs {
			best, bestAbs = i, d
		}
	}
	if best < 0 {
		return ""
	}
	if bestAbs == 0 {
		n := 0
		for i := range rr.Names {
			if rr.paired(i) {
				n++
			}
		}
		return fmt.Sprintf("computation: unchanged on all %d paired locations", n)
	}
	pctOf := func(i int) (float64, bool) {
		a := rr.timesA[i].ComputeNs
		if a == 0 {
			return 0, false
		}
		return 100 * float64(rr.timesB[i].ComputeNs-a) / float64(a), true
	}
	d := rr.timesB[best].ComputeNs - rr.timesA[best].ComputeNs
	s := fmt.Sprintf("computation: %s computes %s", rr.Names[best], signedNs(d))
	if p, ok := pctOf(best); ok {
		s += fmt.Sprintf(" (%+.1f%%)", p)
	} else {
		s += " (from 0)"
	}
	others, maxPct, maxAbs := 0, 0.0, int64(0)
	for i := range rr.Names {
		if i == best || !rr.paired(i) {
			continue
		}
		others++
		maxAbs = max(maxAbs, abs64(rr.timesB[i].ComputeNs-rr.timesA[i].ComputeNs))
		if p, ok := pctOf(i); ok {
			maxPct = max(maxPct, math.Abs(p))
		}
	}
	if others > 0 {
		s += fmt.Sprintf("; the other %d within ±%.1f%% (±%s)", others, maxPct, arrowio.FormatDuration(maxAbs))
	}
	return s
}

func signedNs(ns int64) string {
	if ns < 0 {
		return "−" + arrowio.FormatDuration(-ns)
	}
	return "+" + arrowio.FormatDuration(ns)
}

// String is the summary: the runs and pairing, the location whose
// computation changed most, and the locations of one run only.
func (rr *RunsResult) String() string { return strings.Join(rr.summary(), "\n") }

// heatKind selects a run heatmap.
type heatKind int

const (
	heatCompute heatKind = iota // computation time change, ms summed per column
	heatDissim                  // Dissimilarity, mean per column
	heatSkew                    // Runtime skew, ms, mean per column
)

// column is the heatmap column of pair k of r: int(r.frac(k)*cols),
// clamped to the last column.
func column(r *Result, k, cols int) int { return binOf(r.frac(k), cols) }

// binOf is the column of cols that holds the fraction f of the axis.
func binOf(f float64, cols int) int { return min(cols-1, max(0, int(f*float64(cols)))) }

// heat is one heatmap row per paired location (rows of one run only are
// left out) in cols columns over the aligned axis (Result.frac): the
// computation time change, the Dissimilarity or the Runtime skew; NaN
// where a column holds no pair (no Equal pair, for the skew).
func (rr *RunsResult) heat(cols int, kind heatKind) [][]float64 {
	var out [][]float64
	sa, sb := rr.classifiers()
	for i, r := range rr.Results {
		if r == nil {
			continue
		}
		row := make([]float64, cols)
		cnt := make([]int, cols)
		switch kind {
		case heatCompute:
			ea, eb := exclusiveCompute(rr.A[i], sa), exclusiveCompute(rr.B[i], sb)
			for k := 0; k < r.Len(); k++ {
				c := column(r, k, cols)
				cnt[c]++
				if ia := r.ia[k]; ia >= 0 {
					row[c] -= float64(ea[ia+1]) / 1e6
				}
				if ib := r.ib[k]; ib >= 0 {
					row[c] += float64(eb[ib+1]) / 1e6
				}
			}
			for c := range row {
				if cnt[c] == 0 {
					row[c] = math.NaN()
				}
			}
			out = append(out, row)
			continue
		case heatSkew:
			pos, _, _, sk := r.skew()
			for k, p := range pos {
				c := column(r, int(p), cols)
				row[c] += float64(sk[k]) / 1e6
				cnt[c]++
			}
		default:
			_, at, val := r.dissimilarity(cols * 4)
			for k, t := range at {
				c := binOf(r.fracAt(t), cols)
				row[c] += val[k]
				cnt[c]++
			}
		}
		for c := range row {
			if cnt[c] > 0 {
				row[c] /= float64(cnt[c])
			} else {
				row[c] = math.NaN()
			}
		}
		out = append(out, row)
	}
	return out
}

// exclusiveCompute is, per call-tree node of p, its exclusive time when it
// is computation (outside synchronisation), 0 inside synchronisation and
// for ε. Summed over the nodes it is SyncTimes.ComputeNs.
func exclusiveCompute(p *trace.Process, c *trace.SyncClassifier) []int64 {
	ct := p.CallTree()
	in := c.Nodes(p)
	out := make([]int64, ct.Len())
	for i := 1; i < ct.Len(); i++ {
		if !in[i] {
			out[i] = ct.Exclusive(i)
		}
	}
	return out
}

// Plot shows, per paired location, heatmaps over the aligned axis (50
// columns; a pair k of an alignment falls in column int(frac(k)*50)):
// first the change in computation time, B minus A, in ms summed per column
// (each aligned pair contributes its exclusive computation time in B minus
// that in A; a pair present on one side only counts fully on its side;
// synchronisation calls contribute nothing), so a slow rank is a red row
// and the ranks waiting for it stay white; then the Dissimilarity (0 to 1)
// and the Runtime skew (ms, diverging around 0). Rows are named by their
// locations ("rank 3"); locations of one run only have no row (the first
// heatmap's title counts them; the table and summary list them). Many
// locations are averaged in groups of consecutive rows, as the y axis label
// then says.
func (rr *RunsResult) Plot() *plotting.Figure {
	const cols = 50
	var rows []string
	unpaired := 0
	for i, r := range rr.Results {
		if r == nil {
			unpaired++
			continue
		}
		rows = append(rows, rr.Names[i])
	}
	runA, runB := rr.runA, rr.runB
	xlabel := "aligned time [% of each alignment]"
	ctitle := fmt.Sprintf("computation time change %s − %s (red: more in %[1]s)", runB, runA)
	if unpaired > 0 {
		ctitle += fmt.Sprintf("; not shown: %d locations of one run only", unpaired)
	}
	opts := func(o ...plotting.Option) []plotting.Option {
		o = append(o, plotting.WithXRange(0, 100), plotting.WithXLabel(xlabel), plotting.WithYLabel("process"))
		if len(rows) > 7 { // three heatmaps of 250 pt instead of 370 each
			o = append(o, plotting.WithSize(640, 250))
		}
		return o
	}
	return plotting.Stack(fmt.Sprintf("%s vs %s, process by process", runA, runB),
		plotting.Heatmap(ctitle, rows, nil, rr.heat(cols, heatCompute), opts(plotting.WithDiverging(), plotting.WithColorUnit(plotting.Milliseconds))...),
		plotting.Heatmap("dissimilarity (window 10%)", rows, nil, rr.heat(cols, heatDissim), opts(plotting.WithColorRange(0, 1))...),
		plotting.Heatmap(fmt.Sprintf("runtime skew %s − %s (red: %[1]s behind)", runB, runA), rows, nil, rr.heat(cols, heatSkew),
			opts(plotting.WithDiverging(), plotting.WithColorUnit(plotting.Milliseconds))...))
}

// MIMEBundle renders the summary (see String) above the per-location table.
func (rr *RunsResult) MIMEBundle() map[string]any {
	t := rr.Table()
	b := t.MIMEBundle()
	lines := rr.summary()
	if h, ok := b["text/html"].(string); ok {
		var sb strings.Builder
		sb.WriteString("<div>")
		for i, l := range lines {
			if i == 0 {
				fmt.Fprintf(&sb, "<b>%s</b>", html.EscapeString(l))
			} else {
				fmt.Fprintf(&sb, "<br>%s", html.EscapeString(l))
			}
		}
		sb.WriteString("</div>")
		b["text/html"] = sb.String() + h
	}
	if s, ok := b["text/plain"].(string); ok {
		b["text/plain"] = strings.Join(lines, "\n") + "\n" + strings.TrimSpace(s)
	}
	return b
}
