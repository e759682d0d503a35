package align

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/labels"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting"
	"github.com/tracebook/tracebook/plotting/plottest"
)

func TestRunName(t *testing.T) {
	cases := map[string]string{
		"":                                       "",
		"runs/v1/traces.otf2":                    "v1",
		"/data/scorep-20240101_1200/traces.otf2": "scorep-20240101_1200",
		"exports/v2.parquet":                     "v2",
		"events.csv":                             "events",
		"traces.arrow":                           "traces", // no directory to name it by
		"run3/traces.parquet":                    "run3",
	}
	for path, want := range cases {
		if got := labels.RunName(&trace.Trace{Path: path}); got != want {
			t.Errorf("labels.RunName(%q) = %q, want %q", path, got, want)
		}
	}
	a, b := runNames(&trace.Trace{Path: "x/v1/traces.otf2"}, &trace.Trace{Path: "y/v1/traces.otf2"})
	if a == b {
		t.Errorf("two runs named %q", a)
	}
	if a, b := runNames(&trace.Trace{}, &trace.Trace{}); a != "A" || b != "B" {
		t.Errorf("generated runs named %q, %q", a, b)
	}
}

// TestPlotsNameRunsAndProcesses: both lanes of the pair plot used to carry the same
// `Process(3 "MPI Rank 3": ...)` label, and the title ran off both edges.
func TestPlotsNameRunsAndProcesses(t *testing.T) {
	a, b := genPair(t, 4, 3)
	a.Path, b.Path = "runs/v0/traces.otf2", "runs/v1/traces.otf2"
	texts := plottest.Texts(t, Pair(a.Process(3), b.Process(3)).Plot())
	for _, want := range []string{"rank 3: v0 vs v1", "v0 · rank 3", "v1 · rank 3", "GapA: only in v1", "runtime skew: v1 − v0 (positive: v1 behind)"} {
		if !slices.Contains(texts, want) {
			t.Errorf("pair plot does not show %q; it shows %q", want, texts)
		}
	}
	// Two processes of one run: named by their labels only.
	texts = plottest.Texts(t, Pair(a.Process(1), a.Process(2)).Plot())
	if !slices.Contains(texts, "rank 1 vs rank 2") {
		t.Errorf("same-run pair plot shows %q", texts)
	}
	texts = plottest.Texts(t, Runs(a, b).Plot())
	for _, want := range []string{"v0 vs v1, process by process", "rank 0", "rank 3", "process", "aligned time [% of each alignment]"} {
		if !slices.Contains(texts, want) {
			t.Errorf("runs plot does not show %q; it shows %q", want, texts)
		}
	}
	// The dissimilarity colour bar reads 0 to 1, not the data's 0.378 to 0.405.
	for _, want := range []string{"0", "0.2", "0.8", "1"} {
		if !slices.Contains(texts, want) {
			t.Errorf("runs plot colour bar has no tick %q: %q", want, texts)
		}
	}
}

func TestStateBarsUseStatePalette(t *testing.T) {
	state := []State{Equal, Equal, GapA, Equal, Diff, GapB, GapB, Equal}
	bars := stateBars(state, stateNames("A", "B"), []float64{0, 1, 2, 3, 4, 5, 6, 7, 8})
	var order []State
	covered := 0.0
	for _, b := range bars {
		s := map[string]State{"Equal": Equal, "Diff": Diff, "GapA: only in B": GapA, "GapB: only in A": GapB}[b.Label]
		if b.Fill != plotting.StateColor(int(s)) {
			t.Errorf("bar %+v: fill %v, want the state colour", b, b.Fill)
		}
		if len(order) == 0 || order[len(order)-1] != s {
			order = append(order, s)
		}
		for k := int(b.Start); k < int(b.End); k++ {
			if state[k] != s {
				t.Errorf("bar %+v covers position %d in state %v", b, k, state[k])
			}
		}
		covered += b.End - b.Start
	}
	if !slices.Equal(order, []State{Equal, Diff, GapA, GapB}) || covered != float64(len(state)) {
		t.Errorf("state bars in order %v covering %g positions", order, covered)
	}
}

