package trace_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
	"github.com/tracebook/tracebook/builtins/work"
)

// call is a call of a hand-made location: (region, enter, leave).
type call = tracetest.Call

// syncRegions: 0 main, 1 compute, 2 MPI_Allreduce (role coll_all2all),
// 3 MPI_Wait (by name), 4 MPI_Barrier (by name, no role), 5 tail.
var syncRegions = []trace.Region{{Name: "main", Role: "function"}, {Name: "compute", Role: "function"},
	{Name: "MPI_Allreduce", Role: "coll_all2all", Paradigm: "mpi"}, {Name: "MPI_Wait"}, {Name: "MPI_Barrier"}, {Name: "tail"}}

// syncTrace: main [0,110) holds compute [10,40), MPI_Allreduce [40,70)
// with MPI_Wait [45,60) inside, compute [70,75), MPI_Barrier [80,100);
// then, after 10 ns outside every call, tail [120,130).
func syncTrace() *trace.Process {
	tr := trace.NewTrace(&trace.Definitions{Regions: syncRegions}, []*trace.Process{tracetest.Process(
		call{0, 0, 110}, call{1, 10, 40}, call{2, 40, 70}, call{3, 45, 60}, call{1, 70, 75}, call{4, 80, 100},
		call{5, 120, 130})})
	return tr.Process(0)
}

// TestSyncTimesNested: the MPI_Wait inside MPI_Allreduce is counted once.
// Span 130 = idle 10 + sync (30 + 20) + compute 70; the compute is also the
// sum of the exclusive times outside synchronisation: main 25, compute 30
// and 5, tail 10. Mutation tried: counting every marked node (in[i] alone)
// gives sync 65.
func TestSyncTimesNested(t *testing.T) {
	p := syncTrace()
	got := trace.DefaultSync().Times(p)
	want := trace.SyncTimes{SpanNs: 130, OutsideNs: 10, SyncNs: 50, ComputeNs: 70}
	if got != want {
		t.Fatalf("times %+v, want %+v", got, want)
	}
	nodes := trace.DefaultSync().Nodes(p)
	wantNodes := []bool{false, false, false, true, true, false, true, false}
	for i := range wantNodes {
		if nodes[i] != wantNodes[i] {
			t.Fatalf("sync nodes %v, want %v", nodes, wantNodes)
		}
	}
	var zero *trace.SyncClassifier // a nil classifier is the default one
	if got := zero.Times(p); got != want {
		t.Fatalf("nil classifier: %+v", got)
	}
}

// TestSyncTimesOverrides: Include and Exclude by name change the split;
// Exclude of the outer call lets the inner MPI_Wait count. Mutation tried:
// Exclude before Include in IsSync (the third case gives sync 0, not 50).
func TestSyncTimesOverrides(t *testing.T) {
	p := syncTrace()
	cases := []struct {
		c    *trace.SyncClassifier
		want trace.SyncTimes
	}{
		{trace.DefaultSync().Include("comp*"), trace.SyncTimes{130, 10, 0, 85, 35}},
		{trace.DefaultSync().Exclude("mpi_allreduce"), trace.SyncTimes{130, 10, 0, 35, 85}},
		{trace.DefaultSync().Exclude("*").Include("MPI_Allreduce", "MPI_Barrier"), trace.SyncTimes{130, 10, 0, 50, 70}},
		{trace.DefaultSync().Exclude("*"), trace.SyncTimes{130, 10, 0, 0, 120}},
	}
	for i, c := range cases {
		if got := c.c.Times(p); got != c.want {
			t.Errorf("case %d (%v): %+v, want %+v", i, c.c, got, c.want)
		}
	}
}

