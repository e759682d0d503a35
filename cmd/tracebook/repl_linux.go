//go:build linux

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// noSignals makes the terminal's interrupt and suspend keys plain input
// (termios ISIG off).
func noSignals() {
	fd := int(os.Stdin.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return
	}
	t.Lflag &^= unix.ISIG
	unix.IoctlSetTermios(fd, unix.TCSETS, t)
}

// ttyPath is a path that opens the terminal of the standard input anew
// (a file description of its own).
const ttyPath = "/proc/self/fd/0"
