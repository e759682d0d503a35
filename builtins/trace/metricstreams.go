package trace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/plotting"
)

// MetricStream is an OTF2 METRIC location: a stream of metric samples that
// no thread of execution recorded, such as the asynchronous metric plugins
// of Score-P (rocm_smi, coretemp) that sample a GPU's power or a CPU's
// temperature. It has no calls, messages or collectives, so it is not a
// Process: Trace.Processes (and so every builtin's per-process analysis,
// means and lanes) excludes it; Trace.MetricStreams and
// Trace.MetricSamples give its samples.
type MetricStream struct {
	Trace    *Trace
	Index    int    // index in Trace.MetricStreams()
	Location int    // index in Definitions.Locations
	Rank     int32  // location group index (the process or host it belongs to), -1 if none
	Name     string // location group and location names, "MPI Rank 0 / rocm_smi device=0"

	Time    []int64 // ns, one per Metrics row, non-decreasing
	Metrics Metrics // row i sampled at Time[i]

	// Skipped counts the records of the location other than Metric ones.
	Skipped int64
}

// Len returns the number of samples (Metric records) of s.
func (s *MetricStream) Len() int { return len(s.Time) }

// Members returns the metric members s samples (indices into
// Definitions.MetricMembers), in order of first appearance.
func (s *MetricStream) Members() []int32 {
	var out []int32
	seen := map[int32]bool{}
	for i := range s.Metrics.Len() {
		for _, m := range s.memberIDs(i) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// memberIDs returns the member ids of the values of Metrics row i (Metrics.MemberID).
func (s *MetricStream) memberIDs(i int) []int32 {
	var defs *Definitions
	if s.Trace != nil {
		defs = s.Trace.Defs
	}
	out := make([]int32, s.Metrics.Count(i))
	for j := range out {
		out[j] = s.Metrics.MemberID(defs, i, j)
	}
	return out
}

// String returns "MPI Rank 0 / coretemp (coretemp/temp, 21 samples)".
func (s *MetricStream) String() string {
	var names []string
	for _, m := range s.Members() {
		names = append(names, s.memberName(m))
	}
	return fmt.Sprintf("%s (%s, %s samples)", s.Name, strings.Join(names, ", "), arrowio.FormatCount(int64(s.Len())))
}

func (s *MetricStream) memberName(m int32) string {
	if s.Trace != nil && m >= 0 && int(m) < len(s.Trace.Defs.MetricMembers) {
		return s.Trace.Defs.MetricMembers[m].Name
	}
	return fmt.Sprintf("metric %d", -1-m)
}

// MetricStreams returns the trace's metric streams (its OTF2 METRIC
// locations) in definition order; empty for traces without any. The slice
// is shared; do not modify.
func (t *Trace) MetricStreams() []*MetricStream { return t.streams }

// MetricSamples returns the samples of all metric streams as a long table,
// one row per value: Timestamp (ns), Stream (its name), Stream index (in
// MetricStreams), Location (index in Definitions.Locations), Rank (location
// group), Metric (member name), Unit (as the trace defines it) and Value
// (as float64). Rows are grouped by stream, in time order within each.
func (t *Trace) MetricSamples() *arrowio.Table {
	var ts []int64
	var stream, metric, unit []string
	var idx, loc, rank []int32
	var val []float64
	for _, s := range t.streams {
		for i := range s.Metrics.Len() {
			for j, m := range s.memberIDs(i) {
				ts = append(ts, s.Time[i])
				stream = append(stream, s.Name)
				idx = append(idx, int32(s.Index))
				loc = append(loc, int32(s.Location))
				rank = append(rank, s.Rank)
				metric = append(metric, s.memberName(m))
				u := ""
				if m >= 0 && int(m) < len(t.Defs.MetricMembers) {
					u = t.Defs.MetricMembers[m].Unit
				}
				unit = append(unit, u)
				val = append(val, s.Metrics.Float(i, j))
			}
		}
	}
	return arrowio.MustTable(arrowio.Int64(ColTimestamp, ts).WithUnit("ns"), arrowio.Dict("Stream", stream),
		arrowio.Int32("Stream index", idx), arrowio.Int32("Location", loc), arrowio.Int32("Rank", rank),
		arrowio.Dict("Metric", metric), arrowio.Dict("Unit", unit), arrowio.Float64("Value", val))
}

// PlotMetricStreams draws the metric streams' samples over time: one line
// chart per metric (its unit on the y axis), one line per stream sampling
// it, stacked with a shared time axis in s. A trace without metric streams
// gives an empty chart saying so.
func (t *Trace) PlotMetricStreams() *plotting.Figure {
	var order []int32
	series := map[int32][]plotting.Series{}
	names := map[int32]string{}
	for _, s := range t.streams {
		idx := map[int32]int{} // member -> series of s in series[member]
		for i := range s.Metrics.Len() {
			for j, m := range s.memberIDs(i) {
				k, ok := idx[m]
				if !ok {
					if _, seen := series[m]; !seen {
						order = append(order, m)
						names[m] = s.memberName(m)
						if m >= 0 && int(m) < len(t.Defs.MetricMembers) && t.Defs.MetricMembers[m].Unit != "" {
							names[m] += " [" + t.Defs.MetricMembers[m].Unit + "]"
						}
					}
					k = len(series[m])
					idx[m] = k
					series[m] = append(series[m], plotting.Series{Name: s.Name})
				}
				sr := &series[m][k]
				sr.X = append(sr.X, float64(s.Time[i])/1e9)
				sr.Y = append(sr.Y, s.Metrics.Float(i, j))
			}
		}
	}
	if len(order) == 0 {
		return plotting.Lines("metric streams: the trace has none", "time (s)", "")
	}
	parts := make([]*plotting.Figure, len(order))
	for i, m := range order {
		parts[i] = plotting.Lines(names[m], "time (s)", names[m], series[m]...)
	}
	title := fmt.Sprintf("metric streams: %d streams, %d metrics", len(t.streams), len(order))
	if len(parts) == 1 {
		return plotting.Lines(title+": "+names[order[0]], "time (s)", names[order[0]], series[order[0]]...)
	}
	return plotting.Stack(title, parts...)
}

// metricStreamsLine is the Summary line of the metric streams: their
// number and samples, then each metric with its unit and the number of
// streams sampling it; "" when the trace has none.
func (t *Trace) metricStreamsLine() string {
	if len(t.streams) == 0 {
		return ""
	}
	var samples int64
	count := map[string]int{}
	for _, s := range t.streams {
		samples += int64(s.Len())
		for _, m := range s.Members() {
			nm := s.memberName(m)
			if m >= 0 && int(m) < len(t.Defs.MetricMembers) && t.Defs.MetricMembers[m].Unit != "" {
				nm += " [" + t.Defs.MetricMembers[m].Unit + "]"
			}
			count[nm]++
		}
	}
	names := make([]string, 0, len(count))
	for nm := range count {
		names = append(names, nm)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, nm := range names {
		parts[i] = fmt.Sprintf("%s ×%d", nm, count[nm])
	}
	return fmt.Sprintf("%s (METRIC locations, not processes), %s samples: %s", arrowio.FormatCount(int64(len(t.streams))),
		arrowio.FormatCount(samples), strings.Join(parts, ", "))
}

// metricStream turns a location read as a Process into a metric stream:
// its Metric records become samples, other records count as Skipped.
func metricStream(p *Process, loc int) *MetricStream {
	s := &MetricStream{Location: loc, Rank: p.Rank, Name: p.Name, Metrics: p.Metrics, Skipped: p.Skipped}
	s.Time = make([]int64, 0, p.Metrics.Len())
	for i, k := range p.Kind {
		if k == Metric {
			s.Time = append(s.Time, p.Time[i])
		} else {
			s.Skipped++
		}
	}
	return s
}
