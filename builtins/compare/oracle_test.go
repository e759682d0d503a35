package compare

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// Brute-force oracles: Functions, Tree, Comm and Groups recomputed directly from each
// process's call tree and events (not through the package's Summary), over the groups Group
// returns, on random traces of different process counts.

// procFacts is one process as the oracles see it.
type procFacts struct {
	label     string
	excl      map[string]int64 // by function: exclusive ns (CallTree.Exclusive)
	calls     map[string]int64 // by function
	pathIncl  map[string]int64 // by call path "a > b": inclusive ns over its calls
	pathCalls map[string]int64
	callees   map[string][]string // by call path: callee names in order of first call
	total     int64               // top-level inclusive ns
	sent      int64
	sentBytes int64
	recv      int64
	recvBytes int64
	partners  int64 // distinct (communicator, peer) of the messages
	colls     int64 // collective operations completed
}

func factsOf(p *trace.Process) procFacts {
	f := procFacts{label: p.Label(), excl: map[string]int64{}, calls: map[string]int64{}, pathIncl: map[string]int64{},
		pathCalls: map[string]int64{}, callees: map[string][]string{}}
	ct := p.CallTree()
	path := make([]string, ct.Len())
	for i := 1; i < ct.Len(); i++ {
		name := p.RegionName(ct.Region[i])
		par := ct.Parent[i]
		path[i] = name
		if par > 0 {
			path[i] = path[par] + " > " + name
			if !slices.Contains(f.callees[path[par]], name) {
				f.callees[path[par]] = append(f.callees[path[par]], name)
			}
		} else {
			f.total += ct.Inclusive(i)
		}
		f.excl[name] += ct.Exclusive(i)
		f.calls[name]++
		f.pathIncl[path[i]] += ct.Inclusive(i)
		f.pathCalls[path[i]]++
	}
	partners := map[string]bool{}
	for i, k := range p.Kind {
		msg := p.Ref[i] >= 0 && int(p.Ref[i]) < p.Msgs.Len()
		switch {
		case (k == trace.MpiSend || k == trace.MpiIsend) && msg:
			f.sent++
			f.sentBytes += p.Msgs.Bytes[p.Ref[i]]
		case (k == trace.MpiRecv || k == trace.MpiIrecv) && msg:
			f.recv++
			f.recvBytes += p.Msgs.Bytes[p.Ref[i]]
		case k == trace.MpiCollectiveEnd:
			f.colls++
		}
		if msg && (k == trace.MpiSend || k == trace.MpiIsend || k == trace.MpiRecv || k == trace.MpiIrecv) {
			partners[fmt.Sprint(p.Msgs.Comm[p.Ref[i]], "/", p.Msgs.Peer[p.Ref[i]])] = true
		}
	}
	f.partners = int64(len(partners))
	return f
}

// stats are a quantity over the processes of one side of a group.
type stats struct {
	vals []int64
	mean float64
	max  int64
}

func statsOf(vals []int64) stats {
	s := stats{vals: vals}
	for i, v := range vals {
		s.mean += float64(v)
		if i == 0 || v > s.max {
			s.max = v
		}
	}
	if len(vals) > 0 {
		s.mean /= float64(len(vals))
	}
	return s
}

// rankSumOracle is the two-sided p-value of the rank-sum test as MinVerdictProcesses
// documents it, computed another way: U by counting pairs, the tie correction from the
// multiplicities.
func rankSumOracle(a, b []int64) (u, p float64) {
	for _, x := range a {
		for _, y := range b {
			switch {
			case x > y:
				u++
			case x == y:
				u += 0.5
			}
		}
	}
	count := map[int64]float64{}
	for _, v := range append(slices.Clone(a), b...) {
		count[v]++
	}
	na, nb := float64(len(a)), float64(len(b))
	n := na + nb
	var ties float64
	for _, t := range count {
		ties += t*t*t - t
	}
	v := na * nb / 12 * (n + 1 - ties/(n*(n-1)))
	if v <= 0 {
		return u, 1
	}
	z := math.Max(math.Abs(u-na*nb/2)-0.5, 0) / math.Sqrt(v)
	return u, math.Erfc(z / math.Sqrt2)
}

func near(x, y, rel float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return math.Abs(x-y) <= rel*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
}

