package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// DefaultNodeLimit is the default node-count guard of the concept lattice
// (SC IX.B): past it, clustering falls back to functions.
const DefaultNodeLimit = 200_000

// DefaultSigma is the default merge threshold σ of the summary, the value
// SC VIII.B uses for PIConGPU.
const DefaultSigma = 0.83

type options struct {
	measure Measure
	sigma   float64
	limit   int
	procs   []*trace.Process
}

// Option configures Structural.
type Option func(*options)

// WithMeasure selects the attributes: Pairs (default), PairsPlus or Funcs.
func WithMeasure(m Measure) Option { return func(o *options) { o.measure = m } }

// WithSigma sets the threshold σ of the coarsened groups that the summary
// shows (default DefaultSigma); Coarsen takes its own.
func WithSigma(sigma float64) Option { return func(o *options) { o.sigma = sigma } }

// WithNodeLimit sets the lattice's node-count guard (default
// DefaultNodeLimit; 0 for none). Past it the clustering uses functions
// instead of pairs (SC IX.B) and says so.
func WithNodeLimit(n int) Option { return func(o *options) { o.limit = n } }

// WithProcesses clusters only the given processes of the trace.
func WithProcesses(ps ...*trace.Process) Option {
	return func(o *options) { o.procs = append(o.procs, ps...) }
}

// Clustering is the structural clustering of a trace's processes: groups
// of processes with equal attribute sets (hash clustering, Weber 5.1.2),
// their concept lattice (SC IV-VI), the similarity and subsumption matrices
// read from it (SC VI.B, VII), and the greedy merge of similar groups
// (SC VIII.B). Groups are numbered by their first process.
type Clustering struct {
	tr       *trace.Trace
	procs    []*trace.Process // clustered processes, by Index
	asked    Measure
	measure  Measure
	fallback *LimitError // the asked measure's lattice hit the guard
	latErr   error       // no lattice at all (even funcs hit the guard)
	sigma    float64
	limit    int

	sets    []*distinct
	setOf   []int32 // batch position -> distinct pair set
	hash    *HashClustering
	groups  [][]int32 // group -> batch positions, ascending
	groupOf []int32   // batch position -> group
	lattice *Lattice
	node    []int32 // group -> lattice node

	matrix, sub *Matrix
	profiles    map[int]profile // batch position -> profile, from the job on a distributed trace
	summary     string          // the merged-groups line of the summary, once computed
}

// Structural clusters the processes of tr by their call structure (Weber
// 5.1, SC). Options: WithMeasure, WithSigma, WithNodeLimit,
// WithProcesses. It shows progress and stops on interrupt; bad arguments
// panic with an *Error.
func Structural(tr *trace.Trace, opts ...Option) *Clustering {
	const fn = "cluster.Structural"
	if tr == nil {
		fail(fn, "trace is nil")
	}
	o := options{measure: Pairs, sigma: DefaultSigma, limit: DefaultNodeLimit}
	for _, f := range opts {
		if f != nil { // a nil option is ignored
			f(&o)
		}
	}
	if !o.measure.valid() {
		fail(fn, "unknown measure %d (use cluster.Pairs, cluster.PairsPlus or cluster.Funcs)", int(o.measure))
	}
	if o.sigma < 0 || o.sigma > 1 || o.sigma != o.sigma {
		fail(fn, "σ = %v is outside [0, 1]", o.sigma)
	}
	if o.limit < 0 {
		fail(fn, "node limit %d is negative (0 means no limit)", o.limit)
	}
	procs := tr.Processes()
	if o.procs != nil {
		seen := map[int]bool{}
		procs = nil
		for i, p := range o.procs {
			if p == nil || p.Trace != tr {
				fail(fn, "WithProcesses: process %d of %d is not a process of this trace", i, len(o.procs))
			}
			if !seen[p.Index] {
				seen[p.Index] = true
				procs = append(procs, p)
			}
		}
		slices.SortFunc(procs, func(a, b *trace.Process) int { return a.Index - b.Index })
	}
	job := work.Start("clustering processes", int64(len(procs)), "processes")
	defer job.Done()
	c := &Clustering{tr: tr, procs: procs, asked: o.measure, sigma: o.sigma, limit: o.limit}
	if part.Remote(tr) {
		c.sets = remoteSets(fn, tr, procs)
		job.Add(int64(len(procs)))
	} else {
		c.sets = pairSets(procs, job)
	}
	c.setOf = make([]int32, len(procs))
	for s, d := range c.sets {
		for _, i := range d.procs {
			c.setOf[i] = int32(s)
		}
	}
	c.group(o.measure)
	if err := c.buildLattice(); err != nil {
		var le *LimitError
		if !errors.As(err, &le) {
			panic(err)
		}
		if o.measure != Funcs {
			c.fallback = le
			c.group(Funcs)
			if err := c.buildLattice(); err != nil {
				c.latErr = err
			}
		} else {
			c.latErr = err
		}
	}
	return c
}

