package profile

import (
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// A cell is a (caller, callee) bucket of Brendel's call matrix; caller -1 is the virtual root.
// The direct matrix counts every call in the cell of its immediate caller; the transitive
// closure counts it once in the cell of each distinct function on the call stack below it and
// of the root.
type cellKey struct{ caller, callee int32 }

// cells numbers the cells met by one walker: through a dense table indexed by (caller,
// callee) when the trace has few enough regions, through a map otherwise.
type cells struct {
	ids   map[cellKey]int32
	keys  []cellKey
	dense []int32 // (caller+1)*nreg + callee -> id+1; nil if the table would be too large
	nreg  int
}

// denseCells is the largest dense table of cells (4 MB).
const denseCells = 1 << 20

func newCells(nreg int) *cells {
	c := &cells{ids: map[cellKey]int32{}, nreg: nreg}
	if (nreg+1)*nreg <= denseCells {
		c.dense = make([]int32, (nreg+1)*nreg)
	}
	return c
}

// view returns a cells sharing c's numbering, for walkers that only look cells up (every cell
// exists already).
func (c *cells) view() *cells { return &cells{ids: c.ids, keys: c.keys, dense: c.dense, nreg: c.nreg} }

func (c *cells) id(k cellKey) int32 {
	j := -1
	if c.dense != nil && k.caller >= -1 && k.callee >= 0 && int(k.caller) < c.nreg && int(k.callee) < c.nreg {
		j = int(k.caller+1)*c.nreg + int(k.callee)
		if v := c.dense[j]; v > 0 {
			return v - 1
		}
	}
	i, ok := c.ids[k]
	if !ok {
		i = int32(len(c.keys))
		c.ids[k] = i
		c.keys = append(c.keys, k)
	}
	if j >= 0 {
		c.dense[j] = i + 1
	}
	return i
}

// frame is an open call on a walker's stack.
type frame struct {
	enter, child int64
	region       int32
	cell         int32 // direct-matrix cell of this call
}

// record is one measurement: a call's cell, exclusive and inclusive time in ns.
type record struct {
	cell     int32
	exc, inc int64
}

// batchLen is the number of records a walker hands over at once (about 100 kB, so that the
// consumer's loop reads them from the cache).
const batchLen = 4096

// emitFunc receives the records of closed calls, a batch at a time; the slice is reused after
// the call returns.
type emitFunc func([]record)

// walker turns a process's Enter/Leave events into calls, repairing the call stack exactly as
// trace.CallTree does (trace.LeaveDepth; calls still open at the end close at the process's
// last event), and emits each call's measurements when it closes.
type walker struct {
	cells   *cells
	closure bool
	stack   []frame
	regions []int32 // stack's regions, for trace.LeaveDepth
	seen    []int32 // closure: seen[region] == stamp while region is on the current stack walk
	stamp   int32
	repairs trace.CallRepairs
	out     []record // the batch being filled
}

func newWalker(c *cells, closure bool) *walker {
	return &walker{cells: c, closure: closure}
}

// progressChunk is how many events a walker handles between progress reports and interrupt
// checks (about a millisecond of work).
const progressChunk = 1 << 16

// walk emits the calls of p; job counts its events.
func (w *walker) walk(p *trace.Process, job *work.Job, emit emitFunc) {
	w.stack, w.regions, w.out = w.stack[:0], w.regions[:0], w.out[:0]
	if cap(w.out) < batchLen+1024 {
		w.out = make([]record, 0, batchLen+1024)
	}
	kind, times, ref := p.Kind, p.Time, p.Ref
	next := progressChunk
	for i, k := range kind {
		if i == next {
			next += progressChunk
			if err := job.Add(progressChunk); err != nil {
				panic(err)
			}
		}
		switch k {
		case trace.Enter:
			r := ref[i]
			caller := int32(-1)
			if n := len(w.stack); n > 0 {
				caller = w.stack[n-1].region
			}
			cell := int32(-1)
			if dense, nreg := w.cells.dense, w.cells.nreg; dense != nil && uint32(r) < uint32(nreg) && caller >= -1 && int(caller) < nreg {
				cell = dense[int(caller+1)*nreg+int(r)] - 1 // inline lookup of a known cell
			}
			if cell < 0 {
				cell = w.cells.id(cellKey{caller, r})
			}
			w.stack = append(w.stack, frame{enter: times[i], region: r, cell: cell})
			w.regions = append(w.regions, r)
		case trace.Leave:
			n := len(w.stack)
			if n > 0 && w.regions[n-1] == ref[i] && !w.closure { // the common case, inline
				f := &w.stack[n-1]
				inc := times[i] - f.enter
				if n > 1 {
					w.stack[n-2].child += inc
				}
				w.out = append(w.out, record{f.cell, inc - f.child, inc})
				w.stack, w.regions = w.stack[:n-1], w.regions[:n-1]
			} else if d := trace.LeaveDepth(w.regions, ref[i], &w.repairs); d >= 0 {
				w.closeAbove(d, times[i])
			}
			if len(w.out) >= batchLen {
				emit(w.out)
				w.out = w.out[:0]
			}
		}
	}
	if n := len(times); n > 0 {
		w.closeAbove(0, times[n-1])
	}
	if len(w.out) > 0 {
		emit(w.out)
		w.out = w.out[:0]
	}
	if err := job.Add(int64(len(kind) - (next - progressChunk))); err != nil {
		panic(err)
	}
}

// closeAbove closes the open calls above depth d at time t, innermost first.
func (w *walker) closeAbove(d int, t int64) {
	for n := len(w.stack); n > d; n-- {
		f := &w.stack[n-1]
		inc := t - f.enter
		exc := inc - f.child
		if n > 1 {
			w.stack[n-2].child += inc
		}
		if w.closure {
			w.emitClosure(n-1, exc, inc)
		} else {
			w.out = append(w.out, record{f.cell, exc, inc})
		}
		w.stack = w.stack[:n-1]
		w.regions = w.regions[:n-1]
	}
}

// emitClosure emits the call on stack[d] once for the root and once for each distinct region
// of the calls below it.
func (w *walker) emitClosure(d int, exc, inc int64) {
	callee := w.stack[d].region
	w.out = append(w.out, record{w.cells.id(cellKey{-1, callee}), exc, inc})
	w.stamp++
	if w.stamp == 0 { // wrapped: forget every mark
		clear(w.seen)
		w.stamp = 1
	}
	for i := range d {
		f := &w.stack[i]
		r := f.region
		// Regions the trace defines are marked in seen, which grows to the regions the trace
		// has and never to a region number the data holds (a hand-built trace's region
		// 2000000000); others (unknown, undefined) are looked up on the stack.
		if r >= 0 && int(r) < w.cells.nreg {
			if int(r) >= len(w.seen) {
				w.seen = append(w.seen, make([]int32, int(r)+1-len(w.seen))...)
			}
			if w.seen[r] == w.stamp {
				continue
			}
			w.seen[r] = w.stamp
		} else if w.seenUnknown(i, r) {
			continue
		}
		w.out = append(w.out, record{w.cells.id(cellKey{r, callee}), exc, inc})
	}
}

// seenUnknown tells whether a frame below i has the same region r (one seen does not mark).
func (w *walker) seenUnknown(i int, r int32) bool {
	for j := range i {
		if w.stack[j].region == r {
			return true
		}
	}
	return false
}