// checkOracles compares every view of r with the brute force.
func checkOracles(t *testing.T, r *Result, a, b *trace.Trace) {
	t.Helper()
	runN := [2]float64{float64(a.NumProcesses()), float64(b.NumProcesses())}
	facts := map[*trace.Process]procFacts{}
	for _, tr := range []*trace.Trace{a, b} {
		for _, p := range tr.Processes() {
			facts[p] = factsOf(p)
		}
	}
	fnRows := map[string]FunctionRow{}
	for _, w := range r.FunctionRows() {
		fnRows[fmt.Sprint(w.Group, "/", w.Function)] = w
	}
	treeRows := map[string]TreeRow{}
	tree := r.TreeRows()
	for _, w := range tree {
		treeRows[fmt.Sprint(w.Group, "/", w.Path)] = w
	}
	groups := groupRows(t, r)
	comm := r.Comm()
	commRow := map[int64]int{}
	for i, g := range mustInt64s(t, comm, "Group") {
		commRow[g] = i
	}
	na, nb := r.Names()
	nFn, nTree := 0, 0
	for g := range r.NumGroups() {
		ga, gb := r.Group(g)
		sides := [2][]procFacts{}
		for k, ps := range [2][]*trace.Process{ga, gb} {
			for _, p := range ps {
				sides[k] = append(sides[k], facts[p])
			}
		}
		np := [2]float64{float64(len(ga)), float64(len(gb))}
		var w float64
		var nw float64
		for k := range np {
			if np[k] > 0 {
				w += np[k] / runN[k]
				nw++
			}
		}
		w /= nw
		// Groups
		var gtime [2]stats
		for k := range sides {
			var v []int64
			for _, f := range sides[k] {
				v = append(v, f.total)
			}
			gtime[k] = statsOf(v)
		}
		gr := groups[int64(g)]
		if gr.timeA != int64(math.Round(gtime[0].mean)) || gr.timeB != int64(math.Round(gtime[1].mean)) ||
			gr.cost != int64(math.Round((gtime[1].mean-gtime[0].mean)*w)) {
			t.Errorf("Groups G%d: time %d → %d cost %d, want %v → %v cost %v", g, gr.timeA, gr.timeB, gr.cost,
				gtime[0].mean, gtime[1].mean, (gtime[1].mean-gtime[0].mean)*w)
		}
		// Functions
		names := map[string]bool{}
		for k := range sides {
			for _, f := range sides[k] {
				for name := range f.calls {
					names[name] = true
				}
			}
		}
		for name := range names {
			nFn++
			row, ok := fnRows[fmt.Sprint(g, "/", name)]
			if !ok {
				t.Errorf("Functions: no row for %s in G%d", name, g)
				continue
			}
			delete(fnRows, fmt.Sprint(g, "/", name))
			var st [2]stats
			var calls [2]int64
			for k := range sides {
				var v []int64
				for _, f := range sides[k] {
					v = append(v, f.excl[name])
					calls[k] += f.calls[name]
				}
				st[k] = statsOf(v)
				if row.Processes[k] != len(sides[k]) {
					t.Errorf("G%d %s: processes %v", g, name, row.Processes)
				}
				if len(sides[k]) == 0 {
					continue
				}
				if row.Mean[k] != int64(math.Round(st[k].mean)) || row.Max[k] != st[k].max ||
					row.Calls[k] != float64(calls[k])/np[k] {
					t.Errorf("G%d %s side %d: mean %d max %d calls %v, want %v, %d, %v", g, name, k,
						row.Mean[k], row.Max[k], row.Calls[k], st[k].mean, st[k].max, float64(calls[k])/np[k])
				}
				if calls[k] == 0 {
					// not called on this side: no process holds the max
					if row.MaxProcess[k] != "" || row.Max[k] != 0 {
						t.Errorf("G%d %s side %d: not called, but the max %d is at %q", g, name, k, row.Max[k], row.MaxProcess[k])
					}
				} else if i := slices.IndexFunc(sides[k], func(f procFacts) bool { return f.label == row.MaxProcess[k] }); i < 0 || sides[k][i].excl[name] != st[k].max {
					t.Errorf("G%d %s side %d: the max is at %q", g, name, k, row.MaxProcess[k])
				}
				if gtime[k].mean > 0 && !near(row.Share[k], st[k].mean/gtime[k].mean, 1e-12) {
					t.Errorf("G%d %s side %d: share %v, want %v", g, name, k, row.Share[k], st[k].mean/gtime[k].mean)
				}
			}
			ratio, eff := math.NaN(), math.NaN()
			if st[0].mean > 0 {
				ratio = st[1].mean / st[0].mean
			}
			if st[0].mean > 0 && st[1].mean > 0 && runN[0] != runN[1] {
				eff = st[0].mean * runN[0] / (st[1].mean * runN[1])
				if r.opts.weak {
					eff = st[0].mean / st[1].mean
				}
			}
			change := row.Mean[1] - row.Mean[0]
			if row.Change != change || !near(row.Ratio, ratio, 1e-12) || !near(row.Efficiency, eff, 1e-12) ||
				row.Cost != int64(math.Round(float64(change)*w)) {
				t.Errorf("G%d %s: change %d ratio %v efficiency %v cost %d, want %d, %v, %v, %v", g, name,
					row.Change, row.Ratio, row.Efficiency, row.Cost, change, ratio, eff, float64(change)*w)
			}
			verdict, p := "", math.NaN()
			switch {
			case calls[1] == 0:
				verdict = "only in A"
			case calls[0] == 0:
				verdict = "only in B"
			case len(sides[0]) < MinVerdictProcesses || len(sides[1]) < MinVerdictProcesses:
				verdict = "few processes"
			default:
				var u float64
				u, p = rankSumOracle(st[0].vals, st[1].vals)
				switch {
				case p >= 0.01:
					verdict = "similar"
				case u < np[0]*np[1]/2:
					verdict = "slower"
				default:
					verdict = "faster"
				}
			}
			if row.Verdict != verdict || !near(row.P, p, 1e-9) {
				t.Errorf("G%d %s: verdict %q p %v, want %q %v", g, name, row.Verdict, row.P, verdict, p)
			}
		}
		// Tree
		paths := map[string]bool{}
		for k := range sides {
			for _, f := range sides[k] {
				for path := range f.pathCalls {
					paths[path] = true
				}
			}
		}
		for path := range paths {
			nTree++
			row, ok := treeRows[fmt.Sprint(g, "/", path)]
			if !ok {
				t.Errorf("Tree: no row for %q in G%d", path, g)
				continue
			}
			delete(treeRows, fmt.Sprint(g, "/", path))
			var in [2]bool
			var order [2][]string
			for k := range sides {
				var v []int64
				var calls int64
				rep := -1
				for i, f := range sides[k] {
					if c, ok := f.pathCalls[path]; ok {
						in[k] = true
						calls += c
						if rep < 0 {
							rep = i
						}
					}
					v = append(v, f.pathIncl[path])
				}
				st := statsOf(v)
				if !in[k] {
					st = stats{}
				}
				if row.Mean[k] != int64(math.Round(st.mean)) || row.Max[k] != st.max || (in[k] && row.Calls[k] != float64(calls)/np[k]) {
					t.Errorf("Tree G%d %q side %d: mean %d max %d calls %v, want %v, %d, %v", g, path, k, row.Mean[k], row.Max[k], row.Calls[k], st.mean, st.max, float64(calls)/np[k])
				}
				if rep >= 0 {
					// callees in the first holder's order of first call, then the others' by name
					order[k] = slices.Clone(sides[k][rep].callees[path])
					var others []string
					for _, f := range sides[k] {
						for _, c := range f.callees[path] {
							if !slices.Contains(order[k], c) && !slices.Contains(others, c) {
								others = append(others, c)
							}
						}
					}
					slices.Sort(others)
					order[k] = append(order[k], others...)
				}
			}
			state, note := "equal", ""
			switch {
			case !in[1]:
				state = "only in A"
			case !in[0]:
				state = "only in B"
			case !slices.Equal(order[0], order[1]):
				state = "different"
				note = na + ": " + briefOracle(order[0]) + "; " + nb + ": " + briefOracle(order[1])
			}
			if row.State != state || row.Note != note || row.Change != row.Mean[1]-row.Mean[0] {
				t.Errorf("Tree G%d %q: state %q note %q change %d, want %q %q", g, path, row.State, row.Note, row.Change, state, note)
			}
		}
		// Comm
		i, ok := commRow[int64(g)]
		if !ok {
			t.Fatalf("Comm: no row for G%d", g)
		}
		var perProc [2]float64
		for k, letter := range []string{"A", "B"} {
			var s, sb float64
			sums := map[string]float64{}
			for _, f := range sides[k] {
				s += float64(f.sent)
				sb += float64(f.sentBytes)
				sums["Messages Received per Process"] += float64(f.recv)
				sums["Bytes Received per Process"] += float64(f.recvBytes)
				sums["Partners per Process"] += float64(f.partners)
				sums["Collectives per Process"] += float64(f.colls)
			}
			sums["Messages Sent per Process"], sums["Bytes Sent per Process"] = s, sb
			for col, sum := range sums {
				name := col + " " + letter
				if strings.HasPrefix(col, "Bytes") {
					name += " (B)"
				}
				v, valid := mustFloat64s(t, comm, name)[i], mustValid(t, comm, name)[i]
				switch {
				case np[k] == 0 && valid:
					t.Errorf("Comm G%d: %s %v for a side without processes, want null", g, name, v)
				case np[k] > 0 && (!valid || v != sum/np[k]):
					t.Errorf("Comm G%d: %s %v, want %v", g, name, v, sum/np[k])
				}
			}
			if np[k] > 0 {
				perProc[k] = s / np[k]
			}
			bpm, valid := mustFloat64s(t, comm, "Bytes per Message "+letter+" (B)")[i], mustValid(t, comm, "Bytes per Message "+letter+" (B)")[i]
			if valid != (s > 0) || (s > 0 && !near(bpm, sb/s, 1e-12)) {
				t.Errorf("Comm G%d: bytes per message %s %v (valid %v), want %v", g, letter, bpm, valid, sb/s)
			}
		}
		ratio := mustFloat64s(t, comm, "Messages Ratio")[i]
		ratioOK := mustValid(t, comm, "Messages Ratio")[i]
		want := perProc[1] / perProc[0]
		if wantOK := !math.IsNaN(want) && !math.IsInf(want, 0) && np[0] > 0 && np[1] > 0; ratioOK != wantOK || (wantOK && !near(ratio, want, 1e-12)) {
			t.Errorf("Comm G%d: messages ratio %v (valid %v), want %v", g, ratio, ratioOK, want)
		}
	}
	for k := range fnRows {
		t.Errorf("Functions: row %s of no process", k)
	}
	for k := range treeRows {
		t.Errorf("Tree: row %s of no process", k)
	}
	checkTreeShape(t, tree)
	checkFunctionOrder(t, r.FunctionRows())
	// the headline's split by role adds up to the change of the time per process
	var perRunWant [2]float64
	for k, tr := range []*trace.Trace{a, b} {
		for _, p := range tr.Processes() {
			perRunWant[k] += float64(facts[p].total)
		}
		perRunWant[k] /= runN[k]
		if !near(perRun(r, k), perRunWant[k], 1e-12) {
			t.Errorf("run %d: %v per process, want %v", k, perRun(r, k), perRunWant[k])
		}
	}
	role := r.roleChange()
	if !near(role[0]+role[1]+role[2], perRunWant[1]-perRunWant[0], 1e-9) {
		t.Errorf("roles %v add up to %v, want %v", role, role[0]+role[1]+role[2], perRunWant[1]-perRunWant[0])
	}
	if nFn == 0 || nTree == 0 {
		t.Errorf("nothing compared: %d functions, %d paths", nFn, nTree)
	}
}