// TestSyncClassifierRules: the documented rules, one region each.
// Mutations tried: dropping the MPI_I exception for roles (MPI_Iallreduce
// turns true), dropping case folding (mpi_allreduce turns false), sharing
// the receiver's pattern slice in clone (two classifiers derived from one
// overwrite each other's last pattern).
func TestSyncClassifierRules(t *testing.T) {
	def := trace.DefaultSync()
	custom := def.Include("spin_*").Exclude("MPI_Send", "*barrier*")
	only := def.Exclude("*").Include("MPI_Barrier")
	cases := []struct {
		r                   trace.Region
		def, custom, onlyOK bool
	}{
		{trace.Region{Name: "MPI_Barrier"}, true, false, true},
		{trace.Region{Name: "mpi_allreduce"}, true, true, false},
		{trace.Region{Name: "MPI_Allreduce", Role: "coll_all2all", Paradigm: "mpi"}, true, true, false},
		{trace.Region{Name: "MPI_Iallreduce", Role: "coll_all2all", Paradigm: "mpi"}, false, false, false},
		{trace.Region{Name: "MPI_Ibarrier", Role: "barrier", Paradigm: "mpi"}, false, false, false},
		{trace.Region{Name: "MPI_Comm_split", Role: "coll_other", Paradigm: "mpi"}, true, true, false},
		{trace.Region{Name: "MPI_Test", Role: "point2point"}, false, false, false},
		{trace.Region{Name: "MPI_Isend", Role: "point2point"}, false, false, false},
		{trace.Region{Name: "MPI_Recv", Role: "point2point"}, true, true, false},
		{trace.Region{Name: "MPI_Send", Role: "point2point"}, true, false, false},
		{trace.Region{Name: "MPI_Waitall"}, true, true, false},
		{trace.Region{Name: "MPI_Finalize"}, false, false, false},
		{trace.Region{Name: "MPI_Init"}, false, false, false},
		{trace.Region{Name: "MPI_Init_thread", Role: "function", Paradigm: "mpi"}, false, false, false},
		{trace.Region{Name: "!$omp implicit barrier @solver.c:12", Role: "implicit_barrier", Paradigm: "openmp"}, true, false, false},
		{trace.Region{Name: "!$omp implicit barrier @solver.c:12"}, true, false, false},
		{trace.Region{Name: "!$omp barrierless"}, false, false, false},
		{trace.Region{Name: "!$omp critical @a.c:3", Role: "critical", Paradigm: "openmp"}, false, false, false},
		{trace.Region{Name: "taskwait", Role: "task_wait", Paradigm: "openmp"}, true, true, false},
		{trace.Region{Name: "cudaDeviceSynchronize", Role: "function", Paradigm: "cuda"}, true, true, false},
		{trace.Region{Name: "hipStreamSynchronize"}, true, true, false},
		{trace.Region{Name: "compute_flux", Role: "function"}, false, false, false},
		{trace.Region{Name: "spin_wait"}, false, true, false},
	}
	for _, c := range cases {
		if got := def.IsSync(c.r); got != c.def {
			t.Errorf("default: %+v -> %v", c.r, got)
		}
		if got := custom.IsSync(c.r); got != c.custom {
			t.Errorf("%v: %+v -> %v", custom, c.r, got)
		}
		if got := only.IsSync(c.r); got != c.onlyOK {
			t.Errorf("%v: %+v -> %v", only, c.r, got)
		}
	}
	// Include and Exclude leave the receiver alone, also when the slices
	// have room to grow.
	base := def.Include("p1", "p2", "p3").Include("p4")
	y1, y2 := base.Include("y"), base.Include("z")
	if !y1.IsSync(trace.Region{Name: "y"}) || y1.IsSync(trace.Region{Name: "z"}) || base.IsSync(trace.Region{Name: "y"}) || def.IsSync(trace.Region{Name: "p1"}) {
		t.Errorf("derived classifiers share patterns: %v %v %v", base, y1, y2)
	}
	if s := custom.String(); s != "SyncClassifier(built-in rules, include [spin_*], exclude [mpi_send *barrier*])" {
		t.Errorf("String %q", s)
	}
	defer func() {
		var e *work.Error
		if r, _ := recover().(error); !errors.As(r, &e) || e.Func != "trace.SyncClassifier.Include" {
			t.Errorf("bad pattern: panic %v", r)
		}
	}()
	def.Include("[")
}

