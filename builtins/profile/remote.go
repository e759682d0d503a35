package profile

// Boxes and CallMatrix on a trace whose events are elsewhere (part.Remote: the ranks of an MPI
// job hold them). Every pass over the events runs where the events are, as a method of the
// per-process contract, and the notebook builds the same result from the merged partials and
// the trace's definitions:
//
//   - series of one process each (WithPerProcess): "profile.single", one round; each process's
//     values are collected and selected where they are, and the partial is the per-series
//     distributions of its cells and functions, merged by concatenation;
//   - series of many processes: "profile.boxes" (stage 1, boxpart.go), then as many rounds of
//     "profile.refine" as the refinement needs (one per pass of refine.go, usually one or two):
//     the root plans the spans from the merged histograms, each rank counts or collects the
//     values of its processes in them, and the counts add, the values concatenate.

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

func init() {
	part.Register(singleName, buildSingleMethod, sampleSingle)
	part.Register(refineName, buildRefineMethod, sampleRefine)
}

const (
	singleName = "profile.single"
	refineName = "profile.refine"
)

// seriesByIndex returns the series of the engine's processes indexed by trace.Process.Index
// (-1 for processes not analysed), the parameter of the methods.
func (e *engine) seriesByIndex() []int {
	n := 0
	for _, p := range e.procs {
		n = max(n, p.Index+1)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	for i, p := range e.procs {
		out[p.Index] = e.series[i]
	}
	return out
}

// runRemote is run on a trace whose events are elsewhere: every pass runs through the trace's
// executor (part.Run).
func (e *engine) runRemote() *result {
	series := e.seriesByIndex()
	if e.single {
		p, err := part.Run(e.tr, e.procs, &singleMethod{closure: e.closure, series: int32s(series)})
		if err != nil {
			failErr(e.fn, err)
		}
		return e.resultOfSingle(p.(*singlePart))
	}
	p, err := part.Run(e.tr, e.procs, BoxesMethod(series, e.closure))
	if err != nil {
		failErr(e.fn, err)
	}
	b := p.(*boxPart)
	st := b.p
	if len(st.acc) != e.nseries {
		fail(e.fn, "the job returned %d series, want %d", len(st.acc), e.nseries)
	}
	if n := len(st.cells.keys); n > 0 {
		for s := range st.acc { // every series sees every cell
			st.at(s, int32(n)-1)
		}
	}
	r := e.finish(st)
	r.events = b.events
	return r
}

func int32s(s []int) []int32 {
	out := make([]int32, len(s))
	for i, v := range s {
		out[i] = int32(v)
	}
	return out
}

// refineRemote runs one refinement pass as the method "profile.refine" where the events are.
func (e *engine) refineRemote(c *cells, funcOf []int32, sets [][][2]spanSet, spans []*span) ([][]uint32, [][]int64) {
	m := &refineMethod{closure: e.closure, series: int32s(e.seriesByIndex()), keys: c.keys, funcOf: funcOf, sets: sets}
	m.spans = make([]spanDef, len(spans))
	for i, sp := range spans {
		m.spans[i] = spanDef{lo: sp.lo, hi: sp.hi, step: sp.step}
	}
	p, err := part.Run(e.tr, e.procs, m)
	if err != nil {
		failErr(e.fn, err)
	}
	r := p.(*refinePart)
	return r.counts, r.collected
}

// singleMethod is "profile.single": the exact distributions of series of one process each.
type singleMethod struct {
	closure bool
	series  []int32 // by trace.Process.Index; -1: left out; each series at most once
}

func (m *singleMethod) Name() string { return singleName }
func (m *singleMethod) Rounds() int  { return 1 }

func (m *singleMethod) Params() []byte {
	e := part.Enc{}
	e.Uint(1)
	e.Bool(m.closure)
	part.Ints(&e, m.series)
	return e.B
}

func buildSingleMethod(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", 1)
	m := &singleMethod{closure: d.Bool(), series: part.ReadInts[int32](d)}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(singleName, "parameters: %v", err)
	}
	seen := map[int32]bool{}
	for i, s := range m.series {
		if s < -1 || s >= maxSeries || s >= 0 && seen[s] {
			return nil, work.Errorf(singleName, "parameters: series %d of process %d", s, i)
		}
		seen[s] = s >= 0
	}
	return m, nil
}

