package profile

// Stage 1 of the box profile and the call matrix under the per-process
// contract (builtins/part): "profile.boxes" computes, over a subset of the
// processes, per series and (caller, callee) cell the count, sum, minimum,
// maximum and log-linear histogram of exclusive and inclusive time (engine.go's
// acc), and the call-stack repairs; partials merge by adding. The function
// rows are merges of their cells, so the one stage serves Boxes and
// CallMatrix (and with the closure, the transitive matrix).

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

func init() {
	part.Register("profile.boxes", buildBoxesMethod, func(tr *trace.Trace) []part.Method {
		n := tr.NumProcesses()
		all, each, halves := make([]int, n), make([]int, n), make([]int, n)
		for i := range n {
			each[i] = i
			halves[i] = i % 2
			if i == 0 {
				halves[i] = -1 // left out
			}
		}
		return []part.Method{BoxesMethod(all, false), BoxesMethod(each, true), BoxesMethod(halves, false)}
	})
}

// BoxesMethod is stage 1 of Boxes and CallMatrix as a method of the
// per-process contract ("profile.boxes"): series[i] is the series of the
// process with Index i (trace.Process.Index; -1: left out; processes
// beyond the slice are left out too), closure makes the cells those of the
// transitive closure. The partial of a subset depends only on the
// processes given and the trace's definitions, so a rank that holds a
// share of the trace computes the same partial as the whole trace would. Its partial over a subset of the processes
// holds, per series and call-matrix cell, the count, sum, minimum, maximum
// and a histogram (16 bins per power of two) of exclusive and inclusive
// time, from which the exact percentiles are refined.
func BoxesMethod(series []int, closure bool) part.Method {
	const fn = "profile.BoxesMethod"
	defer work.RecoverAs(fn)
	m := &boxesMethod{closure: closure, series: make([]int32, len(series))}
	for i, s := range series {
		if s < -1 || s >= maxSeries {
			fail(fn, "series %d of process %d: need -1 to %d", s, i, maxSeries-1)
		}
		m.series[i] = int32(s)
		m.nseries = max(m.nseries, s+1)
	}
	return m
}

// maxSeries bounds the series of a method (a decoded request).
const maxSeries = 1 << 24

type boxesMethod struct {
	closure bool
	nseries int
	series  []int32 // by trace.Process.Index
}

func (m *boxesMethod) Name() string { return "profile.boxes" }
func (m *boxesMethod) Rounds() int  { return 1 }

func (m *boxesMethod) Params() []byte {
	e := part.Enc{}
	e.Uint(1)
	e.Bool(m.closure)
	part.Ints(&e, m.series)
	return e.B
}

func buildBoxesMethod(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", 1)
	closure := d.Bool()
	series := part.ReadInts[int](d)
	if err := d.Done(); err != nil {
		return nil, work.Errorf("profile.boxes", "parameters: %v", err)
	}
	var m part.Method
	err := work.Try(func() { m = BoxesMethod(series, closure) })
	return m, err
}

