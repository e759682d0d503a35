package align

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/work"
)

// Scoring holds the scores of an aligned pair (Weber eq. 3.1; Farah's α, β, γ).
// The zero value means the default {2, -1, -1}.
type Scoring struct {
	Match, Mismatch, Gap int
}

// DefaultScoring is Weber's and Farah's default: match 2, mismatch -1, gap -1.
var DefaultScoring = Scoring{Match: 2, Mismatch: -1, Gap: -1}

func (s Scoring) orDefault() Scoring {
	if s == (Scoring{}) {
		return DefaultScoring
	}
	return s
}

// Error is the panic value of the notebook surface for bad arguments and
// interrupted work: the one error of every builtin (work.Error), named after
// the function.
type Error = work.Error

func fail(fn, format string, args ...any) { work.Fail(fn, format, args...) }

// Validate reports whether the scoring can be maximised meaningfully.
func (s Scoring) Validate() error {
	s = s.orDefault()
	if s.Match < s.Mismatch {
		return fmt.Errorf("align: scoring %+v: match score below mismatch score", s)
	}
	if s.Match <= 2*s.Gap {
		return fmt.Errorf("align: scoring %+v: two gaps score at least as much as a match", s)
	}
	if s.Match-2*s.Gap > 1<<20 || s.Match-s.Mismatch > 1<<20 {
		return fmt.Errorf("align: scoring %+v: score range too large", s)
	}
	return nil
}

// costs is the edit-cost form of a scoring: match 0, mismatch X, gap G,
// with 2*score = Match*(n+m) - Scale*cost.
type costs struct {
	X, G  int32
	Scale int
	ok    bool // X > 0 and G > 0: the wavefront methods are exact
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	if a < 0 {
		return -a
	}
	return a
}

func (s Scoring) costs() costs {
	x2, g2 := 2*(s.Match-s.Mismatch), s.Match-2*s.Gap
	if x2 <= 0 || g2 <= 0 {
		return costs{}
	}
	g := gcd(x2, g2)
	return costs{X: int32(x2 / g), G: int32(g2 / g), Scale: g, ok: true}
}

// maxForm gives the weights of the equivalent problem with gap weight 0:
// score = wM*matches + wX*mismatches + Gap*(n+m). A mismatch worse than two
// gaps is never chosen, so its weight is clamped at 0 without changing the
// optimum.
func (s Scoring) maxForm() (wM, wX int) {
	wM = s.Match - 2*s.Gap
	wX = s.Mismatch - 2*s.Gap
	if wX < 0 {
		wX = 0
	}
	return
}

// Op is one column of an alignment path.
type Op uint8

const (
	OpDiag Op = iota // A[i] against B[j]: Equal or Diff
	OpGapA           // B[j] alone: a gap in sequence A
	OpGapB           // A[i] alone: a gap in sequence B
)

// State is the comparison state of an aligned pair (Weber's CMP bar).
type State uint8

const (
	Equal State = iota // the same element in A and B
	Diff               // different elements (a mismatch)
	GapA               // present only in B
	GapB               // present only in A
)

func (s State) String() string {
	switch s {
	case Equal:
		return "Equal"
	case Diff:
		return "Diff"
	case GapA:
		return "GapA"
	case GapB:
		return "GapB"
	}
	return "?"
}

// ScorePath recomputes the score of an alignment path and checks that it
// consumes exactly a and b.
func ScorePath(a, b []int32, ops []Op, s Scoring) (int, error) {
	s = s.orDefault()
	i, j, score := 0, 0, 0
	for k, op := range ops {
		switch op {
		case OpDiag:
			if i >= len(a) || j >= len(b) {
				return 0, fmt.Errorf("align: op %d: diagonal beyond the end", k)
			}
			if a[i] == b[j] {
				score += s.Match
			} else {
				score += s.Mismatch
			}
			i++
			j++
		case OpGapA:
			if j >= len(b) {
				return 0, fmt.Errorf("align: op %d: gap in A beyond the end of B", k)
			}
			score += s.Gap
			j++
		case OpGapB:
			if i >= len(a) {
				return 0, fmt.Errorf("align: op %d: gap in B beyond the end of A", k)
			}
			score += s.Gap
			i++
		default:
			return 0, fmt.Errorf("align: op %d: bad op %d", k, op)
		}
	}
	if i != len(a) || j != len(b) {
		return 0, fmt.Errorf("align: path consumes %d/%d and %d/%d symbols", i, len(a), j, len(b))
	}
	return score, nil
}

func appendN(ops []Op, op Op, n int) []Op {
	for ; n > 0; n-- {
		ops = append(ops, op)
	}
	return ops
}

func reverseOps(ops []Op) {
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
}