// TestSyncTimesOracle compares Times with a per-nanosecond oracle on random
// nested calls: each unit [t, t+1) of the span is outside every region (no
// call open), or takes the role of the outermost open call that is
// synchronisation or set-up, or is computation. Mutations tried: SyncNs
// summing every marked node's inclusive time fails at once; the innermost
// role instead of the outermost (a barrier inside MPI_Init counted as
// synchronisation) fails.
func TestSyncTimesOracle(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 9))
	regions := []trace.Region{{Name: "a"}, {Name: "b"}, {Name: "MPI_Wait"}, {Name: "MPI_Barrier"}, {Name: "MPI_Init"}, {Name: "shmem_finalize"}}
	for iter := 0; iter < 300; iter++ {
		var kind []trace.EventKind
		var times []int64
		var ref []int32
		var stack []int32
		now := int64(rnd.IntN(20))
		for n := rnd.IntN(60); n > 0 || len(stack) > 0; n-- {
			now += int64(rnd.IntN(4))
			if len(stack) == 0 || (n > 0 && rnd.IntN(2) == 0) {
				r := int32(rnd.IntN(len(regions)))
				kind, ref, stack = append(kind, trace.Enter), append(ref, r), append(stack, r)
			} else {
				kind, ref = append(kind, trace.Leave), append(ref, stack[len(stack)-1])
				stack = stack[:len(stack)-1]
			}
			times = append(times, now)
		}
		tr := trace.NewTrace(&trace.Definitions{Regions: regions}, []*trace.Process{{Kind: kind, Time: times, Ref: ref}})
		got := trace.DefaultSync().Times(tr.Process(0))
		var want trace.SyncTimes
		if len(times) > 0 {
			for u := times[0]; u < times[len(times)-1]; u++ {
				want.SpanNs++
				open, role := 0, trace.Computation
				var st []int32
				for i, k := range kind { // the calls open during [u, u+1)
					if times[i] > u {
						break
					}
					if k == trace.Enter {
						st = append(st, ref[i])
					} else {
						st = st[:len(st)-1]
					}
				}
				open = len(st)
				for _, r := range st { // outermost first
					if role == trace.Computation && (r == 2 || r == 3) {
						role = trace.Synchronisation
					} else if role == trace.Computation && r >= 4 {
						role = trace.SetUp
					}
				}
				switch {
				case open == 0:
					want.OutsideNs++
				case role == trace.Synchronisation:
					want.SyncNs++
				case role == trace.SetUp:
					want.SetUpNs++
				default:
					want.ComputeNs++
				}
			}
		}
		if got != want {
			t.Fatalf("iteration %d: %+v, oracle %+v", iter, got, want)
		}
	}
}

// TestSyncBind: a bound classifier answers as the unbound one, for its
// trace and for another trace whose region ids name other regions.
// Mutation tried: using the bound classification for any trace (the other
// trace then has 50 ns of synchronisation, not 0).
func TestSyncBind(t *testing.T) {
	p := syncTrace()
	bound := trace.DefaultSync().Bind(p.Trace)
	if got, want := bound.Times(p), trace.DefaultSync().Times(p); got != want {
		t.Errorf("bound %+v, unbound %+v", got, want)
	}
	other := trace.NewTrace(&trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "compute"}, {Name: "x"}, {Name: "y"}, {Name: "z"}, {Name: "tail"}}},
		[]*trace.Process{tracetest.Process(call{0, 0, 110}, call{1, 10, 40}, call{2, 40, 70}, call{3, 45, 60}, call{1, 70, 75}, call{4, 80, 100},
			call{5, 120, 130})}).Process(0)
	if got := bound.Times(other); got != (trace.SyncTimes{SpanNs: 130, OutsideNs: 10, ComputeNs: 120}) {
		t.Errorf("bound classifier on another trace: %+v", got)
	}
	if got := bound.Include("z").Times(other).SyncNs; got != 20 {
		t.Errorf("Include on a bound classifier: sync %d, want 20", got)
	}
}

