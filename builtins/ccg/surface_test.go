package ccg

import (
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every table of ccg follows the notebook vocabulary (docs/surface.md): Title Case names,
// durations and sizes with their unit in the name and the metadata, time points named "(ns)"
// without.
func TestTableColumnNames(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = 4, 3, 2
	tr := synth.Generate(cfg)
	g := BuildTrace(tr, SmallScale)
	mm := Messages(g)
	for _, x := range []struct {
		name   string
		table  *arrowio.Table
		points []string
	}{
		{"Graph.Table", g.Table(), nil},
		{"Graph.At", g.At(g.End() / 2), []string{"Enter (ns)", "Leave (ns)"}},
		{"Graph.Events", g.Events(), []string{"Timestamp (ns)"}},
		{"Timeline.Table", g.Timeline(20).Table(), []string{"Start (ns)", "End (ns)"}},
		{"Summary.Table", g.Summary(0, g.End()).Table(), nil},
		{"Accuracy.Table", g.Accuracy(tr).Table(), nil},
		{"Sweep.Table", SweepBounds(tr, Lossless, SmallScale).Table(), nil},
		{"MessageMatch.Table", mm.Table(), []string{"Send (ns)", "Recv Posted (ns)", "Recv (ns)"}},
		{"MessageMatch.PendingTable", mm.PendingTable(), []string{"Time (ns)"}},
		{"Collectives", Collectives(g), nil},
	} {
		if err := arrowio.CheckColumnNames(x.table, x.points...); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}
