package msa

import (
	"cmp"
	"container/heap"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// Guide is the method that orders the pairwise alignments of a progressive
// MSA (Weber 5.2.2, "Fast Guide Tree Construction").
type Guide int

const (
	// GuideAuto takes GuideMatrix for up to the matrix limit of sequences
	// (250 by default, Weber 5.3.2) and GuideRanking above.
	GuideAuto Guide = iota
	// GuideMatrix reads the order from the Max2FreqHashing similarity
	// matrix sorted by similarity, postponing comparisons of which neither
	// sequence is in the block yet (Table 5.2).
	GuideMatrix
	// GuideRanking aligns every sequence to the main sequence, in the order
	// of their counts of the three most frequent characters overall
	// (Max3FreqHashing, Tables 5.3-5.4).
	GuideRanking
)

var guideNames = [...]string{"auto", "matrix", "ranking"}

func (g Guide) String() string {
	if g >= 0 && int(g) < len(guideNames) {
		return guideNames[g]
	}
	return "Guide(?)"
}

// DefaultMatrixLimit is the number of sequences up to which GuideAuto
// builds the similarity matrix: "reasonable with up to about 250
// processes" (Weber 5.3.2).
const DefaultMatrixLimit = 250

// Step is one pairwise alignment of a progressive MSA: sequence New is
// aligned with sequence Partner, already in the block. The first step
// aligns two sequences that are both new: its Partner starts the block.
type Step struct {
	Partner, New int
	Score        int64 // the similarity the step was chosen by
}

// pairSim is one entry of the sorted similarity matrix.
type pairSim struct {
	i, j  int32
	score int64
}

// matrixOrder returns the sorted comparisons of the Max2FreqHashing
// similarity matrix (Table 5.2): by similarity, descending, ties in matrix
// order (i, then j).
func matrixOrder(tops []topK) []pairSim {
	n := len(tops)
	ps := make([]pairSim, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		if i&63 == 63 {
			work.Check()
		}
		for j := i + 1; j < n; j++ {
			ps = append(ps, pairSim{int32(i), int32(j), similarity(tops[i], tops[j])})
		}
	}
	slices.SortStableFunc(ps, func(a, b pairSim) int { return cmp.Compare(b.score, a.score) })
	return ps
}

// intHeap is a min-heap of positions in the sorted comparisons.
type intHeap []int32

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// guideFromPairs follows the sorted comparisons from top to bottom as
// Weber 5.2.2 describes for Table 5.2: the first builds the block; a
// comparison of two sequences in the block is unnecessary; one of two
// sequences not in the block yet is postponed; one with exactly one
// sequence in the block adds the other. After each addition the postponed
// comparisons are retried first, earliest first.
func guideFromPairs(n int, ps []pairSim) []Step {
	if n < 2 {
		return nil
	}
	in := make([]bool, n)
	steps := make([]Step, 0, n-1)
	postponed := make([][]int32, n) // per sequence: postponed comparisons touching it
	var ready intHeap
	add := func(k int32) {
		p := ps[k]
		partner, nw := p.i, p.j
		if in[nw] {
			partner, nw = nw, partner
		}
		in[nw] = true
		steps = append(steps, Step{Partner: int(partner), New: int(nw), Score: p.score})
		for _, q := range postponed[nw] {
			heap.Push(&ready, q)
		}
		postponed[nw] = nil
	}
	drain := func() {
		for ready.Len() > 0 {
			k := heap.Pop(&ready).(int32)
			if p := ps[k]; in[p.i] != in[p.j] {
				add(k)
			}
		}
	}
	for k := range ps {
		if len(steps) == n-1 {
			break
		}
		p := ps[k]
		switch {
		case len(steps) == 0:
			in[p.i], in[p.j] = true, true
			steps = append(steps, Step{Partner: int(p.i), New: int(p.j), Score: p.score})
		case in[p.i] && in[p.j]:
			// unnecessary
		case !in[p.i] && !in[p.j]:
			postponed[p.i] = append(postponed[p.i], int32(k))
			postponed[p.j] = append(postponed[p.j], int32(k))
			continue
		default:
			add(int32(k))
		}
		drain()
	}
	return steps
}

// rankingOrder is the Max3FreqHashing heuristic (Tables 5.3-5.4): the three
// most frequent characters over all sequences (weighted by w; ties for the
// third place by first occurrence), each sequence's count of them, and the
// steps that align every sequence to the main sequence (the highest count)
// in descending order of count (ties in input order).
func rankingOrder(seqs [][]int32, w []int64) (steps []Step, top []symCount, rank []int64) {
	hs := seqHistograms(seqs)
	// Global counts in order of first occurrence.
	global := map[int32]int{}
	var all []symCount
	for i, h := range hs {
		for _, c := range h {
			j, ok := global[c.sym]
			if !ok {
				j = len(all)
				global[c.sym] = j
				all = append(all, symCount{sym: c.sym, first: int64(j)})
			}
			all[j].count += c.count * w[i]
		}
	}
	slices.SortStableFunc(all, func(a, b symCount) int { return cmp.Compare(b.count, a.count) })
	top = all[:min(3, len(all))]
	rank = make([]int64, len(seqs))
	for i, h := range hs {
		for _, c := range h {
			for _, t := range top {
				if c.sym == t.sym {
					rank[i] += c.count
				}
			}
		}
	}
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank[b], rank[a]) })
	if len(order) < 2 {
		return nil, top, rank
	}
	main := order[0]
	for _, i := range order[1:] {
		steps = append(steps, Step{Partner: main, New: i, Score: rank[i]})
	}
	return steps, top, rank
}

