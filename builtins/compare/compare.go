package compare

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Error is the panic value of the notebook surface for bad arguments, impossible requests and
// interrupted work: the one error of every builtin (work.Error), named after the function.
type Error = work.Error

// Option configures Runs.
type Option func(*options)

type options struct {
	sigma   float64
	mapping func(*trace.Process) string
	byRank  bool
	weak    bool
	top     int
	procs   []*trace.Process
	hasProc bool
}

// WithSigma sets the least pairsim (Weber eq. 5.2) at which two groups of different structure
// are matched as similar (default cluster.DefaultSigma, the σ of SC VIII.B).
func WithSigma(sigma float64) Option {
	if !(sigma >= 0 && sigma <= 1) {
		work.Fail("compare.WithSigma", "σ = %v is not in [0, 1]", sigma)
	}
	return func(o *options) { o.sigma = sigma }
}

// WithMapping matches processes by a key of the user's (Intel Trace Analyzer's way): processes
// of both runs with equal keys form one group, whatever their structure. An empty key leaves
// a process out of every group (it is counted in the headline).
func WithMapping(key func(*trace.Process) string) Option {
	if key == nil {
		work.Fail("compare.WithMapping", "the key function is nil")
	}
	return func(o *options) { o.mapping = key }
}

// WithMatchByRank matches each location of run A with the location of the same rank and thread
// in run B (for runs of the same size): locations whose structural groups agree on both sides
// form one group; locations of one run only are groups of their own.
func WithMatchByRank() Option { return func(o *options) { o.byRank = true } }

// WithWeakScaling computes the scaling efficiency of weak scaling, T_A / T_B (the work per
// process is the same in both runs), instead of strong scaling's T_A·P_A / (T_B·P_B).
func WithWeakScaling() Option { return func(o *options) { o.weak = true } }

// WithTop sets how many aligned occurrences Where keeps per group (default 10).
func WithTop(n int) Option {
	if n < 1 {
		work.Fail("compare.WithTop", "top %d: need at least 1", n)
	}
	return func(o *options) { o.top = n }
}

// WithProcesses restricts the comparison to the given processes; each must belong to run A or
// run B, and a run none of them belongs to is compared whole.
func WithProcesses(ps ...*trace.Process) Option {
	return func(o *options) {
		o.procs = append(o.procs, ps...)
		o.hasProc = true
	}
}

// run is one side of a comparison.
type run struct {
	tr    *trace.Trace
	name  string
	sum   *Summary
	gpath []int32 // summary path -> the comparison's path
	total int64   // ns in instrumented regions, over all processes
	sent  int64   // messages over all processes
}

// Result is the comparison of two runs (Runs).
type Result struct {
	runs   [2]run
	opts   options
	paths           // both runs' call paths
	pair   []int32  // per path: its caller->callee pair
	pairs  []string // the pairs' names ("main → solve")
	groups []*group
	left   [2]int // processes left out by an empty mapping key

	fnRows    []FunctionRow
	treeRows  []TreeRow
	treeStart []int // per group id its first row in treeRows, then len(treeRows)
	where     []Occurrence
	whereOK   bool
}

// State is how a group of one run matches the other run.
type State uint8

const (
	Equal   State = iota // the same structure (caller->callee pairs) in both runs
	Similar              // structures differ, pairsim at least σ (or a user's or rank's match)
	OnlyA                // processes of run A whose structure no group of run B matches
	OnlyB                // processes of run B whose structure no group of run A matches
)

var stateNames = [...]string{Equal: "equal", Similar: "similar", OnlyA: "only in A", OnlyB: "only in B"}

// String returns "equal", "similar", "only in A" or "only in B".
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

// group is a matched pair of behaviour groups (or a group of one run only).
type group struct {
	id      int
	state   State
	sim     float64    // pairsim of the two sides' pair sets; NaN for a group of one run
	procs   [2][]int32 // indices into runs[k].sum.procs
	set     [2][]int32 // sorted pair ids, the union over the side's processes
	names   [2][]string
	closest *group  // for a group of one run: the most similar group with processes in the other run
	closeTo float64 // its pairsim
}

