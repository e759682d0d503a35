package arrowio

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Rendering shows at most a table's row limit (see [Table.Show]; DefaultShownRows unless set):
// a table with more rows shows the first two thirds of the limit and the last third, with an
// elision row between, like pandas' display.max_rows.
const (
	// DefaultShownRows is the row limit of a table that was not given one: the first 10 and
	// last 5 rows of a longer table are shown.
	DefaultShownRows = 15
	// MaxShownRows caps a table's row limit ([Table.Show], [Table.Head], [Table.Tail]), so that
	// a notebook stays usable: larger tables are written to a file or sliced.
	MaxShownRows = 1000
	maxTextLen   = 40  // runes per cell in text/plain
	maxHTMLLen   = 200 // runes per cell in text/html
)

// shownRows returns the row indices to render of a table of n rows under a row limit;
// -1 marks the elided middle.
func shownRows(n, limit int) []int {
	var rows []int
	if n <= limit {
		for i := 0; i < n; i++ {
			rows = append(rows, i)
		}
		return rows
	}
	tail := limit / 3
	for i := 0; i < limit-tail; i++ {
		rows = append(rows, i)
	}
	rows = append(rows, -1)
	for i := n - tail; i < n; i++ {
		rows = append(rows, i)
	}
	return rows
}

// Show returns the table with a row limit of n for its display (text and HTML): a table with
// at most n rows shows them all, a longer one its first n-n/3 and last n/3 rows. n is capped at
// [MaxShownRows]; n <= 0 restores [DefaultShownRows]. The returned table shares t's data; the
// limit belongs to it alone (tables that operations derive from it get the default again).
func (t *Table) Show(n int) *Table {
	r := t.record()
	r.Retain() // its own reference, as Slice's tables have: either may be released
	return &Table{rec: r, shown: min(n, MaxShownRows)}
}

// rowLimit is the table's display row limit.
func (t *Table) rowLimit() int {
	if t == nil || t.shown <= 0 {
		return DefaultShownRows
	}
	return t.shown
}

// cell formats value i of a for display; null is "null". Integers get thousands separators,
// floats four significant digits, and columns whose unit (see [Column.WithUnit]) is "ns" read
// as durations.
func cell(a arrow.Array, i int, unit string) string {
	if a.IsNull(i) {
		return "null"
	}
	if unit == "ns" {
		switch a := a.(type) {
		case *array.Int64:
			return showDuration(float64(a.Value(i)))
		case *array.Int32:
			return showDuration(float64(a.Value(i)))
		case *array.Float64:
			return showDuration(a.Value(i))
		}
	}
	switch a := a.(type) {
	case *array.Int64:
		return FormatCount(a.Value(i))
	case *array.Int32:
		return FormatCount(int64(a.Value(i)))
	case *array.Int16:
		return FormatCount(int64(a.Value(i)))
	case *array.Uint64:
		return groupThousands(strconv.FormatUint(a.Value(i), 10))
	case *array.Uint32:
		return groupThousands(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Uint16:
		return groupThousands(strconv.FormatUint(uint64(a.Value(i)), 10))
	case *array.Float64:
		return showFloat(a.Value(i))
	case *array.Float32:
		return showFloat(float64(a.Value(i)))
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Dictionary:
		return cell(a.Dictionary(), a.GetValueIndex(i), "")
	}
	return a.ValueStr(i)
}

// FormatBytes renders a byte count as messages and summaries show it: "512 B", "3.2 MiB", "1.5 GiB", "3.64 TiB".
func FormatBytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	case n < k*k*k*k:
		return fmt.Sprintf("%.2f GiB", float64(n)/(k*k*k))
	}
	return fmt.Sprintf("%.2f TiB", float64(n)/(k*k*k*k))
}

// FormatCount renders n with thousands separators, as tables show integers:
// 1234567 -> "1,234,567".
func FormatCount(n int64) string { return groupThousands(strconv.FormatInt(n, 10)) }

// groupThousands puts a comma between groups of three digits of a formatted integer or of the
// integer part of a formatted number ("-1234567.5" -> "-1,234,567.5").
func groupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		sign, s = s[:1], s[1:]
	}
	intPart, frac := s, ""
	if k := strings.IndexByte(s, '.'); k >= 0 {
		intPart, frac = s[:k], s[k:]
	}
	if len(intPart) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.WriteString(sign)
	for k, c := range intPart {
		if k > 0 && (len(intPart)-k)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + frac
}

// showFloat shows v to four significant digits without trailing zeros ("0.6667", "12.5",
// "1,235"); very small and very large magnitudes in exponent form ("1.235e-05").
func showFloat(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case v == 0:
		return "0"
	case a < 1e-4 || a >= 1e15:
		return strconv.FormatFloat(v, 'e', 3, 64)
	}
	s := strconv.FormatFloat(v, 'f', max(0, 3-int(math.Floor(math.Log10(a)))), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return groupThousands(s)
}

// durationUnits are the units of showDuration above the nanosecond, largest first.
var durationUnits = []struct {
	ns   float64
	name string
}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}}

// FormatDuration renders a duration in ns as tables show durations: in the
// largest unit that keeps it at 1 or more, to four significant digits
// ("1.234 ms", "56.70 µs", "386.9 ms", "1,235 s"); below 1 µs in ns ("512 ns").
func FormatDuration(ns int64) string { return showDuration(float64(ns)) }

