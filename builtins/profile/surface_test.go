package profile

import (
	"html"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
)

// The tables' columns in the style of docs/surface.md: Title Case, the unit
// in parentheses and, for sizes and durations, in the unit metadata.
func TestTableColumns(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	dist := func(p string) string {
		return p + " (ns)|" + p + " Min (ns)|" + p + " P2 (ns)|" + p + " P25 (ns)|" + p + " P50 (ns)|" + p + " P75 (ns)|" + p + " P98 (ns)|" + p + " Max (ns)"
	}
	cmp := "Name|Count A|Count B|Count Change|Exclusive A (ns)|Exclusive B (ns)|Exclusive Change (ns)"
	for _, p := range []int{2, 25, 50, 75, 98} {
		for _, r := range []string{"A", "B", "Change"} {
			cmp += "|Exclusive P" + strconv.Itoa(p) + " " + r + " (ns)"
		}
	}
	mm := Messages(tr)
	for _, c := range []struct {
		what string
		tb   *arrowio.Table
		want string
	}{
		{"Boxes", Boxes(tr).Table(), "Name|Count|" + dist("Exclusive") + "|" + dist("Inclusive")},
		{"Boxes per process", Boxes(tr, WithPerProcess()).Table(), "Name|Process|Count|" + dist("Exclusive") + "|" + dist("Inclusive")},
		{"CallMatrix", CallMatrix(tr).Table(), "Caller|Callee|Count|" + dist("Exclusive") + "|" + dist("Inclusive")},
		{"Compare", Compare(tr, tr).Table(), cmp + "|Verdict"},
		{"CommMatrix", CommMatrix(tr).Table(), "Sender|Receiver|Messages|Bytes (B)"},
		{"Collectives", CommMatrix(tr).Collectives(), "Rank|Operations|Bytes Sent (B)|Bytes Received (B)"},
		{"MessageHistogram", MessageHistogram(tr, 3).Table(), "Bin Start (B)|Bin End (B)|Messages"},
		{"Messages", mm.Table(), "Sender|Receiver|Send Process|Recv Process|Comm|Tag|Bytes (B)|Send (ns)|Recv Posted (ns)|Recv (ns)|Latency (ns)"},
		{"SizeRange", MessageSizeRange(tr.Processes()).Table(), "Sends|Min (B)|Max (B)"},
		{"Problems", mm.Problems(), "Problem|Rank|Process|Time (ns)|Partner|Comm|Tag|Bytes (B)|Bytes Received (B)"},
	} {
		if got := strings.Join(c.tb.ColumnNames(), "|"); got != c.want {
			t.Errorf("%s columns\n%s\nwant\n%s", c.what, got, c.want)
		}
		var points []string
		for _, n := range c.tb.ColumnNames() {
			if timePoint[n] {
				points = append(points, n)
			}
		}
		if err := arrowio.CheckColumnNames(c.tb, points...); err != nil {
			t.Errorf("%s: %v", c.what, err)
		}
		for _, f := range c.tb.Schema().Fields() {
			unit, _ := f.Metadata.GetValue(arrowio.UnitKey)
			want := ""
			switch {
			case strings.HasSuffix(f.Name, " (B)"):
				want = "B"
			case strings.HasSuffix(f.Name, " (ns)") && !timePoint[f.Name]:
				want = "ns"
			}
			if unit != want {
				t.Errorf("%s column %q: unit %q, want %q", c.what, f.Name, unit, want)
			}
		}
	}
}

// timePoint are the columns of times since the trace's start: shown exactly, no unit metadata
// (arrowio renders "ns" columns as durations).
var timePoint = map[string]bool{"Send (ns)": true, "Recv Posted (ns)": true, "Recv (ns)": true, "Time (ns)": true}

func TestSizeRangeString(t *testing.T) {
	if s := (SizeRange{}).String(); s != "no sends" {
		t.Errorf("empty range: %q", s)
	}
	if s := (SizeRange{Sends: 1200, Min: 4, Max: 65536}).String(); s != "1,200 sends of 4 to 65,536 bytes" {
		t.Errorf("range: %q", s)
	}
}

