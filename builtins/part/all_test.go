package part_test

import (
	"strings"
	"testing"

	_ "github.com/tracebook/tracebook/builtins/ccg"
	_ "github.com/tracebook/tracebook/builtins/cluster"
	_ "github.com/tracebook/tracebook/builtins/compare"
	_ "github.com/tracebook/tracebook/builtins/fold"
	_ "github.com/tracebook/tracebook/builtins/imbalance"
	_ "github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	_ "github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	_ "github.com/tracebook/tracebook/builtins/waits"
)

// methodPackages must each register at least one method: the per-process
// part of every method runs under the one contract.
var methodPackages = []string{"part", "ccg", "cluster", "compare", "fold", "imbalance", "msa", "profile", "waits"}

// contractTraces are the traces every registered method is checked on: a
// generated SPMD run, a generated hybrid run with threads and GPU streams,
// and a real Score-P trace.
func contractTraces(t *testing.T) map[string]*trace.Trace {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank = 9, 6, 4
	hy := synth.HybridGPUConfig(3, 2, 4)
	real, err := trace.Load("../../test/data/traces/ping-pong-otf2/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*trace.Trace{"spmd": synth.Generate(cfg), "hybrid-gpu": synth.Generate(hy), "ping-pong": real}
}

func TestEveryRegisteredMethod(t *testing.T) {
	traces := contractTraces(t)
	for _, pkg := range methodPackages {
		t.Run(pkg, func(t *testing.T) {
			n := 0
			for _, name := range part.Names() {
				if !strings.HasPrefix(name, pkg+".") {
					continue
				}
				for tn, tr := range traces {
					ms := part.Samples(name, tr)
					if len(ms) == 0 {
						t.Errorf("%s has no sample instances for %s", name, tn)
					}
					for _, m := range ms {
						n++
						t.Run(name+"/"+tn, func(t *testing.T) {
							parttest.Check(t, tr, m, parttest.Config{Equal: equalOf(m)})
						})
					}
				}
			}
			if n == 0 {
				t.Errorf("package %s registers no method with part.Register", pkg)
			}
		})
	}
}

// equalOf returns the method's own comparison if it has one (for partials
// whose encoding depends on the merge order), nil for byte equality.
func equalOf(m part.Method) func(a, b part.Partial) error {
	if e, ok := m.(interface {
		Equal(a, b part.Partial) error
	}); ok {
		return e.Equal
	}
	return nil
}
