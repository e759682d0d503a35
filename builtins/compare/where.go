package compare

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Occurrence is one call aligned between the representatives of a matched group (Result.Where):
// the same call in both runs, with its time in each.
type Occurrence struct {
	Group      int
	Function   string
	Path       string    // "main > solve > MPI_Waitall"
	Process    [2]string // the group's representatives in run A and run B
	Occurrence [2]int    // 1 for the process's first call of Function, 2 for the second, ...
	Enter      [2]int64  // ns from each trace's start
	Time       [2]int64  // inclusive ns
	Exclusive  [2]int64  // exclusive ns
	Change     int64     // Exclusive B - Exclusive A: the time this call itself gained or lost

	setUp bool // a set-up or tear-down call (MPI_Init, ...): ranked after the others
}

// representatives returns a process of each side of g: in run A the process whose time in
// instrumented regions is the group's median (the lower median; ties by index), a typical
// member rather than an outlier; in run B the process of the same rank and thread if the
// group has it there (so a sender is not aligned with a receiver of the same structure),
// else B's median process.
func (r *Result) representatives(g *group) (*trace.Process, *trace.Process) {
	median := func(k int) procSummary {
		ps := r.runs[k].sum.procs
		idx := slices.Clone(g.procs[k])
		slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(ps[a].Total, ps[b].Total) })
		return ps[idx[(len(idx)-1)/2]]
	}
	pa := median(0)
	pb := median(1)
	for _, i := range g.procs[1] {
		if q := r.runs[1].sum.procs[i]; q.Rank == pa.Rank && q.Thread == pa.Thread && q.Kind == pa.Kind {
			pb = q
			break
		}
	}
	return r.runs[0].tr.Process(int(pa.Index)), r.runs[1].tr.Process(int(pb.Index))
}

// nodeFacts are per call-tree node: exclusive time and the number of the call among the
// process's calls of its region.
func nodeFacts(ct *trace.CallTree) (excl []int64, occ []int32) {
	n := ct.Len()
	excl = make([]int64, n)
	occ = make([]int32, n)
	// calls so far per region: a table over the region ids when they are small, else a map
	lo, hi := int32(0), int32(-1)
	for _, reg := range ct.Region[1:] {
		lo, hi = min(lo, reg), max(hi, reg)
	}
	var table []int32
	if lo >= 0 && int(hi) < 4*n+1024 {
		table = make([]int32, hi+1)
	}
	count := map[int32]int32{}
	for i := 1; i < n; i++ {
		d := ct.Leave[i] - ct.Enter[i]
		excl[i] += d
		if p := ct.Parent[i]; p > 0 {
			excl[p] -= d
		}
		if table != nil {
			table[ct.Region[i]]++
			occ[i] = table[ct.Region[i]]
		} else {
			count[ct.Region[i]]++
			occ[i] = count[ct.Region[i]]
		}
	}
	return excl, occ
}

func pathOf(p *trace.Process, ct *trace.CallTree, i int32) string {
	var names []string
	for ; i > 0; i = ct.Parent[i] {
		names = append(names, p.RegionName(ct.Region[i]))
	}
	slices.Reverse(names)
	s := ""
	for j, n := range names {
		if j > 0 {
			s += " > "
		}
		s += n
	}
	return s
}

func (r *Result) whereRows() []Occurrence {
	if r.whereOK {
		return r.where
	}
	out := []Occurrence{}
	r.fetchRepresentatives()
	roles := trace.DefaultSync().Roles(r.runs[0].tr)
	for _, g := range r.groups {
		if len(g.procs[0]) == 0 || len(g.procs[1]) == 0 {
			continue
		}
		pa, pb := r.representatives(g)
		res := align.Pair(pa, pb)
		h := res.Hierarchical()
		if h == nil {
			continue
		}
		ca, cb := pa.CallTree(), pb.CallTree()
		ea, oa := nodeFacts(ca)
		eb, ob := nodeFacts(cb)
		type hit struct {
			a, b   int32
			change int64
			setUp  bool
		}
		var hits []hit
		for k := range h.State {
			if h.State[k] != align.Equal || h.NodeA[k] <= 0 || h.NodeB[k] <= 0 {
				continue
			}
			a, b := h.NodeA[k], h.NodeB[k]
			reg := ca.Region[a]
			hits = append(hits, hit{a, b, eb[b] - ea[a], reg >= 0 && int(reg) < len(roles) && roles[reg] == trace.SetUp})
		}
		slices.SortStableFunc(hits, func(x, y hit) int {
			return cmp.Or(cmp.Compare(b2i(x.setUp), b2i(y.setUp)), cmp.Compare(abs(y.change), abs(x.change)), cmp.Compare(x.a, y.a))
		})
		if len(hits) > r.opts.top {
			hits = hits[:r.opts.top]
		}
		for _, x := range hits {
			out = append(out, Occurrence{
				Group: g.id, Function: pa.RegionName(ca.Region[x.a]), Path: pathOf(pa, ca, x.a),
				Process:    [2]string{pa.Label(), pb.Label()},
				Occurrence: [2]int{int(oa[x.a]), int(ob[x.b])},
				Enter:      [2]int64{ca.Enter[x.a], cb.Enter[x.b]},
				Time:       [2]int64{ca.Leave[x.a] - ca.Enter[x.a], cb.Leave[x.b] - cb.Enter[x.b]},
				Exclusive:  [2]int64{ea[x.a], eb[x.b]},
				Change:     x.change,
				setUp:      x.setUp,
			})
		}
	}
	slices.SortStableFunc(out, func(x, y Occurrence) int {
		return cmp.Or(cmp.Compare(b2i(x.setUp), b2i(y.setUp)), cmp.Compare(abs(y.Change), abs(x.Change)), cmp.Compare(x.Group, y.Group))
	})
	r.where, r.whereOK = out, true
	return out
}

// fetchRepresentatives brings the events of every matched group's
// representatives of a distributed run (part.Remote) here, one request per
// run: Where aligns them whole.
func (r *Result) fetchRepresentatives() {
	var reps [2][]*trace.Process
	for _, g := range r.groups {
		if len(g.procs[0]) == 0 || len(g.procs[1]) == 0 {
			continue
		}
		pa, pb := r.representatives(g)
		reps[0], reps[1] = append(reps[0], pa), append(reps[1], pb)
	}
	for k := range r.runs {
		if err := part.Fetch(r.runs[k].tr, reps[k]); err != nil {
			work.FailErr("compare.Result.Where", err)
		}
	}
}
