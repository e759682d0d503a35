package profile

// Communication (LLNL pipit parity: comm_matrix, message_histogram).
//
// CommMatrix counts, for each pair of ranks (location groups,
// trace.Process.Rank; the threads of a rank add into it), the
// point-to-point messages and bytes from sender to receiver. Like pipit it
// counts each send event (MpiSend, MpiIsend) once, with the bytes of its
// message record; the receiver is the record's partner rank resolved to a
// global rank through its communicator's group (trace.RankResolver).
// Receive events are not counted, so a message whose receive is missing
// still counts and one whose send is missing does not. Collective
// operations are counted apart, per rank (operations, bytes sent, bytes
// received, from the MpiCollectiveEnd records): OTF2 does not record who
// received from whom in a collective, so they cannot enter the
// sender x receiver matrix. MessageHistogram is numpy.histogram of the
// send sizes (equal-width bins from the smallest to the largest size, the
// last bin closed on the right; all sizes equal v: the range v-0.5 to
// v+0.5). Messages matches each send with its receive (MPI's
// non-overtaking rule, receives in posting order; see the package notes)
// and gives each message's latency, receive time minus send time.
//
// Every result is mergeable for traces read by several machines under the
// per-process contract (commpart.go): "profile.comm" (CommMatrixOf, a
// *Comm) and "profile.sizes" (MessageSizeRange, a *SizeRange, then
// MessageHistogramOf, a *Histogram: the histogram needs the global
// smallest and largest size before it can count).

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// checkEvery is the number of events between two progress reports (and
// interrupt checks) in the loops over events.
const checkEvery = 1 << 16

// CommOption configures CommMatrix.
type CommOption func(*commOptions)

type commOptions struct {
	ranks []int32
	set   bool
}

// WithRanks restricts the matrix to the given ranks, as rows and columns:
// only their sends are counted, and sends to other ranks are counted as
// outside (Comm.Outside).
func WithRanks(ranks ...int) CommOption {
	return func(o *commOptions) {
		o.set = true
		o.ranks = o.ranks[:0]
		for _, r := range ranks {
			o.ranks = append(o.ranks, int32(r))
		}
	}
}

// Comm is a communication matrix: point-to-point messages and bytes per
// (sender, receiver) pair of ranks, and collective operations per rank.
type Comm struct {
	Ranks []int32 // the rank of each row and column, ascending

	Sends      int64 // send events counted in the matrix
	Bytes      int64 // their bytes
	Outside    int64 // sends to a receiver that is not among Ranks (not in the matrix)
	Unresolved int64 // sends whose receiver was not resolved through its communicator (its Peer was taken as the global rank)

	index rankIndex  // rank -> row
	cells []commCell // non-zero cells by sender row, then receiver row
	colls []collSums // per row

	restricted bool          // the ranks were given (WithRanks), not those of the processes counted
	procs      []int32       // the processes counted (trace.Process.Index), ascending
	pending    []pendingSend // unrestricted: the sends counted in Outside, by sender row and receiver rank
}

// pendingSend is what a matrix over some processes sent to a rank that is not among its ranks
// (counted in Outside): when a matrix of other processes holding that rank merges in, the
// sends become a cell.
type pendingSend struct {
	from, to    int32 // sender row, receiver rank
	msgs, bytes int64
}

type commCell struct {
	from, to int32 // rows
	msgs     int64
	bytes    int64
}

type collSums struct {
	ops, sent, recvd int64
}

// CommMatrix counts the point-to-point messages and bytes between the
// ranks of tr (see the notes on communication) and the collective
// operations of each rank, over all processes in parallel.
func CommMatrix(tr *trace.Trace, opts ...CommOption) *Comm {
	const fn = "profile.CommMatrix"
	defer work.RecoverAs(fn)
	c := newComm(fn, tr, opts)
	if part.Remote(tr) {
		// the events are on the ranks of a job: the same rows, counted there
		p, err := part.Run(tr, tr.Processes(), CommMethod(WithRanks(int32sToInts(c.Ranks)...)))
		if err != nil {
			failErr(fn, err)
		}
		r := p.(*Comm)
		r.restricted = c.restricted
		return r
	}
	procs := make([]*trace.Process, 0, tr.NumProcesses())
	for _, p := range tr.Processes() {
		if c.row(p.Rank) >= 0 {
			p.NeedEvents(fn) // a skeleton without an executor
			procs = append(procs, p)
		}
	}
	// One subset of whole ranks per core, of about equal events, as
	// part.RunRound would merge them, but with the cells of the subsets
	// (disjoint ranks in ascending order) concatenated rather than merged
	// pairwise: the merge copies the cells once more (110 MB allocated
	// per call on BenchmarkCommMatrix instead of 69 MB).
	parts := splitByRank(procs, runtime.GOMAXPROCS(0))
	job := work.Start(fn, eventsOf(procs), "events")
	defer job.Done()
	res := make([]*Comm, len(parts))
	chunks := make([][][]commCell, len(parts))
	work.Parallel(len(parts), func(w int) {
		res[w] = c.empty()
		chunks[w] = res[w].count(parts[w], job)
	})
	for _, r := range res {
		c.merge(r)
	}
	c.cells = flatten(slices.Concat(chunks...))
	c.procs = indexList(procs)
	return c
}

// indexList returns the indices (trace.Process.Index) of procs, ascending.
func indexList(procs []*trace.Process) []int32 {
	out := make([]int32, len(procs))
	for i, p := range procs {
		out[i] = int32(p.Index)
	}
	slices.Sort(out)
	return out
}

func int32sToInts(s []int32) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

// flatten concatenates chunks into one slice of the exact length.
func flatten(chunks [][]commCell) []commCell {
	n := 0
	for _, ch := range chunks {
		n += len(ch)
	}
	out := make([]commCell, 0, n)
	for _, ch := range chunks {
		out = append(out, ch...)
	}
	return out
}

// CommMatrixOf is the part of CommMatrix(tr) that the sends of procs (a
// subset of tr's processes) contribute: the per-process part for traces
// read by several machines. Without WithRanks its rows are the ranks of
// procs (and sends to other ranks are Outside until a part holding them
// merges in), so it depends only on procs and the trace's definitions;
// merging the parts of disjoint subsets that cover tr gives CommMatrix(tr).
func CommMatrixOf(tr *trace.Trace, procs []*trace.Process, opts ...CommOption) *Comm {
	const fn = "profile.CommMatrixOf"
	defer work.RecoverAs(fn)
	return commOf(fn, tr, procs, opts, nil)
}

