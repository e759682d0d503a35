package disttest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/fold"
	"github.com/tracebook/tracebook/builtins/imbalance"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/profile"
)

// profileCasesOf returns the cases of profile, imbalance and fold.
func profileCasesOf() []Case {
	var out []Case
	for _, p := range []string{"profile.", "imbalance.", "fold."} {
		out = append(out, CasesOf(p)...)
	}
	return out
}

// TestProfileCasesRunOnTheExecutor: on a distributed trace every case that succeeds ran at
// least one round on the executor (so nothing was computed from the skeleton's empty
// processes), and the rounds and bytes each needs are logged (go test -v).
func TestProfileCasesRunOnTheExecutor(t *testing.T) {
	traces, err := TraceMap("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"synth", "hybrid-gpu"} {
		tr := traces[name]
		for _, c := range profileCasesOf() {
			sk := parttest.Distribute(tr, 3)
			ce := parttest.Count(sk)
			var err error
			if c.Run2 != nil {
				_, err = c.Run2(sk, sk)
			} else {
				_, err = c.Run(sk)
			}
			if err != nil {
				t.Logf("%-10s %-30s error: %v", name, c.Name, err)
				continue
			}
			if len(ce.Rounds) == 0 {
				t.Errorf("%s on %s: no round ran on the executor", c.Name, name)
			}
			methods := map[string]int{}
			for _, r := range ce.Rounds {
				methods[r]++
			}
			var ms []string
			for m, n := range methods {
				ms = append(ms, fmt.Sprintf("%s x%d", m, n))
			}
			sort.Strings(ms)
			t.Logf("%-10s %-30s %2d rounds, %8d bytes to the notebook: %s", name, c.Name, len(ce.Rounds), ce.Total, strings.Join(ms, ", "))
		}
	}
}

// TestProfileRefusesWithoutEvents: a skeleton with no executor has no events anywhere; every
// case errors rather than rendering an empty result.
func TestProfileRefusesWithoutEvents(t *testing.T) {
	traces, err := TraceMap("../../..")
	if err != nil {
		t.Fatal(err)
	}
	sk := traces["synth"].Skeleton()
	for _, c := range profileCasesOf() {
		var err error
		if c.Run2 != nil {
			_, err = c.Run2(sk, sk)
		} else {
			_, err = c.Run(sk)
		}
		if err == nil {
			t.Errorf("%s on a skeleton without an executor: no error", c.Name)
		}
	}
}

// TestProfileCompareTwoDistributedRuns: the two-run cases (Compare) on two different traces,
// each distributed to its own job, equal the local comparison.
func TestProfileCompareTwoDistributedRuns(t *testing.T) {
	traces, err := TraceMap("../../..")
	if err != nil {
		t.Fatal(err)
	}
	pairs := [][2]string{{"synth", "hybrid-gpu"}, {"ping-pong-otf2", "ping-pong-otf2-papi"}, {"ping-pong-otf2", "ping-pong-csv"}}
	n := 0
	for _, c := range profileCasesOf() {
		if c.Run2 == nil {
			continue
		}
		for _, pr := range pairs {
			a, b := traces[pr[0]], traces[pr[1]]
			n++
			want, werr := c.Run2(a, b)
			got, gerr := c.Run2(parttest.Distribute(a, 3), parttest.Distribute(b, 2))
			if werr != nil || gerr != nil {
				t.Fatalf("%s(%s, %s): local error %v, distributed error %v", c.Name, pr[0], pr[1], werr, gerr)
			}
			if got != want {
				t.Fatalf("%s(%s, %s): %s", c.Name, pr[0], pr[1], FirstDiff(want, got))
			}
		}
	}
	if n == 0 {
		t.Fatal("no two-run case")
	}
}

// TestProfileRefusalsNameThemselves: the functions of profile, imbalance and fold that need
// events here panic on a distributed trace with an error naming them, never an empty result;
// CountCalls, which runs through the executor, answers as on the local trace.
func TestProfileRefusalsNameThemselves(t *testing.T) {
	traces, err := TraceMap("../../..")
	if err != nil {
		t.Fatal(err)
	}
	tr := traces["synth"]
	sk := parttest.Distribute(tr, 3)
	ps := sk.Processes()
	for name, f := range map[string]func(){
		"profile.Messages":           func() { profile.Messages(sk) },
		"profile.CommMatrixOf":       func() { profile.CommMatrixOf(sk, ps[:2]) },
		"profile.MessageSizeRange":   func() { profile.MessageSizeRange(ps) },
		"profile.MessageHistogramOf": func() { profile.MessageHistogramOf(ps, 4, profile.SizeRange{Sends: 1, Max: 8}) },
		"imbalance.SegmentsOf":       func() { imbalance.SegmentsOf(ps[1], 0, nil) },
		"fold.NewIndex":              func() { fold.NewIndex(sk, ps[0]) },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if err == nil || !strings.Contains(err.Error(), name) {
					t.Errorf("%s on a distributed trace: %v, want a panic naming it", name, err)
				}
			}()
			f()
		}()
	}
	want, got := imbalance.CountCalls(tr.Processes()), imbalance.CountCalls(ps)
	var a, b renderer
	a.table("Calls", want.Table())
	b.table("Calls", got.Table())
	if a.b.String() != b.b.String() || want.Events != got.Events || want.Processes != got.Processes {
		t.Errorf("CountCalls distributed:\n%s", FirstDiff(a.b.String(), b.b.String()))
	}
}
