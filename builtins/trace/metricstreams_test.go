package trace

import (
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// metricsTrace is the committed output of test/tools/otf2metrics.py (the
// reference OTF2 library): 2 ranks, 3 METRIC locations in rank 0's group and
// one in rank 1's, measurement switched off on rank 1.
func metricsTrace(t *testing.T) *Trace {
	t.Helper()
	tr, err := Load(filepath.Join(tooltest.Traces(), "metric-streams"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// genMetricsTrace writes a trace with otf2metrics.py (ranks, streams in
// rank 0's group).
func genMetricsTrace(t *testing.T, ranks, streams int) *Trace {
	t.Helper()
	tooltest.RequireGen(t)
	out := filepath.Join(t.TempDir(), "trace")
	script := filepath.Join(filepath.Dir(tooltest.Gen()), "otf2metrics.py")
	if b, err := exec.Command(tooltest.Python, "-I", script, out, "--ranks", fmt.Sprint(ranks), "--streams", fmt.Sprint(streams)).CombinedOutput(); err != nil {
		t.Fatalf("otf2metrics.py: %v\n%s", err, b)
	}
	tr, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkMetricStreams checks a trace written by otf2metrics.py against its
// description: METRIC locations are metric streams, never processes.
func checkMetricStreams(t *testing.T, tr *Trace, ranks, streams int) {
	t.Helper()
	if tr.NumProcesses() != ranks {
		t.Fatalf("%d processes, want %d (the %d METRIC locations are not processes)", tr.NumProcesses(), ranks, streams+1)
	}
	for i, p := range tr.Processes() {
		if want := fmt.Sprintf("rank %d", i); p.Label() != want {
			t.Errorf("process %d: label %q, want %q", i, p.Label(), want)
		}
		if l := tr.Defs.Locations[p.Location]; l.Type != "cpu_thread" || l.Group != int32(i) {
			t.Errorf("process %d: location %d is %+v", i, p.Location, l)
		}
		if p.Index != i {
			t.Errorf("process %d has Index %d", i, p.Index)
		}
	}
	ms := tr.MetricStreams()
	if len(ms) != streams+1 {
		t.Fatalf("%d metric streams, want %d", len(ms), streams+1)
	}
	seen := map[int]bool{}
	for _, p := range tr.Processes() {
		seen[p.Location] = true
	}
	for k, s := range ms {
		wantName, wantMetric, wantUnit := "MPI Rank 0 / coretemp", "coretemp/temp", "C"
		if k > 0 && k < streams {
			wantName, wantMetric, wantUnit = fmt.Sprintf("MPI Rank 0 / rocm_smi device=%d", k-1), "rocm_smi/power", "W"
		}
		if k == streams {
			wantName = fmt.Sprintf("MPI Rank %d / coretemp rank %d", ranks-1, ranks-1)
		}
		if s.Name != wantName || s.Index != k || s.Trace != tr {
			t.Errorf("stream %d: name %q index %d, want %q", k, s.Name, s.Index, wantName)
		}
		if seen[s.Location] || tr.Defs.Locations[s.Location].Type != "metric" {
			t.Errorf("stream %d: location %d is %+v", k, s.Location, tr.Defs.Locations[s.Location])
		}
		seen[s.Location] = true
		if s.Len() != 21 || s.Skipped != 0 {
			t.Fatalf("stream %d: %d samples (%d skipped), want 21", k, s.Len(), s.Skipped)
		}
		for i := range 21 {
			if s.Time[i] != int64(i)*50_000 {
				t.Errorf("stream %d sample %d at %d ns", k, i, s.Time[i])
			}
			if v, want := s.Metrics.Float(i, 0), 40+float64(k)+float64(i)/10; math.Abs(v-want) > 1e-9 {
				t.Errorf("stream %d sample %d = %v, want %v", k, i, v, want)
			}
		}
		if m := s.Members(); len(m) != 1 || tr.Defs.MetricMembers[m[0]].Name != wantMetric || tr.Defs.MetricMembers[m[0]].Unit != wantUnit {
			t.Errorf("stream %d: members %v", k, m)
		}
	}
	if len(seen) != len(tr.Defs.Locations) {
		t.Errorf("%d of %d locations are processes or streams", len(seen), len(tr.Defs.Locations))
	}
	// the synchronous PAPI counter stays with rank 0's events
	papi := 6 // Enter and Leave of main, compute, MPI_Send
	if ranks == 1 {
		papi = 4 // no MPI_Send
	}
	if n := tr.Process(0).Metrics.Len(); n != papi {
		t.Errorf("rank 0 holds %d metric samples, want its %d PAPI_TOT_CYC", n, papi)
	}

	tb := tr.MetricSamples()
	defer tb.Release()
	if tb.NumRows() != 21*(streams+1) {
		t.Fatalf("MetricSamples: %d rows, want %d", tb.NumRows(), 21*(streams+1))
	}
	metrics, err := tb.Strings("Metric")
	if err != nil {
		t.Fatal(err)
	}
	unitCol, err := tb.Strings("Unit")
	if err != nil {
		t.Fatal(err)
	}
	units := map[string]string{}
	for i, m := range metrics {
		units[m] = unitCol[i]
	}
	if units["coretemp/temp"] != "C" || (streams > 1 && units["rocm_smi/power"] != "W") || len(units) != min(2, streams) {
		t.Errorf("MetricSamples units %v", units)
	}

	fig := tr.PlotMetricStreams()
	if want := fmt.Sprintf("metric streams: %d streams, %d metrics", streams+1, min(2, streams)); !strings.HasPrefix(fig.Title(), want) {
		t.Errorf("PlotMetricStreams title %q, want %q...", fig.Title(), want)
	}
	if _, err := fig.SVG(); err != nil {
		t.Errorf("PlotMetricStreams: %v", err)
	}

	sum := tr.Summary()
	for _, want := range []string{fmt.Sprintf("%d locations\n", ranks), fmt.Sprintf("metric streams %d (METRIC locations, not processes), %d samples: coretemp/temp [C] ×2", streams+1, 21*(streams+1))} {
		if !strings.Contains(sum, want) {
			t.Errorf("Summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(sum, "thread") {
		t.Errorf("Summary names threads:\n%s", sum)
	}
}

// A Score-P run's METRIC locations (asynchronous metric plugins such as
// rocm_smi and coretemp) are metric streams with their own accessor and
// table, not processes (issue 32, point 5).
func TestMetricLocationsAreStreams(t *testing.T) {
	checkMetricStreams(t, metricsTrace(t), 2, 3)
}

// The same with traces the test writes itself, of other shapes.
func TestMetricLocationsAreStreamsGenerated(t *testing.T) {
	for _, c := range [][2]int{{1, 1}, {3, 5}, {4, 2}} {
		t.Run(fmt.Sprintf("ranks%d-streams%d", c[0], c[1]), func(t *testing.T) {
			checkMetricStreams(t, genMetricsTrace(t, c[0], c[1]), c[0], c[1])
		})
	}
}

// Processes rebuilt over the definitions of a trace with metric streams
// (as ccg.Graph.Trace does) keep their locations and labels.
func TestNewTraceOverMetricDefinitions(t *testing.T) {
	tr := metricsTrace(t)
	var procs []*Process
	for _, p := range tr.Processes() {
		procs = append(procs, &Process{Rank: p.Rank, Thread: p.Thread, Name: p.Name, Kind: p.Kind, Time: p.Time, Ref: p.Ref})
	}
	back := NewTrace(tr.Defs, procs)
	for i, p := range back.Processes() {
		q := tr.Process(i)
		if p.Location != q.Location || p.Label() != q.Label() {
			t.Errorf("process %d: location %d %s, want %d %s", i, p.Location, p.Label(), q.Location, q.Label())
		}
	}
}