// commOf is CommMatrixOf counting progress in job (nil: a job of its own).
func commOf(fn string, tr *trace.Trace, procs []*trace.Process, opts []CommOption, job *work.Job) *Comm {
	if tr == nil {
		fail(fn, "trace is nil")
	}
	for i, p := range procs {
		if p == nil || p.Trace != tr {
			fail(fn, "process %d is not a process of the trace", i)
		}
	}
	c := commOver(fn, procs, optionsOf(opts), false)
	c.procs = indexList(procs)
	var mine []*trace.Process
	for _, p := range procs {
		if c.row(p.Rank) >= 0 {
			p.NeedEvents(fn)
			mine = append(mine, p)
		}
	}
	if job == nil {
		job = work.Start(fn, eventsOf(mine), "events")
		defer job.Done()
	}
	c.add(splitByRank(mine, 1)[0], job)
	return c
}

func eventsOf(procs []*trace.Process) int64 {
	var n int64
	for _, p := range procs {
		n += int64(p.Len())
	}
	return n
}

// newComm returns an empty matrix over the ranks of tr (or those of o).
func newComm(fn string, tr *trace.Trace, opts []CommOption) *Comm {
	if tr == nil {
		fail(fn, "trace is nil")
	}
	return commOver(fn, tr.Processes(), optionsOf(opts), true)
}

// commOver returns an empty matrix over the ranks of procs (or those of o, checked to be
// ranks of procs if check).
func commOver(fn string, procs []*trace.Process, o commOptions, check bool) *Comm {
	have := map[int32]bool{}
	for _, p := range procs {
		have[p.Rank] = true
	}
	var ranks []int32
	if o.set {
		for _, r := range o.ranks {
			if check && !have[r] {
				fail(fn, "WithRanks: rank %d is not a rank of the trace", r)
			}
		}
		ranks = slices.Clone(o.ranks)
	} else {
		for r := range have {
			ranks = append(ranks, r)
		}
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)
	if len(ranks) > 0 && ranks[0] < 0 {
		fail(fn, "rank %d of the trace is negative", ranks[0])
	}
	c := &Comm{Ranks: ranks, index: newRankIndex(ranks), restricted: o.set}
	c.colls = make([]collSums, len(ranks))
	return c
}

// optionsOf applies opts (nil options are ignored).
func optionsOf(opts []CommOption) commOptions {
	var o commOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// empty returns a matrix over the same ranks with nothing counted.
func (c *Comm) empty() *Comm {
	return &Comm{Ranks: c.Ranks, index: c.index, colls: make([]collSums, len(c.Ranks)), restricted: c.restricted}
}

// row returns the row of rank r, or -1.
func (c *Comm) row(r int32) int32 { return c.index.row(c.Ranks, r) }

// denseFactor bounds the dense rank index: it is used only while the
// largest rank is below denseFactor times the number of ranks (plus a
// little), so its memory is proportional to the ranks that are present and
// never to a rank number read from a file (rank 2000000000 of a four-line
// CSV would otherwise ask for 8 GB).
const denseFactor = 4

// rankIndex maps a rank to its row in sorted ranks: a table indexed by rank
// when the ranks are dense, else a binary search.
type rankIndex struct {
	dense []int32 // rank -> row, -1 when not a row; nil: search
}

func newRankIndex(ranks []int32) rankIndex {
	if len(ranks) == 0 || int64(ranks[len(ranks)-1]) >= denseFactor*int64(len(ranks))+64 {
		return rankIndex{}
	}
	d := make([]int32, ranks[len(ranks)-1]+1)
	for i := range d {
		d[i] = -1
	}
	for i, r := range ranks {
		d[r] = int32(i)
	}
	return rankIndex{dense: d}
}

// row returns the row of r in ranks (sorted, the ranks the index was made
// from), or -1.
func (x rankIndex) row(ranks []int32, r int32) int32 {
	if x.dense != nil {
		if r < 0 || int(r) >= len(x.dense) {
			return -1
		}
		return x.dense[r]
	}
	if i, ok := slices.BinarySearch(ranks, r); ok {
		return int32(i)
	}
	return -1
}

// splitByRank orders procs by rank (stable) and cuts them into at most n
// parts of about equal event counts, never between two processes of one
// rank.
func splitByRank(procs []*trace.Process, n int) [][]*trace.Process {
	ps := slices.Clone(procs)
	slices.SortStableFunc(ps, func(a, b *trace.Process) int { return cmp.Compare(a.Rank, b.Rank) })
	total := eventsOf(ps)
	n = max(1, min(n, len(ps)))
	var parts [][]*trace.Process
	start, acc := 0, int64(0)
	for i, p := range ps {
		acc += int64(p.Len())
		last := i+1 == len(ps) || ps[i+1].Rank != p.Rank
		if last && len(parts) < n-1 && acc*int64(n) >= total*int64(len(parts)+1) {
			parts = append(parts, ps[start:i+1])
			start = i + 1
		}
	}
	if start < len(ps) || len(parts) == 0 {
		parts = append(parts, ps[start:])
	}
	return parts
}

// cellChunk is the number of cells in one chunk of count's output.
const cellChunk = 1 << 16

// add counts the sends and collectives of procs, sorted by rank (as
// splitByRank leaves them), into c.
func (c *Comm) add(procs []*trace.Process, job *work.Job) {
	c.cells = mergeCells(c.cells, flatten(c.count(procs, job)))
}

// count counts the sends and collectives of procs, sorted by rank, into
// c's totals and returns the cells of their ranks, in order, in chunks (no
// copying as they grow).
func (c *Comm) count(procs []*trace.Process, job *work.Job) [][]commCell {
	if len(procs) == 0 {
		return nil
	}
	res := trace.NewRankResolver(procs[0].Trace.Defs)
	msgs := make([]int64, len(c.Ranks))
	bytes := make([]int64, len(c.Ranks))
	var touched []int32
	var chunks [][]commCell
	cells := make([]commCell, 0, cellChunk)
	for i := 0; i < len(procs); {
		own := procs[i].Rank
		from := c.row(own)
		j := i
		for ; j < len(procs) && procs[j].Rank == own; j++ {
			p := procs[j]
			m := &p.Msgs
			coll := &c.colls[from]
			for lo := 0; lo < len(p.Kind); lo += checkEvery {
				hi := min(len(p.Kind), lo+checkEvery)
				for e, k := range p.Kind[lo:hi] {
					switch k {
					case trace.MpiSend, trace.MpiIsend:
						r := p.Ref[lo+e]
						to, ok := res.Global(m.Comm[r], m.Peer[r], own)
						if !ok {
							c.Unresolved++
						}
						t := c.row(to)
						if t < 0 {
							c.Outside++
							if !c.restricted {
								c.pending = append(c.pending, pendingSend{from: from, to: to, msgs: 1, bytes: m.Bytes[r]})
							}
							continue
						}
						if msgs[t] == 0 {
							touched = append(touched, t)
						}
						msgs[t]++
						bytes[t] += m.Bytes[r]
					case trace.MpiCollectiveEnd:
						r := p.Ref[lo+e]
						coll.ops++
						coll.sent += p.Colls.Sent[r]
						coll.recvd += p.Colls.Received[r]
					}
				}
				if err := job.Add(int64(hi - lo)); err != nil {
					panic(err)
				}
			}
		}
		slices.Sort(touched)
		for _, t := range touched {
			if len(cells) == cap(cells) {
				chunks = append(chunks, cells)
				cells = make([]commCell, 0, cellChunk)
			}
			cells = append(cells, commCell{from: from, to: t, msgs: msgs[t], bytes: bytes[t]})
			c.Sends += msgs[t]
			c.Bytes += bytes[t]
			msgs[t], bytes[t] = 0, 0
		}
		touched = touched[:0]
		i = j
	}
	c.pending = compactPending(c.pending)
	return append(chunks, cells)
}

// compactPending sorts ps by sender row and receiver rank and adds up equal pairs.
func compactPending(ps []pendingSend) []pendingSend {
	slices.SortFunc(ps, func(a, b pendingSend) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to)) })
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && out[n-1].from == p.from && out[n-1].to == p.to {
			out[n-1].msgs += p.msgs
			out[n-1].bytes += p.bytes
			continue
		}
		out = append(out, p)
	}
	return out
}

