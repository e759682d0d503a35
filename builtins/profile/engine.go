package profile

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Exact percentiles over many processes, in two mergeable stages (how the computation runs
// across machines, and here across cores):
//
//  1. Every subset of processes counts its calls per (series, cell): count, sum, min, max and a
//     log-linear histogram of the values (16 bins per power of two). Subsets merge by adding.
//  2. From the merged histograms, the bin holding each needed rank (and its rank within the
//     bin) is known. Every subset collects the values that fall into a needed bin; the
//     collections merge by concatenation, and a selection within each bin's values gives the
//     exact rank.
//
// A series made of one process needs neither: its values are collected whole and selected.

// nbins is the number of histogram bins: one per value below 16, then 16 per power of two.
const nbins = 16 + 59*16

// binOf returns the histogram bin of v, monotone in v (values <= 0 share bin 0).
func binOf(v int64) int {
	if v < 16 {
		return int(max(v, 0))
	}
	e := bits.Len64(uint64(v))
	return 16 + (e-5)*16 + int(uint64(v)>>(e-5))&15
}

// metrics: index 0 is exclusive time, 1 inclusive time.
const (
	mExc = 0
	mInc = 1
)

// acc is stage 1 of one (series, cell) or (series, function) bucket.
type acc struct {
	count         int64
	sum, min, max [2]int64
	hist          [2][]uint32 // nbins each once a value arrived; nil in single-process series
}

func (a *acc) add(exc, inc int64, hist bool) {
	if a.count == 0 {
		a.min = [2]int64{exc, inc}
		a.max = a.min
		if hist {
			a.hist[0], a.hist[1] = make([]uint32, nbins), make([]uint32, nbins)
		}
	}
	a.count++
	a.sum[0] += exc
	a.sum[1] += inc
	a.min[0], a.max[0] = min(a.min[0], exc), max(a.max[0], exc)
	a.min[1], a.max[1] = min(a.min[1], inc), max(a.max[1], inc)
	if hist {
		a.hist[0][binOf(exc)]++
		a.hist[1][binOf(inc)]++
	}
}

// merge adds o into a.
func (a *acc) merge(o *acc) {
	if o.count == 0 {
		return
	}
	if a.count == 0 {
		a.min, a.max = o.min, o.max
	}
	a.count += o.count
	for m := range 2 {
		a.sum[m] += o.sum[m]
		a.min[m], a.max[m] = min(a.min[m], o.min[m]), max(a.max[m], o.max[m])
		if o.hist[m] == nil {
			continue
		}
		if a.hist[m] == nil {
			a.hist[m] = make([]uint32, nbins)
		}
		for b, n := range o.hist[m] {
			a.hist[m][b] += n
		}
	}
}

// dist returns the Dist of metric m without percentiles.
func (a *acc) dist(m int) Dist {
	return Dist{Count: a.count, Sum: a.sum[m], Min: a.min[m], Max: a.max[m]}
}

// partial is stage 1 over a subset of processes: per series and cell an acc, in the subset's
// own cell numbering.
type partial struct {
	cells   *cells
	acc     [][]acc // [series][cell]
	repairs trace.CallRepairs
}

// grow makes room for every cell of p.cells in series s.
func (p *partial) at(s int, cell int32) *acc {
	row := p.acc[s]
	if int(cell) >= len(row) {
		row = append(row, make([]acc, int(cell)+1-len(row))...)
		p.acc[s] = row
	}
	return &row[cell]
}

// mergePartials merges stage-1 partials into one with the numbering of cells (those of the
// first partial first).
func mergePartials(parts []*partial) *partial {
	out := &partial{cells: newCells(), acc: make([][]acc, len(parts[0].acc))}
	for _, p := range parts {
		out.repairs = out.repairs.Add(p.repairs)
		for s, row := range p.acc {
			for c := range row {
				if row[c].count > 0 {
					out.at(s, out.cells.id(p.cells.keys[c])).merge(&row[c])
				}
			}
		}
	}
	for s := range out.acc { // every series sees every cell
		out.at(s, int32(len(out.cells.keys))-1)
	}
	return out
}

// plan is stage 2's question: per series, bucket and metric, which bins hold a needed rank.
// Buckets are the cells, then the functions (index len(cells) + function).
type plan struct {
	want [][][2][]int16 // [series][bucket][metric]: slot+1 of a needed bin, 0 if not needed; nil if none
}

// candidates is stage 2 over a subset: the values in needed bins, per series, cell, metric and
// slot of the cell's plan (bin).
type candidates struct {
	vals [][][2][][]int64
}

func (c *candidates) merge(o *candidates) {
	for s := range c.vals {
		for b := range c.vals[s] {
			for m := range 2 {
				for k := range c.vals[s][b][m] {
					c.vals[s][b][m][k] = append(c.vals[s][b][m][k], o.vals[s][b][m][k]...)
				}
			}
		}
	}
}

// neededBins lists, for hist, the bins that hold the ranks the percentiles of n values need.
func neededBins(hist []uint32, n int64) []int {
	var out []int
	for _, k := range neededRanks(n) {
		if b := binOfRank(hist, k); len(out) == 0 || out[len(out)-1] != b {
			out = append(out, b)
		}
	}
	return out
}

// neededRanks returns the ranks (ascending, distinct) the five percentiles of n values read.
func neededRanks(n int64) []int64 {
	var ks []int64
	for _, p := range boxPercentiles {
		k, f := rankOf(n, p)
		ks = append(ks, k)
		if f > 0 {
			ks = append(ks, k+1)
		}
	}
	return slices.Compact(ks)
}

// binOfRank returns the bin of the value of rank k.
func binOfRank(hist []uint32, k int64) int {
	var cum int64
	for b, c := range hist {
		cum += int64(c)
		if k < cum {
			return b
		}
	}
	panic(fmt.Sprintf("profile: rank %d beyond the %d values of a histogram", k, cum))
}

// percentilesFromBins computes the percentiles of the n values counted in hist, given the
// values of the needed bins (vals[slot], slot as in want).
func percentilesFromBins(hist []uint32, n int64, want []int16, vals [][]int64) [5]float64 {
	// cumulative count before each needed bin
	valueAt := func(k int64) int64 {
		var cum int64
		for b, c := range hist {
			if k < cum+int64(c) {
				v := vals[want[b]-1]
				r := int(k - cum)
				selectRanks(v, []int{r})
				return v[r]
			}
			cum += int64(c)
		}
		panic("profile: rank beyond histogram")
	}
	var ps [5]float64
	for i, p := range boxPercentiles {
		k, f := rankOf(n, p)
		if f == 0 {
			ps[i] = float64(valueAt(k))
		} else {
			ps[i] = lerp(valueAt(k), valueAt(k+1), f)
		}
	}
	return ps
}

// engine computes the per-series distributions of every cell and function of a set of
// processes.
type engine struct {
	fn      string
	procs   []*trace.Process
	series  []int // series of procs[i]
	nseries int
	single  bool // every series is one process: exact local selection, no histograms
	closure bool
	job     *work.Job
}

// result is what the engine computed: per series, the exclusive and inclusive Dist of each
// cell and of each function (region id order of funcs).
type result struct {
	cells   []cellKey
	funcs   []int32
	cell    [][][2]Dist // [series][cell]
	fun     [][][2]Dist // [series][function]
	repairs trace.CallRepairs
	events  int64
}

// contributes tells whether a cell's calls are the calls of its callee's function row: every
// cell in the direct matrix; in the closure only the root's cells (others repeat the calls).
func (e *engine) contributes(k cellKey) bool { return !e.closure || k.caller == -1 }

// funcsOf returns the functions (callees, ascending) and, per cell, its function index or -1.
func (e *engine) funcsOf(keys []cellKey) ([]int32, []int32) {
	var fs []int32
	for _, k := range keys {
		if e.contributes(k) {
			fs = append(fs, k.callee)
		}
	}
	slices.Sort(fs)
	fs = slices.Compact(fs)
	of := make([]int32, len(keys))
	for i, k := range keys {
		of[i] = -1
		if e.contributes(k) {
			j, _ := slices.BinarySearch(fs, k.callee)
			of[i] = int32(j)
		}
	}
	return fs, of
}

func (e *engine) workers() int { return min(len(e.procs), 2) }

// forEach runs f for every process on all cores, each worker with its own walker and state
// index w, taking processes in order from a shared counter.
func (e *engine) forEach(f func(w int, i int)) {
	var next atomic.Int64
	work.Parallel(e.workers(), func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(e.procs) {
				return
			}
			f(w, i)
		}
	})
}