// Runs compares run a with run b, whatever their numbers of processes: both runs' processes are
// grouped by structure together and the groups matched across the runs (SC VIII.C), then every
// view compares matched groups per process. Options: WithSigma, WithMapping,
// WithMatchByRank, WithWeakScaling, WithTop, WithProcesses. It shows progress and stops on
// interrupt; bad arguments panic with an *Error.
func Runs(a, b *trace.Trace, opts ...Option) *Result {
	const fn = "compare.Runs"
	if a == nil || b == nil {
		work.Fail(fn, "a run is nil")
	}
	o := options{sigma: cluster.DefaultSigma, top: 10}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	defer work.RecoverAs(fn)
	r := &Result{opts: o}
	na, nb := labels.Pair(a, b, "A", "B")
	r.runs[0] = run{tr: a, name: na}
	r.runs[1] = run{tr: b, name: nb}
	procs := [2][]*trace.Process{a.Processes(), b.Processes()}
	if o.hasProc {
		procs = splitProcs(fn, a, b, o.procs)
	}
	job := work.Start(fn+": "+na+" vs "+nb, int64(len(procs[0])+len(procs[1])), "processes")
	defer job.Done()
	for k := range r.runs {
		p, err := part.Run(r.runs[k].tr, procs[k], summaryMethod{job: job})
		if err != nil {
			work.FailErr(fn, err)
		}
		r.runs[k].sum = p.(*Summary)
	}
	r.join()
	r.group()
	return r
}

// splitProcs sorts the processes of WithProcesses by run.
func splitProcs(fn string, a, b *trace.Trace, ps []*trace.Process) [2][]*trace.Process {
	var out [2][]*trace.Process
	for _, p := range ps {
		switch {
		case p == nil:
			work.Fail(fn, "WithProcesses: a process is nil")
		case p.Trace == a:
			out[0] = append(out[0], p)
		case p.Trace == b:
			out[1] = append(out[1], p)
		default:
			work.Fail(fn, "WithProcesses: %s belongs to neither run", p.Label())
		}
	}
	if out[0] == nil {
		out[0] = a.Processes()
	}
	if out[1] == nil {
		out[1] = b.Processes()
	}
	return out
}

// join builds the comparison's call paths (the union of both runs' paths by name) and their
// caller->callee pairs.
func (r *Result) join() {
	r.paths = newPaths()
	for k := range r.runs {
		r.runs[k].gpath = r.absorb(&r.runs[k].sum.paths)
		for _, p := range r.runs[k].sum.procs {
			r.runs[k].total += p.Total
			r.runs[k].sent += p.Sent
		}
	}
	pairIdx := map[[2]string]int32{}
	r.pair = make([]int32, len(r.name))
	for i, callee := range r.name {
		caller := ""
		if r.parent[i] >= 0 {
			caller = r.name[r.parent[i]]
		}
		pid, ok := pairIdx[[2]string{caller, callee}]
		if !ok {
			pid = int32(len(r.pairs))
			pairIdx[[2]string{caller, callee}] = pid
			r.pairs = append(r.pairs, cluster.PairName(caller, callee))
		}
		r.pair[i] = pid
	}
}