func briefOracle(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + fmt.Sprintf(", … (%d more)", len(names)-6)
	}
	return strings.Join(names, ", ")
}

// checkTreeShape checks that every group's rows are a pre-order: nodes numbered from 0, each
// row's parent an earlier row of its group whose path is the row's without its last call.
func checkTreeShape(t *testing.T, rows []TreeRow) {
	t.Helper()
	start := 0
	for i, w := range rows {
		if i > 0 && w.Group != rows[i-1].Group {
			if w.Group < rows[i-1].Group {
				t.Errorf("Tree: G%d after G%d", w.Group, rows[i-1].Group)
			}
			start = i
		}
		if w.Node != i-start {
			t.Errorf("Tree row %d: node %d, want %d", i, w.Node, i-start)
		}
		if w.Parent < 0 {
			if w.Depth != 1 || w.Path != w.Function {
				t.Errorf("Tree row %d: top-level %+v", i, w)
			}
			continue
		}
		if w.Parent >= w.Node {
			t.Errorf("Tree row %d: parent %d not before it", i, w.Parent)
			continue
		}
		p := rows[start+w.Parent]
		if p.Path+" > "+w.Function != w.Path || p.Depth+1 != w.Depth {
			t.Errorf("Tree row %d: %q (depth %d) under %q (depth %d)", i, w.Path, w.Depth, p.Path, p.Depth)
		}
	}
}

