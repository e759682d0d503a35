package msa

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The selection rounds of "msa.stats" find every node's minimum, lower
// median and maximum, whatever the split of the calls into ranks: wide,
// narrow, repeated and negative times, against sorting.
func TestSelectionFindsTheLowerMedian(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 5))
	gens := []func() int64{
		func() int64 { return rnd.Int64N(1 << 62) },
		func() int64 { return rnd.Int64N(10) },
		func() int64 { return 7 },
		func() int64 { return rnd.Int64N(1<<40) - 1<<39 },
		func() int64 { return 1000 + rnd.Int64N(3)*1<<30 },
	}
	for c := range 300 {
		nodes := 1 + rnd.IntN(4)
		ranks := 1 + rnd.IntN(5)
		vals := make([][]int64, nodes)     // per node, all values
		parts := make([][][2]int64, ranks) // per rank, (node, value)
		for v := range nodes {
			gen := gens[rnd.IntN(len(gens))]
			n := 1 + rnd.IntN([]int{3, 40, 2000}[rnd.IntN(3)])
			for range n {
				x := gen()
				vals[v] = append(vals[v], x)
				r := rnd.IntN(ranks)
				parts[r] = append(parts[r], [2]int64{int64(v), x})
			}
		}
		s0 := newStats0(nodes)
		for _, p := range parts {
			s := newStats0(nodes)
			for _, x := range p {
				s.add(int32(x[0]), x[1], 0)
			}
			if err := s0.Merge(s); err != nil {
				t.Fatal(err)
			}
		}
		got := map[int32]int64{}
		sel, done := s0.start()
		for rounds := 0; ; rounds++ {
			for v, x := range done {
				got[v] = x
			}
			if len(sel.e) == 0 {
				break
			}
			if rounds > 16 {
				t.Fatalf("case %d: more than 16 selection rounds", c)
			}
			dec, _ := sel.MarshalBinary()
			var merged *selection
			for _, p := range parts {
				s, err := decodeSelect(dec, false)
				if err != nil {
					t.Fatal(err)
				}
				at := map[int32]int{}
				for k := range s.e {
					at[s.e[k].v] = k
				}
				for _, x := range p {
					if k, ok := at[int32(x[0])]; ok {
						s.e[k].add(x[1])
					}
				}
				b, _ := s.MarshalBinary()
				if s, err = decodeSelect(b, true); err != nil {
					t.Fatal(err)
				}
				if merged == nil {
					merged = s
				} else if err := merged.Merge(s); err != nil {
					t.Fatal(err)
				}
			}
			sel, done = merged.next()
		}
		for v := range nodes {
			s := slices.Clone(vals[v])
			slices.Sort(s)
			if got[int32(v)] != s[(len(s)-1)/2] || s0.min[v] != s[0] || s0.max[v] != s[len(s)-1] || s0.count[v] != int64(len(s)) {
				t.Errorf("case %d node %d (%d values): median %d min %d max %d; want %d %d %d", c, v, len(s),
					got[int32(v)], s0.min[v], s0.max[v], s[(len(s)-1)/2], s[0], s[len(s)-1])
			}
		}
	}
}
