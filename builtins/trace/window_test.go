package trace_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// wnode is one call of an expected clipped call tree: region, parent (index
// among the expected nodes, -1 for the top) and clipped times.
type wnode struct {
	region, parent int32
	enter, leave   int64
}

// treeNodes lists the calls of a call tree (without ε), parents as node
// indices minus one.
func treeNodes(c *trace.CallTree) []wnode {
	out := make([]wnode, 0, c.Len()-1)
	for i := 1; i < c.Len(); i++ {
		out = append(out, wnode{c.Region[i], c.Parent[i] - 1, c.Enter[i], c.Leave[i]})
	}
	return out
}

// clippedNodes is the brute-force oracle: the calls of the full call tree
// kept by keep (in pre-order; a kept call's ancestors must be kept),
// their times clipped to [start, end].
func clippedNodes(c *trace.CallTree, keep func(i int) bool, start, end int64) []wnode {
	at := make([]int32, c.Len())
	var out []wnode
	for i := 1; i < c.Len(); i++ {
		at[i] = -1
		if !keep(i) {
			continue
		}
		par := int32(-1)
		if c.Parent[i] > 0 {
			par = at[c.Parent[i]]
		}
		at[i] = int32(len(out))
		out = append(out, wnode{c.Region[i], par, max(c.Enter[i], start), min(c.Leave[i], end)})
	}
	return out
}

// windowOracle keeps the calls of [t0, t1) for a process whose events all
// have distinct times: calls entered in the window, and calls entered before
// it and left after t0 (a call left at t0 exactly does not overlap it).
func windowOracle(p *trace.Process, t0, t1 int64) (nodes []wnode, entered, left int) {
	c := p.CallTree()
	last := int64(0)
	if len(p.Time) > 0 {
		last = p.Time[len(p.Time)-1]
	}
	keep := func(i int) bool {
		if len(p.Time) == 0 || t0 > last { // after the process's end: nothing
			return false
		}
		if c.Enter[i] < t1 && (c.Enter[i] >= t0 || c.Leave[i] > t0) {
			return true
		}
		for j, k := range p.Kind { // or it holds an instant of the window (distinct times: Leave >= its time)
			if k != trace.Enter && k != trace.Leave && p.Time[j] >= t0 && p.Time[j] < t1 && c.Enter[i] < p.Time[j] && c.Leave[i] >= p.Time[j] {
				return true
			}
		}
		return false
	}
	kept := make([]bool, c.Len()) // and the calls around a kept call (never left: closed at the last event, t0)
	for i := c.Len() - 1; i > 0; i-- {
		if keep(i) {
			for a := i; a > 0 && !kept[a]; a = int(c.Parent[a]) {
				kept[a] = true
			}
		}
	}
	keep = func(i int) bool { return kept[i] }
	nodes = clippedNodes(c, keep, t0, t1)
	for i := 1; i < c.Len(); i++ {
		if keep(i) {
			if c.Enter[i] < t0 {
				entered++
			}
			if c.Leave[i] >= t1 && last >= t1 {
				left++
			}
		}
	}
	return nodes, entered, left
}

// Windows of random traces with distinct times equal the brute-force clip
// of their full call trees, and keep every event in the window.
func TestWindowOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 300 {
		tr := tracetest.RandomTrace(rng, 3, 60, true)
		d := tr.Duration() + 10
		t0 := rng.Int64N(d) - 2
		t1 := t0 + rng.Int64N(d/2+1)
		w := tr.Window(time.Duration(t0), time.Duration(t1))
		for i, p := range tr.Processes() {
			q := w.Process(i)
			want, entered, left := windowOracle(p, t0, t1)
			if got := treeNodes(q.CallTree()); !slices.Equal(got, want) {
				t.Fatalf("trace %d, process %d, window [%d, %d): tree\n%v\nwant\n%v\nevents %v %v %v", it, i, t0, t1, got, want, p.Kind, p.Time, p.Ref)
			}
			if q.Clip.Entered != entered || q.Clip.Left != left {
				t.Fatalf("trace %d, process %d, window [%d, %d): clipped %d/%d, want %d/%d", it, i, t0, t1, q.Clip.Entered, q.Clip.Left, entered, left)
			}
			// every event in the window, in order, with its payload row
			closesAtT0 := false // the event at t0 is a Leave closing a call entered before
			for n := 1; n < p.CallTree().Len(); n++ {
				if c := p.CallTree(); c.Leave[n] == t0 && c.Enter[n] < t0 {
					closesAtT0 = true
				}
			}
			var kinds []trace.EventKind
			var refs []int32
			for j, k := range p.Kind {
				if p.Time[j] >= t0 && p.Time[j] < t1 && !(k == trace.Leave && p.Time[j] == t0 && closesAtT0) {
					kinds, refs = append(kinds, k), append(refs, p.Ref[j])
				}
			}
			inner := q.Len() - q.Clip.Entered - q.Clip.Left
			if !slices.Equal(q.Kind[q.Clip.Entered:q.Clip.Entered+inner], kinds) || !slices.Equal(q.Ref[q.Clip.Entered:q.Clip.Entered+inner], refs) {
				{
					t.Fatalf("trace %d, process %d, window [%d, %d): events %v, want %v; clip %+v; %v %v", it, i, t0, t1, q.Kind, kinds, *q.Clip, p.Kind, p.Time)
				}
			}
			for j := 1; j < q.Len(); j++ {
				if q.Time[j] < q.Time[j-1] {
					t.Fatalf("trace %d, process %d: times decrease at %d: %v", it, i, j, q.Time)
				}
			}
			for j := range inner {
				if src := q.Clip.SourceIndex(q.Clip.Entered + j); src < 0 || p.Kind[src] != q.Kind[q.Clip.Entered+j] || p.Time[src] != q.Time[q.Clip.Entered+j] {
					t.Fatalf("trace %d, process %d: SourceIndex(%d) = %d", it, i, q.Clip.Entered+j, src)
				}
			}
		}
	}
}