// sampleSingle: every process its own series, and every other process left out.
func sampleSingle(tr *trace.Trace) []part.Method {
	var each, odd []int32
	for _, p := range tr.Processes() {
		for len(each) <= p.Index {
			each, odd = append(each, -1), append(odd, -1)
		}
		each[p.Index] = int32(p.Index)
		if p.Index%2 == 1 {
			odd[p.Index] = int32(p.Index / 2)
		}
	}
	return []part.Method{&singleMethod{series: each}, &singleMethod{closure: true, series: odd}}
}

func (m *singleMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(singleName, "round %d of a one-round method", round)
	}
	if tr == nil || tr.Defs == nil {
		return nil, work.Errorf(singleName, "the trace is nil")
	}
	out := &singlePart{nreg: len(tr.Defs.Regions)}
	for i, p := range procs {
		if p == nil || p.Trace != tr {
			return nil, work.Errorf(singleName, "process %d is not a process of the trace", i)
		}
		if seriesOfIndex(m.series, p.Index) >= 0 {
			if err := trace.EventsHere(singleName, p); err != nil {
				return nil, err
			}
			out.events += int64(p.Len())
		}
	}
	err := work.Try(func() {
		job := work.Start(singleName, out.events, "events")
		defer job.Done()
		e := &engine{closure: m.closure}
		wk := newWalker(newCells(out.nreg), m.closure)
		var sel selector
		for _, p := range procs {
			s := seriesOfIndex(m.series, p.Index)
			if s < 0 {
				continue
			}
			recs := sel.recs[:0]
			wk.walk(p, job, func(batch []record) { recs = append(recs, batch...) })
			sel.recs = recs
			cellD, funcD := e.selectProcess(&sel, wk.cells.keys)
			one := singleSeries{series: s}
			for c, d := range cellD {
				if d[0].Count > 0 {
					one.cells = append(one.cells, cellDist{wk.cells.keys[c], d})
				}
			}
			slices.SortFunc(one.cells, func(a, b cellDist) int { return compareKeys(a.key, b.key) })
			for r, d := range funcD {
				one.funcs = append(one.funcs, funcDist{r, d})
			}
			slices.SortFunc(one.funcs, func(a, b funcDist) int { return cmp.Compare(a.region, b.region) })
			out.series = append(out.series, one)
		}
		out.repairs = wk.repairs
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out.series, func(a, b singleSeries) int { return cmp.Compare(a.series, b.series) })
	return out, nil
}

func compareKeys(a, b cellKey) int {
	return cmp.Or(cmp.Compare(a.caller, b.caller), cmp.Compare(a.callee, b.callee))
}

func (m *singleMethod) Decide(round int, _ part.Partial) ([]byte, error) {
	return nil, work.Errorf(singleName, "no decision after round %d of a one-round method", round)
}

func (m *singleMethod) Decode(round int, data []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(singleName, "round %d of a one-round method", round)
	}
	return decodeSinglePart(data)
}

// singlePart is the partial of "profile.single": per series (one process each), the
// distributions of its cells and functions.
type singlePart struct {
	nreg    int
	events  int64
	repairs trace.CallRepairs
	series  []singleSeries // ascending by series
}

type singleSeries struct {
	series int32
	cells  []cellDist // by (caller, callee)
	funcs  []funcDist // by region
}

type cellDist struct {
	key cellKey
	d   [2]Dist
}

type funcDist struct {
	region int32
	d      [2]Dist
}

// Merge absorbs o, the series of other processes.
func (p *singlePart) Merge(o part.Partial) error {
	x, ok := o.(*singlePart)
	if !ok || x == nil {
		return part.Mismatch(singleName, p, o)
	}
	if x.nreg != p.nreg {
		return work.Errorf(singleName+".Merge", "partials of %d and %d regions", p.nreg, x.nreg)
	}
	out, err := part.MergeSorted(singleName+".Merge", "series", p.series, x.series, func(s singleSeries) int { return int(s.series) })
	if err != nil {
		return err
	}
	p.series = out
	p.events += x.events
	p.repairs = p.repairs.Add(x.repairs)
	return nil
}

func encodeDists(e *part.Enc, d [2]Dist) {
	e.Uint(uint64(d[0].Count))
	for m := range 2 {
		e.Int(d[m].Sum)
		e.Int(d[m].Min)
		e.Int(d[m].Max)
		for _, v := range d[m].Percentiles() {
			e.Float(v)
		}
	}
}