// checkFunctionOrder checks the documented ranking: set-up last, then by the absolute cost.
func checkFunctionOrder(t *testing.T, rows []FunctionRow) {
	t.Helper()
	for i := 1; i < len(rows); i++ {
		x, y := rows[i-1], rows[i]
		c := cmp.Or(cmp.Compare(b2i(x.Role == trace.SetUp), b2i(y.Role == trace.SetUp)), cmp.Compare(abs(y.Cost), abs(x.Cost)))
		if c > 0 {
			t.Errorf("Functions rows %d, %d out of order: %+v before %+v", i-1, i, x, y)
		}
	}
}

// randomRun is tracetest.RandomTrace with process i on rank i (RandomTrace puts all on rank 0,
// and labels must tell the processes apart).
func randomRun(rng *rand.Rand, procs, events int, distinct bool) *trace.Trace {
	tr := tracetest.RandomTrace(rng, procs, events, distinct)
	for i, p := range tr.Processes() {
		p.Rank = int32(i)
	}
	return tr
}

// Random traces of different process counts, grouped by structure, by rank, and by a key
// that makes big groups (so that the rank-sum verdicts run).
func TestViewsAgainstBruteForce(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 34))
		pa, pb := 1+rng.IntN(24), 1+rng.IntN(40)
		distinct := seed%2 == 0
		a := randomRun(rng, pa, 5+rng.IntN(60), distinct)
		b := randomRun(rng, pb, 5+rng.IntN(60), distinct)
		mod := 1 + int(seed%3)
		key := func(p *trace.Process) string { return fmt.Sprint(int(p.Rank) % mod) }
		for name, opts := range map[string][]Option{
			"structure": nil,
			"rank":      {WithMatchByRank()},
			"key":       {WithMapping(key)},
			"sigma 0":   {WithSigma(0), WithWeakScaling()},
		} {
			t.Run(fmt.Sprintf("seed %d %s", seed, name), func(t *testing.T) {
				r := Runs(a, b, opts...)
				checkAccounting(t, r, a, b, [2]int{})
				checkOracles(t, r, a, b)
			})
		}
	}
}