// A window of a window (of any cut) is the window of their intersection,
// event for event, including shared times and repairs.
func TestWindowOfWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 300 {
		tr := tracetest.RandomTrace(rng, 3, 50, it%2 == 0)
		d := tr.Duration() + 6
		a := rng.Int64N(d) - 2
		b := a + rng.Int64N(d)
		c := rng.Int64N(d) - 2
		e := c + rng.Int64N(d)
		got := tr.Window(time.Duration(a), time.Duration(b)).Window(time.Duration(c), time.Duration(e))
		lo, hi := max(a, c), min(b, e)
		if hi < lo {
			hi = lo
		}
		want := tr.Window(time.Duration(lo), time.Duration(hi))
		for i := range tr.Processes() {
			g, w := got.Process(i), want.Process(i)
			if !slices.Equal(g.Kind, w.Kind) || !slices.Equal(g.Time, w.Time) || !slices.Equal(g.Ref, w.Ref) {
				if len(g.Kind)+len(w.Kind) == g.Clip.Entered+g.Clip.Left+w.Clip.Entered+w.Clip.Left && b <= c || e <= a {
					continue // disjoint windows: both hold nothing of the source
				}
				t.Fatalf("trace %d, process %d: [%d,%d)∩[%d,%d): got %v %v %v\nwant %v %v %v\nsource %v %v %v", it, i, a, b, c, e,
					g.Kind, g.Time, g.Ref, w.Kind, w.Time, w.Ref, tr.Process(i).Kind, tr.Process(i).Time, tr.Process(i).Ref)
			}
			if g.Clip.Source != tr.Process(i) {
				t.Fatalf("the window of a window is cut from the root")
			}
		}
		if got.Cut.Source != tr || len(got.Cut.Steps) != 2 {
			t.Fatalf("cut %+v", got.Cut)
		}
	}
}

// Between equals the brute-force clip of the call tree to the invocations
// selected: their calls and everything in between, the calls around them
// clipped to the first one's Enter and the last one's Leave.
func TestBetweenOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := range 300 {
		tr := tracetest.RandomTrace(rng, 3, 60, it%2 == 0)
		from := rng.IntN(3)
		to := from + 1 + rng.IntN(3)
		region := fmt.Sprintf("r%d", rng.IntN(6))
		w := tr.Between(region, from, to)
		id := tr.RegionID(region)
		for i, p := range tr.Processes() {
			c := p.CallTree()
			var inv []int // outermost invocations, pre-order
			for n := 1; n < c.Len(); n++ {
				if c.Region[n] != id {
					continue
				}
				outer := true
				for a := c.Parent[n]; a > 0; a = c.Parent[a] {
					if c.Region[a] == id {
						outer = false
					}
				}
				if outer {
					inv = append(inv, n)
				}
			}
			var want []wnode
			if from < len(inv) {
				first, last := inv[from], inv[min(to, len(inv))-1]
				anc := map[int]bool{}
				for a := int(c.Parent[first]); a > 0; a = int(c.Parent[a]) {
					anc[a] = true
				}
				want = clippedNodes(c, func(n int) bool { return anc[n] || n >= first && n < int(c.End[last]) }, c.Enter[first], c.Leave[last])
			}
			q := w.Process(i)
			if got := treeNodes(q.CallTree()); !slices.Equal(got, want) {
				t.Fatalf("trace %d, process %d, %s: tree\n%v\nwant\n%v\nevents %v %v %v", it, i, w.Cut, got, want, p.Kind, p.Time, p.Ref)
			}
		}
		// Between of a window holding the invocations whole is the same cut
		if from == 0 {
			a, b := tr.Span(region, from, to)
			ww := tr.Window(a-1, b+1).Between(region, from, to)
			for i := range tr.Processes() {
				if g, x := treeNodes(ww.Process(i).CallTree()), treeNodes(w.Process(i).CallTree()); !slices.Equal(g, x) {
					t.Fatalf("trace %d, process %d: Between of a window\n%v\nwant\n%v", it, i, g, x)
				}
			}
		}
	}
}