// group makes the hash groups of measure m.
func (c *Clustering) group(m Measure) {
	c.measure = m
	c.hash = NewHashClustering(m)
	hg := make([]int32, len(c.sets))
	for s, d := range c.sets {
		ids := make([]int32, len(d.procs))
		for k, i := range d.procs {
			ids[k] = int32(c.procs[i].Index)
		}
		hg[s] = c.hash.addSet(ids, c.hash.dict.idsOf(d.struc.Of(m)))
	}
	// Hash groups are in order of their first distinct set, and distinct
	// sets in order of their first process: group g's first process comes
	// before group g+1's.
	c.groups = make([][]int32, c.hash.Len())
	c.groupOf = make([]int32, len(c.procs))
	for i := range c.procs {
		g := hg[c.setOf[i]]
		c.groups[g] = append(c.groups[g], int32(i))
		c.groupOf[i] = g
	}
}

func (c *Clustering) buildLattice() error {
	l := NewLattice(c.measure, c.limit)
	l.tr = c.tr
	c.node = make([]int32, len(c.groups))
	for g, hg := range c.hash.groups {
		n, err := l.insert(hg.procs, l.dict.idsOf(c.hash.dict.namesOf(hg.set)), len(c.groups)-g-1)
		if err != nil {
			var le *LimitError
			if errors.As(err, &le) {
				le.Inserted = g
			}
			c.lattice = nil
			return err
		}
		c.node[g] = n
	}
	c.lattice = l
	l.finish()
	return nil
}

// Measure returns the measure the groups and the lattice use: the one
// asked for, or Funcs after a fallback (see Fallback).
func (c *Clustering) Measure() Measure { return c.measure }

// Fallback returns the node-limit error that made the clustering fall back
// from the measure asked for to Funcs (SC IX.B), or nil.
func (c *Clustering) Fallback() error {
	if c.fallback == nil {
		return nil
	}
	return c.fallback
}

// NumGroups returns the number of groups.
func (c *Clustering) NumGroups() int { return len(c.groups) }

// NumProcesses returns the number of clustered processes.
func (c *Clustering) NumProcesses() int { return len(c.procs) }

// Group returns the processes of group i, in trace order: ready for
// align.Pair or msa.
func (c *Clustering) Group(i int) []*trace.Process {
	if i < 0 || i >= len(c.groups) {
		fail("cluster.Clustering.Group", "group %d out of range: %d groups (0..%d)", i, len(c.groups), len(c.groups)-1)
	}
	out := make([]*trace.Process, len(c.groups[i]))
	for k, j := range c.groups[i] {
		out[k] = c.procs[j]
	}
	return out
}

// Groups returns the processes of every group.
func (c *Clustering) Groups() [][]*trace.Process {
	out := make([][]*trace.Process, len(c.groups))
	for i := range out {
		out[i] = c.Group(i)
	}
	return out
}

// GroupOf returns the group of process p, or -1 if p was not clustered.
func (c *Clustering) GroupOf(p *trace.Process) int {
	i, ok := slices.BinarySearchFunc(c.procs, p.Index, func(q *trace.Process, k int) int { return q.Index - k })
	if !ok || c.procs[i] != p {
		return -1
	}
	return int(c.groupOf[i])
}

// Hash returns the SHA3-512 (hex) of group i's serialised attribute set.
func (c *Clustering) Hash(i int) string {
	if i < 0 || i >= len(c.groups) {
		fail("cluster.Clustering.Hash", "group %d out of range: %d groups", i, len(c.groups))
	}
	return c.hash.hashOf(c.hash.groups[i])
}

// HashClustering returns the hash clustering behind the groups (group i is
// its i-th group in insertion order).
func (c *Clustering) HashClustering() *HashClustering { return c.hash }

// Lattice returns the concept lattice of the groups; it panics with an
// *Error if the lattice exceeded the node guard even with functions.
func (c *Clustering) Lattice() *Lattice {
	c.needLattice("cluster.Clustering.Lattice")
	return c.lattice
}

