package ccg

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Accumulated counters (Knüpfer 3.2.1): stored as differences of
// successive samples, Bounds.Counter bounding the differences.

// papiTrace opens the real Score-P trace with three PAPI counters.
func papiTrace(t *testing.T) *trace.Trace {
	t.Helper()
	path := "../../test/data/traces/ping-pong-otf2-papi/traces.otf2"
	if dir := os.Getenv("TRACEBOOK_TRACES"); dir != "" {
		path = filepath.Join(dir, "ping-pong-otf2-papi", "traces.otf2")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("real trace not here: %v", err)
	}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// increments lists, per location, metric and member position, the
// successive values of every accumulated counter of tr.
func counterSeries(tr *trace.Trace, p *trace.Process) map[[2]int64][]uint64 {
	d := tr.Defs
	out := map[[2]int64][]uint64{}
	m := &p.Metrics
	for i, k := range p.Kind {
		if k != trace.Metric {
			continue
		}
		r := p.Ref[i]
		c := m.Metric[r]
		for j := m.Start[r]; j < m.Start[r+1]; j++ {
			pos := int(j - m.Start[r])
			if c >= 0 && int(c) < len(d.MetricClasses) && pos < len(d.MetricClasses[c].Members) &&
				d.MetricMembers[d.MetricClasses[c].Members[pos]].Mode == "accumulated_start" {
				key := [2]int64{int64(c), int64(pos)}
				out[key] = append(out[key], m.Values[j])
			}
		}
	}
	return out
}

// checkCounters fails t unless every increment of every accumulated
// counter of g's locations is within rel of the original's (and so is
// every value, the counters only growing), and reports the increments.
func checkCounters(t *testing.T, what string, tr *trace.Trace, g *Graph, rel float64) int {
	t.Helper()
	n := 0
	for i, l := range g.Locations() {
		orig := counterSeries(tr, tr.Processes()[l.Index])
		got := counterSeries(tr, g.Process(i))
		if len(orig) == 0 {
			t.Fatalf("%s: %s has no accumulated counters", what, l.Name)
		}
		for key, ov := range orig {
			gv := got[key]
			if len(gv) != len(ov) {
				t.Fatalf("%s: %s counter %v: %d samples, original %d", what, l.Name, key, len(gv), len(ov))
			}
			var prev, gprev uint64
			for k := range ov {
				d, gd := float64(int64(ov[k]-prev)), float64(int64(gv[k]-gprev))
				if math.Abs(gd-d) > rel*math.Abs(d) {
					t.Fatalf("%s: %s counter %v sample %d: increment %v, original %v (> %.3g%%)", what, l.Name, key, k, gd, d, 100*rel)
				}
				if d >= 0 && math.Abs(float64(gv[k])-float64(ov[k])) > rel*float64(ov[k])+1e-9 {
					t.Fatalf("%s: %s counter %v sample %d: %d, original %d", what, l.Name, key, k, gv[k], ov[k])
				}
				prev, gprev = ov[k], gv[k]
				n++
			}
		}
	}
	return n
}

// ping-pong-papi: PAPI counters read at every event (accumulated_start).
// Exact counters decompress exactly; with a bound, every increment stays
// within it, and so the cycles an MPI call took.
func TestCountersPingPongPAPI(t *testing.T) {
	tr := papiTrace(t)
	for _, m := range tr.Defs.MetricMembers {
		if m.Mode != "accumulated_start" {
			t.Fatalf("member %s: mode %q, want accumulated_start", m.Name, m.Mode)
		}
	}
	g := BuildTrace(tr, Lossless)
	for i := range g.Locations() {
		sameProcess(t, "lossless", tr.Process(i), g.Process(i))
	}
	moved := 0
	for _, b := range []Bounds{{Counter: 0.05}, {Abs: 10_000, Rel: 0.1, Counter: 0.05}, {Abs: -1, Rel: -1, Counter: 0.05}, {Counter: 0.3}} {
		g := BuildTrace(tr, b)
		if n := checkCounters(t, b.String(), tr, g, b.Counter); n < 200 {
			t.Fatalf("%s: %d increments checked", b, n)
		}
		checkBounds(t, "ping-pong-papi", tr, g, b)
		a := g.Accuracy(tr)
		if tot := a.totals(); !a.Within() || tot.Increments < 200 {
			t.Fatalf("%s: %s", b, a)
		}
		// A bound tighter than the graph's: the moved increments show.
		if a.totals().MaxCountRel > 0 {
			moved++
			g.bounds.Counter = 1e-9
			if a := g.Accuracy(tr); a.Within() || a.totals().OverCounter == 0 || !strings.Contains(a.String(), "BOUNDS BROKEN") {
				t.Fatalf("%s, checked against counters 1e-9: %s", b, a)
			}
		}
	}
	if moved == 0 {
		t.Fatal("no bound moved an increment: the test shows nothing")
	}
}

// withSamples returns tr with Score-P-style counter samples: before every
// Enter and Leave a Metric event at the same time with two accumulated
// counters, instructions (a fixed number per event of each region: the
// program repeats, so do they) and, if cycles, cycles at 2.5 per ns (the
// increments follow the durations).
func withSamples(tr *trace.Trace, cycles bool) *trace.Trace {
	defs := *tr.Defs
	defs.MetricMembers = append([]trace.MetricMember(nil), defs.MetricMembers...)
	defs.MetricClasses = append([]trace.MetricClass(nil), defs.MetricClasses...)
	ins := int32(len(defs.MetricMembers))
	defs.MetricMembers = append(defs.MetricMembers, trace.MetricMember{Name: "PAPI_TOT_INS", Unit: "#", ValueType: "uint64", Mode: "accumulated_start"},
		trace.MetricMember{Name: "PAPI_TOT_CYC", Unit: "#", ValueType: "uint64", Mode: "accumulated_start"})
	class := trace.MetricClass{Members: []int32{ins}}
	if cycles {
		class.Members = append(class.Members, ins+1)
	}
	cls := int32(len(defs.MetricClasses))
	defs.MetricClasses = append(defs.MetricClasses, class)
	var procs []*trace.Process
	for _, p := range tr.Processes() {
		q := &trace.Process{Rank: p.Rank, Thread: p.Thread, Name: p.Name, Msgs: p.Msgs, Colls: p.Colls}
		var count uint64
		for i, k := range p.Kind {
			if k == trace.Enter || k == trace.Leave {
				count += uint64(100 + 37*p.Ref[i])
				vals := []uint64{count}
				types := []uint8{trace.MetricUint64}
				if cycles {
					vals, types = append(vals, uint64(2.5*float64(p.Time[i]))), append(types, trace.MetricUint64)
				}
				q.Kind, q.Time = append(q.Kind, trace.Metric), append(q.Time, p.Time[i])
				q.Ref = append(q.Ref, q.Metrics.Add(cls, types, vals))
			}
			q.Kind, q.Time, q.Ref = append(q.Kind, k), append(q.Time, p.Time[i]), append(q.Ref, p.Ref[i])
		}
		procs = append(procs, q)
	}
	return trace.NewTrace(&defs, procs)
}

// Score-P-style samples share as the calls around them do: exact
// instruction counts repeat, and cycles under the same bound as the times
// are within it where the times are.
func TestCountersScorePSamplesShare(t *testing.T) {
	base := synth.GenerateSMG(synth.SMG2000Config(2, 60_000))
	plain := BuildTrace(base, MediumScale).Stats().RNodes
	for _, c := range []struct {
		cycles bool
		b      Bounds
	}{
		{false, MediumScale},
		{true, Bounds{Abs: MediumScale.Abs, Rel: MediumScale.Rel, Counter: MediumScale.Rel}},
	} {
		tr := withSamples(base, c.cycles)
		g := BuildTrace(tr, c.b)
		r := g.Stats().RNodes
		what := fmt.Sprintf("cycles %v, %s", c.cycles, c.b)
		t.Logf("%s: R_nodes %.3g (without samples %.3g)", what, r, plain)
		if r < plain/2 {
			t.Fatalf("%s: R_nodes %.3g with samples, %.3g without", what, r, plain)
		}
		checkCounters(t, what, tr, g, c.b.Counter)
		checkBounds(t, what, tr, g, c.b)
	}
}

// A version-1 file (written before counters were stored as differences
// and metric modes kept: testdata/ping-pong-papi-v1.ccg, the lossless
// graph of ping-pong-papi) still loads, with absolute counter values.
func TestLoadVersion1(t *testing.T) {
	tr := papiTrace(t)
	g, err := Load("testdata/ping-pong-papi-v1.ccg")
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Locations() {
		sameProcess(t, "version 1", tr.Process(i), g.Process(i))
	}
	// Saved again (version 2), it reads back the same.
	h := restored(t, saved(t, g))
	for i := range h.Locations() {
		sameProcess(t, "version 2", tr.Process(i), h.Process(i))
	}
}
