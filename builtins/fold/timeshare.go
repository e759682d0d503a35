package fold

import (
	"cmp"
	"container/heap"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/tracebook/tracebook/builtins/work"
)

// CountsByTime is Counts by time share (Counts.ByTime): each stream's state at a pixel is the
// state it spends the most time in within the pixel (ties by the total order), not its state
// at the pixel's start; the counts also hold every state's time summed over the streams and
// the union of the streams' busy (not NoState) time, for Idle. It panics with an *Error for a
// bad grid or stream.
func (ix *Index) CountsByTime(streams []int, t0, t1 int64, width int) *Counts {
	const fn = "fold.Index.CountsByTime"
	defer work.RecoverAs(fn)
	c, _ := ix.timeCounts(fn, streams, t0, t1, width, false, true)
	c.procs = ix.procsOf(streams)
	return c
}

// timePart is the counts of one range of pixels.
type timePart struct {
	off          []int32 // per pixel of the part: its number of pairs
	state, count []int32
	dur          []int64
	busy         []ival  // the union of the streams' busy intervals over the part's pixels
	busyPx       []int64 // per pixel: the union's length within it
}

// pixelsPerPart is how many pixels one task of timeCounts covers: each task starts every
// stream with a binary search, so tasks should cover many pixels; many tasks balance the
// cores when some pixels hold most events.
const pixelsPerPart = 64

// timeCounts is CountsByTime; with keep it also returns each stream's state per pixel,
// pixel-major as counts does; without busy it leaves out the busy time (which only Idle
// needs). Workers take ranges of pixels; within a range, every stream walks its transitions
// forward once, adding each state's time within each pixel, and the busy time is the union
// of the streams' busy intervals over the range, merged in time order from one cursor per
// stream (a heap), so that it needs no memory beyond the union itself.
func (ix *Index) timeCounts(fn string, streams []int, t0, t1 int64, width int, keep, busy bool) (*Counts, []int32) {
	streams = ix.checkStreams(fn, streams, t0, t1, width)
	k := len(streams)
	var samples []int32
	if keep {
		samples = make([]int32, k*width)
	}
	nparts := (width + pixelsPerPart - 1) / pixelsPerPart
	parts := make([]timePart, nparts)
	ns := int(ix.states) + 1 // accumulator index = state + 1
	var next atomic.Int64
	work.Parallel(min(runtime.GOMAXPROCS(0), nparts), func(int) {
		own := make([]int64, ns) // one stream's time per state within the pixel
		total := make([]int64, ns)
		streamsIn := make([]int32, ns) // streams whose state the pixel is
		var ownTouched, touched []int32
		cur := make([]int, k)
		var u unionHeap
		walked := 0
		for {
			pi := int(next.Add(1) - 1)
			if pi >= nparts {
				return
			}
			work.Check()
			xa, xb := pi*pixelsPerPart, min(width, (pi+1)*pixelsPerPart)
			a0 := pixelStart(t0, t1, width, xa)
			for i, s := range streams {
				cur[i] = ix.st[s].last(a0)
			}
			p := &parts[pi]
			for x := xa; x < xb; x++ {
				a, b := pixelStart(t0, t1, width, x), pixelStart(t0, t1, width, x+1)
				for i, si := range streams {
					s := &ix.st[si]
					j := cur[i]
					for j+1 < s.len() && s.time(j+1) <= a {
						j++
					}
					st := NoState
					if j >= 0 {
						st = s.state(j)
					}
					pick := st // a pixel of no length takes the state at its start
					if b > a {
						for t := a; ; {
							tn := b
							if j+1 < s.len() {
								tn = min(tn, s.time(j+1))
							}
							if tn > t {
								if own[st+1] == 0 {
									ownTouched = append(ownTouched, st)
								}
								own[st+1] += tn - t
							}
							if tn >= b {
								break
							}
							j++
							t, st = tn, s.state(j)
							if walked++; walked&(1<<16-1) == 0 {
								work.Check()
							}
						}
						var best int64 = -1
						for _, q := range ownTouched {
							d := own[q+1]
							if d > best || d == best && order(q) < order(pick) {
								best, pick = d, q
							}
							if total[q+1] == 0 && streamsIn[q+1] == 0 {
								touched = append(touched, q)
							}
							total[q+1] += d
							own[q+1] = 0
						}
						ownTouched = ownTouched[:0]
					}
					cur[i] = j
					if total[pick+1] == 0 && streamsIn[pick+1] == 0 {
						touched = append(touched, pick)
					}
					streamsIn[pick+1]++
					if keep {
						samples[x*k+i] = pick
					}
				}
				slices.SortFunc(touched, func(u, v int32) int { return cmp.Compare(order(u), order(v)) })
				for _, q := range touched {
					p.state, p.count, p.dur = append(p.state, q), append(p.count, streamsIn[q+1]), append(p.dur, total[q+1])
					streamsIn[q+1], total[q+1] = 0, 0
				}
				p.off = append(p.off, int32(len(touched)))
				touched = touched[:0]
			}
			if busy {
				b0 := pixelStart(t0, t1, width, xb)
				p.busy = u.union(ix, streams, a0, b0, p.busy[:0])
				p.busyPx = lengths(p.busy, t0, t1, width, xa, xb)
			}
		}
	})
	c := &Counts{T0: t0, T1: t1, Width: width, ByTime: true, n: k, off: make([]int32, 1, width+1)}
	if busy {
		c.busyPx = make([]int64, 0, width)
	}
	for i := range parts {
		p := &parts[i]
		for _, m := range p.off {
			c.off = append(c.off, c.off[len(c.off)-1]+m)
		}
		c.state, c.count, c.dur = append(c.state, p.state...), append(c.count, p.count...), append(c.dur, p.dur...)
		for _, v := range p.busy { // parts in time order: only their ends can touch
			if n := len(c.busy); n > 0 && v.a <= c.busy[n-1].b {
				c.busy[n-1].b = max(c.busy[n-1].b, v.b)
			} else {
				c.busy = append(c.busy, v)
			}
		}
		c.busyPx = append(c.busyPx, p.busyPx...)
	}
	return c, samples
}

