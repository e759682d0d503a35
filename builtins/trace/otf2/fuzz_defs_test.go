package otf2

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// addTraceFiles adds the files at paths (under the sample traces) as seeds.
func addTraceFiles(f *testing.F, paths ...string) {
	for _, p := range paths {
		if b, err := os.ReadFile(filepath.Join(tooltest.Traces(), p)); err == nil {
			f.Add(b)
		}
	}
}

// wantError fails unless err is nil or an *Error naming file.
func wantError(t *testing.T, file string, err error) {
	t.Helper()
	var e *Error
	if err != nil && (!errors.As(err, &e) || e.File != file) {
		t.Fatalf("error %T %v, want an *Error naming %s", err, err, file)
	}
}

// FuzzReadAnchor feeds arbitrary bytes to the anchor file parser: an Anchor or an *Error
// naming the file, never a panic. The corpus is under testdata/fuzz.
func FuzzReadAnchor(f *testing.F) {
	addTraceFiles(f, "ping-pong-otf2/traces.otf2", "ping-pong-otf2-papi/traces.otf2")
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := readAnchor("fuzz.otf2", data)
		wantError(t, "fuzz.otf2", err)
		if err == nil && (a.ChunkSizeDefs < chunkSizeMin || a.ChunkSizeDefs > chunkSizeMax) {
			t.Fatalf("accepted definition chunk size %d", a.ChunkSizeDefs)
		}
	})
}

// FuzzReadGlobalDefs feeds arbitrary bytes to the global definitions parser, as one chunk
// and in chunks of 4 KiB: definitions or an *Error naming the file, never a panic.
func FuzzReadGlobalDefs(f *testing.F) {
	addTraceFiles(f, "ping-pong-otf2/traces.def", "ping-pong-otf2-papi/traces.def")
	if b, err := os.ReadFile(filepath.Join("testdata", "otf2-archives", "integrity-1.1.0", "TestTrace.def")); err == nil {
		f.Add(b) // OTF2 1.1.0 layouts
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, chunk := range []int{4096, len(data) + 1} {
			g, err := readGlobalDefs("fuzz.def", bytes.NewReader(data), chunk)
			wantError(t, "fuzz.def", err)
			if err == nil {
				for _, gr := range g.Groups {
					if len(gr.Members) > len(data) {
						t.Fatalf("group of %d members from %d bytes", len(gr.Members), len(data))
					}
				}
			}
		}
	})
}

// FuzzReadLocalDefs feeds arbitrary bytes to the local definitions parser (mapping tables,
// clock offsets) and reads an event file with what it returns: an *Error naming the file or
// definitions whose mappings answer any id, never a panic.
func FuzzReadLocalDefs(f *testing.F) {
	addTraceFiles(f, "ping-pong-otf2/traces/0.def", "ping-pong-otf2/traces/1.def", "ping-pong-otf2-papi/traces/1.def")
	var evt []byte
	if b, err := os.ReadFile(filepath.Join(tooltest.Traces(), "ping-pong-otf2/traces/0.evt")); err == nil {
		evt = b
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, chunk := range []int{4096, len(data) + 1} {
			l, err := readLocalDefs("fuzz.def", bytes.NewReader(data), chunk)
			wantError(t, "fuzz.def", err)
			if err != nil {
				continue
			}
			for _, m := range l.maps {
				for _, id := range []uint64{0, 1, 2, 1 << 32, ^uint64(0)} {
					m.get(id)
				}
			}
			if evt != nil {
				_, err := readEvents("0.evt", bytes.NewReader(evt), 1<<20, l, func(*Event) error { return nil })
				wantError(t, "0.evt", err)
			}
		}
	})
}