// The verdict branch of the oracle runs: big groups with distinct times.
func TestViewsAgainstBruteForceVerdicts(t *testing.T) {
	verdicts := map[string]int{}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 35))
		// B's processes have more events than A's on odd seeds, fewer on even ones
		ea, eb := 40, 40+40*int(seed%2)-20*int(1-seed%2)
		a := randomRun(rng, 20+rng.IntN(20), ea, true)
		b := randomRun(rng, 20+rng.IntN(40), eb, true)
		r := Runs(a, b, WithMapping(func(*trace.Process) string { return "all" }))
		checkOracles(t, r, a, b)
		for _, w := range r.FunctionRows() {
			verdicts[w.Verdict]++
		}
	}
	if verdicts["similar"] == 0 || verdicts["slower"] == 0 || verdicts["faster"] == 0 {
		t.Errorf("no rank-sum test ran: %v", verdicts)
	}
	t.Logf("verdicts %v", verdicts)
}

// Generated runs: messages of both kinds, collectives, threads, several structures; at
// different scales, code versions and with a slow rank.
func TestViewsAgainstBruteForceGenerated(t *testing.T) {
	gen := func(ranks, threads, version, slow int) *trace.Trace {
		cfg := synth.DefaultGenConfig()
		cfg.Ranks, cfg.Threads, cfg.Iterations, cfg.Version, cfg.SlowRank = ranks, threads, 3, version, slow
		return synth.Generate(cfg)
	}
	for _, c := range []struct {
		a, b *trace.Trace
		opts []Option
	}{
		{gen(16, 0, 0, -1), gen(32, 0, 0, 5), nil},
		{gen(8, 1, 0, -1), gen(16, 1, 1, 3), nil},
		{gen(9, 0, 0, -1), gen(9, 0, 1, 2), []Option{WithMatchByRank()}},
		{gen(12, 2, 0, -1), gen(24, 2, 0, 7), []Option{WithWeakScaling(), WithMapping(func(p *trace.Process) string { return fmt.Sprint(p.Thread) })}},
	} {
		r := Runs(c.a, c.b, c.opts...)
		checkAccounting(t, r, c.a, c.b, [2]int{})
		checkOracles(t, r, c.a, c.b)
		for _, col := range []string{"Messages Received per Process A", "Partners per Process B", "Collectives per Process A"} {
			if v := mustFloat64s(t, r.Comm(), col); slices.Max(v) == 0 {
				t.Errorf("%s: all 0, the oracle compared nothing", col)
			}
		}
	}
}
