package compare

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Names returns the names of run A and run B, as the headline and the figures call them.
func (r *Result) Names() (a, b string) { return r.runs[0].name, r.runs[1].name }

// Traces returns the traces of run A and run B, as Runs was given them.
func (r *Result) Traces() (a, b *trace.Trace) { return r.runs[0].tr, r.runs[1].tr }

// NumGroups returns the number of groups (matched, and of one run only).
func (r *Result) NumGroups() int { return len(r.groups) }

// Group returns the processes of group i in run A and in run B (nil on a side without any).
func (r *Result) Group(i int) (a, b []*trace.Process) {
	if i < 0 || i >= len(r.groups) {
		fail("compare.Result.Group", "group %d: there are %d", i, len(r.groups))
	}
	g := r.groups[i]
	var out [2][]*trace.Process
	for k := range r.runs {
		for _, pi := range g.procs[k] {
			out[k] = append(out[k], r.runs[k].tr.Process(int(r.runs[k].sum.procs[pi].Index)))
		}
	}
	return out[0], out[1]
}

// State returns how group i matches: Equal, Similar, OnlyA or OnlyB.
func (r *Result) State(i int) State {
	if i < 0 || i >= len(r.groups) {
		fail("compare.Result.State", "group %d: there are %d", i, len(r.groups))
	}
	return r.groups[i].state
}

// perProcess returns side k's mean time in instrumented regions per process of group g.
func (r *Result) perProcess(g *group, k int) float64 {
	if len(g.procs[k]) == 0 {
		return 0
	}
	var s float64
	for _, pi := range g.procs[k] {
		s += float64(r.runs[k].sum.procs[pi].Total)
	}
	return s / float64(len(g.procs[k]))
}

// groupCost is the change of g's time per process weighted by its share of the processes.
func (r *Result) groupCost(g *group) float64 {
	runN := [2]float64{float64(len(r.runs[0].sum.procs)), float64(len(r.runs[1].sum.procs))}
	return (r.perProcess(g, 1) - r.perProcess(g, 0)) * weight(float64(len(g.procs[0])), float64(len(g.procs[1])), runN)
}

// byCost returns the groups ranked by the time per process their change costs.
func (r *Result) byCost() []*group {
	cost := make([]float64, len(r.groups)) // by group id
	for _, g := range r.groups {
		cost[g.id] = math.Abs(r.groupCost(g))
	}
	gs := slices.Clone(r.groups)
	slices.SortStableFunc(gs, func(x, y *group) int {
		return cmp.Or(cmp.Compare(cost[y.id], cost[x.id]),
			cmp.Compare(len(y.procs[0])+len(y.procs[1]), len(x.procs[0])+len(x.procs[1])), cmp.Compare(x.id, y.id))
	})
	return gs
}

func (r *Result) members(g *group, k int, limit int) string {
	if len(g.procs[k]) == 0 {
		return ""
	}
	ps := make([]*trace.Process, len(g.procs[k]))
	for j, pi := range g.procs[k] {
		ps[j] = r.runs[k].tr.Process(int(r.runs[k].sum.procs[pi].Index))
	}
	return labels.NewRuns(ps).Of(ps, limit)
}

