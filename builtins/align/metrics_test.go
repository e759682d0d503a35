package align

import (
	"math"
	"math/rand"
	"testing"
)

// timedResult is a Result of two processes given by their element names,
// enter and leave times (ns) and an alignment path.
func timedResult(a, b []string, ops []Op, enterA, leaveA, enterB, leaveB []int64) *Result {
	sy := newSymbols()
	r := &Result{LabelA: "A", LabelB: "B", a: sy.encode(a), b: sy.encode(b), scoring: DefaultScoring,
		enterA: enterA, leaveA: leaveA, enterB: enterB, leaveB: leaveB}
	r.names = sy.Names
	r.fromOps(ops)
	sc, err := ScorePath(r.a, r.b, ops, DefaultScoring)
	if err != nil {
		panic(err)
	}
	r.score = sc
	return r
}

const sec = int64(1e9)

// Weber 4.2 samples over time: a 10 s gap weighs 10 s and a 1 µs gap 1 µs
// (issue 10, defect 3: by pair index they weighed the same).
func TestDissimilarityOverTime(t *testing.T) {
	// A: x [0,1 s) y [1,11 s) z [11,12 s); B: x [0,1 s) z [1,2 s) w [2 s, 2 s + 1 µs).
	r := timedResult([]string{"x", "y", "z"}, []string{"x", "z", "w"},
		[]Op{OpDiag, OpGapB, OpDiag, OpGapA},
		[]int64{0, sec, 11 * sec}, []int64{sec, 11 * sec, 12 * sec},
		[]int64{0, sec, 2 * sec}, []int64{sec, 2 * sec, 2*sec + 1000})
	vt := r.axis()
	wantAxis := []float64{0, 1e9, 11e9, 12e9, 12e9 + 1000}
	for k := range wantAxis {
		if vt[k] != wantAxis[k] {
			t.Fatalf("aligned axis %v, want %v", vt, wantAxis)
		}
	}
	tb := r.Dissimilarity()
	vals, _ := tb.Float64s("Dissimilarity")
	// 4 points at 0, T/3, 2T/3, T; the window is 1.2 s + 100 ns.
	T := 12e9 + 1000
	w := T / 10
	want := []float64{(w - 1e9) / w, 1, 1, (w - 1e9) / w}
	for i := range want {
		if math.Abs(vals[i]-want[i]) > 1e-12 {
			t.Fatalf("dissimilarity %v, want %v", vals, want)
		}
	}
	pos, _ := tb.Int64s("Position")
	at, _ := tb.Int64s("Aligned Time (ns)")
	ta, _ := tb.Int64s("Time A (ns)")
	tbb, _ := tb.Int64s("Time B (ns)")
	wantPos := []int64{0, 1, 1, 3}
	wantAt := []int64{0, 4000000333, 8000000667, 12000001000}
	// At 4 s of the aligned axis A is 3 s into y; B waits at the end of x.
	wantA := []int64{0, 4000000333, 8000000667, 12 * sec}
	wantB := []int64{0, sec, sec, 2*sec + 1000}
	for i := range wantPos {
		if pos[i] != wantPos[i] || at[i] != wantAt[i] || ta[i] != wantA[i] || tbb[i] != wantB[i] {
			t.Fatalf("row %d: position %d aligned %d a %d b %d, want %d %d %d %d", i, pos[i], at[i], ta[i], tbb[i], wantPos[i], wantAt[i], wantA[i], wantB[i])
		}
	}
}

// An all-Diff window is 1 under every scoring (issue 10: 0.6 under 2,-1,-3).
func TestDissimilarityAllDiffIsOne(t *testing.T) {
	for _, s := range []Scoring{DefaultScoring, {2, -1, -3}, {5, 1, -1}} {
		r := Strings("aaaaaaaaaa", "bbbbbbbbbb", WithScoring(s.Match, s.Mismatch, s.Gap))
		vals, _ := r.Dissimilarity().Float64s("Dissimilarity")
		for _, v := range vals {
			if v != 1 {
				t.Fatalf("scoring %+v: dissimilarity %v, want all 1", s, vals)
			}
		}
	}
}

