package otf2

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// colEvent is what a test reader keeps of an event.
type colEvent struct {
	kind uint8
	time int64
	ref  int32
}

// TestColumnsMatchReadLocation reads every location of generated and real
// archives with ReadColumns and with ReadLocation (the oracle: every record
// decoded by the decoder's methods into one Event, none by the inline fast
// path of Enter and Leave) and compares every event. The region table has
// holes, so that Enter and Leave records of some regions take the Other
// path within ReadColumns too.
func TestColumnsMatchReadLocation(t *testing.T) {
	var anchors []string
	for _, args := range genCases {
		if args[0] == "random" && args[len(args)-1] == "6" {
			continue // the big one: TestReaderMatchesReferenceWriter reads it
		}
		a, _ := tooltest.Generate(t, t.TempDir(), args...)
		anchors = append(anchors, a)
	}
	real, _ := filepath.Glob(filepath.Join(tooltest.Traces(), "*", "*.otf2"))
	anchors = append(anchors, real...)
	if len(real) == 0 {
		t.Fatal("no real OTF2 trace under test/data/traces")
	}
	const offset = 1000
	for _, anchor := range anchors {
		a, err := Open(anchor)
		if err != nil {
			t.Fatal(err)
		}
		var maxRegion uint32
		for _, r := range a.Defs.Regions {
			maxRegion = max(maxRegion, r.Self)
		}
		region := make([]int32, maxRegion+1)
		for i := range region {
			region[i] = int32(7 * i)
			if i%3 == 1 {
				region[i] = -1 // not in the table: Other decides
			}
		}
		for _, l := range a.Defs.Locations {
			var want []colEvent
			nWant, err := a.ReadLocation(l.Self, func(e *Event) error {
				ce := colEvent{kind: 100 + e.Type, time: int64(e.Time - offset), ref: -1}
				switch {
				case e.Type != EvEnter && e.Type != EvLeave:
				case uint64(e.Region) < uint64(len(region)) && region[e.Region] >= 0:
					ce.kind, ce.ref = e.Type-EvEnter+1, region[e.Region]
				default:
					ce.ref = int32(e.Region)
				}
				want = append(want, ce)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			c := &Columns{EnterKind: 1, LeaveKind: 2, Region: region, TimeOffset: offset}
			var progress int64
			c.Progress = func(n int64) error { progress += n; return nil }
			c.Other = func(e *Event) (uint8, int32, bool, error) {
				ref := int32(-1)
				if e.Type == EvEnter || e.Type == EvLeave {
					ref = int32(e.Region)
				}
				return 100 + e.Type, ref, true, nil
			}
			n, err := a.ReadColumns(l.Self, c)
			if err != nil {
				t.Fatal(err)
			}
			where := anchor + " location " + a.Defs.String(l.Name)
			if n != nWant || len(c.Kind) != len(want) || len(c.Time) != len(want) || len(c.Ref) != len(want) {
				t.Fatalf("%s: %d records, columns %d/%d/%d; want %d records, %d events", where, n, len(c.Kind), len(c.Time), len(c.Ref), nWant, len(want))
			}
			if progress != n {
				t.Errorf("%s: progress counted %d records of %d", where, progress, n)
			}
			for i, w := range want {
				if got := (colEvent{c.Kind[i], c.Time[i], c.Ref[i]}); got != w {
					t.Fatalf("%s: event %d is %+v, want %+v", where, i, got, w)
				}
			}
		}
	}
}

// TestColumnsErrors checks that an error from Other or Progress stops
// ReadColumns and comes back as is, and that a truncated event file is an
// *Error naming it.
func TestColumnsErrors(t *testing.T) {
	anchor, _ := tooltest.Generate(t, t.TempDir(), "spmd", "--procs", "2", "--iters", "3000", "--seed", "9")
	a, err := Open(anchor)
	if err != nil {
		t.Fatal(err)
	}
	loc := a.Defs.Locations[0].Self
	stop := errors.New("stop")
	calls := 0
	_, err = a.ReadColumns(loc, &Columns{Other: func(*Event) (uint8, int32, bool, error) { calls++; return 0, 0, false, stop }})
	if err != stop || calls != 1 {
		t.Errorf("Other's error: got %v after %d calls, want it after 1", err, calls)
	}
	_, err = a.ReadColumns(loc, &Columns{Progress: func(int64) error { return stop }})
	if err != stop {
		t.Errorf("Progress's error: got %v", err)
	}
	evt := a.LocationFile(loc, "evt")
	truncateFile(t, evt, 3000)
	_, err = a.ReadColumns(loc, &Columns{})
	var oe *Error
	if !errors.As(err, &oe) || oe.File != evt || oe.Offset < 0 || oe.Offset > 3000 {
		t.Errorf("truncated file: got %v, want an *Error naming %s and an offset in it", err, evt)
	}
}

func truncateFile(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// sizeLiar is a file whose Stat reports a size smaller than its content, as
// some file systems do.
type sizeLiar struct {
	*os.File
	size int64
}

func (f sizeLiar) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	return liarInfo{fi, f.size}, err
}

type liarInfo struct {
	fs.FileInfo
	size int64
}

func (i liarInfo) Size() int64 { return i.size }

// TestChunkedReadWhenStatUndersizes: a file whose size, as Stat reports it,
// is smaller than its content is still read whole (the small buffer a small
// file gets is replaced by a chunk when more bytes follow).
func TestChunkedReadWhenStatUndersizes(t *testing.T) {
	anchor, _ := tooltest.Generate(t, t.TempDir(), "spmd", "--procs", "1", "--iters", "20", "--seed", "3")
	a, err := Open(anchor)
	if err != nil {
		t.Fatal(err)
	}
	loc := a.Defs.Locations[0]
	want, err := a.ReadLocation(loc.Self, func(*Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{0, 100} {
		f, err := os.Open(a.LocationFile(loc.Self, "evt"))
		if err != nil {
			t.Fatal(err)
		}
		local, err := a.ReadLocalDefs(loc.Self)
		if err != nil {
			t.Fatal(err)
		}
		n, err := readEvents(f.Name(), sizeLiar{f, size}, int(a.Anchor.ChunkSizeEvents), local, func(*Event) error { return nil })
		f.Close()
		if err != nil || n != want {
			t.Errorf("Stat size %d: %d events, %v; want %d", size, n, err, want)
		}
	}
}
