package waits

import (
	"cmp"
	"math/bits"
	"runtime"
	"slices"
	"sort"

	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/work"
)

// syncPair is a synchronisation point of two locations: the call on the
// first and the call on the second.
type syncPair struct{ mine, theirs int32 }

// collCall is a location's call of a collective instance.
type collCall struct{ call, inst int32 }

// delays distributes every wait that has a culprit over the call paths
// whose excess time on the culprit, since the previous synchronisation of
// the two, caused it (short-term delay costs).
func (r *Result) delays() {
	r.delay = make([][]int64, NumKinds)
	for k := range r.delay {
		r.delay[k] = make([]int64, len(r.pParent))
	}
	var todo []int32
	need := map[uint64]bool{}
	for i := range r.inst {
		in := &r.inst[i]
		if in.Kind.HasCulprit() && !in.Clipped && in.cAt >= 0 {
			todo = append(todo, int32(i))
			need[pairKey(in.at, in.cAt)] = true
		}
	}
	if len(todo) == 0 {
		return
	}
	// the messages between the pairs that need them, by the first's call
	pairs := map[uint64][]syncPair{}
	if m := r.msgs; m != nil {
		for x := range m.Len() {
			sa, ra := m.SendLoc[x], m.RecvLoc[x]
			S, R := r.pc[sa].mCall[m.SendRef[x]], r.pc[ra].mCall[m.RecvRef[x]]
			if k := pairKey(sa, ra); need[k] {
				pairs[k] = append(pairs[k], syncPair{S, R})
			}
			if k := pairKey(ra, sa); need[k] {
				pairs[k] = append(pairs[k], syncPair{R, S})
			}
		}
	}
	for _, ps := range pairs {
		slices.SortFunc(ps, func(a, b syncPair) int { return cmp.Compare(a.mine, b.mine) })
	}
	// the waiting time of each call (its waits that have a culprit): not execution time
	waitOf := make([][]int64, len(r.pc))
	for i := range r.inst {
		in := &r.inst[i]
		if in.Kind.HasCulprit() {
			if waitOf[in.at] == nil {
				waitOf[in.at] = make([]int64, r.pc[in.at].numCalls())
			}
			waitOf[in.at][in.call] = max(waitOf[in.at][in.call], in.Wait)
		}
	}
	// by culprit and its call, so that the waiters of one collective
	// instance share the culprit's sums
	maxCalls := int64(1)
	for _, c := range r.pc {
		maxCalls = max(maxCalls, int64(c.numCalls()))
	}
	keys := make([]int64, len(todo))
	for j, i := range todo {
		keys[j] = int64(r.inst[i].cAt)*maxCalls + int64(r.inst[i].cCall)
	}
	todo = p2p.Gather(p2p.StableOrder(keys), todo)
	workers := max(1, min(len(todo), runtime.GOMAXPROCS(0)))
	type scratch struct {
		tw, tc *acc
		cost   [][]int64
		lost   [numKinds]int64
	}
	sc := make([]scratch, workers)
	chunk := (len(todo) + workers - 1) / workers
	work.Parallel(workers, func(w int) {
		s := &sc[w]
		s.tw, s.tc = newAcc(len(r.pParent)), newAcc(len(r.pParent))
		lastAt, lastFrom, lastTo := int32(-1), int32(-1), int32(-1)
		s.cost = make([][]int64, NumKinds)
		for k := range s.cost {
			s.cost[k] = make([]int64, len(r.pParent))
		}
		lo, hi := w*chunk, min(len(todo), (w+1)*chunk)
		for n, i := range todo[lo:hi] {
			if n%1024 == 0 {
				work.Check()
			}
			in := &r.inst[i]
			jw, jc := r.previousSync(pairs, in)
			s.tw.reset()
			r.addGaps(s.tw, in.at, jw+1, in.call, waitOf[in.at])
			if in.cAt != lastAt || jc != lastFrom || in.cCall != lastTo {
				s.tc.reset()
				r.addGaps(s.tc, in.cAt, jc+1, in.cCall, waitOf[in.cAt])
				lastAt, lastFrom, lastTo = in.cAt, jc, in.cCall
			}
			var total, best int64
			bestPath := int32(-1)
			for _, p := range s.tc.touched {
				if e := s.tc.v[p] - s.tw.v[p]; e > 0 {
					total += e
					if e > best || e == best && r.PathName(p) < r.PathName(bestPath) {
						best, bestPath = e, p
					}
				}
			}
			if total == 0 {
				s.lost[in.Kind] += in.Wait
				continue
			}
			var given int64
			for _, p := range s.tc.touched {
				if e := s.tc.v[p] - s.tw.v[p]; e > 0 {
					c := mulDiv(in.Wait, e, total)
					s.cost[in.Kind][p] += c
					given += c
				}
			}
			s.cost[in.Kind][bestPath] += in.Wait - given
		}
	})
	for _, s := range sc {
		if s.cost == nil {
			continue
		}
		for k := range s.cost {
			for p, v := range s.cost[k] {
				r.delay[k][p] += v
			}
			r.unattributed[k] += s.lost[k]
		}
	}
}

// previousSync returns the calls of the waiter and of the culprit of in at
// their previous synchronisation point (a message between them, a
// collective both took part in), -1, -1 when there is none.
func (r *Result) previousSync(pairs map[uint64][]syncPair, in *instance) (int32, int32) {
	jw, jc := int32(-1), int32(-1)
	if ps := pairs[pairKey(in.at, in.cAt)]; len(ps) > 0 {
		k := sort.Search(len(ps), func(i int) bool { return ps[i].mine >= in.call })
		for k--; k >= 0; k-- {
			if ps[k].theirs < in.cCall {
				jw, jc = ps[k].mine, ps[k].theirs
				break
			}
		}
	}
	cs := r.collCalls[in.at]
	k := sort.Search(len(cs), func(i int) bool { return cs[i].call >= in.call })
	for steps := 0; k > 0 && steps < 64; steps++ {
		k--
		x := cs[k]
		if x.call <= jw {
			break
		}
		mem := r.collAt[r.collStart[x.inst]:r.collStart[x.inst+1]]
		if j, ok := slices.BinarySearch(mem, in.cAt); ok {
			if cc := r.collCall[int(r.collStart[x.inst])+j]; cc < in.cCall {
				return x.call, cc
			}
		}
	}
	return jw, jc
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// mulDiv returns a*b/c rounded down, without overflow for ns values.
// (0 < a, 0 < b <= c).
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}
