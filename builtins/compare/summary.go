package compare

import (
	"cmp"
	"runtime"
	"slices"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The per-process part of a comparison (builtins/part): the method "compare.summary" reduces
// each process to what every view needs — its call paths with calls, inclusive and exclusive
// time and the order of first appearance under their caller, and its message and collective
// counts. Summaries of disjoint process subsets merge exactly (Summary.Merge): the call paths
// are keyed by function names, so subsets read on different machines agree. Everything else
// (groups, matching, tables) runs on the two merged summaries, whose size is processes x
// distinct paths, not events.
func init() {
	part.Register(summaryName, buildSummary, func(*trace.Trace) []part.Method { return []part.Method{SummaryMethod()} })
}

const (
	summaryName          = "compare.summary"
	summaryParamsVersion = 1
	summaryLayoutVersion = 1
)

// pathStat is one call path of one process.
type pathStat struct {
	Path  int32 // node of the summary's path trie
	First int32 // order of first appearance among the process's callees of the same caller path
	Calls int64
	Incl  int64 // ns, inclusive, summed over the calls
	Excl  int64 // ns, exclusive
}

// procSummary is one process reduced to its call paths and communication counts.
type procSummary struct {
	Index         int32 // Process.Index in its trace
	Rank, Thread  int32
	Label, Kind   string
	Paths         []pathStat // by Path
	Sent, Recv    int64      // point-to-point messages sent and received
	SentB, RecvB  int64      // their bytes
	Partners      int64      // distinct (communicator, peer) of those messages
	Collectives   int64      // collective operations completed
	Total         int64      // ns inside instrumented regions: the sum of Excl
	SkippedEvents int64      // Process.Skipped
}

// Summary is the merged per-process part of a comparison over a subset of one run's processes:
// a trie of call paths by function name and one procSummary per process.
type Summary struct {
	paths
	procs []procSummary // by Index
}

// paths is a trie of call paths by function name: path i is the call of name[i] from path
// parent[i]. A summary keeps its processes' paths in one; a comparison joins both runs' in one.
type paths struct {
	parent []int32  // caller path, -1 for a top-level call
	name   []string // function name
	role   []trace.TimeRole
	child  map[pathKey]int32
}

type pathKey struct {
	parent int32
	name   string
}

func newPaths() paths { return paths{child: map[pathKey]int32{}} }

func newSummary() *Summary { return &Summary{paths: newPaths()} }

// path returns the trie node of name under parent, adding it.
func (t *paths) path(parent int32, name string, role trace.TimeRole) int32 {
	k := pathKey{parent, name}
	if id, ok := t.child[k]; ok {
		return id
	}
	id := int32(len(t.name))
	t.parent, t.name, t.role = append(t.parent, parent), append(t.name, name), append(t.role, role)
	t.child[k] = id
	return id
}

// absorb adds the paths of o to t and returns where each of o's paths is in t.
func (t *paths) absorb(o *paths) []int32 {
	at := make([]int32, len(o.name))
	for i := range o.name {
		par := int32(-1)
		if o.parent[i] >= 0 {
			par = at[o.parent[i]]
		}
		at[i] = t.path(par, o.name[i], o.role[i])
	}
	return at
}

// callees returns the callee paths of every path, in the order they were added; the last entry
// (index len(t.name)) holds the top-level paths.
func (t *paths) callees() [][]int32 {
	kids := make([][]int32, len(t.name)+1)
	for i, p := range t.parent {
		k := len(t.name)
		if p >= 0 {
			k = int(p)
		}
		kids[k] = append(kids[k], int32(i))
	}
	return kids
}

// NumProcesses returns the number of processes summarised.
func (s *Summary) NumProcesses() int { return len(s.procs) }

// NumPaths returns the number of distinct call paths of the summarised processes.
func (s *Summary) NumPaths() int { return len(s.name) }

// SummaryMethod returns the per-process part of compare.Runs as a method of the per-process
// contract (part.Method, registered as "compare.summary"): its partial over a subset of one
// run's processes is their *Summary.
//
//	s, _ := part.Run(tr, tr.Processes(), compare.SummaryMethod())
func SummaryMethod() part.Method { return summaryMethod{} }

// summaryMethod's job, when Runs gives one, counts the processes summarised (it is no
// parameter: partials computed with and without one are the same).
type summaryMethod struct{ job *work.Job }

func (summaryMethod) Name() string { return summaryName }
func (summaryMethod) Rounds() int  { return 1 }
func (summaryMethod) Params() []byte {
	var e part.Enc
	e.Uint(summaryParamsVersion)
	return e.B
}

func buildSummary(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", summaryParamsVersion)
	if err := d.Done(); err != nil {
		return nil, work.Errorf(summaryName, "parameters: %v", err)
	}
	return summaryMethod{}, nil
}

func (summaryMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(summaryName, "one round: nothing to decide")
}

func (summaryMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(summaryName, "round %d of 1", round)
	}
	return decodeSummary(b)
}