// busyCursor walks one stream's busy (not NoState) intervals within [.., end) in order.
type busyCursor struct {
	s    *stream
	j    int   // the transition in effect (-1: before the first)
	a, b int64 // the current busy interval
}

// next moves c to the stream's next busy interval starting at or after from (the stream is
// in transition j's state at from) and before end; false if there is none.
func (c *busyCursor) next(from, end int64) bool {
	s, j := c.s, c.j
	for j < 0 || s.state(j) == NoState {
		if j+1 >= s.len() || s.time(j+1) >= end {
			c.j = j
			return false
		}
		j++
		from = s.time(j)
	}
	for j+1 < s.len() && s.time(j+1) < end && s.state(j+1) != NoState {
		j++
	}
	b := end
	if j+1 < s.len() && s.time(j+1) < end {
		j++
		b = s.time(j)
	}
	c.j, c.a, c.b = j, from, b
	return from < b
}

// unionHeap merges the streams' busy intervals in time order: a min-heap of cursors by the
// start of their current interval.
type unionHeap []busyCursor

func (h unionHeap) Len() int           { return len(h) }
func (h unionHeap) Less(i, j int) bool { return h[i].a < h[j].a }
func (h unionHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *unionHeap) Push(x any)        { *h = append(*h, x.(busyCursor)) }
func (h *unionHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// union appends to out the union of the busy intervals of the streams within [a, b), in order.
func (h *unionHeap) union(ix *Index, streams []int, a, b int64, out []ival) []ival {
	*h = (*h)[:0]
	for _, si := range streams {
		c := busyCursor{s: &ix.st[si], j: ix.st[si].last(a)}
		if c.next(a, b) {
			*h = append(*h, c)
		}
	}
	heap.Init(h)
	steps := 0
	for h.Len() > 0 {
		c := &(*h)[0]
		if n := len(out); n > 0 && c.a <= out[n-1].b {
			out[n-1].b = max(out[n-1].b, c.b)
		} else {
			out = append(out, ival{c.a, c.b})
		}
		if c.next(c.b, b) {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
		if steps++; steps&(1<<16-1) == 0 {
			work.Check()
		}
	}
	return out
}

// lengths returns, for pixels [xa, xb) of the grid, the length of the ordered disjoint
// intervals within each.
func lengths(busy []ival, t0, t1 int64, width, xa, xb int) []int64 {
	out := make([]int64, 0, xb-xa)
	i := 0
	for x := xa; x < xb; x++ {
		a, b := pixelStart(t0, t1, width, x), pixelStart(t0, t1, width, x+1)
		for i < len(busy) && busy[i].b <= a {
			i++
		}
		var n int64
		for k := i; k < len(busy) && busy[k].a < b; k++ {
			n += min(b, busy[k].b) - max(a, busy[k].a)
		}
		out = append(out, n)
	}
	return out
}
