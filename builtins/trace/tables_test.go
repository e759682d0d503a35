package trace_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/internal/memlimit"
)

// sameModel compares two traces event by event by name and payload.
func sameModel(t *testing.T, a, b *trace.Trace) {
	t.Helper()
	if a.NumProcesses() != b.NumProcesses() {
		t.Fatalf("%d vs %d processes", a.NumProcesses(), b.NumProcesses())
	}
	for i := range a.Processes() {
		p, q := a.Process(i), b.Process(i)
		if p.Rank != q.Rank || p.Thread != q.Thread || p.Len() != q.Len() {
			t.Fatalf("process %d: rank/thread/len %d/%d/%d vs %d/%d/%d", i, p.Rank, p.Thread, p.Len(), q.Rank, q.Thread, q.Len())
		}
		for j := range p.Kind {
			e1, e2 := modelEvent(a, p, j), modelEvent(b, q, j)
			if p.Time[j] != q.Time[j] || e1 != e2 {
				t.Fatalf("process %d event %d: %d %+v vs %d %+v", i, j, p.Time[j], e1, q.Time[j], e2)
			}
			if p.Kind[j] == trace.Metric {
				r1, r2 := int(p.Ref[j]), int(q.Ref[j])
				n1 := p.Metrics.Start[r1+1] - p.Metrics.Start[r1]
				n2 := q.Metrics.Start[r2+1] - q.Metrics.Start[r2]
				if n1 != n2 {
					t.Fatalf("process %d event %d: %d vs %d metric values", i, j, n1, n2)
				}
				for k := 0; k < int(n1); k++ {
					if p.Metrics.Float(r1, k) != q.Metrics.Float(r2, k) {
						t.Fatalf("process %d event %d: metric %d differs", i, j, k)
					}
				}
			}
		}
	}
}

func TestTableRoundTrip(t *testing.T) {
	traces := map[string]*trace.Trace{"generated": synth.Generate(synth.GenConfig{Seed: 5, Ranks: 3, Threads: 1, Iterations: 4, Depth: 2, Fanout: 2, MPI: true, UnitNs: 1000, SlowRank: -1, OutlierIter: -1, Noise: 0.3})}
	for _, d := range []string{"ping-pong-otf2", "ping-pong-otf2-papi"} {
		tr, err := trace.Load(filepath.Join(tooltest.Traces(), d, "traces.otf2"))
		if err != nil {
			t.Fatal(err)
		}
		traces[d] = tr
	}
	dir := t.TempDir()
	for name, tr := range traces {
		ev := tr.Events()
		if ev.NumRows() != int(tr.NumEvents()) {
			t.Fatalf("%s: %d rows for %d events", name, ev.NumRows(), tr.NumEvents())
		}
		for _, ext := range []string{"parquet", "arrow", "csv"} {
			path := filepath.Join(dir, name+"."+ext)
			arrowio.Write(path, ev)
			back, err := trace.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(name+"."+ext, func(t *testing.T) {
				sameModel(t, tr, back)
				if ext != "csv" { // CSV has no place for the definitions
					sameDefinitions(t, tr, back)
				}
			})
		}
	}
}