func decodeDists(d *part.Dec) [2]Dist {
	var out [2]Dist
	n := d.Uint()
	if d.Err() == nil && (n == 0 || n > 1<<62) {
		d.Fail("a distribution of %d values", n)
	}
	for m := range 2 {
		out[m].Count = int64(n)
		out[m].Sum, out[m].Min, out[m].Max = d.Int(), d.Int(), d.Int()
		var ps [5]float64
		for k := range ps {
			ps[k] = d.Float()
		}
		out[m].setPercentiles(ps)
	}
	return out
}

// MarshalBinary encodes the series in order, each with its cells and functions in order.
func (p *singlePart) MarshalBinary() ([]byte, error) {
	e := part.Enc{}
	e.Uint(1)
	e.Uint(uint64(p.nreg))
	e.Int(p.events)
	r := p.repairs
	for _, v := range []int64{r.OuterLeaves, r.ClosedInside, r.UnmatchedLeaves, r.LeavesWithoutCall, r.OpenAtEnd} {
		e.Int(v)
	}
	e.Uint(uint64(len(p.series)))
	for _, s := range p.series {
		e.Uint(uint64(s.series))
		e.Uint(uint64(len(s.cells)))
		for _, c := range s.cells {
			e.Int(int64(c.key.caller))
			e.Uint(uint64(c.key.callee))
			encodeDists(&e, c.d)
		}
		e.Uint(uint64(len(s.funcs)))
		for _, f := range s.funcs {
			e.Uint(uint64(f.region))
			encodeDists(&e, f.d)
		}
	}
	return e.B, nil
}

func decodeSinglePart(data []byte) (*singlePart, error) {
	d := part.NewDec(data)
	d.Version("per-process profile", 1)
	nreg := d.Uint()
	if d.Err() == nil && nreg > 1<<31-1 {
		d.Fail("%d regions", nreg)
	}
	p := &singlePart{nreg: int(nreg), events: d.Int()}
	r := &p.repairs
	for _, f := range []*int64{&r.OuterLeaves, &r.ClosedInside, &r.UnmatchedLeaves, &r.LeavesWithoutCall, &r.OpenAtEnd} {
		*f = d.Int()
	}
	ns := d.Len(3)
	for i := 0; i < ns && d.Err() == nil; i++ {
		s := singleSeries{series: int32(min(d.Uint(), maxSeries))}
		if s.series >= maxSeries || i > 0 && s.series <= p.series[i-1].series {
			d.Fail("series %d out of order", s.series)
			break
		}
		nc := d.Len(3)
		for j := 0; j < nc && d.Err() == nil; j++ {
			k := cellKey{caller: int32(d.Int()), callee: int32(min(d.Uint(), 1<<31-1))}
			if k.caller < -1 || uint64(k.caller+1) > nreg || uint64(k.callee) >= nreg ||
				j > 0 && compareKeys(s.cells[j-1].key, k) >= 0 {
				d.Fail("cell (%d, %d) out of order or beyond %d regions", k.caller, k.callee, nreg)
				break
			}
			s.cells = append(s.cells, cellDist{k, decodeDists(d)})
		}
		nf := d.Len(3)
		for j := 0; j < nf && d.Err() == nil; j++ {
			f := int32(min(d.Uint(), 1<<31-1))
			if uint64(f) >= nreg || j > 0 && f <= s.funcs[j-1].region {
				d.Fail("function %d out of order or beyond %d regions", f, nreg)
				break
			}
			s.funcs = append(s.funcs, funcDist{f, decodeDists(d)})
		}
		p.series = append(p.series, s)
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(singleName, "decoding a partial: %v", err)
	}
	return p, nil
}

// resultOfSingle builds the engine's result from the merged per-process distributions.
func (e *engine) resultOfSingle(p *singlePart) *result {
	var keys []cellKey
	for _, s := range p.series {
		for _, c := range s.cells {
			keys = append(keys, c.key)
		}
	}
	slices.SortFunc(keys, compareKeys)
	keys = slices.Compact(keys)
	funcs, _ := e.funcsOf(keys)
	r := newResult(e.nseries, keys, funcs)
	r.repairs, r.events = p.repairs, p.events
	for _, s := range p.series {
		if int(s.series) >= e.nseries {
			fail(e.fn, "the job returned series %d of %d", s.series, e.nseries)
		}
		for _, c := range s.cells {
			i, _ := slices.BinarySearchFunc(keys, c.key, compareKeys)
			r.cell[s.series][i] = c.d
		}
		for _, f := range s.funcs {
			j, ok := slices.BinarySearch(funcs, f.region)
			if !ok {
				fail(e.fn, "the job returned function %d with no cell", f.region)
			}
			r.fun[s.series][j] = f.d
		}
	}
	return r
}

