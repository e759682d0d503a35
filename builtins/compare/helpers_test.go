package compare

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// The hand-built runs of the scenario tests: every process is a tree of calls written as
// nodes, each with its exclusive time, so that every expected number follows from the
// construction.

// regionNames are the regions of every hand-built trace (unused ones do no harm).
var regionNames = []string{"main", "init", "read_config", "alloc", "loop", "compute", "MPI_Send",
	"read_input", "new_fn", "halo", "pack", "MPI_Recv", "halo_pack", "halo_unpack"}

// node is one call: its function, its exclusive time (spent before its callees) and its
// callees in call order.
type node struct {
	name string
	excl int64
	kids []node
}

// incl is the inclusive time of n.
func (n node) incl() int64 {
	t := n.excl
	for _, k := range n.kids {
		t += k.incl()
	}
	return t
}

// calls writes n starting at t in pre-order, returning the time it leaves.
func (n node) calls(t int64, out *[]tracetest.Call) int64 {
	id := int64(slices.Index(regionNames, n.name))
	if id < 0 {
		panic("unknown region " + n.name)
	}
	i := len(*out)
	*out = append(*out, tracetest.Call{id, t, 0})
	t += n.excl
	for _, k := range n.kids {
		t = k.calls(t, out)
	}
	(*out)[i][2] = t
	return t
}

// rankSpec is one hand-built rank: main > {init > {read_config, alloc}, mainExtra...,
// loop x loops > {compute, MPI_Send, loopExtra...}} (MPI_Send before compute with swap).
type rankSpec struct {
	loops     int
	compute   int64 // ns per call of compute
	send      int64 // ns per call of MPI_Send
	mainExtra []node
	loopExtra []node
	swap      bool
}

// Exclusive times of the fixed parts of a rank.
const (
	mainExcl, initExcl, readConfigExcl, allocExcl, loopExcl = 1, 2, 5, 3, 2
	defaultLoops, defaultCompute, defaultSend               = 4, 100, 20
)

func base() rankSpec {
	return rankSpec{loops: defaultLoops, compute: defaultCompute, send: defaultSend}
}

func (s rankSpec) tree() node {
	kids := []node{{"init", initExcl, []node{{"read_config", readConfigExcl, nil}, {"alloc", allocExcl, nil}}}}
	kids = append(kids, s.mainExtra...)
	for range s.loops {
		body := []node{{"compute", s.compute, nil}, {"MPI_Send", s.send, nil}}
		if s.swap {
			body[0], body[1] = body[1], body[0]
		}
		kids = append(kids, node{"loop", loopExcl, append(body, s.loopExtra...)})
	}
	return node{"main", mainExcl, kids}
}

func (s rankSpec) process(start int64) *trace.Process {
	var calls []tracetest.Call
	s.tree().calls(start, &calls)
	return tracetest.Process(calls...)
}

// handRun builds a run of n ranks, rank r being spec(r).
func handRun(n int, spec func(r int) rankSpec) *trace.Trace {
	ps := make([]*trace.Process, n)
	for r := range ps {
		ps[r] = spec(r).process(int64(r % 3)) // starts skewed a little: times are durations
	}
	return tracetest.Trace(regionNames, ps...)
}

// withRank0 gives rank 0 the extra function read_input under main, so that it forms a
// group of its own.
func withRank0(spec func(r int) rankSpec) func(r int) rankSpec {
	return func(r int) rankSpec {
		s := spec(r)
		if r == 0 {
			s.mainExtra = append(s.mainExtra, node{"read_input", 5, nil})
		}
		return s
	}
}

func baseSpec(int) rankSpec { return base() }

// pairsOf returns the caller->callee pairs of n's call tree by name ("" is the root ε), as a
// set written "caller>callee".
func pairsOf(n node) map[string]bool {
	set := map[string]bool{}
	var walk func(caller string, n node)
	walk = func(caller string, n node) {
		set[caller+">"+n.name] = true
		for _, k := range n.kids {
			walk(n.name, k)
		}
	}
	walk("", n)
	return set
}

// jaccard is |a ∩ b| / |a ∪ b| of two sets.
func jaccard(a, b map[string]bool) float64 {
	inter, union := 0, len(b)
	for k := range a {
		if b[k] {
			inter++
		} else {
			union++
		}
	}
	return float64(inter) / float64(union)
}

// groupRow is one row of the Groups table.
type groupRow struct {
	state        string
	pairsim      float64
	pairsimOK    bool
	procs        [2]int64
	closest      int64
	closestOK    bool
	closestSim   float64
	hash         [2]string
	timeA, timeB int64
	cost         int64
}

