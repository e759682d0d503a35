package compare

import (
	"cmp"
	"math"
	"slices"

	"github.com/tracebook/tracebook/builtins/trace"
)

// FunctionRow is one function of one matched group: its exclusive time per process in each run
// and what the change costs (Result.Functions).
type FunctionRow struct {
	Group      int
	Function   string
	Role       trace.TimeRole
	Processes  [2]int     // the group's processes in run A and run B
	Calls      [2]float64 // calls per process (mean over the group's processes)
	Mean       [2]int64   // exclusive ns per process, mean over the group's processes (0 where not called)
	Max        [2]int64   // the largest per process
	MaxProcess [2]string  // the process of the largest ("" without processes)
	Share      [2]float64 // of the group's time per process in that run
	Change     int64      // Mean B - Mean A
	Ratio      float64    // Mean B / Mean A (NaN when A is 0)
	Efficiency float64    // scaling efficiency, T_A·P_A / (T_B·P_B) with P the runs' processes (NaN for runs of equal process counts, or a side 0)
	Cost       int64      // Change weighted by the group's share of the processes (the mean of its shares of the two runs)
	P          float64    // two-sided p-value of the rank-sum test (NaN without a test)
	Verdict    string     // "slower", "faster", "similar", "few processes", "only in A", "only in B"
}

// groupFunctions is the per-process exclusive time of each function of one group.
type groupFunctions struct {
	names []string
	roles []trace.TimeRole // of each function's first path in the comparison
	vals  [2][][]int64     // [side][function][process of the group]
	calls [2][]int64
	total [2][]int64 // per process: its time in instrumented regions
}

// functionIndex numbers the functions of the comparison's paths: per run, per summary path
// its function, and a table from function to its slot in the group at hand (-1: none yet).
type functionIndex struct {
	of   [2][]int32
	role []trace.TimeRole // per function: the role of its first path
	slot []int32
}

func (r *Result) functionIndex() *functionIndex {
	fx := &functionIndex{}
	byName := map[string]int32{}
	ofPath := make([]int32, len(r.name))
	for i, name := range r.name {
		f, ok := byName[name]
		if !ok {
			f = int32(len(byName))
			byName[name] = f
			fx.role = append(fx.role, r.role[i])
		}
		ofPath[i] = f
	}
	for k := range r.runs {
		fx.of[k] = make([]int32, len(r.runs[k].gpath))
		for i, gp := range r.runs[k].gpath {
			fx.of[k][i] = ofPath[gp]
		}
	}
	fx.slot = make([]int32, len(byName))
	for i := range fx.slot {
		fx.slot[i] = -1
	}
	return fx
}

// functionsOf sums the exclusive time of each function per process of group g, the functions
// in the order of their first path in the group's processes (run A's first).
func (r *Result) functionsOf(g *group, fx *functionIndex) *groupFunctions {
	gf := &groupFunctions{}
	var used []int32 // the functions given a slot
	for k := range r.runs {
		ps := r.runs[k].sum.procs
		n := len(g.procs[k])
		gf.total[k] = make([]int64, n)
		for j, pi := range g.procs[k] {
			p := &ps[pi]
			gf.total[k][j] = p.Total
			for _, st := range p.Paths {
				fn := fx.of[k][st.Path]
				f := fx.slot[fn]
				if f < 0 {
					f = int32(len(gf.names))
					fx.slot[fn] = f
					used = append(used, fn)
					gf.names = append(gf.names, r.name[r.runs[k].gpath[st.Path]])
					gf.roles = append(gf.roles, fx.role[fn])
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
	for _, fn := range used {
		fx.slot[fn] = -1
	}
	return gf
}

// Functions computes the rows of every group (once).
func (r *Result) functions() []FunctionRow {
	if r.fnRows != nil {
		return r.fnRows
	}
	runN := [2]float64{float64(len(r.runs[0].sum.procs)), float64(len(r.runs[1].sum.procs))}
	rows := []FunctionRow{}
	fx := r.functionIndex()
	for _, g := range r.groups {
		gf := r.functionsOf(g, fx)
		var gmean [2]float64
		for k := range gf.total {
			gmean[k] = meanOf(gf.total[k])
		}
		for f, name := range gf.names {
			row := FunctionRow{Group: g.id, Function: name, Role: gf.roles[f], Ratio: math.NaN(), Efficiency: math.NaN(), P: math.NaN()}
			var mean [2]float64
			var vals [2][]int64
			for k := range r.runs {
				n := len(g.procs[k])
				row.Processes[k] = n
				vals[k] = gf.vals[k][f]
				if vals[k] == nil {
					vals[k] = make([]int64, n)
				}
				if n == 0 {
					continue
				}
				mean[k] = meanOf(vals[k])
				row.Mean[k] = int64(math.Round(mean[k]))
				row.Calls[k] = float64(gf.calls[k][f]) / float64(n)
				if gf.calls[k][f] > 0 {
					j := argmax(vals[k])
					row.Max[k] = vals[k][j]
					row.MaxProcess[k] = r.runs[k].sum.procs[g.procs[k][j]].Label
				}
				if gmean[k] > 0 {
					row.Share[k] = mean[k] / gmean[k]
				}
			}
			row.Change = row.Mean[1] - row.Mean[0]
			if mean[0] > 0 {
				row.Ratio = mean[1] / mean[0]
			}
			pa, pb := float64(row.Processes[0]), float64(row.Processes[1])
			if mean[0] > 0 && mean[1] > 0 && runN[0] != runN[1] {
				if r.opts.weak {
					row.Efficiency = mean[0] / mean[1]
				} else {
					row.Efficiency = mean[0] * runN[0] / (mean[1] * runN[1])
				}
			}
			row.Cost = int64(math.Round(float64(row.Change) * weight(pa, pb, runN)))
			calledA, calledB := gf.calls[0][f] > 0, gf.calls[1][f] > 0
			switch {
			case !calledB:
				row.Verdict = "only in A"
			case !calledA:
				row.Verdict = "only in B"
			case row.Processes[0] < MinVerdictProcesses || row.Processes[1] < MinVerdictProcesses:
				row.Verdict = "few processes"
			default:
				u, p := rankSum(vals[0], vals[1])
				row.P = p
				switch {
				case p >= verdictLevel:
					row.Verdict = "similar"
				case u < pa*pb/2:
					row.Verdict = "slower"
				default:
					row.Verdict = "faster"
				}
			}
			rows = append(rows, row)
		}
	}
	slices.SortStableFunc(rows, func(x, y FunctionRow) int {
		return cmp.Or(
			cmp.Compare(b2i(x.Role == trace.SetUp), b2i(y.Role == trace.SetUp)),
			cmp.Compare(abs(y.Cost), abs(x.Cost)),
			cmp.Compare(x.Group, y.Group),
			cmp.Compare(x.Function, y.Function))
	})
	r.fnRows = rows
	return rows
}

// weight is a group's share of the processes: the mean of its shares of the two runs, or its
// share of the one run it has processes in. A row's cost is its change per process times this
// weight, so that a change on one process of thousands ranks below the same change on all.
func weight(pa, pb float64, runN [2]float64) float64 {
	var w, n float64
	for k, p := range [2]float64{pa, pb} {
		if p > 0 && runN[k] > 0 {
			w += p / runN[k]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return w / n
}

func meanOf(v []int64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}

func argmax(v []int64) int {
	j := 0
	for i, x := range v {
		if x > v[j] {
			j = i
		}
	}
	return j
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
