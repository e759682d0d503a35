package otf2

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// toBigEndian writes a big-endian copy of the little-endian archive at
// anchor into dir: the reader, with flipRecorder set, reports where every
// multi-byte value and byte-order mark of every file lies; the copy has
// those values reversed and the marks set to big endian. Records the reader
// skips by length are copied as they are, so the source archive must have
// none the reader does not decode.
func toBigEndian(t *testing.T, anchor, dir string) string {
	t.Helper()
	flipRecorder = map[string][][2]int64{}
	defer func() { flipRecorder = nil }()
	a, err := Open(anchor)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range a.Defs.Locations {
		if _, err := a.ReadLocalDefs(l.Self); err != nil {
			t.Fatal(err)
		}
		if _, err := a.ReadLocation(l.Self, func(*Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Dir(anchor)
	err = filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		seen := map[[2]int64]bool{} // a file read twice reports its spans twice
		for _, sp := range flipRecorder[path] {
			if seen[sp] {
				continue
			}
			seen[sp] = true
			off, n := sp[0], sp[1]
			if n == 0 {
				if data[off] != endianLittle {
					t.Fatalf("%s: byte-order mark %#x at %d, want little endian", path, data[off], off)
				}
				data[off] = endianBig
				continue
			}
			b := data[off : off+n]
			for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
				b[i], b[j] = b[j], b[i]
			}
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.Base(anchor))
}

// TestBigEndianArchive reads a big-endian archive: a reference-written
// trace transcoded to big endian must give the reference writer's events,
// and otf2-print (the reference reader) must print the same as for the
// little-endian original, which shows the transcoded archive is valid OTF2.
func TestBigEndianArchive(t *testing.T) {
	for _, args := range [][]string{
		{"spmd", "--procs", "3", "--threads", "2", "--iters", "5", "--seed", "21", "--resolution", "1000"},
		{"random", "--procs", "2", "--events", "3000", "--seed", "22", "--resolution", "2500000000"},
	} {
		le, expect := tooltest.Generate(t, t.TempDir(), args...)
		be := toBigEndian(t, le, t.TempDir())
		for _, f := range []string{be, be[:len(be)-len(".otf2")] + ".def", filepath.Join(be[:len(be)-len(".otf2")], "0.evt")} {
			data, err := os.ReadFile(f)
			if err != nil || len(data) < 2 || data[1] != endianBig {
				t.Fatalf("%s: not a big-endian file (%v)", f, err)
			}
			orig, _ := os.ReadFile(filepath.Join(filepath.Dir(le), f[len(filepath.Dir(be)):]))
			if reflect.DeepEqual(orig[2:], data[2:]) {
				t.Fatalf("%s: no value changed byte order", f)
			}
		}
		compareExpected(t, be, expect)
		p, q := runPrint(t, le), runPrint(t, be)
		if len(p) == 0 {
			t.Fatal("otf2-print printed no events")
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("%v: otf2-print disagrees between the little- and big-endian archives", args)
		}
	}
}

// oldAnchor rewrites a format-3 anchor file (the current one) as format 2
// (no snapshot and thumbnail counts) or format 1 (no properties and trace
// id either), as older OTF2 versions wrote them.
func oldAnchor(t *testing.T, data []byte, format int) []byte {
	t.Helper()
	const formatAt = 7 // header (2) + "OTF2\x00"
	if data[formatAt] != 3 {
		t.Fatalf("anchor format %d, want 3", data[formatAt])
	}
	out := append([]byte(nil), data...)
	out[formatAt] = byte(format)
	// the end-of-file marker; the writer pads the buffer after it
	end := len(out) - 1
	for end > 0 && out[end] != markEndOfFile {
		end--
	}
	tail := append([]byte(nil), out[end:]...)
	switch format {
	case 2:
		return append(out[:end-8], tail...)
	case 1:
		pos := 46 // after the fixed fields: machine, creator, description follow
		for i := 0; i < 3; i++ {
			for out[pos] != 0 {
				pos++
			}
			pos++
		}
		return append(out[:pos], tail...)
	}
	t.Fatalf("format %d", format)
	return nil
}

// TestOldAnchorFormats reads archives whose anchor file has the formats of
// older OTF2 versions; otf2-print reads them too and prints the same events.
func TestOldAnchorFormats(t *testing.T) {
	le, expect := tooltest.Generate(t, t.TempDir(), "spmd", "--procs", "2", "--iters", "3", "--seed", "31")
	data, err := os.ReadFile(le)
	if err != nil {
		t.Fatal(err)
	}
	want := runPrint(t, le)
	for _, format := range []int{2, 1} {
		if err := os.WriteFile(le, oldAnchor(t, data, format), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := Open(le)
		if err != nil {
			t.Fatalf("format %d: %v", format, err)
		}
		if int(a.Anchor.Format) != format || a.Anchor.NumLocations != 2 || a.Anchor.ChunkSizeEvents == 0 {
			t.Fatalf("format %d: anchor read as %+v", format, a.Anchor)
		}
		if format == 2 && a.Anchor.TraceID == 0 {
			t.Fatal("format 2: trace id lost")
		}
		compareExpected(t, le, expect)
		if got := runPrint(t, le); !reflect.DeepEqual(got, want) {
			t.Fatalf("format %d: otf2-print prints other events", format)
		}
	}
}