func TestPipitCSV(t *testing.T) {
	csv, err := trace.Load(filepath.Join(tooltest.Traces(), "csv", "ping-pong-csv.csv"))
	if err != nil {
		t.Fatal(err)
	}
	otf, err := trace.Load(filepath.Join(tooltest.Traces(), "ping-pong-otf2", "traces.otf2"))
	if err != nil {
		t.Fatal(err)
	}
	// pipit's export of the same trace: same processes, same event names
	// and kinds in the same order (its clock correction differs, so times
	// are compared only for order).
	if csv.NumProcesses() != otf.NumProcesses() {
		t.Fatalf("%d vs %d processes", csv.NumProcesses(), otf.NumProcesses())
	}
	for i := range otf.Processes() {
		p, q := otf.Process(i), csv.Process(i)
		if p.Len() != q.Len() {
			t.Fatalf("process %d: %d vs %d events", i, p.Len(), q.Len())
		}
		for j := range p.Kind {
			if p.Kind[j] != q.Kind[j] || p.EventName(j) != q.EventName(j) {
				t.Fatalf("process %d event %d: %s %s vs %s %s", i, j, p.Kind[j], p.EventName(j), q.Kind[j], q.EventName(j))
			}
		}
	}
	fb, err := trace.Load(filepath.Join(tooltest.Traces(), "csv", "foo-bar.csv"))
	if err != nil {
		t.Fatal(err)
	}
	p1 := fb.Process(1)
	ct := p1.CallTree()
	var got []string
	for _, c := range ct.Children(1) {
		got = append(got, fmt.Sprintf("%s:%d", fb.RegionName(ct.Region[c]), ct.Inclusive(int(c))))
	}
	if fmt.Sprint(got) != "[bar():38000000000 Idle:18000000000 grault():20000000000]" {
		t.Errorf("foo-bar process 1 main's children: %v", got)
	}
	if ct.Exclusive(1) != 100e9-38e9-18e9-20e9 {
		t.Errorf("main exclusive %d", ct.Exclusive(1))
	}
}

func TestProfile(t *testing.T) {
	tr := synth.Generate(synth.GenConfig{Seed: 1, Ranks: 2, Iterations: 3, UnitNs: 100, SlowRank: -1, OutlierIter: -1})
	pr := tr.Profile()
	calls, err := pr.Int64s("Calls")
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := pr.Strings("Function")
	inc, _ := pr.Int64s("Inclusive (ns)")
	exc, _ := pr.Int64s("Exclusive (ns)")
	var sumCalls int64
	for i := range calls {
		sumCalls += calls[i]
		if exc[i] > inc[i] || exc[i] < 0 {
			t.Errorf("%s: exclusive %d inclusive %d", fn[i], exc[i], inc[i])
		}
		if fn[i] == "solve" && calls[i] != 3 {
			t.Errorf("solve called %d times", calls[i])
		}
	}
	if sumCalls*2 != tr.NumEvents() {
		t.Errorf("profile counts %d calls for %d enter/leave events", sumCalls, tr.NumEvents())
	}
}

// Collective ops beyond OTF2's named ones (a newer writer, or corruption)
// must survive the events table, not index past its dictionary.
func TestUnknownCollectiveOpRoundTrip(t *testing.T) {
	tr := synth.Generate(synth.GenConfig{Seed: 5, Ranks: 2, Threads: 1, Iterations: 2, Depth: 2, Fanout: 2, MPI: true, UnitNs: 1000, SlowRank: -1, OutlierIter: -1})
	p := tr.Process(0)
	if len(p.Colls.Op) == 0 {
		t.Fatal("generator made no collectives")
	}
	p.Colls.Op[0] = 200
	ev := tr.Events()
	if h := ev.HTML(); h == "" {
		t.Fatal("empty HTML")
	}
	dir := t.TempDir()
	for _, ext := range []string{"parquet", "arrow", "csv"} {
		path := filepath.Join(dir, "ops."+ext)
		arrowio.Write(path, ev)
		back, err := trace.Load(path)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if got := back.Process(0).Colls.Op[0]; got != 200 {
			t.Fatalf("%s: op %d after round trip", ext, got)
		}
		sameModel(t, tr, back)
	}
	for _, c := range []struct {
		name string
		op   uint8
		ok   bool
	}{{"ALLREDUCE", 11, true}, {"OP_200", 200, true}, {"OP_256", 0, false}, {"NOSUCH", 0, false}} {
		op, ok := trace.ParseCollectiveOp(c.name)
		if ok != c.ok || op != c.op {
			t.Errorf("ParseCollectiveOp(%q) = %d, %v", c.name, op, ok)
		}
	}
}