// Compute summarises procs, in parallel: each process builds its own trie over region ids, and
// the tries are joined by name in process order.
func (m summaryMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(summaryName, "round %d of 1", round)
	}
	if tr == nil {
		return nil, work.Errorf(summaryName, "the trace is nil")
	}
	s := newSummary()
	if len(procs) == 0 {
		return s, nil
	}
	roles := trace.DefaultSync().Roles(tr)
	locals := make([]localSummary, len(procs))
	scratch := make([]summaryScratch, runtime.GOMAXPROCS(0))
	err := work.Try(func() {
		work.Each(len(procs), func(w, i int) {
			work.Check()
			locals[i] = summarise(procs[i], &scratch[w])
			if m.job != nil {
				m.job.Add(1)
			}
		})
	})
	if err != nil {
		if work.Interrupted(err) {
			panic(work.ErrInterrupted)
		}
		return nil, err
	}
	var j joiner
	for i, p := range procs {
		if i&0x3ff == 0 {
			work.Check()
		}
		s.add(p, &locals[i], roles, &j)
		locals[i] = localSummary{}
	}
	slices.SortFunc(s.procs, func(a, b procSummary) int { return cmp.Compare(a.Index, b.Index) })
	for i := 1; i < len(s.procs); i++ {
		if s.procs[i].Index == s.procs[i-1].Index {
			return nil, work.Errorf(summaryName, "process %d is given twice", s.procs[i].Index)
		}
	}
	return s, nil
}

// localSummary is one process's paths over its own region ids, before names join them.
type localSummary struct {
	region, parent []int32 // per local path
	stats          []pathStat
	ps             procSummary
}

// summarise walks p's call tree once, in pre-order: the caller path of a node is the path of
// the last node one level up (a stack by depth, so no per-node table), and the node's path is
// found among its caller path's callees (a short list: a linear scan beats a map here),
// starting after the callee matched last, since calls repeat in the same order. The node's
// inclusive time is added to the path and subtracted from the caller path's exclusive time.
// sc is the worker's scratch, reused from process to process.
func summarise(p *trace.Process, sc *summaryScratch) localSummary {
	ct := p.CallTree()
	n := ct.Len()
	var l localSummary
	region, parent, stats := sc.region[:0], sc.parent[:0], sc.build[:0]
	callees := sc.reset()
	pathAt := sc.pathAt[:1] // pathAt[d]: the path of the last node at depth d; ε at 0
	pathAt[0] = -1
	for i := 1; i < n; i++ {
		if i&0xffff == 0 {
			work.Check()
		}
		reg := ct.Region[i]
		d := int(ct.Depth[i])
		pp := pathAt[d-1]
		list := &callees[pp+1]
		id := int32(-1)
		k, m := list.next, len(list.kids)
		for range m {
			if k == m {
				k = 0
			}
			if c := list.kids[k]; c.region == reg {
				id = c.path
				list.next = k + 1
				break
			}
			k++
		}
		if id < 0 {
			id = int32(len(region))
			region = append(region, reg)
			parent = append(parent, pp)
			stats = append(stats, pathStat{First: int32(m)})
			list.kids = append(list.kids, callee{reg, id})
			list.next = m + 1
			callees = sc.grow(callees) // may move list: not used below
		}
		if d == len(pathAt) {
			pathAt = append(pathAt, id)
		} else {
			pathAt[d] = id
		}
		incl := ct.Leave[i] - ct.Enter[i]
		st := &stats[id]
		st.Calls++
		st.Incl += incl
		st.Excl += incl
		if pp >= 0 {
			stats[pp].Excl -= incl
		} else {
			l.ps.Total += incl
		}
	}
	if len(region) > 0 { // the local paths, built in the scratch, kept at their size
		l.region, l.parent = sc.ints.copy(region), sc.ints.copy(parent)
		l.stats = sc.stats.copy(stats)
	}
	sc.region, sc.parent, sc.build = region[:0], parent[:0], stats[:0]
	sc.pathAt = pathAt
	ps := &l.ps
	ps.Index, ps.Rank, ps.Thread = int32(p.Index), p.Rank, p.Thread
	ps.Label, ps.Kind, ps.SkippedEvents = p.Label(), cluster.Kind(p), p.Skipped
	countMessages(p, ps, sc)
	return l
}