// Groups returns one row per group, ranked by cost: Group, State, Pairsim (of the two sides'
// caller->callee pairs; null for a group of one run), Processes A and B, Members A and B,
// Time per Process A and B (ns, in instrumented regions), Change (ns), Ratio, Cost (ns: the
// change weighted by the group's share of the processes, as in Functions), Closest and Closest
// Pairsim (for a group of one run: the most similar group with processes in the other run,
// matched or not), Hash A and Hash B (SHA3-512 of the pairs, as cluster.Structural's Hash).
func (r *Result) Groups() *arrowio.Table {
	gs := r.byCost()
	n := len(gs)
	id, pa, pb := make([]int64, n), make([]int64, n), make([]int64, n)
	state, ma, mb, ha, hb := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sim, ratio, csim := make([]float64, n), make([]float64, n), make([]float64, n)
	simOK, ratioOK, closeOK := make([]bool, n), make([]bool, n), make([]bool, n)
	ta, tb, ch, cost, closest := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, g := range gs {
		id[i], state[i] = int64(g.id), g.state.String()
		sim[i], simOK[i] = g.sim, !math.IsNaN(g.sim)
		pa[i], pb[i] = int64(len(g.procs[0])), int64(len(g.procs[1]))
		ma[i], mb[i] = r.members(g, 0, 80), r.members(g, 1, 80)
		a, b := r.perProcess(g, 0), r.perProcess(g, 1)
		ta[i], tb[i], ch[i] = int64(math.Round(a)), int64(math.Round(b)), int64(math.Round(b))-int64(math.Round(a))
		if a > 0 && b > 0 {
			ratio[i], ratioOK[i] = b/a, true
		}
		cost[i] = int64(math.Round(r.groupCost(g)))
		if g.closest != nil {
			closest[i], csim[i], closeOK[i] = int64(g.closest.id), g.closeTo, true
		}
		if len(g.procs[0]) > 0 {
			ha[i] = cluster.HashOf(g.names[0])
		}
		if len(g.procs[1]) > 0 {
			hb[i] = cluster.HashOf(g.names[1])
		}
	}
	return arrowio.MustTable(
		arrowio.Int64("Group", id), arrowio.Dict("State", state), arrowio.NullableFloat64("Pairsim", sim, simOK),
		arrowio.Int64("Processes A", pa), arrowio.Int64("Processes B", pb),
		arrowio.String("Members A", ma), arrowio.String("Members B", mb),
		arrowio.Int64("Time per Process A (ns)", ta).WithUnit("ns"), arrowio.Int64("Time per Process B (ns)", tb).WithUnit("ns"),
		arrowio.Int64("Change (ns)", ch).WithUnit("ns"), arrowio.NullableFloat64("Ratio", ratio, ratioOK),
		arrowio.Int64("Cost (ns)", cost).WithUnit("ns"),
		arrowio.NullableInt64("Closest", closest, closeOK), arrowio.NullableFloat64("Closest Pairsim", csim, closeOK),
		arrowio.String("Hash A", ha), arrowio.String("Hash B", hb),
	)
}

