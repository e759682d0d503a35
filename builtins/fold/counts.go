package fold

import (
	"cmp"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/work"
)

// Op is a selection operation of Weber 6.1.1: how the states of many streams
// at one pixel become one state.
type Op int

const (
	// Max selects the most frequent state (select_max, eq. 6.1): the
	// dominant behaviour.
	Max Op = iota
	// Min selects the least frequent state present (select_min, eq. 6.2):
	// outliers.
	Min
	// Diff selects NoState where all streams are in one state, otherwise
	// the least frequent state other than NoState (select_diff, eq. 6.3):
	// where behaviour diverges, and how.
	Diff
	// Idle selects NoState only where all streams are in NoState,
	// otherwise the most frequent state other than NoState (select_idle,
	// eq. 6.4): accelerator idle time.
	Idle
)

// String returns the operation's name: "max", "min", "diff" or "idle".
func (op Op) String() string {
	switch op {
	case Max:
		return "max"
	case Min:
		return "min"
	case Diff:
		return "diff"
	case Idle:
		return "idle"
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

func (op Op) valid() bool { return op >= Max && op <= Idle }

// order is the total order on states that breaks ties: region ids
// ascending, NoState (as uint32, 0xFFFFFFFF) greatest.
func order(s int32) uint32 { return uint32(s) }

// Counts holds, per pixel, the occurrence count of every state sampled over
// a set of streams: the state-count vectors of Weber 6.1.3. Counts of
// disjoint stream sets over one pixel grid combine exactly by Merge, so a
// fold can be computed per partition (per machine) and combined.
//
// Pixel x covers [T0 + x*(T1-T0)/Width, T0 + (x+1)*(T1-T0)/Width), the
// products computed in 128 bits and the quotients truncated, and every
// stream is sampled at the pixel's start time (Index.StateAt).
//
// With ByTime (Index.CountsByTime) a stream's state at a pixel is instead the state it spends
// the most time in within the pixel, and the counts also hold, per pixel and state, the time
// the streams spend in it (summed), and the union of the streams' busy time, which Idle
// selects by (see the package comment).
type Counts struct {
	T0, T1 int64 // [T0, T1), ns
	Width  int   // pixels
	ByTime bool  // states by time share within the pixel, not sampled at its start

	n     int     // streams counted
	off   []int32 // pixel x's pairs are [off[x], off[x+1])
	state []int32 // per pixel ascending in the total order (NoState last)
	count []int32 // streams in the state (by time share: whose state it is); may be 0 by time share
	dur   []int64 // by time share: ns the streams spend in the state within the pixel, summed

	busy   []ival  // by time share: the union of the streams' busy (not NoState) time in [T0, T1)
	busyPx []int64 // by time share: per pixel, the union's length within it

	procs []int32 // the streams' processes (trace.Process.Index), ascending; nil if unknown
}

// pixelStart returns the start of pixel x of width pixels over [t0, t1).
func pixelStart(t0, t1 int64, width, x int) int64 {
	hi, lo := bits.Mul64(uint64(t1-t0), uint64(x))
	q, _ := bits.Div64(hi, lo, uint64(width))
	return t0 + int64(q)
}

// Pixel returns the time range [a, b) of pixel x, ns.
func (c *Counts) Pixel(x int) (a, b int64) {
	return pixelStart(c.T0, c.T1, c.Width, x), pixelStart(c.T0, c.T1, c.Width, x+1)
}

// Streams returns the number of streams counted.
func (c *Counts) Streams() int { return c.n }

func checkGrid(fn string, t0, t1 int64, width int) {
	if width < 1 || width > 1<<16 {
		fail(fn, "width %d: need 1 <= width <= 65536 pixels", width)
	}
	if t1 <= t0 {
		fail(fn, "empty interval [%d, %d): need t0 < t1 (ns)", t0, t1)
	}
}

// Counts samples the given streams (indices into Streams(); nil for all)
// at width pixels over [t0, t1) and counts the states per pixel. It panics
// with an *Error for a bad grid or stream.
func (ix *Index) Counts(streams []int, t0, t1 int64, width int) *Counts {
	const fn = "fold.Index.Counts"
	defer work.RecoverAs(fn)
	c, _ := ix.counts(fn, streams, t0, t1, width, false)
	c.procs = ix.procsOf(streams)
	return c
}

// counts is Counts; with keep it also returns the samples, pixel-major: sample
// x*len(streams)+i is stream i's state at pixel x.
func (ix *Index) counts(fn string, streams []int, t0, t1 int64, width int, keep bool) (*Counts, []int32) {
	streams = ix.checkStreams(fn, streams, t0, t1, width)
	k := len(streams)
	starts := make([]int64, width)
	for x := range starts {
		starts[x] = pixelStart(t0, t1, width, x)
	}
	// Sample: one successive search per stream, over increasing pixel
	// times. Streams go in groups of 8 side by side, so that the cache
	// misses of 8 independent searches overlap.
	samples := make([]int32, k*width)
	const group = 8
	ng := (k + group - 1) / group
	nw := min(runtime.GOMAXPROCS(0), ng)
	var next atomic.Int64
	work.Parallel(nw, func(int) {
		var js [group]int
		var ss [group]*stream
		for {
			gi := int(next.Add(1) - 1)
			if gi >= ng {
				return
			}
			work.Check()
			i0, m := gi*group, min(group, k-gi*group)
			for g := range m {
				ss[g], js[g] = &ix.st[streams[i0+g]], -1
			}
			var bs [group]int
			for x, t := range starts {
				// Blocks first (bases mostly in cache), then the blocks'
				// entries: independent loads, one cache line each.
				for g := range m {
					if j := js[g]; j+1 < ss[g].len() && ss[g].time(j+1) <= t {
						bs[g] = ss[g].block(j, t)
					} else {
						bs[g] = -2 // no change since the last pixel
					}
				}
				for g := range m {
					st := NoState
					switch b := bs[g]; {
					case b >= 0:
						j := ss[g].inBlock(b, t)
						js[g], st = j, ss[g].state(j)
					case b == -2 && js[g] >= 0:
						st = ss[g].state(js[g])
					}
					samples[x*k+i0+g] = st
				}
			}
		}
	})
	// Count: each worker a range of pixels, whose samples are contiguous
	// (pixel-major), with one counter per state.
	type part struct {
		off          []int32 // per pixel of the part: its number of pairs
		state, count []int32
	}
	nw = min(runtime.GOMAXPROCS(0), width)
	parts := make([]part, nw)
	ns := int(ix.states) + 1 // counter index = state + 1
	work.Parallel(nw, func(w int) {
		a, b := width*w/nw, width*(w+1)/nw
		cnt := make([]int32, ns)
		var touched []int32
		p := &parts[w]
		for x := a; x < b; x++ {
			if x&63 == 0 {
				work.Check()
			}
			for _, s := range samples[x*k : (x+1)*k] {
				c := &cnt[int(s)+1]
				if *c == 0 {
					touched = append(touched, s)
				}
				*c++
			}
			slices.SortFunc(touched, func(a, b int32) int { return cmp.Compare(order(a), order(b)) })
			for _, s := range touched {
				c := &cnt[int(s)+1]
				p.state, p.count = append(p.state, s), append(p.count, *c)
				*c = 0
			}
			p.off = append(p.off, int32(len(touched)))
			touched = touched[:0]
		}
	})
	c := &Counts{T0: t0, T1: t1, Width: width, n: k, off: make([]int32, 1, width+1)}
	for _, p := range parts {
		for _, m := range p.off {
			c.off = append(c.off, c.off[len(c.off)-1]+m)
		}
		c.state, c.count = append(c.state, p.state...), append(c.count, p.count...)
	}
	if !keep {
		samples = nil
	}
	return c, samples
}

// checkStreams checks the grid and the streams (nil for all, which it returns) and reserves
// the memory of a sample per stream and pixel.
func (ix *Index) checkStreams(fn string, streams []int, t0, t1 int64, width int) []int {
	checkGrid(fn, t0, t1, width)
	if streams == nil {
		streams = make([]int, len(ix.st))
		for i := range streams {
			streams[i] = i
		}
	}
	seen := make([]bool, len(ix.st))
	for _, s := range streams {
		if s < 0 || s >= len(ix.st) {
			fail(fn, "stream %d out of range [0, %d)", s, len(ix.st))
		}
		if seen[s] {
			fail(fn, "stream %d given twice", s)
		}
		seen[s] = true
	}
	if err := work.Reserve(fn+": samples", int64(len(streams))*int64(width)*4); err != nil {
		panic(err)
	}
	return streams
}

// procsOf returns the process indices (trace.Process.Index) of streams (nil for all),
// ascending: the streams a partial counts, so that merging counts of one stream twice is an
// error.
func (ix *Index) procsOf(streams []int) []int32 {
	out := make([]int32, 0, len(ix.procs))
	if streams == nil {
		for _, p := range ix.procs {
			out = append(out, int32(p.Index))
		}
	}
	for _, s := range streams {
		out = append(out, int32(ix.procs[s].Index))
	}
	slices.Sort(out)
	return out
}

// Merge adds o, the counts of a disjoint set of streams on the same pixel grid, into c: the
// occurrence counts of matching states added per pixel (Weber 6.1.3), and by time share the
// states' times added and the busy times united. It is exact for every Op because it combines
// the full vectors. Grids (T0, T1, Width) that differ, one by time share and the other
// sampled, or streams counted in both are an error (c is unchanged then). Merge is the merge
// of the method "fold.counts" (CountsMethod).
func (c *Counts) Merge(o part.Partial) error {
	const fn = "fold.Counts.Merge"
	oc, ok := o.(*Counts)
	if !ok {
		return part.Mismatch("fold.Counts", c, o)
	}
	if c.T0 != oc.T0 || c.T1 != oc.T1 || c.Width != oc.Width {
		return work.Errorf(fn, "pixel grids differ: [%d, %d) in %d pixels and [%d, %d) in %d pixels",
			c.T0, c.T1, c.Width, oc.T0, oc.T1, oc.Width)
	}
	if c.ByTime != oc.ByTime {
		return work.Errorf(fn, "one is by time share and the other sampled (ByTime %v and %v)", c.ByTime, oc.ByTime)
	}
	var procs []int32 // nil when either side's streams are not known
	if c.procs != nil && oc.procs != nil {
		var err error
		if procs, err = part.UnionProcesses(fn, slices.Clip(c.procs), oc.procs); err != nil {
			return err
		}
	}
	m := &Counts{T0: c.T0, T1: c.T1, Width: c.Width, ByTime: c.ByTime, n: c.n + oc.n, off: make([]int32, 1, c.Width+1), procs: procs}
	durOf := func(d []int64, i int) int64 {
		if d == nil {
			return 0
		}
		return d[i]
	}
	add := func(s, n int32, d int64) {
		m.state, m.count = append(m.state, s), append(m.count, n)
		if m.ByTime {
			m.dur = append(m.dur, d)
		}
	}
	for x := range c.Width {
		i, ie := int(c.off[x]), int(c.off[x+1])
		j, je := int(oc.off[x]), int(oc.off[x+1])
		for i < ie || j < je {
			switch {
			case j == je || i < ie && order(c.state[i]) < order(oc.state[j]):
				add(c.state[i], c.count[i], durOf(c.dur, i))
				i++
			case i == ie || order(oc.state[j]) < order(c.state[i]):
				add(oc.state[j], oc.count[j], durOf(oc.dur, j))
				j++
			default:
				add(c.state[i], c.count[i]+oc.count[j], durOf(c.dur, i)+durOf(oc.dur, j))
				i, j = i+1, j+1
			}
		}
		m.off = append(m.off, int32(len(m.state)))
	}
	if m.ByTime {
		m.busy = union(c.busy, oc.busy)
		m.busyPx = perWindow(m.busy, m.T0, m.T1, m.Width)
	}
	*c = *m
	return nil
}

const countsVersion = 1

// MarshalBinary encodes the counts (layout version 1): the grid, the streams, per pixel its
// (state, count[, time]) pairs and by time share the busy intervals.
func (c *Counts) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(countsVersion)
	e.Int(c.T0)
	e.Int(c.T1)
	e.Uint(uint64(c.Width))
	e.Bool(c.ByTime)
	e.Uint(uint64(c.n))
	e.Bool(c.procs != nil)
	part.Ints(&e, c.procs)
	for x := range c.Width {
		lo, hi := c.off[x], c.off[x+1]
		e.Uint(uint64(hi - lo))
		for i := lo; i < hi; i++ {
			e.Int(int64(c.state[i]))
			e.Int(int64(c.count[i]))
			if c.ByTime {
				e.Int(c.dur[i])
			}
		}
	}
	if c.ByTime {
		e.Uint(uint64(len(c.busy)))
		prev := c.T0
		for _, v := range c.busy {
			e.Int(v.a - prev)
			e.Int(v.b - v.a)
			prev = v.b
		}
	}
	return e.B, nil
}

// decodeCounts reads Counts.MarshalBinary.
func decodeCounts(b []byte) (*Counts, error) {
	d := part.NewDec(b)
	d.Version("Counts", countsVersion)
	c := &Counts{T0: d.Int(), T1: d.Int()}
	w := d.Uint()
	c.ByTime = d.Bool()
	n := d.Uint()
	known := d.Bool()
	c.procs = part.ReadInts[int32](d)
	if !known {
		c.procs = nil
	} else if c.procs == nil {
		c.procs = []int32{}
	}
	if d.Err() == nil && (w < 1 || w > 1<<16 || w > uint64(len(b)) || c.T1 <= c.T0 || n > 1<<31) {
		d.Fail("impossible grid: %d pixels over [%d, %d) for %d streams", w, c.T0, c.T1, n)
	}
	if d.Err() != nil {
		return nil, work.Errorf("fold.Counts", "decoding: %v", d.Err())
	}
	c.Width, c.n = int(w), int(n)
	c.off = make([]int32, 1, c.Width+1)
	for range c.Width {
		k := d.Len(2)
		prev := int32(0)
		for i := range k {
			s, cnt := int32(d.Int()), d.Int()
			if s < NoState || cnt < 0 || cnt > int64(n) || i > 0 && order(s) <= order(prev) {
				d.Fail("bad pair (state %d, count %d)", s, cnt)
			}
			c.state, c.count, prev = append(c.state, s), append(c.count, int32(cnt)), s
			if c.ByTime {
				c.dur = append(c.dur, d.Int())
			}
		}
		c.off = append(c.off, int32(len(c.state)))
		if d.Err() != nil {
			break
		}
	}
	if c.ByTime && d.Err() == nil {
		k := d.Len(2)
		prev := c.T0
		for range k {
			a := prev + d.Int()
			bb := a + d.Int()
			if a < prev || bb <= a || bb > c.T1 || len(c.busy) > 0 && a <= prev {
				d.Fail("bad busy interval [%d, %d)", a, bb)
				break
			}
			c.busy = append(c.busy, ival{a, bb})
			prev = bb
		}
		c.busyPx = perWindow(c.busy, c.T0, c.T1, c.Width)
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf("fold.Counts", "decoding: %v", err)
	}
	for i := 1; i < len(c.procs); i++ {
		if c.procs[i] <= c.procs[i-1] {
			return nil, work.Errorf("fold.Counts", "decoding: processes out of order")
		}
	}
	return c, nil
}

// Table returns one row per pixel and state counted there: Pixel, State (the region id; null
// for NoState), Streams (in that state) and, by time share, Time (ns) (summed over the
// streams).
func (c *Counts) Table() *arrowio.Table {
	n := len(c.state)
	px, st, cnt := make([]int32, n), make([]int32, n), make([]int32, n)
	valid := make([]bool, n)
	for x := range c.Width {
		for i := c.off[x]; i < c.off[x+1]; i++ {
			px[i], st[i], cnt[i], valid[i] = int32(x), c.state[i], c.count[i], c.state[i] != NoState
		}
	}
	cols := []arrowio.Column{arrowio.Int32("Pixel", px), arrowio.NullableInt32("State", st, valid), arrowio.Int32("Streams", cnt)}
	if c.ByTime {
		cols = append(cols, arrowio.Int64("Time (ns)", slices.Clone(c.dur)).WithUnit("ns"))
	}
	return arrowio.MustTable(cols...)
}

// String summarises the counts: "fold counts: 8 streams, 1600 pixels over [0 s, 2 s), sampled".
func (c *Counts) String() string {
	how := "sampled"
	if c.ByTime {
		how = "by time share"
	}
	return fmt.Sprintf("fold counts: %d streams, %d pixels over [%s, %s), %s", c.n, c.Width,
		arrowio.FormatDuration(c.T0), arrowio.FormatDuration(c.T1), how)
}

// Select returns the state op selects at every pixel. It panics with an *Error for an
// unknown op.
func (c *Counts) Select(op Op) []int32 {
	if !op.valid() {
		fail("fold.Counts.Select", "unknown operation %d", int(op))
	}
	out := make([]int32, c.Width)
	for x := range out {
		out[x], _ = c.selectAt(op, x)
	}
	return out
}

// selectAt applies op to pixel x: the selected state and its share (see Folded.Share). Pairs
// are in ascending order, so the first best pair wins ties.
func (c *Counts) selectAt(op Op, x int) (int32, float64) {
	st, ct := c.state[c.off[x]:c.off[x+1]], c.count[c.off[x]:c.off[x+1]]
	if op == Idle && c.ByTime {
		if a, b := c.Pixel(x); b > a {
			return c.idleByTime(x, b-a)
		}
	}
	share := func(n int32) float64 { return float64(n) / float64(c.n) }
	present := 0 // states of some stream (by time share, a state may have time but no stream)
	for _, n := range ct {
		if n > 0 {
			present++
		}
	}
	if present == 0 {
		return NoState, 0
	}
	skipNone := false
	switch op {
	case Diff:
		if present == 1 {
			for i, n := range ct {
				if n > 0 {
					return NoState, share(n * b2i(st[i] == NoState))
				}
			}
		}
		skipNone = true
	case Idle:
		skipNone = true
	}
	best, bc := NoState, int32(-1)
	last := int32(0)
	for i, s := range st {
		n := ct[i]
		if n == 0 {
			continue
		}
		last = n
		if skipNone && s == NoState {
			continue
		}
		if bc < 0 || (op == Max || op == Idle) && n > bc || (op == Min || op == Diff) && n < bc {
			best, bc = s, n
		}
	}
	if bc < 0 { // only NoState
		return NoState, share(last)
	}
	return best, share(bc)
}

// idleByTime is select_idle by time share at pixel x of length n ns (see the package comment):
// NoState when the streams' union is busy for less than half the pixel, with the idle share;
// otherwise the state with the most time summed over the streams, with the busy share.
func (c *Counts) idleByTime(x int, n int64) (int32, float64) {
	busy := c.busyPx[x]
	if 2*busy < n {
		return NoState, float64(n-busy) / float64(n)
	}
	lo, hi := c.off[x], c.off[x+1]
	best, bd := NoState, int64(0)
	for i := lo; i < hi; i++ {
		if s := c.state[i]; s != NoState && c.dur[i] > bd {
			best, bd = s, c.dur[i]
		}
	}
	return best, float64(busy) / float64(n)
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
