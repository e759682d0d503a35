package disttest_test

import (
	"maps"
	"testing"

	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Each entry point takes the rounds its design says: one per method it
// runs on the job, one per Fetch; the bytes it brings to the notebook are
// logged beside the trace's events.
func TestStructureRounds(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank, cfg.SlowFactor = 32, 200, 5, 3
	tr := synth.Generate(cfg)
	var events int64
	for _, p := range tr.Processes() {
		events += int64(p.Len())
	}
	other := synth.Generate(synth.DefaultGenConfig())
	for _, e := range []struct {
		name string
		run  func(sk *trace.Trace)
		want map[string]int
	}{
		{"cluster.Structural", func(sk *trace.Trace) { cluster.Structural(sk).GroupTable() }, map[string]int{"cluster.hash": 1}},
		{"cluster.Coarsen", func(sk *trace.Trace) { cluster.Structural(sk).Coarsen(0).Table() },
			map[string]int{"cluster.hash": 1, "cluster.profiles": 1}},
		{"msa.Group", func(sk *trace.Trace) { msa.Group(sk.Processes()).Table() },
			map[string]int{"msa.stage1": 1, "part.events": 1, "msa.stats": 2}},
		{"ccg.BuildTrace", func(sk *trace.Trace) { ccg.BuildTrace(sk, ccg.Lossless).Summary(0, 1<<62).Table() }, map[string]int{"ccg.build": 1}},
		{"compare.Runs", func(sk *trace.Trace) { compare.Runs(sk, other).Functions() }, map[string]int{"compare.summary": 1}},
		{"compare.Runs.Where", func(sk *trace.Trace) { compare.Runs(sk, other).Where() }, map[string]int{"compare.summary": 1, "part.events": 1}},
	} {
		sk := parttest.Distribute(tr, 4)
		c := parttest.Count(sk)
		e.run(sk)
		if !maps.Equal(c.PerMethod, e.want) {
			t.Errorf("%s: rounds %v, want %v", e.name, c.PerMethod, e.want)
		}
		t.Logf("%-20s rounds %v, bytes to the notebook %v: %d in all for %d processes, %d events (%.2f%% of 13 bytes per event)",
			e.name, c.PerMethod, c.Bytes, c.Total, tr.NumProcesses(), events, 100*float64(c.Total)/float64(13*events))
	}
}
