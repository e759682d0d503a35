package imbalance

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// loopTrace builds p processes of main { [setup step] step MPI_Barrier ... }: iterations start
// every 20 ns from t = 10 (after a barrier they all start together), process i computes
// compute(i, k) ns in iteration k and waits in MPI_Barrier for the rest of the 20 ns; setup[i]
// > 0 adds one call of step of that length at t = 0 on process i, before the loop.
func loopTrace(p, iters int, compute func(i, k int) int64, setup []int64) *trace.Trace {
	const main, step, barrier = 0, 1, 2
	var procs []*trace.Process
	for i := range p {
		calls := []call{{main, 0, 10 + 20*int64(iters) + 5}}
		if i < len(setup) && setup[i] > 0 {
			calls = append(calls, call{step, 0, setup[i]})
		}
		for k := range iters {
			t := 10 + 20*int64(k)
			c := compute(i, k)
			calls = append(calls, call{step, t, t + 19}, call{barrier, t + c, t + 19})
		}
		procs = append(procs, procOf(calls...))
	}
	return traceOf([]string{"main", "step", "MPI_Barrier"}, procs...)
}

// Issue 31, finding 6: a perfectly balanced run has no culprit. Ties are ties: no iteration
// names a slowest process, and the headline does not say "rank 0 is the slowest in 10 of 10".
func TestBalancedRunHasNoCulprit(t *testing.T) {
	tr := loopTrace(3, 10, func(int, int) int64 { return 12 }, nil)
	r := Analyze(tr)
	if r.Function() != "step" {
		t.Fatalf("dominant %s", r.Function())
	}
	if c := r.Culprit(); c != nil {
		t.Errorf("culprit %v of a balanced run", c)
	}
	for _, it := range r.IterationList() {
		if it.Culprit != -1 || it.AtMax != 3 || it.Recoverable != 0 {
			t.Errorf("iteration %d: culprit %d, %d processes at the max, recoverable %v; want no culprit, 3 tied, 0", it.Index, it.Culprit, it.AtMax, it.Recoverable)
		}
	}
	for _, p := range r.ProcessList() {
		if p.Slowest != 0 || p.Tied != 10 {
			t.Errorf("process %d slowest in %d, tied in %d; want 0 and 10", p.Location, p.Slowest, p.Tied)
		}
	}
	h := r.String()
	if strings.Contains(h, "is the slowest") || strings.Contains(h, "culprit rank") || !strings.Contains(h, "balanced") {
		t.Errorf("headline of a balanced run: %q", h)
	}
	// A tie of two out of three: no culprit in that iteration either.
	tr = loopTrace(3, 4, func(i, k int) int64 {
		if i > 0 && k == 2 {
			return 15
		}
		return 12
	}, nil)
	r = Analyze(tr)
	if it := r.IterationList()[2]; it.Culprit != -1 || it.AtMax != 2 || it.MaxSOS != 15 {
		t.Errorf("iteration 2 with ranks 1 and 2 tied: %+v", it)
	}
	if !strings.Contains(r.String(), "tied") {
		t.Errorf("headline %q does not mention the tie", r.String())
	}
}

// Issue 31, finding 6: one extra set-up call of the dominant function on one rank does not
// shift the other iterations: rank 2, slower in every iteration, is the slowest in 10 of 10,
// and the recoverable time is what rank 2's extra work costs, nothing invented.
func TestExtraSetupCallDoesNotShiftIterations(t *testing.T) {
	compute := func(i, k int) int64 {
		if i == 2 {
			return 15
		}
		return 12
	}
	for _, p := range []int{2, 3, 5} {
		t.Run(fmt.Sprintf("%d ranks", p), func(t *testing.T) {
			slow := 2 % p // with 2 ranks rank 0 is the slow one
			comp := func(i, k int) int64 {
				if i == slow {
					return compute(2, k)
				}
				return compute(0, k)
			}
			tr := loopTrace(p, 10, comp, []int64{5}) // rank 0: one more call of step, at t = 0
			r := Analyze(tr)
			if r.Function() != "step" {
				t.Fatalf("dominant %s", r.Function())
			}
			var loop []Iteration // the iterations of the loop: every process in them
			for _, it := range r.IterationList() {
				switch it.Processes {
				case p:
					loop = append(loop, it)
				case 1:
					if it.Start != 0 || it.Culprit != -1 || it.Recoverable != 0 {
						t.Errorf("the set-up call's iteration: %+v", it)
					}
				default:
					t.Errorf("iteration %d has %d of %d processes", it.Index, it.Processes, p)
				}
			}
			if len(loop) != 10 || len(r.IterationList()) != 11 {
				t.Fatalf("%d iterations, %d with all processes; want 11 and 10", len(r.IterationList()), len(loop))
			}
			wantRec := 15 - (15+12*float64(p-1))/float64(p)
			for _, it := range loop {
				if it.Culprit != slow || math.Abs(it.Recoverable-wantRec) > 1e-9 {
					t.Errorf("iteration %d: culprit %d recoverable %v; want %d, %v", it.Index, it.Culprit, it.Recoverable, slow, wantRec)
				}
			}
			if c := r.Culprit(); c == nil || c.Index != slow {
				t.Errorf("culprit %v, want rank %d", c, slow)
			}
			want := fmt.Sprintf("rank %d is the slowest in 10 of 10 iterations", slow)
			if h := r.String(); !strings.Contains(h, want) {
				t.Errorf("headline %q, want %q", h, want)
			}
		})
	}
	// A balanced loop with the extra call: no culprit, nothing recoverable.
	tr := loopTrace(2, 10, func(int, int) int64 { return 12 }, []int64{5})
	r := Analyze(tr)
	var rec float64
	for _, it := range r.IterationList() {
		rec += it.Recoverable
	}
	if r.Culprit() != nil || rec != 0 {
		t.Errorf("balanced loop with a set-up call: culprit %v, recoverable %v ns; headline %q", r.Culprit(), rec, r.String())
	}
}

