package compare

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// The hot loops of compare were rewritten for speed (bench_test.go); the straightforward
// versions they replaced are kept here as oracles, and the rewrites must give identical
// results on generated runs of several shapes and on random, badly nested event streams.

// firstSummarise is the first summarise: a node -> path table, a plain scan of the caller
// path's callees.
func firstSummarise(p *trace.Process) localSummary {
	ct := p.CallTree()
	n := ct.Len()
	var l localSummary
	pathOf := make([]int32, n)
	pathOf[0] = -1
	var kids [][]int32
	var top []int32
	for i := 1; i < n; i++ {
		reg := ct.Region[i]
		pp := pathOf[ct.Parent[i]]
		list := top
		if pp >= 0 {
			list = kids[pp]
		}
		id := int32(-1)
		for _, c := range list {
			if l.region[c] == reg {
				id = c
				break
			}
		}
		if id < 0 {
			id = int32(len(l.region))
			l.region = append(l.region, reg)
			l.parent = append(l.parent, pp)
			l.stats = append(l.stats, pathStat{First: int32(len(list))})
			kids = append(kids, nil)
			if pp >= 0 {
				kids[pp] = append(kids[pp], id)
			} else {
				top = append(top, id)
			}
		}
		pathOf[i] = id
		incl := ct.Leave[i] - ct.Enter[i]
		st := &l.stats[id]
		st.Calls++
		st.Incl += incl
		st.Excl += incl
		if pp >= 0 {
			l.stats[pp].Excl -= incl
		} else {
			l.ps.Total += incl
		}
	}
	ps := &l.ps
	ps.Index, ps.Rank, ps.Thread = int32(p.Index), p.Rank, p.Thread
	ps.Label, ps.Kind, ps.SkippedEvents = p.Label(), cluster.Kind(p), p.Skipped
	partners := map[[2]int32]struct{}{}
	for i, k := range p.Kind {
		switch k {
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
			partners[[2]int32{p.Msgs.Comm[r], p.Msgs.Peer[r]}] = struct{}{}
		case trace.MpiCollectiveEnd:
			ps.Collectives++
		}
	}
	ps.Partners = int64(len(partners))
	return l
}

// firstCompute is the first Compute over one subset, sequential: each process's paths joined
// by name (with the later fix: entries of a path repeated by name added up).
func firstCompute(tr *trace.Trace, procs []*trace.Process) *Summary {
	s := newSummary()
	roles := trace.DefaultSync().Roles(tr)
	for _, p := range procs {
		l := firstSummarise(p)
		global := make([]int32, len(l.region))
		ps := l.ps
		ps.Paths = make([]pathStat, len(l.region))
		for i, reg := range l.region {
			par := int32(-1)
			if l.parent[i] >= 0 {
				par = global[l.parent[i]]
			}
			role := trace.Computation
			if reg >= 0 && int(reg) < len(roles) {
				role = roles[reg]
			}
			global[i] = s.path(par, p.RegionName(reg), role)
			st := l.stats[i]
			st.Path = global[i]
			ps.Paths[i] = st
		}
		// a name repeated under one caller is one path: add its entries up
		byPath := map[int32]pathStat{}
		for _, st := range ps.Paths {
			if d, ok := byPath[st.Path]; ok {
				st.Calls, st.Incl, st.Excl, st.First = st.Calls+d.Calls, st.Incl+d.Incl, st.Excl+d.Excl, min(st.First, d.First)
			}
			byPath[st.Path] = st
		}
		ps.Paths = ps.Paths[:0]
		for _, st := range byPath {
			ps.Paths = append(ps.Paths, st)
		}
		slices.SortFunc(ps.Paths, func(a, b pathStat) int { return cmp.Compare(a.Path, b.Path) })
		s.procs = append(s.procs, ps)
	}
	return s
}

