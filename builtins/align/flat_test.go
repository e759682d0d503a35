package align

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

func runes(s string) []int32 {
	out := make([]int32, 0, len(s))
	for _, r := range s {
		out = append(out, int32(r))
	}
	return out
}

// render prints an alignment as two rows, '-' for gaps.
func render(a, b []int32, ops []Op) (string, string) {
	var ra, rb strings.Builder
	i, j := 0, 0
	for _, op := range ops {
		switch op {
		case OpDiag:
			ra.WriteRune(rune(a[i]))
			rb.WriteRune(rune(b[j]))
			i, j = i+1, j+1
		case OpGapA:
			ra.WriteByte('-')
			rb.WriteRune(rune(b[j]))
			j++
		case OpGapB:
			ra.WriteRune(rune(a[i]))
			rb.WriteByte('-')
			i++
		}
	}
	return ra.String(), rb.String()
}

var exactMethods = []Method{NW, Hirschberg, WFA, BiWFA, BitParallel, Auto}

func randomSeq(r *rand.Rand, n, sigma int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(r.Intn(sigma))
	}
	return s
}

// mutate derives a sequence from a by random substitutions, insertions and
// deletions at the given rate.
func mutate(r *rand.Rand, a []int32, rate float64, sigma int) []int32 {
	out := make([]int32, 0, len(a)+len(a)/10)
	for _, x := range a {
		if r.Float64() < rate {
			switch r.Intn(3) {
			case 0:
				out = append(out, int32(r.Intn(sigma)))
			case 1:
				out = append(out, x, int32(r.Intn(sigma)))
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

func randomScoring(r *rand.Rand) Scoring {
	for {
		s := Scoring{Match: r.Intn(6) + 1, Mismatch: r.Intn(9) - 6, Gap: r.Intn(7) - 5}
		if s.Validate() == nil {
			return s
		}
	}
}

// checkAll checks that every method finds an optimal alignment and that all
// but BiWFA return the tie rule's alignment, Needleman-Wunsch's.
func checkAll(t *testing.T, a, b []int32, s Scoring, methods []Method) {
	t.Helper()
	want := NWScore(a, b, s)
	ref, _ := alignOps(a, b, Options{Method: NW, Scoring: s})
	for _, m := range methods {
		res := Align(a, b, WithMethod(m), WithScoring(s.Match, s.Mismatch, s.Gap))
		if res.Method != BiWFA && !slices.Equal(res.Ops, ref) {
			ra, rb := render(a, b, res.Ops)
			na, nb := render(a, b, ref)
			t.Fatalf("%v (ran %v) scoring %+v breaks the tie rule:\n%s\n%s\nNW:\n%s\n%s", m, res.Method, s, ra, rb, na, nb)
		}
		got, err := ScorePath(a, b, res.Ops, s)
		if err != nil {
			t.Fatalf("%v on %v / %v: invalid path: %v", m, a, b, err)
		}
		if got != want || res.Score != want {
			ra, rb := render(a, b, res.Ops)
			t.Fatalf("%v scoring %+v: score %d (reported %d), NW %d\nA=%v\nB=%v\n%s\n%s", m, s, got, res.Score, want, a, b, ra, rb)
		}
	}
}

func TestExactMethodsEqualNWRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for it := 0; it < n; it++ {
		sigma := 1 + r.Intn(20)
		a := randomSeq(r, r.Intn(301), sigma)
		var b []int32
		if r.Intn(2) == 0 {
			b = randomSeq(r, r.Intn(301), sigma)
		} else {
			b = mutate(r, a, r.Float64()*0.3, sigma)
		}
		s := DefaultScoring
		if it%2 == 1 {
			s = randomScoring(r)
		}
		checkAll(t, a, b, s, exactMethods)
	}
}

func TestExactMethodsLarger(t *testing.T) {
	// Above the NW leaf size, so the recursive paths of Hirschberg, BiWFA
	// and the SWAR kernel are exercised.
	r := rand.New(rand.NewSource(2))
	for it := 0; it < 40; it++ {
		sigma := 1 + r.Intn(20)
		a := randomSeq(r, 500+r.Intn(1500), sigma)
		b := mutate(r, a, []float64{0.01, 0.05, 0.2, 0.6}[it%4], sigma)
		if it%5 == 4 {
			b = randomSeq(r, 500+r.Intn(1500), sigma)
		}
		s := DefaultScoring
		if it%3 == 2 {
			s = randomScoring(r)
		}
		checkAll(t, a, b, s, exactMethods)
	}
}

// The fast kernels (bit-vector with and without the vector loop,
// byte-lane) give the scalar recurrence's rows, forward and backward.
func TestKernelRows(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	tested := map[rowKernel]int{}
	for it := 0; it < 1000; it++ {
		sigma := 1 + r.Intn(20)
		a, b := randomSeq(r, r.Intn(200), sigma), randomSeq(r, r.Intn(200), sigma)
		s := randomScoring(r)
		goBits := func(h *hirschberg) bool { h.noVector = true; return h.useBits() }
		for _, use := range []func(*hirschberg) bool{(*hirschberg).useBits, goBits, (*hirschberg).useBytes} {
			h := newHirschberg(a, b, s, false, nil)
			if !use(h) {
				continue
			}
			tested[h.kernel]++
			got, want := make([]int, len(b)+1), make([]int, len(b)+1)
			h.row(0, len(a), 0, len(b), false, got)
			scoreRow(a, b, s, want, nil)
			for j := range got {
				if got[j] != want[j] {
					t.Fatalf("kernel %d scoring %+v A=%v B=%v: row %v want %v", h.kernel, s, a, b, got, want)
				}
			}
			lo, hi := len(a)/3, len(a)
			h.row(lo, hi, 0, len(b), true, got)
			scoreRow(reversed(a[lo:hi]), reversed(b), s, want, nil)
			for j := range got {
				if got[j] != want[j] {
					t.Fatalf("kernel %d scoring %+v backward: row %v want %v", h.kernel, s, got, want)
				}
			}
		}
	}
	if tested[kernBits] < 300 || tested[kernBytes] < 300 {
		t.Fatalf("kernels tested %v times", tested)
	}
}

// Weber Figs. 3.6-3.7: mcacmam against mcacbcmbm.
func TestWeberFig36(t *testing.T) {
	a, b := runes("mcacmam"), runes("mcacbcmbm")
	if got := NWScore(a, b, DefaultScoring); got != 9 {
		t.Fatalf("optimal score %d, want 9", got)
	}
	ops, _ := needlemanWunsch(a, b, DefaultScoring)
	ra, rb := render(a, b, ops)
	// Fig. 3.7 / the second alignment of 3.2.2.
	if ra != "mcac--mam" || rb != "mcacbcmbm" {
		t.Fatalf("NW alignment\n%s\n%s", ra, rb)
	}
	// Levenshtein distance 3 (Fig. 3.14/3.15): 2 gaps and 1 mismatch.
	var g, d int
	for i, op := range ops {
		_ = i
		switch op {
		case OpGapA, OpGapB:
			g++
		}
	}
	i, j := 0, 0
	for _, op := range ops {
		switch op {
		case OpDiag:
			if a[i] != b[j] {
				d++
			}
			i, j = i+1, j+1
		case OpGapA:
			j++
		case OpGapB:
			i++
		}
	}
	if g != 2 || d != 1 {
		t.Fatalf("gaps %d mismatches %d, want 2 and 1", g, d)
	}
	checkAll(t, a, b, DefaultScoring, exactMethods)
}

// Weber 3.2.5: 'aabaabaa' against 'aa' has several optimal alignments; the
// documented tie-break gives the first one of the text.
func TestWeberAmbiguity(t *testing.T) {
	a, b := runes("aabaabaa"), runes("aa")
	for _, m := range []Method{NW, Auto} {
		res := Align(a, b, WithMethod(m))
		ra, rb := render(a, b, res.Ops)
		if ra != "aabaabaa" || rb != "aa------" {
			t.Fatalf("%v: got\n%s\n%s", m, ra, rb)
		}
		if res.Score != -2 {
			t.Fatalf("%v: score %d, want -2", m, res.Score)
		}
	}
}

func TestSpecialCases(t *testing.T) {
	cases := []struct{ a, b, ra, rb string }{
		{"abcabc", "abcabc", "abcabc", "abcabc"},
		{"xyzabc", "abc", "xyzabc", "---abc"},
		{"ab", "zzabzz", "--ab--", "zzabzz"},
		{"aaaa", "bbbb", "aaaa", "bbbb"}, // disjoint: all Diff (cheaper than gaps)
		{"", "abc", "---", "abc"},
	}
	for _, c := range cases {
		a, b := runes(c.a), runes(c.b)
		res := Align(a, b)
		ra, rb := render(a, b, res.Ops)
		if ra != c.ra || rb != c.rb || res.Score != NWScore(a, b, DefaultScoring) {
			t.Errorf("%q/%q: got %s/%s score %d", c.a, c.b, ra, rb, res.Score)
		}
		if res.Method != Special && c.a != "aaaa" { // small disjoint inputs go to NW before the certificate
			t.Errorf("%q/%q: method %v, want Special", c.a, c.b, res.Method)
		}
	}
}

// Weber's five input sets (Tables 3.2-3.6) are solved exactly and certified.
func TestWeberInputSets(t *testing.T) {
	for _, set := range weberSets {
		a, b := set.gen(5000)
		res := Align(a, b)
		if want := NWScore(a, b, DefaultScoring); res.Score != want {
			t.Fatalf("%s: score %d, NW %d", set.name, res.Score, want)
		}
		if res.Heuristic {
			t.Fatalf("%s: heuristic", set.name)
		}
	}
}

func TestAnchorHeuristic(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for it := 0; it < 200; it++ {
		sigma := 1 + r.Intn(8)
		a := randomSeq(r, r.Intn(300), sigma)
		b := mutate(r, a, 0.2, sigma)
		res := Align(a, b, WithMethod(Anchor), WithBudget(100))
		if !res.Heuristic {
			t.Fatal("anchor result not flagged heuristic")
		}
		if _, err := ScorePath(a, b, res.Ops, DefaultScoring); err != nil {
			t.Fatal(err)
		}
		if res.Score > NWScore(a, b, DefaultScoring) {
			t.Fatal("heuristic beats the optimum")
		}
	}
	// 3.2.4: the most frequent function is the anchor; occurrences are
	// aligned in order, surplus ones stay at the end.
	a, b := runes("xaxaxa"), runes("yaya")
	res := Align(a, b, WithMethod(Anchor), WithBudget(1))
	ra, rb := render(a, b, res.Ops)
	if ra != "xaxaxa" || rb != "yaya--" {
		t.Fatalf("anchor alignment\n%s\n%s", ra, rb)
	}
}

func TestInvalidScoring(t *testing.T) {
	defer func() {
		if e, ok := recover().(*Error); !ok || e.Func != "align.Align" {
			t.Fatalf("want *Error from align.Align, got %v", e)
		}
	}()
	Align(runes("ab"), runes("ab"), WithScoring(1, 0, 1))
}

// The tie rule (doc.go) against its definition: on tiny inputs every
// optimal path is enumerated; the one that dominates all others must exist
// and be what Needleman-Wunsch returns: per row of the DP grid (A down the
// rows) its first and last column are the smallest (the lower envelope,
// A as early as possible) when A is not longer than B, the largest (the
// upper envelope, B as early as possible) when it is.
func TestTieRuleIsLowerEnvelope(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for it := 0; it < 1500; it++ {
		sigma := 1 + r.Intn(3)
		a, b := randomSeq(r, r.Intn(7), sigma), randomSeq(r, r.Intn(7), sigma)
		s := DefaultScoring
		if it%2 == 1 {
			s = randomScoring(r)
		}
		opt := NWScore(a, b, s)
		var paths [][]Op
		var walk func(i, j, score int, ops []Op)
		walk = func(i, j, score int, ops []Op) {
			if i == len(a) && j == len(b) {
				if score == opt {
					paths = append(paths, append([]Op(nil), ops...))
				}
				return
			}
			if i < len(a) && j < len(b) {
				d := s.Mismatch
				if a[i] == b[j] {
					d = s.Match
				}
				walk(i+1, j+1, score+d, append(ops, OpDiag))
			}
			if j < len(b) {
				walk(i, j+1, score+s.Gap, append(ops, OpGapA))
			}
			if i < len(a) {
				walk(i+1, j, score+s.Gap, append(ops, OpGapB))
			}
		}
		walk(0, 0, 0, nil)
		rows := func(ops []Op) (lo, hi []int) {
			lo, hi = make([]int, len(a)+1), make([]int, len(a)+1)
			for i := range lo {
				lo[i] = -1
			}
			i, j := 0, 0
			mark := func() {
				if lo[i] < 0 {
					lo[i] = j
				}
				hi[i] = j
			}
			mark()
			for _, op := range ops {
				switch op {
				case OpDiag:
					i, j = i+1, j+1
				case OpGapA:
					j++
				case OpGapB:
					i++
				}
				mark()
			}
			return
		}
		lower := len(a) <= len(b)
		var top []Op
		found := false
		for _, p := range paths {
			plo, phi := rows(p)
			all := true
			for _, q := range paths {
				qlo, qhi := rows(q)
				for i := range plo {
					if lower && (plo[i] > qlo[i] || phi[i] > qhi[i]) || !lower && (plo[i] < qlo[i] || phi[i] < qhi[i]) {
						all = false
					}
				}
			}
			if all {
				if found {
					t.Fatalf("two dominating paths for %v / %v", a, b)
				}
				top, found = p, true
			}
		}
		if !found {
			t.Fatalf("%v / %v scoring %+v: no optimal path dominates the %d others", a, b, s, len(paths)-1)
		}
		if got := Align(a, b, WithMethod(NW), WithScoring(s.Match, s.Mismatch, s.Gap)).Ops; !slices.Equal(got, top) {
			t.Fatalf("%v / %v scoring %+v: NW %v, envelope (lower %v) %v", a, b, s, got, lower, top)
		}
	}
}

// Issue 10, defect 4: Strings("xaya", "a") gave -a-- with NW and ---a with
// Auto and BiWFA (suffix trimming matched the last a); inside a
// hierarchical alignment that changed which calls correspond.
func TestTiesDoNotDependOnMethod(t *testing.T) {
	for _, m := range []Method{Auto, NW, Hirschberg, WFA, BitParallel} {
		r := Strings("xaya", "a", WithMethod(m))
		if a, b, st := r.AlignedStrings(); a != "xaya" || b != "-a--" || st != "-=--" {
			t.Errorf("%v: %s / %s / %s, want xaya / -=-- / -a--", m, a, st, b)
		}
		h := Hierarchical(parseTree("m(xA(p)yA(q))"), parseTree("m(A(p))"), WithMethod(m))
		if got := h.Score(DefaultScoring); got != 2 {
			t.Errorf("%v: hierarchical score %d, want 2 (A(p) with A(p))", m, got)
		}
	}
}
