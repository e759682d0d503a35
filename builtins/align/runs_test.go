package align

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting/plottest"
)

const ms = int64(1_000_000) // ns

// span is one call: region, enter and leave (ns), written in pre-order.
type span struct {
	region       int32
	enter, leave int64
}

// events turns calls in pre-order into Enter/Leave events (a stack closes
// each call at its leave).
func events(p *trace.Process, calls []span) {
	var open []span
	closeUntil := func(t int64) {
		for len(open) > 0 && open[len(open)-1].leave <= t {
			c := open[len(open)-1]
			open = open[:len(open)-1]
			p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, c.leave), append(p.Ref, c.region)
		}
	}
	for _, c := range calls {
		closeUntil(c.enter)
		p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, c.enter), append(p.Ref, c.region)
		open = append(open, c)
	}
	closeUntil(math.MaxInt64)
}

// place is one location of a hand-built run. group is its location group's
// index, rank its Process.Rank.
type place struct {
	group, rank, thread int32
	calls               []span
}

// groupKind is a location group of a hand-built run: name and type.
type groupKind struct{ name, typ string }

// run builds a trace the way the OTF2 reader does: location groups, one
// location per place (an accelerator group's locations are streams).
func run(regions []trace.Region, groups []groupKind, places ...place) *trace.Trace {
	defs := &trace.Definitions{Regions: regions}
	for _, g := range groups {
		defs.LocationGroups = append(defs.LocationGroups, trace.LocationGroup{Name: g.name, Type: g.typ, SystemNode: -1})
	}
	var procs []*trace.Process
	for _, pl := range places {
		g := groups[pl.group]
		typ, loc := "cpu_thread", "Master thread"
		if g.typ == "accelerator" {
			typ, loc = "accelerator_stream", fmt.Sprintf("stream %d", pl.thread)
		} else if pl.thread > 0 {
			loc = fmt.Sprintf("Thread %d", pl.thread)
		}
		defs.Locations = append(defs.Locations, trace.Location{Name: loc, Type: typ, Group: pl.group})
		name := g.name
		if pl.thread > 0 || g.typ == "accelerator" {
			name += " / " + loc
		}
		p := &trace.Process{Rank: pl.rank, Thread: pl.thread, Name: name}
		events(p, pl.calls)
		procs = append(procs, p)
	}
	return trace.NewTrace(defs, procs)
}

func mpiRanks(n int) []groupKind {
	g := make([]groupKind, n)
	for i := range g {
		g[i] = groupKind{fmt.Sprintf("MPI Rank %d", i), "process"}
	}
	return g
}

// Regions of the hand-built runs.
var runRegions = []trace.Region{{Name: "main", Role: "function"}, {Name: "compute", Role: "function"},
	{Name: "MPI_Barrier", Role: "barrier", Paradigm: "mpi"}, {Name: "fix", Role: "function"}}

const (
	rMain, rCompute, rBarrier, rFix = 0, 1, 2, 3
)

// simple is main holding one compute call of c ms.
func simple(c int64) []span {
	return []span{{rMain, 0, 100 * ms}, {rCompute, 0, c * ms}}
}

// threads2x2 is 2 ranks x 2 threads; ranks1 is 2 ranks x 1 thread.
func threads2x2() *trace.Trace {
	return run(runRegions, mpiRanks(2),
		place{0, 0, 0, simple(10)}, place{0, 0, 1, simple(20)}, place{1, 1, 0, simple(30)}, place{1, 1, 1, simple(40)})
}

func ranks1() *trace.Trace {
	return run(runRegions, mpiRanks(2), place{0, 0, 0, simple(10)}, place{1, 1, 0, simple(30)})
}

// rowsOf describes the rows: "label: A index / B index" with - for missing.
func rowsOf(rr *RunsResult) []string {
	var out []string
	for i, n := range rr.Names {
		a, b := "-", "-"
		if rr.A[i] != nil {
			a = fmt.Sprint(rr.A[i].Index)
		}
		if rr.B[i] != nil {
			b = fmt.Sprint(rr.B[i].Index)
		}
		if (rr.Results[i] != nil) != (rr.A[i] != nil && rr.B[i] != nil) {
			b += " (result mismatch)"
		}
		out = append(out, fmt.Sprintf("%s: %s/%s", n, a, b))
	}
	return out
}

