package arrowio

import (
	"encoding/xml"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
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

func TestNumberFormats(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{groupThousands("0"), "0"},
		{groupThousands("999"), "999"},
		{groupThousands("1000"), "1,000"},
		{groupThousands("-1234567"), "-1,234,567"},
		{groupThousands("1234567.125"), "1,234,567.125"},
		{showFloat(0), "0"},
		{showFloat(2.0 / 3), "0.6667"},
		{showFloat(0.9999999999999998), "1"},
		{showFloat(1), "1"},
		{showFloat(12.5), "12.5"},
		{showFloat(-0.05), "-0.05"},
		{showFloat(1234.5678), "1,235"},
		{showFloat(123456789.5), "123,456,790"},
		{showFloat(0.000012345), "1.234e-05"},
		{showFloat(math.NaN()), "NaN"},
		{showFloat(math.Inf(-1)), "-Inf"},
		{showDuration(0), "0 ns"},
		{showDuration(512), "512 ns"},
		{showDuration(-7), "-7 ns"},
		{showDuration(1000), "1.000 µs"},
		{showDuration(56_700), "56.70 µs"},
		{showDuration(999_970), "1.000 ms"},
		{showDuration(1_234_000), "1.234 ms"},
		{showDuration(386_912_345), "386.9 ms"},
		{showDuration(-199_600_000), "-199.6 ms"},
		{showDuration(59_999_999_999), "60.00 s"},
		{showDuration(1_234_600_000_000), "1,235 s"},
		{showDuration(2.5), "2.5 ns"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Durations marked with WithUnit("ns") read as times, integers get separators and floats four
// significant digits; the data keep their types and the unit survives Parquet and Arrow IPC.
func TestRenderUnitsAndNumbers(t *testing.T) {
	tb := MustTable(String("function", []string{"MPI_Init", "solve"}),
		Int64("Calls", []int64{16, 1234567}),
		Int64("Exclusive (ns)", []int64{386_912_345, 56_700}).WithUnit("ns"),
		Int64("Timestamp (ns)", []int64{1_234_567_891, 12}),
		Float64("similarity", []float64{0.9876543210123, 1}),
		NullableInt64("skew", []int64{0, -1500}, []bool{false, true}).WithUnit("ns"))
	want := "   function      Calls  Exclusive (ns)  Timestamp (ns)  similarity       skew\n" +
		"0  MPI_Init         16        386.9 ms   1,234,567,891      0.9877       null\n" +
		"1  solve     1,234,567        56.70 µs              12           1  -1.500 µs\n" +
		"\n2 rows x 6 columns"
	if got := tb.String(); got != want {
		t.Errorf("text:\ngot\n%s\nwant\n%s", got, want)
	}
	h := tb.HTML()
	for _, w := range []string{
		`<th>Exclusive (ns)<br><small style="font-weight:normal;opacity:0.7">int64 [ns]</small></th>`,
		`<th>Timestamp (ns)<br><small style="font-weight:normal;opacity:0.7">int64</small></th>`,
		`<tr><th>0</th><td>MPI_Init</td><td style="text-align:right">16</td><td style="text-align:right">386.9 ms</td><td style="text-align:right">1,234,567,891</td><td style="text-align:right">0.9877</td><td style="opacity:0.5"><i>null</i></td></tr>`,
		`<td style="text-align:right">1,234,567</td><td style="text-align:right">56.70 µs</td>`,
	} {
		if !strings.Contains(h, w) {
			t.Errorf("HTML lacks %s:\n%s", w, h)
		}
	}
	for _, ext := range []string{"parquet", "arrow"} {
		p := filepath.Join(t.TempDir(), "u."+ext)
		if err := write(p, tb); err != nil {
			t.Fatal(err)
		}
		back, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		f := back.Schema().Field(2)
		if f.Type.ID() != arrow.INT64 || unitOf(f) != "ns" || unitOf(back.Schema().Field(3)) != "" {
			t.Errorf("%s: %v", ext, back.Schema())
		}
		if back.String() != want {
			t.Errorf("%s: read back renders\n%s", ext, back.String())
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 3 << 19: "1.5 MiB", 3 << 29: "1.50 GiB", 4_000_008_000_004: "3.64 TiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// renderedRows is the index column of a rendering: the row numbers shown, -1 for the elision,
// read from the text (first field of each line between the header and the footer) and from the
// HTML (<tr><th>i</th>); both must agree.
func renderedRows(t *testing.T, tb *Table) []int {
	t.Helper()
	lines := strings.Split(tb.String(), "\n")
	var text []int
	for _, l := range lines[1 : len(lines)-2] {
		f := strings.Fields(l)[0]
		if f == "..." {
			text = append(text, -1)
			continue
		}
		var i int
		if _, err := fmt.Sscan(f, &i); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		text = append(text, i)
	}
	var html []int
	for _, tr := range strings.Split(tb.HTML(), "<tr><th>")[2:] {
		f := tr[:strings.Index(tr, "</th>")]
		if f == "&hellip;" {
			html = append(html, -1)
			continue
		}
		var i int
		if _, err := fmt.Sscan(f, &i); err != nil {
			t.Fatalf("HTML row %q: %v", tr, err)
		}
		html = append(html, i)
	}
	if fmt.Sprint(text) != fmt.Sprint(html) {
		t.Fatalf("text shows rows %v, HTML %v", text, html)
	}
	return text
}

// wantRows is the oracle of a row limit: every row when they fit, else the first
// limit-limit/3 rows, the elision and the last limit/3.
func wantRows(n, limit int) []int {
	var rows []int
	for i := 0; i < n; i++ {
		if n <= limit || i < limit-limit/3 || i >= n-limit/3 {
			rows = append(rows, i)
		}
		if n > limit && i == limit-limit/3 {
			rows = append(rows, -1)
		}
	}
	return rows
}

// Head(n) shows its n rows (issue 32: it showed 10 + 5 whatever n was), Show(n) sets the row
// limit of any table, both capped at MaxShownRows; derived tables get the default back.
func TestRowLimit(t *testing.T) {
	big := eventsTable(1500)
	check := func(what string, tb *Table, want []int) {
		t.Helper()
		if got := renderedRows(t, tb); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s shows rows %v\nwant %v", what, got, want)
		}
	}
	seq := func(lo, hi int) []int {
		var r []int
		for i := lo; i < hi; i++ {
			r = append(r, i)
		}
		return r
	}
	check("Head(30)", big.Head(30), seq(0, 30))
	check("Head(3)", big.Head(3), seq(0, 3))
	check("Tail(40)", big.Tail(40), seq(0, 40)) // a tail's rows are numbered from 0
	check("default", big, wantRows(1500, DefaultShownRows))
	check("Head(1200)", big.Head(1200), wantRows(1200, MaxShownRows))
	check("Show(5000)", big.Show(5000), wantRows(1500, MaxShownRows))
	check("Show(0)", big.Head(40).Show(0), wantRows(40, DefaultShownRows))
	check("Head(40).Select", big.Head(40).Select("Timestamp (ns)"), wantRows(40, DefaultShownRows))
	for _, c := range []struct{ n, limit int }{{0, 15}, {1, 1}, {2, 1}, {7, 2}, {16, 15}, {15, 15}, {100, 3}, {100, 4}, {100, 99}, {100, 100}, {1500, 999}} {
		check(fmt.Sprintf("%d rows, Show(%d)", c.n, c.limit), eventsTable(c.n).Show(c.limit), wantRows(c.n, c.limit))
	}
	shown := big.Show(40)
	shown.Release()
	if big.NumRows() != 1500 || !strings.Contains(big.String(), "1500 rows") {
		t.Error("releasing a Show table released its source")
	}
	if !strings.Contains(big.Head(30).String(), "30 rows x 6 columns") {
		t.Error("footer of Head(30) wrong")
	}
}

// A wide table (profile.Compare has 23 columns) scrolls in its own box instead of widening the
// output; the rendering test (test/render/render.mjs) checks it in Chromium.
func TestWideTableScrolls(t *testing.T) {
	var cols []Column
	for j := 0; j < 23; j++ {
		cols = append(cols, Float64(fmt.Sprintf("a rather long column name %d", j), []float64{1, 2}))
	}
	h := MustTable(cols...).HTML()
	if !strings.Contains(h, `<div style="overflow-x:auto;max-width:100%"><table`) {
		t.Errorf("table not in a horizontally scrolling box:\n%s", h[:200])
	}
}