// widened returns c over ranks, a sorted superset of c.Ranks (c itself when equal).
func (c *Comm) widened(ranks []int32) *Comm {
	if slices.Equal(c.Ranks, ranks) {
		return c
	}
	ix := newRankIndex(ranks)
	row := make([]int32, len(c.Ranks))
	for i, r := range c.Ranks {
		row[i] = ix.row(ranks, r)
	}
	w := *c
	w.Ranks, w.index = ranks, ix
	w.cells = make([]commCell, len(c.cells))
	for i, x := range c.cells {
		w.cells[i] = commCell{from: row[x.from], to: row[x.to], msgs: x.msgs, bytes: x.bytes}
	}
	w.colls = make([]collSums, len(ranks))
	for i, x := range c.colls {
		w.colls[row[i]] = x
	}
	w.pending = make([]pendingSend, len(c.pending))
	for i, p := range c.pending {
		w.pending[i] = pendingSend{from: row[p.from], to: p.to, msgs: p.msgs, bytes: p.bytes}
	}
	return &w
}

// settle turns the pending sends to ranks that are now rows into cells.
func (c *Comm) settle() {
	var moved []commCell
	keep := c.pending[:0]
	for _, p := range c.pending {
		t := c.row(p.to)
		if t < 0 {
			keep = append(keep, p)
			continue
		}
		moved = append(moved, commCell{from: p.from, to: t, msgs: p.msgs, bytes: p.bytes})
		c.Outside -= p.msgs
		c.Sends += p.msgs
		c.Bytes += p.bytes
	}
	c.pending = keep
	if len(moved) > 0 {
		slices.SortFunc(moved, func(a, b commCell) int { return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to)) })
		c.cells = mergeCells(c.cells, moved)
	}
}

// mergeCells merges two cell lists sorted by (from, to), adding equal
// cells.
func mergeCells(a, b []commCell) []commCell {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	if last, first := a[len(a)-1], b[0]; last.from < first.from || last.from == first.from && last.to < first.to {
		return append(a, b...)
	}
	out := make([]commCell, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to)) {
		case -1:
			out = append(out, x)
			i++
		case 1:
			out = append(out, y)
			j++
		default:
			x.msgs += y.msgs
			x.bytes += y.bytes
			out = append(out, x)
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func (c *Comm) merge(o *Comm) {
	if len(o.pending) > 0 {
		c.pending = compactPending(append(c.pending, o.pending...))
	}
	c.cells = mergeCells(c.cells, o.cells)
	c.Sends += o.Sends
	c.Bytes += o.Bytes
	c.Outside += o.Outside
	c.Unresolved += o.Unresolved
	for i, x := range o.colls {
		y := &c.colls[i]
		y.ops += x.ops
		y.sent += x.sent
		y.recvd += x.recvd
	}
}

// Cell returns the messages and bytes sent from rank sender to rank
// receiver (0, 0 for ranks not in the matrix).
func (c *Comm) Cell(sender, receiver int32) (messages, bytes int64) {
	f, t := c.row(sender), c.row(receiver)
	if f < 0 || t < 0 {
		return 0, 0
	}
	i, ok := slices.BinarySearchFunc(c.cells, commCell{from: f, to: t}, func(x, y commCell) int {
		return cmp.Or(cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to))
	})
	if !ok {
		return 0, 0
	}
	return c.cells[i].msgs, c.cells[i].bytes
}

// Pairs returns the number of (sender, receiver) pairs with at least one
// message: the rows of Table.
func (c *Comm) Pairs() int { return len(c.cells) }

// Table returns one row per (sender, receiver) pair with at least one
// message: Sender and Receiver (ranks), Messages and Bytes (B), by sender and
// receiver.
func (c *Comm) Table() *arrowio.Table {
	n := len(c.cells)
	from, to := make([]int32, n), make([]int32, n)
	msgs, bytes := make([]int64, n), make([]int64, n)
	for i, x := range c.cells {
		from[i], to[i], msgs[i], bytes[i] = c.Ranks[x.from], c.Ranks[x.to], x.msgs, x.bytes
	}
	return arrowio.MustTable(arrowio.Int32("Sender", from), arrowio.Int32("Receiver", to),
		arrowio.Int64("Messages", msgs), arrowio.Int64("Bytes (B)", bytes).WithUnit("B"))
}

// Matrix returns the dense matrix of pipit's comm_matrix(output):
// m[i][j] is the bytes ("size") or the number of messages ("count") sent
// from rank Ranks[i] to rank Ranks[j]. Any other output panics with an
// *Error.
func (c *Comm) Matrix(output string) [][]float64 {
	const fn = "profile.Comm.Matrix"
	if output != "size" && output != "count" {
		fail(fn, "output %q: want \"size\" or \"count\"", output)
	}
	n := len(c.Ranks)
	if err := work.Reserve(fn+": dense matrix", 8*int64(n)*int64(n)); err != nil {
		fail(fn, "%d ranks: %v (Table lists only the pairs that communicate)", n, err)
	}
	flat := make([]float64, n*n)
	m := make([][]float64, n)
	for i := range m {
		m[i] = flat[i*n : (i+1)*n : (i+1)*n]
	}
	for _, x := range c.cells {
		v := float64(x.bytes)
		if output == "count" {
			v = float64(x.msgs)
		}
		m[x.from][x.to] = v
	}
	return m
}

