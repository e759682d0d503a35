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
	r.delayAt = make([]int64, len(r.pc))
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
	todo := make([]int32, 0, n) // by location, call, kind
	for _, i := range r.order {
		in := &r.inst[i]
		if in.Kind.HasCulprit() && !in.Clipped && in.cAt >= 0 {
			todo = append(todo, i)
			need[in.at] = append(need[in.at], in.cAt)
		}
	}
	if len(todo) == 0 {
		return
	}
	// per location, per needed partner (need's order): the messages it sent
	// to the partner and those it received from it, each list by the
	// location's call (in send order they mostly are), then merged
	pairs := make([][][]syncPair, len(r.pc))
	received := make([][][]syncPair, len(r.pc))
	for a := range need {
		slices.Sort(need[a])
		need[a] = slices.Compact(need[a])
		pairs[a] = make([][]syncPair, len(need[a]))
		received[a] = make([][]syncPair, len(need[a]))
	}
	if m := r.msgs; m != nil {
		for x := range len(m.SendLoc) { // (trimmed: Len, of the send times, is 0)
			sa, ra := m.SendLoc[x], m.RecvLoc[x]
			if len(need[sa]) == 0 && len(need[ra]) == 0 {
				continue
			}
			S, R := r.pc[sa].mCall[m.SendRef[x]], r.pc[ra].mCall[m.RecvRef[x]]
			if j, ok := slices.BinarySearch(need[sa], ra); ok {
				pairs[sa][j] = append(pairs[sa][j], syncPair{S, R})
			}
			if j, ok := slices.BinarySearch(need[ra], sa); ok {
				received[ra][j] = append(received[ra][j], syncPair{R, S})
			}
		}
	}
	byCall := func(a, b syncPair) int { return cmp.Or(cmp.Compare(a.mine, b.mine), cmp.Compare(a.theirs, b.theirs)) }
	for a := range pairs {
		for j := range pairs[a] {
			out, in := pairs[a][j], received[a][j]
			for _, ps := range [][]syncPair{out, in} {
				if !slices.IsSortedFunc(ps, byCall) {
					slices.SortFunc(ps, byCall)
				}
			}
			if len(in) == 0 {
				continue
			}
			merged := make([]syncPair, 0, len(out)+len(in))
			x, y := 0, 0
			for x < len(out) && y < len(in) {
				if byCall(in[y], out[x]) < 0 {
					merged = append(merged, in[y])
					y++
				} else {
					merged = append(merged, out[x])
					x++
				}
			}
			pairs[a][j] = append(append(merged, out[x:]...), in[y:]...)
			received[a][j] = nil
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
	// per location, its waits with a culprit by call: the waits a culprit's
	// own waiting passes costs on to
	byLoc := make([][]int32, len(r.pc))
	for a, c := range count {
		byLoc[a] = make([]int32, 0, c)
	}
	posOf := make([]int32, len(r.inst))
	for i := range posOf {
		posOf[i] = -1
	}
	for j, i := range todo {
		posOf[i] = int32(j)
	}
	for _, i := range r.order {
		if posOf[i] >= 0 {
			byLoc[r.inst[i].at] = append(byLoc[r.inst[i].at], i)
		}
	}
	// pass 1, on every core: per wait, the culprit's excess execution time
	// per call path over the waiter's since their previous synchronisation,
	// and its excess waiting time. By culprit and its call, so that the
	// waiters of one collective instance share the culprit's sums.
	maxCalls := int64(1)
	for _, c := range r.pc {
		maxCalls = max(maxCalls, int64(c.numCalls()))
	}
	keys := make([]int64, len(todo))
	for j, i := range todo {
		keys[j] = int64(r.inst[i].cAt)*maxCalls + int64(r.inst[i].cCall)
	}
	byCulprit := p2p.StableOrder(keys)
	eExec, eWait := make([]int64, len(todo)), make([]int64, len(todo))
	prevC := make([]int32, len(todo)) // the culprit's call of the previous synchronisation
	eOff, eLen := make([]int32, len(todo)), make([]int32, len(todo))
	eWorker := make([]int32, len(todo))
	workers := max(1, min(len(todo), runtime.GOMAXPROCS(0)))
	chunk := (len(todo) + workers - 1) / workers
	type lists struct {
		path []int32
		e    []int64
	}
	ls := make([]lists, workers)
	work.Parallel(workers, func(w int) {
		tw, tc := newAcc(len(r.pParent)), newAcc(len(r.pParent))
		var waitW, waitC int64
		lastAt, lastFrom, lastTo := int32(-1), int32(-1), int32(-1)
		l := &ls[w]
		lo, hi := min(len(todo), w*chunk), min(len(todo), (w+1)*chunk)
		for n, j := range byCulprit[lo:hi] {
			if n%1024 == 0 {
				work.Check()
			}
			in := &r.inst[todo[j]]
			jw, jc := r.previousSync(need, pairs, in)
			prevC[j] = jc
			tw.reset()
			r.addGaps(tw, in.at, jw+1, in.call, waitOf[in.at])
			waitW = sumRange(waitOf[in.at], jw+1, in.call)
			if in.cAt != lastAt || jc != lastFrom || in.cCall != lastTo {
				tc.reset()
				r.addGaps(tc, in.cAt, jc+1, in.cCall, waitOf[in.cAt])
				waitC = sumRange(waitOf[in.cAt], jc+1, in.cCall)
				lastAt, lastFrom, lastTo = in.cAt, jc, in.cCall
			}
			eWorker[j], eOff[j] = int32(w), int32(len(l.path))
			for _, p := range tc.touched {
				if e := tc.v[p] - tw.v[p]; e > 0 {
					l.path = append(l.path, p)
					l.e = append(l.e, e)
					eExec[j] += e
				}
			}
			eLen[j] = int32(len(l.path)) - eOff[j]
			eWait[j] = max(0, waitC-waitW)
		}
	})
	// pass 2, in order of the waits' ends, latest first: each wait's cost,
	// its waiting time and what later waits passed on to it, is split
	// between the culprit's excess execution (kept for pass 3) and its
	// excess waiting, which passes on to the culprit's waits in the
	// interval (in proportion to their waiting times)
	ends := make([]int64, len(todo))
	for j, i := range todo {
		ends[j] = -r.inst[i].CulpritEnter
	}
	pool := make([]int64, len(todo))
	done := make([]bool, len(todo))
	direct := make([]int64, len(todo))
	for n, j := range p2p.StableOrder(ends) {
		if n%checkEvery == 0 {
			work.Check()
		}
		in := &r.inst[todo[j]]
		total := in.Wait + pool[j]
		done[j] = true
		den := eExec[j] + eWait[j]
		if den == 0 {
			r.unattributed[in.Kind] += total
			continue
		}
		prop := mulDiv(total, eWait[j], den)
		direct[j] = total - prop
		if prop == 0 {
			continue
		}
		ys := byLoc[in.cAt]
		k := sort.Search(len(ys), func(i int) bool { return r.inst[ys[i]].call > prevC[j] })
		var sum int64
		top := -1
		for x := k; x < len(ys) && r.inst[ys[x]].call < in.cCall; x++ {
			y := &r.inst[ys[x]]
			sum += y.Wait
			if top < 0 || y.Wait > r.inst[ys[top]].Wait {
				top = x
			}
		}
		if sum == 0 {
			r.unattributed[in.Kind] += prop
			continue
		}
		var given int64
		give := func(x int, v int64) {
			y := posOf[ys[x]]
			if done[y] { // a wait ending at the same time, already distributed
				r.unattributed[in.Kind] += v
				return
			}
			pool[y] += v
		}
		for x := k; x < len(ys) && r.inst[ys[x]].call < in.cCall; x++ {
			v := mulDiv(prop, r.inst[ys[x]].Wait, sum)
			give(x, v)
			given += v
		}
		give(top, prop-given)
		r.propagated[in.Kind] += prop
	}
	// pass 3, on every core: each wait's direct cost over the culprit's call
	// paths, in proportion to their excess (the remainder to the largest,
	// ties by name)
	type sums struct {
		delay [][]int64
		at    []int64
	}
	part3 := make([]sums, workers)
	work.Parallel(workers, func(w int) {
		out := &part3[w]
		out.delay = make([][]int64, NumKinds)
		for k := range out.delay {
			out.delay[k] = make([]int64, len(r.pParent))
		}
		out.at = make([]int64, len(r.pc))
		lo, hi := min(len(todo), w*chunk), min(len(todo), (w+1)*chunk)
		for n := lo; n < hi; n++ {
			if (n-lo)%checkEvery == 0 {
				work.Check()
			}
			j := n
			if direct[j] == 0 {
				continue
			}
			in := &r.inst[todo[j]]
			l := &ls[eWorker[j]]
			paths, es := l.path[eOff[j]:eOff[j]+eLen[j]], l.e[eOff[j]:eOff[j]+eLen[j]]
			best := 0
			var given int64
			for x, p := range paths {
				v := mulDiv(direct[j], es[x], eExec[j])
				out.delay[in.Kind][p] += v
				given += v
				if es[x] > es[best] || es[x] == es[best] && x != best && r.PathName(p) < r.PathName(paths[best]) {
					best = x
				}
			}
			out.delay[in.Kind][paths[best]] += direct[j] - given
			out.at[in.cAt] += direct[j]
		}
	})
	for _, x := range part3 {
		for k := range x.delay {
			for p, v := range x.delay[k] {
				r.delay[k][p] += v
			}
		}
		for a, v := range x.at {
			r.delayAt[a] += v
		}
	}
}

// sumRange returns the sum of v[from:to] (0 for a nil v).
func sumRange(v []int64, from, to int32) int64 {
	var s int64
	if v == nil {
		return 0
	}
	for _, x := range v[max(from, 0):max(from, to)] {
		s += x
	}
	return s
}

// previousSync returns the calls of the waiter and of the culprit of in at
// their previous synchronisation point (a message between them, a
// collective both took part in), -1, -1 when there is none.
func (r *Result) previousSync(need [][]int32, pairs [][][]syncPair, in *instance) (int32, int32) {
	jw, jc := int32(-1), int32(-1)
	var ps []syncPair
	if j, ok := slices.BinarySearch(need[in.at], in.cAt); ok {
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
