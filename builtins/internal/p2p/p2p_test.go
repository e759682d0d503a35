package p2p

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

type result struct {
	*Result
	Matches []Match
}

// run feeds Run from per-location event lists and sorts the matches.
func run(ranks []int32, h int, evs [][]Event) result {
	at := make([]int, len(evs))
	var ms []Match
	r := Run(ranks, h, func(i int) (Event, bool) {
		if at[i] == len(evs[i]) {
			return Event{}, false
		}
		at[i]++
		return evs[i][at[i]-1], true
	}, func(m Match) { ms = append(ms, m) })
	slices.SortFunc(ms, func(a, b Match) int {
		return CompareSends(a.Send.Time, a.Send.Loc, a.Send.Seq, b.Send.Time, b.Send.Loc, b.Send.Seq)
	})
	return result{r, ms}
}

// With one location per rank, the matches and the pending events do not
// depend on the phase length; every event is either matched or pending,
// and each match pairs a send with a receive of the same key.
func TestRunPhaseIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for it := range 200 {
		nloc := 1 + rng.IntN(6)
		// one location per rank: with two (threads), which of their
		// sends comes first is a matter of the visiting order
		ranks := make([]int32, nloc)
		for i, r := range rng.Perm(nloc) {
			ranks[i] = int32(r)
		}
		evs := make([][]Event, nloc)
		var total int64
		for i := range evs {
			for j := range rng.IntN(60) {
				evs[i] = append(evs[i], Event{Send: rng.IntN(2) == 0, Peer: int32(rng.IntN(nloc)), Comm: int32(rng.IntN(2)),
					Tag: int32(rng.IntN(2)), Bytes: rng.Int64N(9), Time: int64(j)})
				total++
			}
		}
		want := run(ranks, 1<<20, evs)
		if want.Events != total || want.Matched != int64(len(want.Matches)) || int64(2*len(want.Matches)+len(want.Pending)) != total {
			t.Fatalf("case %d: %d events, %d matched, %d pending of %d", it, want.Events, len(want.Matches), len(want.Pending), total)
		}
		for _, h := range []int{1, 2, 7} {
			got := run(ranks, h, evs)
			if !reflect.DeepEqual(got.Matches, want.Matches) || !reflect.DeepEqual(got.Pending, want.Pending) {
				t.Fatalf("case %d: phase %d differs from one phase", it, h)
			}
		}
		for _, m := range want.Matches {
			s, r := evs[m.Send.Loc][m.Send.Seq], evs[m.Recv.Loc][m.Recv.Seq]
			if !s.Send || r.Send || s.Peer != ranks[m.Recv.Loc] || r.Peer != ranks[m.Send.Loc] || s.Comm != r.Comm || s.Tag != r.Tag ||
				m.Comm != s.Comm || m.Tag != s.Tag || m.Send.Bytes != s.Bytes || m.Recv.Time != r.Time {
				t.Fatalf("case %d: match %+v pairs %+v with %+v", it, m, s, r)
			}
		}
	}
}