func nullable(v []float64) ([]float64, []bool) {
	ok := make([]bool, len(v))
	for i, x := range v {
		ok[i] = !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	return v, ok
}

// Functions returns one row per function and group, the answer first: Group, Function, the
// exclusive time per process in each run (the mean over the group's processes, 0 for a process
// that does not call it), Change (ns) and Ratio of the means, Cost (ns: the change weighted by
// the group's share of the processes, see the package doc), Verdict (a rank-sum test over the
// processes, see MinVerdictProcesses; "only in A", "only in B"), then Role, the group's
// processes, calls per process, the max per process with its process, the share of the
// group's time, the scaling efficiency (runs of different process counts, T_A·P_A / (T_B·P_B)
// with P the runs' processes; see WithWeakScaling) and the test's P Value. Rows are ranked by
// the absolute cost, set-up and tear-down (MPI_Init, ...) last: their differences are mostly
// launch skew. Table is Functions.
func (r *Result) Functions() *arrowio.Table {
	rows := r.functions()
	n := len(rows)
	g, pa, pb := make([]int64, n), make([]int64, n), make([]int64, n)
	fn, role, verdict, xa, xb := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ca, cb, sa, sb, ratio, eff, p := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	ma, mb, mxa, mxb, ch, cost := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, w := range rows {
		g[i], fn[i], role[i], verdict[i] = int64(w.Group), w.Function, w.Role.String(), w.Verdict
		pa[i], pb[i] = int64(w.Processes[0]), int64(w.Processes[1])
		ca[i], cb[i], ma[i], mb[i] = w.Calls[0], w.Calls[1], w.Mean[0], w.Mean[1]
		mxa[i], mxb[i], xa[i], xb[i] = w.Max[0], w.Max[1], w.MaxProcess[0], w.MaxProcess[1]
		sa[i], sb[i], ch[i], ratio[i], eff[i], cost[i], p[i] = 100*w.Share[0], 100*w.Share[1], w.Change, w.Ratio, w.Efficiency, w.Cost, w.P
	}
	rv, rok := nullable(ratio)
	ev, eok := nullable(eff)
	pv, pok := nullable(p)
	return arrowio.MustTable(
		arrowio.Int64("Group", g), arrowio.Dict("Function", fn),
		arrowio.Int64("Time per Process A (ns)", ma).WithUnit("ns"), arrowio.Int64("Time per Process B (ns)", mb).WithUnit("ns"),
		arrowio.Int64("Change (ns)", ch).WithUnit("ns"), arrowio.NullableFloat64("Ratio", rv, rok),
		arrowio.Int64("Cost (ns)", cost).WithUnit("ns"), arrowio.Dict("Verdict", verdict),
		arrowio.Dict("Role", role), arrowio.Int64("Processes A", pa), arrowio.Int64("Processes B", pb),
		arrowio.Float64("Calls per Process A", ca), arrowio.Float64("Calls per Process B", cb),
		arrowio.Int64("Max A (ns)", mxa).WithUnit("ns"), arrowio.String("Max Process A", xa),
		arrowio.Int64("Max B (ns)", mxb).WithUnit("ns"), arrowio.String("Max Process B", xb),
		arrowio.Float64("Share A (%)", sa).WithUnit("%"), arrowio.Float64("Share B (%)", sb).WithUnit("%"),
		arrowio.NullableFloat64("Efficiency", ev, eok), arrowio.NullableFloat64("P Value", pv, pok),
	)
}

// Table returns Functions, the ranked changes: the first row is the answer.
func (r *Result) Table() *arrowio.Table { return r.Functions() }

// FunctionRows returns the rows of Functions as Go values, in the same order.
func (r *Result) FunctionRows() []FunctionRow { return slices.Clone(r.functions()) }

// Tree returns the call trees of every group diffed, hatchet's way: the union of the call
// paths of both runs, one row per path in pre-order (callees ranked by the absolute change),
// with its state ("only in A", "only in B", "different" when the callees or the order of their
// first calls differ, with both orders in Note, else "equal"), the role of the function's time
// (computation, synchronisation, set-up/tear-down), and per run calls per process
// and inclusive time per process (mean, max and the process of the max), the change and the
// ratio.
func (r *Result) Tree() *arrowio.Table {
	rows := r.tree()
	n := len(rows)
	g, node, parent, depth := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	fn, role, path, state, note, xa, xb := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ca, cb, ratio := make([]float64, n), make([]float64, n), make([]float64, n)
	ma, mb, mxa, mxb, ch := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, w := range rows {
		g[i], node[i], parent[i], depth[i] = int64(w.Group), int64(w.Node), int64(w.Parent), int64(w.Depth)
		fn[i], role[i], path[i], state[i], note[i] = w.Function, w.Role.String(), w.Path, w.State, w.Note
		ca[i], cb[i], ma[i], mb[i], mxa[i], mxb[i] = w.Calls[0], w.Calls[1], w.Mean[0], w.Mean[1], w.Max[0], w.Max[1]
		xa[i], xb[i], ch[i], ratio[i] = w.MaxProcess[0], w.MaxProcess[1], w.Change, w.Ratio
	}
	rv, rok := nullable(ratio)
	return arrowio.MustTable(
		arrowio.Int64("Group", g), arrowio.Int64("Node", node), arrowio.Int64("Parent", parent), arrowio.Int64("Depth", depth),
		arrowio.Dict("Function", fn), arrowio.Dict("Role", role), arrowio.String("Path", path), arrowio.Dict("State", state), arrowio.String("Note", note),
		arrowio.Float64("Calls per Process A", ca), arrowio.Float64("Calls per Process B", cb),
		arrowio.Int64("Time per Process A (ns)", ma).WithUnit("ns"), arrowio.Int64("Time per Process B (ns)", mb).WithUnit("ns"),
		arrowio.Int64("Max A (ns)", mxa).WithUnit("ns"), arrowio.String("Max Process A", xa),
		arrowio.Int64("Max B (ns)", mxb).WithUnit("ns"), arrowio.String("Max Process B", xb),
		arrowio.Int64("Change (ns)", ch).WithUnit("ns"), arrowio.NullableFloat64("Ratio", rv, rok),
	)
}

// TreeRows returns the rows of Tree as Go values, in the same order.
func (r *Result) TreeRows() []TreeRow { return slices.Clone(r.tree()) }

// Comm returns per group, ranked by cost, the point-to-point messages and bytes sent and
// received per process, bytes per message sent, partners per process (distinct communicator
// and peer) and collective operations per process in each run, and the ratios of messages and
// bytes sent.
func (r *Result) Comm() *arrowio.Table {
	gs := r.byCost()
	n := len(gs)
	id := make([]int64, n)
	state := make([]string, n)
	cols := map[string][]float64{}
	names := []string{"Messages Sent per Process", "Bytes Sent per Process", "Bytes per Message", "Messages Received per Process", "Bytes Received per Process", "Partners per Process", "Collectives per Process"}
	for _, nm := range names {
		cols[nm+" A"], cols[nm+" B"] = make([]float64, n), make([]float64, n)
	}
	ratioM, ratioB := make([]float64, n), make([]float64, n)
	for i, g := range gs {
		id[i], state[i] = int64(g.id), g.state.String()
		var sent [2]float64
		var bytes [2]float64
		for k, letter := range []string{" A", " B"} {
			ps := r.runs[k].sum.procs
			var s, sb, rv, rb, pt, co float64
			for _, pi := range g.procs[k] {
				p := &ps[pi]
				s += float64(p.Sent)
				sb += float64(p.SentB)
				rv += float64(p.Recv)
				rb += float64(p.RecvB)
				pt += float64(p.Partners)
				co += float64(p.Collectives)
			}
			np := float64(len(g.procs[k]))
			if np == 0 {
				np = math.NaN()
			}
			cols["Messages Sent per Process"+letter][i] = s / np
			cols["Bytes Sent per Process"+letter][i] = sb / np
			cols["Bytes per Message"+letter][i] = sb / s
			cols["Messages Received per Process"+letter][i] = rv / np
			cols["Bytes Received per Process"+letter][i] = rb / np
			cols["Partners per Process"+letter][i] = pt / np
			cols["Collectives per Process"+letter][i] = co / np
			sent[k], bytes[k] = s/np, sb/np
		}
		ratioM[i], ratioB[i] = sent[1]/sent[0], bytes[1]/bytes[0]
	}
	out := []arrowio.Column{arrowio.Int64("Group", id), arrowio.Dict("State", state)}
	for _, nm := range names {
		for _, letter := range []string{" A", " B"} {
			v, ok := nullable(cols[nm+letter])
			c := arrowio.NullableFloat64(nm+letter, v, ok)
			if strings.HasPrefix(nm, "Bytes") {
				c = arrowio.NullableFloat64(nm+letter+" (B)", v, ok).WithUnit("B")
			}
			out = append(out, c)
		}
	}
	rm, rmok := nullable(ratioM)
	rb, rbok := nullable(ratioB)
	out = append(out, arrowio.NullableFloat64("Messages Ratio", rm, rmok), arrowio.NullableFloat64("Bytes Ratio", rb, rbok))
	return arrowio.MustTable(out...)
}

// Where aligns, for every group present in both runs, a representative process of run A with
// one of run B (each the process of the group's median time; Weber's hierarchical alignment,
// ch. 3) and returns the aligned calls whose own (exclusive) time changed most, at most WithTop
// per group (default 10), ranked by the absolute change across groups (set-up and tear-down
// calls such as MPI_Init last, as in Functions): "call 412 of
// MPI_Waitall in G2: +3.1 ms" — the per-occurrence difference. Columns: Group, Function, Path,
// Process A and B, Occurrence A and B (the call's number among the process's calls of the
// function), Enter A and B (ns, time points), Time A and B (ns, inclusive), Exclusive A and B
// (ns), Change (ns).
func (r *Result) Where() *arrowio.Table {
	rows := r.whereRows()
	n := len(rows)
	g, oa, ob, ea, eb, ta, tb, xa, xb, ch := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	fn, path, pa, pb := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, w := range rows {
		g[i], fn[i], path[i], pa[i], pb[i] = int64(w.Group), w.Function, w.Path, w.Process[0], w.Process[1]
		oa[i], ob[i], ea[i], eb[i] = int64(w.Occurrence[0]), int64(w.Occurrence[1]), w.Enter[0], w.Enter[1]
		ta[i], tb[i], xa[i], xb[i], ch[i] = w.Time[0], w.Time[1], w.Exclusive[0], w.Exclusive[1], w.Change
	}
	return arrowio.MustTable(
		arrowio.Int64("Group", g), arrowio.Dict("Function", fn), arrowio.String("Path", path),
		arrowio.Dict("Process A", pa), arrowio.Dict("Process B", pb),
		arrowio.Int64("Occurrence A", oa), arrowio.Int64("Occurrence B", ob),
		arrowio.Int64("Enter A (ns)", ea), arrowio.Int64("Enter B (ns)", eb),
		arrowio.Int64("Time A (ns)", ta).WithUnit("ns"), arrowio.Int64("Time B (ns)", tb).WithUnit("ns"),
		arrowio.Int64("Exclusive A (ns)", xa).WithUnit("ns"), arrowio.Int64("Exclusive B (ns)", xb).WithUnit("ns"),
		arrowio.Int64("Change (ns)", ch).WithUnit("ns"),
	)
}

// WhereRows returns the rows of Where as Go values, in the same order.
func (r *Result) WhereRows() []Occurrence { return slices.Clone(r.whereRows()) }

func signed(ns float64) string {
	ns = math.Round(ns)
	if ns >= 0 {
		return "+" + arrowio.FormatDuration(int64(math.Round(ns)))
	}
	return "-" + arrowio.FormatDuration(int64(math.Round(-ns)))
}

func dur(ns float64) string { return arrowio.FormatDuration(int64(math.Round(ns))) }

func ratioText(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", x)
}

// Headline says what changed and what it cost, in up to five lines: the runs and the groups'
// matching; the time per process (with the strong-scaling efficiency for runs of different
// sizes); the change split by role with the costliest function; the messages; the structure
// changes.
func (r *Result) Headline() string {
	na, nb := r.Names()
	pa, pb := len(r.runs[0].sum.procs), len(r.runs[1].sum.procs)
	var count [4]int
	for _, g := range r.groups {
		count[g.state]++
	}
	var lines []string
	plural := "s"
	if len(r.groups) == 1 {
		plural = ""
	}
	var kinds []string
	for st, c := range count {
		if c > 0 {
			name := State(st).String()
			if State(st) == OnlyA {
				name = "only in " + na
			} else if State(st) == OnlyB {
				name = "only in " + nb
			}
			kinds = append(kinds, fmt.Sprintf("%d %s", c, name))
		}
	}
	l := fmt.Sprintf("%s (%d processes) vs %s (%d processes): %d group%s — %s",
		na, pa, nb, pb, len(r.groups), plural, strings.Join(kinds, ", "))
	if r.left[0]+r.left[1] > 0 {
		l += fmt.Sprintf("; %d processes without a key left out", r.left[0]+r.left[1])
	}
	lines = append(lines, l)
	ta, tb := perRun(r, 0), perRun(r, 1)
	l = fmt.Sprintf("Time per process %s → %s (%s)", dur(ta), dur(tb), ratioText(tb/ta))
	if pa != pb && ta > 0 && tb > 0 {
		if r.opts.weak {
			l += fmt.Sprintf(", weak-scaling efficiency %.2f", ta/tb)
		} else {
			l += fmt.Sprintf(", strong-scaling efficiency %.2f", ta*float64(pa)/(tb*float64(pb)))
		}
	}
	lines = append(lines, l)
	rows := r.functions()
	byRole := r.roleChange()
	l = fmt.Sprintf("Of the %s per process: computation %s, synchronisation %s, set-up/tear-down %s", signed(tb-ta),
		signed(byRole[trace.Computation]), signed(byRole[trace.Synchronisation]), signed(byRole[trace.SetUp]))
	if len(rows) > 0 && rows[0].Cost != 0 {
		w := rows[0]
		how := ratioText(w.Ratio)
		if w.Verdict == "only in A" || w.Verdict == "only in B" {
			how = w.Verdict[:8] + r.runs[b2i(w.Verdict == "only in B")].name
		}
		l += fmt.Sprintf("; first: %s in G%d, %s per process (%s)", w.Function, w.Group, signed(float64(w.Change)), how)
	}
	if h := r.hotPath(); h != "" {
		l += "; " + h
	}
	lines = append(lines, l)
	if r.runs[0].sent+r.runs[1].sent > 0 {
		ma, mb := float64(r.runs[0].sent)/float64(max(pa, 1)), float64(r.runs[1].sent)/float64(max(pb, 1))
		lines = append(lines, fmt.Sprintf("Messages sent per process %.4g → %.4g (%s)", ma, mb, ratioText(mb/ma)))
	}
	if s := r.structureLine(); s != "" {
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

// roleChange splits the change of the runs' time per process by the role of the time
// (trace.TimeRole): per run, the exclusive time of each role over all its processes divided by
// its processes; the three changes add up to the change of the time per process.
func (r *Result) roleChange() [3]float64 {
	var out [3]float64
	for k := range r.runs {
		s := r.runs[k].sum
		if len(s.procs) == 0 {
			continue
		}
		var t [3]float64
		for _, p := range s.procs {
			for _, st := range p.Paths {
				t[s.role[st.Path]] += float64(st.Excl)
			}
		}
		sign := float64(2*k - 1)
		for i := range t {
			out[i] += sign * t[i] / float64(len(s.procs))
		}
	}
	return out
}

// costliestMatched returns the matched group (in both runs) whose change costs most, or nil.
func (r *Result) costliestMatched() *group {
	for _, h := range r.byCost() {
		if h.state == Equal || h.state == Similar {
			return h
		}
	}
	return nil
}

// hotPath names the deepest call path below the top level of the costliest matched group that
// holds at least half of the group's change of time per process, set-up and tear-down calls
// (MPI_Init, ...) left out of both: "the loop" of a slower run. "" when there is none.
func (r *Result) hotPath() string {
	g := r.costliestMatched()
	if g == nil {
		return ""
	}
	rows := r.groupTree(g.id) // rows[Node]
	// the change of set-up calls below each row, and of the whole group
	below := make([]float64, len(rows))
	for _, w := range rows {
		if w.Role == trace.SetUp {
			for p := w.Parent; p >= 0; p = rows[p].Parent {
				below[p] += float64(w.Change)
			}
		}
	}
	var total float64
	for i, w := range rows {
		if w.Depth == 1 && w.Role != trace.SetUp {
			total += float64(w.Change) - below[i]
		}
	}
	if total == 0 {
		return ""
	}
	best := -1
	for i, w := range rows {
		if w.Depth < 2 || w.Role == trace.SetUp || w.State != "equal" && w.State != "different" {
			continue
		}
		if c := float64(w.Change) - below[i]; c*total > 0 && math.Abs(c) >= math.Abs(total)/2 && (best < 0 || w.Depth > rows[best].Depth) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	w := rows[best]
	return fmt.Sprintf("most of it under %s in G%d, %s per process (%s)", w.Path, g.id, signed(float64(w.Change)), ratioText(w.Ratio))
}

func perRun(r *Result, k int) float64 {
	n := len(r.runs[k].sum.procs)
	if n == 0 {
		return 0
	}
	return float64(r.runs[k].total) / float64(n)
}

// structureLine names the call paths of matched groups found in one run only and the callers
// whose callees differ (the topmost of each), at most 4.
func (r *Result) structureLine() string {
	type item struct {
		text   string
		groups []string
	}
	var items []*item
	seen := map[string]*item{}
	for _, w := range r.tree() {
		g := r.groups[w.Group]
		if g.state == OnlyA || g.state == OnlyB {
			continue
		}
		var s string
		switch w.State {
		case "only in A", "only in B":
			if w.Parent >= 0 && r.groupTree(w.Group)[w.Parent].State == w.State {
				continue
			}
			s = w.Path + " only in " + r.runs[b2i(w.State == "only in B")].name
		case "different":
			s = "calls under " + w.Path + " differ (" + w.Note + ")"
		default:
			continue
		}
		it := seen[s]
		if it == nil {
			it = &item{text: s}
			seen[s] = it
			items = append(items, it)
		}
		it.groups = append(it.groups, fmt.Sprintf("G%d", w.Group))
	}
	if len(items) == 0 {
		return ""
	}
	var parts []string
	for i, it := range items {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("… (%d more in Tree)", len(items)-3))
			break
		}
		parts = append(parts, it.text+" in "+brief(it.groups))
	}
	return "Structure: " + strings.Join(parts, "; ")
}

// String returns the headline and the first ten ranked changes.
func (r *Result) String() string {
	var b strings.Builder
	b.WriteString(r.Headline())
	b.WriteString("\n")
	for i, w := range r.functions() {
		if i == 10 {
			fmt.Fprintf(&b, "… (%d more rows in Functions)\n", len(r.functions())-10)
			break
		}
		how := ratioText(w.Ratio)
		if w.Verdict == "only in A" || w.Verdict == "only in B" {
			how = "—"
		}
		fmt.Fprintf(&b, "G%d %-28s %10s → %10s per process  %8s  cost %s  %s\n", w.Group, w.Function,
			dur(float64(w.Mean[0])), dur(float64(w.Mean[1])), how, signed(float64(w.Cost)), w.Verdict)
	}
	return b.String()
}

// MIMEBundle shows the headline, the first 20 ranked changes and the figure.
func (r *Result) MIMEBundle() map[string]any {
	t := r.Functions()
	note := ""
	if t.NumRows() > 20 {
		note = fmt.Sprintf("first 20 of %d rows: r.Functions() has all; r.Groups(), r.Tree(), r.Comm(), r.Where() the other views", t.NumRows())
		t = t.Head(20)
	}
	return display.Composition{Headline: r.Headline(), Table: t, Note: note, Figures: []display.MIMEBundler{r.Plot()}}.MIMEBundle()
}

// Plot draws the groups' processes per run, the diffed call tree of the costliest matched
// group coloured by change (red: slower in B, blue: faster), and the costliest changes per
// process, all with the runs' names.
func (r *Result) Plot() *plotting.Figure {
	na, nb := r.Names()
	var gl []string
	var gv []float64
	for _, g := range r.groups {
		for k, name := range []string{na, nb} {
			gl = append(gl, fmt.Sprintf("G%d %s · %s", g.id, g.state, name))
			gv = append(gv, float64(len(g.procs[k])))
		}
	}
	if len(gl) > 40 {
		gl, gv = gl[:40], gv[:40]
	}
	groups := plotting.Bars(fmt.Sprintf("Processes per group: %s vs %s", na, nb), gl, gv, plotting.WithXLabel("processes"))
	var fl []string
	var fv []float64
	var most float64
	for _, w := range r.functions() {
		if len(fl) == 15 {
			break
		}
		if w.Role == trace.SetUp || w.Cost == 0 {
			continue
		}
		fl = append(fl, fmt.Sprintf("G%d %s", w.Group, w.Function))
		fv = append(fv, float64(w.Cost))
		most = math.Max(most, math.Abs(float64(w.Cost)))
	}
	unit, scale := "ns", 1.0
	for _, u := range []struct {
		name string
		ns   float64
	}{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}} {
		if most >= u.ns {
			unit, scale = u.name, u.ns
			break
		}
	}
	for i := range fv {
		fv[i] = math.Round(fv[i]/scale*1000) / 1000
	}
	var top *plotting.Figure
	if len(fl) > 0 {
		top = plotting.Bars(fmt.Sprintf("Costliest changes per process, %s to %s (set-up left out)", na, nb), fl, fv,
			plotting.WithXLabel("cost: change of exclusive time per process, weighted by the group's share ["+unit+"]"))
	}
	return plotting.Stack(fmt.Sprintf("%s vs %s", na, nb), groups, r.treeFigure(), top)
}

// treeFigure draws the first 30 rows of the costliest matched group's diffed tree: time per
// process in each run and the change, the change's cell coloured by the ratio.
func (r *Result) treeFigure() *plotting.Figure {
	g := r.costliestMatched()
	if g == nil {
		return nil
	}
	na, nb := r.Names()
	var rowsL []string
	var cells [][]string
	var fills [][]color.Color
	for _, w := range r.groupTree(g.id) {
		if len(rowsL) == 30 {
			break
		}
		rowsL = append(rowsL, strings.Repeat("· ", w.Depth-1)+w.Function)
		c := []string{cellDur(w.Mean[0], w.State != "only in B"), cellDur(w.Mean[1], w.State != "only in A"), signed(float64(w.Change)), w.State}
		cells = append(cells, c)
		fills = append(fills, []color.Color{nil, nil, changeColor(w), nil})
	}
	if len(rowsL) == 0 {
		return nil // the group's processes have no calls (no events, or none in a cut)
	}
	return plotting.TextGrid(fmt.Sprintf("G%d's call tree, time per process (red: slower in %s)", g.id, nb),
		rowsL, []string{na, nb, "change", "state"}, cells, fills)
}

func cellDur(ns int64, present bool) string {
	if !present {
		return "—"
	}
	return dur(float64(ns))
}

// changeColor shades a change from white (none) to red (twice as slow or worse) or blue (twice as
// fast or better); grey for a path of one run.
func changeColor(w TreeRow) color.Color {
	if w.State == "only in A" || w.State == "only in B" {
		return color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	}
	x := w.Ratio
	if math.IsNaN(x) || x <= 0 {
		return nil
	}
	t := math.Min(math.Abs(math.Log2(x)), 1)
	shade := uint8(255 - 150*t)
	if x > 1 {
		return color.RGBA{255, shade, shade, 255}
	}
	return color.RGBA{shade, shade, 255, 255}
}

func fail(fn, format string, args ...any) { work.Fail(fn, format, args...) }
