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

// commCalls are a location's calls of the instances of one communicator, in order.
type commCalls struct {
	comm  int32
	calls []collCall
}

// delays distributes every wait that has a culprit over the call paths
// whose excess time on the culprit, since the previous synchronisation of
// the two, caused it (short-term delay costs).
func (r *Result) delays() {
	r.delay = make([][]int64, NumKinds)
	for k := range r.delay {
		r.delay[k] = make([]int64, len(r.pParent))
	}
	// per waiting location, the culprits it needs the messages with
	need := make([][]int32, len(r.pc))
	count := make([]int32, len(r.pc))
	n := 0
	for i := range r.inst {
		if in := &r.inst[i]; in.Kind.HasCulprit() && !in.Clipped && in.cAt >= 0 {
			count[in.at]++
			n++
		}
	}
	for a, c := range count {
		need[a] = make([]int32, 0, c)
	}
	todo := make([]int32, 0, n)
	for i := range r.inst {
		in := &r.inst[i]
		if in.Kind.HasCulprit() && !in.Clipped && in.cAt >= 0 {
			todo = append(todo, int32(i))
			need[in.at] = append(need[in.at], in.cAt)
		}
	}
	if len(todo) == 0 {
		return
	}
	pairs := make([][][]syncPair, len(r.pc)) // per location, per needed partner (need's order)
	for a := range need {
		slices.Sort(need[a])
		need[a] = slices.Compact(need[a])
		pairs[a] = make([][]syncPair, len(need[a]))
	}
	r.need = need
	// the messages between the pairs that need them, by the first's call
	if m := r.msgs; m != nil {
		for x := range m.Len() {
			sa, ra := m.SendLoc[x], m.RecvLoc[x]
			if len(need[sa]) == 0 && len(need[ra]) == 0 {
				continue
			}
			S, R := r.pc[sa].mCall[m.SendRef[x]], r.pc[ra].mCall[m.RecvRef[x]]
			if j, ok := slices.BinarySearch(need[sa], ra); ok {
				pairs[sa][j] = append(pairs[sa][j], syncPair{S, R})
			}
			if j, ok := slices.BinarySearch(need[ra], sa); ok {
				pairs[ra][j] = append(pairs[ra][j], syncPair{R, S})
			}
		}
	}
	for _, pa := range pairs {
		for _, ps := range pa {
			slices.SortFunc(ps, func(a, b syncPair) int { return cmp.Or(cmp.Compare(a.mine, b.mine), cmp.Compare(a.theirs, b.theirs)) })
		}
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
func (r *Result) previousSync(pairs [][][]syncPair, in *instance) (int32, int32) {
	jw, jc := int32(-1), int32(-1)
	var ps []syncPair
	if j, ok := slices.BinarySearch(r.need[in.at], in.cAt); ok {
		ps = pairs[in.at][j]
	}
	if len(ps) > 0 {
		k := sort.Search(len(ps), func(i int) bool { return ps[i].mine >= in.call })
		for k--; k >= 0; k-- {
			if ps[k].theirs < in.cCall {
				jw, jc = ps[k].mine, ps[k].theirs
				break
			}
		}
	}
	// the latest collective instance on any communicator of the waiter
	// that the culprit took part in (members of a communicator are the
	// same in all its instances: one that lacks the culprit ends the
	// search on its communicator)
	for _, cs := range r.collCalls[in.at] {
		k := sort.Search(len(cs.calls), func(i int) bool { return cs.calls[i].call >= in.call })
		for k--; k >= 0 && cs.calls[k].call > jw; k-- {
			x := cs.calls[k]
			mem := r.collAt[r.collStart[x.inst]:r.collStart[x.inst+1]]
			j, ok := slices.BinarySearch(mem, in.cAt)
			if !ok {
				break
			}
			if cc := r.collCall[int(r.collStart[x.inst])+j]; cc < in.cCall {
				jw, jc = x.call, cc
				break
			}
		}
	}
	return jw, jc
}

// mulDiv returns a*b/c rounded down, without overflow for ns values.
// (0 < a, 0 < b <= c).
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}
