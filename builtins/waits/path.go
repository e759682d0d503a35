package waits

import (
	"sort"

	"github.com/tracebook/tracebook/builtins/work"
)

// segment is a Segment with where it begins and ends among its location's
// calls: from inside call from (its wait's end; -1: the location's first
// event) to the Enter of call to (its number of calls: the last event).
type segment struct {
	Segment
	at       int32
	from, to int32
}

// jumpCalls returns, per location, the instances the replay follows: per
// call with a wait that has a culprit (not clipped), the one whose culprit
// entered last (the first kind on ties); by call.
func (r *Result) jumpCalls() [][]int32 {
	jumps := make([][]int32, len(r.pc))
	count := make([]int, len(r.pc))
	for i := range r.inst {
		count[r.inst[i].at]++
	}
	for a, c := range count {
		jumps[a] = make([]int32, 0, c)
	}
	for _, i := range r.order {
		in := &r.inst[i]
		if !in.Kind.HasCulprit() || in.Clipped || in.cAt < 0 {
			continue
		}
		js := jumps[in.at]
		if n := len(js); n > 0 && r.inst[js[n-1]].call == in.call {
			if in.CulpritEnter > r.inst[js[n-1]].CulpritEnter {
				js[n-1] = int32(i)
			}
			continue
		}
		jumps[in.at] = append(js, int32(i))
	}
	return jumps
}

// criticalPath replays the run backward from its last event: on a
// location, back to the end of the latest wait that has a culprit, then on
// the culprit from the call it was late for, until a location's first
// event. Then it sums the path's time per call path.
func (r *Result) criticalPath() {
	r.pathTime = make([]int64, len(r.pParent))
	r.totalTime = make([]int64, len(r.pParent))
	for a, c := range r.pc {
		g := r.gmap[a]
		for j := range c.gPath {
			r.totalTime[g[c.gPath[j]]] += c.gTime[j]
		}
		for j := range c.cEnter {
			r.totalTime[g[c.cPath[j]]] += c.cLeave[j] - c.cEnter[j]
		}
	}
	if r.endAt < 0 {
		return
	}
	jumps := r.jumpCalls()
	minBound := make([]int32, len(r.pc))
	for a, c := range r.pc {
		minBound[a] = int32(c.numCalls()) + 1
	}
	at := r.endAt
	bound := int32(r.pc[at].numCalls())
	t := r.tEnd
	var segs []segment
	sum := newAcc(len(r.pParent))
	for steps := 0; ; steps++ {
		if steps%checkEvery == 0 {
			work.Check()
		}
		c := r.pc[at]
		// a location is entered with ever earlier calls (equal times could
		// otherwise lead back to the same call)
		bound = min(bound, minBound[at]-1)
		minBound[at] = bound
		js := jumps[at]
		k := sort.Search(len(js), func(i int) bool { return r.inst[js[i]].call >= bound }) - 1
		if k < 0 || bound < 0 {
			segs = append(segs, segment{Segment{c.proc, c.first, t}, at, -1, max(bound, 0)})
			break
		}
		in := &r.inst[js[k]]
		segs = append(segs, segment{Segment{c.proc, in.CulpritEnter, t}, at, in.call, bound})
		at, bound, t = in.cAt, in.cCall, in.CulpritEnter
	}
	for i, j := 0, len(segs)-1; i < j; i, j = i+1, j-1 {
		segs[i], segs[j] = segs[j], segs[i]
	}
	r.segs = segs
	defer func() { copy(r.pathTime, sum.v) }()
	for _, s := range segs {
		r.pathLength += s.End - s.Start
		c := r.pc[s.at]
		if s.from >= 0 {
			sum.add(r.gmap[s.at][c.cPath[s.from]], c.cLeave[s.from]-s.Start)
		}
		r.addGaps(sum, s.at, s.from+1, s.to, nil)
	}
}

// acc sums time per global call path, remembering which paths it touched
// so that a reset costs only those.
type acc struct {
	v       []int64
	mark    []bool
	touched []int32
}

func newAcc(n int) *acc { return &acc{v: make([]int64, n), mark: make([]bool, n)} }

func (a *acc) add(p int32, d int64) {
	if !a.mark[p] {
		a.mark[p] = true
		a.touched = append(a.touched, p)
	}
	a.v[p] += d
}

func (a *acc) reset() {
	for _, p := range a.touched {
		a.v[p], a.mark[p] = 0, false
	}
	a.touched = a.touched[:0]
}

// addGaps adds to sum, per global call path, the time of location a in
// gaps first..to and calls first..to-1 (a call's waiting time, wait[call],
// left out when wait is not nil).
func (r *Result) addGaps(sum *acc, a, first, to int32, wait []int64) {
	c := r.pc[a]
	g := r.gmap[a]
	for gap := first; gap <= to && int(gap) < len(c.gOff)-1; gap++ {
		for j := c.gOff[gap]; j < c.gOff[gap+1]; j++ {
			sum.add(g[c.gPath[j]], c.gTime[j])
		}
		if gap < to {
			d := c.cLeave[gap] - c.cEnter[gap]
			if wait != nil {
				d -= wait[gap]
			}
			sum.add(g[c.cPath[gap]], d)
		}
	}
}
