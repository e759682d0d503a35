package align

import (
	"fmt"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
)

// Method selects a flat alignment algorithm.
type Method int

const (
	Auto        Method = iota // special cases, then the exact method estimated fastest (Why says which and why)
	NW                        // Needleman-Wunsch, full matrix (3.2.2)
	Hirschberg                // linear space, scalar kernel (3.2.2)
	WFA                       // wavefront alignment, O(s^2) memory
	BiWFA                     // bidirectional WFA, linear memory
	BitParallel               // Hirschberg over the 64-cells-per-word bit-vector kernel (bitpar.go)
	Anchor                    // most-frequent-function anchor heuristic (3.2.4)
	Special                   // (result only) solved by a special case of 3.2.3
)

var methodNames = [...]string{"Auto", "NW", "Hirschberg", "WFA", "BiWFA", "BitParallel", "Anchor", "Special"}

func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// DefaultBudget is the number of DP cells beyond which Auto turns to the
// anchor heuristic when neither a special case nor the wavefront method
// (within that many cells' time) applies: about 3.5 s of the bit-vector
// kernel with the default scoring on two cores.
const DefaultBudget = 20_000_000_000

// Options configure an alignment. The zero value is Auto with the default
// scoring, hierarchical for processes.
type Options struct {
	Method  Method
	Scoring Scoring
	Budget  int64 // DP cells; 0 means DefaultBudget
	// Flat aligns two processes by their whole pre-order sequences
	// instead of hierarchically.
	Flat bool
	// StopAtDiff does not align the children of Diff pairs but marks
	// them different (Farah and Schnorr's optional shortcut, 3.2): each
	// child subtree is listed on its side alone with state Diff and
	// scored as a gap. Weber's Algorithm 2 aligns them (the default).
	StopAtDiff bool

	// cells counts the DP cells (and wavefront work) of a flat alignment
	// for its progress bar; nil inside hierarchical and run alignments.
	cells *work.Job
	// nodes counts the call-tree nodes a hierarchical alignment has placed.
	nodes *work.Job
}

// Option changes Options; for the notebook's variadic calls.
type Option func(*Options)

// WithMethod selects the flat method (for hierarchical alignment: of each
// sub-alignment).
func WithMethod(m Method) Option { return func(o *Options) { o.Method = m } }

// WithScoring sets match, mismatch and gap scores.
func WithScoring(match, mismatch, gap int) Option {
	return func(o *Options) { o.Scoring = Scoring{match, mismatch, gap} }
}

// WithBudget sets the DP-cell budget beyond which Auto is heuristic.
func WithBudget(cells int64) Option { return func(o *Options) { o.Budget = cells } }

// WithFlat aligns processes by their whole sequences (pre-order) instead of
// hierarchically.
func WithFlat() Option { return func(o *Options) { o.Flat = true } }

// WithStopAtDiff is Farah and Schnorr's shortcut for hierarchical
// alignment: the children of Diff pairs are marked different, not aligned.
func WithStopAtDiff() Option { return func(o *Options) { o.StopAtDiff = true } }

// FlatAlignment aligns processes by their whole sequences.
//
// Deprecated: use WithFlat.
func FlatAlignment() Option { return WithFlat() }

// StopAtDiff is Farah and Schnorr's shortcut for hierarchical alignment.
//
// Deprecated: use WithStopAtDiff.
func StopAtDiff() Option { return WithStopAtDiff() }

func collect(fn string, opts []Option) Options {
	var o Options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	o.Scoring = o.Scoring.orDefault()
	if err := o.Scoring.Validate(); err != nil {
		fail(fn, "%v", err)
	}
	if o.Method < Auto || o.Method > Anchor {
		fail(fn, "unknown method %d", int(o.Method))
	}
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	return o
}

// Alignment is a flat alignment of two symbol sequences.
type Alignment struct {
	Ops       []Op
	Score     int
	Method    Method // the method that produced the bulk of the result
	Why       string // why that method ran (Auto's reasoning, or "selected")
	Heuristic bool   // true if not guaranteed optimal (anchor heuristic)
}

// ran is what produced a path: the method, why, and whether heuristic.
type ran struct {
	Method    Method
	Why       string
	Heuristic bool
}

// Align aligns two symbol sequences.
func Align(a, b []int32, opts ...Option) *Alignment {
	o := collect("align.Align", opts)
	return flatJob("align.Align", a, b, o)
}