// groupRows reads the Groups table by group id.
func groupRows(t *testing.T, r *Result) map[int64]groupRow {
	t.Helper()
	tb := r.Groups()
	id := mustInt64s(t, tb, "Group")
	state := mustStrings(t, tb, "State")
	sim := mustFloat64s(t, tb, "Pairsim")
	simOK := mustValid(t, tb, "Pairsim")
	pa, pb := mustInt64s(t, tb, "Processes A"), mustInt64s(t, tb, "Processes B")
	cl, clOK := mustInt64s(t, tb, "Closest"), mustValid(t, tb, "Closest")
	cs := mustFloat64s(t, tb, "Closest Pairsim")
	ha, hb := mustStrings(t, tb, "Hash A"), mustStrings(t, tb, "Hash B")
	ta, tbb := mustInt64s(t, tb, "Time per Process A (ns)"), mustInt64s(t, tb, "Time per Process B (ns)")
	cost := mustInt64s(t, tb, "Cost (ns)")
	out := map[int64]groupRow{}
	for i := range id {
		if _, dup := out[id[i]]; dup {
			t.Fatalf("Groups: group %d twice", id[i])
		}
		out[id[i]] = groupRow{state: state[i], pairsim: sim[i], pairsimOK: simOK[i], procs: [2]int64{pa[i], pb[i]},
			closest: cl[i], closestOK: clOK[i], closestSim: cs[i], hash: [2]string{ha[i], hb[i]},
			timeA: ta[i], timeB: tbb[i], cost: cost[i]}
	}
	if len(out) != r.NumGroups() {
		t.Fatalf("Groups has %d rows, NumGroups %d", len(out), r.NumGroups())
	}
	return out
}

func mustInt64s(t *testing.T, tb interface {
	Int64s(string) ([]int64, error)
}, name string) []int64 {
	t.Helper()
	v, err := tb.Int64s(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustFloat64s(t *testing.T, tb interface {
	Float64s(string) ([]float64, error)
}, name string) []float64 {
	t.Helper()
	v, err := tb.Float64s(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustStrings(t *testing.T, tb interface {
	Strings(string) ([]string, error)
}, name string) []string {
	t.Helper()
	v, err := tb.Strings(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustValid(t *testing.T, tb interface {
	Valid(string) ([]bool, error)
}, name string) []bool {
	t.Helper()
	v, err := tb.Valid(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkAccounting checks that the groups hold every process of both runs exactly once (but
// left processes of each run, those an empty mapping key leaves out), through Group and
// through the Groups table.
func checkAccounting(t *testing.T, r *Result, a, b *trace.Trace, left [2]int) {
	t.Helper()
	runs := [2]*trace.Trace{a, b}
	var seen [2]map[*trace.Process]bool
	var sum [2]int
	rows := groupRows(t, r)
	for i := range r.NumGroups() {
		ga, gb := r.Group(i)
		for k, g := range [2][]*trace.Process{ga, gb} {
			if seen[k] == nil {
				seen[k] = map[*trace.Process]bool{}
			}
			for _, p := range g {
				if p.Trace != runs[k] {
					t.Errorf("group %d side %d holds %s of the other run", i, k, p.Label())
				}
				if seen[k][p] {
					t.Errorf("%s of run %d is in two groups", p.Label(), k)
				}
				seen[k][p] = true
			}
			if int64(len(g)) != rows[int64(i)].procs[k] {
				t.Errorf("group %d: Groups says %d processes on side %d, Group gives %d", i, rows[int64(i)].procs[k], k, len(g))
			}
			sum[k] += int(rows[int64(i)].procs[k])
		}
	}
	for k, tr := range runs {
		if want := tr.NumProcesses() - left[k]; len(seen[k]) != want || sum[k] != want {
			t.Errorf("run %d: %d processes in groups (Groups sums %d), want %d", k, len(seen[k]), sum[k], want)
		}
	}
}

// labelsOf returns the labels of ps.
func labelsOf(ps []*trace.Process) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Label()
	}
	return out
}

// rankLabels returns "rank i" for each i in rs.
func rankLabels(rs ...int) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("rank %d", r)
	}
	return out
}

// ranks returns lo, lo+1, ..., hi-1.
func ranks(lo, hi int) []int {
	var out []int
	for r := lo; r < hi; r++ {
		out = append(out, r)
	}
	return out
}
