package arrowio

import (
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

func TestStringShort(t *testing.T) {
	tb := MustTable(Int64("n", []int64{1, 200}), String("s", []string{"a", "tab\there"}),
		NullableFloat64("x", []float64{0, 2.5}, []bool{false, true}))
	want := "     n  s             x\n" +
		"0    1  a          null\n" +
		"1  200  tab\\there   2.5\n" +
		"\n2 rows x 3 columns"
	if got := tb.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestHeadTailRendering(t *testing.T) {
	tb := eventsTable(100)
	s := tb.String()
	lines := strings.Split(s, "\n")
	// header + 10 head + "..." + 5 tail + blank + footer
	if len(lines) != 1+10+1+5+2 {
		t.Fatalf("%d lines:\n%s", len(lines), s)
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[11]), "...") {
		t.Errorf("line 11 is %q, want the ellipsis row", lines[11])
	}
	for i, row := range []int{0, 9, 95, 99} {
		line := lines[[]int{1, 10, 12, 16}[i]]
		if !strings.HasPrefix(strings.TrimSpace(line), fmt.Sprint(row)+" ") {
			t.Errorf("row %d missing: %q", row, line)
		}
	}
	if lines[len(lines)-1] != "100 rows x 6 columns" {
		t.Errorf("footer %q", lines[len(lines)-1])
	}
	for _, r := range []string{">10<", ">94<", ">50<"} {
		if strings.Contains(tb.HTML(), "<th"+r) {
			t.Errorf("HTML shows hidden row %s", r)
		}
	}
	h := tb.HTML()
	if strings.Count(h, "<tr>") != 1+10+1+5 || !strings.Contains(h, "100 rows x 6 columns") || !strings.Contains(h, "<th>99</th>") {
		t.Errorf("HTML head/tail wrong:\n%s", h)
	}
	if !strings.Contains(h, "dict&lt;utf8&gt;") || !strings.Contains(h, "int32") {
		t.Error("HTML header lacks the column types")
	}
	// exactly 15 rows: no ellipsis
	if s := eventsTable(15).String(); strings.Contains(s, "...") {
		t.Errorf("15 rows elided:\n%s", s)
	}
}

func TestHTMLEscaping(t *testing.T) {
	evil := `<script>alert("x")</script>&amp;'`
	tb := MustTable(String(evil, []string{evil}), Dict("d<", []string{evil}))
	h := tb.HTML()
	if strings.Contains(h, "<script>") || strings.Contains(h, `"x"`) || strings.Contains(h, "d<") {
		t.Errorf("unescaped HTML:\n%s", h)
	}
	if !strings.Contains(h, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;amp;&#39;") {
		t.Errorf("escaped value missing:\n%s", h)
	}
	// The fragment must be well-formed XML, so a notebook renders it as one table.
	dec := xml.NewDecoder(strings.NewReader(strings.NewReplacer("&hellip;", "...", "<br>", "<br/>").Replace(h)))
	for {
		_, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Errorf("HTML not well-formed: %v\n%s", err, h)
			}
			break
		}
	}
}

func TestLongCellsTruncated(t *testing.T) {
	long := strings.Repeat("x", 500)
	tb := MustTable(String("s", []string{long}))
	if strings.Contains(tb.String(), long[:41]) || !strings.Contains(tb.String(), "…") {
		t.Error("text cell not truncated")
	}
	if strings.Contains(tb.HTML(), long[:201]) {
		t.Error("HTML cell not truncated")
	}
}

func TestMIMEBundle(t *testing.T) {
	tb := eventsTable(3)
	mb := tb.MIMEBundle()
	if mb["text/plain"] != tb.String() || mb["text/html"] != tb.HTML() {
		t.Error("bundle differs from String/HTML")
	}
}
