package align

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/mix"
)

// Auto's choice between the wavefront methods (time about quadratic in the
// alignment cost) and the bit-vector kernel (time n*m/64 words), from an
// estimate of how much of the input is edited that does not depend on
// where the edits are: the share of sampled k-mers of a that occur in b.
// With an edit rate e per symbol, a k-mer survives with probability about
// (1-e)^k; k is chosen so that a chance occurrence is rare for the
// alphabet's size.

// editEstimate is what Auto knows before it chooses.
type editEstimate struct {
	k, sigma        int
	sampled, shared int
	rate            float64 // estimated edits per symbol, in [0, 1]
}

// kmerWindow returns the k that makes chance k-mer matches rare: sigma^k
// at least 64 times the number of k-mers, k in [4, 32].
func kmerWindow(sigma, n int) int {
	if sigma < 2 {
		return 4
	}
	k := int(math.Ceil(math.Log(64*float64(n+1)) / math.Log(float64(sigma))))
	return min(max(k, 4), 32)
}

// kmerHashes calls f with the mixed hash of every k-mer of s (rolling).
func kmerHashes(s []int32, k int, f func(uint64)) {
	if len(s) < k {
		return
	}
	const base = 0x9e3779b97f4a7c15
	pow := uint64(1) // base^(k-1)
	for i := 1; i < k; i++ {
		pow *= base
	}
	var h uint64
	for i, x := range s {
		if i >= k {
			h -= pow * (uint64(uint32(s[i-k])) + 1)
		}
		h = h*base + uint64(uint32(x)) + 1
		if i >= k-1 {
			f(mix.Mix64(h))
		}
	}
}

// estimateEdits samples about one k-mer in every 2^shift (the same ones
// in a and b: chosen by hash) with shift such that a sample has at most
// about 4,096 k-mers, and returns the share of a's sampled k-mers found in
// b's and the edit rate it implies.
func estimateEdits(a, b []int32, sigma int) editEstimate {
	n := max(len(a), len(b))
	k := kmerWindow(sigma, len(a)+len(b))
	est := editEstimate{k: k, sigma: sigma, rate: 1}
	shift := max(0, bits.Len(uint(n)/4096))
	mask := uint64(1)<<shift - 1
	inB := newHashSet(len(b)>>shift + 64)
	kmerHashes(b, k, func(h uint64) {
		if h&mask == 0 {
			inB.add(h)
		}
	})
	kmerHashes(a, k, func(h uint64) {
		if h&mask == 0 {
			est.sampled++
			if inB.has(h) {
				est.shared++
			}
		}
	})
	if est.sampled == 0 {
		return est
	}
	f := float64(est.shared) / float64(est.sampled)
	// Less the share expected by chance (len(b) k-mers of sigma^k); a count
	// within three standard deviations of chance is no evidence at all.
	if chance := float64(len(b)) / math.Pow(float64(max(sigma, 2)), float64(k)); chance < 1 {
		expected := chance * float64(est.sampled)
		f = max(0, (f-chance)/(1-chance))
		if float64(est.shared) <= expected+3*math.Sqrt(expected) {
			f = 0
		}
	}
	if f > 0 {
		est.rate = 1 - math.Pow(f, 1/float64(k))
	}
	return est
}

func (e editEstimate) String() string {
	return fmt.Sprintf("%.1f%% of symbols edited (estimated from %d of %d sampled %d-mers shared, %d symbols)",
		100*e.rate, e.shared, e.sampled, e.k, e.sigma)
}

// Auto's cost model: wall time of the full alignment in nanoseconds per
// DP cell (Hirschberg computes 2nm cells on two cores) on the reference
// machine (2.6 GHz AMD EPYC; `go test -bench 'Random20k|Equal95'`):
// about 0.08 with the AVX2 loop at D = 4 (the default scoring; less for
// D < 4), bpNsBase + bpNsSquare*D^2 with the Go bit-vector kernel (0.29 at
// D = 4), about 1.0 with the byte-lane kernel. The wavefront methods cost
// about wfaNsPerUnit per unit of s^2/G for the estimated cost s (which
// overestimates the true cost a little; BiWFA on two cores: 1.7-2.5 ns on
// the benchmarks' inputs) plus wfaNsPerSymbol per symbol.
const (
	bpNsVector     = 0.08
	bpNsBase       = 0.035
	bpNsSquare     = 0.015
	bytesNsPerCell = 1.0
	wfaNsPerUnit   = 2.2
	wfaNsPerSymbol = 2.0
)

