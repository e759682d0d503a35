package msa

import (
	"math/rand/v2"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// members calls f for every member process of class c with its node at
// offset off.
func (m *Tree) members(c int32, off int32, f func(p, x int32)) {
	cl := &m.classes[c]
	if cl.items == nil {
		for _, p := range cl.procs {
			f(p, off)
		}
		return
	}
	for _, it := range cl.items {
		m.members(it.cls, it.off+off, f)
	}
}

// participants calls f for every process of merged node v with its node.
func (m *Tree) participants(v int32, f func(p, x int32)) {
	for _, it := range m.items[m.itemLo[v]:m.itemHi[v]] {
		m.members(it.cls, it.off, f)
	}
}

// leaves calls f for every Stage-1 class inside class c with the node
// offset of its base (its root, node 0 of each member) in that class.
func (m *Tree) leaves(c int32, off int32, f func(s, x int32)) {
	cl := &m.classes[c]
	if cl.items == nil {
		f(c, off)
		return
	}
	for _, it := range cl.items {
		m.leaves(it.cls, it.off+off, f)
	}
}

// placeClasses records, for every Stage-1 class (identical call trees),
// the merged node of each of its call-tree nodes: the same for all its
// members.
func (m *Tree) placeClasses() {
	m.place = make([][]int32, m.stage1)
	for s := range m.place {
		m.place[s] = make([]int32, m.trees[m.classes[s].rep].Len())
	}
	for v := range m.parent {
		if v&4095 == 0 {
			work.Check()
		}
		for _, it := range m.items[m.itemLo[v]:m.itemHi[v]] {
			m.leaves(it.cls, it.off, func(s, x int32) { m.place[s][x] = int32(v) })
		}
	}
}

// computeStats fills the inclusive-time statistics of every node: one pass
// over the processes in order (each call tree read sequentially) puts each
// invocation's time into its node's segment of one buffer; then the
// segments are reduced on both cores.
func (m *Tree) computeStats() {
	nn := len(m.parent)
	m.stats = make([]Stats, nn)
	start := make([]int64, nn+1)
	for v := 0; v < nn; v++ {
		// Padding keeps segments of 2^k entries from starting 2^k*8
		// bytes apart: the fill writes to all segments in turn, and
		// such strides would map them to the same cache sets.
		start[v+1] = start[v] + int64(m.count[v]) + 24
	}
	if err := work.Reserve("msa: time statistics", 8*start[nn]); err != nil {
		panic(err)
	}
	buf := make([]int64, start[nn])
	fill := slices.Clone(start[:nn])
	slow := make([]int32, nn)
	for v := range slow {
		slow[v] = -1
	}
	// Processes in their stable order (ties for the slowest go to the
	// first in that order).
	for p, s := range m.classOf() {
		if p&255 == 255 {
			work.Check()
		}
		pl := m.place[s]
		t := m.trees[p]
		enter, leave := t.Enter[:len(pl)], t.Leave[:len(pl)]
		for x, v := range pl {
			d := leave[x] - enter[x]
			buf[fill[v]] = d
			fill[v]++
			if sv := slow[v]; sv < 0 || d > m.stats[v].Max {
				m.stats[v].Max, slow[v] = d, int32(p)
			}
		}
	}
	halves(nn, func(lo, hi int) {
		rnd := rand.New(rand.NewPCG(uint64(lo), 7))
		for v := lo; v < hi; v++ {
			if v&1023 == 0 {
				work.Check()
			}
			seg := buf[start[v] : start[v]+int64(m.count[v])]
			st := &m.stats[v]
			st.Slowest = -1
			if slow[v] >= 0 {
				st.Slowest = int(m.inputPos[slow[v]])
			}
			if len(seg) == 0 {
				continue
			}
			st.Min = slices.Min(seg)
			st.Median = selectK(seg, (len(seg)-1)/2, rnd)
		}
	})
}

// selectK returns the k-th smallest element of a (0-based), reordering a
// (quickselect with random pivots).
func selectK(a []int64, k int, rnd *rand.Rand) int64 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		p := a[lo+rnd.IntN(hi-lo+1)]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}
