package otf2

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens the file at path for reading if it is a regular file.
// A named pipe (or a device) in an archive would block open(2) or read(2)
// forever, in a thread no interrupt reaches, so it is refused; the open
// does not block (O_NONBLOCK), so a pipe put in the file's place after the
// check is refused too.
func openRegular(path string) (*os.File, error) {
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

// readRegular reads the whole file at path, a regular file (see openRegular).
func readRegular(path string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