// Issue 31, finding 6: synchronisation functions are not candidates for the dominant
// function (every SOS-time of one would be 0); WithSyncCandidates keeps them. Candidates()
// leads with the chosen function, and functions that do not qualify come after all that do.
func TestSyncFunctionsAreNotCandidates(t *testing.T) {
	// main { (step { compute MPI_Wait } MPI_Allreduce) x 4 }: MPI_Allreduce has more inclusive
	// time than step; rank 2 computes longest.
	const main, step, compute, wait, allreduce = 0, 1, 2, 3, 4
	var procs []*trace.Process
	for i := range int64(3) {
		calls := []call{{main, 0, 1000}}
		for k := range int64(4) {
			t := 200 * k
			calls = append(calls, call{step, t, t + 40}, call{compute, t, t + 20 + 5*i}, call{wait, t + 20 + 5*i, t + 40},
				call{allreduce, t + 40, t + 190})
		}
		procs = append(procs, procOf(calls...))
	}
	tr := traceOf([]string{"main", "step", "compute", "MPI_Wait", "MPI_Allreduce"}, procs...)
	r := Analyze(tr)
	if r.Function() != "step" {
		t.Fatalf("dominant %s, want step (MPI_Allreduce synchronises)", r.Function())
	}
	if c := r.Culprit(); c == nil || c.Index != 2 {
		t.Errorf("culprit %v, want rank 2", c)
	}
	cand := r.Candidates()
	names := must(cand.Strings("Function"))
	qual := must(cand.Bools("Qualifies"))
	sync := must(cand.Bools("Synchronisation"))
	dom := must(cand.Bools("Segments the Run"))
	if names[0] != "step" || !dom[0] || !qual[0] {
		t.Errorf("first candidate %s (qualifies %v, segments %v); want step", names[0], qual[0], dom[0])
	}
	seenOut := false
	for i := range names {
		if !qual[i] {
			seenOut = true
		} else if seenOut {
			t.Errorf("qualifying %s listed after one that does not qualify: %v", names[i], names)
		}
		if names[i] == "MPI_Allreduce" && (!sync[i] || qual[i]) {
			t.Errorf("MPI_Allreduce: synchronisation %v, qualifies %v", sync[i], qual[i])
		}
		if names[i] == "main" && qual[i] {
			t.Errorf("main qualifies")
		}
	}
	if h := r.String(); !strings.Contains(h, "MPI_Allreduce") || !strings.Contains(h, "WithSyncCandidates") {
		t.Errorf("headline %q does not say that MPI_Allreduce was left out", h)
	}
	kept := Analyze(tr, WithSyncCandidates())
	if kept.Function() != "MPI_Allreduce" {
		t.Errorf("WithSyncCandidates: dominant %s", kept.Function())
	}
	if n := must(kept.Candidates().Strings("Function")); n[0] != "MPI_Allreduce" {
		t.Errorf("WithSyncCandidates: candidates %v", n)
	}
	// WithFunction leads the candidates with the named function even if it does not qualify.
	byMain := Analyze(tr, WithFunction("main"))
	if n := must(byMain.Candidates().Strings("Function")); n[0] != "main" {
		t.Errorf("WithFunction(main): candidates %v", n)
	}
}

// One process has nothing to be compared with: no culprit, no tie, no "iterations of one
// process only".
func TestOneProcessHeadline(t *testing.T) {
	r := Analyze(loopTrace(1, 3, func(_, k int) int64 { return 10 + int64(k) }, nil))
	h := r.String()
	if r.Culprit() != nil || strings.Contains(h, "slowest") || strings.Contains(h, "tied") || strings.Contains(h, "one process only") ||
		!strings.Contains(h, "one process, so no other to compare it with (SOS-times from 10 ns to 12 ns)") {
		t.Errorf("headline %q", h)
	}
}
