package align

// Special cases (Weber 3.2.3), each returning exactly the alignment of the
// package's tie rule (doc.go: of the optimal alignments, the one placing
// every element of A as early as possible, the lower envelope of the
// optimal paths), so that Auto agrees with Needleman-Wunsch.

// embedded handles "one sequence contained in the other", generalised from
// a contiguous block to a subsequence: if every element of the shorter
// sequence can be matched, the optimal alignments are exactly the
// embeddings (for Match > Mismatch: a missed element costs Match-Mismatch
// or Match-2*Gap, both positive). The tie rule's embedding matches A as
// early as possible: A in B greedily from the start, B in A greedily from
// the end (A's surplus first).
func embedded(a, b []int32, s Scoring) ([]Op, bool) {
	if s.Match <= s.Mismatch {
		return nil, false
	}
	if len(a) <= len(b) {
		ops := make([]Op, 0, len(b))
		i := 0
		for _, y := range b {
			if i < len(a) && a[i] == y {
				ops = append(ops, OpDiag)
				i++
			} else {
				ops = append(ops, OpGapA)
			}
		}
		return ops, i == len(a)
	}
	ops := make([]Op, 0, len(a))
	j := len(b)
	for i := len(a) - 1; i >= 0; i-- {
		if j > 0 && a[i] == b[j-1] {
			ops = append(ops, OpDiag)
			j--
		} else {
			ops = append(ops, OpGapB)
		}
	}
	reverseOps(ops)
	return ops, j == 0
}

// diagonalCandidate aligns position by position, A's surplus first or B's
// surplus last, and certifies optimality. In the gap-free form
// (Scoring.maxForm) any alignment scores wM*matches + wX*mismatches with
// matches <= C = sum over symbols of min(count in a, count in b) and
// matches + mismatches <= min(|a|,|b|), so wM*C + wX*(min-C) bounds the
// optimum; a candidate meeting it is optimal. For wX > 0 every optimal
// alignment then has min(|a|,|b|) diagonal pairs, so the shorter sequence
// has no gaps, and the candidate that puts the longer one's gaps where the
// tie rule wants them (A's surplus first, B's last) is the rule's
// alignment. It meets the bound for identical-composition shifts and for
// the input sets of Weber's Tables 3.2-3.6. With wX == 0 only sequences
// without a common symbol are certified (every alignment is optimal; the
// rule's is all of A, then all of B, as gaps).
func diagonalCandidate(a, b []int32, s Scoring) ([]Op, bool) {
	ac, bc, sigma := denseCodes(a, b)
	return diagonalCandidateCodes(a, b, ac, bc, sigma, s)
}

// diagonalCandidateCodes is diagonalCandidate given the dense codes of a
// and b (denseCodes).
func diagonalCandidateCodes(a, b, ac, bc []int32, sigma int, s Scoring) ([]Op, bool) {
	wM, wX := s.maxForm()
	n, m := len(a), len(b)
	short := min(n, m)
	ca := make([]int32, sigma)
	for _, x := range ac {
		ca[x]++
	}
	C := 0
	for _, x := range bc {
		if ca[x] > 0 {
			ca[x]--
			C++
		}
	}
	if wX == 0 {
		if C > 0 {
			return nil, false
		}
		return appendN(appendN(make([]Op, 0, n+m), OpGapB, n), OpGapA, m), true
	}
	shift := 0 // a[i+shift] faces b[i]
	if n > m {
		shift = n - m
	}
	matches := 0
	for i := 0; i < short; i++ {
		if a[i+shift] == b[i] {
			matches++
		}
	}
	if wM*matches+wX*(short-matches) != wM*C+wX*(short-C) {
		return nil, false
	}
	ops := make([]Op, 0, max(n, m))
	ops = appendN(ops, OpGapB, shift)
	ops = appendN(ops, OpDiag, short)
	return appendN(ops, OpGapA, m-short), true
}
