package otf2

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// copyArchive copies the archive of anchor into dir and returns the new anchor.
func copyArchive(t *testing.T, anchor, dir string) string {
	t.Helper()
	src := strings.TrimSuffix(anchor, ".otf2")
	dst := filepath.Join(dir, "traces")
	os.MkdirAll(dst, 0o755)
	for _, f := range []string{".otf2", ".def"} {
		b, err := os.ReadFile(src + f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst+f, b, 0o644)
	}
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(src, e.Name()))
		os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
	}
	return dst + ".otf2"
}

func readAll(a *Archive) error {
	for _, l := range a.Defs.Locations {
		if _, err := a.ReadLocation(l.Self, func(*Event) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}

// checkErr requires a *Error naming file with an offset within [0, size].
func checkErr(t *testing.T, err error, file string, size int64, what string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T), want *otf2.Error", what, err, err)
	}
	if e.File != file {
		t.Fatalf("%s: error names %s, want %s (%v)", what, e.File, file, err)
	}
	if size >= 0 && (e.Offset < 0 || e.Offset > size) {
		t.Fatalf("%s: offset %d outside the file of %d bytes (%v)", what, e.Offset, size, err)
	}
	if !strings.Contains(err.Error(), file) {
		t.Fatalf("%s: message %q does not name the file", what, err)
	}
}

func TestTruncation(t *testing.T) {
	anchor, _ := tooltest.Generate(t, t.TempDir(), "random", "--procs", "1", "--events", "120000", "--seed", "31")
	a, err := Open(anchor)
	if err != nil {
		t.Fatal(err)
	}
	chunk := int(a.Anchor.ChunkSizeEvents)
	work := copyArchive(t, anchor, t.TempDir())
	wa, err := Open(work)
	if err != nil {
		t.Fatal(err)
	}
	evt := wa.LocationFile(0, "evt")
	full, _ := os.ReadFile(evt)
	if len(full) <= chunk {
		t.Fatalf("event file of %d bytes has one chunk; the test needs several", len(full))
	}
	// every chunk boundary, the bytes around it, and a sample of offsets
	var cuts []int
	for b := 0; b < len(full); b += chunk {
		for _, d := range []int{-1, 0, 1, 2, 17, 18, 19} {
			if c := b + d; c >= 0 && c < len(full) {
				cuts = append(cuts, c)
			}
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 60; i++ {
		cuts = append(cuts, rnd.IntN(len(full)))
	}
	cuts = append(cuts, len(full)-1)
	nfull, err := wa.ReadLocation(0, func(*Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cuts {
		os.WriteFile(evt, full[:c], 0o644)
		n, err := wa.ReadLocation(0, func(*Event) error { return nil })
		if c >= dataEnd(t, full) {
			if err != nil || n != nfull {
				t.Fatalf("cut of the final end-of-buffer byte: %d of %d events, %v", n, nfull, err)
			}
			continue
		}
		checkErr(t, err, evt, int64(c), "event file cut at "+itoa(c))
	}
	os.WriteFile(evt, full, 0o644)
	if err := readAll(wa); err != nil {
		t.Fatalf("restored file: %v", err)
	}
	// missing event file
	os.Remove(evt)
	_, err = wa.ReadLocation(0, func(*Event) error { return nil })
	checkErr(t, err, evt, -1, "missing event file")
	os.WriteFile(evt, full, 0o644)

	// global definitions and anchor, at every byte
	for _, f := range []string{strings.TrimSuffix(work, ".otf2") + ".def", work} {
		orig, _ := os.ReadFile(f)
		for c := 0; c < len(orig); c++ {
			os.WriteFile(f, orig[:c], 0o644)
			_, err := Open(work)
			if c >= dataEnd(t, orig) {
				if err != nil {
					t.Fatalf("%s without its final end-of-buffer byte: %v", f, err)
				}
				continue
			}
			checkErr(t, err, f, int64(c), filepath.Base(f)+" cut at "+itoa(c))
		}
		os.WriteFile(f, orig, 0o644)
	}
	// local definitions
	def := wa.LocationFile(0, "def")
	orig, _ := os.ReadFile(def)
	for c := 0; c < len(orig); c++ {
		os.WriteFile(def, orig[:c], 0o644)
		_, err := wa.ReadLocation(0, func(*Event) error { return nil })
		if c >= dataEnd(t, orig) {
			if err != nil {
				t.Fatalf("local defs without the final end-of-buffer byte: %v", err)
			}
			continue
		}
		checkErr(t, err, def, int64(c), "local defs cut at "+itoa(c))
	}
}

// dataEnd returns the length of b up to and including its end-of-file
// marker: the writer pads files after it with end-of-buffer/end-of-chunk
// bytes, and cutting only those loses no data.
func dataEnd(t *testing.T, b []byte) int {
	i := len(b) - 1
	for i >= 0 && (b[i] == markEndOfBuffer || b[i] == markEndOfChunk) {
		i--
	}
	if i < 0 || b[i] != markEndOfFile {
		t.Fatalf("file does not end with an end-of-file marker")
	}
	return i + 1
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestCorruptBytes flips bytes of a real event file: the reader must
// return an error or events, never panic.
func TestCorruptBytes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(tooltest.Traces(), "ping-pong-otf2-papi", "traces", "0.evt"))
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		b := append([]byte(nil), data...)
		for k := 0; k <= rnd.IntN(3); k++ {
			b[rnd.IntN(len(b))] = byte(rnd.IntN(256))
		}
		_, err := readEvents("x.evt", bytes.NewReader(b), 1<<20, &LocalDefs{}, func(*Event) error { return nil })
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v", err, err)
			}
		}
	}
}