// Collectives returns one row per rank: Rank, Operations (MpiCollectiveEnd
// records), Bytes Sent (B) and Bytes Received (B) (as the records give them).
func (c *Comm) Collectives() *arrowio.Table {
	n := len(c.Ranks)
	ops, sent, recvd := make([]int64, n), make([]int64, n), make([]int64, n)
	for i, x := range c.colls {
		ops[i], sent[i], recvd[i] = x.ops, x.sent, x.recvd
	}
	return arrowio.MustTable(arrowio.Int32("Rank", slices.Clone(c.Ranks)), arrowio.Int64("Operations", ops),
		arrowio.Int64("Bytes Sent (B)", sent).WithUnit("B"), arrowio.Int64("Bytes Received (B)", recvd).WithUnit("B"))
}

// heaviest returns the cell with the most bytes (then the most messages,
// then the first), and false if there is none.
func (c *Comm) heaviest() (commCell, bool) {
	if len(c.cells) == 0 {
		return commCell{}, false
	}
	best := c.cells[0]
	for _, x := range c.cells[1:] {
		if x.bytes > best.bytes || x.bytes == best.bytes && x.msgs > best.msgs {
			best = x
		}
	}
	return best, true
}

// String is the headline: ranks, messages, bytes, the heaviest pair and
// the collectives.
func (c *Comm) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d ranks: %s point-to-point messages, %s, between %s pairs",
		len(c.Ranks), arrowio.FormatCount(c.Sends), arrowio.FormatBytes(c.Bytes), arrowio.FormatCount(int64(len(c.cells))))
	if h, ok := c.heaviest(); ok {
		fmt.Fprintf(&b, "; heaviest %d -> %d: %s messages, %s", c.Ranks[h.from], c.Ranks[h.to],
			arrowio.FormatCount(h.msgs), arrowio.FormatBytes(h.bytes))
	}
	var ops, sent int64
	for _, x := range c.colls {
		ops += x.ops
		sent += x.sent
	}
	if ops > 0 {
		fmt.Fprintf(&b, "; collectives: %s operation records, %s sent (per rank in Collectives())", arrowio.FormatCount(ops), arrowio.FormatBytes(sent))
	}
	if c.Outside > 0 {
		fmt.Fprintf(&b, "; %s sends to ranks outside the matrix", arrowio.FormatCount(c.Outside))
	}
	if c.Unresolved > 0 {
		fmt.Fprintf(&b, "; %s sends with the partner rank taken as global (no communicator group)", arrowio.FormatCount(c.Unresolved))
	}
	return b.String()
}

// Plot draws the matrix of bytes as a heatmap, senders as rows.
func (c *Comm) Plot() *plotting.Figure {
	labels := make([]string, len(c.Ranks))
	for i, r := range c.Ranks {
		labels[i] = fmt.Sprint(r)
	}
	title := fmt.Sprintf("Bytes sent: %s in %s messages", arrowio.FormatBytes(c.Bytes), arrowio.FormatCount(c.Sends))
	if h, ok := c.heaviest(); ok {
		title += fmt.Sprintf("; heaviest %d -> %d (%s)", c.Ranks[h.from], c.Ranks[h.to], arrowio.FormatBytes(h.bytes))
	}
	return plotting.Heatmap(title, labels, labels, c.Matrix("size"),
		plotting.WithXLabel("receiver rank"), plotting.WithYLabel("sender rank"), plotting.WithColorUnit(plotting.Bytes))
}

// headRows is the number of table rows the MIME bundles show.
const headRows = 20

// MIMEBundle shows the matrix as every method's result shows (display.Compose): the
// headline, the pairs with the most bytes (the first rows of Table sorted by bytes) and the
// heatmap of Plot.
func (c *Comm) MIMEBundle() map[string]any {
	top := slices.Clone(c.cells)
	slices.SortStableFunc(top, func(a, b commCell) int { return cmp.Or(cmp.Compare(b.bytes, a.bytes), cmp.Compare(b.msgs, a.msgs)) })
	note := ""
	if len(top) > headRows {
		top = top[:headRows]
		note = fmt.Sprintf("the %d of %s pairs with the most bytes; Table() has them all", headRows, arrowio.FormatCount(int64(len(c.cells))))
	}
	var fig *plotting.Figure
	if len(c.Ranks) > 0 {
		fig = c.Plot()
	}
	return display.Composition{Headline: c.String(), Table: (&Comm{Ranks: c.Ranks, cells: top}).Table(), Note: note,
		Figures: []display.MIMEBundler{fig}}.MIMEBundle()
}

// SizeRange is the first stage of a message histogram over several
// machines: the number of sends and their smallest and largest size.
type SizeRange struct {
	Sends    int64
	Min, Max int64 // bytes; meaningless when Sends is 0
}

// MessageSizeRange returns the number and size range of the sends
// (MpiSend, MpiIsend) of procs.
func MessageSizeRange(procs []*trace.Process) SizeRange {
	const fn = "profile.MessageSizeRange"
	defer work.RecoverAs(fn)
	job := work.Start(fn, eventsOf(procs), "events")
	defer job.Done()
	return sizeRange(fn, procs, job)
}

func sizeRange(fn string, procs []*trace.Process, job *work.Job) SizeRange {
	var r SizeRange
	eachSend(fn, procs, job, func(bytes int64) {
		if r.Sends == 0 {
			r.Min, r.Max = bytes, bytes
		}
		r.Sends++
		r.Min, r.Max = min(r.Min, bytes), max(r.Max, bytes)
	})
	return r
}

// merge returns the range of the sends of r and o together.
func (r SizeRange) merge(o SizeRange) SizeRange {
	switch {
	case o.Sends == 0:
		return r
	case r.Sends == 0:
		return o
	}
	return SizeRange{Sends: r.Sends + o.Sends, Min: min(r.Min, o.Min), Max: max(r.Max, o.Max)}
}

// eachSend calls f with the bytes of every send of procs.
func eachSend(fn string, procs []*trace.Process, job *work.Job, f func(bytes int64)) {
	for i, p := range procs {
		if p == nil {
			fail(fn, "process %d is nil", i)
		}
		p.NeedEvents(fn)
		for lo := 0; lo < len(p.Kind); lo += checkEvery {
			hi := min(len(p.Kind), lo+checkEvery)
			for e, k := range p.Kind[lo:hi] {
				if k == trace.MpiSend || k == trace.MpiIsend {
					f(p.Msgs.Bytes[p.Ref[lo+e]])
				}
			}
			if err := job.Add(int64(hi - lo)); err != nil {
				panic(err)
			}
		}
	}
}

// Histogram is a message size histogram: Counts[i] sends have a size in
// [Edges[i], Edges[i+1]) (the last bin also holds Edges[len(Counts)]).
type Histogram struct {
	Counts []int64
	Edges  []float64 // len(Counts)+1 bin edges, bytes
}

