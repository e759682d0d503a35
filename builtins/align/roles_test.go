package align

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// roleOracle splits p's time by walking its events: between two consecutive
// events the location is outside every region when no call is open, else the
// time takes the role of the outermost open call that is not computation
// (DefaultSync().RoleOf per region), else it is computation. Independent of
// the call tree.
func roleOracle(p *trace.Process) trace.SyncTimes {
	var s trace.SyncTimes
	if p.Len() == 0 {
		return s
	}
	c := trace.DefaultSync()
	regions := p.Trace.Defs.Regions
	var stack []int32
	s.SpanNs = p.Time[p.Len()-1] - p.Time[0]
	for i := 0; i+1 < p.Len(); i++ {
		switch p.Kind[i] {
		case trace.Enter:
			stack = append(stack, p.Ref[i])
		case trace.Leave:
			stack = stack[:len(stack)-1]
		}
		dt := p.Time[i+1] - p.Time[i]
		if len(stack) == 0 {
			s.OutsideNs += dt
			continue
		}
		role := trace.Computation
		for _, r := range stack {
			if role = c.RoleOf(regions[r]); role != trace.Computation {
				break
			}
		}
		switch role {
		case trace.Synchronisation:
			s.SyncNs += dt
		case trace.SetUp:
			s.SetUpNs += dt
		default:
			s.ComputeNs += dt
		}
	}
	return s
}

// checkRunsTable compares every time column of rr's table with roleOracle.
func checkRunsTable(t *testing.T, rr *RunsResult) {
	t.Helper()
	tb := rr.Table()
	col := func(name string) []int64 {
		v, err := tb.Int64s(name)
		if err != nil {
			t.Fatalf("column %s: %v", name, err)
		}
		return v
	}
	got := map[string][]int64{}
	for _, n := range []string{"Compute A (ns)", "Compute B (ns)", "Sync A (ns)", "Sync B (ns)", "Set-up A (ns)", "Set-up B (ns)", "Outside A (ns)", "Outside B (ns)"} {
		got[n] = col(n)
	}
	for i := range rr.Names {
		for side, p := range map[string]*trace.Process{"A": rr.A[i], "B": rr.B[i]} {
			if p == nil {
				continue
			}
			w := roleOracle(p)
			for n, v := range map[string]int64{"Compute": w.ComputeNs, "Sync": w.SyncNs, "Set-up": w.SetUpNs, "Outside": w.OutsideNs} {
				if g := got[n+" "+side+" (ns)"][i]; g != v {
					t.Errorf("%s: %s %s (ns) %d, oracle %d", rr.Names[i], n, side, g, v)
				}
			}
		}
	}
}

// oracleLeader is the paired row whose time get(oracle) changed most (the
// first on ties) and that change.
func oracleLeader(rr *RunsResult, get func(trace.SyncTimes) int64) (int, int64) {
	best, bestAbs, d := -1, int64(-1), int64(0)
	for i := range rr.Names {
		if rr.A[i] == nil || rr.B[i] == nil {
			continue
		}
		x := get(roleOracle(rr.B[i])) - get(roleOracle(rr.A[i]))
		if abs64(x) > bestAbs {
			best, bestAbs, d = i, abs64(x), x
		}
	}
	return best, d
}

// bruteTiles is tileCompute the slow way: every interval between two
// events whose role is computation (as in roleOracle) is added to every
// element's stretch [k-th Enter, (k+1)-th Enter) (the last to the latest
// Leave) by overlap.
func bruteTiles(p *trace.Process) []int64 {
	var enters []int64
	var end int64
	for i, k := range p.Kind {
		switch k {
		case trace.Enter:
			enters = append(enters, p.Time[i])
		case trace.Leave:
			end = max(end, p.Time[i])
		}
	}
	out := make([]int64, len(enters))
	c := trace.DefaultSync()
	var stack []int32
	for i := 0; i+1 < p.Len(); i++ {
		switch p.Kind[i] {
		case trace.Enter:
			stack = append(stack, p.Ref[i])
		case trace.Leave:
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			continue
		}
		role := trace.Computation
		for _, r := range stack {
			if role = c.RoleOf(p.Trace.Defs.Regions[r]); role != trace.Computation {
				break
			}
		}
		if role != trace.Computation {
			continue
		}
		a, b := p.Time[i], p.Time[i+1]
		for k, e := range enters {
			f := end
			if k+1 < len(enters) {
				f = enters[k+1]
			}
			if ov := min(b, f) - max(a, e); ov > 0 {
				out[k] += ov
			}
		}
	}
	return out
}

