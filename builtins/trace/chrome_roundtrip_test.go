package trace_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
)

// firstTime is the earliest event of any location of tr (MaxInt64 if none).
func firstTime(tr *trace.Trace) int64 {
	t := int64(math.MaxInt64)
	for _, p := range tr.Processes() {
		if p.Len() > 0 {
			t = min(t, p.Time[0])
		}
	}
	for _, s := range tr.MetricStreams() {
		if s.Len() > 0 {
			t = min(t, s.Time[0])
		}
	}
	return t
}

// TestChromeRoundTrip writes every trace of the export cases (the real OTF2
// traces of test/data with the metric streams trace, pipit's CSVs,
// generated and otf2gen traces) with
// WriteChrome, plain and gzipped, and reads the file back: every location
// must come back with the same events in the same order (kind, name, time
// from the first event, message and collective payloads) and the same call
// tree, and every metric stream with its samples.
func TestChromeRoundTrip(t *testing.T) {
	cases := exportCases(t)
	cases["metric-streams"] = func() *trace.Trace {
		return trace.Open(filepath.Join(tooltest.Traces(), "metric-streams", "traces.otf2"))
	}
	for name, open := range cases {
		for _, ext := range []string{".json", ".json.gz"} {
			t.Run(name+ext, func(t *testing.T) {
				tr := open()
				path := filepath.Join(t.TempDir(), "export"+ext)
				trace.WriteChrome(tr, path)
				back, err := trace.Load(path)
				if err != nil {
					t.Fatal(err)
				}
				if back.NumProcesses() != tr.NumProcesses() || back.NumEvents() != tr.NumEvents() {
					t.Fatalf("%d locations, %d events back; wrote %d, %d", back.NumProcesses(), back.NumEvents(), tr.NumProcesses(), tr.NumEvents())
				}
				s0, s1 := firstTime(tr), firstTime(back)
				for i, p := range tr.Processes() {
					q := back.Processes()[i]
					want, got := chromeEvents(tr, p, s0, false), chromeEvents(back, q, s1, false)
					if !slices.Equal(got, want) {
						k := 0
						for k < min(len(got), len(want)) && got[k] == want[k] {
							k++
						}
						t.Fatalf("location %d (%s): events differ from event %d of %d/%d:\n got %q\nwant %q", i, p.Label(), k, len(got), len(want),
							got[k:min(k+3, len(got))], want[k:min(k+3, len(want))])
					}
					if a, b := p.CallTree().Len(), q.CallTree().Len(); a != b {
						t.Errorf("location %d: call tree of %d nodes back, %d written", i, b, a)
					}
					if (p.Label() == "") != (q.Label() == "") || p.Rank != q.Rank || p.Thread != q.Thread {
						t.Errorf("location %d: %q rank %d thread %d back, %q rank %d thread %d written", i, q.Label(), q.Rank, q.Thread, p.Label(), p.Rank, p.Thread)
					}
				}
				ms, mb := tr.MetricStreams(), back.MetricStreams()
				if len(ms) != len(mb) {
					t.Fatalf("%d metric streams back, %d written", len(mb), len(ms))
				}
				for i := range ms {
					if ms[i].Len() != mb[i].Len() {
						t.Errorf("metric stream %d: %d samples back, %d written", i, mb[i].Len(), ms[i].Len())
						continue
					}
					for k := range ms[i].Len() {
						if ms[i].Time[k]-s0 != mb[i].Time[k]-s1 {
							t.Errorf("metric stream %d sample %d at %d back, %d written", i, k, mb[i].Time[k]-s1, ms[i].Time[k]-s0)
							break
						}
					}
				}
				if t.Failed() {
					t.Log(fmt.Sprint(back.Summary()))
				}
			})
		}
	}
}

// TestChromeSummarySkipped: what the reader skipped is in the summary.
func TestChromeSummarySkipped(t *testing.T) {
	path := chromeFile(t, "skip.json", `[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"b","name":"x","cat":"c","id":1,"pid":1,"tid":1,"ts":1}]`)
	sum := trace.Open(path).Summary()
	if !strings.Contains(sum, "skipped    async begin b ×1") {
		t.Errorf("summary does not say what was skipped:\n%s", sum)
	}
}

// TestParseCollectiveOpSpellings: the spellings of other tools name the same operation, for
// every reader (events tables and Chrome JSON alike).
func TestParseCollectiveOpSpellings(t *testing.T) {
	want, ok := trace.ParseCollectiveOp("ALLREDUCE")
	if !ok {
		t.Fatal("ALLREDUCE unknown")
	}
	for _, s := range []string{"MPI_Allreduce", "otf2.ALLREDUCE", "allreduce", "pipit.MPI_ALLREDUCE"} {
		if got, ok := trace.ParseCollectiveOp(s); !ok || got != want {
			t.Errorf("ParseCollectiveOp(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"MPI_Nope", "", "OP_300"} {
		if got, ok := trace.ParseCollectiveOp(s); ok {
			t.Errorf("ParseCollectiveOp(%q) = %d, want unknown", s, got)
		}
	}
}