func (m *boxesMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	const fn = "profile.boxes"
	if round != 0 {
		return nil, work.Errorf(fn, "round %d of a one-round method", round)
	}
	if tr == nil {
		return nil, work.Errorf(fn, "the trace is nil")
	}
	nreg := len(tr.Defs.Regions)
	b := &boxPart{nreg: nreg, p: &partial{cells: newCells(nreg), acc: make([][]acc, m.nseries)}}
	for i, p := range procs {
		if p == nil || p.Trace != tr {
			return nil, work.Errorf(fn, "process %d is not a process of the trace", i)
		}
		if seriesOfIndex(m.series, p.Index) >= 0 {
			if err := trace.EventsHere(fn, p); err != nil {
				return nil, err
			}
			b.events += int64(p.Len())
		}
	}
	err := work.Try(func() {
		job := work.Start(fn, b.events, "events")
		defer job.Done()
		wk := newWalker(b.p.cells, m.closure)
		for _, p := range procs {
			if s := seriesOfIndex(m.series, p.Index); s >= 0 {
				b.p.count(wk, p, int(s), job)
			}
		}
		b.p.repairs = wk.repairs
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (m *boxesMethod) Decide(round int, _ part.Partial) ([]byte, error) {
	return nil, work.Errorf("profile.boxes", "no decision after round %d of a one-round method", round)
}

func (m *boxesMethod) Decode(round int, data []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf("profile.boxes", "round %d of a one-round method", round)
	}
	b, err := decodeBoxPart(data)
	if err == nil && len(b.p.acc) != m.nseries {
		return nil, work.Errorf("profile.boxes", "a partial of %d series, the method has %d", len(b.p.acc), m.nseries)
	}
	return b, err
}

// seriesOfIndex returns the series of the process with Index i, -1 for none.
func seriesOfIndex(series []int32, i int) int32 {
	if i < 0 || i >= len(series) {
		return -1
	}
	return series[i]
}

// boxPart is the partial of "profile.boxes": stage 1 over some processes.
type boxPart struct {
	nreg   int   // regions of the trace
	events int64 // events of the processes counted
	p      *partial
}

// Merge absorbs o, stage 1 over other processes of the same trace and series.
func (b *boxPart) Merge(o part.Partial) error {
	x, ok := o.(*boxPart)
	if !ok || x == nil {
		return part.Mismatch("profile.boxes", b, o)
	}
	if x.nreg != b.nreg || len(x.p.acc) != len(b.p.acc) {
		return work.Errorf("profile.boxes.Merge", "partials of %d and %d regions, %d and %d series",
			b.nreg, x.nreg, len(b.p.acc), len(x.p.acc))
	}
	b.p.absorb(x.p)
	b.events += x.events
	return nil
}

const boxLayout = 2

// MarshalBinary encodes the partial canonically: the cells that hold calls
// in order of (caller, callee), per series each cell's count and, when
// non-zero, its sums, extremes and non-empty histogram bins.
func (b *boxPart) MarshalBinary() ([]byte, error) {
	e := part.Enc{}
	e.Uint(boxLayout)
	e.Uint(uint64(b.nreg))
	e.Uint(uint64(len(b.p.acc)))
	e.Int(b.events)
	r := b.p.repairs
	for _, v := range []int64{r.OuterLeaves, r.ClosedInside, r.UnmatchedLeaves, r.LeavesWithoutCall, r.OpenAtEnd} {
		e.Int(v)
	}
	keys := b.p.cells.keys
	var used []int32
	for c := range keys {
		for s := range b.p.acc {
			if c < len(b.p.acc[s]) && b.p.acc[s][c].count > 0 {
				used = append(used, int32(c))
				break
			}
		}
	}
	slices.SortFunc(used, func(x, y int32) int {
		return cmp.Or(cmp.Compare(keys[x].caller, keys[y].caller), cmp.Compare(keys[x].callee, keys[y].callee))
	})
	e.Uint(uint64(len(used)))
	for _, c := range used {
		e.Int(int64(keys[c].caller))
		e.Uint(uint64(keys[c].callee))
		for s := range b.p.acc {
			var a acc
			if c < int32(len(b.p.acc[s])) {
				a = b.p.acc[s][c]
			}
			e.Uint(uint64(a.count))
			if a.count == 0 {
				continue
			}
			for m := range 2 {
				e.Int(a.sum[m])
				e.Int(a.min[m])
				e.Int(a.max[m])
				nz := 0
				for _, n := range a.hist[m] {
					if n > 0 {
						nz++
					}
				}
				e.Uint(uint64(nz))
				last := -1
				for bin, n := range a.hist[m] {
					if n > 0 {
						e.Uint(uint64(bin - last - 1))
						e.Uint(uint64(n))
						last = bin
					}
				}
			}
		}
	}
	return e.B, nil
}

// decodeBoxPart reads what (*boxPart).MarshalBinary wrote.
func decodeBoxPart(data []byte) (*boxPart, error) {
	d := part.NewDec(data)
	d.Version("box profile", boxLayout)
	nreg := d.Uint()
	if d.Err() == nil && nreg > 1<<31-1 {
		d.Fail("%d regions", nreg)
	}
	ns := d.Len(0)
	events := d.Int()
	if d.Err() == nil && events < 0 {
		d.Fail("%d events", events)
	}
	var r trace.CallRepairs
	for _, f := range []*int64{&r.OuterLeaves, &r.ClosedInside, &r.UnmatchedLeaves, &r.LeavesWithoutCall, &r.OpenAtEnd} {
		*f = d.Int()
	}
	// no dense table: its size would not follow from the data
	b := &boxPart{nreg: int(nreg), events: events, p: &partial{cells: &cells{ids: map[cellKey]int32{}, nreg: int(nreg)}, acc: make([][]acc, ns), repairs: r}}
	nc := d.Len(2 + ns)
	prev := cellKey{caller: -2}
	for range nc {
		if d.Err() != nil {
			break
		}
		k := cellKey{caller: int32(d.Int()), callee: int32(d.Uint())}
		if d.Err() != nil {
			break
		}
		if k.caller < -1 || int64(k.caller) >= int64(nreg) || k.callee < 0 || int64(k.callee) >= int64(nreg) {
			d.Fail("cell (%d, %d) beyond %d regions", k.caller, k.callee, nreg)
			break
		}
		if cmp.Or(cmp.Compare(prev.caller, k.caller), cmp.Compare(prev.callee, k.callee)) >= 0 {
			d.Fail("cell (%d, %d) out of order", k.caller, k.callee)
			break
		}
		prev = k
		c := b.p.cells.id(k)
		for s := range ns {
			n := d.Uint()
			if n == 0 || d.Err() != nil {
				continue
			}
			a := b.p.at(s, c)
			a.count = int64(n)
			for m := range 2 {
				a.sum[m], a.min[m], a.max[m] = d.Int(), d.Int(), d.Int()
				nz := d.Len(2)
				if d.Err() != nil {
					break
				}
				if nz == 0 || nz > nbins || a.min[m] > a.max[m] {
					d.Fail("a cell of %d calls with %d histogram bins, range %d to %d", n, nz, a.min[m], a.max[m])
					break
				}
				a.hist[m] = make([]uint32, nbins)
				bin, total := -1, uint64(0)
				for range nz {
					bin += 1 + int(min(d.Uint(), nbins))
					v := d.Uint()
					if d.Err() != nil {
						break
					}
					if bin >= nbins || v == 0 || v > 1<<32-1 {
						d.Fail("histogram bin %d of %d values", bin, v)
						break
					}
					a.hist[m][bin] = uint32(v)
					total += v
				}
				if d.Err() == nil && total != n {
					d.Fail("histogram of %d values for %d calls", total, n)
				}
			}
		}
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf("profile.boxes", "decoding a partial: %v", err)
	}
	return b, nil
}
