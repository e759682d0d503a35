package align

import (
	"math"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

func TestStringsSurface(t *testing.T) {
	r := Strings("mcacmam", "mcacbcmbm")
	if r.Score() != 9 {
		t.Fatalf("score %d", r.Score())
	}
	e, d, ga, gb := r.Counts()
	if e != 6 || d != 1 || ga != 2 || gb != 0 {
		t.Fatalf("counts %d %d %d %d", e, d, ga, gb)
	}
	// eq. 4.4-4.5: (9/18 + 0.5)/1.5
	if s := r.Similarity(); s < 0.6666 || s > 0.6667 {
		t.Fatalf("similarity %v", s)
	}
	a, b, st := r.AlignedStrings()
	if a != "mcac--mam" || b != "mcacbcmbm" || st != "====--=!=" {
		t.Fatalf("aligned strings\n%s\n%s\n%s", a, b, st)
	}
	if tb := r.Table(); tb.NumRows() != 9 {
		t.Fatalf("table rows %d", tb.NumRows())
	}
	if txt := r.MIMEBundle()["text/plain"].(string); !strings.Contains(txt, "mcac--mam") {
		t.Fatalf("text/plain %q", txt)
	}
	// Dissimilarity: 9 points over 9 pairs of one time unit each, window
	// 0.9: ====--=!= seen from t = 9p/8.
	d2 := r.Dissimilarity()
	vals, _ := d2.Float64s("Dissimilarity")
	want := []float64{0, 0, 0, 0, 1, 0.825 / 0.9, 0.2 / 0.9, 0.575 / 0.9, 0}
	if len(vals) != len(want) {
		t.Fatalf("dissimilarity %v, want %v", vals, want)
	}
	for i := range want {
		if math.Abs(vals[i]-want[i]) > 1e-12 {
			t.Fatalf("dissimilarity %v, want %v", vals, want)
		}
	}
	if s := Sequences([]string{"init", "solve", "out"}, []string{"init", "out"}).Similarity(); s <= 0 || s >= 1 {
		t.Fatalf("similarity %v", s)
	}
}

func genPair(t testing.TB, ranks, iters int) (*trace.Trace, *trace.Trace) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = ranks, iters, 2
	a := synth.Generate(cfg)
	cfg.Version, cfg.SlowRank = 1, ranks-1
	b := synth.Generate(cfg)
	return a, b
}

