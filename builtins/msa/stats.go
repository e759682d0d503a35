package msa

import (
	"math/rand/v2"

	"github.com/tracebook/tracebook/builtins/work"
)

// members calls f for every member process of class c with its node at
// offset off.
func (m *Merged) members(c int32, off int32, f func(p, x int32)) {
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
func (m *Merged) participants(v int32, f func(p, x int32)) {
	for _, it := range m.items[m.itemLo[v]:m.itemHi[v]] {
		m.members(it.cls, it.off, f)
	}
}

// computeStats fills the inclusive-time statistics of every node, on both
// cores.
func (m *Merged) computeStats() {
	nn := len(m.parent)
	m.stats = make([]Stats, nn)
	parallel(nn, func(lo, hi int) {
		var buf []int64
		rnd := rand.New(rand.NewPCG(uint64(lo), 7))
		for v := lo; v < hi; v++ {
			if v&255 == 0 {
				work.Check()
			}
			buf = buf[:0]
			st := Stats{Slowest: -1}
			m.participants(int32(v), func(p, x int32) {
				t := m.trees[p]
				d := t.Leave[x] - t.Enter[x]
				buf = append(buf, d)
				if st.Slowest < 0 || d > st.Max || d == st.Max && int(p) < st.Slowest {
					st.Max, st.Slowest = d, int(p)
				}
				if len(buf) == 1 || d < st.Min {
					st.Min = d
				}
			})
			if len(buf) > 0 {
				st.Median = selectK(buf, (len(buf)-1)/2, rnd)
			}
			m.stats[v] = st
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
