package fold

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every table of fold follows the notebook vocabulary (docs/surface.md): Title Case names,
// durations with their unit in the name and the metadata, time points named "(ns)" without.
func TestTableColumnNames(t *testing.T) {
	tr := synth.Generate(synth.PIConGPUConfig(4, 0, 3))
	f := Timeline(tr, Max, 50)
	ix := NewIndex(tr)
	streams := make([]int, len(ix.Streams()))
	for i := range streams {
		streams[i] = i
	}
	points := []string{"Start (ns)", "End (ns)"}
	for _, x := range []struct {
		name   string
		table  *arrowio.Table
		points []string
	}{
		{"Folded.Table", f.Table(), points},
		{"Utilisation.Table", GPUUtilisation(tr, WithWindows(3)).Table(), points},
		{"Counts.Table", ix.Counts(streams, f.T0, f.T1, 20).Table(), nil},
	} {
		if err := arrowio.CheckColumnNames(x.table, x.points...); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}

// The results display through display.Composition: the summary line in bold, the first rows
// of Table with a note on how many it has, and the figure with its interactive view.
func TestDisplayComposed(t *testing.T) {
	tr := synth.Generate(synth.PIConGPUConfig(4, 0, 3))
	f := Timeline(tr, Max, 50)
	u := GPUUtilisation(tr, WithWindows(30))
	for _, c := range []struct {
		what string
		head string
		rows int
		b    map[string]any
	}{
		{"Folded", f.String(), f.Table().NumRows(), f.MIMEBundle()},
		{"Utilisation", u.String(), u.Table().NumRows(), u.MIMEBundle()},
	} {
		if c.rows <= headRows {
			t.Fatalf("%s: %d rows; the test needs more than %d", c.what, c.rows, headRows)
		}
		h, _ := c.b["text/html"].(string)
		txt, _ := c.b["text/plain"].(string)
		for _, want := range []string{`<div class="tracebook-result"><p><b>` + html.EscapeString(c.head) + "</b>",
			fmt.Sprintf("first %d of %d rows; Table() has them all", headRows, c.rows),
			`<img src="data:image/png;base64,`, "vegaEmbed"} {
			if !strings.Contains(h, want) {
				t.Errorf("%s: display lacks %.120s", c.what, want)
			}
		}
		if !strings.HasPrefix(txt, c.head) || !strings.Contains(txt, "<Figure ") {
			t.Errorf("%s text: %.300s", c.what, txt)
		}
	}
}
