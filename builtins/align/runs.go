package align

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// RunsResult compares two runs location by location (Weber Figs. 4.7, 4.9)
// and answers which locations changed: per location the computation time
// (time inside calls that are neither synchronisation nor set-up; see
// trace.SyncClassifier and trace.TimeRole), the synchronisation time, the
// set-up/tear-down time (MPI_Init, MPI_Finalize, ...) and the time outside
// every instrumented region in each run. A slow rank shows as a change in
// computation; the ranks that merely wait for it show a change in
// synchronisation only; launch skew shows as a change in set-up, never in
// computation.
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
	defer work.RecoverAs(fn)
	rr := pairLocations(a, b, key)
	rr.key, rr.ta, rr.tb = how, a, b
	rr.runA, rr.runB = "A", "B"
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
		add(nil, b.Processes()[j])
	}
	for i, p := range pa {
		var q *trace.Process
		if partner[i] >= 0 {
			q = b.Processes()[partner[i]]
		}
		add(p, q)
		for _, j := range after[i+1] {
			add(nil, b.Processes()[j])
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

// Traces returns the traces of run A and run B, as Runs was given them.
func (rr *RunsResult) Traces() (a, b *trace.Trace) { return rr.ta, rr.tb }

func (rr *RunsResult) paired(i int) bool { return rr.A[i] != nil && rr.B[i] != nil }

// Table has one row per location: Rank and Thread (for accelerator
// streams: GPU and stream), Process Name A and B (the location's full name
// in each run), then the computation time in A and B, its change (ns and %
// of A), the synchronisation time in A and B and its change, the
// set-up/tear-down time in A and B, the time outside instrumented regions
// in A and B (trace.SyncTimes), then the alignment's Similarity, Score,
// counts (Equal, Diff, Gap A, Gap B) and Final Skew (ns). Columns of a
// missing side and of the alignment are null for a location of one run
// only; Compute Change (%) is null when A does not compute. Per-run columns
// end with A or B; the runs' names are in the headline (String).
func (rr *RunsResult) Table() *arrowio.Table {
	n := len(rr.Names)
	rank, thread := make([]int32, n), make([]int32, n)
	nameA, nameB := make([]string, n), make([]string, n)
	hasA, hasB, both := make([]bool, n), make([]bool, n), make([]bool, n)
	ca, cb, cd, sa, sb, sd := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	ua, ub, oa, ob := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
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
			ua[i], oa[i] = rr.timesA[i].SetUpNs, rr.timesA[i].OutsideNs
		}
		if q := rr.B[i]; q != nil {
			nameB[i], hasB[i] = q.Name, true
			cb[i], sb[i] = rr.timesB[i].ComputeNs, rr.timesB[i].SyncNs
			ub[i], ob[i] = rr.timesB[i].SetUpNs, rr.timesB[i].OutsideNs
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
	ns := func(c arrowio.Column) arrowio.Column { return c.WithUnit("ns") }
	return arrowio.MustTable(arrowio.Int32("Rank", rank), arrowio.Int32("Thread", thread),
		arrowio.NullableString("Process Name A", nameA, hasA), arrowio.NullableString("Process Name B", nameB, hasB),
		ns(arrowio.NullableInt64("Compute A (ns)", ca, hasA)), ns(arrowio.NullableInt64("Compute B (ns)", cb, hasB)),
		ns(arrowio.NullableInt64("Compute Change (ns)", cd, both)),
		arrowio.NullableFloat64("Compute Change (%)", pct, pctOK).WithUnit("%"),
		ns(arrowio.NullableInt64("Sync A (ns)", sa, hasA)), ns(arrowio.NullableInt64("Sync B (ns)", sb, hasB)),
		ns(arrowio.NullableInt64("Sync Change (ns)", sd, both)),
		ns(arrowio.NullableInt64("Set-up A (ns)", ua, hasA)), ns(arrowio.NullableInt64("Set-up B (ns)", ub, hasB)),
		ns(arrowio.NullableInt64("Outside A (ns)", oa, hasA)), ns(arrowio.NullableInt64("Outside B (ns)", ob, hasB)),
		arrowio.NullableFloat64("Similarity", sim, both), arrowio.NullableInt64("Score", score, both),
		arrowio.NullableInt64("Equal", eq, both), arrowio.NullableInt64("Diff", df, both),
		arrowio.NullableInt64("Gap A", ga, both), arrowio.NullableInt64("Gap B", gb, both),
		ns(arrowio.NullableInt64("Final Skew (ns)", skew, skewOK)))
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
	lines = append(lines, rr.roleLines()...)
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

// timeKind is one part of a location's time that the summary reports.
type timeKind struct {
	label  string // the line's label
	verb   string // "computes", or "" for "rank 3 +1.2 ms"
	get    func(trace.SyncTimes) int64
	always bool // a line even when no location has any of this time
}

var (
	computeKind = timeKind{"computation", "computes", func(t trace.SyncTimes) int64 { return t.ComputeNs }, true}
	outsideKind = timeKind{trace.OutsideRegions + " (not computation: un-instrumented code)", "",
		func(t trace.SyncTimes) int64 { return t.OutsideNs }, false}
	setUpKind = timeKind{"set-up/tear-down (MPI_Init, MPI_Finalize, ...; not computation)", "",
		func(t trace.SyncTimes) int64 { return t.SetUpNs }, false}
)

// roleLines are the summary's lines on the parts of the locations' time:
// computation and the time outside instrumented regions, the one whose
// largest change is larger first (computation on ties), then set-up and
// tear-down, whose changes are mostly launch skew and so never lead. The
// lines on outside and set-up time appear when some paired location has
// such time.
func (rr *RunsResult) roleLines() []string {
	c, cmax := rr.changeLine(computeKind)
	o, omax := rr.changeLine(outsideKind)
	u, _ := rr.changeLine(setUpKind)
	var out []string
	if omax > cmax {
		c, o = o, c
	}
	for _, l := range []string{c, o, u} {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// changeLine names the paired location whose time of kind k changed most
// (by absolute change; the first on ties) and bounds the others' changes:
// "computation: rank 3 computes +1.200 ms (+100.0%); the other 3 within
// ±0.0% (±0 ns)". It returns "" when there is no paired location, or when
// no paired location has time of kind k and k is not always shown, and the
// largest absolute change.
func (rr *RunsResult) changeLine(k timeKind) (string, int64) {
	best, bestAbs, any := -1, int64(-1), false
	for i := range rr.Names {
		if !rr.paired(i) {
			continue
		}
		a, b := k.get(rr.timesA[i]), k.get(rr.timesB[i])
		any = any || a != 0 || b != 0
		if d := abs64(b - a); d > bestAbs {
			best, bestAbs = i, d
		}
	}
	if best < 0 || !any && !k.always {
		return "", 0
	}
	if bestAbs == 0 {
		n := 0
		for i := range rr.Names {
			if rr.paired(i) {
				n++
			}
		}
		return fmt.Sprintf("%s: unchanged on all %d paired locations", k.label, n), 0
	}
	pctOf := func(i int) (float64, bool) {
		a := k.get(rr.timesA[i])
		if a == 0 {
			return 0, false
		}
		return 100 * float64(k.get(rr.timesB[i])-a) / float64(a), true
	}
	d := k.get(rr.timesB[best]) - k.get(rr.timesA[best])
	s := fmt.Sprintf("%s: %s %s", k.label, rr.Names[best], signedNs(d))
	if k.verb != "" {
		s = fmt.Sprintf("%s: %s %s %s", k.label, rr.Names[best], k.verb, signedNs(d))
	}
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
		maxAbs = max(maxAbs, abs64(k.get(rr.timesB[i])-k.get(rr.timesA[i])))
		if p, ok := pctOf(i); ok {
			maxPct = max(maxPct, math.Abs(p))
		}
	}
	if others > 0 {
		s += fmt.Sprintf("; the other %d within ±%.1f%% (±%s)", others, maxPct, arrowio.FormatDuration(maxAbs))
	}
	return s, bestAbs
}

func signedNs(ns int64) string {
	if ns < 0 {
		return "−" + arrowio.FormatDuration(-ns)
	}
	return "+" + arrowio.FormatDuration(ns)
}

// String is the summary: the runs and pairing, the location whose
// computation changed most (and, when the locations have such time, whose
// time outside instrumented regions and whose set-up/tear-down changed
// most), and the locations of one run only.
func (rr *RunsResult) String() string { return strings.Join(rr.summary(), "\n") }

// heatKind selects a run heatmap.
type heatKind int

const (
	heatCompute heatKind = iota // computation time change, ms summed per column
	heatDissim                  // Dissimilarity, mean per column
	heatSkew                    // Runtime skew, ms, mean per column
)

// binOf is the column of cols that holds the fraction f of the axis.
func binOf(f float64, cols int) int { return min(cols-1, max(0, int(f*float64(cols)))) }

// cover calls f for every column of cols that the part [x0, x1) of the
// axis [0, 1] overlaps, with the overlap's length (a fraction of the axis);
// a part of no length is one call, for the column holding x0, with
// overlap 0. O(columns covered).
func cover(x0, x1 float64, cols int, f func(c int, overlap float64)) {
	if x1 <= x0 {
		f(binOf(x0, cols), 0)
		return
	}
	w := 1 / float64(cols)
	for c := max(0, binOf(x0, cols)-1); c < cols; c++ { // one before: binOf may round up
		lo, hi := float64(c)*w, float64(c+1)*w
		if lo >= x1 {
			break
		}
		if ov := min(x1, hi) - max(x0, lo); ov > 0 {
			f(c, ov)
		}
	}
}

// heat is one heatmap row per paired location (rows of one run only are
// left out) in cols equal columns over the aligned axis (Result.axis, as
// fractions): the computation time change, the Dissimilarity or the
// Runtime skew. Each aligned pair is drawn over the whole span it covers on
// the axis, [vt[k], vt[k+1]): MPI_Init covering 98% of the axis fills 98%
// of the row (it used to fall in the column where it starts only, the
// rest grey). The computation change of a pair is what B computes in its
// element's stretch of the axis minus what A computes in its own
// (tileCompute), shared among the columns the pair covers in proportion to
// the overlap (a row sums to the location's computation change); the skew of a column is the mean of its Equal
// pairs' skews weighted by their overlap (pairs of no length count, as a
// plain mean, only in a column that no pair of positive length overlaps);
// the Dissimilarity is the mean of 4 samples per column. NaN where a
// column holds no pair (no Equal pair, for the skew).
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
			ea, eb := tileCompute(rr.A[i], sa), tileCompute(rr.B[i], sb)
			for k := 0; k < r.Len(); k++ {
				var v float64
				if ia := r.ia[k]; ia >= 0 {
					v -= float64(ea[ia]) / 1e6
				}
				if ib := r.ib[k]; ib >= 0 {
					v += float64(eb[ib]) / 1e6
				}
				x0, x1 := r.frac(k), r.frac(k+1)
				cover(x0, x1, cols, func(c int, ov float64) {
					cnt[c]++
					if x1 > x0 {
						row[c] += v * ov / (x1 - x0)
					} else {
						row[c] += v
					}
				})
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
			wsum, wt := make([]float64, cols), make([]float64, cols)
			for k, p := range pos {
				v := float64(sk[k]) / 1e6
				cover(r.frac(int(p)), r.frac(int(p)+1), cols, func(c int, ov float64) {
					if ov > 0 {
						wsum[c] += v * ov
						wt[c] += ov
					} else {
						row[c] += v
						cnt[c]++
					}
				})
			}
			for c := range row {
				switch {
				case wt[c] > 0:
					row[c] = wsum[c] / wt[c]
				case cnt[c] > 0:
					row[c] /= float64(cnt[c])
				default:
					row[c] = math.NaN()
				}
			}
			out = append(out, row)
			continue
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

// tileCompute is, per element i of p's call sequence (call-tree node
// i+1), the computation time within the element's stretch of the aligned
// axis: [its enter, the next element's enter), the last one to the latest
// leave (Result.axis's steps). A stretch holds the element's own time
// until its first call or its leave, then, after a leaf's leave, the time
// of the calls it returns to; the time counts when the innermost open
// call's role is computation (trace.SyncClassifier.NodeRoles), and time
// with no call open (outside instrumented regions) never does. So a
// parent's computation between its calls lands where it happens, not all
// in the parent's own pair, and the stretches sum to SyncTimes.ComputeNs.
// O(calls).
func tileCompute(p *trace.Process, c *trace.SyncClassifier) []int64 {
	ct := p.CallTree()
	n := ct.Len()
	if n <= 1 {
		return nil
	}
	roles := c.NodeRoles(p)
	out := make([]int64, n-1)
	var end int64
	for i := 1; i < n; i++ {
		end = max(end, ct.Leave[i])
	}
	var stack []int32 // the path from the root's first call to element i
	for i := 1; i < n; i++ {
		if i&0xFFFF == 0 {
			work.Check()
		}
		for len(stack) > 0 && stack[len(stack)-1] != ct.Parent[i] {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, int32(i))
		tileEnd := end
		if i+1 < n {
			tileEnd = ct.Enter[i+1]
		}
		// the innermost open call from t on is stack[k]; it stays so until
		// it leaves or the stretch ends
		t := ct.Enter[i]
		for k := len(stack) - 1; k >= 0 && t < tileEnd; k-- {
			top := stack[k]
			stop := min(ct.Leave[top], tileEnd)
			if roles[top] == trace.Computation && stop > t {
				out[i-1] += stop - t
			}
			t = max(t, stop)
		}
	}
	return out
}

// Plot shows, per paired location, heatmaps over the aligned axis (50
// columns; each aligned pair drawn over the whole span it covers, see
// heat): first the change in computation time, B minus A, in ms summed per
// column (each aligned pair contributes the computation time in B's
// stretch of the axis minus that in A's, see tileCompute, shared among its
// columns; a pair present on one side only counts fully on its side;
// synchronisation and set-up/tear-down calls contribute nothing, nor does
// time outside instrumented regions), so a slow rank is a red row
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

// MIMEBundle shows the comparison as every method's result shows (display.Compose): the
// summary (see String), the per-location table and Plot.
func (rr *RunsResult) MIMEBundle() map[string]any {
	return display.Compose(rr.String(), rr.Table(), rr.Plot())
}
