package p2p

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// Records outside a window (Record.Outside): Match gives the messages of
// the whole run with both records inside (the brute-force filter of the
// unflagged matching), counts those with one record inside as cut, and
// reports the pending, incomplete and mismatched operations of the inside
// records only.
func TestMatchOutside(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 5))
	for it := range 400 {
		nloc := 1 + rng.IntN(6)
		ranks := randRanks(rng, nloc, it%3 == 2)
		recs := make([][]Record, nloc)
		lo, hi := make([]int64, nloc), make([]int64, nloc)
		for i := range recs {
			recs[i] = randRecords(rng, nloc, rng.IntN(80))
			n := int64(len(recs[i]))
			lo[i] = rng.Int64N(n + 1)
			hi[i] = lo[i] + rng.Int64N(n-lo[i]+1)
		}
		in := func(loc int32, ref int64) bool { return ref >= lo[loc] && ref < hi[loc] }
		whole := run(t, ranks, recs)
		flagged := make([][]Record, nloc)
		for i, rs := range recs {
			flagged[i] = slices.Clone(rs)
			for j := range flagged[i] {
				flagged[i][j].Outside = !in(int32(i), flagged[i][j].Ref)
			}
		}
		got := run(t, ranks, flagged)
		var want []pair
		var cutS, cutR, reversed int64
		for _, m := range whole.Matches {
			s, r := in(m.SendLoc, m.SendRef), in(m.RecvLoc, m.RecvRef)
			switch {
			case s && r:
				want = append(want, m)
				if m.Recv < m.Send {
					reversed++
				}
			case s:
				cutS++
			case r:
				cutR++
			}
		}
		what := fmt.Sprintf("case %d (ranks %v, windows %v %v)", it, ranks, lo, hi)
		if !reflect.DeepEqual(got.Matches, want) && len(got.Matches)+len(want) > 0 {
			t.Fatalf("%s: messages\n%+v\nwant\n%+v", what, got.Matches, want)
		}
		if got.CutSends != cutS || got.CutRecvs != cutR || got.Reversed != reversed {
			t.Fatalf("%s: cut %d/%d reversed %d, want %d/%d %d", what, got.CutSends, got.CutRecvs, got.Reversed, cutS, cutR, reversed)
		}
		inside := func(es []End) []End {
			var out []End
			for _, e := range es {
				if in(e.Loc, e.Ref) {
					out = append(out, e)
				}
			}
			return out
		}
		if g, w := got.Pending, inside(whole.Pending); !reflect.DeepEqual(g, w) && len(g)+len(w) > 0 {
			t.Fatalf("%s: pending\n%+v\nwant\n%+v", what, g, w)
		}
		if g, w := got.Incomplete, inside(whole.Incomplete); !reflect.DeepEqual(g, w) && len(g)+len(w) > 0 {
			t.Fatalf("%s: incomplete\n%+v\nwant\n%+v", what, g, w)
		}
		var mis [][2]End
		for _, x := range whole.Mismatched {
			if in(x[0].Loc, x[0].Ref) && in(x[1].Loc, x[1].Ref) {
				mis = append(mis, x)
			}
		}
		if !reflect.DeepEqual(got.Mismatched, mis) && len(got.Mismatched)+len(mis) > 0 {
			t.Fatalf("%s: mismatched\n%+v\nwant\n%+v", what, got.Mismatched, mis)
		}
	}
}
