// Package labels names processes and sets of processes for the tables and
// summaries of the structural methods (cluster, msa): exact lists and
// exact ranges of ranks, with the run's name when the processes come from
// several runs, and the stable order (run, kind, thread, rank) that breaks
// ties independently of the order processes are passed in.
//
// A range "rank 3 … rank 7" always means every one of ranks 3, 4, 5, 6 and
// 7 (same run, same thread), and is used for three ranks or more; anything
// else is listed: ranks 0, 2 and 4 read "rank 0, rank 2, rank 4".
package labels

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
)

// Runs names the runs (traces) of a set of processes and orders the
// processes stably.
type Runs struct {
	name  map[*trace.Trace]string
	order map[*trace.Trace]int
	multi bool
}

// NewRuns names the runs of ps. A run is named after its file (the
// directory of an OTF2 archive, since Score-P names every anchor
// traces.otf2; the stem of an events file); runs without a file are "run
// 1", "run 2", ...; runs with equal names get " (1)", " (2)", ... Runs
// are ordered by name, then by their number of processes, events and
// duration, then (only for runs equal in all of these: the same run
// loaded twice) by first appearance in ps.
func NewRuns(ps []*trace.Process) *Runs {
	r := &Runs{name: map[*trace.Trace]string{}, order: map[*trace.Trace]int{}}
	var ts []*trace.Trace
	for _, p := range ps {
		if p == nil {
			continue
		}
		if _, ok := r.order[p.Trace]; !ok {
			r.order[p.Trace] = len(ts)
			ts = append(ts, p.Trace)
		}
	}
	r.multi = len(ts) > 1
	type runKey struct {
		t       *trace.Trace
		base    string
		procs   int
		events  int64
		dur     int64
		appears int
	}
	keys := make([]runKey, len(ts))
	bases := map[string]int{}
	for i, t := range ts {
		keys[i] = runKey{t: t, base: RunName(t), appears: i}
		bases[keys[i].base]++
	}
	for i, k := range keys {
		if t := k.t; t != nil && bases[k.base] > 1 { // only runs of one name need the fingerprint
			keys[i].procs, keys[i].events, keys[i].dur = t.NumProcesses(), t.NumEvents(), t.Duration()
		}
	}
	slices.SortStableFunc(keys, func(a, b runKey) int {
		return cmp.Or(cmp.Compare(a.base, b.base), cmp.Compare(a.procs, b.procs), cmp.Compare(a.events, b.events),
			cmp.Compare(a.dur, b.dur), cmp.Compare(a.appears, b.appears))
	})
	seen := map[string]int{}
	for i, k := range keys {
		r.order[k.t] = i
		seen[k.base]++
		switch {
		case k.base == "":
			r.name[k.t] = fmt.Sprintf("run %d", seen[k.base])
		case bases[k.base] > 1:
			r.name[k.t] = fmt.Sprintf("%s (%d)", k.base, seen[k.base])
		default:
			r.name[k.t] = k.base
		}
	}
	return r
}

// RunName is the run's name, tr.Name(): the name given by trace.Named, the
// name an export carries, the directory of an OTF2 archive
// (runs/v1/traces.otf2 -> "v1"), an events file's name without its
// extension ("v1.parquet" -> "v1"), a generator's name; "" for a nil trace
// or one nothing names.
func RunName(t *trace.Trace) string { return t.Name() }

// Pair names two runs for the tables, headlines and figures that compare
// them: their RunNames; fa and fb for a run nothing names; equal names get
// " (A)" and " (B)" so the two stay apart.
func Pair(a, b *trace.Trace, fa, fb string) (string, string) {
	na, nb := RunName(a), RunName(b)
	if na == "" {
		na = fa
	}
	if nb == "" {
		nb = fb
	}
	if na == nb {
		na, nb = na+" (A)", nb+" (B)"
	}
	return na, nb
}

// Multi reports whether the processes come from more than one run.
func (r *Runs) Multi() bool { return r.multi }

// Name returns the name of t's run.
func (r *Runs) Name(t *trace.Trace) string { return r.name[t] }

// Label returns p's label ("rank 3"), prefixed with its run's name when
// the processes come from several runs ("v1: rank 3").
func (r *Runs) Label(p *trace.Process) string {
	if r.multi {
		return r.name[p.Trace] + ": " + p.Label()
	}
	return p.Label()
}

// key is where a process sorts: run, kind (CPU before GPU), thread (or
// stream), rank (or GPU) number, index in its trace.
type key struct {
	run         int
	gpu         bool
	thread, num int32
	index       int
}

func (r *Runs) keyOf(p *trace.Process) key {
	gpu, num, thread := p.Place()
	return key{run: r.order[p.Trace], gpu: gpu, thread: thread, num: num, index: p.Index}
}