// bruteHeat is heat computed the slow way: for every column and every
// pair, the overlap of the pair's span on the aligned axis with the column.
func bruteHeat(rr *RunsResult, cols int, kind heatKind) [][]float64 {
	var out [][]float64
	for i, r := range rr.Results {
		if r == nil {
			continue
		}
		vt := r.axis()
		T := vt[len(vt)-1]
		ea, eb := bruteTiles(rr.A[i]), bruteTiles(rr.B[i])
		pos, _, _, sk := r.skew()
		skewOf := map[int]float64{}
		for j, p := range pos {
			skewOf[int(p)] = float64(sk[j]) / 1e6
		}
		row := make([]float64, cols)
		for c := range row {
			w := 1 / float64(cols)
			lo, hi := float64(c)*w, float64(c+1)*w
			sum, wsum, wt, plain, n := 0.0, 0.0, 0.0, 0.0, 0
			for k := 0; k < r.Len(); k++ {
				x0, x1 := vt[k]/T, vt[k+1]/T
				in0 := binOf(x0, cols) == c
				v := 0.0
				if kind == heatCompute {
					if ia := r.ia[k]; ia >= 0 {
						v -= float64(ea[ia]) / 1e6
					}
					if ib := r.ib[k]; ib >= 0 {
						v += float64(eb[ib]) / 1e6
					}
				} else if s, ok := skewOf[k]; ok {
					v = s
				} else {
					continue
				}
				if x1 > x0 {
					if ov := math.Min(x1, hi) - math.Max(x0, lo); ov > 0 {
						sum += v * ov / (x1 - x0)
						wsum, wt = wsum+v*ov, wt+ov
						n++
					}
				} else if in0 {
					sum += v
					plain += v
					n++
				}
			}
			switch {
			case n == 0:
				row[c] = math.NaN()
			case kind == heatCompute:
				row[c] = sum
			case wt > 0:
				row[c] = wsum / wt
			default:
				row[c] = plain / float64(n)
			}
		}
		out = append(out, row)
	}
	return out
}

func checkHeat(t *testing.T, rr *RunsResult, cols int) {
	t.Helper()
	for _, kind := range []heatKind{heatCompute, heatSkew} {
		got, want := rr.heat(cols, kind), bruteHeat(rr, cols, kind)
		if len(got) != len(want) {
			t.Fatalf("heat %d: %d rows, brute force %d", kind, len(got), len(want))
		}
		for r := range got {
			for c := range got[r] {
				g, w := got[r][c], want[r][c]
				if math.IsNaN(g) != math.IsNaN(w) || !math.IsNaN(g) && math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
					t.Fatalf("heat %d [%d][%d] = %v, brute force %v\n%v\n%v", kind, r, c, g, w, got[r], want[r])
				}
			}
		}
	}
}

// Regions of the set-up case.
var initRegions = []trace.Region{{Name: "main", Role: "function"}, {Name: "MPI_Init", Role: "function", Paradigm: "mpi"},
	{Name: "compute", Role: "function"}, {Name: "MPI_Barrier", Role: "barrier", Paradigm: "mpi"},
	{Name: "MPI_Finalize", Role: "function", Paradigm: "mpi"}}