// refineMethod is "profile.refine": one pass of the refinement (refine.go) with its plan
// fixed: the numbering of the cells, their functions, and per series, bucket and metric the
// value ranges (spans) whose values the pass counts or collects.
type refineMethod struct {
	closure bool
	series  []int32 // by trace.Process.Index
	keys    []cellKey
	funcOf  []int32        // per cell: its function's bucket after the cells, or -1
	sets    [][][2]spanSet // [series][bucket][metric]
	spans   []spanDef      // by slot
}

type spanDef struct{ lo, hi, step int64 }

// slots returns the number of counters of span d (0 when it collects).
func (d spanDef) slots() int64 {
	if d.step == 0 {
		return 0
	}
	return (d.hi-d.lo)/d.step + 1
}

func (m *refineMethod) Name() string { return refineName }
func (m *refineMethod) Rounds() int  { return 1 }

func (m *refineMethod) Params() []byte {
	e := part.Enc{}
	e.Uint(1)
	e.Bool(m.closure)
	part.Ints(&e, m.series)
	e.Uint(uint64(len(m.keys)))
	for _, k := range m.keys {
		e.Int(int64(k.caller))
		e.Uint(uint64(k.callee))
	}
	part.Ints(&e, m.funcOf)
	e.Uint(uint64(len(m.spans)))
	for _, d := range m.spans {
		e.Int(d.lo)
		e.Int(d.hi)
		e.Int(d.step)
	}
	e.Uint(uint64(len(m.sets)))
	var n int
	if len(m.sets) > 0 {
		n = len(m.sets[0])
	}
	e.Uint(uint64(n))
	var entries int
	for s := range m.sets {
		for b := range m.sets[s] {
			for k := range 2 {
				if m.sets[s][b][k].n > 0 {
					entries++
				}
			}
		}
	}
	e.Uint(uint64(entries))
	for s := range m.sets {
		for b := range m.sets[s] {
			for k := range 2 {
				ss := &m.sets[s][b][k]
				if ss.n == 0 {
					continue
				}
				e.Uint(uint64(s))
				e.Uint(uint64(b))
				e.Uint(uint64(k))
				e.Uint(uint64(ss.n))
				for j := range ss.n {
					e.Uint(uint64(ss.slot[j]))
				}
			}
		}
	}
	return e.B
}

func buildRefineMethod(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", 1)
	m := &refineMethod{closure: d.Bool(), series: part.ReadInts[int32](d)}
	nk := d.Len(2)
	for range nk {
		if d.Err() != nil {
			break
		}
		m.keys = append(m.keys, cellKey{caller: int32(d.Int()), callee: int32(min(d.Uint(), 1<<31-1))})
	}
	m.funcOf = part.ReadInts[int32](d)
	nsp := d.Len(3)
	for range nsp {
		if d.Err() != nil {
			break
		}
		sp := spanDef{lo: d.Int(), hi: d.Int(), step: d.Int()}
		if d.Err() == nil && (sp.hi < sp.lo || sp.step < 0 || sp.slots() > 1<<20) {
			d.Fail("span [%d, %d] by %d", sp.lo, sp.hi, sp.step)
		}
		m.spans = append(m.spans, sp)
	}
	ns, nb := d.Uint(), d.Uint()
	if d.Err() == nil && (ns > maxSeries || nb > 2*uint64(len(m.keys)) || nb < uint64(len(m.keys)) || ns*nb > 1<<26) {
		d.Fail("%d series of %d buckets for %d cells", ns, nb, len(m.keys))
	}
	if d.Err() == nil && len(m.funcOf) != len(m.keys) {
		d.Fail("%d cells, %d functions of cells", len(m.keys), len(m.funcOf))
	}
	entries := d.Len(5)
	if d.Err() == nil {
		m.sets = make([][][2]spanSet, ns)
		for s := range m.sets {
			m.sets[s] = make([][2]spanSet, nb)
		}
		for range entries {
			s, b, k, n := d.Uint(), d.Uint(), d.Uint(), d.Uint()
			if d.Err() != nil || s >= ns || b >= nb || k >= 2 || n == 0 || n > 10 {
				d.Fail("span set (%d, %d, %d) of %d spans", s, b, k, n)
				break
			}
			ss := &m.sets[s][b][k]
			for j := range int(n) {
				slot := d.Uint()
				if d.Err() != nil || slot >= uint64(len(m.spans)) {
					d.Fail("slot %d of %d", slot, len(m.spans))
					break
				}
				sp := m.spans[slot]
				ss.lo[j], ss.hi[j], ss.step[j], ss.slot[j] = sp.lo, sp.hi, sp.step, int32(slot)
			}
			ss.n = int(n)
		}
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(refineName, "parameters: %v", err)
	}
	for _, f := range m.funcOf {
		if f < -1 || int(f) >= int(nb)-len(m.keys) {
			return nil, work.Errorf(refineName, "parameters: function bucket %d", f)
		}
	}
	return m, nil
}