// TestTimeRoles: set-up and tear-down are neither computation nor
// synchronisation by default (issue 32: MPI_Init counted as computation made
// launch skew look like a slow rank); the overrides move a region between
// roles in the documented order. Mutations tried: the built-in set-up names
// after Exclude (Exclude("*") turns MPI_Init into computation), Compute
// before SetUp patterns (the "both" case turns computation).
func TestTimeRoles(t *testing.T) {
	def := trace.DefaultSync()
	for _, n := range []string{"MPI_Init", "mpi_init_thread", "MPI_Finalize", "MPI_Session_init", "MPI_Session_finalize",
		"shmem_init", "shmem_init_thread", "shmem_finalize", "start_pes", "TRACE BUFFER FLUSH", "MEASUREMENT OFF"} {
		if got := def.RoleOf(trace.Region{Name: n, Role: "function"}); got != trace.SetUp {
			t.Errorf("%s: %v, want set-up", n, got)
		}
		if got := def.Exclude("*").RoleOf(trace.Region{Name: n}); got != trace.SetUp {
			t.Errorf("Exclude(*): %s: %v, want set-up", n, got)
		}
		if got := def.Compute("MPI_*", "shmem_*", "start_pes", "* *").RoleOf(trace.Region{Name: n}); got != trace.Computation {
			t.Errorf("Compute: %s: %v, want computation", n, got)
		}
	}
	cases := []struct {
		c    *trace.SyncClassifier
		r    string
		want trace.TimeRole
	}{
		{def, "MPI_Initialized", trace.Computation},
		{def, "MPI_Finalized", trace.Computation},
		{def, "ping-pong.otf2", trace.Computation}, // Score-P's program region (role artificial) is no rule
		{def, "MPI_Barrier", trace.Synchronisation},
		{def, "read_input", trace.Computation},
		{def.SetUp("read_*"), "read_input", trace.SetUp},
		{def.SetUp("read_*").Compute("read_input"), "read_input", trace.SetUp},
		{def.Include("MPI_Init"), "MPI_Init", trace.Synchronisation},
		{def.Include("MPI_Init").SetUp("MPI_Init"), "MPI_Init", trace.Synchronisation},
		{def.Compute("MPI_Barrier"), "MPI_Barrier", trace.Computation},
		{def.SetUp("MPI_Barrier"), "MPI_Barrier", trace.SetUp},
	}
	for _, c := range cases {
		if got := c.c.RoleOf(trace.Region{Name: c.r, Role: "artificial"}); got != c.want {
			t.Errorf("%v: %s: %v, want %v", c.c, c.r, got, c.want)
		}
	}
	if s := def.SetUp("a").Compute("B").String(); s != "SyncClassifier(built-in rules, set-up [a], compute [b])" {
		t.Errorf("String %q", s)
	}
	// Time: MPI_Init [0,50) holding an MPI_Barrier [10,20), compute [60,70),
	// MPI_Barrier [70,80), 10 ns outside, MPI_Finalize [90,100).
	regions := []trace.Region{{Name: "MPI_Init"}, {Name: "MPI_Barrier"}, {Name: "compute"}, {Name: "MPI_Finalize"}}
	p := trace.NewTrace(&trace.Definitions{Regions: regions}, []*trace.Process{tracetest.Process(call{0, 0, 50}, call{1, 10, 20},
		call{2, 60, 70}, call{1, 70, 80}, call{3, 90, 100})}).Process(0)
	if got, want := def.Times(p), (trace.SyncTimes{SpanNs: 100, OutsideNs: 20, SetUpNs: 60, SyncNs: 10, ComputeNs: 10}); got != want {
		t.Errorf("times %+v, want %+v", got, want)
	}
	if got, want := def.Compute("MPI_Init", "MPI_Finalize").Times(p), (trace.SyncTimes{SpanNs: 100, OutsideNs: 20, SyncNs: 20, ComputeNs: 60}); got != want {
		t.Errorf("set-up as computation: times %+v, want %+v", got, want)
	}
	if got := trace.TimeRole(7).String(); got != "TimeRole(7)" {
		t.Errorf("String %q", got)
	}
}