// initRun is ranks launched at launch[r] ms: main holding MPI_Init, which
// all leave at 1520 ms, then 5 iterations of compute (work[r] ms) and
// MPI_Barrier (all leave together), then MPI_Finalize (2 ms).
func initRun(launch, work []int64) *trace.Trace {
	start := make([]int64, len(launch))
	calls := make([][]span, len(launch))
	for r := range launch {
		calls[r] = append(calls[r], span{1, launch[r] * ms, 1520 * ms})
		start[r] = 1520
	}
	for i := 0; i < 5; i++ {
		leave := int64(0)
		for r := range launch {
			leave = max(leave, start[r]+work[r])
		}
		leave++
		for r := range launch {
			calls[r] = append(calls[r], span{2, start[r] * ms, (start[r] + work[r]) * ms}, span{3, (start[r] + work[r]) * ms, leave * ms})
			start[r] = leave
		}
	}
	var places []place
	for r := range launch {
		all := append([]span{{0, launch[r] * ms, (start[r] + 2) * ms}}, calls[r]...)
		all = append(all, span{4, start[r] * ms, (start[r] + 2) * ms})
		places = append(places, place{int32(r), int32(r), 0, all})
	}
	return run(initRegions, mpiRanks(len(launch)), places...)
}

// TestRunsSetUpDominates (issue 32, points 2 and 3): MPI_Init takes 96-98%
// of the span and run B's rank 2, launched 720 ms before the others, spends
// +720 ms in it (launch skew), while rank 1 computes 2 ms more per
// iteration. The summary leads with
// computation and names rank 1 (+10 ms); set-up comes last and names rank 2.
// Tables equal the event-walk oracle; heatmaps equal the brute force, and
// MPI_Init's pair fills the columns it covers (on main: "rank 2 computes
// +720 ms", and a 2% sliver followed by grey columns).
func TestRunsSetUpDominates(t *testing.T) {
	a := initRun([]int64{720, 720, 720, 720}, []int64{3, 3, 3, 3})
	b := initRun([]int64{720, 720, 0, 720}, []int64{3, 5, 3, 3})
	a.Path, b.Path = "runs/before/traces.otf2", "runs/after/traces.otf2"
	rr := Runs(a, b)
	checkRunsTable(t, rr)
	lines := strings.Split(rr.String(), "\n")
	if len(lines) != 3 || lines[1] != "computation: rank 1 computes +10.00 ms (+66.7%); the other 3 within ±0.0% (±0 ns)" ||
		!strings.HasPrefix(lines[2], "set-up/tear-down") || !strings.Contains(lines[2], ": rank 2 +720.0 ms (+89.8%)") {
		t.Errorf("summary:\n%s", rr.String())
	}
	if i, d := oracleLeader(rr, func(s trace.SyncTimes) int64 { return s.ComputeNs }); rr.Names[i] != "rank 1" || d != 10*ms {
		t.Errorf("oracle: computation leader %s %d", rr.Names[i], d)
	}
	checkHeat(t, rr, 50)
	// MPI_Init is pair 1 (after main's zero-length pair): on rank 2 it spans
	// [0, 1520) of ~1552 ms, on the others [0, 800) of ~832 ms; the
	// columns it covers are 0 (set-up is no computation), never NaN, and
	// the skew there is MPI_Init's (0: it is entered at the same time).
	for row, r := range rr.Results {
		covered := int(r.frac(2) * 50)
		if covered < 45 {
			t.Fatalf("row %d: MPI_Init covers %d of 50 columns", row, covered)
		}
		hc, hs := rr.heat(50, heatCompute)[row], rr.heat(50, heatSkew)[row]
		for c := 0; c < covered; c++ {
			if hc[c] != 0 || math.IsNaN(hs[c]) {
				t.Fatalf("row %d column %d: compute %v skew %v", row, c, hc[c], hs[c])
			}
		}
		sum := 0.0
		for _, v := range hc {
			sum += v
		}
		ta, tb := rr.Times(row)
		if want := float64(tb.ComputeNs-ta.ComputeNs) / 1e6; math.Abs(sum-want) > 1e-9 {
			t.Errorf("row %d: compute heat sums to %v ms, computation change %v", row, sum, want)
		}
	}
	// Counting set-up as computation restores the old answer.
	old := rr.WithSync(trace.DefaultSync().Compute("MPI_Init", "MPI_Finalize"))
	if s := old.String(); !strings.Contains(s, "\ncomputation: rank 2 computes +720.0 ms") {
		t.Errorf("set-up as computation:\n%s", s)
	}
}