// sampleRefine plans the first pass for all processes as one series, as Boxes would, once
// with the package's limits and once with tiny ones (so that spans are counted, not only
// collected).
func sampleRefine(tr *trace.Trace) []part.Method {
	procs := tr.Processes()
	if len(procs) == 0 || tr.Defs == nil {
		return nil
	}
	e := &engine{fn: refineName, procs: procs, series: make([]int, len(procs)), nseries: 1, nreg: len(tr.Defs.Regions)}
	var out []part.Method
	for _, lim := range [][2]int64{{collectLimit, subRanges}, {4, 16}} {
		st := mergePartials(e.nreg, e.stage1())
		keys := st.cells.keys
		funcs, funcOf := e.funcsOf(keys)
		nc := len(keys)
		buckets := append(st.acc[0][:nc:nc], make([]acc, len(funcs))...)
		for c := range keys {
			if f := funcOf[c]; f >= 0 {
				buckets[nc+int(f)].merge(&st.acc[0][c])
			}
		}
		open := [][][2][]*span{make([][2][]*span, len(buckets))}
		for b := range buckets {
			for k := range 2 {
				if a := &buckets[b]; a.count > 0 {
					open[0][b][k] = spansOfHist(a.hist[k], a.count, a.min[k], a.max[k])
				}
			}
		}
		spans, sets := planRound(open, lim[0], lim[1])
		m := &refineMethod{series: int32s(e.seriesByIndex()), keys: keys, funcOf: funcOf, sets: sets}
		for _, sp := range spans {
			m.spans = append(m.spans, spanDef{lo: sp.lo, hi: sp.hi, step: sp.step})
		}
		out = append(out, m)
	}
	return out
}

func (m *refineMethod) empty() *refinePart {
	r := &refinePart{counts: make([][]uint32, len(m.spans)), collected: make([][]int64, len(m.spans))}
	for i, d := range m.spans {
		if n := d.slots(); n > 0 {
			r.counts[i] = make([]uint32, n)
		}
	}
	return r
}