// Resolve returns the options opts give, defaults filled in; it panics
// with an *Error naming fn if they are invalid. For builtins that run many
// alignments as steps of their own long work (see Path).
func Resolve(fn string, opts ...Option) Options { return collect(fn, opts) }

// Path aligns two symbol sequences with the options of Resolve, as a step
// of a caller's long work: no progress bar and no score of its own, and an
// interruption or memory shortage panics with work's error for the caller
// to report. It returns the path (the tie rule of doc.go), the method that
// ran and whether the result is heuristic.
func Path(a, b []int32, o Options) ([]Op, Method, bool) {
	o.cells, o.nodes = nil, nil
	ops, r := alignOps(a, b, o)
	return ops, r.Method, r.Heuristic
}

// flatJob runs a flat alignment of the notebook surface as one piece of
// long work: interruptible (work.Check in every kernel loop, turned into
// an *Error naming fn), with a progress bar of DP cells past a second.
func flatJob(fn string, a, b []int32, o Options) (al *Alignment) {
	o.cells = work.Start(fn+": aligning "+arrowio.FormatCount(int64(len(a)))+" x "+arrowio.FormatCount(int64(len(b))), 0, "cells")
	defer o.cells.Done()
	defer work.RecoverAs(fn)
	return alignWith(a, b, o)
}

// reserve panics with work's *MemoryError if need bytes are not available.
func reserve(what string, need int64) {
	if err := work.Reserve(what, need); err != nil {
		panic(err)
	}
}

func alignWith(a, b []int32, o Options) *Alignment {
	res := &Alignment{}
	var r ran
	res.Ops, r = alignOps(a, b, o)
	res.Method, res.Why, res.Heuristic = r.Method, r.Why, r.Heuristic
	sc, err := ScorePath(a, b, res.Ops, o.Scoring)
	if err != nil {
		panic(fmt.Sprintf("align: internal error (%v): %v", res.Method, err))
	}
	res.Score = sc
	return res
}

// alignOps runs the selected method; it returns the path, the method used
// and whether the result is heuristic. The methods implement the lower
// envelope of the optimal paths (A as early as possible); the tie rule
// wants the shorter sequence early, so a longer A is aligned as B and the
// gaps swapped back (the upper envelope is the transposed lower one).
func alignOps(a, b []int32, o Options) ([]Op, ran) {
	if len(a) > len(b) {
		ops, r := alignLower(b, a, o)
		for i, op := range ops {
			switch op {
			case OpGapA:
				ops[i] = OpGapB
			case OpGapB:
				ops[i] = OpGapA
			}
		}
		return ops, r
	}
	return alignLower(a, b, o)
}

// alignLower is alignOps without the orientation of the tie rule.
func alignLower(a, b []int32, o Options) ([]Op, ran) {
	s := o.Scoring
	selected := ran{Method: o.Method, Why: "selected"}
	switch o.Method {
	case NW:
		ops, _ := needlemanWunsch(a, b, s)
		return ops, selected
	case Hirschberg:
		return newHirschberg(a, b, s, false, o.cells).solve(0, len(a), 0, len(b), nil), selected
	case BitParallel:
		return newHirschberg(a, b, s, true, o.cells).solve(0, len(a), 0, len(b), nil), selected
	case WFA, BiWFA:
		c := s.costs()
		if !c.ok { // zero mismatch cost: no wavefront method; exact DP instead
			return newHirschberg(a, b, s, true, o.cells).solve(0, len(a), 0, len(b), nil),
				ran{Method: BitParallel, Why: o.Method.String() + " selected, but the scoring has no mismatch cost (Match == Mismatch): no wavefront method applies"}
		}
		if o.Method == WFA {
			return wfaAlign(a, b, c, 0), selected
		}
		bw := &biwfa{c: c, cells: o.cells}
		return bw.solve(a, b, nil), selected
	case Anchor:
		return anchorAlign(a, b, o, nil), ran{Method: Anchor, Why: "selected", Heuristic: true}
	}
	return autoAlign(a, b, o, true)
}

