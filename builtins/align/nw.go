package align

import "github.com/tracebook/tracebook/builtins/work"

// Needleman-Wunsch (Weber 3.2.2, eq. 3.2): the reference method.

// NWScore is the score-only oracle: the optimal score by the recurrence of
// eq. 3.2 in two rows.
func NWScore(a, b []int32, s Scoring) int {
	s = s.orDefault()
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j * s.Gap
	}
	for i := 1; i <= len(a); i++ {
		work.Check()
		diag := row[0]
		row[0] = i * s.Gap
		ai := a[i-1]
		for j := 1; j <= len(b); j++ {
			d := diag + s.Mismatch
			if ai == b[j-1] {
				d = diag + s.Match
			}
			if v := row[j] + s.Gap; v > d {
				d = v
			}
			if v := row[j-1] + s.Gap; v > d {
				d = v
			}
			diag = row[j]
			row[j] = d
		}
	}
	return row[len(b)]
}

// needlemanWunsch fills the full matrix and traces back from the
// bottom-right corner (Weber 3.2.2). Of the predecessors on an optimal path
// it takes GapA (an element of B alone) first, then the diagonal, then GapB
// (an element of A alone): that yields the tie rule of the package (see
// doc.go), the optimal alignment that places every element of A as early
// as possible, which reproduces Weber's Fig. 3.7. Memory (|a|+1)*(|b|+1) int32.
func needlemanWunsch(a, b []int32, s Scoring) ([]Op, int) {
	s = s.orDefault()
	n, m := len(a), len(b)
	w := m + 1
	reserve("Needleman-Wunsch matrix", 4*int64(n+1)*int64(w))
	D := make([]int32, (n+1)*w)
	M, X, G := int32(s.Match), int32(s.Mismatch), int32(s.Gap)
	for j := 0; j <= m; j++ {
		D[j] = int32(j) * G
	}
	for i := 1; i <= n; i++ {
		work.Check()
		r, p := D[i*w:(i+1)*w], D[(i-1)*w:i*w]
		r[0] = int32(i) * G
		ai := a[i-1]
		for j := 1; j <= m; j++ {
			d := p[j-1] + X
			if ai == b[j-1] {
				d = p[j-1] + M
			}
			if v := p[j] + G; v > d {
				d = v
			}
			if v := r[j-1] + G; v > d {
				d = v
			}
			r[j] = d
		}
	}
	ops := make([]Op, 0, n+m)
	i, j := n, m
	for i > 0 || j > 0 {
		cur := D[i*w+j]
		var op Op
		switch {
		case j > 0 && D[i*w+j-1]+G == cur:
			op = OpGapA
		case i > 0 && j > 0 && D[(i-1)*w+j-1]+diagScore(a[i-1], b[j-1], M, X) == cur:
			op = OpDiag
		default:
			op = OpGapB
		}
		ops = append(ops, op)
		switch op {
		case OpDiag:
			i, j = i-1, j-1
		case OpGapA:
			j--
		default:
			i--
		}
	}
	reverseOps(ops)
	return ops, int(D[n*w+m])
}

func diagScore(x, y, match, mismatch int32) int32 {
	if x == y {
		return match
	}
	return mismatch
}
