package profile

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/internal/memlimit"
)

// oracleMatrix is the call matrix by brute force from the call trees: per series and (caller,
// callee) all values sorted; the closure puts a call in the cell of each distinct ancestor.
func oracleMatrix(procs [][]*trace.Process, closure bool) []map[cellKey][2]Dist {
	out := make([]map[cellKey][2]Dist, len(procs))
	for s, ps := range procs {
		exc, inc := map[cellKey][]int64{}, map[cellKey][]int64{}
		for _, p := range ps {
			for _, c := range oracleCalls(p) {
				callers := []int32{c.caller}
				if closure {
					callers = c.ancestors
				}
				for _, a := range callers {
					k := cellKey{a, c.callee}
					exc[k] = append(exc[k], c.exc)
					inc[k] = append(inc[k], c.inc)
				}
			}
		}
		out[s] = map[cellKey][2]Dist{}
		for k := range exc {
			out[s][k] = [2]Dist{oracleDist(exc[k]), oracleDist(inc[k])}
		}
	}
	return out
}

func checkMatrix(t *testing.T, m *Matrix, want []map[cellKey][2]Dist) {
	t.Helper()
	n := 0
	for _, w := range want {
		n += len(w)
	}
	if len(m.Cells) != n {
		t.Fatalf("%d cells, want %d", len(m.Cells), n)
	}
	for _, c := range m.Cells {
		w, ok := want[c.Series][cellKey{c.CallerRegion, c.CalleeRegion}]
		if !ok {
			t.Fatalf("cell %q -> %q in series %d not expected", c.Caller, c.Callee, c.Series)
		}
		if !sameDist(c.Exclusive, w[0]) || !sameDist(c.Inclusive, w[1]) {
			t.Fatalf("%q -> %q series %d:\n got exc %+v inc %+v\nwant exc %+v inc %+v", c.Caller, c.Callee, c.Series,
				c.Exclusive, c.Inclusive, w[0], w[1])
		}
	}
}

func TestCallMatrixAgainstBruteForce(t *testing.T) {
	t.Run("refine", func(t *testing.T) {
		smallRefinement(t)
		testCallMatrixAgainstBruteForce(t)
	})
	testCallMatrixAgainstBruteForce(t)
}

func testCallMatrixAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for it := range 60 {
		tr := randomTrace(rng, 1+rng.IntN(5), 1+rng.IntN(6), 10+rng.IntN(300))
		procs := tr.Processes()
		per := make([][]*trace.Process, len(procs))
		for i, p := range procs {
			per[i] = []*trace.Process{p}
		}
		t.Run(fmt.Sprint(it), func(t *testing.T) {
			for _, closure := range []bool{false, true} {
				var opts []Option
				if closure {
					opts = append(opts, WithClosure())
				}
				checkMatrix(t, CallMatrix(tr, opts...), oracleMatrix([][]*trace.Process{procs}, closure))
				checkMatrix(t, CallMatrix(tr, append(opts, WithPerProcess())...), oracleMatrix(per, closure))
			}
		})
	}
}

// TestClosureRootIsProfile: in the closure, the root's cell of a function holds every call of
// it, so it equals the function's box-profile row; and the function rows do not depend on
// Closure.
func TestClosureRootIsProfile(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	tr := randomTrace(rng, 3, 5, 400)
	b := Boxes(tr)
	m := CallMatrix(tr, WithClosure())
	// the function rows of a closure analysis are the same (each call counted once)
	for _, o := range []Option{WithClosure(), WithPerProcess()} {
		bc := Boxes(tr, WithClosure(), o)
		want := Boxes(tr, o)
		if len(bc.Rows) != len(want.Rows) {
			t.Fatalf("Boxes with Closure: %d rows, want %d", len(bc.Rows), len(want.Rows))
		}
		for i := range want.Rows {
			if !sameDist(bc.Rows[i].Exclusive, want.Rows[i].Exclusive) || !sameDist(bc.Rows[i].Inclusive, want.Rows[i].Inclusive) {
				t.Fatalf("Boxes with Closure, %s: %+v, want %+v", want.Rows[i].Function, bc.Rows[i], want.Rows[i])
			}
		}
	}
	for _, r := range b.Rows {
		c, ok := m.Cell("", r.Function, 0)
		if !ok || !sameDist(c.Exclusive, r.Exclusive) || !sameDist(c.Inclusive, r.Inclusive) {
			t.Fatalf("%s: root cell %+v (%v), profile %+v", r.Function, c, ok, r)
		}
	}
}

