package align

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// surfaceRuns are two small generated runs, B with rank 3 slowed down, named v1 and v2.
func surfaceRuns() (a, b *trace.Trace) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = 4, 3, 2
	a = synth.Generate(cfg)
	cfg.Version, cfg.SlowRank = 1, 3
	b = synth.Generate(cfg)
	a.SetName("v1")
	b.SetName("v2")
	return a, b
}

// Every table of align follows the notebook vocabulary (docs/surface.md): Title Case names,
// durations with their unit in the name and the metadata, time points named "(ns)".
func TestTableColumnNames(t *testing.T) {
	a, b := surfaceRuns()
	seq := Strings("mcacmam", "mcacbcmbm")
	pair := Pair(a.Process(3), b.Process(3))
	rr := Runs(a, b)
	cases := []struct {
		name   string
		table  *arrowio.Table
		points []string
	}{
		{"Strings.Table", seq.Table(), nil},
		{"Strings.Dissimilarity", seq.Dissimilarity(), nil},
		{"Strings.Skew", seq.Skew(), []string{"Time A (ns)", "Time B (ns)"}},
		{"Strings.FunctionTimeDiff", seq.FunctionTimeDiff(), nil},
		{"Pair.Table", pair.Table(), []string{"Enter A (ns)", "Leave A (ns)", "Enter B (ns)", "Leave B (ns)"}},
		{"Pair.Dissimilarity", pair.Dissimilarity(), []string{"Aligned Time (ns)", "Time A (ns)", "Time B (ns)"}},
		{"Pair.Skew", pair.Skew(), []string{"Time A (ns)", "Time B (ns)"}},
		{"Pair.FunctionTimeDiff", pair.FunctionTimeDiff(), nil},
		{"Runs.Table", rr.Table(), nil},
	}
	for _, c := range cases {
		if err := arrowio.CheckColumnNames(c.table, c.points...); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if n := pair.Table().NumCols(); n != 10 {
		t.Errorf("Pair.Table has %d columns, want 10 (state, functions, level, times of both sides)", n)
	}
}

// Runs are named by (*trace.Trace).Name, A and B when nothing names them; results display
// through display.Compose: headline, table, figure.
func TestRunNamesAndDisplay(t *testing.T) {
	a, b := surfaceRuns()
	rr := Runs(a, b)
	if s := rr.String(); !strings.HasPrefix(s, "runs compared: v1 vs v2, ") {
		t.Errorf("named runs: %q", s)
	}
	if s := Runs(a, a).String(); !strings.HasPrefix(s, "runs compared: A vs B, ") {
		t.Errorf("one run against itself: %q", s)
	}
	p := Pair(a.Process(3), b.Process(3))
	if p.LabelA != "v1 · rank 3" || p.LabelB != "v2 · rank 3" {
		t.Errorf("pair labels %q, %q", p.LabelA, p.LabelB)
	}
	h := rr.MIMEBundle()["text/html"].(string)
	first, _, _ := strings.Cut(rr.String(), "\n")
	for _, want := range []string{"<b>" + first + "</b>", rr.Table().HTML(), `<img src="data:image/png;base64,`} {
		if !strings.Contains(h, want) {
			t.Errorf("runs display lacks %.80s", want)
		}
	}
	h = p.MIMEBundle()["text/html"].(string)
	for _, want := range []string{"<b>alignment v1 · rank 3 vs v2 · rank 3: ", "<br>equal ", p.Table().HTML(), `<img src="data:image/png;base64,`} {
		if !strings.Contains(h, want) {
			t.Errorf("pair display lacks %.80s", want)
		}
	}
	if txt := p.MIMEBundle()["text/plain"].(string); !strings.HasPrefix(txt, "alignment v1 · rank 3 vs v2 · rank 3: ") || !strings.Contains(txt, "<Figure ") {
		t.Errorf("pair text: %.300s", txt)
	}
}
