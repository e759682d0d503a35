package trace

import (
	"html"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tracebook/tracebook/arrowio"
)

// twoRanks is a trace of two ranks: main 0-1000 ns with MPI_Init 100-600 on rank 0, main
// 0-2000 with MPI_Init 100-1600 on rank 1.
func twoRanks(t *testing.T) *Trace {
	t.Helper()
	tb := arrowio.MustTable(
		arrowio.Int64(ColTimestamp, []int64{0, 100, 600, 1000, 0, 100, 1600, 2000}),
		arrowio.Dict(ColEventType, []string{"Enter", "Enter", "Leave", "Leave", "Enter", "Enter", "Leave", "Leave"}),
		arrowio.Dict(ColName, []string{"main", "MPI_Init", "MPI_Init", "main", "main", "MPI_Init", "MPI_Init", "main"}),
		arrowio.Int32(ColProcess, []int32{0, 0, 0, 0, 1, 1, 1, 1}))
	tr, err := FromTable(tb)
	if err != nil {
		t.Fatal(err)
	}
	tr.Process(1).Name = "MPI Rank 1"
	return tr
}

func TestProcessString(t *testing.T) {
	tr := NewTrace(nil, []*Process{
		{Rank: 3, Name: "MPI Rank 3", Kind: make([]EventKind, 1234)},
		{Rank: 3, Thread: 2, Name: "MPI Rank 3 / Thread 2", Kind: make([]EventKind, 5)},
		{Rank: 4},
	})
	for i, want := range []string{
		"rank 3 (MPI Rank 3, 1,234 events)",
		"rank 3 thread 2 (MPI Rank 3 / Thread 2, 5 events)",
		"rank 4 (0 events)",
	} {
		if got := tr.Process(i).String(); got != want {
			t.Errorf("process %d: %q, want %q", i, got, want)
		}
	}
}

// The summary's per-region times say over what they are aggregated.
func TestSummaryRegionsSayHowAggregated(t *testing.T) {
	tr := twoRanks(t)
	var lines []string
	for _, l := range strings.Split(tr.Summary(), "\n") {
		if !strings.HasPrefix(l, "memory ") {
			lines = append(lines, l)
		}
	}
	want := `trace      (generated)
processes  2 location groups, 2 locations
events     8
  Enter                4
  Leave                4
regions    2
duration   2.000 µs (2,000 ns)
clock      1,000,000,000 ticks/s, offset 0 ticks, length 2,000 ticks
top regions by exclusive time, summed over 2 processes:
  region    calls  exclusive (sum)  mean per process  max per process
  MPI_Init      2         2.000 µs          1.000 µs  1.500 µs (rank 1)
  main          2         1.000 µs            500 ns  500 ns (rank 0)
`
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	h := tr.MIMEBundle()["text/html"].(string)
	for _, w := range []string{
		"<p>top regions by exclusive time, summed over 2 processes</p>",
		"<th>region</th><th>calls</th><th>exclusive (sum)</th><th>mean per process</th><th>max per process</th>",
		`<tr><td style="text-align:left">MPI_Init</td><td style="text-align:right">2</td><td style="text-align:right">2.000 µs</td><td style="text-align:right">1.000 µs</td><td style="text-align:right">1.500 µs (rank 1)</td></tr>`,
	} {
		if !strings.Contains(h, w) {
			t.Errorf("HTML summary lacks %s:\n%s", w, h)
		}
	}
	if got := tr.String(); got != "Trace(generated: 2 processes, 8 events, 2 regions, 2.000 µs)" {
		t.Errorf("String %q", got)
	}
}

// Profile names processes by their label, keeps the full name in a column of its own, and its
// times stay int64 ns marked with their unit, shown as durations.
func TestProfileColumns(t *testing.T) {
	pr := twoRanks(t).Profile()
	want := `   Process  Function  Calls  Inclusive (ns)  Exclusive (ns)  Rank  Thread  Process name
0  rank 0   main          1        1.000 µs          500 ns     0       0  Process 0 / Thread 0
1  rank 0   MPI_Init      1          500 ns          500 ns     0       0  Process 0 / Thread 0
2  rank 1   main          1        2.000 µs          500 ns     1       0  MPI Rank 1
3  rank 1   MPI_Init      1        1.500 µs        1.500 µs     1       0  MPI Rank 1

4 rows x 8 columns`
	if got := pr.String(); got != want {
		t.Errorf("profile\n%s\nwant\n%s", got, want)
	}
	for _, name := range []string{"Inclusive (ns)", "Exclusive (ns)"} {
		f, _ := pr.Schema().FieldsByName(name)
		if len(f) != 1 || f[0].Type.ID() != arrow.INT64 || f[0].Metadata.FindKey(arrowio.UnitKey) < 0 ||
			f[0].Metadata.Values()[f[0].Metadata.FindKey(arrowio.UnitKey)] != "ns" {
			t.Errorf("%s: %v", name, f)
		}
	}
}

// The summary names the call-stack repairs, totalled over the locations that
// needed any, in text and HTML; a properly nested trace has no such line.
func TestSummaryReportsRepairs(t *testing.T) {
	loc := func(spec string) *Process {
		kind, times, ref := callEvents(t, spec)
		return &Process{Kind: kind, Time: times, Ref: ref}
	}
	tr := NewTrace(&Definitions{Regions: []Region{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}}, []*Process{
		loc("+a@0 +b@1 -b@2 -a@3"),
		loc("+a@0 +b@1 +c@2 -a@3 +b@4 +c@5"),
		loc("+a@0 -a@1"),
		loc("-c@0 +a@1 -d@2 -a@3"),
	})
	want := "call stacks repaired on 2 of 4 locations: 2 calls left open at the end (closed at the last event), " +
		"1 Leave of an enclosing call (closing 2 calls never left inside), 1 Leave matching no open call (ignored), " +
		"1 Leave with no call open (ignored)"
	var got []string
	for _, l := range strings.Split(tr.Summary(), "\n") {
		if strings.HasPrefix(l, "call stacks") {
			got = append(got, l)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("summary repair lines %q, want [%q]", got, want)
	}
	h := tr.MIMEBundle()["text/html"].(string)
	if w := html.EscapeString(strings.TrimPrefix(want, "call stacks ")); !strings.Contains(h, `<tr><th style="text-align:left">call stacks</th><td style="text-align:left">`+w+"</td></tr>") {
		t.Errorf("HTML summary lacks the repairs row %q:\n%s", w, h)
	}
	if s := twoRanks(t).Summary(); strings.Contains(s, "call stacks") {
		t.Errorf("properly nested trace reports repairs:\n%s", s)
	}
	if h := twoRanks(t).MIMEBundle()["text/html"].(string); strings.Contains(h, "call stacks") {
		t.Errorf("properly nested trace reports repairs:\n%s", h)
	}
}