func TestPairAndRuns(t *testing.T) {
	a, b := genPair(t, 4, 5)
	r := Pair(a.Process(0), b.Process(0))
	e, d, ga, gb := r.Counts()
	if e == 0 || ga+gb+d == 0 {
		t.Fatalf("versions differ, yet counts %d %d %d %d", e, d, ga, gb)
	}
	flat := Pair(a.Process(0), b.Process(0), WithFlat())
	if flat.Score() < r.Score() {
		t.Fatalf("flat optimum %d below HA %d", flat.Score(), r.Score())
	}
	ea, eb := r.treeA.Euler(), r.treeB.Euler()
	if got, want := r.FlatOptimum(), NWScore(ea, eb, DefaultScoring); got != want {
		t.Fatalf("FlatOptimum %d, Euler NW %d", got, want)
	}
	if got, want := r.HAError(), ScoreError(r.Hierarchical().EulerScore(DefaultScoring, true), NWScore(ea, eb, DefaultScoring)); got != want {
		t.Fatalf("HA error %v, want %v", got, want)
	}
	// Same version, same rank: identical structure.
	same := Pair(a.Process(1), a.Process(1))
	if same.Similarity() != 1 {
		t.Fatalf("self similarity %v", same.Similarity())
	}
	// The slow rank's kernels take longer in B; other ranks only wait for
	// it. The function gaining most more time on the slow rank than on
	// rank 1 is a computation, not MPI.
	dplus := func(i int) map[string]int64 {
		tb := Pair(a.Process(i), b.Process(i)).FunctionTimeDiff()
		fn, _ := tb.Strings("Function")
		dp, _ := tb.Int64s("Time Lost in B (ns)")
		m := map[string]int64{}
		for k := range fn {
			m[fn[k]] = dp[k]
		}
		return m
	}
	slow, fast := dplus(3), dplus(1)
	bestFn, best := "", int64(0)
	for f, v := range slow {
		if d := v - fast[f]; d > best {
			bestFn, best = f, d
		}
	}
	if best <= 0 || strings.HasPrefix(bestFn, "MPI_") {
		t.Fatalf("slow rank: largest extra Δ+ %d in %q", best, bestFn)
	}
	t.Logf("slow rank loses most in %s: %d ns", bestFn, best)
	if r.Table().NumRows() != r.Len() || r.Dissimilarity().NumRows() == 0 {
		t.Fatal("tables")
	}
	if fig := r.Plot(); fig == nil {
		t.Fatal("nil plot")
	}
	// Runs: per rank, computation and synchronisation times equal an oracle
	// from the region statistics (the generator nests nothing inside its
	// MPI calls): synchronisation is the inclusive time of MPI_Waitall,
	// MPI_Allreduce and MPI_Barrier, set-up the inclusive time of MPI_Init
	// and MPI_Finalize, computation the exclusive time of every other region.
	// Only the slow rank computes more, and the summary names it.
	// Mutations tried: MPI_Waitall left out of the built-in names (ranks 0-2
	// then "compute" their wait), the summary skipping rows 2 and up.
	rr := Runs(a, b)
	tb := rr.Table()
	oracle := func(p *trace.Process) (compute, sync int64) {
		for _, st := range p.RegionStats() {
			switch p.RegionName(st.Region) {
			case "MPI_Waitall", "MPI_Allreduce", "MPI_Barrier":
				sync += st.Inclusive
			case "MPI_Init", "MPI_Finalize":
			default:
				compute += st.Exclusive
			}
		}
		return
	}
	ca, _ := tb.Int64s("Compute A (ns)")
	cb, _ := tb.Int64s("Compute B (ns)")
	sa, _ := tb.Int64s("Sync A (ns)")
	sb, _ := tb.Int64s("Sync B (ns)")
	if len(ca) != a.NumProcesses() {
		t.Fatalf("runs table rows %d", len(ca))
	}
	for i := range ca {
		wca, wsa := oracle(a.Process(i))
		wcb, wsb := oracle(b.Process(i))
		if ca[i] != wca || cb[i] != wcb || sa[i] != wsa || sb[i] != wsb {
			t.Errorf("rank %d: compute %d -> %d, sync %d -> %d; oracle %d -> %d, %d -> %d", i, ca[i], cb[i], sa[i], sb[i], wca, wcb, wsa, wsb)
		}
		if slow := i == 3; (cb[i] != ca[i]) != slow {
			t.Errorf("rank %d: compute %d -> %d", i, ca[i], cb[i])
		}
	}
	if s := rr.String(); !strings.Contains(s, "\ncomputation: rank 3 computes +") || !strings.Contains(s, "; the other 3 within ±0.0% (±0 ns)\n") {
		t.Errorf("summary %q", s)
	}
	// The case: 16 ranks, rank 5 slowed 2x; every rank used to show
	// the same final skew.
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 16, 3
	x := synth.Generate(cfg)
	cfg.SlowRank, cfg.SlowFactor = 5, 2
	if s := Runs(x, synth.Generate(cfg)).String(); !strings.Contains(s, "\ncomputation: rank 5 computes +") || !strings.Contains(s, "; the other 15 within ±0.0% (±0 ns)\n") {
		t.Errorf("16 ranks, rank 5 slow: summary %q", s)
	}
	if _, ok := rr.Plot().MIMEBundle()["image/png"]; !ok {
		t.Fatal("runs plot without PNG")
	}
	if _, ok := r.Plot().MIMEBundle()["image/png"]; !ok {
		t.Fatal("pair plot without PNG")
	}
}