func (e *engine) run() *result {
	if e.single {
		return e.runSingle()
	}
	return e.runMerged()
}

// stage1 runs stage 1 over every process, one partial per worker.
func (e *engine) stage1() []*partial {
	parts := make([]*partial, e.workers())
	walkers := make([]*walker, len(parts))
	for w := range parts {
		parts[w] = &partial{cells: newCells(), acc: make([][]acc, e.nseries)}
		walkers[w] = newWalker(parts[w].cells, e.closure)
	}
	e.forEach(func(w, i int) {
		p, wk := parts[w], walkers[w]
		s := e.series[i]
		wk.walk(e.procs[i], e.job, func(cell int32, exc, inc int64) { p.at(s, cell).add(exc, inc, true) })
	})
	for w := range parts {
		parts[w].repairs = walkers[w].repairs
	}
	return parts
}

// runMerged is the two-stage computation.
func (e *engine) runMerged() *result {
	st := mergePartials(e.stage1())
	keys := st.cells.keys
	funcs, funcOf := e.funcsOf(keys)
	nc := len(keys)
	r := &result{cells: keys, funcs: funcs, repairs: st.repairs,
		cell: make([][][2]Dist, e.nseries), fun: make([][][2]Dist, e.nseries)}

	// function accs from their cells
	fa := make([][]acc, e.nseries)
	for s := range fa {
		fa[s] = make([]acc, len(funcs))
		for c := range keys {
			if f := funcOf[c]; f >= 0 {
				fa[s][f].merge(&st.acc[s][c])
			}
		}
	}
	// the plan: needed bins of every bucket; a cell also collects its function's bins
	pl := plan{want: make([][][2][]int16, e.nseries)}
	var need int64
	for s := range pl.want {
		pl.want[s] = make([][2][]int16, nc)
		mark := func(c int, m int, a *acc) {
			for _, b := range neededBins(a.hist[m], a.count) {
				w := &pl.want[s][c][m]
				if *w == nil {
					*w = make([]int16, nbins)
				}
				if (*w)[b] == 0 {
					(*w)[b] = int16(slices.Max(*w) + 1)
					need += int64(st.acc[s][c].hist[m][b])
				}
			}
		}
		for c := range keys {
			for m := range 2 {
				if a := &st.acc[s][c]; a.count > 0 {
					mark(c, m, a)
				}
				if f := funcOf[c]; f >= 0 && fa[s][f].count > 0 && st.acc[s][c].count > 0 {
					mark(c, m, &fa[s][f])
				}
			}
		}
	}
	if err := work.Reserve("percentile candidates", 8*need); err != nil {
		panic(err)
	}
	cands := e.stage2(st.cells, pl)

	for s := range e.nseries {
		r.cell[s] = make([][2]Dist, nc)
		r.fun[s] = make([][2]Dist, len(funcs))
		for c := range keys {
			a := &st.acc[s][c]
			for m := range 2 {
				d := a.dist(m)
				if a.count > 0 {
					d.setPercentiles(percentilesFromBins(a.hist[m], a.count, pl.want[s][c][m], cands.vals[s][c][m]))
				} else {
					d = summarize(nil)
				}
				r.cell[s][c][m] = d
			}
		}
		for f := range funcs {
			a := &fa[s][f]
			for m := range 2 {
				d := a.dist(m)
				if a.count == 0 {
					r.fun[s][f][m] = summarize(nil)
					continue
				}
				// the function's values in bin b: its cells' candidates of bin b
				vals := make([][]int64, 0, 8)
				want := make([]int16, nbins)
				for _, b := range neededBins(a.hist[m], a.count) {
					var v []int64
					for c := range keys {
						if funcOf[c] == int32(f) && pl.want[s][c][m] != nil {
							if slot := pl.want[s][c][m][b]; slot > 0 {
								v = append(v, cands.vals[s][c][m][slot-1]...)
							}
						}
					}
					vals = append(vals, v)
					want[b] = int16(len(vals))
				}
				d.setPercentiles(percentilesFromBins(a.hist[m], a.count, want, vals))
				r.fun[s][f][m] = d
			}
		}
	}
	return r
}

