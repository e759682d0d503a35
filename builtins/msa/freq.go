package msa

import (
	"cmp"
	"slices"
)

// MaxKFreqHashing (Seker et al., Weber 5.2.2 Algorithm 6): the similarity
// of two sequences is the summed occurrences, in both, of the characters
// that are among the K most frequent of each.

// symCount is a symbol and its number of occurrences.
type symCount struct {
	sym   int32
	count int64
	first int64 // position of the first occurrence (ties of Max3's top characters)
}

// denseLimit bounds the symbol values counted in a dense array.
const denseLimit = 1 << 16

// topK is the K most frequent characters of a sequence as Algorithm 6
// selects them. When several characters tie for the last places, the
// selection is open: Sure holds the characters that are selected whatever
// the choice, Tied the candidates of the remaining Need places (all with
// count TieCount).
type topK struct {
	sure     []symCount
	tied     []symCount
	need     int
	tieCount int64
}

func topOf(counts []symCount, k int) topK {
	c := slices.Clone(counts)
	slices.SortStableFunc(c, func(a, b symCount) int { return cmp.Compare(b.count, a.count) })
	if len(c) <= k {
		return topK{sure: c}
	}
	t := c[k-1].count
	var out topK
	for _, s := range c {
		switch {
		case s.count > t:
			out.sure = append(out.sure, s)
		case s.count == t:
			out.tied = append(out.tied, s)
		}
	}
	out.need = k - len(out.sure)
	out.tieCount = t
	if len(out.tied) == out.need {
		out.sure, out.tied, out.need = append(out.sure, out.tied...), nil, 0
	}
	slices.SortFunc(out.tied, func(a, b symCount) int { return cmp.Compare(a.sym, b.sym) })
	return out
}

func (t topK) find(s int32) (symCount, bool) {
	for _, x := range t.sure {
		if x.sym == s {
			return x, true
		}
	}
	return symCount{}, false
}

// tiedHas reports whether s is among the tied candidates (sorted by
// symbol in topOf).
func (t topK) tiedHas(s int32) bool {
	_, ok := slices.BinarySearchFunc(t.tied, s, func(x symCount, s int32) int { return cmp.Compare(x.sym, s) })
	return ok
}

// similarity is Algorithm 6 on two selections: the summed occurrences, in
// both sequences, of the characters selected in both. Where ties leave the
// selection open, the score is the largest any admissible selection gives:
// the tie is resolved in favour of the comparison, so the score does not
// depend on symbol numbering or order (with Weber's Figure 5.8 sequences
// this reproduces the similarity matrix of 5.2.2, which no fixed per-
// sequence tie rule does).
func similarity(a, b topK) int64 {
	var fixed int64
	var x1, x2 []int64 // gains of one B pick (a's sure in b's ties), one A pick
	var x3 int         // characters tied in both
	for _, s := range a.sure {
		if t, ok := b.find(s.sym); ok {
			fixed += s.count + t.count
		} else if b.tiedHas(s.sym) {
			x1 = append(x1, s.count+b.tieCount)
		}
	}
	for _, s := range a.tied {
		if t, ok := b.find(s.sym); ok {
			x2 = append(x2, a.tieCount+t.count)
		} else if b.tiedHas(s.sym) {
			x3++
		}
	}
	slices.SortFunc(x1, func(p, q int64) int { return cmp.Compare(q, p) })
	slices.SortFunc(x2, func(p, q int64) int { return cmp.Compare(q, p) })
	best := int64(0)
	for c := 0; c <= min(x3, a.need, b.need); c++ {
		g := int64(c) * (a.tieCount + b.tieCount)
		for i := 0; i < min(b.need-c, len(x1)); i++ {
			g += x1[i]
		}
		for i := 0; i < min(a.need-c, len(x2)); i++ {
			g += x2[i]
		}
		best = max(best, g)
	}
	return fixed + best
}

// MaxKFreqHashing returns the MaxKFreqHashing similarity of a and b
// (Weber 5.2.2, Algorithm 6 with K characters; K = 2 is Max2FreqHashing):
// the occurrences, in both sequences, of the characters that are among
// the K most frequent of each. Ties for the K-th place are resolved in
// favour of the pair (the largest score any admissible choice gives).
func MaxKFreqHashing(a, b []int32, k int) int64 {
	if k < 1 {
		fail("msa.MaxKFreqHashing", "K = %d; need K >= 1", k)
	}
	var c counter
	return similarity(topOf(c.count(a, nil), k), topOf(c.count(b, nil), k))
}

// FreqSimilarity is MaxKFreqHashing of two strings, one symbol per rune,
// for worked examples: FreqSimilarity("research", "sequence", 2) = 5.
func FreqSimilarity(a, b string, k int) int64 {
	sy := newSymbols()
	return MaxKFreqHashing(sy.encode(a), sy.encode(b), k)
}
