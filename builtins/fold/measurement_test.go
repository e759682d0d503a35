package fold

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// metricStreamsTrace is test/data/traces/metric-streams (written by
// test/tools/otf2metrics.py with the reference OTF2 library): 2 ranks, 4
// METRIC locations, rank 1's measurement off over [300 us, 600 us) and from
// 950 us to the end.
func metricStreamsTrace(t *testing.T) *trace.Trace {
	t.Helper()
	tr, err := trace.Load(filepath.Join("..", "..", "test", "data", "traces", "metric-streams"))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// METRIC locations are not lanes of a fold (issue 32, point 5: the MI300
// trace's 29 metric locations were 29 empty lanes and "no-state 100%").
func TestTimelineWithoutMetricLocations(t *testing.T) {
	tr := metricStreamsTrace(t)
	f := Timeline(tr, Max, 100)
	if f.Streams != 2 || len(f.names) != 2 {
		t.Fatalf("%d streams folded (%v), want the 2 ranks", f.Streams, f.names)
	}
	if strings.Contains(f.String(), "no-state 100") {
		t.Errorf("%s", f)
	}
}

// The times a stream's measurement was off are grey bars labelled
// OffLabel on its lane, clipped to the range, as Vampir greys them.
func TestPlotGreysMeasurementOff(t *testing.T) {
	tr := metricStreamsTrace(t)
	f := Timeline(tr, Max, 200)
	// offBars returns the grey bars of each lane, in s
	offBars := func(f *Folded) [][][2]float64 {
		var out [][][2]float64
		for _, l := range f.lanes() {
			var bars [][2]float64
			for _, b := range l.Bars {
				if b.Label == OffLabel {
					bars = append(bars, [2]float64{b.Start, b.End})
				}
			}
			out = append(out, bars)
		}
		return out
	}
	got := offBars(f)
	end := float64(f.T1) / 1e9
	if len(got) != 3 || len(got[0]) != 0 || len(got[1]) != 0 || len(got[2]) != 2 ||
		got[2][0] != [2]float64{300e-6, 600e-6} || got[2][1] != [2]float64{950e-6, end} {
		t.Fatalf("grey bars per lane (fold, rank 0, rank 1): %v", got)
	}
	svg, err := f.Plot().SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), OffLabel) {
		t.Errorf("the plot has no %q legend entry", OffLabel)
	}
	// clipped to the range; a range without off time draws none
	if got := offBars(Timeline(tr, Max, 200, WithRange(500_000, 700_000))); len(got[2]) != 1 || got[2][0] != [2]float64{500e-6, 600e-6} {
		t.Errorf("range [500 us, 700 us): grey bars %v", got)
	}
	// a range without off time draws none
	svg, err = Timeline(tr, Max, 200, WithRange(100_000, 300_000)).Plot().SVG()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(svg), OffLabel) {
		t.Errorf("a range without measurement-off time shows %q", OffLabel)
	}
}