// stage2 collects the values of the needed bins, one collection per worker, merged.
func (e *engine) stage2(c *cells, pl plan) *candidates {
	parts := make([]*candidates, e.workers())
	walkers := make([]*walker, len(parts))
	for w := range parts {
		cd := &candidates{vals: make([][][2][][]int64, e.nseries)}
		for s := range cd.vals {
			cd.vals[s] = make([][2][][]int64, len(pl.want[s]))
			for b := range pl.want[s] {
				for m := range 2 {
					if pl.want[s][b][m] != nil {
						cd.vals[s][b][m] = make([][]int64, slices.Max(pl.want[s][b][m]))
					}
				}
			}
		}
		parts[w] = cd
		// a walker over the merged numbering: every cell exists already
		walkers[w] = newWalker(&cells{ids: c.ids, keys: c.keys}, e.closure)
	}
	e.job.Set(0)
	e.forEach(func(w, i int) {
		cd, s := parts[w], e.series[i]
		want := pl.want[s]
		vals := cd.vals[s]
		walkers[w].walk(e.procs[i], e.job, func(cell int32, exc, inc int64) {
			wc := &want[cell]
			if wc[mExc] != nil {
				if slot := wc[mExc][binOf(exc)]; slot > 0 {
					vals[cell][mExc][slot-1] = append(vals[cell][mExc][slot-1], exc)
				}
			}
			if wc[mInc] != nil {
				if slot := wc[mInc][binOf(inc)]; slot > 0 {
					vals[cell][mInc][slot-1] = append(vals[cell][mInc][slot-1], inc)
				}
			}
		})
	})
	for _, p := range parts[1:] {
		parts[0].merge(p)
	}
	return parts[0]
}

