//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	"testing"
)

func TestReplTTYInput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	in, err := newTTYInput(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := in.Read(buf); !errors.Is(err, errInputEnded) {
		t.Fatalf("read before a cell: %v, want errInputEnded", err)
	}

	// a cell waits for a line and is interrupted: its read gives up
	in.begin()
	done := make(chan error)
	go func() {
		_, err := in.Read(buf)
		done <- err
	}()
	in.end()
	if err := <-done; !errors.Is(err, errInputEnded) {
		t.Fatalf("read of an ended cell: %v, want errInputEnded", err)
	}
	// a line typed at the prompt is not taken by a read of an ended cell
	if _, err := io.WriteString(w, "at the prompt\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Read(buf); !errors.Is(err, errInputEnded) {
		t.Fatalf("read after the cell: %v", err)
	}
	// the next cell reads it
	in.begin()
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "at the prompt\n" {
		t.Fatalf("next cell read %q, %v", buf[:n], err)
	}
	// a read waiting when end comes, with the input still open, gives up;
	// the end of the input is io.EOF
	go func() {
		_, err := in.Read(buf)
		done <- err
	}()
	in.end()
	if err := <-done; !errors.Is(err, errInputEnded) {
		t.Fatalf("second cell's read: %v", err)
	}
	w.Close()
	in.begin()
	if _, err := in.Read(buf); err != io.EOF {
		t.Fatalf("read at the end of the input: %v, want EOF", err)
	}
	in.end()
}
