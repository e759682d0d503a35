package ccg

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Timeline is the process timeline of a graph's locations rendered to a
// pixel width (Knüpfer 4.5.4): every pixel column is a summary query over
// its time range, and its state is the region with the most exclusive time
// in it (ties to the lower region id; -1 where no call runs). This is the
// per-pixel state that folding needs; Share says how much of the pixel the
// state covers.
type Timeline struct {
	T0, T1 int64 // [T0, T1), ns
	Width  int
	Names  []string  // location names
	State  [][]int32 // [location][pixel]: region id or -1
	Share  [][]float64
	g      *Graph
}

// Timeline renders the whole run to width pixels.
func (g *Graph) Timeline(width int) *Timeline { return g.TimelineRange(0, g.End(), width) }

// TimelineRange renders [t0, t1) to width pixels.
func (g *Graph) TimelineRange(t0, t1 int64, width int) *Timeline {
	const fn = "ccg.Graph.Timeline"
	defer work.RecoverAs(fn)
	if width < 1 || width > 1<<16 {
		fail(fn, "width %d: need 1 <= width <= 65536 pixels", width)
	}
	if t1 <= t0 {
		fail(fn, "empty interval [%d, %d): need t0 < t1 (ns)", t0, t1)
	}
	tl := &Timeline{T0: t0, T1: t1, Width: width, g: g}
	job := work.Start(fn, int64(width*len(g.locs)), "pixels")
	defer job.Done()
	for i := range g.locs {
		v := g.view(g.locs[i : i+1])
		tl.Names = append(tl.Names, g.locs[i].Name)
		states, shares := make([]int32, width), make([]float64, width)
		for x := range width {
			if err := job.Add(1); err != nil {
				panic(err)
			}
			a, b := tl.Pixel(x)
			ac := v.summarize(a, b, nil)
			best, bt := int32(-1), int64(0)
			for _, r := range ac.touched {
				if e := ac.excl[r]; e > bt || e == bt && e > 0 && r < best {
					best, bt = r, e
				}
			}
			states[x] = best
			if best >= 0 {
				shares[x] = float64(bt) / float64(b-a)
			}
		}
		tl.State, tl.Share = append(tl.State, states), append(tl.Share, shares)
	}
	return tl
}

// Pixel returns the time range [a, b) of pixel x.
func (tl *Timeline) Pixel(x int) (a, b int64) {
	span := tl.T1 - tl.T0
	return tl.T0 + span*int64(x)/int64(tl.Width), tl.T0 + span*int64(x+1)/int64(tl.Width)
}

// Table returns one row per location and pixel: the pixel's time range,
// its state's region ("" for none) and the state's share of the pixel.
func (tl *Timeline) Table() *arrowio.Table {
	var loc, px []int32
	var a, b []int64
	var reg []string
	var share []float64
	for i := range tl.State {
		for x, r := range tl.State[i] {
			p0, p1 := tl.Pixel(x)
			loc, px, a, b = append(loc, int32(i)), append(px, int32(x)), append(a, p0), append(b, p1)
			name := ""
			if r >= 0 {
				name = tl.g.regionName(r)
			}
			reg, share = append(reg, name), append(share, tl.Share[i][x])
		}
	}
	return arrowio.MustTable(arrowio.Int32("Location", loc), arrowio.Int32("Pixel", px),
		arrowio.Int64("Start (ns)", a), arrowio.Int64("End (ns)", b),
		arrowio.Dict("State", reg), arrowio.Float64("Share", share))
}

// Plot draws one lane per location, consecutive pixels of one state as one
// bar coloured by its region.
func (tl *Timeline) Plot() *plotting.Figure {
	lanes := make([]plotting.Lane, len(tl.State))
	for i, row := range tl.State {
		lanes[i].Name = tl.Names[i]
		lanes[i].FullHeight = true
		for x := 0; x < len(row); {
			y := x
			for y < len(row) && row[y] == row[x] {
				y++
			}
			if row[x] >= 0 {
				a, _ := tl.Pixel(x)
				_, b := tl.Pixel(y - 1)
				lanes[i].Bars = append(lanes[i].Bars, plotting.Bar{Start: float64(a) / 1e9, End: float64(b) / 1e9,
					Label: tl.g.regionName(row[x]), Color: -1})
			}
			x = y
		}
	}
	return plotting.Timeline(fmt.Sprintf("CCG timeline (%d pixels per location)", tl.Width), lanes, plotting.WithXLabel("time"), plotting.WithXUnit(plotting.Seconds))
}