// exactPlan is Auto's choice between the exact methods and its reasons.
type exactPlan struct {
	est       editEstimate
	cost      float64 // estimated optimal cost (edit form)
	nsDP      float64 // estimated wall time of the bit-vector Hirschberg
	nsWFA     float64 // estimated time of the wavefront method
	wavefront bool    // try the wavefront method first
	fullWFA   bool    // its full form (memory cost^2/G) fits wfaAutoBytes
	// overBudget: the input exceeds the DP budget, whose time (nsDP) the
	// wavefront may then use in full before the anchor heuristic runs.
	overBudget bool
}

// planExact estimates both exact methods' times for a and b, given as
// dense codes of sigma symbols.
// With budget > 0 and more cells than it, the DP is not an option: its
// time is that of budget cells, the wavefront's limit.
func planExact(a, b []int32, sigma int, s Scoring, budget int64) exactPlan {
	n, m := len(a), len(b)
	var p exactPlan
	perCell := bytesNsPerCell
	if d, wx, _, ok := bpDims(s); ok {
		perCell = bpNsBase + bpNsSquare*float64(d*d)
		if lanesStep(d, wx) != nil { // operations per step about 1 + 3D
			perCell = bpNsVector * float64(1+3*d) / 13
		}
	}
	cells := float64(n) * float64(m)
	if budget > 0 && cells > float64(budget) {
		p.overBudget, cells = true, float64(budget)
	}
	p.nsDP = perCell * cells
	c := s.costs()
	if !c.ok {
		return p
	}
	p.est = estimateEdits(a, b, sigma)
	edit := float64(min(c.X, 2*c.G))
	p.cost = p.est.rate*float64(n+m)/2*edit + float64(max(n-m, m-n))*float64(c.G)
	units := p.cost * p.cost / float64(c.G)
	p.nsWFA = wfaNsPerUnit*units + wfaNsPerSymbol*float64(n+m)
	p.wavefront = p.nsWFA < p.nsDP
	p.fullWFA = 4*units <= wfaAutoBytes
	return p
}

// wfaBudget is the wavefront work (wfaRun.work units) worth half the DP's
// estimated time (all of it over the budget).
func (p exactPlan) wfaBudget() int64 {
	ns := p.nsDP / 2
	if p.overBudget {
		ns = p.nsDP
	}
	return int64(ns/wfaNsPerUnit) + 100_000
}

// hashSet is a set of 64-bit hashes, open addressing with linear probing
// (bit 0 is set on every stored hash so that 0 marks an empty slot).
type hashSet struct {
	slots []uint64
	mask  uint64
}

func newHashSet(n int) *hashSet {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return &hashSet{slots: make([]uint64, size), mask: uint64(size - 1)}
}

func (s *hashSet) add(h uint64) {
	h |= 1
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case h:
			return
		case 0:
			s.slots[i] = h
			return
		}
	}
}

func (s *hashSet) has(h uint64) bool {
	h |= 1
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

func (p exactPlan) String() string {
	if p.est.k == 0 {
		return fmt.Sprintf("bit-vector DP (no wavefront method for this scoring; estimated %s)", arrowio.FormatDuration(int64(p.nsDP)))
	}
	choice, dp := "bit-vector DP", "bit-vector DP"
	if p.wavefront {
		choice = "wavefront"
	}
	if p.overBudget {
		choice, dp = "anchor heuristic", "the DP budget"
		if p.wavefront {
			choice = "wavefront"
		}
	}
	return fmt.Sprintf("%s: %s, so an optimal cost near %.0f; estimated wavefront %s, %s %s",
		choice, p.est, p.cost, arrowio.FormatDuration(int64(p.nsWFA)), dp, arrowio.FormatDuration(int64(p.nsDP)))
}