func (c *Clustering) needLattice(fn string) {
	if c.lattice == nil {
		panic(&Error{Func: fn, Msg: fmt.Sprintf("no concept lattice: %v, with functions too; raise the guard with cluster.WithNodeLimit", c.latErr), Err: c.latErr})
	}
}

// Kind names the kind of a process: "MPI rank", "thread" or "GPU stream".
func Kind(p *trace.Process) string {
	gpu, _, thread := p.Place()
	switch {
	case gpu:
		return "GPU stream"
	case thread == 0:
		return "MPI rank"
	}
	return "thread"
}

// members describes a list of processes exactly and briefly: "rank 0",
// "rank 1 … rank 15 (15)" (every rank from 1 to 15), "rank 0, rank 2,
// rank 4 (3)", at most about 60 characters of ranges then "… (n more)".
func members(ps []*trace.Process) string {
	if len(ps) == 0 {
		return ""
	}
	s := labels.NewRuns(ps).Of(ps, 60)
	if len(ps) > 2 {
		s += fmt.Sprintf(" (%d)", len(ps))
	}
	return s
}

// kinds counts the kinds of ps: "15 MPI ranks, 240 threads".
func kinds(ps []*trace.Process) string {
	order := []string{"MPI rank", "thread", "GPU stream"}
	n := map[string]int{}
	for _, p := range ps {
		n[Kind(p)]++
	}
	var parts []string
	for _, k := range order {
		switch {
		case n[k] == 1:
			parts = append(parts, "1 "+k)
		case n[k] > 1:
			parts = append(parts, arrowio.FormatCount(int64(n[k]))+" "+k+"s")
		}
	}
	return strings.Join(parts, ", ")
}

// GroupLabel returns the short label of group i, such as "G1: rank 1 …
// rank 15 (15)".
func (c *Clustering) GroupLabel(i int) string {
	return fmt.Sprintf("G%d: %s", i, members(c.Group(i)))
}

// Table returns one row per process: Process (index), Label, Kind, Group,
// Hash (SHA3-512 hex of the group's attribute set), Funcs, Pairs and Pairs+
// (the sizes of the process's sets).
func (c *Clustering) Table() *arrowio.Table {
	n := len(c.procs)
	idx, group, nf, np, npp := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	label, kind, hash := make([]string, n), make([]string, n), make([]string, n)
	for i, p := range c.procs {
		s := c.sets[c.setOf[i]].struc
		idx[i], group[i] = int32(p.Index), c.groupOf[i]
		nf[i], np[i], npp[i] = int32(len(s.Funcs)), int32(len(s.Pairs)), int32(len(s.PairsPlus))
		label[i], kind[i], hash[i] = p.Label(), Kind(p), c.Hash(int(c.groupOf[i]))
	}
	return arrowio.MustTable(arrowio.Int32("Process", idx), arrowio.String("Label", label), arrowio.Dict("Kind", kind),
		arrowio.Int32("Group", group), arrowio.Dict("Hash", hash),
		arrowio.Int32(Funcs.column(), nf), arrowio.Int32(Pairs.column(), np), arrowio.Int32(PairsPlus.column(), npp))
}

// GroupTable returns one row per group: Group, Processes (count), Kinds,
// Members, the size of the group's attribute set under Measure (a column
// named after it: Pairs, Pairs+ or Funcs), Own (the attributes of its
// lattice node that no more general node has) and Hash.
func (c *Clustering) GroupTable() *arrowio.Table { return c.groupTable(len(c.groups), false) }

// groupTable is GroupTable of the first g groups; for the display, the groups labelled "G0",
// "G1", ... as String and GroupLabel name them, without Hash.
func (c *Clustering) groupTable(g int, display bool) *arrowio.Table {
	idx, size, attrs, own := make([]int32, g), make([]int64, g), make([]int32, g), make([]int32, g)
	kind, mem, hash := make([]string, g), make([]string, g), make([]string, g)
	ownValid := make([]bool, g)
	for i := range g {
		ps := c.Group(i)
		idx[i], size[i] = int32(i), int64(len(ps))
		attrs[i] = int32(len(c.hash.groups[i].set))
		if c.lattice != nil {
			own[i], ownValid[i] = int32(len(c.lattice.nodes[c.node[i]].own)), true
		}
		kind[i], mem[i], hash[i] = kinds(ps), members(ps), c.Hash(i)
	}
	cols := []arrowio.Column{arrowio.Int32("Group", idx), arrowio.Int64("Processes", size), arrowio.String("Kinds", kind),
		arrowio.String("Members", mem), arrowio.Int32(c.measure.column(), attrs),
		arrowio.NullableInt32("Own", own, ownValid), arrowio.String("Hash", hash)}
	if display {
		label := make([]string, g)
		for i := range label {
			label[i] = fmt.Sprintf("G%d", i)
		}
		cols = append([]arrowio.Column{arrowio.String("Group", label)}, cols[1:len(cols)-1]...)
	}
	return arrowio.MustTable(cols...)
}

