// Package regular opens files that readers may read to the end: regular
// files only. A named pipe or a device put where a trace or table file is
// expected would block open(2) or read(2) forever, in a thread no
// interrupt reaches (each interrupted load leaked one), so it is refused.
package regular

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Open opens the file at path for reading if it is a regular file. The
// open does not block (O_NONBLOCK), so a pipe put in the file's place after
// the first check is refused by the second.
func Open(path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(st.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = notRegular(st.Mode())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the whole regular file at path (see Open).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// notRegular is the error of a file that is not a regular file.
func notRegular(m fs.FileMode) error {
	kind := "a " + m.Type().String()
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m.IsDir():
		kind = "a directory"
	}
	return fmt.Errorf("not a regular file but %s: refusing to read it", kind)
}