// seqHistograms counts the symbols of each sequence (in order of first
// occurrence), on both cores for large inputs.
func seqHistograms(seqs [][]int32) [][]symCount {
	out := make([][]symCount, len(seqs))
	var total int64
	for _, s := range seqs {
		total += int64(len(s))
	}
	job := work.Start("msa: counting characters", total, "symbols")
	defer job.Done()
	var counters [2]counter
	eachIndex(len(seqs), total > 1<<20, func(w, i int) {
		out[i] = counters[w].count(seqs[i], job)
	})
	return out
}

// counter counts one sequence at a time in a dense array (sparse for
// symbols beyond denseLimit or negative).
type counter struct {
	dense []int32
	order []int32
	spill map[int32]int64
}

func (c *counter) count(s []int32, job *work.Job) []symCount {
	c.order = c.order[:0]
	const chunk = 1 << 16
	for lo := 0; lo < len(s); lo += chunk {
		hi := min(len(s), lo+chunk)
		for _, x := range s[lo:hi] {
			if uint32(x) < uint32(len(c.dense)) {
				if c.dense[x] == 0 {
					c.order = append(c.order, x)
				}
				c.dense[x]++
				continue
			}
			c.slow(x)
		}
		if err := job.Add(int64(hi - lo)); err != nil {
			panic(err)
		}
	}
	out := make([]symCount, len(c.order))
	for i, x := range c.order {
		var n int64
		if uint32(x) < uint32(len(c.dense)) {
			n = int64(c.dense[x])
			c.dense[x] = 0
		} else {
			n = c.spill[x]
			delete(c.spill, x)
		}
		out[i] = symCount{sym: x, count: n, first: int64(i)}
	}
	return out
}

func (c *counter) slow(x int32) {
	if x >= 0 && x < denseLimit {
		n := min(max(int(x)+1, 2*len(c.dense), 256), denseLimit)
		c.dense = append(c.dense, make([]int32, n-len(c.dense))...)
		if c.dense[x] == 0 {
			c.order = append(c.order, x)
		}
		c.dense[x]++
		return
	}
	if c.spill == nil {
		c.spill = map[int32]int64{}
	}
	if c.spill[x] == 0 {
		c.order = append(c.order, x)
	}
	c.spill[x]++
}