// TestRunsHeatEmptyBinsAreNaN: a column without Equal pairs has no skew; it used to be drawn as
// a skew of 0.
func TestRunsHeatEmptyBinsAreNaN(t *testing.T) {
	a, b := genPair(t, 2, 3)
	rr := Runs(a, b)
	cols := 4 * rr.Results[0].Len() // more columns than pairs: some have no Equal pair
	nan := 0
	for _, row := range rr.heat(cols, heatSkew) {
		for _, v := range row {
			if math.IsNaN(v) {
				nan++
			}
		}
	}
	if nan == 0 {
		t.Error("no empty skew bin is NaN")
	}
}

// TestRunsPlotOf512Ranks: it used to be 3,763 px tall with 4.7 MB of SVG and 1.1 MB of PNG.
func TestRunsPlotOf512Ranks(t *testing.T) {
	if testing.Short() {
		t.Skip("512 ranks in -short mode")
	}
	a, b := genPair(t, 512, 1)
	f := Runs(a, b).Plot()
	if _, h := f.Size(); h > 800 {
		t.Errorf("runs plot of 512 ranks is %g pt high", h)
	}
	mb := f.MIMEBundle()
	if _, ok := mb["image/svg+xml"]; ok {
		t.Error("bundle has image/svg+xml")
	}
	png, _ := mb["image/png"].([]byte)
	if len(png) == 0 || len(png) > 500<<10 {
		t.Errorf("bundle PNG is %d bytes", len(png))
	}
	if !slices.ContainsFunc(plottest.Texts(t, f), func(s string) bool { return strings.Contains(s, "binned by") }) {
		t.Error("no axis says the rows are binned")
	}
}

// Issue 32: the pair plot's aligned time axis read "[s]" with ticks like 1e-06 and its skew axis
// was in ms whatever the skew; both read in the unit of their range now.
func TestPlotsInHumanUnits(t *testing.T) {
	a, b := genPair(t, 4, 3)
	texts := plottest.Texts(t, Pair(a.Process(3), b.Process(3)).Plot())
	var timeAxis, skewAxis bool
	for _, s := range texts {
		timeAxis = timeAxis || strings.HasPrefix(s, "aligned time (virtual: each pair as long as its longer side) [") && strings.HasSuffix(s, "s]")
		skewAxis = skewAxis || strings.HasPrefix(s, "skew [") && strings.HasSuffix(s, "s]")
	}
	if !timeAxis || !skewAxis {
		t.Errorf("axes without units: %q", texts)
	}
	for _, s := range texts {
		if strings.Contains(s, "e-0") || strings.Contains(s, "e+0") {
			t.Errorf("tick label with an exponent %q", s)
		}
	}
}

// TestPairHeadlineNamesRuns: the headline of two processes of two runs names
// the runs (both used to read "rank 3 vs rank 3"; issue 32, point 6).
func TestPairHeadlineNamesRuns(t *testing.T) {
	a, b := genPair(t, 4, 3)
	a.Path, b.Path = "runs/traces-32/traces.otf2", "runs/traces-64/traces.otf2"
	r := Pair(a.Process(3), b.Process(3))
	if r.LabelA != "traces-32 · rank 3" || r.LabelB != "traces-64 · rank 3" {
		t.Errorf("labels %q, %q", r.LabelA, r.LabelB)
	}
	if s := r.String(); !strings.Contains(s, "traces-32 · rank 3") || !strings.Contains(s, "traces-64 · rank 3") {
		t.Errorf("headline %q does not name the runs", s)
	}
	if r := Pair(a.Process(1), a.Process(2)); r.LabelA != "rank 1" || r.LabelB != "rank 2" {
		t.Errorf("one run: labels %q, %q", r.LabelA, r.LabelB)
	}
}
