package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/plotting"
)

type fakeTable struct{}

func (fakeTable) MIMEBundle() map[string]any {
	return map[string]any{"text/html": "<table>rows</table>", "text/plain": "rows\n"}
}

type fakeFigure struct{ spec any }

func (f fakeFigure) MIMEBundle() map[string]any {
	b := map[string]any{"image/png": []byte{0x89, 'P', 'N', 'G'}, "text/plain": "<Figure f 10x20>"}
	if f.spec != nil {
		b[VegaLiteMIME] = f.spec
	}
	return b
}

func (fakeFigure) MIMEMetadata() map[string]any {
	return map[string]any{"image/png": map[string]any{"width": 10, "height": 20}}
}

func TestCompose(t *testing.T) {
	spec := json.RawMessage(`{"title":"</script><b>","mark":"bar"}`)
	b := Compose("headline <1>\nsecond line", fakeTable{}, fakeFigure{spec: spec}, nil, (*fakeTableP)(nil))
	h, _ := b["text/html"].(string)
	png := base64.StdEncoding.EncodeToString([]byte{0x89, 'P', 'N', 'G'})
	for _, want := range []string{"<b>headline &lt;1&gt;</b><br>second line", "<table>rows</table>",
		`<img src="data:image/png;base64,` + png + `" width="10" height="20" alt="&lt;Figure f 10x20&gt;">`,
		`\u003c/script\u003e\u003cb\u003e`, `vegaEmbed(view, spec`} {
		if !strings.Contains(h, want) {
			t.Errorf("html lacks %s:\n%s", want, h)
		}
	}
	// the figure's block: the div with the image, then its script naming the div's id
	m := regexp.MustCompile(`<div id="(tracebook-vega-\d+-\d+)"><img [^>]*></div><script type="text/javascript">`).FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("no figure div with an id before its script:\n%s", h)
	}
	if strings.Count(h, `"`+m[1]+`"`) != 3 || strings.Contains(h, "__ID__") || strings.Contains(h, "__SPEC__") {
		t.Errorf("script does not name the div %s", m[1])
	}
	if strings.Contains(h, "</script><b>") || strings.Count(h, "</script>") != 1 {
		t.Errorf("the spec ends the script early:\n%s", h)
	}
	if _, ok := b[VegaLiteMIME]; ok {
		t.Errorf("the bundle holds the spec beside the HTML (JupyterLab would show the HTML only)")
	}
	if got, want := b["text/plain"], "headline <1>\nsecond line\nrows\n<Figure f 10x20>"; got != want {
		t.Errorf("text/plain = %q, want %q", got, want)
	}
	// a figure without a spec is its image alone
	b = Compose("h", nil, fakeFigure{})
	if h := b["text/html"].(string); strings.Contains(h, "<script") || !strings.Contains(h, "<img") {
		t.Errorf("figure without a spec:\n%s", h)
	}
	// text and note
	b = Composition{Headline: "h", Text: "A ab\nB a-", Table: fakeTable{}, Note: "first 1 of 2 rows"}.MIMEBundle()
	if h := b["text/html"].(string); !strings.Contains(h, "<pre style=\"white-space:pre;overflow-x:auto\">A ab\nB a-</pre><table>rows</table><p>first 1 of 2 rows</p>") {
		t.Errorf("text and note:\n%s", h)
	}
	if got, want := b["text/plain"], "h\nA ab\nB a-\nrows\nfirst 1 of 2 rows"; got != want {
		t.Errorf("text/plain = %q, want %q", got, want)
	}
}

type fakeTableP struct{}

func (*fakeTableP) MIMEBundle() map[string]any { panic("a nil figure was rendered") }

// TestComposeRealFigure composes an arrowio table and plotting figures: a line chart keeps its
// interactive view, a stack (which has none) shows its PNG.
func TestComposeRealFigure(t *testing.T) {
	if VegaLiteMIME != plotting.VegaLiteMIME {
		t.Fatalf("VegaLiteMIME %q, plotting's %q", VegaLiteMIME, plotting.VegaLiteMIME)
	}
	tb := arrowio.MustTable(arrowio.Int64("Rank", []int64{0, 1}))
	fig := plotting.Lines("t", "x", "y", plotting.Series{X: []float64{0, 1}, Y: []float64{1, 2}})
	h := Compose("h", tb, fig, plotting.Stack("s", fig))["text/html"].(string)
	if strings.Count(h, "<script") != 1 || strings.Count(h, "data:image/png;base64,") != 2 {
		t.Errorf("want one interactive view and two PNGs:\n%.2000s", h)
	}
	spec, _ := json.Marshal(fig.VegaLite())
	var esc bytes.Buffer
	json.HTMLEscape(&esc, spec)
	if !strings.Contains(h, "var spec = "+esc.String()+";") {
		t.Errorf("the script does not hold the figure's spec")
	}
	if !strings.Contains(h, tb.HTML()) {
		t.Errorf("the table's HTML is missing")
	}
}