// sameDefinitions compares what Events carries in its schema metadata:
// regions by name, location and process names and types, location groups,
// the clock and the properties.
func sameDefinitions(t *testing.T, a, b *trace.Trace) {
	t.Helper()
	for _, r := range a.Defs.Regions {
		id := b.RegionID(r.Name)
		if id < 0 {
			continue // a region without events is not in the table
		}
		if got := b.Defs.Regions[id]; got != r {
			t.Fatalf("region %q: %+v, want %+v", r.Name, got, r)
		}
	}
	for i, p := range a.Processes() {
		q := b.Process(i)
		la, lb := a.Defs.Locations[i], b.Defs.Locations[i]
		if p.Name != q.Name || la.Name != lb.Name || la.Type != lb.Type {
			t.Fatalf("location %d: %q %q %q vs %q %q %q", i, p.Name, la.Name, la.Type, q.Name, lb.Name, lb.Type)
		}
		ga, gb := a.Defs.LocationGroups[la.Group], b.Defs.LocationGroups[lb.Group]
		if ga.Name != gb.Name || ga.Type != gb.Type {
			t.Fatalf("location group of %d: %+v vs %+v", i, ga, gb)
		}
	}
	if a.Defs.Clock != b.Defs.Clock {
		t.Fatalf("clock %+v vs %+v", a.Defs.Clock, b.Defs.Clock)
	}
	for k, v := range a.Defs.Properties {
		if b.Defs.Properties[k] != v {
			t.Fatalf("property %q: %q vs %q", k, b.Defs.Properties[k], v)
		}
	}
}

// TestEventsUndefinedComms: messages and collectives on communicators the definitions lack (a
// hand-built or generated trace) get "comm c" names; the dictionary must cover every code.
func TestEventsUndefinedComms(t *testing.T) {
	p := &trace.Process{Name: "rank 0"}
	add := func(k trace.EventKind, ts int64, ref int32) {
		p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, ts), append(p.Ref, ref)
	}
	add(trace.MpiSend, 10, p.Msgs.Add(1, 2, 7, 64, 0))
	add(trace.MpiCollectiveEnd, 20, p.Colls.Add(1, 0, trace.RootNone, 8, 8))
	add(trace.MpiIsendComplete, 30, p.Msgs.Add(-1, -1, -1, 0, 5))
	tr := trace.NewTrace(&trace.Definitions{}, []*trace.Process{p})
	ev := tr.Events()
	got, err := ev.Strings(trace.ColComm)
	if err != nil {
		t.Fatal(err)
	}
	valid, _ := ev.Valid(trace.ColComm)
	if !slices.Equal(got, []string{"comm 2", "comm 0", ""}) || !slices.Equal(valid, []bool{true, true, false}) {
		t.Fatalf("Communicator: %q valid %v", got, valid)
	}
}

// A hand-built trace with a message on communicator 2000000000 (not defined) once made Events
// name every communicator up to it (32 GB of names: a fatal out-of-memory error under a limit).
// Only the codes that occur get a name now.
func TestEventsSparseUndefinedCommsUnderMemoryLimit(t *testing.T) {
	memlimit.Run(t, 1<<30, func(t *testing.T) {
		p := &trace.Process{Name: "rank 0"}
		add := func(k trace.EventKind, ts int64, ref int32) {
			p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, ts), append(p.Ref, ref)
		}
		add(trace.MpiSend, 10, p.Msgs.Add(1, 2000000000, 7, 64, 0))
		add(trace.MpiSend, 20, p.Msgs.Add(1, 0, 7, 64, 0))
		add(trace.MpiSend, 30, p.Msgs.Add(1, 2000000000, 7, 64, 0))
		tr := trace.NewTrace(&trace.Definitions{Comms: []trace.Comm{{Name: "MPI_COMM_WORLD", Group: -1, Parent: -1}}}, []*trace.Process{p})
		got, err := tr.Events().Strings(trace.ColComm)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"comm 2000000000", "MPI_COMM_WORLD", "comm 2000000000"}; !slices.Equal(got, want) {
			t.Fatalf("Communicator: %q, want %q", got, want)
		}
	})
}