// randomTrace returns a trace of n processes with random, partly badly nested calls over
// a few regions, two of them of the same name (Leaves of the wrong region, lost Leaves, calls
// open at the end) and random messages, some with bad references, to up to 120 partners.
func randomTrace(rng *rand.Rand, n int) *trace.Trace {
	defs := &trace.Definitions{}
	for i := range 6 {
		defs.Regions = append(defs.Regions, trace.Region{Name: fmt.Sprintf("f%d", i%5), Role: "function", Paradigm: "user"})
	}
	defs.Regions = append(defs.Regions, trace.Region{Name: "MPI_Barrier", Role: "barrier", Paradigm: "mpi"})
	var procs []*trace.Process
	for r := range n {
		p := &trace.Process{Rank: int32(r), Name: fmt.Sprintf("MPI Rank %d", r)}
		var open []int32
		t := int64(0)
		for range rng.IntN(600) {
			t += int64(rng.IntN(5))
			switch x := rng.IntN(20); {
			case x < 9:
				reg := int32(rng.IntN(len(defs.Regions)))
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, t), append(p.Ref, reg)
				open = append(open, reg)
			case x < 17:
				reg := int32(rng.IntN(len(defs.Regions)))
				if len(open) > 0 && x < 16 {
					reg = open[len(open)-1]
					open = open[:len(open)-1]
				}
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, t), append(p.Ref, reg)
			case x < 19:
				k := []trace.EventKind{trace.MpiSend, trace.MpiIsend, trace.MpiRecv, trace.MpiIrecv}[rng.IntN(4)]
				peers := 4
				if r%3 == 0 {
					peers = 60 // more partners than countMessages keeps in a list
				}
				ref := p.Msgs.Add(int32(rng.IntN(peers)), int32(rng.IntN(2)), 0, int64(rng.IntN(100)), 0)
				if rng.IntN(10) == 0 {
					ref = int32(rng.IntN(5)) - 2 + int32(p.Msgs.Len())
				}
				p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, t), append(p.Ref, ref)
			default:
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.MpiCollectiveEnd), append(p.Time, t), append(p.Ref, -1)
			}
		}
		procs = append(procs, p)
	}
	return trace.NewTrace(defs, procs)
}

// nestingTrace has processes whose local paths have the same regions in the same order under
// other callers: main > a, main > b; then main > a > b; then the first again.
func nestingTrace() *trace.Trace {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "a"}, {Name: "b"}}}
	E, L := trace.Enter, trace.Leave
	flat := &trace.Process{Kind: []trace.EventKind{E, E, L, E, L, L}, Time: []int64{0, 1, 3, 4, 8, 9}, Ref: []int32{0, 1, 1, 2, 2, 0}}
	nested := &trace.Process{Rank: 1, Kind: []trace.EventKind{E, E, E, L, L, L}, Time: []int64{0, 1, 2, 5, 6, 9}, Ref: []int32{0, 1, 2, 2, 1, 0}}
	again := &trace.Process{Rank: 2, Kind: flat.Kind, Time: flat.Time, Ref: flat.Ref}
	return trace.NewTrace(defs, []*trace.Process{flat, nested, again})
}

func equivTraces(*testing.T) map[string]*trace.Trace {
	cs := synth.COSMOSPECSConfig(12, 4)
	cs.Depth, cs.Fanout = 2, 3
	v1 := cs
	v1.Version = 1
	rng := rand.New(rand.NewPCG(3, 4))
	return map[string]*trace.Trace{
		"cosmo":   synth.Generate(cs),
		"version": synth.Generate(v1),
		"pepc":    synth.Generate(synth.PEPCConfig(24)),
		"paradis": synth.Generate(synth.ParaDiSConfig(64)),
		"gpu":     synth.Generate(synth.PIConGPUConfig(6, 3, 2)),
		"random":  randomTrace(rng, 40),
		"empty":   trace.NewTrace(nil, []*trace.Process{{}}),
		"nesting": nestingTrace(),
	}
}

// TestSummariseMatchesFirst: the rewritten walk gives each process the same local paths,
// statistics and counts as the first one, its scratch reused from process to process.
func TestSummariseMatchesFirst(t *testing.T) {
	for name, tr := range equivTraces(t) {
		var sc summaryScratch
		for _, p := range tr.Processes() {
			got, want := summarise(p, &sc), firstSummarise(p)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s: summarise\n got %+v\nwant %+v", name, p.Label(), got, want)
			}
		}
	}
}

