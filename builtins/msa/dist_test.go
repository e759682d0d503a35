package msa_test

import (
	"testing"

	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every msa case renders the same on each trace as on the trace
// distributed to 1, 3 and more ranks than processes, cell by cell.
func TestDistributedEqualsLocal(t *testing.T) { disttest.Check(t, "../..", "msa.") }

// With more processes than a node's values are shipped for, the medians
// are selected in rounds of bucket counts; the statistics are still the
// local ones, at every split.
func TestDistributedMediansBySelection(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank, cfg.SlowFactor = 90, 3, 7, 4
	tr := synth.Generate(cfg)
	local := msa.Group(tr.Processes())
	for _, ranks := range []int{1, 4, 100} {
		sk := parttest.Distribute(tr, ranks)
		r := parttest.Count(sk)
		m := msa.Group(sk.Processes())
		if local.NumNodes() != m.NumNodes() {
			t.Fatalf("%d ranks: %d nodes, local %d", ranks, m.NumNodes(), local.NumNodes())
		}
		for v := range m.NumNodes() {
			if a, b := local.Stats(v), m.Stats(v); a != b {
				t.Errorf("%d ranks, node %d: stats %+v, local %+v", ranks, v, b, a)
			}
		}
		if a, b := local.Table().String(), m.Table().String(); a != b {
			t.Errorf("%d ranks: tables differ", ranks)
		}
		if r.PerMethod["msa.stats"] < 3 {
			t.Errorf("%d ranks: %d rounds of msa.stats: the selection by buckets did not run", ranks, r.PerMethod["msa.stats"])
		}
		t.Logf("%d ranks: rounds %v", ranks, r.PerMethod)
	}
}
