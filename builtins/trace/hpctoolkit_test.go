package trace_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

const hpcPingPong = "../../test/data/traces/ping-pong-hpctoolkit"

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
	header, rows := readCSVFile(t, path)
	col := map[string]int{}
	for i, c := range header {
		col[c] = i
	}
	var out []pipitEvent
	for _, r := range rows {
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
	// A share reads the events of its processes only, as the whole trace has them.
	s := trace.Open(hpcPingPong, trace.WithShare(1))
	if len(s.Processes()) != 1 {
		t.Fatalf("share of 1: %d processes", len(s.Processes()))
	}
	p, q := s.Processes()[0], a.Processes()[1]
	if p.Name != q.Name || len(p.Kind) != len(q.Kind) || len(p.Kind) == 0 || p.Time[len(p.Time)-1] != q.Time[len(q.Time)-1] {
		t.Errorf("share: %s with %d events; whole trace: %s with %d", p.Name, len(p.Kind), q.Name, len(q.Kind))
	}
}

// copyHPC copies the ping-pong database into a temporary directory and
// returns it, with edit applied to the bytes of the file named.
func copyHPC(t testing.TB, file string, edit func([]byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"meta.db", "profile.db", "trace.db", "cct.db"} {
		b, err := os.ReadFile(filepath.Join(hpcPingPong, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == file && edit != nil {
			b = edit(b)
			if b == nil {
				continue
			}
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func putU64(b []byte, off int, v uint64) []byte {
	for i := 0; i < 8; i++ {
		b[off+i] = byte(v >> (8 * i))
	}
	return b
}

// Damaged databases are *trace.Error values naming the file and the byte
// offset of the field at fault, as the format's header layout places them:
// magic at 0, format at 10, major version at 14, section i's size at
// 0x10+16i, the footer in the last 8 bytes; a trace header's pStart at
// its header + 8.
func TestHPCToolkitDamaged(t *testing.T) {
	cases := []struct {
		name, file string
		edit       func([]byte) []byte
		offset     int64 // want; -2: any offset >= 0
	}{
		{"wrong magic", "meta.db", func(b []byte) []byte { b[0] = 'X'; return b }, 0},
		{"wrong format", "trace.db", func(b []byte) []byte { copy(b[10:], "ctxt"); return b }, 10},
		{"unknown major version", "profile.db", func(b []byte) []byte { b[14] = 5; return b }, 14},
		{"meta context section beyond the file", "meta.db", func(b []byte) []byte { return putU64(b, 0x40, 1<<40) }, 0x40},
		{"meta string section pointer beyond the file", "meta.db", func(b []byte) []byte { return putU64(b, 0x58, uint64(len(b))) }, 0x50},
		{"trace section beyond the file", "trace.db", func(b []byte) []byte { return putU64(b, 0x10, uint64(len(b))) }, 0x10},
		{"meta truncated", "meta.db", func(b []byte) []byte { return b[:len(b)-100] }, -2},
		{"trace truncated", "trace.db", func(b []byte) []byte { return b[:len(b)-5] }, -2},
		{"profile truncated to its magic", "profile.db", func(b []byte) []byte { return b[:10] }, 10},
		{"trace line end beyond the file", "trace.db", func(b []byte) []byte { return putU64(b, 64+16, 1<<33) }, 64 + 8},
		{"trace line of a partial sample", "trace.db", func(b []byte) []byte { return putU64(b, 64+16, 400+13) }, 64 + 8},
		{"trace line of an unknown profile", "trace.db", func(b []byte) []byte { b[64] = 9; return b }, 64},
		{"trace.db missing", "trace.db", func([]byte) []byte { return nil }, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyHPC(t, c.file, c.edit)
			_, err := trace.Load(dir)
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T %v, want a *trace.Error", err, err)
			}
			if te.Path != filepath.Join(dir, c.file) {
				t.Errorf("error names %s, want %s (%v)", te.Path, c.file, err)
			}
			if c.offset == -2 && te.Offset < 0 || c.offset != -2 && te.Offset != c.offset {
				t.Errorf("offset %d, want %d (%v)", te.Offset, c.offset, err)
			}
		})
	}
}