// Window edges on shared times: a call left at t0 exactly is outside, one
// entered at t1 too, a zero-length call at t0 inside; a window inside one
// call holds it, clipped at both ends.
func TestWindowEdges(t *testing.T) {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "a"}, {Name: "b"}}}
	p := &trace.Process{Kind: []trace.EventKind{trace.Enter, trace.Enter, trace.Leave, trace.Enter, trace.Leave, trace.Enter, trace.Leave, trace.Leave},
		Time: []int64{0, 10, 20, 20, 20, 30, 40, 50}, Ref: []int32{0, 1, 1, 2, 2, 1, 1, 0}}
	tr := trace.NewTrace(defs, []*trace.Process{p})
	for _, c := range []struct {
		t0, t1 int64
		want   string
	}{
		{20, 30, "E main@20 E b@20 L b@20 L main@30"},                            // a left at 20: out; b [20,20]: in; a entered at 30: out
		{12, 18, "E main@12 E a@12 L a@18 L main@18"},                            // inside a
		{0, 100, "E main@0 E a@10 L a@20 E b@20 L b@20 E a@30 L a@40 L main@50"}, // whole: no clipping
		{45, 60, "E main@45 L main@50"},                                          // to the end: main's own Leave
		{60, 70, ""},                                                             // after the end: empty
		{-5, 0, ""},                                                              // before the first event
	} {
		q := tr.Window(time.Duration(c.t0), time.Duration(c.t1)).Process(0)
		var parts []string
		for i, k := range q.Kind {
			parts = append(parts, fmt.Sprintf("%c %s@%d", k.String()[0], defs.Regions[q.Ref[i]].Name, q.Time[i]))
		}
		if got := strings.Join(parts, " "); got != c.want {
			t.Errorf("Window(%d, %d) = %q, want %q", c.t0, c.t1, got, c.want)
		}
	}
	if w := tr.Window(0, 100).Process(0); &w.Kind[0] != &p.Kind[0] {
		t.Errorf("a window that clips nothing copies the events")
	}
}

// spmdTrace writes an SPMD trace with the reference OTF2 library.
func spmdTrace(t *testing.T) *trace.Trace {
	tooltest.RequireGen(t)
	anchor, _ := tooltest.Generate(t, filepath.Join(t.TempDir(), "spmd"), "spmd", "--procs", "4", "--iters", "6", "--slow", "2:1.5")
	return trace.Open(anchor)
}

