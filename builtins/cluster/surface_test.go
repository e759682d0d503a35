package cluster

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every table of cluster follows the notebook vocabulary (docs/surface.md): Title Case names,
// units in parentheses and in the metadata.
func TestTableColumnNames(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = 6, 3, 2
	tr := synth.Generate(cfg)
	c := Structural(tr)
	for _, x := range []struct {
		name  string
		table *arrowio.Table
	}{
		{"Clustering.Table", c.Table()},
		{"Clustering.GroupTable", c.GroupTable()},
		{"HashClustering.Table", c.HashClustering().Table()},
		{"Lattice.Table", c.Lattice().Table()},
		{"Matrix.Table", c.Matrix().Table()},
		{"Subsumption.Table", c.Subsumption().Table()},
		{"Coarsened.Table", c.Coarsen(0.5).Table()},
		{"KMedoids.Table", KMedoids(c, 1, 2).Table()},
		{"DBSCAN.Table", DBSCAN(c, 0.5, 1).Table()},
	} {
		if err := arrowio.CheckColumnNames(x.table); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}

// The clustering displays through display.Composition: the headline in bold with the merge
// under it, the first groups labelled as String labels them, and a note on the rest.
func TestDisplayComposed(t *testing.T) {
	const n = 25 // processes, each calling a function of its own: one group each
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}}}
	var procs []*trace.Process
	for i := range n {
		defs.Regions = append(defs.Regions, trace.Region{Name: fmt.Sprintf("f%d", i)})
		p := &trace.Process{Rank: int32(i), Name: fmt.Sprintf("rank %d", i)}
		for k, e := range []struct {
			kind trace.EventKind
			ref  int32
		}{{trace.Enter, 0}, {trace.Enter, int32(i + 1)}, {trace.Leave, int32(i + 1)}, {trace.Leave, 0}} {
			p.Kind, p.Time, p.Ref = append(p.Kind, e.kind), append(p.Time, int64(k)), append(p.Ref, e.ref)
		}
		procs = append(procs, p)
	}
	c := Structural(trace.NewTrace(defs, procs))
	if c.NumGroups() != n {
		t.Fatalf("%d groups, want %d", c.NumGroups(), n)
	}
	b := c.MIMEBundle()
	h, _ := b["text/html"].(string)
	first, _, _ := strings.Cut(c.String(), "\n")
	for _, want := range []string{`<div class="tracebook-result"><p><b>` + html.EscapeString(first) + "</b>",
		"<td>G19</td>", fmt.Sprintf("first %d of %d groups; ", maxSummaryGroups, n), "GroupTable()"} {
		if !strings.Contains(h, want) {
			t.Errorf("display lacks %q", want)
		}
	}
	if strings.Contains(h, "<td>G20</td>") || strings.Contains(h, c.Hash(0)) {
		t.Errorf("display shows more than %d groups or their hashes", maxSummaryGroups)
	}
	if b["text/plain"] != c.String() {
		t.Errorf("text %.300q, want String", b["text/plain"])
	}
}