// The linear-time sampling against a direct O(pairs x points) evaluation
// of the definition, on random states and durations (zero durations too).
func TestDissimilarityAgainstDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for it := 0; it < 400; it++ {
		n := 1 + rng.Intn(60)
		r := &Result{state: make([]State, n), ia: make([]int32, n), ib: make([]int32, n)}
		vt := make([]float64, n+1)
		for k := 0; k < n; k++ {
			r.state[k] = State(rng.Intn(4))
			d := float64(rng.Intn(5))
			if rng.Intn(4) == 0 {
				d = float64(rng.Intn(1000))
			}
			vt[k+1] = vt[k] + d
		}
		if vt[n] == 0 {
			continue
		}
		r.vt = vt
		pts := 1 + rng.Intn(50)
		_, at, val := r.dissimilarity(pts)
		T := vt[n]
		w := T * DissimilarityWindow
		for p := range at {
			a, b := at[p]-w/2, at[p]+w/2
			if a < 0 {
				a, b = 0, w
			}
			if b > T {
				a, b = T-w, T
			}
			ne := 0.0
			for k := 0; k < n; k++ {
				if r.state[k] != Equal {
					ne += max(0, min(b, vt[k+1])-max(a, vt[k]))
				}
			}
			if want := ne / w; math.Abs(val[p]-want) > 1e-9 {
				t.Fatalf("it %d point %d (t=%v): %v, want %v", it, p, at[p], val[p], want)
			}
		}
	}
}

// Runtime skew (4.3) and the Function time difference table (4.4), exactly.
func TestSkewAndFunctionTimeDiff(t *testing.T) {
	// A: f [0,10) g [10,30) f [30,40) h [40,45); B: f [100,105) g [105,140) f [140,150).
	r := timedResult([]string{"f", "g", "f", "h"}, []string{"f", "g", "f"},
		[]Op{OpDiag, OpDiag, OpDiag, OpGapB},
		[]int64{0, 10, 30, 40}, []int64{10, 30, 40, 45},
		[]int64{100, 105, 140}, []int64{105, 140, 150})
	sk := r.Skew()
	got, _ := sk.Int64s("Skew (ns)")
	want := []int64{0, -5, 10}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("skew %v, want %v", got, want)
	}
	ftd := r.FunctionTimeDiff()
	fn, _ := ftd.Strings("Function")
	np, _ := ftd.Int64s("Calls Slower in B")
	dp, _ := ftd.Int64s("Time Lost in B (ns)")
	nm, _ := ftd.Int64s("Calls Faster in B")
	dm, _ := ftd.Int64s("Time Gained in B (ns)")
	net, _ := ftd.Int64s("Net Change (ns)")
	// g: 20 -> 35 (+15 once); f: 10 -> 5 (-5), 10 -> 10 (0): net -5.
	type row struct {
		fn                  string
		np, dp, nm, dm, net int64
	}
	wantRows := []row{{"g", 1, 15, 0, 0, 15}, {"f", 0, 0, 1, 5, -5}}
	if len(fn) != len(wantRows) {
		t.Fatalf("function time difference has %d rows: %v", len(fn), fn)
	}
	for i, w := range wantRows {
		if g := (row{fn[i], np[i], dp[i], nm[i], dm[i], net[i]}); g != w {
			t.Fatalf("row %d: %+v, want %+v", i, g, w)
		}
	}
}

// Similarity (eq. 4.1-4.5) at its edges.
func TestSimilarityEdges(t *testing.T) {
	cases := []struct {
		r    *Result
		want float64
	}{
		{Strings("", ""), 1},
		{Strings("abc", "abc"), 1},
		{Strings("", "abc"), 0},
		{Strings("abc", "xyz"), 0},
		{Strings("abcd", "ab"), (2.0/8 + 0.5) / 1.5}, // score 4 - 2 = 2, Score_max 8 (eq. 4.4-4.5)
		{Strings("ab", "ab", WithScoring(3, 1, -1)), 1},
		{Strings("ab", "ax", WithScoring(3, 1, -1)), 2.0 / 4}, // score 4 in [2, 6]
	}
	for i, c := range cases {
		if got := c.r.Similarity(); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("case %d: similarity %v, want %v", i, got, c.want)
		}
	}
}