// pairSet returns the sorted caller->callee pairs of process p of run k.
func (r *Result) pairSet(k int, p *procSummary) []int32 {
	set := make([]int32, 0, len(p.Paths))
	for _, st := range p.Paths {
		set = append(set, r.pair[r.runs[k].gpath[st.Path]])
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// samePaths reports whether two processes have the same call paths (their pair sets are then
// the same).
func samePaths(a, b []pathStat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path {
			return false
		}
	}
	return true
}

func setKey(set []int32) string {
	b := make([]byte, 0, 4*len(set))
	for _, v := range set {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return string(b)
}

// group forms the groups and matches them across the runs.
func (r *Result) group() {
	sets := [2][][]int32{}
	keys := [2][]string{}
	for k := range r.runs {
		ps := r.runs[k].sum.procs
		sets[k] = make([][]int32, len(ps))
		keys[k] = make([]string, len(ps))
		for i := range ps {
			if i > 0 && samePaths(ps[i].Paths, ps[i-1].Paths) { // the common case: shared
				sets[k][i], keys[k][i] = sets[k][i-1], keys[k][i-1]
				continue
			}
			sets[k][i] = r.pairSet(k, &ps[i])
			keys[k][i] = setKey(sets[k][i])
		}
	}
	match := keys
	switch {
	case r.opts.mapping != nil:
		for k := range r.runs {
			match[k] = make([]string, len(keys[k]))
			for i, ps := range r.runs[k].sum.procs {
				match[k][i] = r.opts.mapping(r.runs[k].tr.Process(int(ps.Index)))
			}
		}
	case r.opts.byRank:
		match = r.rankKeys(keys)
	}
	byKey := map[string]*group{}
	for k := range r.runs {
		for i := range r.runs[k].sum.procs {
			key := match[k][i]
			if key == "" && r.opts.mapping != nil {
				r.left[k]++
				continue
			}
			g := byKey[key]
			if g == nil {
				g = &group{sim: math.NaN(), closeTo: math.NaN()}
				byKey[key] = g
				r.groups = append(r.groups, g)
			}
			g.procs[k] = append(g.procs[k], int32(i))
		}
	}
	seen := make([]bool, len(r.pairs))
	for _, g := range r.groups {
		for k := range g.procs {
			var u []int32 // the union, each pair once
			for _, i := range g.procs[k] {
				work.Check()
				for _, id := range sets[k][i] {
					if !seen[id] {
						seen[id] = true
						u = append(u, id)
					}
				}
			}
			for _, id := range u {
				seen[id] = false
			}
			slices.Sort(u)
			g.set[k] = u
			g.names[k] = r.pairNames(u)
		}
		switch {
		case len(g.procs[0]) > 0 && len(g.procs[1]) > 0:
			g.sim = cluster.Jaccard(g.names[0], g.names[1])
			g.state = Similar
			if slices.Equal(g.set[0], g.set[1]) {
				g.state = Equal
			}
		case len(g.procs[0]) > 0:
			g.state = OnlyA
		default:
			g.state = OnlyB
		}
	}
	if r.opts.mapping == nil && !r.opts.byRank {
		r.matchSimilar()
	}
	r.number()
}

// pairNames returns the pair names of a set sorted as cluster sorts them (bytewise).
func (r *Result) pairNames(set []int32) []string {
	s := make([]string, len(set))
	for i, id := range set {
		s[i] = r.pairs[id]
	}
	slices.Sort(s)
	return s
}

// rankKeys keys each location by its structure in both runs at the same rank and thread.
func (r *Result) rankKeys(keys [2][]string) [2][]string {
	type loc struct{ rank, thread int32 }
	at := [2]map[loc]int{{}, {}}
	for k := range r.runs {
		for i, p := range r.runs[k].sum.procs {
			at[k][loc{p.Rank, p.Thread}] = i
		}
	}
	var out [2][]string
	for k := range r.runs {
		out[k] = make([]string, len(keys[k]))
		for i, p := range r.runs[k].sum.procs {
			j, ok := at[1-k][loc{p.Rank, p.Thread}]
			if !ok {
				out[k][i] = fmt.Sprintf("%d\x00%s", k, keys[k][i])
				continue
			}
			ka, kb := keys[k][i], keys[1-k][j]
			if k == 1 {
				ka, kb = kb, ka
			}
			out[k][i] = "2\x00" + ka + "\x00" + kb
		}
	}
	return out
}

// matchSimilar matches groups of one run with groups of the other by pairsim, the most
// similar pair first, while it is at least σ (SC VIII.B's greedy order); each group matches at
// most one. A group left alone keeps its most similar group of the other run for the tables.
func (r *Result) matchSimilar() {
	var only [2][]*group
	for _, g := range r.groups {
		switch g.state {
		case OnlyA:
			only[0] = append(only[0], g)
		case OnlyB:
			only[1] = append(only[1], g)
		}
	}
	type cand struct {
		a, b int
		sim  float64
	}
	var cs []cand
	for j, gb := range only[1] {
		for i, ga := range only[0] {
			work.Check()
			cs = append(cs, cand{i, j, cluster.Jaccard(ga.names[0], gb.names[1])})
		}
	}
	slices.SortStableFunc(cs, func(x, y cand) int { return cmp.Compare(y.sim, x.sim) })
	usedA, usedB := make([]bool, len(only[0])), make([]bool, len(only[1]))
	var gone []*group
	for _, c := range cs {
		if c.sim < r.opts.sigma || usedA[c.a] || usedB[c.b] {
			continue
		}
		usedA[c.a], usedB[c.b] = true, true
		ga, gb := only[0][c.a], only[1][c.b]
		ga.procs[1], ga.set[1], ga.names[1] = gb.procs[1], gb.set[1], gb.names[1]
		ga.state, ga.sim = Similar, c.sim
		gone = append(gone, gb)
	}
	r.groups = slices.DeleteFunc(r.groups, func(g *group) bool { return slices.Contains(gone, g) })
	// the most similar group with processes in the other run (matched or not), for the
	// groups left alone
	for _, g := range r.groups {
		if g.state != OnlyA && g.state != OnlyB {
			continue
		}
		k := b2i(g.state == OnlyB) // the run g has processes in
		for _, h := range r.groups {
			if len(h.procs[1-k]) == 0 {
				continue
			}
			work.Check()
			if s := cluster.Jaccard(g.names[k], h.names[1-k]); g.closest == nil || s > g.closeTo {
				g.closest, g.closeTo = h, s
			}
		}
	}
}

// number orders the groups by their first process in run A, then those of run B only by their
// first process in B, and numbers them G0, G1, ...
func (r *Result) number() {
	first := func(g *group) (int, int32) {
		if len(g.procs[0]) > 0 {
			return 0, r.runs[0].sum.procs[g.procs[0][0]].Index
		}
		return 1, r.runs[1].sum.procs[g.procs[1][0]].Index
	}
	slices.SortStableFunc(r.groups, func(x, y *group) int {
		sx, ix := first(x)
		sy, iy := first(y)
		return cmp.Or(cmp.Compare(sx, sy), cmp.Compare(ix, iy))
	})
	for i, g := range r.groups {
		g.id = i
	}
}
