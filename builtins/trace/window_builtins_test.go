package trace_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/fold"
	"github.com/tracebook/tracebook/builtins/imbalance"
	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every builtin runs on every kind of cut (a window, a phase, Main, a
// subset, a window of a phase) of generated MPI traces and of the real
// Score-P ping-pong, and renders its result.
func TestBuiltinsOnCuts(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.MPI, cfg.Ranks, cfg.Iterations = true, 4, 6
	traces := map[string]*trace.Trace{"generated": synth.Generate(cfg),
		"ping-pong": trace.Open("../../test/data/traces/ping-pong-otf2/traces.otf2")} // the repository's copy
	for name, tr := range traces {
		d := tr.Duration()
		cuts := map[string]*trace.Trace{
			"window": tr.Window(time.Duration(d/3), time.Duration(2*d/3)),
			"main":   tr.Main(),
			"subset": tr.Subset(1, 0),
		}
		if n := tr.NumProcesses(); n > 3 { // global indices beyond the subset's size
			cuts["subset"] = tr.Subset(n-1, 1, n-2)
		}
		if tr.RegionID("solve") >= 0 {
			cuts["between"] = tr.Between("solve", 1, 4)
			cuts["window of between"] = tr.Between("solve", 1, 4).Window(time.Duration(d/3), time.Duration(d))
		}
		for cn, w := range cuts {
			t.Run(name+"/"+cn, func(t *testing.T) {
				run := func(what string, f func() any) {
					t.Helper()
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s: %v", what, r)
						}
					}()
					_ = fmt.Sprint(f())
				}
				ps := w.Processes()
				run("align.Pair", func() any { return align.Pair(ps[0], ps[1]) })
				run("align.Runs", func() any { return align.Runs(tr, w) })
				run("ccg", func() any {
					g := ccg.BuildTrace(w, ccg.Bounds{Abs: 1000, Rel: 0.01})
					if a := g.Accuracy(w); a.String() == "" || strings.Contains(fmt.Sprint(a.Table()), "the trace has no location") {
						t.Errorf("ccg accuracy: %v", a)
					}
					return ccg.Messages(g)
				})
				run("cluster", func() any {
					c := cluster.Structural(w)
					n := 0
					for g := range c.NumGroups() {
						n += len(c.Group(g))
					}
					if n != len(ps) {
						t.Errorf("cluster: %d processes in the groups, want %d", n, len(ps))
					}
					return c
				})
				run("cluster.Lattice", func() any {
					tb := fmt.Sprint(cluster.Structural(w).Lattice().Table())
					if last := ps[0].Label(); !strings.Contains(tb, last) {
						t.Errorf("the lattice's members miss %s:\n%s", last, tb)
					}
					return tb
				})
				run("fold", func() any { return fold.Timeline(w, fold.Idle, 200) })
				if tr.RegionID("solve") >= 0 { // the ping-pong has no function invoked 2p times: Analyze refuses it whole too
					run("imbalance", func() any { return imbalance.Analyze(w) })
				}
				run("msa", func() any { return msa.Align(ps...) })
				run("profile.Boxes", func() any { return profile.Boxes(w) })
				run("profile.CallMatrix", func() any { return profile.CallMatrix(w) })
				run("profile.CommMatrix", func() any { return profile.CommMatrix(w) })
				run("profile.Messages", func() any { return profile.Messages(w) })
				run("profile.Compare", func() any { return profile.Compare(tr, w) })
				run("events", func() any { return w.Events() })
				run("summary", func() any { return w.Summary() })
			})
		}
	}
}