// TestCallMatrixRestrictions: Caller keeps the calls of one function, Functions restricts
// callers and callees, Top keeps the first cells of the ranking.
func TestCallMatrixRestrictions(t *testing.T) {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "a"}, {Name: "b"}}}
	// main { a { b } b b }
	ev := []struct {
		k trace.EventKind
		t int64
		r int32
	}{{trace.Enter, 0, 0}, {trace.Enter, 1, 1}, {trace.Enter, 2, 2}, {trace.Leave, 5, 2}, {trace.Leave, 6, 1},
		{trace.Enter, 7, 2}, {trace.Leave, 9, 2}, {trace.Enter, 10, 2}, {trace.Leave, 14, 2}, {trace.Leave, 20, 0}}
	p := &trace.Process{Name: "MPI Rank 0"}
	for _, e := range ev {
		p.Kind, p.Time, p.Ref = append(p.Kind, e.k), append(p.Time, e.t), append(p.Ref, e.r)
	}
	tr := trace.NewTrace(defs, []*trace.Process{p})
	m := CallMatrix(tr)
	want := map[[2]string]int64{{"", "main"}: 1, {"main", "a"}: 1, {"a", "b"}: 1, {"main", "b"}: 2}
	if len(m.Cells) != len(want) {
		t.Fatalf("cells %+v", m.Cells)
	}
	for _, c := range m.Cells {
		if want[[2]string{c.Caller, c.Callee}] != c.Exclusive.Count {
			t.Fatalf("cell %q->%q: %d calls", c.Caller, c.Callee, c.Exclusive.Count)
		}
	}
	// main -> b: inclusive 2 and 4, the sum ranks it first by sum (6 of inclusive? no: exclusive)
	mb, _ := m.Cell("main", "b", 0)
	if mb.Inclusive.Sum != 6 || mb.Inclusive.P50 != 3 {
		t.Fatalf("main->b: %+v", mb.Inclusive)
	}
	if got := CallMatrix(tr, WithCaller("main")); len(got.Cells) != 2 || got.Cells[0].Caller != "main" || got.Cells[1].Caller != "main" {
		t.Fatalf("WithCaller(main): %+v", got.Cells)
	}
	if got := CallMatrix(tr, WithFunctions("main", "b")); len(got.Cells) != 2 {
		t.Fatalf("WithFunctions(main, b): %+v", got.Cells) // root->main, main->b; a->b is gone with a
	}
	// closure: b is called below main three times, below a once
	cl := CallMatrix(tr, WithClosure())
	if c, _ := cl.Cell("main", "b", 0); c.Exclusive.Count != 3 {
		t.Fatalf("closure main->b: %d calls", c.Exclusive.Count)
	}
	top := CallMatrix(tr, WithTop(1)) // by exclusive sum: root->main has 20-1-... main exc = 20-(5)-(2)-(4) = 9
	if len(top.Cells) != 1 || top.Cells[0].Callee != "main" || top.Cells[0].Exclusive.Sum != 9 {
		t.Fatalf("WithTop(1): %+v", top.Cells)
	}
}

// A hand-built trace entering region 2000000000 (not defined) once grew the closure's
// region marks to it (8 GB: a fatal out-of-memory error under a memory limit). The marks
// cover the defined regions now; the undefined one is looked up on the stack, and the
// closure still counts each distinct ancestor once.
func TestClosureUndefinedRegionUnderMemoryLimit(t *testing.T) {
	memlimit.Run(t, 1<<30, func(t *testing.T) {
		p := &trace.Process{Name: "rank 0"}
		add := func(k trace.EventKind, ts int64, ref int32) {
			p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, ts), append(p.Ref, ref)
		}
		const far = 2000000000
		add(trace.Enter, 0, far)
		add(trace.Enter, 1, 0)
		add(trace.Enter, 2, far)
		add(trace.Enter, 3, 0)
		add(trace.Leave, 4, 0)
		add(trace.Leave, 5, far)
		add(trace.Leave, 6, 0)
		add(trace.Leave, 7, far)
		tr := trace.NewTrace(&trace.Definitions{Regions: []trace.Region{{Name: "f"}}}, []*trace.Process{p})
		m := CallMatrix(tr, WithClosure())
		checkMatrix(t, m, oracleMatrix([][]*trace.Process{{p}}, true))
	})
}