// record is one measurement of a single-process series.
type record struct {
	cell     int32
	exc, inc int64
}

// runSingle computes the exact distributions of series made of one process each: the
// process's measurements are collected whole and selected, with no histograms.
func (e *engine) runSingle() *result {
	cs := newCells()
	type perProc struct {
		cells [][2]Dist // by cell id at the time of the walk (ids only grow)
		funcs map[int32][2]Dist
	}
	out := make([]perProc, len(e.procs))
	workers := e.workers()
	walkers := make([]*walker, workers)
	bufs := make([][]record, workers)
	// one shared numbering of cells: walkers take turns through a lock-free copy is not needed,
	// each worker numbers its own cells and they are mapped at the end.
	wcells := make([]*cells, workers)
	for w := range walkers {
		wcells[w] = newCells()
		walkers[w] = newWalker(wcells[w], e.closure)
	}
	owner := make([]int, len(e.procs))
	e.forEach(func(w, i int) {
		owner[i] = w
		recs := bufs[w][:0]
		walkers[w].walk(e.procs[i], e.job, func(cell int32, exc, inc int64) {
			recs = append(recs, record{cell, exc, inc})
		})
		bufs[w] = recs
		out[i].cells, out[i].funcs = e.selectProcess(recs, wcells[w].keys)
	})
	var repairs trace.CallRepairs
	for _, wk := range walkers {
		repairs = repairs.Add(wk.repairs)
	}
	// merged numbering
	for _, wc := range wcells {
		for _, k := range wc.keys {
			cs.id(k)
		}
	}
	funcs, _ := e.funcsOf(cs.keys)
	r := &result{cells: cs.keys, funcs: funcs, repairs: repairs,
		cell: make([][][2]Dist, e.nseries), fun: make([][][2]Dist, e.nseries)}
	empty := summarize(nil)
	for s := range e.nseries {
		r.cell[s] = make([][2]Dist, len(cs.keys))
		for c := range r.cell[s] {
			r.cell[s][c] = [2]Dist{empty, empty}
		}
		r.fun[s] = make([][2]Dist, len(funcs))
		for f := range r.fun[s] {
			r.fun[s][f] = [2]Dist{empty, empty}
		}
	}
	for i := range e.procs {
		s := e.series[i]
		keys := wcells[owner[i]].keys
		for c, d := range out[i].cells {
			if d[0].Count > 0 {
				r.cell[s][cs.ids[keys[c]]] = d
			}
		}
		for fr, d := range out[i].funcs {
			j, _ := slices.BinarySearch(funcs, fr)
			r.fun[s][j] = d
		}
	}
	return r
}

// selectProcess turns one process's records into the Dists of its cells (indexed by cell id,
// keys the walker's cell keys) and of its functions (by region id).
func (e *engine) selectProcess(recs []record, keys []cellKey) ([][2]Dist, map[int32][2]Dist) {
	nc := 0
	for _, r := range recs {
		nc = max(nc, int(r.cell)+1)
	}
	// order the cells by function, then id, so that a function's cells are contiguous
	order := make([]int32, nc)
	for c := range order {
		order[c] = int32(c)
	}
	fkey := func(c int32) int64 {
		if !e.contributes(keys[c]) {
			return math.MaxInt64
		}
		return int64(keys[c].callee)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if fa, fb := fkey(a), fkey(b); fa != fb {
			if fa < fb {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	start := make([]int, nc+1) // start of cell order[j]'s values at start[j]
	pos := make([]int, nc)
	count := make([]int, nc)
	for _, r := range recs {
		count[r.cell]++
	}
	for j, c := range order {
		start[j+1] = start[j] + count[c]
		pos[c] = start[j]
	}
	exc, inc := make([]int64, len(recs)), make([]int64, len(recs))
	for _, r := range recs {
		exc[pos[r.cell]], inc[pos[r.cell]] = r.exc, r.inc
		pos[r.cell]++
	}
	cellD := make([][2]Dist, nc)
	for j, c := range order {
		lo, hi := start[j], start[j+1]
		if hi > lo {
			cellD[c] = [2]Dist{summarize(exc[lo:hi]), summarize(inc[lo:hi])}
		}
	}
	funcD := map[int32][2]Dist{}
	for j := 0; j < len(order); {
		c := order[j]
		if !e.contributes(keys[c]) {
			break
		}
		k := j
		for k < len(order) && e.contributes(keys[order[k]]) && keys[order[k]].callee == keys[c].callee {
			k++
		}
		lo, hi := start[j], start[k]
		if hi > lo {
			funcD[keys[c].callee] = [2]Dist{summarize(exc[lo:hi]), summarize(inc[lo:hi])}
		}
		j = k
	}
	return cellD, funcD
}
