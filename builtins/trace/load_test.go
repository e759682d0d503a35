package trace_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
)

// modelExpected renders expected otf2gen events as the model must hold them.
func modelEvent(tr *trace.Trace, p *trace.Process, i int) tooltest.Expected {
	e := tooltest.Expected{Loc: p.Index, Kind: p.Kind[i].String()}
	r := int(p.Ref[i])
	switch p.Kind[i] {
	case trace.Enter, trace.Leave:
		e.Region = tr.RegionName(p.Ref[i])
	case trace.MpiSend, trace.MpiRecv, trace.MpiIsend, trace.MpiIrecv:
		m := &p.Msgs
		e.Peer, e.Comm, e.Tag, e.Bytes, e.Req = uint32(m.Peer[r]), tr.Defs.Comms[m.Comm[r]].Name, uint32(m.Tag[r]), uint64(m.Bytes[r]), uint64(m.Request[r])
	case trace.MpiIsendComplete, trace.MpiIrecvRequest:
		e.Req = uint64(p.Msgs.Request[r])
	case trace.MpiCollectiveEnd:
		c := &p.Colls
		e.Op, e.Comm, e.Root, e.Sent, e.Received = trace.CollectiveOpName(c.Op[r]), tr.Defs.Comms[c.Comm[r]].Name, c.Root[r], uint64(c.Sent[r]), uint64(c.Received[r])
	}
	return e
}

func TestLoadOTF2MatchesReferenceWriter(t *testing.T) {
	cases := [][]string{
		{"random", "--procs", "3", "--threads", "1", "--events", "2000", "--seed", "11"},
		{"random", "--procs", "2", "--events", "2000", "--seed", "12", "--resolution", "1000"},
		{"random", "--procs", "2", "--events", "2000", "--seed", "13", "--resolution", "3000000000"},
		{"spmd", "--procs", "6", "--threads", "2", "--iters", "7", "--seed", "14", "--variant", "B"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			t.Parallel()
			anchor, expect := tooltest.Generate(t, t.TempDir(), args...)
			tr, err := trace.Load(anchor)
			if err != nil {
				t.Fatal(err)
			}
			byLoc := tooltest.ByLoc(expect)
			if tr.NumProcesses() != len(byLoc) {
				t.Fatalf("%d processes, want %d", tr.NumProcesses(), len(byLoc))
			}
			for _, p := range tr.Processes() {
				want := byLoc[p.Index]
				if p.Len() != len(want) {
					t.Fatalf("process %d: %d events, want %d", p.Index, p.Len(), len(want))
				}
				for i := range want {
					got := modelEvent(tr, p, i)
					w := want[i]
					if p.Time[i] != tr.Defs.Clock.TicksToNs(w.T) {
						t.Fatalf("process %d event %d: time %d ns, want %d ns (%d ticks)", p.Index, i, p.Time[i], tr.Defs.Clock.TicksToNs(w.T), w.T)
					}
					w.T = 0
					if got != w {
						t.Fatalf("process %d event %d:\n got  %+v\n want %+v", p.Index, i, got, w)
					}
				}
			}
		})
	}
}

func TestRealScorePTraces(t *testing.T) {
	for _, c := range []struct {
		dir     string
		metrics int64
	}{{"ping-pong-otf2", 0}, {"ping-pong-otf2-papi", 42}} {
		tr, err := trace.Load(filepath.Join(tooltest.Traces(), c.dir, "traces.otf2"))
		if err != nil {
			t.Fatal(err)
		}
		if tr.NumProcesses() != 2 {
			t.Fatalf("%s: %d processes", c.dir, tr.NumProcesses())
		}
		want := map[trace.EventKind]int64{trace.Enter: 21, trace.Leave: 21, trace.MpiSend: 8, trace.MpiRecv: 8, trace.ProgramBegin: 1, trace.ProgramEnd: 1}
		if c.metrics > 0 {
			want[trace.Metric] = c.metrics
		}
		for _, p := range tr.Processes() {
			got := map[trace.EventKind]int64{}
			for _, k := range p.Kind {
				got[k]++
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s process %d: %v, want %v", c.dir, p.Index, got, want)
			}
			if p.Skipped != 0 {
				t.Errorf("%s: %d records not modelled", c.dir, p.Skipped)
			}
			ct := p.CallTree()
			if ct.Len() != 22 || tr.RegionName(ct.Region[1]) != "int main(int, char**)" {
				t.Errorf("%s: call tree %d nodes, first %q", c.dir, ct.Len(), tr.RegionName(ct.Region[1]))
			}
		}
		if c.metrics > 0 {
			if got := tr.Defs.MetricMembers[tr.Defs.MetricClasses[tr.Process(0).Metrics.Metric[0]].Members[0]].Name; got != "PAPI_TOT_CYC" {
				t.Errorf("first metric %q", got)
			}
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "x.otf2")
	os.WriteFile(bad, []byte("not an anchor"), 0o644)
	for _, path := range []string{filepath.Join(dir, "missing.otf2"), bad, filepath.Join(dir, "x.unknown")} {
		_, err := trace.Load(path)
		var te *trace.Error
		if !errors.As(err, &te) {
			t.Errorf("Load(%s): %v, want *trace.Error", path, err)
		}
	}
	func() {
		defer func() {
			r := recover()
			if _, ok := r.(*trace.Error); !ok {
				t.Errorf("Open panicked with %T %v, want *Error", r, r)
			}
		}()
		trace.Open(bad)
	}()
}