// showDuration shows a duration given in ns in the largest unit that keeps it at 1 or more, to
// four significant digits with the unit ("1.234 ms", "56.70 µs", "386.9 ms", "1,235 s"); below
// 1 µs in ns ("512 ns").
func showDuration(ns float64) string {
	a := math.Abs(ns)
	if a < 1e3 || math.IsNaN(ns) || math.IsInf(ns, 0) {
		return showFloat(ns) + " ns"
	}
	k := 0
	for a < durationUnits[k].ns {
		k++
	}
	v := ns / durationUnits[k].ns
	s := strconv.FormatFloat(v, 'f', max(0, 3-int(math.Floor(math.Log10(math.Abs(v))))), 64)
	if k > 0 && math.Abs(v) >= 999.95 {
		// rounding to one decimal reaches the next unit: 999.97 µs is 1.000 ms
		k--
		s = strconv.FormatFloat(ns/durationUnits[k].ns, 'f', 3, 64)
	}
	return groupThousands(s) + " " + durationUnits[k].name
}

// unitOf is the unit recorded in a field's metadata, "" if none.
func unitOf(f arrow.Field) string {
	if i := f.Metadata.FindKey(UnitKey); i >= 0 {
		return f.Metadata.Values()[i]
	}
	return ""
}

func numeric(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16,
		arrow.UINT32, arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128,
		arrow.DECIMAL256:
		return true
	}
	return false
}

// typeName is the short type shown in headers: "dict<string>" rather than the full Arrow form.
func typeName(dt arrow.DataType) string {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		return "dict<" + d.ValueType.String() + ">"
	}
	return dt.String()
}

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// oneLine makes control characters visible so a value cannot break the text layout.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func shape(n, m int) string {
	return fmt.Sprintf("%d rows x %d columns", n, m)
}

// String renders the table as aligned text: an index column, one column per field (numbers
// right-aligned), the rows the table's row limit allows (by default the head 10 and tail 5
// rows with "..." between when there are more than 15; see [Table.Show]), and a "N rows x M
// columns" footer. Cells are cut at 40 characters.
func (t *Table) String() string {
	rec := t.record()
	n, m := int(rec.NumRows()), int(rec.NumCols())
	rows := shownRows(n, t.rowLimit())
	grid := make([][]string, m+1) // grid[col][0] is the header
	right := make([]bool, m+1)
	grid[0] = append(grid[0], "")
	right[0] = true
	for _, r := range rows {
		if r < 0 {
			grid[0] = append(grid[0], "...")
		} else {
			grid[0] = append(grid[0], strconv.Itoa(r))
		}
	}
	for j := 0; j < m; j++ {
		a := rec.Column(j)
		unit := unitOf(rec.Schema().Field(j))
		right[j+1] = numeric(a.DataType())
		col := []string{oneLine(truncate(rec.ColumnName(j), maxTextLen))}
		for _, r := range rows {
			if r < 0 {
				col = append(col, "...")
			} else {
				col = append(col, oneLine(truncate(cell(a, r, unit), maxTextLen)))
			}
		}
		grid[j+1] = col
	}
	width := make([]int, len(grid))
	for j, col := range grid {
		for _, s := range col {
			width[j] = max(width[j], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for i := range grid[0] {
		for j, col := range grid {
			if j > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(col[i]))
			if right[j] {
				b.WriteString(pad + col[i])
			} else if j == len(grid)-1 {
				b.WriteString(col[i]) // no trailing spaces
			} else {
				b.WriteString(col[i] + pad)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + shape(n, m))
	return b.String()
}

// HTML renders the table as an HTML <table>: column names with their Arrow types in the
// header, an index column, the rows the row limit allows (as [Table.String]) with an ellipsis
// row for the elided ones, and the row and column count below. Names and values are
// HTML-escaped and cut at 200 characters; nulls are shown as a greyed "null". The table sits in
// a box that scrolls horizontally when it is wider than the notebook's output area (a
// 23-column comparison), so the rest of the output stays in place.
func (t *Table) HTML() string {
	rec := t.record()
	n, m := int(rec.NumRows()), int(rec.NumCols())
	var b strings.Builder
	b.WriteString(`<div class="tracebook-table"><div style="overflow-x:auto;max-width:100%"><table border="1" class="dataframe">` + "\n<thead><tr><th></th>")
	units := make([]string, m)
	for j := 0; j < m; j++ {
		f := rec.Schema().Field(j)
		units[j] = unitOf(f)
		typ := typeName(f.Type)
		if units[j] != "" {
			typ += " [" + units[j] + "]"
		}
		fmt.Fprintf(&b, `<th>%s<br><small style="font-weight:normal;opacity:0.7">%s</small></th>`,
			html.EscapeString(truncate(f.Name, maxHTMLLen)), html.EscapeString(typ))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range shownRows(n, t.rowLimit()) {
		if r < 0 {
			b.WriteString("<tr><th>&hellip;</th>" + strings.Repeat("<td>&hellip;</td>", m) + "</tr>\n")
			continue
		}
		fmt.Fprintf(&b, "<tr><th>%d</th>", r)
		for j := 0; j < m; j++ {
			a := rec.Column(j)
			align := ""
			if numeric(a.DataType()) {
				align = ` style="text-align:right"`
			}
			if a.IsNull(r) {
				b.WriteString(`<td style="opacity:0.5"><i>null</i></td>`)
				continue
			}
			fmt.Fprintf(&b, "<td%s>%s</td>", align, html.EscapeString(truncate(cell(a, r, units[j]), maxHTMLLen)))
		}
		b.WriteString("</tr>\n")
	}
	fmt.Fprintf(&b, "</tbody>\n</table></div>\n<p>%s</p></div>", shape(n, m))
	return b.String()
}

// MIMEBundle is the kernel's display contract: {"text/plain": String(), "text/html": HTML()}.
func (t *Table) MIMEBundle() map[string]any {
	return map[string]any{"text/plain": t.String(), "text/html": t.HTML()}
}