// MessageHistogram is pipit's message_histogram(bins): numpy.histogram of
// the sizes of the sends (MpiSend, MpiIsend) of tr in bins equal-width bins
// from the smallest to the largest size. bins < 1 panics with an *Error.
func MessageHistogram(tr *trace.Trace, bins int) *Histogram {
	const fn = "profile.MessageHistogram"
	defer work.RecoverAs(fn)
	if tr == nil {
		fail(fn, "trace is nil")
	}
	if bins < 1 {
		fail(fn, "bins %d: need bins >= 1", bins)
	}
	job := work.Start(fn, 2*tr.NumEvents(), "events")
	defer job.Done()
	h, err := part.Run(tr, tr.Processes(), &sizesMethod{bins: bins, job: job})
	if err != nil {
		failErr(fn, err)
	}
	return h.(*Histogram)
}

// MessageHistogramOf is the second stage of MessageHistogram over several
// machines: the counts of the sends of procs in the bins that numpy
// derives from the merged range r of all sends (sizes outside r are not
// counted, as numpy does with a range). Merging the histograms of
// disjoint subsets gives the histogram of their union.
func MessageHistogramOf(procs []*trace.Process, bins int, r SizeRange) *Histogram {
	const fn = "profile.MessageHistogramOf"
	defer work.RecoverAs(fn)
	if bins < 1 {
		fail(fn, "bins %d: need bins >= 1", bins)
	}
	job := work.Start(fn, eventsOf(procs), "events")
	defer job.Done()
	return histogramOf(fn, procs, bins, r, job)
}

func histogramOf(fn string, procs []*trace.Process, bins int, r SizeRange, job *work.Job) *Histogram {
	h := &Histogram{Counts: make([]int64, bins), Edges: histEdges(r, bins)}
	first, last := h.Edges[0], h.Edges[bins]
	norm := histDenom(r)
	eachSend(fn, procs, job, func(bytes int64) {
		if i := sizeBin(h.Edges, first, last, norm, float64(bytes)); i >= 0 {
			h.Counts[i]++
		}
	})
	return h
}

// histEdges returns numpy's bin edges: linspace(first, last, bins+1) with
// first, last = min, max, widened by 0.5 each way when equal, (0, 1) with
// no data.
func histEdges(r SizeRange, bins int) []float64 {
	first, last := 0.0, 1.0
	if r.Sends > 0 {
		first, last = float64(r.Min), float64(r.Max)
		if r.Min == r.Max {
			first, last = first-0.5, last+0.5
		}
	}
	e := make([]float64, bins+1)
	step := (last - first) / float64(bins)
	for i := range e {
		e[i] = float64(float64(i)*step) + first // numpy's linspace: i*step + start, no fused multiply-add
	}
	e[bins] = last
	return e
}

// histDenom is numpy's norm_denom: last - first, computed before the
// conversion to floating point for integer data.
func histDenom(r SizeRange) float64 {
	switch {
	case r.Sends == 0:
		return 1
	case r.Min == r.Max:
		return 1
	}
	return float64(r.Max - r.Min)
}

// sizeBin is numpy's bin index for equal-width bins, with its corrections
// within an ulp of the edges; -1 outside [first, last].
func sizeBin(edges []float64, first, last, norm, x float64) int {
	if !(x >= first && x <= last) {
		return -1
	}
	n := len(edges) - 1
	i := int(float64((x-first)/norm) * float64(n))
	if i == n {
		i--
	}
	if x < edges[i] {
		i--
	}
	if x >= edges[i+1] && i != n-1 {
		i++
	}
	return i
}

