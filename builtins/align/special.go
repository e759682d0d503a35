package align

// Special cases (Weber 3.2.3) and an optimality certificate.

// kmpIndex returns the first index of pat in text, or -1 (Knuth-Morris-Pratt).
func kmpIndex(text, pat []int32) int {
	if len(pat) == 0 {
		return 0
	}
	fail := make([]int, len(pat))
	for i, k := 1, 0; i < len(pat); i++ {
		for k > 0 && pat[i] != pat[k] {
			k = fail[k-1]
		}
		if pat[i] == pat[k] {
			k++
		}
		fail[i] = k
	}
	for i, k := 0, 0; i < len(text); i++ {
		for k > 0 && text[i] != pat[k] {
			k = fail[k-1]
		}
		if text[i] == pat[k] {
			k++
		}
		if k == len(pat) {
			return i - len(pat) + 1
		}
	}
	return -1
}

// contained handles "one sequence contained in the other": the shorter one
// is aligned to its first occurrence, the rest of the longer one to gaps.
// Optimal whenever Match >= Mismatch: every symbol of the shorter sequence
// is matched, the most any alignment can do.
func contained(a, b []int32) ([]Op, bool) {
	if len(a) <= len(b) {
		at := kmpIndex(b, a)
		if at < 0 {
			return nil, false
		}
		ops := appendN(nil, OpGapA, at)
		ops = appendN(ops, OpDiag, len(a))
		return appendN(ops, OpGapA, len(b)-at-len(a)), true
	}
	at := kmpIndex(a, b)
	if at < 0 {
		return nil, false
	}
	ops := appendN(nil, OpGapB, at)
	ops = appendN(ops, OpDiag, len(b))
	return appendN(ops, OpGapB, len(a)-at-len(b)), true
}

// diagonalCandidate aligns position by position and puts the surplus of the
// longer sequence in gaps at the end; certified reports whether that is
// provably optimal. In the gap-free form (Scoring.maxForm) any alignment
// scores wM*matches + wX*mismatches with matches <= C = sum over symbols of
// min(count in a, count in b) and matches + mismatches <= min(|a|,|b|), so
// wM*C + wX*(min-C) bounds the optimum. The candidate meeting the bound is
// optimal; it does for identical-composition shifts and for all five input
// sets of Weber's Tables 3.2-3.6. If mismatches score below two gaps
// (wX == 0) the candidate uses gaps instead of mismatches.
func diagonalCandidate(a, b []int32, s Scoring) ([]Op, bool) {
	wM, wX := s.maxForm()
	short := min(len(a), len(b))
	ca := make(map[int32]int)
	for _, x := range a {
		ca[x]++
	}
	C := 0
	for _, x := range b {
		if ca[x] > 0 {
			ca[x]--
			C++
		}
	}
	matches := 0
	for i := 0; i < short; i++ {
		if a[i] == b[i] {
			matches++
		}
	}
	bound := wM*C + wX*(short-C)
	got := wM*matches + wX*(short-matches)
	if got != bound {
		return nil, false
	}
	ops := make([]Op, 0, len(a)+len(b))
	if wX > 0 || matches == short {
		ops = appendN(ops, OpDiag, short)
	} else {
		for i := 0; i < short; i++ {
			if a[i] == b[i] {
				ops = append(ops, OpDiag)
			} else {
				ops = append(ops, OpGapB, OpGapA)
			}
		}
	}
	ops = appendN(ops, OpGapB, len(a)-short)
	return appendN(ops, OpGapA, len(b)-short), true
}