// TestRunsPairByRankThread: 2 ranks x 2 threads against 2 ranks x 1 thread
// pairs the master threads and reports the worker threads as rows of one
// run, in both directions (a location of B only follows its predecessor
// in B). Index pairing used to compare "rank 0 thread 1" with "rank 1" and
// never look at A's rank 1. Mutations tried: pairing by index in Runs (rows
// differ), dropping the unpaired rows of A (rows differ), placing every B-only
// row first (second case differs).
func TestRunsPairByRankThread(t *testing.T) {
	a, b := threads2x2(), ranks1()
	rr := Runs(a, b)
	want := []string{"rank 0: 0/0", "rank 0 thread 1: 1/-", "rank 1: 2/1", "rank 1 thread 1: 3/-"}
	if got := rowsOf(rr); !slices.Equal(got, want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	rev := Runs(b, a)
	want = []string{"rank 0: 0/0", "rank 0 thread 1: -/1", "rank 1: 1/2", "rank 1 thread 1: -/3"}
	if got := rowsOf(rev); !slices.Equal(got, want) {
		t.Fatalf("reversed rows %q, want %q", got, want)
	}
	if got := rr.String(); got != "runs compared: A vs B, 2 location pairs (paired by rank and thread)\n"+
		"computation: unchanged on all 2 paired locations\n"+
		"only in A (2, not compared, no partner in B): rank 0 thread 1, rank 1 thread 1" {
		t.Errorf("summary:\n%s", got)
	}
	if got := rev.String(); !strings.HasSuffix(got, "\nonly in B (2, not compared, no partner in A): rank 0 thread 1, rank 1 thread 1") {
		t.Errorf("reversed summary:\n%s", got)
	}
	tb := rr.Table()
	rank, _ := tb.Int32s("Rank")
	thread, _ := tb.Int32s("Thread")
	nameA, _ := tb.Strings("Process Name A")
	hasB, _ := tb.Valid("Process Name B")
	hasSim, _ := tb.Valid("Similarity")
	ca, _ := tb.Int64s("Compute A (ns)")
	hasCB, _ := tb.Valid("Compute B (ns)")
	if !slices.Equal(rank, []int32{0, 0, 1, 1}) || !slices.Equal(thread, []int32{0, 1, 0, 1}) ||
		!slices.Equal(nameA, []string{"MPI Rank 0", "MPI Rank 0 / Thread 1", "MPI Rank 1", "MPI Rank 1 / Thread 1"}) ||
		!slices.Equal(hasB, []bool{true, false, true, false}) || !slices.Equal(hasSim, hasB) || !slices.Equal(hasCB, hasB) ||
		!slices.Equal(ca, []int64{100 * ms, 100 * ms, 100 * ms, 100 * ms}) {
		t.Errorf("table rank %v thread %v name_a %q name_b valid %v similarity valid %v compute_a %v", rank, thread, nameA, hasB, hasSim, ca)
	}
	mb := rr.MIMEBundle()
	if h := mb["text/html"].(string); !strings.Contains(h, "<br>only in A (2, not compared, no partner in B): rank 0 thread 1, rank 1 thread 1") {
		t.Errorf("HTML summary: %.400s", h)
	}
	if s := mb["text/plain"].(string); !strings.HasPrefix(s, rr.String()+"\n") {
		t.Errorf("text summary: %.400s", s)
	}
	// Rows of one run only are left out of the heatmaps, and the title says so.
	if h := rr.heat(50, heatCompute); len(h) != 2 {
		t.Errorf("compute heatmap has %d rows, want the 2 paired", len(h))
	}
	texts := plottest.Texts(t, rr.Plot())
	if !strings.Contains(strings.Join(texts, " "), "not shown: 2 locations of one run only") {
		t.Errorf("runs plot does not mention the unpaired locations: %q", texts)
	}
}

// TestRunsByIndexAndKeys: ByIndex reproduces the old pairing (location i
// with location i, then A's surplus alone); ByName pairs like rank and
// thread here; a key all locations share pairs the k-th with the k-th.
// Mutation tried: a B-queue that takes the last location of a key instead
// of the first (the shared-key case differs).
func TestRunsByIndexAndKeys(t *testing.T) {
	a, b := threads2x2(), ranks1()
	rr := RunsBy(a, b, ByIndex)
	want := []string{"rank 0: 0/0", "rank 0 thread 1 / rank 1: 1/1", "rank 1: 2/-", "rank 1 thread 1: 3/-"}
	if got := rowsOf(rr); !slices.Equal(got, want) {
		t.Fatalf("ByIndex rows %q, want %q", got, want)
	}
	for i := 0; i < 2; i++ {
		old := Pair(a.Process(i), b.Process(i))
		if r := rr.Results[i]; r.Score() != old.Score() || r.Similarity() != old.Similarity() {
			t.Errorf("row %d: score %d, Pair gives %d", i, r.Score(), old.Score())
		}
	}
	if s := rr.String(); !strings.HasPrefix(s, "runs compared: A vs B, 2 location pairs (paired by index)\n") {
		t.Errorf("ByIndex summary %q", s)
	}
	byName := rowsOf(RunsBy(a, b, ByName))
	if want := rowsOf(Runs(a, b)); !slices.Equal(byName, want) {
		t.Errorf("ByName rows %q, want %q", byName, want)
	}
	same := RunsBy(a, b, func(*trace.Process) string { return "x" })
	if got := rowsOf(same); !slices.Equal(got, rowsOf(rr)) {
		t.Errorf("shared-key rows %q, want %q", got, rowsOf(rr))
	}
	if s := same.String(); !strings.Contains(s, "(paired by a custom key)") {
		t.Errorf("custom key summary %q", s)
	}
	defer func() {
		var e *Error
		if r, _ := recover().(error); !errors.As(r, &e) || e.Func != "align.RunsBy" {
			t.Errorf("nil key: panic %v", r)
		}
	}()
	RunsBy(a, b, nil)
}

// TestRunsRankIdentity: the rank is the MPI rank where the trace says so.
// A table-read trace with processes 2 and 5 (Rank 2 and 5, groups 0 and 1)
// against one with process 5 only pairs the two processes 5; an OTF2 trace
// with an accelerator group between ranks 0 and 1 pairs its second rank
// with rank 1, and its GPU stream with nothing. Mutations tried: identity
// as Process.Rank alone (the OTF2 case loses rank 1), identity as the
// label's number alone (the table case pairs process 2 with process 5).
func TestRunsRankIdentity(t *testing.T) {
	tab := func(ranks ...int32) *trace.Trace {
		var groups []groupKind
		var places []place
		for g, r := range ranks {
			groups = append(groups, groupKind{fmt.Sprintf("Process %d", r), "process"})
			places = append(places, place{int32(g), r, 0, simple(10)})
		}
		return run(runRegions, groups, places...)
	}
	rr := Runs(tab(2, 5), tab(5))
	if got, want := rowsOf(rr), []string{"rank 2: 0/-", "rank 5: 1/0"}; !slices.Equal(got, want) {
		t.Errorf("table ranks: rows %q, want %q", got, want)
	}
	gpu := run(runRegions, []groupKind{{"MPI Rank 0", "process"}, {"CUDA[0]", "accelerator"}, {"MPI Rank 1", "process"}},
		place{0, 0, 0, simple(10)}, place{1, 1, 0, simple(5)}, place{2, 2, 0, simple(30)})
	rr = Runs(gpu, ranks1())
	if got, want := rowsOf(rr), []string{"rank 0: 0/0", "GPU 0 stream 0: 1/-", "rank 1: 2/1"}; !slices.Equal(got, want) {
		t.Errorf("OTF2 with a GPU group: rows %q, want %q", got, want)
	}
	rank, _ := rr.Table().Int32s("Rank")
	if !slices.Equal(rank, []int32{0, 0, 1}) {
		t.Errorf("rank column %v", rank)
	}
}

// slowRank3 is 4 ranks, each main holding two iterations of compute then
// MPI_Barrier. In A every rank computes 100 ms and waits 10 ms in each
// barrier. In B rank 3 computes 200 ms per iteration; the others still
// compute 100 ms and wait for it in the barrier (110 ms each).
func slowRank3() (*trace.Trace, *trace.Trace) {
	iter := func(c1, b1, c2, b2 int64) []span {
		return []span{{rMain, 0, b2 * ms}, {rCompute, 0, c1 * ms}, {rBarrier, c1 * ms, b1 * ms},
			{rCompute, b1 * ms, c2 * ms}, {rBarrier, c2 * ms, b2 * ms}}
	}
	var pa, pb []place
	for r := int32(0); r < 4; r++ {
		pa = append(pa, place{r, r, 0, iter(100, 110, 210, 220)})
		if r == 3 {
			pb = append(pb, place{r, r, 0, iter(200, 210, 410, 420)})
		} else {
			pb = append(pb, place{r, r, 0, iter(100, 210, 310, 420)})
		}
	}
	a, b := run(runRegions, mpiRanks(4), pa...), run(runRegions, mpiRanks(4), pb...)
	a.Path, b.Path = "runs/v0/traces.otf2", "runs/v1/traces.otf2"
	return a, b
}

// TestRunsFindTheSlowRank: the computation change is +200 ms on rank 3 and
// 0 elsewhere; the synchronisation change is 0 on rank 3 and +200 ms on the
// ranks waiting for it. The final skew (which cannot tell them apart well)
// is 200 ms on rank 3 and 100 ms on the others. Mutations tried: compute
// counting synchronisation (ComputeNs = busy), compute_change_pct relative
// to B, WithSync changing its receiver, the first skew instead of the last.
func TestRunsFindTheSlowRank(t *testing.T) {
	a, b := slowRank3()
	rr := Runs(a, b)
	tb := rr.Table()
	cols := map[string][]int64{}
	for _, c := range []string{"Compute A (ns)", "Compute B (ns)", "Compute Change (ns)", "Sync A (ns)", "Sync B (ns)", "Sync Change (ns)", "Final Skew (ns)", "Score", "Equal"} {
		cols[c], _ = tb.Int64s(c)
	}
	want := map[string][]int64{
		"Compute A (ns)":      {200 * ms, 200 * ms, 200 * ms, 200 * ms},
		"Compute B (ns)":      {200 * ms, 200 * ms, 200 * ms, 400 * ms},
		"Compute Change (ns)": {0, 0, 0, 200 * ms},
		"Sync A (ns)":         {20 * ms, 20 * ms, 20 * ms, 20 * ms},
		"Sync B (ns)":         {220 * ms, 220 * ms, 220 * ms, 20 * ms},
		"Sync Change (ns)":    {200 * ms, 200 * ms, 200 * ms, 0},
		"Final Skew (ns)":     {100 * ms, 100 * ms, 100 * ms, 200 * ms},
		"Score":               {10, 10, 10, 10},
		"Equal":               {5, 5, 5, 5},
	}
	for c, w := range want {
		if !slices.Equal(cols[c], w) {
			t.Errorf("%s %v, want %v", c, cols[c], w)
		}
	}
	pct, _ := tb.Float64s("Compute Change (%)")
	if !slices.Equal(pct, []float64{0, 0, 0, 100}) {
		t.Errorf("compute_change_pct %v", pct)
	}
	if got, want := rr.String(), "runs compared: v0 vs v1, 4 location pairs (paired by rank and thread)\n"+
		"computation: rank 3 computes +200.0 ms (+100.0%); the other 3 within ±0.0% (±0 ns)"; got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	// The computation heatmap over the aligned time axis (Result.axis): 5
	// pairs (main, compute, barrier, compute, barrier), each drawn over the
	// span it covers. Rank 3's pairs last 0, 200, 10, 200, 10 ms (its B
	// side): +100 ms in each compute pair, shared among the columns they
	// cover; column 24 ([201.6, 210) ms of 420) lies inside the first
	// barrier and stays 0. The others' rows are 0. No column is empty: the
	// pairs tile the axis.
	heat := rr.heat(50, heatCompute)
	for r, row := range heat {
		sum := 0.0
		for c, v := range row {
			if math.IsNaN(v) || r < 3 && v != 0 {
				t.Fatalf("compute heat[%d][%d] = %v", r, c, v)
			}
			sum += v
		}
		if want := []float64{0, 0, 0, 200}[r]; math.Abs(sum-want) > 1e-9 {
			t.Errorf("compute heat row %d sums to %v ms, want %v", r, sum, want)
		}
	}
	if heat[3][24] != 0 || math.Abs(heat[3][0]-100*(8.4/200)) > 1e-9 {
		t.Errorf("rank 3: column 24 %v (want 0), column 0 %v (want %v)", heat[3][24], heat[3][0], 100*(8.4/200))
	}
	// Counting the barriers as computation, every rank computes 200 ms more.
	all := rr.WithSync(trace.DefaultSync().Exclude("MPI_Barrier"))
	if ch, _ := all.Table().Int64s("Compute Change (ns)"); !slices.Equal(ch, []int64{200 * ms, 200 * ms, 200 * ms, 200 * ms}) {
		t.Errorf("with barriers as computation: compute change %v", ch)
	}
	if ch, _ := rr.Table().Int64s("Compute Change (ns)"); !slices.Equal(ch, []int64{0, 0, 0, 200 * ms}) {
		t.Errorf("WithSync changed the receiver: %v", ch)
	}
	if ta, tb := rr.Times(3); ta != (trace.SyncTimes{SpanNs: 220 * ms, SyncNs: 20 * ms, ComputeNs: 200 * ms}) ||
		tb != (trace.SyncTimes{SpanNs: 420 * ms, SyncNs: 20 * ms, ComputeNs: 400 * ms}) {
		t.Errorf("Times(3) %+v %+v", ta, tb)
	}
}

// TestRunsComputeHeatOneSided: a call only in B (fix, 30 ms) counts on B's
// side where it happens; the computation of each stretch of the aligned
// axis is what the location computes there, so main's time after compute
// (50 ms in A) lies in A's compute stretch, and B's main time after fix
// (20 ms) in B's fix stretch. The row sums to the computation change, 0.
// Mutations tried: ignoring B's side of GapA pairs (columns 2 and 3 lose
// +50 ms), charging a parent's exclusive time to its own pair (the main
// pair at 0 gets -30 ms), binning over cols+1 columns (the row differs).
func TestRunsComputeHeatOneSided(t *testing.T) {
	a := run(runRegions, mpiRanks(1), place{0, 0, 0, []span{{rMain, 0, 100 * ms}, {rCompute, 0, 50 * ms}}})
	b := run(runRegions, mpiRanks(1), place{0, 0, 0, []span{{rMain, 0, 100 * ms}, {rCompute, 0, 50 * ms}, {rFix, 50 * ms, 80 * ms}}})
	rr := Runs(a, b)
	// 3 pairs on the aligned time axis: main lasts 0 (compute starts with
	// it), compute [0, 100) of 150 ms (A's stretch: compute and main's tail,
	// 100 ms; B's: 50 ms), fix [100, 150) (B's stretch: fix 30 and main's
	// tail 20 ms). In 4 columns of 37.5 ms: -50 ms over [0, 100) gives
	// -18.75, -18.75, -12.5; +50 ms over [100, 150) gives +12.5 in column 2
	// and +37.5 in column 3.
	heat := rr.heat(4, heatCompute)
	near := func(v, w float64) bool { return math.Abs(v-w) < 1e-9 }
	if len(heat) != 1 || len(heat[0]) != 4 || !near(heat[0][0], -18.75) || !near(heat[0][1], -18.75) || !near(heat[0][2], 0) || !near(heat[0][3], 37.5) {
		t.Fatalf("heat %v, want [[-18.75 -18.75 0 37.5]]", heat)
	}
	if ch, _ := rr.Table().Int64s("Compute Change (ns)"); !slices.Equal(ch, []int64{0}) {
		t.Errorf("compute change %v", ch)
	}
}
