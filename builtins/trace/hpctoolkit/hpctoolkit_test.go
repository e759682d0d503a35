package hpctoolkit

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

const pingPong = "../../../test/data/traces/ping-pong-hpctoolkit"

// The context tree of the ping-pong database names each context as pipit
// does (testdata/pipit-ping-pong-events.csv, made by pipit's own reader):
// every Calling Context ID of pipit's events is a context of the tree,
// functions have pipit's names, loops pipit's file and line, entry points
// pipit's name.
func TestMetaMatchesPipit(t *testing.T) {
	m, err := ReadMeta(filepath.Join(pingPong, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/pipit-ping-pong-events.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range rows[1:] {
		kind, name, file, line, ctx := r[1], r[2], r[5], r[6], r[7]
		id, err := strconv.ParseUint(ctx, 10, 32)
		if err != nil {
			t.Fatal(err)
		}
		i := m.Context(uint32(id))
		if i < 0 {
			t.Fatalf("context %d of pipit's events is not in the tree", id)
		}
		c := m.Contexts[i]
		switch {
		case c.EntryPoint:
			if c.Name != name {
				t.Errorf("entry point %d: %q, pipit %q", id, c.Name, name)
			}
		case kind == "Loop Enter" || kind == "Loop Leave":
			if c.Lexical != LexLoop || m.Files[c.File].Path != file || strconv.Itoa(int(c.Line)) != line {
				t.Errorf("loop %d: %+v, pipit %s:%s", id, c, file, line)
			}
		default:
			if c.Lexical != LexFunction || c.Function < 0 || m.Functions[c.Function].Name != name {
				t.Errorf("function %d: %+v, pipit %q", id, c, name)
			}
		}
		seen++
	}
	if seen == 0 {
		t.Fatal("no events")
	}
	// Parents come before their children.
	for i, c := range m.Contexts {
		if c.Parent >= int32(i) || (c.Parent < 0) != c.EntryPoint {
			t.Fatalf("context %d: parent %d", i, c.Parent)
		}
	}
	if m.Title != "ping-pong" || len(m.IDNames) == 0 || m.IDNames[2] != "RANK" {
		t.Errorf("title %q, id names %q", m.Title, m.IDNames)
	}
}

// The two trace lines are ranks 1 and 0, in that order (pipit's Process
// column of its first events of each line), both thread 0.
func TestProfilesAndTraceLines(t *testing.T) {
	ps, err := ReadProfiles(filepath.Join(pingPong, "profile.db"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 || !ps[0].Summary || ps[0].IDs != nil {
		t.Fatalf("profiles %+v", ps)
	}
	tdb, err := OpenTrace(filepath.Join(pingPong, "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer tdb.Close()
	var ranks []uint32
	for i, l := range tdb.Lines {
		ids := ps[l.Profile].IDs
		if len(ids) != 3 || ids[1].Kind != 2 || ids[2].Kind != 3 || ids[2].LogicalID != 0 {
			t.Fatalf("line %d: ids %+v", i, ids)
		}
		ranks = append(ranks, ids[1].LogicalID)
		prev := uint64(0)
		n := int64(0)
		if err := tdb.ReadLine(i, func(ss []Sample) error {
			for _, s := range ss {
				if s.Time < prev || s.Time < tdb.MinTime || s.Time > tdb.MaxTime {
					t.Errorf("line %d: sample %+v out of order or range", i, s)
				}
				prev = s.Time
				n++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n != l.NumSamples() || n == 0 {
			t.Errorf("line %d: %d samples read, %d declared", i, n, l.NumSamples())
		}
	}
	if len(ranks) != 2 || ranks[0] != 1 || ranks[1] != 0 {
		t.Errorf("ranks %v", ranks)
	}
}

// An error a ReadLine callback returns stops it and is returned.
func TestReadLineStops(t *testing.T) {
	tdb, err := OpenTrace(filepath.Join(pingPong, "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer tdb.Close()
	stop := errors.New("stop")
	calls := 0
	if err := tdb.ReadLine(0, func([]Sample) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("ReadLine: %v after %d calls", err, calls)
	}
	var e *Error
	if err := tdb.ReadLine(5, func([]Sample) error { return nil }); !errors.As(err, &e) {
		t.Fatalf("ReadLine(5): %v", err)
	}
}

// Every prefix of each file is an error naming the file with an offset
// within it, never a panic.
func TestTruncatedFiles(t *testing.T) {
	for _, name := range []string{"meta.db", "profile.db", "trace.db"} {
		b, err := os.ReadFile(filepath.Join(pingPong, name))
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(b); n += 1 + n/16 {
			err := decodeAll(name, b[:n])
			var e *Error
			if !errors.As(err, &e) || e.File != name || e.Offset < 0 || e.Offset > int64(n) {
				t.Fatalf("%s cut to %d bytes: %v", name, n, err)
			}
		}
		if err := decodeAll(name, b); err != nil {
			t.Fatalf("%s whole: %v", name, err)
		}
	}
}

// decodeAll decodes data as the file name says (reading every sample of
// a trace.db).
func decodeAll(name string, data []byte) error {
	r := bytes.NewReader(data)
	size := int64(len(data))
	switch name {
	case "meta.db":
		_, err := readMeta(name, r, size)
		return err
	case "profile.db":
		_, err := readProfiles(name, r, size)
		return err
	}
	tdb, err := readTrace(name, r, size)
	if err != nil {
		return err
	}
	for i := range tdb.Lines {
		if err := tdb.ReadLine(i, func([]Sample) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

// FuzzReadHPCToolkit feeds arbitrary bytes to the meta.db, profile.db and
// trace.db decoders: each returns its content or an *Error, never panics,
// and never allocates beyond what the bytes can hold.
func FuzzReadHPCToolkit(f *testing.F) {
	for _, name := range []string{"meta.db", "profile.db", "trace.db"} {
		if b, err := os.ReadFile(filepath.Join(pingPong, name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, name := range []string{"meta.db", "profile.db", "trace.db"} {
			// let the fuzzer reach every decoder past the format check
			d := data
			if len(d) >= 14 {
				d = append([]byte(nil), data...)
				copy(d[10:], map[string]string{"meta.db": "meta", "profile.db": "prof", "trace.db": "trce"}[name])
			}
			if err := decodeAll(name, d); err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %T %v", name, err, err)
				}
			}
		}
	})
}
