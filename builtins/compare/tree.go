package compare

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracebook/tracebook/builtins/trace"
)

// TreeRow is one call path of one matched group in the diffed call tree (Result.Tree).
type TreeRow struct {
	Group      int
	Node       int // the row's number within its group, in pre-order of the merged tree
	Parent     int // the caller's Node, -1 at the top
	Depth      int // 1 for top-level calls
	Function   string
	Role       trace.TimeRole // the role of the function's time (trace.DefaultSync)
	Path       string         // "main > solve > MPI_Send"
	State      string         // "equal", "different" (callees differ), "only in A", "only in B"
	Note       string         // for "different": the callees in order of first call, per run
	Calls      [2]float64     // calls per process of the group
	Mean       [2]int64       // inclusive ns per process (mean over the group's processes)
	Max        [2]int64       // the largest per process
	MaxProcess [2]string
	Change     int64   // Mean B - Mean A
	Ratio      float64 // Mean B / Mean A (NaN when A is 0)
}

// treeSide is one run's side of a group's tree: per path of the comparison its sums, in
// tables over all paths (reused from group to group: clear zeroes the paths it touched).
type treeSide struct {
	has               []bool  // the side holds the path
	calls, incl, max  []int64 // summed calls and inclusive time; the largest per process
	maxAt, rep, first []int32 // process of the max; first process holding the path; the path's First in it
	touched           []int32
}

func newTreeSide(paths int) *treeSide {
	return &treeSide{has: make([]bool, paths), calls: make([]int64, paths), incl: make([]int64, paths),
		max: make([]int64, paths), maxAt: make([]int32, paths), rep: make([]int32, paths), first: make([]int32, paths)}
}

func (ts *treeSide) clear() {
	for _, gp := range ts.touched {
		ts.has[gp], ts.calls[gp], ts.incl[gp], ts.max[gp] = false, 0, 0, 0
		ts.maxAt[gp], ts.rep[gp], ts.first[gp] = 0, 0, 0
	}
	ts.touched = ts.touched[:0]
}

// fill sums side k of group g into ts (cleared).
func (r *Result) fill(ts *treeSide, g *group, k int) {
	ts.clear()
	ps := r.runs[k].sum.procs
	gpath := r.runs[k].gpath
	for _, pi := range g.procs[k] {
		for _, st := range ps[pi].Paths {
			gp := gpath[st.Path]
			ts.calls[gp] += st.Calls
			ts.incl[gp] += st.Incl
			if !ts.has[gp] {
				ts.has[gp] = true
				ts.touched = append(ts.touched, gp)
				ts.rep[gp], ts.first[gp] = pi, st.First
				ts.max[gp], ts.maxAt[gp] = st.Incl, pi
			} else if st.Incl > ts.max[gp] {
				ts.max[gp], ts.maxAt[gp] = st.Incl, pi
			}
		}
	}
}

// order returns the callees of path parent (-1: the top) that side ts holds, in the order of
// their first call in the first process holding parent; callees that process lacks follow by
// name.
func (r *Result) order(ts *treeSide, kids []int32, parent int32) []string {
	rep := int32(-1)
	if parent >= 0 {
		rep = ts.rep[parent]
	}
	var in, out []int32
	for _, c := range kids {
		if !ts.has[c] {
			continue
		}
		if parent < 0 || ts.rep[c] == rep {
			in = append(in, c)
		} else {
			out = append(out, c)
		}
	}
	if parent < 0 {
		// top-level calls: by their first process's order when it is the same process
		slices.SortStableFunc(in, func(a, b int32) int {
			return cmp.Or(cmp.Compare(ts.rep[a], ts.rep[b]), cmp.Compare(ts.first[a], ts.first[b]))
		})
	} else {
		slices.SortStableFunc(in, func(a, b int32) int { return cmp.Compare(ts.first[a], ts.first[b]) })
	}
	slices.SortStableFunc(out, func(a, b int32) int { return cmp.Compare(r.name[a], r.name[b]) })
	names := make([]string, 0, len(in)+len(out))
	for _, c := range append(in, out...) {
		names = append(names, r.name[c])
	}
	return names
}

func (r *Result) tree() []TreeRow {
	if r.treeRows != nil {
		return r.treeRows
	}
	kids := r.callees()
	rows := []TreeRow{}
	sides := [2]*treeSide{newTreeSide(len(r.name)), newTreeSide(len(r.name))}
	r.treeStart = make([]int, len(r.groups)+1)
	for _, g := range r.groups {
		start := len(rows)
		r.treeStart[g.id] = start
		r.fill(sides[0], g, 0)
		r.fill(sides[1], g, 1)
		n := [2]float64{float64(len(g.procs[0])), float64(len(g.procs[1]))}
		var walk func(parent int32, parentNode, depth int, prefix string)
		walk = func(parent int32, parentNode, depth int, prefix string) {
			k := len(r.name)
			if parent >= 0 {
				k = int(parent)
			}
			type node struct {
				path int32
				row  TreeRow
			}
			var nodes []node
			for _, c := range kids[k] {
				inA, inB := sides[0].has[c], sides[1].has[c]
				if !inA && !inB {
					continue
				}
				row := TreeRow{Group: g.id, Parent: parentNode, Depth: depth, Function: r.name[c], Role: r.role[c], Ratio: math.NaN()}
				row.Path = r.name[c]
				if prefix != "" {
					row.Path = prefix + " > " + r.name[c]
				}
				var mean [2]float64
				for s := range sides {
					if !sides[s].has[c] || n[s] == 0 {
						continue
					}
					row.Calls[s] = float64(sides[s].calls[c]) / n[s]
					mean[s] = float64(sides[s].incl[c]) / n[s]
					row.Mean[s] = int64(math.Round(mean[s]))
					row.Max[s] = sides[s].max[c]
					row.MaxProcess[s] = r.runs[s].sum.procs[sides[s].maxAt[c]].Label
				}
				row.Change = row.Mean[1] - row.Mean[0]
				if mean[0] > 0 {
					row.Ratio = mean[1] / mean[0]
				}
				switch {
				case inA && inB:
					row.State = "equal"
					oa, ob := r.order(sides[0], kids[c], c), r.order(sides[1], kids[c], c)
					if !slices.Equal(oa, ob) {
						row.State = "different"
						row.Note = r.runs[0].name + ": " + brief(oa) + "; " + r.runs[1].name + ": " + brief(ob)
					}
				case inA:
					row.State = "only in A"
				default:
					row.State = "only in B"
				}
				nodes = append(nodes, node{c, row})
			}
			slices.SortStableFunc(nodes, func(x, y node) int {
				return cmp.Or(cmp.Compare(abs(y.row.Change), abs(x.row.Change)), cmp.Compare(x.row.Function, y.row.Function))
			})
			for _, nd := range nodes {
				nd.row.Node = len(rows) - start
				rows = append(rows, nd.row)
				walk(nd.path, nd.row.Node, depth+1, nd.row.Path)
			}
		}
		walk(-1, -1, 1, "")
	}
	r.treeStart[len(r.groups)] = len(rows)
	r.treeRows = rows
	return rows
}

// groupTree returns the rows of group id's tree: row Node of the group is its element Node.
func (r *Result) groupTree(id int) []TreeRow {
	rows := r.tree()
	return rows[r.treeStart[id]:r.treeStart[id+1]]
}

// brief lists names, at most 6 then "… (n more)"; "(none)" for none.
func brief(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	if len(names) > 6 {
		return strings.Join(names[:6], ", ") + ", … (" + strconv.Itoa(len(names)-6) + " more)"
	}
	return strings.Join(names, ", ")
}