// countMessages counts p's messages, their bytes and distinct partners, and its collectives.
// Most events are Enter and Leave (kinds 0 and 1): eight of them are passed over at once.
func countMessages(p *trace.Process, ps *procSummary, sc *summaryScratch) {
	partners := sc.partners[:0] // distinct (communicator, peer), in a map once there are many
	var many map[[2]int32]struct{}
	kinds := p.Kind
	for i := 0; i < len(kinds); i++ {
		if i&0xffff == 0 {
			work.Check()
		}
		if i&7 == 0 && i+8 <= len(kinds) {
			w := kinds[i : i+8 : i+8]
			if (w[0]|w[1]|w[2]|w[3]|w[4]|w[5]|w[6]|w[7])&^1 == 0 {
				i += 7
				continue
			}
		}
		switch k := kinds[i]; k {
		case trace.MpiSend, trace.MpiIsend, trace.MpiRecv, trace.MpiIrecv:
			r := p.Ref[i]
			if r < 0 || int(r) >= p.Msgs.Len() {
				continue
			}
			if k == trace.MpiSend || k == trace.MpiIsend {
				ps.Sent++
				ps.SentB += p.Msgs.Bytes[r]
			} else {
				ps.Recv++
				ps.RecvB += p.Msgs.Bytes[r]
			}
			key := [2]int32{p.Msgs.Comm[r], p.Msgs.Peer[r]}
			switch {
			case many != nil:
				many[key] = struct{}{}
			case !slices.Contains(partners, key):
				partners = append(partners, key)
				if len(partners) > 32 {
					many = make(map[[2]int32]struct{}, 64)
					for _, q := range partners {
						many[q] = struct{}{}
					}
				}
			}
		case trace.MpiCollectiveEnd:
			ps.Collectives++
		}
	}
	ps.Partners = int64(len(partners))
	if many != nil {
		ps.Partners = int64(len(many))
	}
	sc.partners = partners[:0]
}

// summaryScratch is one worker's reusable memory for summarise: per local path (shifted by
// one, ε first) its callees, and the stack of paths by depth.
type summaryScratch struct {
	callees []calleeList
	used    int // callees in use by the current process
	pathAt  []int32

	region, parent []int32 // the local paths being built
	build          []pathStat
	partners       [][2]int32

	// the local paths kept, in chunks shared by many processes (fewer, larger allocations)
	ints  slab[int32]
	stats slab[pathStat]
}

// slab hands out slices of large chunks, each slice with its own capacity.
type slab[T any] struct{ free []T }

// slabChunk is the elements of one chunk: 64K (256 KiB of int32, 2 MiB of pathStat).
const slabChunk = 1 << 16

// copy returns a copy of v in the slab.
func (sl *slab[T]) copy(v []T) []T {
	if len(v) > len(sl.free) || sl.free == nil {
		sl.free = make([]T, max(slabChunk, len(v)))
	}
	out := sl.free[:len(v):len(v)]
	sl.free = sl.free[len(v):]
	copy(out, v)
	return out
}

type callee struct{ region, path int32 }

// calleeList is the callees of one local path and the position after the last match.
type calleeList struct {
	kids []callee
	next int
}

// reset makes the scratch empty for a new process (keeping the memory) with ε's list.
func (sc *summaryScratch) reset() []calleeList {
	for i := range sc.callees[:sc.used] {
		sc.callees[i].kids, sc.callees[i].next = sc.callees[i].kids[:0], 0
	}
	if len(sc.callees) == 0 {
		sc.callees = make([]calleeList, 1, 64)
	}
	if cap(sc.pathAt) == 0 {
		sc.pathAt = make([]int32, 1, 32)
	}
	sc.used = 1
	return sc.callees[:1]
}

// grow adds one empty callee list to cs, reusing an old list's memory.
func (sc *summaryScratch) grow(cs []calleeList) []calleeList {
	if len(cs) < len(sc.callees) {
		cs = sc.callees[:len(cs)+1]
	} else {
		cs = append(cs, calleeList{})
		sc.callees = cs[:cap(cs)]
	}
	sc.used = len(cs)
	return cs
}

