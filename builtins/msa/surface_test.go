package msa

import (
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every table of msa follows the notebook vocabulary (docs/surface.md): Title Case names,
// durations with their unit in the name and the metadata.
func TestTableColumnNames(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.SlowRank = 4, 3, 2, 3
	tr := synth.Generate(cfg)
	m := Merge(tr.Processes()...)
	b := Strings([]string{"ababababab", "aaaabbbb", "cde", "dec", "decb"}, WithGuide(GuideMatrix))
	p, err := part.Run(tr, tr.Processes(), Stage1Method())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		name  string
		table *arrowio.Table
	}{
		{"Tree.Table", m.Table()},
		{"Tree.Block", m.Block(0)},
		{"Tree.Stages", m.Stages()},
		{"Tree.Divergences", m.Divergences()},
		{"Block.Table", b.Table()},
		{"Block.GuideTable", b.GuideTable()},
		{"Block.Comparisons", b.Comparisons()},
		{"Block.Ranking", b.Ranking()},
		{"Classes.Table", p.(*Classes).Table()},
	} {
		if err := arrowio.CheckColumnNames(x.table); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}