// Between and Main on an SPMD run written by the reference library: every
// rank holds exactly the iterations asked for, MPI_Init and MPI_Finalize
// are gone and main is clipped at their ends, marked in the summary.
func TestPhasesOfReferenceSPMD(t *testing.T) {
	tr := spmdTrace(t)
	solve := tr.RegionID("solve")
	if solve < 0 {
		t.Fatalf("no solve region in %v", tr.Defs.Regions)
	}
	count := func(p *trace.Process, id int32) int {
		n := 0
		for _, s := range p.RegionStats() {
			if s.Region == id {
				n = int(s.Calls)
			}
		}
		return n
	}
	b := tr.Between("solve", 2, 5)
	for _, p := range b.Processes() {
		if n := count(p, solve); n != 3 {
			t.Errorf("%s: %d solve calls in Between(solve, 2, 5), want 3", p.Label(), n)
		}
		full := tr.Process(p.Index).CallTree()
		var enters []int64
		for i := 1; i < full.Len(); i++ {
			if full.Region[i] == solve {
				enters = append(enters, full.Enter[i])
			}
		}
		if p.Time[0] != enters[2] {
			t.Errorf("%s: starts at %d, want the third solve's Enter %d", p.Label(), p.Time[0], enters[2])
		}
		if p.Clip.Entered == 0 || p.Clip.Left != p.Clip.Entered {
			t.Errorf("%s: clipped %d at the start, %d at the end, want the calls around solve at both", p.Label(), p.Clip.Entered, p.Clip.Left)
		}
	}
	if !strings.Contains(b.Summary(), "clipped") || !strings.Contains(b.String(), `Between("solve", 2, 5)`) {
		t.Errorf("the summary does not say what was cut:\n%s\n%s", b.Summary(), b)
	}
	m := tr.Main()
	for _, name := range []string{"MPI_Init", "MPI_Finalize"} {
		id := tr.RegionID(name)
		if id < 0 {
			t.Fatalf("no %s", name)
		}
		for _, p := range m.Processes() {
			if n := count(p, id); n != 0 {
				t.Errorf("%s: %d %s calls in Main()", p.Label(), n, name)
			}
		}
	}
	for _, p := range m.Processes() {
		full := tr.Process(p.Index)
		if count(p, solve) != count(full, solve) {
			t.Errorf("%s: Main() lost solve calls", p.Label())
		}
		if p.Clip.Lo == 0 || p.Clip.Hi == full.Len() {
			t.Errorf("%s: Main() kept set-up or tear-down: [%d, %d) of %d", p.Label(), p.Clip.Lo, p.Clip.Hi, full.Len())
		}
	}
	if got := tr.Without("MPI_Init", "MPI_Finalize"); got.NumEvents() != m.NumEvents() {
		t.Errorf("Without(MPI_Init, MPI_Finalize) has %d events, Main() %d", got.NumEvents(), m.NumEvents())
	}
}

// Main on generated traces (the presets): no set-up region is left at
// either end of a process, and the solve iterations are all kept.
func TestMainOfPresets(t *testing.T) {
	for name, cfg := range map[string]synth.GenConfig{"default": synth.DefaultGenConfig(), "btmz": synth.BTMZConfig(4, 1), "cosmo": synth.COSMOSPECSConfig(4, 5),
		"gpu": synth.HybridGPUConfig(2, 2, 3), "paradis": synth.ParaDiSConfig(5)} {
		cfg.MPI = true
		tr := synth.Generate(cfg)
		m := tr.Main()
		for _, p := range m.Processes() {
			full := tr.Process(p.Index)
			seq := p.Sequence()
			for _, r := range seq {
				if n := tr.RegionName(r); n == "MPI_Init" || n == "MPI_Finalize" {
					t.Errorf("%s %s: %s left in Main()", name, p.Label(), n)
				}
			}
			if len(full.Sequence()) > 0 && len(seq) == 0 && full.Thread == 0 {
				t.Errorf("%s %s: Main() empty", name, p.Label())
			}
		}
	}
}

// Subset keeps global location indices: labels and Process(i) by index.
func TestSubset(t *testing.T) {
	tr := synth.Generate(synth.DefaultGenConfig())
	s := tr.Subset(3, 1)
	if s.NumProcesses() != 2 || s.Processes()[0].Index != 3 || s.Process(1).Label() != tr.Process(1).Label() {
		t.Fatalf("subset %v: %v", s, s.Processes())
	}
	if &s.Process(3).Kind[0] != &tr.Process(3).Kind[0] {
		t.Errorf("a subset copies events")
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "not in this subset") {
				t.Errorf("Process(0) of a subset without it: %v", r)
			}
		}()
		s.Process(0)
	}()
	w := s.Window(time.Duration(tr.Duration()/4), time.Duration(tr.Duration()/2))
	if w.Process(3).Clip.Source != tr.Process(3) || !w.Cut.Subset || w.NumProcesses() != 2 {
		t.Errorf("a window of a subset: %v", w)
	}
}

// The real Score-P ping-pong: windows against the brute-force oracle.
func TestWindowPingPong(t *testing.T) {
	tr, err := trace.Load("../../test/data/traces/ping-pong-otf2/traces.otf2") // the repository's copy
	if err != nil {
		t.Fatal(err)
	}
	d := tr.Duration()
	for k := range 20 {
		t0 := d * int64(k) / 23
		t1 := t0 + d/7
		w := tr.Window(time.Duration(t0), time.Duration(t1))
		for i, p := range tr.Processes() {
			distinct := true
			for j := 1; j < p.Len(); j++ {
				if p.Time[j] == p.Time[j-1] {
					distinct = false
				}
			}
			if !distinct {
				continue
			}
			want, e, l := windowOracle(p, t0, t1)
			q := w.Process(i)
			if got := treeNodes(q.CallTree()); !slices.Equal(got, want) || q.Clip.Entered != e || q.Clip.Left != l {
				t.Fatalf("process %d, [%d, %d): %v\nwant %v", i, t0, t1, got, want)
			}
		}
	}
}