// add joins one process's local paths into s by name.
func (s *Summary) add(p *trace.Process, l *localSummary, roles []trace.TimeRole, j *joiner) {
	if j.byRegion == nil || j.tr != p.Trace {
		*j = joiner{tr: p.Trace, byRegion: map[[2]int32]int32{}, order: j.order}
	}
	if !slices.Equal(l.region, j.region) || !slices.Equal(l.parent, j.parent) {
		j.global = j.global[:0]
		for i, reg := range l.region {
			par := int32(-1)
			if l.parent[i] >= 0 {
				par = j.global[l.parent[i]]
			}
			id, ok := j.byRegion[[2]int32{par, reg}]
			if !ok {
				role := trace.Computation
				if reg >= 0 && int(reg) < len(roles) {
					role = roles[reg]
				}
				id = s.path(par, p.RegionName(reg), role)
				j.byRegion[[2]int32{par, reg}] = id
			}
			j.global = append(j.global, id)
		}
		j.region, j.parent = append(j.region[:0], l.region...), append(j.parent[:0], l.parent...)
	}
	ps := l.ps
	ps.Paths = l.stats
	if ps.Paths == nil {
		ps.Paths = []pathStat{}
	}
	for i := range ps.Paths {
		ps.Paths[i].Path = j.global[i]
	}
	j.order.sort(ps.Paths)
	ps.Paths = mergeRepeats(ps.Paths)
	s.procs = append(s.procs, ps)
}

// mergeRepeats adds up the entries of one path that a process holds twice, sorted by path:
// two regions of the same name called by the same caller path (a trace may define a name
// twice) are one call path by name. First is the earlier of the two.
func mergeRepeats(ps []pathStat) []pathStat {
	out := 0
	for i := range ps {
		if out > 0 && ps[out-1].Path == ps[i].Path {
			d := &ps[out-1]
			d.Calls += ps[i].Calls
			d.Incl += ps[i].Incl
			d.Excl += ps[i].Excl
			d.First = min(d.First, ps[i].First)
			continue
		}
		ps[out] = ps[i]
		out++
	}
	return ps[:out]
}

// joiner joins the local paths of processes into a summary (add). The processes of one trace
// share region ids, so a path is found by (caller path, region id) without its name; and
// most processes have the call structure of the process before, whose join is then reused.
type joiner struct {
	tr             *trace.Trace
	byRegion       map[[2]int32]int32
	region, parent []int32 // the local paths of the last process joined
	global         []int32 // their paths in the summary
	order          pathOrder
}

// pathOrder sorts path statistics by Path as slices.SortFunc does, and reuses the order for
// the next list of the same paths in the same order (the same comparisons give the same
// permutation, even for repeated paths).
type pathOrder struct {
	keys []int32
	perm []int32
	tmp  []pathStat
}

func (o *pathOrder) sort(ps []pathStat) {
	same := len(ps) == len(o.keys)
	for i := 0; same && i < len(ps); i++ {
		same = ps[i].Path == o.keys[i]
	}
	if !same {
		o.keys, o.perm = o.keys[:0], o.perm[:0]
		for i := range ps {
			o.keys = append(o.keys, ps[i].Path)
			o.perm = append(o.perm, int32(i))
		}
		slices.SortFunc(o.perm, func(a, b int32) int { return cmp.Compare(ps[a].Path, ps[b].Path) })
	}
	o.tmp = append(o.tmp[:0], ps...)
	for j, i := range o.perm {
		ps[j] = o.tmp[i]
	}
}

// Merge absorbs o, the summary of a disjoint subset of the same run's processes: its paths are
// joined by name, its processes added. A process present in both is an error (s unchanged).
func (s *Summary) Merge(p part.Partial) error {
	o, ok := p.(*Summary)
	if !ok {
		return part.Mismatch(summaryName, s, p)
	}
	if err := disjoint(s.procs, o.procs); err != nil {
		return err
	}
	remap := s.absorb(&o.paths)
	var order pathOrder
	var paths slab[pathStat]
	for _, ps := range o.procs {
		q := ps
		q.Paths = paths.copy(ps.Paths)
		for j := range q.Paths {
			q.Paths[j].Path = remap[q.Paths[j].Path]
		}
		order.sort(q.Paths)
		s.procs = append(s.procs, q)
	}
	slices.SortFunc(s.procs, func(a, b procSummary) int { return cmp.Compare(a.Index, b.Index) })
	return nil
}

func disjoint(a, b []procSummary) error {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Index < b[j].Index:
			i++
		case a[i].Index > b[j].Index:
			j++
		default:
			return work.Errorf(summaryName, "process %d (%s) is in both summaries", a[i].Index, a[i].Label)
		}
	}
	return nil
}