func (m *refineMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(refineName, "round %d of a one-round method", round)
	}
	if tr == nil || tr.Defs == nil {
		return nil, work.Errorf(refineName, "the trace is nil")
	}
	out := m.empty()
	var events int64
	for i, p := range procs {
		if p == nil || p.Trace != tr {
			return nil, work.Errorf(refineName, "process %d is not a process of the trace", i)
		}
		if s := seriesOfIndex(m.series, p.Index); s >= 0 {
			if err := trace.EventsHere(refineName, p); err != nil {
				return nil, err
			}
			if int(s) >= len(m.sets) {
				return nil, work.Errorf(refineName, "series %d of process %d: the plan has %d", s, p.Index, len(m.sets))
			}
			events += int64(p.Len())
		}
	}
	nc := len(m.keys)
	err := work.Try(func() {
		job := work.Start(refineName, events, "events")
		defer job.Done()
		c := newCells(len(tr.Defs.Regions))
		for _, k := range m.keys {
			c.id(k)
		}
		wk := newWalker(c, m.closure)
		add := func(ss *spanSet, v int64) {
			for j := range ss.n {
				if v < ss.lo[j] {
					return
				}
				if v <= ss.hi[j] {
					switch step := ss.step[j]; step {
					case 0:
						out.collected[ss.slot[j]] = append(out.collected[ss.slot[j]], v)
					case 1:
						out.counts[ss.slot[j]][v-ss.lo[j]]++
					default:
						out.counts[ss.slot[j]][(v-ss.lo[j])/step]++
					}
					return
				}
			}
		}
		for _, p := range procs {
			s := seriesOfIndex(m.series, p.Index)
			if s < 0 {
				continue
			}
			sp := m.sets[s]
			wk.walk(p, job, func(recs []record) {
				for _, r := range recs {
					if int(r.cell) >= nc {
						fail(refineName, "process %d has a call (%d, %d) that stage 1 did not count",
							p.Index, c.keys[r.cell].caller, c.keys[r.cell].callee)
					}
					cs := &sp[r.cell]
					add(&cs[mExc], r.exc)
					add(&cs[mInc], r.inc)
					if f := m.funcOf[r.cell]; f >= 0 {
						fs := &sp[nc+int(f)]
						add(&fs[mExc], r.exc)
						add(&fs[mInc], r.inc)
					}
				}
			})
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *refineMethod) Decide(round int, _ part.Partial) ([]byte, error) {
	return nil, work.Errorf(refineName, "no decision after round %d of a one-round method", round)
}

func (m *refineMethod) Decode(round int, data []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(refineName, "round %d of a one-round method", round)
	}
	d := part.NewDec(data)
	d.Version("refinement", 1)
	r := m.empty()
	if n := d.Len(0); d.Err() == nil && n != len(m.spans) {
		d.Fail("%d spans, the plan has %d", n, len(m.spans))
	}
	for i := range m.spans {
		if d.Err() != nil {
			break
		}
		if r.counts[i] != nil {
			nz := d.Len(2)
			j := -1
			for range nz {
				j += 1 + int(min(d.Uint(), uint64(len(r.counts[i]))))
				v := d.Uint()
				if d.Err() != nil {
					break
				}
				if j >= len(r.counts[i]) || v == 0 || v > 1<<32-1 {
					d.Fail("counter %d of %d: %d", j, len(r.counts[i]), v)
					break
				}
				r.counts[i][j] = uint32(v)
			}
			continue
		}
		n := d.Len(1)
		if n > 0 {
			r.collected[i] = make([]int64, n)
			v := d.Int()
			r.collected[i][0] = v
			for j := 1; j < n; j++ {
				v += int64(d.Uint())
				r.collected[i][j] = v
			}
		}
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(refineName, "decoding a partial: %v", err)
	}
	return r, nil
}

// refinePart is the partial of "profile.refine": per span (slot) the counts of its
// sub-ranges, or its values.
type refinePart struct {
	counts    [][]uint32
	collected [][]int64
}

// Merge adds o's counts and appends its values.
func (r *refinePart) Merge(o part.Partial) error {
	x, ok := o.(*refinePart)
	if !ok || x == nil {
		return part.Mismatch(refineName, r, o)
	}
	if len(x.counts) != len(r.counts) {
		return work.Errorf(refineName+".Merge", "partials of %d and %d spans", len(r.counts), len(x.counts))
	}
	for i := range r.counts {
		if len(x.counts[i]) != len(r.counts[i]) {
			return work.Errorf(refineName+".Merge", "span %d: %d and %d counters", i, len(r.counts[i]), len(x.counts[i]))
		}
	}
	for i := range r.counts {
		for j, n := range x.counts[i] {
			r.counts[i][j] += n
		}
		r.collected[i] = append(r.collected[i], x.collected[i]...)
	}
	return nil
}

// MarshalBinary encodes per span its non-zero counts, or its values sorted (so that the encoding is
// canonical; their order does not matter to the selection that reads them), as differences.
func (r *refinePart) MarshalBinary() ([]byte, error) {
	e := part.Enc{}
	e.Uint(1)
	e.Uint(uint64(len(r.counts)))
	for i := range r.counts {
		if r.counts[i] != nil { // the non-zero counters: gap since the previous one, count
			nz := 0
			for _, n := range r.counts[i] {
				if n > 0 {
					nz++
				}
			}
			e.Uint(uint64(nz))
			last := -1
			for j, n := range r.counts[i] {
				if n > 0 {
					e.Uint(uint64(j - last - 1))
					e.Uint(uint64(n))
					last = j
				}
			}
			continue
		}
		v := r.collected[i]
		slices.Sort(v)
		e.Uint(uint64(len(v)))
		for j, x := range v {
			if j == 0 {
				e.Int(x)
			} else {
				e.Uint(uint64(x - v[j-1]))
			}
		}
	}
	return e.B, nil
}