// mpiOnlyRegions: an MPI-only trace (Score-P without compiler
// instrumentation): the application's computation lies between MPI calls.
var mpiOnlyRegions = []trace.Region{{Name: "MPI_Init", Role: "function", Paradigm: "mpi"},
	{Name: "MPI_Comm_rank", Role: "function", Paradigm: "mpi"}, {Name: "MPI_Allreduce", Role: "coll_all2all", Paradigm: "mpi"},
	{Name: "MPI_Finalize", Role: "function", Paradigm: "mpi"}}

// TestRunsMPIOnly (issue 32, point 2): in an MPI-only trace rank 1's
// application computation (outside every region) grows by 4 x 7.5 ms. The
// summary leads with the time outside instrumented regions and names
// rank 1; nothing is called idle, and MPI_Init is not computation. Tables
// equal the event-walk oracle, heatmaps the brute force (on main: the
// summary named computation only, "rank 0 computes" inside MPI_Comm_rank,
// and the time outside was called idle).
func TestRunsMPIOnly(t *testing.T) {
	a := mpiOnlyRun([]int64{10 * ms, 10 * ms, 10 * ms})
	b := mpiOnlyRun([]int64{10 * ms, 17*ms + ms/2, 10 * ms})
	rr := Runs(a, b)
	checkRunsTable(t, rr)
	s := rr.String()
	lines := strings.Split(s, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "outside instrumented regions") || !strings.Contains(lines[1], ": rank 1 +30.00 ms") ||
		!strings.HasPrefix(lines[2], "computation: ") || !strings.HasPrefix(lines[3], "set-up/tear-down") {
		t.Errorf("summary:\n%s", s)
	}
	if i, d := oracleLeader(rr, func(s trace.SyncTimes) int64 { return s.OutsideNs }); rr.Names[i] != "rank 1" || d != 30*ms {
		t.Errorf("oracle: outside leader %s %d", rr.Names[i], d)
	}
	// the words of the view, not the base64 of its figure's PNG
	words := regexp.MustCompile(`data:image/png;base64,[A-Za-z0-9+/=]*`).ReplaceAllString(fmt.Sprint(rr.MIMEBundle()), "")
	if strings.Contains(strings.ToLower(words), "idle") {
		t.Errorf("the runs view calls something idle:\n%s", s)
	}
	for i := range rr.Names {
		ta, _ := rr.Times(i)
		if ta.ComputeNs != 10_000 || ta.SetUpNs != 401*ms {
			t.Errorf("%s: %+v (MPI_Init counted as computation?)", rr.Names[i], ta)
		}
	}
	checkHeat(t, rr, 50)
}

// mpiOnlyRun is ranks with MPI_Init (400 ms), MPI_Comm_rank (10 µs), then
// 4 iterations of work[r] ns outside every region and an MPI_Allreduce that
// all leave together (0.5 ms after the last arrives), then MPI_Finalize
// (1 ms).
func mpiOnlyRun(work []int64) *trace.Trace {
	calls := make([][]span, len(work))
	start := make([]int64, len(work))
	for r := range work {
		calls[r] = append(calls[r], span{0, 0, 400 * ms}, span{1, 400 * ms, 400*ms + 10_000})
		start[r] = 401 * ms
	}
	for i := 0; i < 4; i++ {
		leave := int64(0)
		for r := range work {
			leave = max(leave, start[r]+work[r])
		}
		leave += ms / 2
		for r := range work {
			calls[r] = append(calls[r], span{2, start[r] + work[r], leave})
			start[r] = leave
		}
	}
	var places []place
	for r := range work {
		places = append(places, place{int32(r), int32(r), 0, append(calls[r], span{3, start[r], start[r] + ms})})
	}
	return run(mpiOnlyRegions, mpiRanks(len(work)), places...)
}