// The former option names still work: each gives what its WithX gives.
func TestDeprecatedOptions(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	ps := tr.Processes()
	for i, c := range []struct{ old, new []Option }{
		{[]Option{Exclusive()}, []Option{WithExclusive()}},
		{[]Option{Inclusive()}, []Option{WithInclusive()}},
		{[]Option{PerProcess()}, []Option{WithPerProcess()}},
		{[]Option{Groups(ps[:1], ps[1:])}, []Option{WithGroups(ps[:1], ps[1:])}},
		{[]Option{NamedGroups([]string{"x", "y"}, ps[:1], ps[1:])}, []Option{WithNamedGroups([]string{"x", "y"}, ps[:1], ps[1:])}},
		{[]Option{Processes(ps[1])}, []Option{WithProcesses(ps[1])}},
		{[]Option{Top(2), SortBy("count")}, []Option{WithTop(2), WithSortBy("count")}},
		{[]Option{Functions("MPI_Send")}, []Option{WithFunctions("MPI_Send")}},
		{[]Option{Caller("int main(int, char**)"), Closure()}, []Option{WithCaller("int main(int, char**)"), WithClosure()}},
	} {
		a, b := CallMatrix(tr, c.old...).String(), CallMatrix(tr, c.new...).String()
		if a != b {
			t.Errorf("option %d: the former name gives\n%s\nthe new one\n%s", i, a, b)
		}
		if i > 0 && a == CallMatrix(tr).String() {
			t.Errorf("option %d changes nothing: the test would not see a wrong wrapper", i)
		}
	}
	if a, b := CommMatrix(tr, CommRanks(0)).String(), CommMatrix(tr, WithRanks(0)).String(); a != b || a == CommMatrix(tr).String() {
		t.Errorf("CommRanks gives %q, WithRanks %q", a, b)
	}
}

// The results display through display.Composition: the headline in bold, the first rows of
// the table, a note when there are more, and the figure; Compare names the runs A vs B, as
// align does.
func TestDisplayComposed(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	b, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	a := tr
	a.SetName("v1")
	b.SetName("v2")
	cmp := Compare(a, b)
	if h := cmp.Headline(); !strings.HasPrefix(h, "v1 vs v2, ") {
		t.Errorf("Compare headline %q: want the runs as A vs B", h)
	}
	if title := cmp.Plot().Title(); !strings.HasPrefix(title, "v1 vs v2: ") {
		t.Errorf("Compare plot title %q: want the runs as A vs B", title)
	}
	cm := CommMatrix(tr)
	for _, c := range []struct {
		what  string
		head  string
		table *arrowio.Table
		b     map[string]any
	}{
		{"Boxes", Boxes(tr).Headline(), Boxes(tr).Table(), Boxes(tr).MIMEBundle()},
		{"CallMatrix", CallMatrix(tr).Headline(), CallMatrix(tr).Table(), CallMatrix(tr).MIMEBundle()},
		{"Compare", cmp.Headline(), cmp.Table(), cmp.MIMEBundle()},
		{"Comm", cm.String(), cm.Table(), cm.MIMEBundle()},
	} {
		h, _ := c.b["text/html"].(string)
		txt, _ := c.b["text/plain"].(string)
		if !strings.HasPrefix(h, `<div class="tracebook-result"><p><b>`+html.EscapeString(c.head)) {
			t.Errorf("%s: the display does not start with the headline: %.200s", c.what, h)
		}
		if !strings.Contains(h, `<img src="data:image/png;base64,`) || !strings.HasPrefix(txt, c.head) || !strings.Contains(txt, "<Figure ") {
			t.Errorf("%s: the display lacks the figure or the text the headline: %.300s", c.what, txt)
		}
		if n := c.table.NumRows(); n > headRows && !strings.Contains(h, "of "+strconv.Itoa(n)+" ") {
			t.Errorf("%s: %d rows and no note saying so", c.what, n)
		}
	}
}

func TestHeadNote(t *testing.T) {
	if s := headNote(1234, "rows", "Table()"); s != "first 20 of 1,234 rows; Table() has them all" {
		t.Errorf("note %q", s)
	}
	if s := headNote(headRows, "rows", "Table()"); s != "" {
		t.Errorf("note on a table shown whole: %q", s)
	}
}