// String is the headline, e.g. "CCG timeline of 4 location(s), [0 ns, 2.1 s)
// in 600 pixels".
func (tl *Timeline) String() string {
	return fmt.Sprintf("CCG timeline of %d location(s), [%s, %s) in %d pixels", len(tl.Names),
		arrowio.FormatDuration(tl.T0), arrowio.FormatDuration(tl.T1), tl.Width)
}

// MIMEBundle renders the plot.
func (tl *Timeline) MIMEBundle() map[string]any { return tl.Plot().MIMEBundle() }

// At returns, per location, the innermost call running at time t (with
// enter <= t < leave) found by the timestamp search of 4.5.2, its enter and
// leave times and call path; region "" where no call runs.
func (g *Graph) At(t int64) *arrowio.Table {
	n := len(g.locs)
	name, reg, path := make([]string, n), make([]string, n), make([]string, n)
	depth := make([]int32, n)
	enter, leave := make([]int64, n), make([]int64, n)
	valid := make([]bool, n)
	for i := range g.locs {
		name[i] = g.locs[i].Name
		it := g.Iter(i)
		if t < maxTime {
			it.SeekTime(t + 1)
		} else {
			it.SeekTime(t)
		}
		var names []string
		for _, f := range it.stack[1:] {
			if nd := &g.st.nodes[f.id]; nd.kind == kCall {
				names = append(names, g.regionName(nd.ref))
				enter[i], leave[i] = f.start, f.end
			}
		}
		if len(names) > 0 {
			reg[i], path[i], depth[i], valid[i] = names[len(names)-1], strings.Join(names, " > "), int32(len(names)-1), true
		}
	}
	return arrowio.MustTable(arrowio.String("Location", name), arrowio.String("Region", reg),
		arrowio.NullableInt32("Depth", depth, valid),
		arrowio.NullableInt64("Enter (ns)", enter, valid), arrowio.NullableInt64("Leave (ns)", leave, valid),
		arrowio.String("Call Path", path))
}

// Events returns the events of every location, decompressed, in the
// trace events schema (trace.Trace.Events).
func (g *Graph) Events() *arrowio.Table { return g.Trace().Events() }

// Table returns one row per location: events, nodes and bytes before
// compression, deviation observed, repairs.
func (g *Graph) Table() *arrowio.Table {
	n := len(g.locs)
	name := make([]string, n)
	ev, nn, mm, repl, dlo, dhi := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	rel := make([]float64, n)
	rep := make([]string, n)
	for i, l := range g.locs {
		name[i], ev[i], nn[i], mm[i], repl[i] = l.Name, l.Events, l.N, l.M, l.Replaced
		dlo[i], dhi[i], rel[i], rep[i] = l.DevMin, l.DevMax, l.MaxRel, l.Repairs.String()
	}
	return arrowio.MustTable(arrowio.String("Location", name), arrowio.Int64("Events", ev),
		arrowio.Int64("Nodes N", nn), arrowio.Int64("Bytes M", mm), arrowio.Int64("Replaced", repl),
		arrowio.Int64("Min Deviation (ns)", dlo).WithUnit("ns"), arrowio.Int64("Max Deviation (ns)", dhi).WithUnit("ns"),
		arrowio.Float64("Max Relative Deviation", rel), arrowio.String("Repairs", rep))
}