// TestComputeMatchesFirst: Compute (in parallel, paths found by region) gives the summary the
// first, sequential Compute gives: the same trie, in the same order, and the same processes.
func TestComputeMatchesFirst(t *testing.T) {
	trs := equivTraces(t)
	type input struct {
		tr    *trace.Trace
		procs []*trace.Process
	}
	inputs := map[string]input{}
	for name, tr := range trs {
		inputs[name] = input{tr, tr.Processes()}
	}
	// processes of two traces whose region ids differ: (caller, region id) must not be taken
	// across them
	a, b := trs["cosmo"], trs["version"]
	inputs["mixed"] = input{a, []*trace.Process{a.Process(0), a.Process(1), b.Process(2), b.Process(3), a.Process(4), b.Process(5)}}
	for name, in := range inputs {
		got, err := SummaryMethod().Compute(in.tr, in.procs, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := firstCompute(in.tr, in.procs)
		g := got.(*Summary)
		if !reflect.DeepEqual(g.name, want.name) || !reflect.DeepEqual(g.parent, want.parent) || !reflect.DeepEqual(g.role, want.role) {
			t.Fatalf("%s: Compute's paths differ from the oracle's:\n got %v %v\nwant %v %v", name, g.name, g.parent, want.name, want.parent)
		}
		for i := range want.procs {
			if !reflect.DeepEqual(g.procs[i], want.procs[i]) {
				t.Fatalf("%s: process %d:\n got %+v\nwant %+v", name, i, g.procs[i], want.procs[i])
			}
		}
	}
}

// firstMerge is the first Merge (without the checks): o's paths joined by name, its
// processes' paths renumbered and sorted again.
func firstMerge(s, o *Summary) {
	remap := make([]int32, len(o.name))
	for i := range o.name {
		par := int32(-1)
		if o.parent[i] >= 0 {
			par = remap[o.parent[i]]
		}
		remap[i] = s.path(par, o.name[i], o.role[i])
	}
	for _, ps := range o.procs {
		q := ps
		q.Paths = make([]pathStat, len(ps.Paths))
		for j, st := range ps.Paths {
			st.Path = remap[st.Path]
			q.Paths[j] = st
		}
		slices.SortFunc(q.Paths, func(a, b pathStat) int { return cmp.Compare(a.Path, b.Path) })
		s.procs = append(s.procs, q)
	}
	slices.SortFunc(s.procs, func(a, b procSummary) int { return cmp.Compare(a.Index, b.Index) })
}

// TestMergeMatchesFirst: merging the summaries of three subsets gives what the first Merge
// gives, and without repeated function names what one Compute over all processes gives.
func TestMergeMatchesFirst(t *testing.T) {
	for name, tr := range equivTraces(t) {
		procs := tr.Processes()
		n := len(procs)
		parts := func() []*Summary {
			var out []*Summary
			for _, sub := range [][]*trace.Process{procs[:n/3], procs[n/3 : 2*n/3], procs[2*n/3:]} {
				out = append(out, firstCompute(tr, sub))
			}
			return out
		}
		got, want := parts(), parts()
		for i := 1; i < 3; i++ {
			if err := got[0].Merge(got[i]); err != nil {
				t.Fatal(err)
			}
			firstMerge(want[0], want[i])
		}
		same := func(what string, got, want *Summary) {
			t.Helper()
			if !reflect.DeepEqual(got.name, want.name) || !reflect.DeepEqual(got.parent, want.parent) || !reflect.DeepEqual(got.role, want.role) {
				t.Fatalf("%s: merged paths differ from %s:\n got %v %v\nwant %v %v", name, what, got.name, got.parent, want.name, want.parent)
			}
			for i := range want.procs {
				if !reflect.DeepEqual(got.procs[i], want.procs[i]) {
					t.Fatalf("%s: process %d differs from %s:\n got %+v\nwant %+v", name, i, what, got.procs[i], want.procs[i])
				}
			}
		}
		same("the first Merge", got[0], want[0])
		if name != "random" { // repeated names: a process's repeated paths may come in another order
			same("one Compute", got[0], firstCompute(tr, procs))
		}
	}
}

// firstRankSum is the first rankSum: both samples sorted together.
func firstRankSum(a, b []int64) (u, p float64) {
	na, nb := len(a), len(b)
	type obs struct {
		v    int64
		side int8
	}
	all := make([]obs, 0, na+nb)
	for _, v := range a {
		all = append(all, obs{v, 0})
	}
	for _, v := range b {
		all = append(all, obs{v, 1})
	}
	slices.SortFunc(all, func(x, y obs) int { return cmp.Compare(x.v, y.v) })
	n := float64(na + nb)
	var rankA, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		t := float64(j - i)
		mid := float64(i+j+1) / 2
		for k := i; k < j; k++ {
			if all[k].side == 0 {
				rankA += mid
			}
		}
		ties += t*t*t - t
		i = j
	}
	u = rankA - float64(na)*float64(na+1)/2
	mean := float64(na) * float64(nb) / 2
	v := float64(na) * float64(nb) / 12 * ((n + 1) - ties/(n*(n-1)))
	if v <= 0 {
		return u, 1
	}
	z := math.Abs(u-mean) - 0.5
	if z < 0 {
		z = 0
	}
	z /= math.Sqrt(v)
	return u, math.Erfc(z / math.Sqrt2)
}