func compareKeys(a, b key) int {
	return cmp.Or(cmp.Compare(a.run, b.run), cmpBool(a.gpu, b.gpu), cmp.Compare(a.thread, b.thread),
		cmp.Compare(a.num, b.num), cmp.Compare(a.index, b.index))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// Compare orders processes by (run, kind, thread, rank, index): a total
// order on the processes of distinct traces that does not depend on the
// order they are given in.
func (r *Runs) Compare(p, q *trace.Process) int { return compareKeys(r.keyOf(p), r.keyOf(q)) }

// Order returns the positions of ps in Compare order (stable for equal
// keys, which only processes given twice have).
func (r *Runs) Order(ps []*trace.Process) []int32 {
	keys := make([]key, len(ps))
	pos := make([]int32, len(ps))
	for i, p := range ps {
		keys[i], pos[i] = r.keyOf(p), int32(i)
	}
	slices.SortStableFunc(pos, func(a, b int32) int { return compareKeys(keys[a], keys[b]) })
	return pos
}

// span is a run of consecutive rank numbers of one run, kind and thread.
type span struct {
	run    int
	gpu    bool
	thread int32
	lo, hi int32
	rep    *trace.Process // a process of the span, for its labels
	last   *trace.Process
}

// List accumulates processes and prints them as exact ranges.
type List struct {
	r     *Runs
	spans []span
	n     int
	max   int // spans kept (0: all); see NewListUpTo
}

// NewList returns an empty list naming processes by r.
func (r *Runs) NewList() *List { return &List{r: r} }

// NewListUpTo returns an empty list that keeps memory for what String(limit)
// can show: processes must be added in Order's order, and past limit
// ranges (each prints in at least one character) further ones are only
// counted.
func (r *Runs) NewListUpTo(limit int) *List { return &List{r: r, max: max(limit, 1)} }

// Add adds p. Processes may come in any order (but see NewListUpTo);
// adding them in Order's order keeps the list compact while it grows.
func (l *List) Add(p *trace.Process) {
	k := l.r.keyOf(p)
	l.n++
	if n := len(l.spans); n > 0 {
		s := &l.spans[n-1]
		if s.run == k.run && s.gpu == k.gpu && s.thread == k.thread && k.num == s.hi+1 {
			s.hi, s.last = k.num, p
			return
		}
	}
	if l.max > 0 && len(l.spans) >= l.max {
		return // counted in n; String says how many more
	}
	l.spans = append(l.spans, span{run: k.run, gpu: k.gpu, thread: k.thread, lo: k.num, hi: k.num, rep: p, last: p})
}

// Len returns the number of processes added.
func (l *List) Len() int { return l.n }

// String prints the processes as exact ranges, at most limit characters
// (limit <= 0: no limit) and then ", … (n more)" with the number of
// processes left out. With several runs each run's ranges follow its name:
// "v1: rank 0 … rank 3, rank 5; v2: rank 0".
func (l *List) String(limit int) string {
	sp := slices.Clone(l.spans)
	slices.SortStableFunc(sp, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.run, b.run), cmpBool(a.gpu, b.gpu), cmp.Compare(a.thread, b.thread), cmp.Compare(a.lo, b.lo))
	})
	// Join spans that became adjacent after sorting.
	var merged []span
	for _, s := range sp {
		if n := len(merged); n > 0 {
			m := &merged[n-1]
			if m.run == s.run && m.gpu == s.gpu && m.thread == s.thread && s.lo == m.hi+1 {
				m.hi, m.last = s.hi, s.last
				continue
			}
		}
		merged = append(merged, s)
	}
	var b strings.Builder
	run := -1
	shown := 0
	for i, s := range merged {
		part := s.rep.Label()
		switch {
		case s.hi == s.lo+1: // two: listed
			part += ", " + s.last.Label()
		case s.hi > s.lo:
			part += " … " + s.last.Label()
		}
		sep := ""
		switch {
		case i == 0 && l.r.multi:
			part = l.r.name[s.rep.Trace] + ": " + part
		case i == 0:
		case l.r.multi && s.run != run:
			sep = "; "
			part = l.r.name[s.rep.Trace] + ": " + part
		default:
			sep = ", "
		}
		if limit > 0 && b.Len() > 0 && b.Len()+len(sep)+len(part) > limit {
			fmt.Fprintf(&b, ", … (%d more)", l.n-shown)
			return b.String()
		}
		run = s.run
		b.WriteString(sep + part)
		shown += int(s.hi-s.lo) + 1
	}
	if shown < l.n { // a NewListUpTo list printed without its limit
		fmt.Fprintf(&b, ", … (%d more)", l.n-shown)
	}
	return b.String()
}

// Of prints ps as exact ranges (see List.String).
func (r *Runs) Of(ps []*trace.Process, limit int) string {
	l := r.NewList()
	for _, p := range ps {
		l.Add(p)
	}
	return l.String(limit)
}
