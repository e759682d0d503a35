//go:build unix

package trace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// readPipe returns the error of read, which reads the named pipe fifo (or
// should refuse to). A writer opens the pipe and closes it at once: opening
// a pipe's write end blocks until a reader opens it, so a read that opens
// the pipe gets end of file instead of hanging the test; readPipe then
// opens the read end itself, to release the writer if read never did.
func readPipe(t *testing.T, fifo string, read func() error) error {
	t.Helper()
	wrote := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			err = f.Close()
		}
		wrote <- err
	}()
	err := read()
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		defer r.Close()
	}
	if werr := <-wrote; werr != nil {
		t.Fatal(werr)
	}
	return err
}

// A named pipe where a trace file should be is refused with an error
// naming it: reading it would block in open(2) forever, in a thread that
// no interrupt reaches (one leaked per interrupted load).
// (readPipe keeps a loader that opens the pipe from hanging the test.)
func TestLoadRefusesNamedPipes(t *testing.T) {
	src := filepath.Join(tooltest.Traces(), "ping-pong-otf2")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no sample trace:", err)
	}
	for _, tc := range []struct{ name, fifo, load string }{
		{"anchor", "traces.otf2", "traces.otf2"},
		{"global definitions", "traces.def", "traces.otf2"},
		{"local definitions", "traces/1.def", "traces.otf2"},
		{"events", "traces/1.evt", ""}, // the directory
		{"csv table", "t.csv", "t.csv"},
		{"parquet table", "t.parquet", "t.parquet"},
		{"arrow table", "t.arrow", "t.arrow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, src)
			fifo := filepath.Join(dir, tc.fifo)
			os.Remove(fifo)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no named pipes here:", err)
			}
			err := readPipe(t, fifo, func() error { _, err := Load(filepath.Join(dir, tc.load)); return err })
			var te *Error
			if err == nil || !errors.As(err, &te) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Load with %s a named pipe: error %v, want a *trace.Error naming %s as not a regular file", tc.fifo, err, fifo)
			}
		})
	}
	// The table readers refuse a pipe by themselves too.
	fifo := filepath.Join(t.TempDir(), "t.parquet")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if err := readPipe(t, fifo, func() error { _, err := arrowio.Read(fifo); return err }); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("arrowio.Read of a named pipe: error %v", err)
	}
}