// TestRankSumMatchesFirst: bit for bit, on random samples with many ties and few.
func TestRankSumMatchesFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		spread := int64(1 + rng.IntN(1000))
		sample := func() []int64 {
			n := 1 + rng.IntN(60)
			if trial%5 == 0 {
				n = 1 + rng.IntN(2000) // sorted by radix
			}
			v := make([]int64, n)
			for i := range v {
				v[i] = rng.Int64N(spread) - spread/3
			}
			return v
		}
		a, b := sample(), sample()
		a0, b0 := slices.Clone(a), slices.Clone(b)
		u, p := rankSum(a, b)
		wu, wp := firstRankSum(a, b)
		if math.Float64bits(u) != math.Float64bits(wu) || math.Float64bits(p) != math.Float64bits(wp) {
			t.Fatalf("trial %d: rankSum(%v, %v) = %v, %v; the oracle %v, %v", trial, a, b, u, p, wu, wp)
		}
		if !slices.Equal(a, a0) || !slices.Equal(b, b0) {
			t.Fatalf("trial %d: rankSum changed its arguments", trial)
		}
	}
}

// firstFunctionsOf is the first functionsOf: functions found by name in a map (with the later
// roles: each function's first path's).
func firstFunctionsOf(r *Result, g *group) *groupFunctions {
	gf := &groupFunctions{}
	idx := map[string]int{}
	for k := range r.runs {
		ps := r.runs[k].sum.procs
		n := len(g.procs[k])
		gf.total[k] = make([]int64, n)
		for j, pi := range g.procs[k] {
			p := &ps[pi]
			gf.total[k][j] = p.Total
			for _, st := range p.Paths {
				name := r.name[r.runs[k].gpath[st.Path]]
				f, ok := idx[name]
				if !ok {
					f = len(gf.names)
					idx[name] = f
					gf.names = append(gf.names, name)
					gf.roles = append(gf.roles, r.role[slices.Index(r.name, name)]) // its first path's
					for s := range gf.vals {
						gf.vals[s] = append(gf.vals[s], nil)
						gf.calls[s] = append(gf.calls[s], 0)
					}
				}
				if gf.vals[k][f] == nil {
					gf.vals[k][f] = make([]int64, n)
				}
				gf.vals[k][f][j] += st.Excl
				gf.calls[k][f] += st.Calls
			}
		}
	}
	return gf
}

// firstTreeSide is the first treeSideOf: per path sums in maps.
type firstTreeSide struct {
	calls, incl, max map[int32]int64
	maxAt, rep       map[int32]int32
	first            map[int32]int32
}

func firstTreeSideOf(r *Result, g *group, k int) firstTreeSide {
	ts := firstTreeSide{calls: map[int32]int64{}, incl: map[int32]int64{}, max: map[int32]int64{},
		maxAt: map[int32]int32{}, rep: map[int32]int32{}, first: map[int32]int32{}}
	ps := r.runs[k].sum.procs
	for _, pi := range g.procs[k] {
		for _, st := range ps[pi].Paths {
			gp := r.runs[k].gpath[st.Path]
			ts.calls[gp] += st.Calls
			ts.incl[gp] += st.Incl
			if _, ok := ts.rep[gp]; !ok {
				ts.rep[gp], ts.first[gp] = pi, st.First
				ts.max[gp], ts.maxAt[gp] = st.Incl, pi
			} else if st.Incl > ts.max[gp] {
				ts.max[gp], ts.maxAt[gp] = st.Incl, pi
			}
		}
	}
	return ts
}