// BenchmarkWindow100M cuts a 100M-event generated trace (64 ranks): a
// window over its middle half (every call around it clipped, the range
// copied), Main, Between the middle iterations, and a window that clips
// nothing (sub-slices only).
func BenchmarkWindow100M(b *testing.B) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.MPI = 64, true
	cfg.Iterations = max(1, int(int64(cfg.Iterations)*100_000_000/cfg.NumEvents()))
	tr := synth.Generate(cfg)
	d := tr.Duration()
	b.Logf("%d events, %d processes", tr.NumEvents(), tr.NumProcesses())
	for _, c := range []struct {
		name string
		f    func() *trace.Trace
	}{
		{"Window", func() *trace.Trace { return tr.Window(time.Duration(d/4), time.Duration(3*d/4)) }},
		{"Main", tr.Main},
		{"Between", func() *trace.Trace { return tr.Between("solve", cfg.Iterations/4, 3*cfg.Iterations/4) }},
		{"WindowWhole", func() *trace.Trace { return tr.Window(0, time.Duration(d+1)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var events int64
			cpu0 := cpuTime()
			for b.Loop() {
				events = c.f().NumEvents()
			}
			// on a shared machine, the CPU time is the figure to read (wall = CPU / cores when idle)
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(events), "events")
		})
	}
}

// cpuTime is the process's user+system CPU time, ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// Without: main clipped at MPI_Init's Leave and MPI_Finalize's Enter; an
// MPI-only trace (no main) cut between them; an invocation in the middle
// kept; a process of set-up only empty.
func TestWithoutEdges(t *testing.T) {
	defs := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "MPI_Init"}, {Name: "MPI_Finalize"}, {Name: "work"}}}
	mk := func(kinds []trace.EventKind, times []int64, refs []int32) *trace.Process {
		return &trace.Process{Kind: kinds, Time: times, Ref: refs}
	}
	E, L := trace.Enter, trace.Leave
	tr := trace.NewTrace(defs, []*trace.Process{
		mk([]trace.EventKind{E, E, L, E, L, E, L, E, L, E, L, L}, []int64{0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, []int32{0, 1, 1, 3, 3, 1, 1, 3, 3, 2, 2, 0}),
		mk([]trace.EventKind{E, L, trace.MpiSend, E, L, E, L}, []int64{0, 4, 5, 6, 7, 8, 9}, []int32{1, 1, 0, 3, 3, 2, 2}),
		mk([]trace.EventKind{E, L, E, L}, []int64{0, 4, 5, 6}, []int32{1, 1, 2, 2}),
	})
	tr.Process(1).Msgs.Add(0, 0, 0, 8, 0)
	w := tr.Without("MPI_Init", "MPI_Finalize")
	var got []string
	for _, p := range w.Processes() {
		var parts []string
		for i, k := range p.Kind {
			name := k.String()
			if k == trace.Enter || k == trace.Leave {
				name = k.String()[:1] + " " + defs.Regions[p.Ref[i]].Name
			}
			parts = append(parts, fmt.Sprintf("%s@%d", name, p.Time[i]))
		}
		got = append(got, strings.Join(parts, " "))
	}
	want := []string{
		"E main@5 E work@6 L work@7 E MPI_Init@8 L MPI_Init@9 E work@10 L work@11 L main@12", // the second MPI_Init is in the middle: kept
		"MpiSend@5 E work@6 L work@7",
		"",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Without:\n%q\nwant\n%q", got, want)
	}
}

// Main of a trace without set-up regions is the trace, event for event,
// even for calls never left.
func TestMainWithoutSetup(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		tr := tracetest.RandomTrace(rng, 3, 40, false)
		m := tr.Main()
		for i, p := range tr.Processes() {
			q := m.Process(i)
			if !slices.Equal(q.Kind, p.Kind) || !slices.Equal(q.Time, p.Time) || !slices.Equal(q.Ref, p.Ref) {
				t.Fatalf("process %d: Main() %v, want %v", i, q.Kind, p.Kind)
			}
		}
	}
	p := &trace.Process{Kind: []trace.EventKind{trace.Enter, trace.Enter}, Time: []int64{1, 2}, Ref: []int32{0, 0}}
	if q := trace.NewTrace(&trace.Definitions{Regions: []trace.Region{{Name: "main"}}}, []*trace.Process{p}).Main().Process(0); q.Len() != 2 {
		t.Errorf("Main() of calls never left: %v", q.Kind)
	}
}