// headline is the summary line of the graph.
func (g *Graph) headline() string {
	s := g.Stats()
	dev := "exact"
	if s.DevMin != 0 || s.DevMax != 0 || s.MaxRel != 0 {
		dev = fmt.Sprintf("timestamps within [%s, %s]", arrowio.FormatDuration(s.DevMin), arrowio.FormatDuration(s.DevMax))
		switch {
		case math.IsInf(s.MaxRel, 1):
			dev += ", durations between events unbounded (a zero one became longer)"
		case s.MaxRel > 0:
			dev += fmt.Sprintf(", every duration between events within %.3g%%", 100*s.MaxRel)
		}
		if !g.locs[0].DevExact {
			dev = "at most: " + dev
		}
	}
	line := fmt.Sprintf("CCG: %d location(s), %s events; %s nodes -> %s (R_nodes %.4g), %s -> %s (R_memory %.4g, %.3g bytes/event); bounds: %s; b = %d, L = %d; deviation observed: %s",
		s.Locations, arrowio.FormatCount(s.Events), arrowio.FormatCount(s.N), arrowio.FormatCount(s.Nodes), s.RNodes,
		arrowio.FormatBytes(s.M), arrowio.FormatBytes(s.Bytes), s.RMemory, float64(s.Bytes)/float64(max(1, s.Events)), g.bounds, g.branch, g.search, dev)
	if g.bounds.lossyTimes() {
		if o := g.MessageOrder(); o.Messages > 0 {
			line += "; messages: " + o.String()
		}
	}
	return line
}

// MIMEBundle shows the graph as every method's result shows (display.Composition): the
// summary line, the first rows of Table (one per location) with a note on how many it has,
// and Plot (the graph, or its timeline when it is large).
func (g *Graph) MIMEBundle() map[string]any {
	t := g.Table()
	note := ""
	if n := t.NumRows(); n > headRows {
		note = fmt.Sprintf("first %d of %s rows; Table() has them all", headRows, arrowio.FormatCount(int64(n)))
	}
	return display.Composition{Headline: g.headline(), Table: t.Head(headRows), Note: note,
		Figures: []display.MIMEBundler{g.Plot()}}.MIMEBundle()
}

// MIMEBundle renders the message totals and the region table.
func (s *Summary) MIMEBundle() map[string]any {
	tb := s.Table().MIMEBundle()
	h, _ := tb["text/html"].(string)
	return map[string]any{
		"text/plain": s.String() + "\n" + fmt.Sprint(tb["text/plain"]),
		"text/html":  "<p>" + html.EscapeString(s.String()) + "</p>" + h,
	}
}

// dagLimit is the largest graph Plot draws as a DAG.
const dagLimit = 80

// Plot draws the compressed graph as a DAG (each node once, however often
// it is referenced) when it has at most 80 reachable nodes, and the
// timeline (1200 pixels) otherwise.
func (g *Graph) Plot() *plotting.Figure {
	if n, _ := g.reachable(); n > dagLimit {
		return g.Timeline(1200).Plot()
	}
	st := g.st
	idx := map[uint32]int{}
	var nodes []plotting.DAGNode
	var edges [][2]int
	var walk func(id uint32) int
	walk = func(id uint32) int {
		if i, ok := idx[id]; ok {
			return i
		}
		nd := &st.nodes[id]
		i := len(nodes)
		idx[id] = i
		var label string
		switch nd.kind {
		case kCall:
			label = "(root)"
			if nd.ref >= 0 {
				label = g.regionName(nd.ref)
			}
		case kSplit:
			label = "(split)"
		default:
			label = trace.EventKind(nd.ev).String()
		}
		lines := []string{label}
		if nd.kind != kAtomic {
			var d []string
			for k := range 2*int(nd.n) + 1 {
				d = append(d, fmt.Sprint(st.dur(nd, k)))
			}
			lines = append(lines, strings.Join(d, " "))
		}
		nodes = append(nodes, plotting.DAGNode{Lines: lines})
		if nd.kind != kAtomic {
			for _, c := range st.children(nd) {
				edges = append(edges, [2]int{i, walk(c)})
			}
		}
		return i
	}
	for _, l := range g.locs {
		walk(l.Root)
	}
	return plotting.DAG(fmt.Sprintf("compressed call graph: %d nodes (durations in ns)", len(nodes)), nodes, edges)
}