// TestGroupSumsMatchFirst: per group, the functions' sums and the tree's sums of the dense
// tables (reused from group to group) are those of the first, map-based code.
func TestGroupSumsMatchFirst(t *testing.T) {
	trs := equivTraces(t)
	pairs := [][2]string{{"cosmo", "version"}, {"pepc", "paradis"}, {"gpu", "cosmo"}, {"random", "nesting"}, {"paradis", "paradis"}}
	for _, pr := range pairs {
		for _, opts := range [][]Option{nil, {WithSigma(0.3)}, {WithMapping(func(p *trace.Process) string { return fmt.Sprint(p.Rank % 3) })}} {
			r := Runs(trs[pr[0]], trs[pr[1]], opts...)
			fx := r.functionIndex()
			sides := [2]*treeSide{newTreeSide(len(r.name)), newTreeSide(len(r.name))}
			for _, g := range r.groups {
				if got, want := r.functionsOf(g, fx), firstFunctionsOf(r, g); !reflect.DeepEqual(got, want) {
					t.Fatalf("%v G%d: functionsOf\n got %+v\nwant %+v", pr, g.id, got, want)
				}
				for k := range sides {
					r.fill(sides[k], g, k)
					want := firstTreeSideOf(r, g, k)
					for c := range r.name {
						gp := int32(c)
						_, ok := want.calls[gp]
						ts := sides[k]
						if ts.has[gp] != ok || ts.calls[gp] != want.calls[gp] || ts.incl[gp] != want.incl[gp] || ts.max[gp] != want.max[gp] ||
							ts.maxAt[gp] != want.maxAt[gp] || ts.rep[gp] != want.rep[gp] || ts.first[gp] != want.first[gp] {
							t.Fatalf("%v G%d side %d path %d: tree sums differ from the oracle's", pr, g.id, k, c)
						}
					}
				}
			}
		}
	}
}

// TestSortedInts: the radix sort gives slices.Sort's order, on short and long inputs of small,
// large and negative values, and leaves its argument alone.
func TestSortedInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 300 {
		v := make([]int64, rng.IntN(3000))
		for i := range v {
			switch trial % 4 {
			case 0:
				v[i] = rng.Int64N(100)
			case 1:
				v[i] = rng.Int64() - math.MaxInt64/2
			case 2:
				v[i] = int64(rng.Uint64())
			default:
				v[i] = 1e9 + rng.Int64N(1e6)
			}
		}
		v0 := slices.Clone(v)
		want := slices.Clone(v)
		slices.Sort(want)
		if got := sortedInts(v); !slices.Equal(got, want) {
			t.Fatalf("trial %d: sortedInts differs from slices.Sort", trial)
		}
		if !slices.Equal(v, v0) {
			t.Fatalf("trial %d: sortedInts changed its argument", trial)
		}
	}
}

// firstNodeFacts is the first nodeFacts: calls per region counted in a map.
func firstNodeFacts(ct *trace.CallTree) (excl []int64, occ []int32) {
	n := ct.Len()
	excl = make([]int64, n)
	occ = make([]int32, n)
	count := map[int32]int32{}
	for i := 1; i < n; i++ {
		d := ct.Leave[i] - ct.Enter[i]
		excl[i] += d
		if p := ct.Parent[i]; p > 0 {
			excl[p] -= d
		}
		count[ct.Region[i]]++
		occ[i] = count[ct.Region[i]]
	}
	return excl, occ
}

// TestNodeFactsMatchFirst: on every process of the test traces, and on one whose region ids
// are negative or too large for a table.
func TestNodeFactsMatchFirst(t *testing.T) {
	E, L := trace.Enter, trace.Leave
	odd := trace.NewTrace(nil, []*trace.Process{
		{Kind: []trace.EventKind{E, E, L, E, L, L}, Time: []int64{0, 1, 2, 3, 4, 5}, Ref: []int32{-3, 1 << 30, 1 << 30, -3, -3, -3}},
		{Kind: []trace.EventKind{E, E, L, E, L, L}, Time: []int64{0, 1, 2, 3, 4, 5}, Ref: []int32{7, 1 << 30, 1 << 30, 7, 7, 7}},
	})
	trs := equivTraces(t)
	trs["odd"] = odd
	for name, tr := range trs {
		for _, p := range tr.Processes() {
			ct := p.CallTree()
			ge, gotOcc := nodeFacts(ct)
			we, wo := firstNodeFacts(ct)
			if !slices.Equal(ge, we) || !slices.Equal(gotOcc, wo) {
				t.Fatalf("%s %s: nodeFacts\n got %v %v\nwant %v %v", name, p.Label(), ge, gotOcc, we, wo)
			}
		}
	}
}
