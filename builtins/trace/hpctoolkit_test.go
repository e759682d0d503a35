package trace_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

const hpcPingPong = "hpctoolkit/testdata/ping-pong"

// pipitEvent is a row of pipit's events DataFrame (see
// hpctoolkit/testdata/README.md for how it was made).
type pipitEvent struct {
	time          int64
	kind, name    string
	process       string // the model's process name for its Process and Thread
	file          string
	line          int64
	contextID     string
	loop, isEnter bool
}

func readPipitEvents(t *testing.T, path string) []pipitEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	var out []pipitEvent
	for _, r := range rows[1:] {
		ts, err := strconv.ParseInt(r[col["Timestamp (ns)"]], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := strconv.ParseInt(r[col["Source File Line Number"]], 10, 64)
		name := "MPI Rank " + r[col["Process"]]
		if th := r[col["Thread"]]; th != "0" && th != "" {
			name += " / Thread " + th
		}
		k := r[col["Event Type"]]
		out = append(out, pipitEvent{time: ts, kind: k, name: r[col["Name"]], process: name,
			file: r[col["Source File Name"]], line: line, contextID: r[col["Calling Context ID"]],
			loop: k == "Loop Enter" || k == "Loop Leave", isEnter: k == "Enter" || k == "Loop Enter"})
	}
	return out
}

// The ping-pong database reads as pipit reads it: the same events, event
// for event, on every process: kind, name, time (ns from the database's
// first timestamp), and for loops the file and line of the loop header.
func TestHPCToolkitMatchesPipit(t *testing.T) {
	tr, err := trace.Load(hpcPingPong)
	if err != nil {
		t.Fatal(err)
	}
	want := readPipitEvents(t, "hpctoolkit/testdata/pipit-ping-pong-events.csv")
	byProc := map[string][]pipitEvent{}
	for _, e := range want {
		byProc[e.process] = append(byProc[e.process], e)
	}
	if len(tr.Processes()) != len(byProc) {
		t.Fatalf("%d processes, pipit has %d", len(tr.Processes()), len(byProc))
	}
	n := 0
	for _, p := range tr.Processes() {
		w, ok := byProc[p.Name]
		if !ok {
			t.Fatalf("process %q is not one of pipit's", p.Name)
		}
		if len(p.Kind) != len(w) {
			t.Errorf("%s: %d events, pipit has %d", p.Name, len(p.Kind), len(w))
		}
		for i := 0; i < min(len(p.Kind), len(w)); i++ {
			e := w[i]
			r := tr.Defs.Regions[p.Ref[i]]
			got := fmt.Sprintf("%v %s @%d", p.Kind[i], r.Name, p.Time[i])
			wantKind := trace.Leave
			if e.isEnter {
				wantKind = trace.Enter
			}
			ok := p.Kind[i] == wantKind && p.Time[i] == e.time
			if e.loop {
				ok = ok && r.Role == "loop" && r.File == e.file && int64(r.BeginLine) == e.line
			} else {
				ok = ok && r.Name == e.name && r.Role != "loop"
			}
			if !ok {
				t.Fatalf("%s event %d: %s; pipit: %s %s @%d (%s:%d, context %s)", p.Name, i, got, e.kind, e.name, e.time, e.file, e.line, e.contextID)
			}
			n++
		}
		if p.Rank < 0 || tr.Defs.LocationGroups[p.Rank].Name != p.Name {
			t.Errorf("%s: location group %d", p.Name, p.Rank)
		}
	}
	if n != len(want) {
		t.Errorf("%d events compared, pipit has %d", n, len(want))
	}
	if got := tr.Defs.Clock; got.Resolution != 1e9 || got.Offset == 0 {
		t.Errorf("clock %+v", got)
	}
}

// meta.db (or the directory) opens the database.
func TestHPCToolkitOpenPaths(t *testing.T) {
	a := trace.Open(hpcPingPong)
	b := trace.Open(filepath.Join(hpcPingPong, "meta.db"))
	if a.NumEvents() != b.NumEvents() || a.NumEvents() == 0 {
		t.Fatalf("%d events from the directory, %d from meta.db", a.NumEvents(), b.NumEvents())
	}
}