// TestRunsRealPingPong (issue 32, point 2, on a real Score-P trace): the
// two pipit ping-pong runs spend 97% of their span in MPI_Init, which
// differs by ~15 ms between them (launch). Tables equal the event-walk
// oracle; the computation line names the oracle's leader with a change
// under 1 ms, and set-up comes last (on main: "rank 0 computes +15.8 ms").
func TestRunsRealPingPong(t *testing.T) {
	// the repository's copies of the real traces
	pa, qa := "../../test/data/traces/ping-pong-otf2/traces.otf2", "../../test/data/traces/ping-pong-otf2-papi/traces.otf2"
	rr := Runs(trace.Open(pa), trace.Open(qa))
	checkRunsTable(t, rr)
	checkHeat(t, rr, 50)
	i, d := oracleLeader(rr, func(s trace.SyncTimes) int64 { return s.ComputeNs })
	lines := strings.Split(rr.String(), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], fmt.Sprintf("computation: %s computes %s", rr.Names[i], signedNs(d))) ||
		abs64(d) >= ms || !strings.HasPrefix(lines[3], "set-up/tear-down") {
		t.Errorf("summary:\n%s", rr.String())
	}
}

// TestRunsHeatRandom: on random call trees (zero-length calls, set-up and
// synchronisation nested anywhere, calls of one run only) the computation
// and skew heatmaps equal the brute force at several widths, and each
// computation row sums to the location's computation change. Mutation
// tried: drawing a pair in its start column only fails at once.
func TestRunsHeatRandom(t *testing.T) {
	rnd := rand.New(rand.NewPCG(32, 2))
	regions := []trace.Region{{Name: "main"}, {Name: "a"}, {Name: "b"}, {Name: "MPI_Init"}, {Name: "MPI_Barrier"}, {Name: "c"}}
	var gen func(region int32, t0, t1 int64, depth int) []span
	gen = func(region int32, t0, t1 int64, depth int) []span {
		out := []span{{region, t0, t1}}
		if depth == 0 {
			return out
		}
		now := t0
		for n := rnd.IntN(4); n > 0 && now < t1; n-- {
			a := now + rnd.Int64N(t1-now+1)
			if rnd.IntN(4) == 0 {
				a = now
			}
			b := a + rnd.Int64N(t1-a+1)
			if rnd.IntN(5) == 0 {
				b = a
			}
			out = append(out, gen(int32(1+rnd.IntN(len(regions)-1)), a, b, depth-1)...)
			now = b
		}
		return out
	}
	for iter := 0; iter < 200; iter++ {
		mk := func() *trace.Trace {
			var places []place
			for r := int32(0); r < 2; r++ {
				places = append(places, place{r, r, 0, gen(0, int64(rnd.IntN(3)), 50+int64(rnd.IntN(100)), 3)})
			}
			return run(regions, mpiRanks(2), places...)
		}
		rr := Runs(mk(), mk())
		for _, cols := range []int{1, 3, 7, 50} {
			checkHeat(t, rr, cols)
		}
		for row, h := range rr.heat(13, heatCompute) {
			sum := 0.0
			for _, v := range h {
				if !math.IsNaN(v) {
					sum += v
				}
			}
			ta, tb := rr.Times(row)
			if want := float64(tb.ComputeNs-ta.ComputeNs) / 1e6; math.Abs(sum-want) > 1e-9 {
				t.Fatalf("iteration %d row %d: sum %v, computation change %v", iter, row, sum, want)
			}
		}
		checkRunsTable(t, rr)
	}
}

// BenchmarkRunsComputeHeat: the computation and skew heatmaps of 16 rank
// pairs of 200 iterations (the alignments computed once, outside the loop).
func BenchmarkRunsComputeHeat(b *testing.B) {
	x, y := genPair(b, 16, 200)
	rr := Runs(x, y)
	b.ResetTimer()
	for range b.N {
		rr.heat(50, heatCompute)
		rr.heat(50, heatSkew)
	}
}
