package ccg

import (
	"fmt"
	"strings"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting"
)

// Seed bound settings (Knüpfer 5.2.1-5.2.2 and 5.6.1), in ns for a trace
// timed in ns; request ids and message sizes exact.
var (
	SmallScale  = Bounds{Abs: 100, Rel: 0.01}                         // 100 ns, 1%
	MediumScale = Bounds{Abs: 10_000, Rel: 0.1}                       // 10 µs, 10%
	LargeScale  = Bounds{Abs: 1_000_000, Rel: 1}                      // 1 ms, 100%
	Visual      = Bounds{Abs: 5_000, Rel: 0.05}                       // the seed's visual-analysis scenario: 5 µs, 5%
	Replay      = Bounds{Abs: -1, Rel: -1, Counter: -1, MPIRel: 1e-9} // MPI replay: times free but in MPI calls, communication exact
)

// Sweep is the compression of one trace at several bound settings
// (Knüpfer Figs. 5.9-5.19 in spirit).
type Sweep struct {
	Settings []Bounds
	Stats    []Stats
	Build    []time.Duration // construction and compression
	Initial  []time.Duration // first whole-run summary query (fresh caches)
	// Next is the seed's successive query (4.5.3; "sum query 1/3" of
	// Table 5.2): the summary of the middle third of the run, [End/3,
	// 2*End/3), asked again once the same query filled the node caches.
	// It evaluates the nodes on the two paths to the interval's ends and
	// above the cached ones (O(d + b^c)), and takes the rest from the
	// cache. NextNodes are the nodes it evaluated. (A repeated whole-run
	// query is a memo lookup, which measures nothing.)
	Next      []time.Duration
	NextNodes []int
}

// SweepBounds builds tr's graph at each setting (default: lossless,
// SmallScale, MediumScale, LargeScale, Unlimited) and records sizes,
// ratios, deviations and times: the build, the initial whole-run summary
// query and the seed's successive one (see Sweep.Next).
func SweepBounds(tr *trace.Trace, settings ...Bounds) *Sweep {
	const fn = "ccg.SweepBounds"
	if tr == nil {
		fail(fn, "nil trace")
	}
	if len(settings) == 0 {
		settings = []Bounds{Lossless, SmallScale, MediumScale, LargeScale, Unlimited}
	}
	s := &Sweep{Settings: settings}
	for _, b := range settings {
		t := time.Now()
		g := BuildTrace(tr, b)
		s.Build = append(s.Build, time.Since(t))
		t = time.Now()
		g.Summary(0, g.End())
		s.Initial = append(s.Initial, time.Since(t))
		t0, t1 := successiveRange(g)
		g.summarizeBy(t0, t1, nil, false) // fills the node caches
		t = time.Now()
		_, nodes := g.summarizeBy(t0, t1, nil, false)
		s.Next = append(s.Next, time.Since(t))
		s.NextNodes = append(s.NextNodes, nodes)
		s.Stats = append(s.Stats, g.Stats())
	}
	return s
}

// successiveRange is the interval of Sweep.Next: the middle third.
func successiveRange(g *Graph) (t0, t1 int64) {
	end := g.End()
	return end / 3, max(end/3+1, 2*end/3)
}

// label names setting i for tables and plots.
func (s *Sweep) label(i int) string {
	b := s.Settings[i]
	switch b {
	case Lossless:
		return "lossless"
	case Unlimited:
		return "unlimited"
	}
	return fmt.Sprintf("abs %s, rel %s", absString(b.Abs), relString(b.Rel))
}

// Table returns one row per setting.
func (s *Sweep) Table() *arrowio.Table {
	n := len(s.Settings)
	name := make([]string, n)
	nodes, bytes, dev, bms, ims, nus, nn := make([]int64, n), make([]int64, n), make([]int64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]int64, n)
	rn, rm, bpe, rel := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, st := range s.Stats {
		name[i] = s.label(i)
		nodes[i], bytes[i], rn[i], rm[i] = st.Nodes, st.Bytes, st.RNodes, st.RMemory
		bpe[i] = float64(st.Bytes) / float64(max(1, st.Events))
		dev[i], rel[i] = max(-st.DevMin, st.DevMax), st.MaxRel
		bms[i] = float64(s.Build[i].Microseconds()) / 1e3
		ims[i] = float64(s.Initial[i].Microseconds()) / 1e3
		nus[i] = float64(s.Next[i].Nanoseconds()) / 1e3
		nn[i] = int64(s.NextNodes[i])
	}
	return arrowio.MustTable(arrowio.String("Bounds", name), arrowio.Float64("R Nodes", rn), arrowio.Float64("R Memory", rm),
		arrowio.Int64("Nodes", nodes), arrowio.Int64("Bytes (B)", bytes).WithUnit("B"), arrowio.Float64("Bytes per Event (B)", bpe).WithUnit("B"),
		arrowio.Int64("Max |Deviation| (ns)", dev).WithUnit("ns"), arrowio.Float64("Max Relative Deviation", rel),
		arrowio.Float64("Build (ms)", bms).WithUnit("ms"), arrowio.Float64("Initial Query (ms)", ims).WithUnit("ms"),
		arrowio.Float64("Successive Query (µs)", nus).WithUnit("µs"),
		arrowio.Int64("Successive Query Nodes", nn))
}

// Plot draws R_nodes and R_memory per setting.
func (s *Sweep) Plot() *plotting.Figure {
	labels := make([]string, len(s.Settings))
	rn, rm := make([]float64, len(labels)), make([]float64, len(labels))
	for i, st := range s.Stats {
		labels[i], rn[i], rm[i] = s.label(i), st.RNodes, st.RMemory
	}
	return plotting.Stack("compression against the deviation bounds",
		plotting.Bars("R_nodes = N / n", labels, rn), plotting.Bars("R_memory = M / m", labels, rm))
}

// String is the headline: one line per setting with its compression
// ratios.
func (s *Sweep) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compression at %d bound settings", len(s.Settings))
	for i := range s.Settings {
		fmt.Fprintf(&b, "\n%s: R_nodes %.3g, R_memory %.3g", s.label(i), s.Stats[i].RNodes, s.Stats[i].RMemory)
	}
	return b.String()
}

// MIMEBundle shows the sweep as every method's result shows (display.Compose): the ratios
// per setting (String), the table and the plot.
func (s *Sweep) MIMEBundle() map[string]any { return display.Compose(s.String(), s.Table(), s.Plot()) }
