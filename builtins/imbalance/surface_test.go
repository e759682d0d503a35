package imbalance

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every table of imbalance follows the notebook vocabulary (docs/surface.md): Title Case
// names, durations with their unit in the name and the metadata, time points named "(ns)"
// without.
func TestTableColumnNames(t *testing.T) {
	tr := seedTrace()
	r := Analyze(tr)
	p, err := part.Run(tr, tr.Processes(), Method(tr))
	if err != nil {
		t.Fatal(err)
	}
	points := []string{"Start (ns)", "End (ns)"}
	for _, x := range []struct {
		name   string
		table  *arrowio.Table
		points []string
	}{
		{"Result.Table", r.Table(), points},
		{"Result.Iterations", r.Iterations(), points},
		{"Result.Segments", r.Segments(), points},
		{"Result.Processes", r.Processes(), nil},
		{"Result.Candidates", r.Candidates(), nil},
		{"SegmentSet.Table", p.(*SegmentSet).Table(), points},
		{"Calls.Table", CountCalls(tr.Processes()).Table(), nil},
	} {
		if err := arrowio.CheckColumnNames(x.table, x.points...); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}

// The result displays through display.Composition: the headline in bold, the worst
// iterations with a note on how many Table() has, and the figure.
func TestDisplayComposed(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank = 4, 15, 2
	r := Analyze(synth.Generate(cfg))
	n := r.Table().NumRows()
	if n <= shownIterations {
		t.Fatalf("%d iterations: the test needs more than %d", n, shownIterations)
	}
	b := r.MIMEBundle()
	h, _ := b["text/html"].(string)
	txt, _ := b["text/plain"].(string)
	for _, want := range []string{`<div class="tracebook-result"><p><b>` + html.EscapeString(r.String()) + "</b>",
		fmt.Sprintf("the %d of %d iterations with the most recoverable time; Table() has them all", shownIterations, n),
		`<img src="data:image/png;base64,`} {
		if !strings.Contains(h, want) {
			t.Errorf("display lacks %.120s", want)
		}
	}
	if !strings.HasPrefix(txt, r.String()) || !strings.Contains(txt, "<Figure ") || strings.Count(txt, "\n") < shownIterations {
		t.Errorf("text: %.300s", txt)
	}
}
