package msa

import (
	"fmt"
	"html"
	"strings"
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

// The tree displays through display.Composition: the headline in bold, the first rows of
// Table with a note on how many it has, and, instead of the figure (half a second to draw),
// a line saying that Plot draws it.
func TestDisplayComposed(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.SlowRank = 4, 3, 2, 3
	m := Merge(synth.Generate(cfg).Processes()...)
	n := m.Table().NumRows()
	if n <= headRows {
		t.Fatalf("%d nodes; the test needs more than %d", n, headRows)
	}
	b := m.MIMEBundle()
	h, _ := b["text/html"].(string)
	for _, want := range []string{`<div class="tracebook-result"><p><b>` + html.EscapeString(m.headline()) + "</b><br>m.Plot() draws",
		fmt.Sprintf("first %d of %d rows; Table() has them all", headRows, n)} {
		if !strings.Contains(h, want) {
			t.Errorf("display lacks %q", want)
		}
	}
	if strings.Contains(h, "<img") {
		t.Error("display draws the figure")
	}
	if b["text/plain"] != m.String() {
		t.Errorf("text %.200q, want String", b["text/plain"])
	}
}