// Messages returns the number of sends counted.
func (h *Histogram) Messages() int64 {
	var n int64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Table returns one row per bin: Bin Start (B), Bin End (B) and Messages.
func (h *Histogram) Table() *arrowio.Table {
	n := len(h.Counts)
	return arrowio.MustTable(arrowio.Float64("Bin Start (B)", slices.Clone(h.Edges[:n])).WithUnit("B"),
		arrowio.Float64("Bin End (B)", slices.Clone(h.Edges[1:])).WithUnit("B"), arrowio.Int64("Messages", slices.Clone(h.Counts)))
}

// String is the headline: sends, size range, bins and the fullest bin (named as Plot names it).
func (h *Histogram) String() string {
	n := len(h.Counts)
	s := fmt.Sprintf("%s sends in %d bins from %s to %s bytes", arrowio.FormatCount(h.Messages()), n,
		fmtEdge(h.Edges[0]), fmtEdge(h.Edges[n]))
	if best := slices.Index(h.Counts, slices.Max(h.Counts)); h.Counts[best] > 0 {
		s += fmt.Sprintf("; fullest bin %s: %s sends", h.sizeBins()[best].label, arrowio.FormatCount(h.Counts[best]))
	}
	return s
}

// fmtEdge writes a bin edge with thousands separators and the decimals it has.
func fmtEdge(v float64) string {
	if math.Abs(v) >= 1e15 || !(v == v) {
		return fmt.Sprintf("%.6g", v)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	i, _ := strconv.ParseInt(whole, 10, 64)
	out := arrowio.FormatCount(i)
	if i == 0 && strings.HasPrefix(whole, "-") {
		out = "-0"
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// sizeClass is what a bin of the histogram can hold: message sizes are whole bytes, so bin i
// holds the sizes from ceil(Edges[i]) up to ceil(Edges[i+1]) exclusive (the last bin up to
// floor of the last edge inclusive), which may be none when bins are narrower than a byte.
type sizeClass struct {
	lo, hi int64 // sizes lo <= s < hi
	label  string
}

// sizeBins labels every bin by the whole sizes it can hold: "256 KiB" for one size,
// "[256 KiB, 512 KiB)" for a range ("[4 MiB, 5 MiB]" for the last bin, which is closed), in
// binary units rounded to three significant digits, or more where that keeps the labels of all
// bins distinct (exact bytes if none do; Table has the exact edges); "(no whole size)" for a
// bin that holds none.
func (h *Histogram) sizeBins() []sizeClass {
	n := len(h.Counts)
	bins := make([]sizeClass, n)
	for i := range bins {
		lo := int64(math.Ceil(h.Edges[i]))
		hi := int64(math.Ceil(h.Edges[i+1]))
		if i == n-1 {
			hi = int64(math.Floor(h.Edges[n])) + 1
		}
		bins[i] = sizeClass{lo: lo, hi: max(hi, lo)}
	}
	// The last bin is closed: it ends with the largest size it holds.
	end := func(i int) (int64, string) {
		if i == n-1 {
			return bins[i].hi - 1, "]"
		}
		return bins[i].hi, ")"
	}
	label := func(i, digits int) string {
		b := bins[i]
		switch {
		case b.hi == b.lo:
			return "(no whole size)"
		case b.hi == b.lo+1:
			return sizeLabel(b.lo, digits)
		}
		e, bracket := end(i)
		return "[" + sizeLabel(b.lo, digits) + ", " + sizeLabel(e, digits) + bracket
	}
	for digits := 3; digits <= 16; digits++ {
		seen := map[string]bool{}
		ok := true
		for i, b := range bins {
			l := label(i, digits)
			e, _ := end(i)
			if b.hi > b.lo && (seen[l] || (b.hi > b.lo+1 && sizeLabel(b.lo, digits) == sizeLabel(e, digits))) {
				ok = false
				break
			}
			seen[l] = b.hi > b.lo
			bins[i].label = l
		}
		if ok {
			return bins
		}
	}
	for i := range bins {
		bins[i].label = label(i, 0)
	}
	return bins
}

// sizeLabel writes v bytes in the largest binary unit it reaches, with up to digits
// significant digits ("256 KiB", "1.5 MiB"); digits 0 writes exact bytes ("262,145 B").
func sizeLabel(v int64, digits int) string {
	if digits == 0 || (v < 1024 && v > -1024) {
		return arrowio.FormatCount(v) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	x, u := float64(v)/1024, 0
	for math.Abs(x) >= 1024 && u < len(units)-1 {
		x /= 1024
		u++
	}
	whole := len(strconv.FormatInt(int64(math.Abs(x)), 10))
	s := strconv.FormatFloat(x, 'f', max(0, digits-whole), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + " " + units[u]
}

// Plot draws the histogram as bars, one per bin that can hold a whole message size, labelled
// by the sizes it holds (see sizeBins); bins narrower than a byte that hold none (a histogram of
// one size in ten bins has nine) are left out, as the title says.
func (h *Histogram) Plot() *plotting.Figure {
	var labels []string
	var values []float64
	empty := 0
	for i, b := range h.sizeBins() {
		if b.hi == b.lo {
			empty++
			continue
		}
		labels = append(labels, b.label)
		values = append(values, float64(h.Counts[i]))
	}
	title := "Message sizes: " + h.String()
	if empty > 0 {
		title += fmt.Sprintf(" (%d bins narrower than a byte hold no size: not shown)", empty)
	}
	return plotting.Bars(title, labels, values, plotting.WithXLabel("sends"), plotting.WithYLabel("message size"))
}

// MIMEBundle shows the histogram as every method's result shows (display.Compose): the
// headline, the bins and the bars.
func (h *Histogram) MIMEBundle() map[string]any {
	return display.Compose(h.String(), h.Table(), h.Plot())
}

// Message is one matched point-to-point message: a row of MessageMatch.
type Message struct {
	Sender, Receiver int32 // ranks
	SendProcess      int32 // index of the sending process in tr.Processes()
	RecvProcess      int32 // index of the receiving process
	Comm, Tag        int32
	Bytes            int64 // bytes of the send record
	Send             int64 // time of the send (MpiSend, MpiIsend), ns
	RecvPosted       int64 // when the receive was posted (MpiIrecvRequest; the receive's own time when blocking), ns
	Recv             int64 // when the receive completed (MpiRecv, MpiIrecv), ns
}

// Latency is the receive time minus the send time, ns.
func (m Message) Latency() int64 { return m.Recv - m.Send }

// MessageMatch is the result of Messages: the matched messages as columns,
// one entry per message, by send time, then sending process and its
// order (Message(i) gives row i as one value), and the problems found.
type MessageMatch struct {
	SendProcess, RecvProcess []int32 // indices into tr.Processes()
	Comm, Tag                []int32
	Bytes                    []int64 // bytes of the send record
	Send                     []int64 // send times, ns
	RecvPosted               []int64 // receive posting times (MpiIrecvRequest; the receive's own time when blocking), ns
	Recv                     []int64 // receive completion times, ns

	UnmatchedSends int64 // sends without a receive
	UnmatchedRecvs int64 // receives without a send
	// On a window or phase: messages sent in it and received outside it
	// (CutSends), received in it and sent outside it (CutRecvs); matched
	// in the whole run, not in the table, not unmatched.
	CutSends, CutRecvs int64
	SizeMismatches     int64 // messages whose receive record has other bytes than the send's
	Reversed           int64 // messages received before they were sent (Recv < Send: clocks out of step)
	Incomplete         int64 // receives posted (MpiIrecvRequest) that never completed and were not cancelled
	CancelledSends     int64 // sends cancelled (MpiRequestCancelled): never sent, not matched
	CancelledRecvs     int64 // receives cancelled
	Unposted           int64 // non-blocking receives without a posting record, ordered by their completion
	Strays             int64 // request records that fit no pending request (see the notes on communication)
	Unresolved         int64 // records whose partner rank was taken as global (see trace.RankResolver)

	ranks    []int32          // rank of each process
	procs    []*trace.Process // the processes (their labels name them in Table, as ccg names locations)
	problems []msgProblem
	defs     *trace.Definitions
}

// Problems of MessageMatch.Problems, in their order of a process's
// problems at one time.
const (
	sizeMismatch uint8 = iota
	unmatchedSend
	unmatchedRecv
	neverCompleted
)

var problemNames = [...]string{sizeMismatch: "size mismatch", unmatchedSend: "unmatched send", unmatchedRecv: "unmatched receive",
	neverCompleted: "receive never completed"}

// msgProblem is one row of MessageMatch.Problems.
type msgProblem struct {
	what        uint8
	proc, peer  int32 // process index; partner rank (-1: unknown)
	comm, tag   int32
	bytes, recv int64 // bytes of the record (the send's for a size mismatch), bytes received (-1: none)
	time        int64
}

// Len returns the number of matched messages.
func (m *MessageMatch) Len() int { return len(m.Send) }

// Message returns matched message i (0 <= i < Len()).
func (m *MessageMatch) Message(i int) Message {
	s, r := m.SendProcess[i], m.RecvProcess[i]
	return Message{Sender: m.ranks[s], Receiver: m.ranks[r], SendProcess: s, RecvProcess: r, Comm: m.Comm[i], Tag: m.Tag[i],
		Bytes: m.Bytes[i], Send: m.Send[i], RecvPosted: m.RecvPosted[i], Recv: m.Recv[i]}
}

// matchCheck is the number of events between two progress reports of
// Messages.
const matchCheck = 1 << 14

// Messages matches the point-to-point sends (MpiSend, MpiIsend) and
// receives (MpiRecv, MpiIrecv) of tr by MPI's non-overtaking rule: the
// k-th send posted by rank a to rank b on a communicator with a tag is
// received by the k-th matching receive that b posted, receives in the
// order of their MpiIrecvRequest records (not of their completion),
// cancelled requests left out (the matcher of ccg.Messages; see the
// notes on communication). Messages that do not fit are reported:
// unmatched sends and receives, size mismatches, receives that never
// completed (Problems lists them).
//
// On a window or phase (trace.Trace.Window, Between, Main, Subset...) the
// messages are matched in the whole run (tr.Root()), so that a window's
// k-th send still meets its partner's k-th receive: the messages with both
// records in the window are kept, those with one record outside are
// counted in CutSends and CutRecvs (never as unmatched), and the problems
// and the counts are those of the records in the window.
func Messages(tr *trace.Trace) *MessageMatch {
	const fn = "profile.Messages"
	defer work.RecoverAs(fn)
	if tr == nil {
		fail(fn, "trace is nil")
	}
	if part.Remote(tr) {
		fail(fn, "the events of %s are held by the ranks of an MPI job: matching sends with receives needs the messages of every process in one place, so Messages does not run distributed (CommMatrix and MessageHistogram do; fetch a few processes with part.Fetch and match those)", tr.Name())
	}
	if tr.Cut != nil {
		return messagesOfCut(tr)
	}
	out, m, r := match(tr, nil, p2p.Columns{})
	fill(out, m, r)
	return out
}

// match matches the messages of tr's processes; in (nil: all) tells the
// records of a window from those outside it (p2p.Record.Outside): event i
// of process loc; cols selects the optional columns of the p2p matching.
func match(tr *trace.Trace, in func(loc, i int) bool, cols p2p.Columns) (*MessageMatch, *p2p.Messages, *p2p.Result) {
	const fn = "profile.Messages"
	procs := tr.Processes()
	res := trace.NewRankResolver(tr.Defs)
	ranks := make([]int32, len(procs))
	for i, p := range procs {
		ranks[i] = p.Rank
	}
	out := &MessageMatch{defs: tr.Defs, ranks: ranks, procs: procs}
	job := work.Start(fn, tr.NumEvents(), "events")
	defer job.Done()
	var unresolved atomic.Int64
	m, r := p2p.Match(ranks, func(i int, emit func(*p2p.Record)) {
		p := procs[i]
		var e p2p.Record
		var unres int64
		msgs := &p.Msgs
		for lo := 0; lo < len(p.Kind); lo += matchCheck {
			hi := min(len(p.Kind), lo+matchCheck)
			for j, k := range p.Kind[lo:hi] {
				switch k {
				case trace.MpiSend, trace.MpiIsend, trace.MpiRecv, trace.MpiIrecv:
					row := p.Ref[lo+j]
					if row < 0 || int(row) >= msgs.Len() {
						continue // a record without its row (a hand-made trace): not a message
					}
					peer, ok := res.Global(msgs.Comm[row], msgs.Peer[row], p.Rank)
					outside := in != nil && !in(i, lo+j)
					if !ok && !outside {
						unres++
					}
					e = p2p.Record{Kind: k, Peer: peer, Comm: msgs.Comm[row], Tag: msgs.Tag[row], Bytes: msgs.Bytes[row],
						Request: msgs.Request[row], Time: p.Time[lo+j], Ref: int64(lo + j), Outside: outside}
					emit(&e)
				case trace.MpiIsendComplete, trace.MpiIrecvRequest, trace.MpiRequestCancelled:
					if row := p.Ref[lo+j]; row < 0 || int(row) >= msgs.Len() {
						continue
					}
					e = p2p.Record{Kind: k, Peer: -1, Comm: -1, Tag: -1, Request: msgs.Request[p.Ref[lo+j]], Time: p.Time[lo+j], Ref: int64(lo + j),
						Outside: in != nil && !in(i, lo+j)}
					emit(&e)
				}
			}
			if err := job.Add(int64(hi - lo)); err != nil {
				panic(err)
			}
		}
		unresolved.Add(unres)
	}, cols)
	out.Unresolved = unresolved.Load()
	return out, m, r
}

// fill sets out's messages and problems from a matching.
func fill(out *MessageMatch, m *p2p.Messages, r *p2p.Result) {
	out.SendProcess, out.RecvProcess, out.Comm, out.Tag = m.SendLoc, m.RecvLoc, m.Comm, m.Tag
	out.Bytes, out.Send, out.RecvPosted, out.Recv = m.Bytes, m.Send, m.RecvPost, m.Recv
	out.SizeMismatches, out.Reversed, out.Incomplete = int64(len(r.Mismatched)), r.Reversed, int64(len(r.Incomplete))
	out.CancelledSends, out.CancelledRecvs, out.Unposted, out.Strays = r.CancelledSends, r.CancelledRecvs, r.Unposted, r.Strays
	for _, x := range r.Mismatched {
		out.problems = append(out.problems, msgProblem{what: sizeMismatch, proc: x[0].Loc, peer: x[0].Peer, comm: x[0].Comm, tag: x[0].Tag,
			bytes: x[0].Bytes, recv: x[1].Bytes, time: x[0].Time})
	}
	for _, l := range r.Pending {
		what, recv := unmatchedRecv, l.Bytes
		if l.Send {
			out.UnmatchedSends++
			what, recv = unmatchedSend, -1
		} else {
			out.UnmatchedRecvs++
		}
		out.problems = append(out.problems, msgProblem{what: what, proc: l.Loc, peer: l.Peer, comm: l.Comm, tag: l.Tag, bytes: l.Bytes, recv: recv, time: l.Time})
	}
	for _, l := range r.Incomplete {
		out.problems = append(out.problems, msgProblem{what: neverCompleted, proc: l.Loc, peer: -1, comm: -1, tag: -1, recv: -1, time: l.Post})
	}
	// problems by process, then time (two stable radix passes: time, then
	// process), ties in the order they were found
	key := make([]int64, len(out.problems))
	for i, p := range out.problems {
		key[i] = p.time
	}
	out.problems = p2p.Gather(p2p.StableOrder(key), out.problems)
	for i, p := range out.problems {
		key[i] = int64(p.proc)
	}
	out.problems = p2p.Gather(p2p.StableOrder(key), out.problems)
}

// Table returns one row per matched message, in the columns of
// ccg.Messages (one builder, internal/p2p): Sender, Receiver (ranks), Send
// Process, Recv Process (process labels, as ccg names locations), Comm,
// Tag, Bytes (B), Send (ns),
// Recv Posted (ns), Recv (ns) (times from the trace's start) and Latency
// (ns), receive completion minus send.
func (m *MessageMatch) Table() *arrowio.Table { return m.table(m.Len()) }

func (m *MessageMatch) table(n int) *arrowio.Table {
	names := make([]string, len(m.procs))
	for i, p := range m.procs {
		names[i] = p.Label()
	}
	return p2p.Table{SendLoc: m.SendProcess, RecvLoc: m.RecvProcess, Comm: m.Comm, Tag: m.Tag, Bytes: m.Bytes, Send: m.Send,
		RecvPost: m.RecvPosted, Recv: m.Recv, Ranks: m.ranks, Names: names, CommName: m.defs.CommName}.Build(n)
}

// Problems returns one row per message that does not fit: Problem
// ("unmatched send", "unmatched receive", "size mismatch", "receive never
// completed"), Rank and Process (the record's process: the sender's for a
// size mismatch), Time (ns), Partner (rank; null when unknown), Comm, Tag,
// Bytes (B) (the send's for a size mismatch) and Bytes Received (B) (null for a
// send); by process and time.
func (m *MessageMatch) Problems() *arrowio.Table {
	n := len(m.problems)
	what, comm := make([]string, n), make([]string, n)
	rank, proc, peer, tag := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	peerOK, tagOK, recvOK := make([]bool, n), make([]bool, n), make([]bool, n)
	bytes, recv, at := make([]int64, n), make([]int64, n), make([]int64, n)
	for i, p := range m.problems {
		what[i], rank[i], proc[i], at[i], bytes[i] = problemNames[p.what], m.ranks[p.proc], p.proc, p.time, p.bytes
		peer[i], peerOK[i] = p.peer, p.peer >= 0
		tag[i], tagOK[i] = p.tag, p.comm >= 0
		if p.comm >= 0 {
			comm[i] = m.defs.CommName(p.comm)
		}
		recv[i], recvOK[i] = p.recv, p.recv >= 0
	}
	return arrowio.MustTable(arrowio.Dict("Problem", what), arrowio.Int32("Rank", rank), arrowio.Int32("Process", proc),
		arrowio.Int64("Time (ns)", at), arrowio.NullableInt32("Partner", peer, peerOK), arrowio.NullableDict("Comm", comm, tagOK),
		arrowio.NullableInt32("Tag", tag, tagOK), arrowio.Int64("Bytes (B)", bytes).WithUnit("B"),
		arrowio.NullableInt64("Bytes Received (B)", recv, recvOK).WithUnit("B"))
}

// String is the headline: messages, bytes, the latency range and what
// does not fit.
func (m *MessageMatch) String() string {
	var bytes int64
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var sum float64
	for i, s := range m.Send {
		bytes += m.Bytes[i]
		l := m.Recv[i] - s
		lo, hi = min(lo, l), max(hi, l)
		sum += float64(l)
	}
	n := m.Len()
	s := fmt.Sprintf("%s messages matched, %s", arrowio.FormatCount(int64(n)), arrowio.FormatBytes(bytes))
	if n > 0 {
		s += fmt.Sprintf("; latency min %s, mean %s, max %s", arrowio.FormatDuration(lo),
			arrowio.FormatDuration(int64(math.Round(sum/float64(n)))), arrowio.FormatDuration(hi))
	}
	s += fmt.Sprintf("; unmatched: %s sends, %s receives", arrowio.FormatCount(m.UnmatchedSends), arrowio.FormatCount(m.UnmatchedRecvs))
	if m.CutSends+m.CutRecvs > 0 {
		s += fmt.Sprintf("; cut by the window: %s sent in it and received outside, %s received in it and sent outside", arrowio.FormatCount(m.CutSends), arrowio.FormatCount(m.CutRecvs))
	}
	for _, x := range []struct {
		n    int64
		what string
	}{
		{m.SizeMismatches, "with other bytes received than sent"},
		{m.Reversed, "received before sent"},
		{m.Incomplete, "receives posted never completed"},
		{m.CancelledSends + m.CancelledRecvs, "requests cancelled"},
		{m.Strays, "request records without their request"},
		{m.Unresolved, "records with the partner rank taken as global (no communicator group)"},
	} {
		if x.n > 0 {
			s += fmt.Sprintf("; %s %s", arrowio.FormatCount(x.n), x.what)
		}
	}
	return s
}

// MIMEBundle renders the headline, the first messages and the first
// problems.
func (m *MessageMatch) MIMEBundle() map[string]any {
	n := min(headRows, m.Len())
	tb := m.table(n).MIMEBundle()
	h, _ := tb["text/html"].(string)
	line := m.String()
	note := ""
	if n < m.Len() {
		note = fmt.Sprintf("<p>the first %d of %d messages; all in Table()</p>", n, m.Len())
	}
	text := line + "\n" + fmt.Sprint(tb["text/plain"])
	if len(m.problems) > 0 {
		k := min(headRows, len(m.problems))
		pb := (&MessageMatch{ranks: m.ranks, problems: m.problems[:k], defs: m.defs}).Problems().MIMEBundle()
		ph, _ := pb["text/html"].(string)
		note += fmt.Sprintf("<p>%d of %d messages that do not fit; all in Problems()</p>", k, len(m.problems)) + ph
		text += "\n" + fmt.Sprint(pb["text/plain"])
	}
	return map[string]any{
		"text/plain": text,
		"text/html":  "<p><b>" + html.EscapeString(line) + "</b></p>" + h + note,
	}
}

// messagesOfCut is Messages on a window or phase: the whole run read,
// the records outside the cut marked (p2p.Record.Outside).
func messagesOfCut(tr *trace.Trace) *MessageMatch {
	root := tr.Root()
	type rng struct{ lo, hi, proc int } // the cut's range of each root location, and its process there
	at := make([]rng, root.NumProcesses())
	for i := range at {
		at[i] = rng{proc: -1}
	}
	for i, p := range tr.Processes() {
		at[p.Index] = rng{lo: p.Clip.Lo, hi: p.Clip.Hi, proc: i}
	}
	out, m, r := match(root, func(loc, i int) bool { x := at[loc]; return x.proc >= 0 && i >= x.lo && i < x.hi }, p2p.Columns{})
	// root locations -> the cut's processes (every record reported is inside)
	for i := range m.SendLoc {
		m.SendLoc[i], m.RecvLoc[i] = int32(at[m.SendLoc[i]].proc), int32(at[m.RecvLoc[i]].proc)
	}
	local := func(es []p2p.End) {
		for i := range es {
			es[i].Loc = int32(at[es[i].Loc].proc)
		}
	}
	local(r.Pending)
	local(r.Incomplete)
	for i := range r.Mismatched {
		local(r.Mismatched[i][:])
	}
	out.defs, out.ranks, out.procs = tr.Defs, make([]int32, tr.NumProcesses()), tr.Processes()
	for i, p := range tr.Processes() {
		out.ranks[i] = p.Rank
	}
	out.CutSends, out.CutRecvs = r.CutSends, r.CutRecvs
	fill(out, m, r)
	return out
}