func (c *Clustering) headline() string {
	s := fmt.Sprintf("structural clustering (%v) of %s processes: %d groups", c.measure,
		arrowio.FormatCount(int64(len(c.procs))), len(c.groups))
	if c.lattice != nil {
		s += fmt.Sprintf("; concept lattice of %s nodes over %s attributes",
			arrowio.FormatCount(int64(c.lattice.Len())), arrowio.FormatCount(int64(c.lattice.NumAttributes())))
	}
	return s
}

func (c *Clustering) notes() []string {
	var out []string
	if c.fallback != nil {
		out = append(out, fmt.Sprintf("fell back from %v to funcs (SC IX.B): the %v lattice exceeded %s nodes after %d of %d groups",
			c.asked, c.asked, arrowio.FormatCount(int64(c.fallback.Limit)), c.fallback.Inserted, c.fallback.Inserted+c.fallback.Remaining+1))
	}
	if c.latErr != nil {
		out = append(out, fmt.Sprintf("no lattice: %v (raise the guard with cluster.WithNodeLimit)", c.latErr))
	}
	return out
}

// maxSummaryGroups bounds the groups listed in String and MIMEBundle.
const maxSummaryGroups = 20

// String summarises the clustering: a headline, then one line per group
// (at most 20).
func (c *Clustering) String() string {
	var b strings.Builder
	b.WriteString(c.headline())
	for _, n := range c.notes() {
		b.WriteString("\n" + n)
	}
	for i := range min(len(c.groups), maxSummaryGroups) {
		ps := c.Group(i)
		fmt.Fprintf(&b, "\nG%d: %s (%s): %s, %d %v", i, plural(len(ps), "process", "processes"), kinds(ps), members(ps), len(c.hash.groups[i].set), c.measure)
	}
	if len(c.groups) > maxSummaryGroups {
		fmt.Fprintf(&b, "\n… %d more groups (c.GroupTable() lists all)", len(c.groups)-maxSummaryGroups)
	}
	if m := c.mergedSummary(); m != "" {
		b.WriteString("\n" + m)
	}
	return b.String()
}

// mergedSummary is the summary's line on the merge at σ, computed once
// (String and MIMEBundle both show it).
func (c *Clustering) mergedSummary() string {
	if c.lattice == nil || len(c.groups) < 2 || len(c.groups) > 2000 {
		return ""
	}
	if c.summary != "" {
		return c.summary
	}
	sizes := make([]int, len(c.groups))
	for i, g := range c.groups {
		sizes[i] = len(g)
	}
	m := c.Matrix()
	n := len(greedyMerge(m.Values, m.frac, sizes, c.sigma))
	c.summary = fmt.Sprintf("merged at σ = %.2f (SC VIII.B): %d groups (c.Coarsen(σ) for pairs to align)", c.sigma, n)
	return c.summary
}

// MIMEBundle shows the clustering as every method's result shows (display.Composition): the
// headline (with the fallback and the merge at σ under it), the first 20 rows of GroupTable
// (one row per group; Table has one per process) with a note when there are more groups. A
// clustering has no figure of its own: c.Matrix().Plot() draws the groups' similarities. Its
// text is String.
func (c *Clustering) MIMEBundle() map[string]any {
	head := c.headline()
	for _, n := range c.notes() {
		head += "\n" + n
	}
	if m := c.mergedSummary(); m != "" {
		head += "\n" + m
	}
	note := fmt.Sprintf("Table() has one row per process (%s), GroupTable() one per group; c.Matrix().Plot() draws their similarities",
		arrowio.FormatCount(int64(len(c.procs))))
	if len(c.groups) > maxSummaryGroups {
		note = fmt.Sprintf("first %d of %s groups; ", maxSummaryGroups, arrowio.FormatCount(int64(len(c.groups)))) + note
	}
	b := display.Composition{Headline: head, Table: c.groupTable(min(len(c.groups), maxSummaryGroups), true), Note: note}.MIMEBundle()
	b["text/plain"] = c.String()
	return b
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%s %s", arrowio.FormatCount(int64(n)), many)
}
