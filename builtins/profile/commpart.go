package profile

// The communication views under the per-process contract (builtins/part):
// "profile.comm" is the communication matrix (one round, partial *Comm),
// "profile.sizes" the message size histogram (two rounds: the size range
// *SizeRange, then the counts *Histogram in the bins the root decides from
// the merged range).

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

func init() {
	part.Register("profile.comm", buildCommMethod, func(tr *trace.Trace) []part.Method {
		ms := []part.Method{CommMethod()}
		if ranks := ranksOf(tr); len(ranks) > 1 {
			ms = append(ms, CommMethod(CommRanks(ranks[:len(ranks)/2+1]...)))
		}
		return ms
	})
	part.Register("profile.sizes", buildSizesMethod, func(*trace.Trace) []part.Method {
		return []part.Method{SizesMethod(1), SizesMethod(20)}
	})
}

// ranksOf returns the distinct ranks of tr, ascending.
func ranksOf(tr *trace.Trace) []int {
	var rs []int
	for _, p := range tr.Processes() {
		rs = append(rs, int(p.Rank))
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}

// CommMethod is CommMatrix as a method of the per-process contract
// ("profile.comm"): its partial over a subset of the processes is
// CommMatrixOf of them, a *Comm.
func CommMethod(opts ...CommOption) part.Method {
	const fn = "profile.CommMethod"
	defer work.RecoverAs(fn)
	return &commMethod{o: optionsOf(opts)}
}

type commMethod struct{ o commOptions }

func (m *commMethod) Name() string { return "profile.comm" }
func (m *commMethod) Rounds() int  { return 1 }

func (m *commMethod) Params() []byte {
	e := part.Enc{}
	e.Uint(1) // layout version
	e.Bool(m.o.set)
	part.Ints(&e, m.o.ranks)
	return e.B
}

func buildCommMethod(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", 1)
	m := &commMethod{}
	m.o.set = d.Bool()
	m.o.ranks = part.ReadInts[int32](d)
	if err := d.Done(); err != nil {
		return nil, work.Errorf("profile.comm", "parameters: %v", err)
	}
	return m, nil
}

func (m *commMethod) opts() []CommOption {
	if !m.o.set {
		return nil
	}
	rs := make([]int, len(m.o.ranks))
	for i, r := range m.o.ranks {
		rs[i] = int(r)
	}
	return []CommOption{CommRanks(rs...)}
}

func (m *commMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (p part.Partial, err error) {
	if round != 0 {
		return nil, work.Errorf("profile.comm", "round %d of a one-round method", round)
	}
	if err := trace.EventsHere("profile.comm", procs...); err != nil {
		return nil, err
	}
	err = work.Try(func() { p = commOf("profile.comm", tr, procs, m.opts(), nil) })
	return p, err
}

func (m *commMethod) Decide(round int, _ part.Partial) ([]byte, error) {
	return nil, work.Errorf("profile.comm", "no decision after round %d of a one-round method", round)
}

func (m *commMethod) Decode(round int, data []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf("profile.comm", "round %d of a one-round method", round)
	}
	return decodeComm(data)
}

const commLayout = 2

// MarshalBinary encodes the matrix: whether its ranks were given, its
// processes, ranks, totals, non-zero cells, collectives per rank and the
// sends to ranks not among its rows.
func (c *Comm) MarshalBinary() ([]byte, error) {
	e := part.Enc{}
	e.Uint(commLayout)
	e.Bool(c.restricted)
	part.Ints(&e, c.procs)
	part.Ints(&e, c.Ranks)
	e.Int(c.Sends)
	e.Int(c.Bytes)
	e.Int(c.Outside)
	e.Int(c.Unresolved)
	e.Uint(uint64(len(c.cells)))
	for _, x := range c.cells {
		e.Uint(uint64(x.from))
		e.Uint(uint64(x.to))
		e.Int(x.msgs)
		e.Int(x.bytes)
	}
	e.Uint(uint64(len(c.colls)))
	for _, x := range c.colls {
		e.Int(x.ops)
		e.Int(x.sent)
		e.Int(x.recvd)
	}
	e.Uint(uint64(len(c.pending)))
	for _, p := range c.pending {
		e.Uint(uint64(p.from))
		e.Int(int64(p.to))
		e.Int(p.msgs)
		e.Int(p.bytes)
	}
	return e.B, nil
}

// decodeComm reads what (*Comm).MarshalBinary wrote.
func decodeComm(data []byte) (*Comm, error) {
	d := part.NewDec(data)
	d.Version("Comm", commLayout)
	restricted := d.Bool()
	procs := part.ReadInts[int32](d)
	for i := 1; i < len(procs); i++ {
		if procs[i] <= procs[i-1] {
			d.Fail("processes not ascending at %d", i)
			break
		}
	}
	ranks := part.ReadInts[int32](d)
	for i, r := range ranks {
		if r < 0 || i > 0 && r <= ranks[i-1] {
			d.Fail("ranks not ascending and non-negative at %d", i)
			break
		}
	}
	c := &Comm{Ranks: ranks, restricted: restricted, procs: procs}
	c.Sends, c.Bytes, c.Outside, c.Unresolved = d.Int(), d.Int(), d.Int(), d.Int()
	n := d.Len(4)
	c.cells = make([]commCell, n)
	for i := range c.cells {
		f, t := d.Uint(), d.Uint()
		if d.Err() == nil && (f >= uint64(len(ranks)) || t >= uint64(len(ranks))) {
			d.Fail("cell %d: row %d or column %d beyond the %d ranks", i, f, t, len(ranks))
		}
		x := commCell{from: int32(f), to: int32(t), msgs: d.Int(), bytes: d.Int()}
		if i > 0 && d.Err() == nil {
			if p := c.cells[i-1]; p.from > x.from || p.from == x.from && p.to >= x.to {
				d.Fail("cell %d out of order", i)
			}
		}
		c.cells[i] = x
	}
	if k := d.Len(3); d.Err() == nil && k != len(ranks) {
		d.Fail("%d collective rows for %d ranks", k, len(ranks))
	}
	c.colls = make([]collSums, len(ranks))
	for i := range c.colls {
		if d.Err() != nil {
			break
		}
		c.colls[i] = collSums{ops: d.Int(), sent: d.Int(), recvd: d.Int()}
	}
	np := d.Len(4)
	for i := 0; i < np && d.Err() == nil; i++ {
		p := pendingSend{from: int32(min(d.Uint(), 1<<31-1)), to: int32(d.Int()), msgs: d.Int(), bytes: d.Int()}
		if d.Err() == nil && (int(p.from) >= len(ranks) || restricted || p.msgs <= 0 ||
			i > 0 && cmp.Or(cmp.Compare(c.pending[i-1].from, p.from), cmp.Compare(c.pending[i-1].to, p.to)) >= 0) {
			d.Fail("pending send %d: row %d to rank %d, %d messages", i, p.from, p.to, p.msgs)
		}
		c.pending = append(c.pending, p)
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf("profile.comm", "decoding a communication matrix: %v", err)
	}
	c.index = newRankIndex(ranks)
	return c, nil
}

// SizesMethod is MessageHistogram(tr, bins) as a method of the
// per-process contract ("profile.sizes"), in two rounds: round 0's partial
// is the size range of the sends (*SizeRange, as MessageSizeRange), the
// root decides the bins from the merged range, round 1's partial is the
// counts in those bins (*Histogram, as MessageHistogramOf).
func SizesMethod(bins int) part.Method {
	const fn = "profile.SizesMethod"
	defer work.RecoverAs(fn)
	if bins < 1 {
		fail(fn, "bins %d: need bins >= 1", bins)
	}
	return &sizesMethod{bins: bins}
}

type sizesMethod struct {
	bins int
	job  *work.Job // the caller's progress (MessageHistogram); nil: a job per Compute
}

// start returns the job that counts a Compute's progress over procs.
func (m *sizesMethod) start(fn string, procs []*trace.Process) (*work.Job, func()) {
	if m.job != nil {
		return m.job, func() {}
	}
	job := work.Start(fn, eventsOf(procs), "events")
	return job, job.Done
}

func (m *sizesMethod) Name() string { return "profile.sizes" }
func (m *sizesMethod) Rounds() int  { return 2 }

func (m *sizesMethod) Params() []byte {
	e := part.Enc{}
	e.Uint(1)
	e.Uint(uint64(m.bins))
	return e.B
}

// maxBins bounds the bins a decoded request may ask for.
const maxBins = 1 << 24

func buildSizesMethod(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", 1)
	bins := d.Uint()
	if d.Err() == nil && (bins < 1 || bins > maxBins) {
		d.Fail("bins %d: need 1 to %d", bins, maxBins)
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf("profile.sizes", "parameters: %v", err)
	}
	return &sizesMethod{bins: int(bins)}, nil
}

func (m *sizesMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, decision []byte) (p part.Partial, err error) {
	const fn = "profile.sizes"
	if err := trace.EventsHere(fn, procs...); err != nil {
		return nil, err
	}
	switch round {
	case 0:
		err = work.Try(func() {
			job, done := m.start(fn, procs)
			defer done()
			r := sizeRange(fn, procs, job)
			p = &r
		})
	case 1:
		var r *SizeRange
		if r, err = decodeSizeRange(decision); err != nil {
			return nil, err
		}
		err = work.Try(func() {
			job, done := m.start(fn, procs)
			defer done()
			p = histogramOf(fn, procs, m.bins, *r, job)
		})
	default:
		err = work.Errorf(fn, "round %d of a two-round method", round)
	}
	return p, err
}

// Decide after round 0 is the merged size range, from which every subset
// derives the same bins.
func (m *sizesMethod) Decide(round int, merged part.Partial) ([]byte, error) {
	r, ok := merged.(*SizeRange)
	if round != 0 || !ok {
		return nil, work.Errorf("profile.sizes", "no decision after round %d from a %T", round, merged)
	}
	return r.MarshalBinary()
}

func (m *sizesMethod) Decode(round int, data []byte) (part.Partial, error) {
	switch round {
	case 0:
		return decodeSizeRange(data)
	case 1:
		h, err := decodeHistogram(data)
		if err == nil && len(h.Counts) != m.bins {
			return nil, work.Errorf("profile.sizes", "a histogram of %d bins, the method has %d", len(h.Counts), m.bins)
		}
		return h, err
	}
	return nil, work.Errorf("profile.sizes", "round %d of a two-round method", round)
}

// Merge absorbs o, the *SizeRange of other sends.
func (r *SizeRange) Merge(o part.Partial) error {
	x, ok := o.(*SizeRange)
	if !ok || x == nil {
		return part.Mismatch("profile.SizeRange", r, o)
	}
	*r = r.merge(*x)
	return nil
}

// MarshalBinary encodes the range.
func (r *SizeRange) MarshalBinary() ([]byte, error) {
	e := part.Enc{}
	e.Uint(1)
	e.Int(r.Sends)
	if r.Sends > 0 { // Min and Max are meaningless without sends: canonical
		e.Int(r.Min)
		e.Int(r.Max)
	}
	return e.B, nil
}

func decodeSizeRange(data []byte) (*SizeRange, error) {
	d := part.NewDec(data)
	d.Version("SizeRange", 1)
	r := &SizeRange{Sends: d.Int()}
	if r.Sends < 0 {
		d.Fail("%d sends", r.Sends)
	}
	if r.Sends > 0 {
		r.Min, r.Max = d.Int(), d.Int()
		if d.Err() == nil && r.Min > r.Max {
			d.Fail("smallest size %d above the largest %d", r.Min, r.Max)
		}
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf("profile.sizes", "decoding a size range: %v", err)
	}
	return r, nil
}

// MarshalBinary encodes the histogram: its edges and counts.
func (h *Histogram) MarshalBinary() ([]byte, error) {
	e := part.Enc{}
	e.Uint(1)
	e.Floats(h.Edges)
	part.Ints(&e, h.Counts)
	return e.B, nil
}

func decodeHistogram(data []byte) (*Histogram, error) {
	d := part.NewDec(data)
	d.Version("Histogram", 1)
	h := &Histogram{Edges: d.Floats(), Counts: part.ReadInts[int64](d)}
	if d.Err() == nil && (len(h.Counts) < 1 || len(h.Edges) != len(h.Counts)+1) {
		d.Fail("%d edges for %d bins", len(h.Edges), len(h.Counts))
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf("profile.sizes", "decoding a histogram: %v", err)
	}
	return h, nil
}

// Merge absorbs o, the histogram of other sends in the same bins. Other
// bins are an error: count every part with the merged SizeRange of all.
func (h *Histogram) Merge(o part.Partial) error {
	x, ok := o.(*Histogram)
	if !ok || x == nil {
		return part.Mismatch("profile.Histogram", h, o)
	}
	if !slices.Equal(h.Edges, x.Edges) {
		return work.Errorf("profile.Histogram.Merge", "the histograms have different bins (%s and %s edges; merge the SizeRange of all parts first and count each part with it)",
			strconv.Itoa(len(h.Edges)), strconv.Itoa(len(x.Edges)))
	}
	for i, n := range x.Counts {
		h.Counts[i] += n
	}
	return nil
}

// Merge absorbs o, the matrix of other processes of the same trace
// (CommMatrixOf of another subset). Without WithRanks the rows become the
// union of both matrices' ranks, and sends of either to a rank the other
// holds become cells; with WithRanks, other ranks are an error, as are
// processes counted in both.
func (c *Comm) Merge(o part.Partial) error {
	const fn = "profile.Comm.Merge"
	x, ok := o.(*Comm)
	if !ok || x == nil {
		return part.Mismatch("profile.Comm", c, o)
	}
	if c.restricted != x.restricted || c.restricted && !slices.Equal(c.Ranks, x.Ranks) {
		return work.Errorf(fn, "the matrices have different ranks (%d and %d ranks, WithRanks %v and %v)", len(c.Ranks), len(x.Ranks), c.restricted, x.restricted)
	}
	procs, err := part.UnionProcesses(fn, slices.Clone(c.procs), x.procs)
	if err != nil {
		return err
	}
	if !slices.Equal(c.Ranks, x.Ranks) {
		ranks := slices.Concat(c.Ranks, x.Ranks)
		slices.Sort(ranks)
		ranks = slices.Compact(ranks)
		*c = *c.widened(ranks)
		x = x.widened(ranks)
	}
	c.merge(x)
	c.settle()
	c.procs = procs
	return nil
}

// String is the headline: the number of sends and their size range.
func (r SizeRange) String() string {
	if r.Sends == 0 {
		return "no sends"
	}
	return fmt.Sprintf("%s sends of %s to %s bytes", arrowio.FormatCount(r.Sends), arrowio.FormatCount(r.Min), arrowio.FormatCount(r.Max))
}

// Table returns one row: Sends, Min (B) and Max (B) (null without sends).
func (r SizeRange) Table() *arrowio.Table {
	ok := []bool{r.Sends > 0}
	return arrowio.MustTable(arrowio.Int64("Sends", []int64{r.Sends}),
		arrowio.NullableInt64("Min (B)", []int64{r.Min}, ok).WithUnit("B"), arrowio.NullableInt64("Max (B)", []int64{r.Max}, ok).WithUnit("B"))
}
