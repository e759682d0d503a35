package ccg

import (
	"fmt"
	"html"
	"strings"
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

// The graph and the sweep display through display.Composition: the summary line in bold, the
// first rows of the table with a note on how many it has, and the figure.
func TestDisplayComposed(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = 24, 2, 2
	tr := synth.Generate(cfg)
	g := BuildTrace(tr, SmallScale)
	sw := SweepBounds(tr, Lossless, SmallScale)
	first, _, _ := strings.Cut(sw.String(), "\n")
	for _, c := range []struct {
		what  string
		wants []string
		b     map[string]any
	}{
		{"Graph", []string{`<div class="tracebook-result"><p><b>` + html.EscapeString(g.headline()) + "</b>",
			fmt.Sprintf("first %d of %d rows; Table() has them all", headRows, g.NumLocations())}, g.MIMEBundle()},
		{"Sweep", []string{`<div class="tracebook-result"><p><b>` + first + "</b><br>lossless: R_nodes "}, sw.MIMEBundle()},
	} {
		h, _ := c.b["text/html"].(string)
		for _, want := range append(c.wants, `<img src="data:image/png;base64,`) {
			if !strings.Contains(h, want) {
				t.Errorf("%s: display lacks %.120q", c.what, want)
			}
		}
		if txt, _ := c.b["text/plain"].(string); !strings.Contains(txt, "<Figure ") {
			t.Errorf("%s text: %.300s", c.what, txt)
		}
	}
}