// autoAlign: special cases of 3.2.3 first, then the exact method its
// cost model expects to be fastest (wavefront for similar inputs, the
// bit-vector DP otherwise), then, if allowed and the input exceeds the
// budget, the anchor heuristic. Every step but BiWFA returns the tie rule's
// alignment (doc.go): the common prefix and suffix are not trimmed
// (matching them can break the rule), and the full WFA is preferred to
// BiWFA while its wavefronts fit in wfaAutoBytes.
//
// The wavefront method runs with a work budget of half the bit-vector
// time estimate: if the estimate was wrong and it gives up, the DP runs,
// so a wrong choice costs at most half again the DP's time.
func autoAlign(a, b []int32, o Options, allowHeuristic bool) ([]Op, ran) {
	s := o.Scoring
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return appendN(appendN(nil, OpGapB, n), OpGapA, m), ran{Method: Special, Why: "a sequence is empty"}
	}
	if ops, ok := embedded(a, b, s); ok {
		return ops, ran{Method: Special, Why: "one sequence is a subsequence of the other (3.2.3)"}
	}
	cells := int64(n) * int64(m)
	if cells <= 4*leafCells {
		ops, _ := needlemanWunsch(a, b, s)
		if o.cells != nil {
			o.cells.Add(cells)
		}
		return ops, ran{Method: NW, Why: fmt.Sprintf("small (%d cells): full matrix", cells)}
	}
	ac, bc, sigma := denseCodes(a, b)
	if ops, ok := diagonalCandidateCodes(a, b, ac, bc, sigma, s); ok {
		return ops, ran{Method: Special, Why: "the diagonal alignment meets the score bound (3.2.3)"}
	}
	var budget int64
	if allowHeuristic {
		budget = o.Budget
	}
	plan := planExact(ac, bc, sigma, s, budget)
	why := plan.String()
	if plan.wavefront {
		c := s.costs()
		budget := plan.wfaBudget()
		if plan.fullWFA {
			if ops := wfaAlign(a, b, c, budget); ops != nil {
				if o.cells != nil {
					o.cells.Add(cells)
				}
				return ops, ran{Method: WFA, Why: why}
			}
		} else {
			bw := &biwfa{c: c, budget: budget, cells: o.cells}
			if ops := bw.solve(a, b, nil); !bw.failed {
				return ops, ran{Method: BiWFA, Why: why}
			}
		}
		why += "; the wavefront gave up at its budget"
	}
	if plan.overBudget {
		return anchorAlign(a, b, o, nil), ran{Method: Anchor, Heuristic: true,
			Why: fmt.Sprintf("%s; %d cells exceed the budget of %d: anchor heuristic (3.2.4)", why, cells, o.Budget)}
	}
	return newHirschberg(a, b, s, true, o.cells).solve(0, n, 0, m, nil), ran{Method: BitParallel, Why: why}
}

// wfaAutoBytes bounds the memory of the wavefronts of a full WFA that Auto
// runs (about cost^2/G offsets); beyond it Auto takes BiWFA.
const wfaAutoBytes = 4 << 20

// anchorAlign is the fast alignment heuristic of 3.2.4 (Fig. 3.16): the
// symbol most frequent in both sequences is the anchor; its i-th occurrence
// in a is aligned to its i-th occurrence in b; the surplus occurrences of
// the sequence with more of them stay in the last segment. Segments between
// anchors within the budget are aligned exactly, others recursively.
func anchorAlign(a, b []int32, o Options, ops []Op) []Op {
	if int64(len(a))*int64(len(b)) <= o.Budget || len(a) == 0 || len(b) == 0 {
		sub, _ := autoAlign(a, b, o, false)
		return append(ops, sub...)
	}
	ca := make(map[int32]int)
	for _, x := range a {
		ca[x]++
	}
	cb := make(map[int32]int)
	for _, x := range b {
		if ca[x] > 0 {
			cb[x]++
		}
	}
	best, bestN := int32(0), 0
	for x, nb := range cb {
		if t := ca[x] + nb; t > bestN || (t == bestN && x < best) {
			best, bestN = x, t
		}
	}
	if bestN == 0 { // no common symbol: the diagonal is optimal (certified)
		sub, _ := diagonalCandidate(a, b, o.Scoring)
		return append(ops, sub...)
	}
	i, j := 0, 0
	for {
		ni, nj := i, j
		for ni < len(a) && a[ni] != best {
			ni++
		}
		for nj < len(b) && b[nj] != best {
			nj++
		}
		if ni == len(a) || nj == len(b) {
			break
		}
		ops = anchorAlign(a[i:ni], b[j:nj], o, ops)
		ops = append(ops, OpDiag)
		i, j = ni+1, nj+1
	}
	return anchorAlign(a[i:], b[j:], o, ops)
}
