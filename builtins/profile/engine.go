package profile

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Exact percentiles over many processes, in mergeable stages (how the computation runs across
// machines, and here across cores): stage 1 counts every (series, cell) bucket of a subset of
// the processes in a log-linear histogram with its count, sum, minimum and maximum (subsets
// merge by adding); the refinement passes of refine.go then find the exact values of the ranks
// the percentiles need within the histogram bins that hold them. A series made of one process
// needs neither: its values are collected whole and selected (runSingle).

// The histogram has one bin per value below sub, then sub bins per power of two (subBits
// bits of the value after its leading one). Finer bins cost memory and cache in stage 1 and
// leave fewer values to refine; 2^4 measured best on the 100M-event benchmark (2^6: 1.3x,
// 2^7: 2x slower).
const (
	subBits = 4
	sub     = 1 << subBits
	nbins   = sub + (63-subBits)*sub
)

// binOf returns the histogram bin of v, monotone in v (values <= 0 share bin 0).
func binOf(v int64) int {
	if v < sub {
		return int(max(v, 0))
	}
	e := bits.Len64(uint64(v)) - subBits - 1 // shift that leaves the leading one and subBits bits
	return sub + e*sub + int(uint64(v)>>e)&(sub-1)
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
	hist          [2][]uint32 // nbins each once a value arrived
}

// add counts one measurement.
func (a *acc) add(exc, inc int64) {
	if a.count == 0 {
		a.min = [2]int64{exc, inc}
		a.max = a.min
		a.hist[0], a.hist[1] = make([]uint32, nbins), make([]uint32, nbins)
	}
	a.count++
	a.sum[0] += exc
	a.sum[1] += inc
	a.min[0], a.max[0] = min(a.min[0], exc), max(a.max[0], exc)
	a.min[1], a.max[1] = min(a.min[1], inc), max(a.max[1], inc)
	a.hist[0][binOf(exc)]++
	a.hist[1][binOf(inc)]++
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
	cells     *cells
	acc       [][]acc // [series][cell]
	repairs   trace.CallRepairs
	histBytes int64 // allocated so far
	reserved  int64 // checked to fit so far
}

// histBytes is the memory of one acc's histograms.
const histBytes = 2 * nbins * 4

// reserveStep is how much histogram memory a partial allocates between checks that it fits.
const reserveStep = 64 << 20

// charge accounts for the histograms of a new acc and checks, every reserveStep bytes, that
// the next step fits in memory.
func (p *partial) charge() {
	if p.histBytes >= p.reserved {
		if err := work.Reserve("profile histograms", reserveStep); err != nil {
			panic(err)
		}
		p.reserved += reserveStep
	}
	p.histBytes += histBytes
}

// at returns the acc of cell in series s, making room for it.
func (p *partial) at(s int, cell int32) *acc {
	row := p.acc[s]
	if int(cell) >= len(row) {
		row = append(row, make([]acc, int(cell)+1-len(row))...)
		p.acc[s] = row
	}
	return &row[cell]
}

// count adds the calls of process proc, of series s, walked by wk (whose cells are p's).
func (p *partial) count(wk *walker, proc *trace.Process, s int, job *work.Job) {
	wk.walk(proc, job, func(recs []record) {
		p.at(s, int32(len(p.cells.keys))-1) // room for every cell met so far
		row := p.acc[s]
		for _, r := range recs {
			a := &row[r.cell]
			if a.count == 0 {
				p.charge()
			}
			a.add(r.exc, r.inc)
		}
	})
}

// mergePartials merges stage-1 partials into one with the numbering of cells (those of the
// first partial first).
func mergePartials(nreg int, parts []*partial) *partial {
	out := &partial{cells: newCells(nreg), acc: make([][]acc, len(parts[0].acc))}
	for _, p := range parts {
		out.absorb(p)
	}
	for s := range out.acc { // every series sees every cell
		out.at(s, int32(len(out.cells.keys))-1)
	}
	return out
}

// absorb adds o, stage 1 over other processes with the same series, into p (the merge of
// the partials of "profile.boxes").
func (p *partial) absorb(o *partial) {
	p.repairs = p.repairs.Add(o.repairs)
	for s, row := range o.acc {
		for c := range row {
			if row[c].count > 0 {
				p.at(s, p.cells.id(o.cells.keys[c])).merge(&row[c])
			}
		}
	}
}

// engine computes the per-series distributions of every cell and function of a set of
// processes.
type engine struct {
	tr      *trace.Trace // set when the trace's events are elsewhere (part.Remote): rounds run there
	fn      string
	procs   []*trace.Process
	series  []int // series of procs[i]
	nseries int
	nreg    int  // regions of the trace
	single  bool // every series is one process: exact local selection, no histograms
	closure bool
	events  int64
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

// newResult returns a result over cells and funcs with every Dist empty.
func newResult(nseries int, keys []cellKey, funcs []int32) *result {
	r := &result{cells: keys, funcs: funcs, cell: make([][][2]Dist, nseries), fun: make([][][2]Dist, nseries)}
	empty := summarize(nil)
	for s := range nseries {
		r.cell[s] = make([][2]Dist, len(keys))
		for c := range r.cell[s] {
			r.cell[s][c] = [2]Dist{empty, empty}
		}
		r.fun[s] = make([][2]Dist, len(funcs))
		for f := range r.fun[s] {
			r.fun[s][f] = [2]Dist{empty, empty}
		}
	}
	return r
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

// pass runs f for every process on all cores, each worker with its own state index w, taking
// processes in order from a shared counter; a job named what reports progress.
func (e *engine) pass(what string, f func(w, i int, job *work.Job)) {
	job := work.Start(e.fn+": "+what, e.events, "events")
	defer job.Done()
	var next atomic.Int64
	work.Parallel(e.workers(), func(w int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(e.procs) {
				return
			}
			f(w, i, job)
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
		parts[w] = &partial{cells: newCells(e.nreg), acc: make([][]acc, e.nseries)}
		walkers[w] = newWalker(parts[w].cells, e.closure)
	}
	e.pass("counting calls", func(w, i int, job *work.Job) {
		parts[w].count(walkers[w], e.procs[i], e.series[i], job)
	})
	for w := range parts {
		parts[w].repairs = walkers[w].repairs
	}
	return parts
}

// runMerged is the staged computation: histograms, then refinement of the needed bins.
func (e *engine) runMerged() *result {
	return e.finish(mergePartials(e.nreg, e.stage1()))
}

// finish computes the result from st, stage 1 over every process (every series with an acc
// for every cell): the refinement of the needed bins, then the distributions.
func (e *engine) finish(st *partial) *result {
	keys := st.cells.keys
	funcs, funcOf := e.funcsOf(keys)
	nc := len(keys)
	r := newResult(e.nseries, keys, funcs)
	r.repairs = st.repairs
	buckets := make([][]acc, e.nseries) // cells, then functions (merged from their cells)
	for s := range buckets {
		buckets[s] = append(st.acc[s][:nc:nc], make([]acc, len(funcs))...)
		for c := range keys {
			if f := funcOf[c]; f >= 0 {
				buckets[s][nc+int(f)].merge(&st.acc[s][c])
			}
		}
	}
	// a function with calls from one cell only (in a series) has that cell's values
	same := make([][]int, e.nseries)
	for s := range same {
		same[s] = make([]int, len(buckets[s]))
		for b := range same[s] {
			same[s][b] = -1
		}
		only := make([]int, len(funcs))
		for f := range only {
			only[f] = -1
		}
		for c := range keys {
			if f := funcOf[c]; f >= 0 && st.acc[s][c].count > 0 {
				if only[f] == -1 {
					only[f] = c
				} else {
					only[f] = -2
				}
			}
		}
		for f, c := range only {
			if c >= 0 {
				same[s][nc+f] = c
			}
		}
	}
	vals := e.refine(st.cells, funcOf, buckets, same)
	for s := range e.nseries {
		for b := range buckets[s] {
			a := &buckets[s][b]
			if a.count == 0 {
				continue
			}
			var d [2]Dist
			for m := range 2 {
				d[m] = a.dist(m)
				d[m].setPercentiles(percentilesOf(a.count, vals[s][b][m]))
			}
			if b < nc {
				r.cell[s][b] = d
			} else {
				r.fun[s][b-nc] = d
			}
		}
	}
	return r
}

// selector is a worker's reusable state for single-process series.
type selector struct {
	recs             []record
	exc, inc         []int64
	count, pos, from []int
	order            []int32
}

// runSingle computes the exact distributions of series made of one process each: the
// process's measurements are collected whole and selected, with no histograms.
func (e *engine) runSingle() *result {
	type perProc struct {
		cells [][2]Dist // by the worker's cell ids at the time of the walk (ids only grow)
		funcs map[int32][2]Dist
	}
	out := make([]perProc, len(e.procs))
	owner := make([]int, len(e.procs))
	workers := e.workers()
	walkers := make([]*walker, workers)
	sels := make([]selector, workers)
	for w := range walkers {
		walkers[w] = newWalker(newCells(e.nreg), e.closure)
	}
	e.pass("collecting calls", func(w, i int, job *work.Job) {
		owner[i] = w
		sel := &sels[w]
		recs := sel.recs[:0]
		walkers[w].walk(e.procs[i], job, func(batch []record) { recs = append(recs, batch...) })
		sel.recs = recs
		out[i].cells, out[i].funcs = e.selectProcess(sel, walkers[w].cells.keys)
	})
	// one numbering over the workers' cells
	cs := newCells(e.nreg)
	var repairs trace.CallRepairs
	for _, wk := range walkers {
		repairs = repairs.Add(wk.repairs)
		for _, k := range wk.cells.keys {
			cs.id(k)
		}
	}
	funcs, _ := e.funcsOf(cs.keys)
	r := newResult(e.nseries, cs.keys, funcs)
	r.repairs = repairs
	for i := range e.procs {
		s := e.series[i]
		keys := walkers[owner[i]].cells.keys
		for c, d := range out[i].cells {
			if d[0].Count > 0 {
				r.cell[s][cs.id(keys[c])] = d
			}
		}
		for fr, d := range out[i].funcs {
			j, _ := slices.BinarySearch(funcs, fr)
			r.fun[s][j] = d
		}
	}
	return r
}

// grow returns x with length n, reusing its storage when large enough.
func grow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n, n+n/4)
	}
	return x[:n]
}

// selectProcess turns one process's records into the Dists of its cells (indexed by cell id,
// keys the walker's cell keys) and of its functions (by region id).
func (e *engine) selectProcess(sel *selector, keys []cellKey) ([][2]Dist, map[int32][2]Dist) {
	recs := sel.recs
	nc := len(keys)
	// order the cells by function, then id, so that a function's cells are contiguous
	sel.order = grow(sel.order, nc)
	for c := range sel.order {
		sel.order[c] = int32(c)
	}
	fkey := func(c int32) int64 {
		if !e.contributes(keys[c]) {
			return math.MaxInt64
		}
		return int64(keys[c].callee)
	}
	slices.SortFunc(sel.order, func(a, b int32) int {
		if fa, fb := fkey(a), fkey(b); fa != fb {
			if fa < fb {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	sel.count, sel.pos, sel.from = grow(sel.count, nc), grow(sel.pos, nc), grow(sel.from, nc+1)
	clear(sel.count)
	for _, r := range recs {
		sel.count[r.cell]++
	}
	sel.from[0] = 0
	for j, c := range sel.order {
		sel.from[j+1] = sel.from[j] + sel.count[c]
		sel.pos[c] = sel.from[j]
	}
	sel.exc, sel.inc = grow(sel.exc, len(recs)), grow(sel.inc, len(recs))
	exc, inc, pos := sel.exc, sel.inc, sel.pos
	for _, r := range recs {
		exc[pos[r.cell]], inc[pos[r.cell]] = r.exc, r.inc
		pos[r.cell]++
	}
	cellD := make([][2]Dist, nc)
	funcD := map[int32][2]Dist{}
	for j, c := range sel.order {
		if lo, hi := sel.from[j], sel.from[j+1]; hi > lo {
			cellD[c] = [2]Dist{summarize(exc[lo:hi]), summarize(inc[lo:hi])}
		}
	}
	// a function's values: its contributing cells, contiguous (selection above only permuted
	// within each cell)
	for j := 0; j < nc; {
		c := sel.order[j]
		if !e.contributes(keys[c]) {
			break
		}
		k := j + 1
		for k < nc && e.contributes(keys[sel.order[k]]) && keys[sel.order[k]].callee == keys[c].callee {
			k++
		}
		if lo, hi := sel.from[j], sel.from[k]; k == j+1 && hi > lo {
			funcD[keys[c].callee] = cellD[c] // one cell: the same values
		} else if hi > lo {
			funcD[keys[c].callee] = [2]Dist{summarize(exc[lo:hi]), summarize(inc[lo:hi])}
		}
		j = k
	}
	return cellD, funcD
}
