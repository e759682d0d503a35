//go:build linux

package main

import (
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// noSignals makes the terminal's interrupt and suspend keys plain input
// (termios ISIG off).
func noSignals() {
	t, err := unix.IoctlGetTermios(int(os.Stdin.Fd()), unix.TCGETS)
	if err != nil {
		return
	}
	t.Lflag &^= unix.ISIG
	unix.IoctlSetTermios(int(os.Stdin.Fd()), unix.TCSETS, t)
}

// ttyInput is what a cell reads as os.Stdin at the terminal: the terminal,
// only while the cell runs. A read waits in poll(2), with the read end of a
// pipe that end writes to, and reads the terminal only once a line is
// there, so that a read left waiting by an interrupted cell (or by one of
// its goroutines) gives up without taking a byte from the next prompt.
type ttyInput struct {
	fd   int
	wake [2]int // a pipe: end writes a byte to wake the reads waiting

	mu      sync.Mutex
	running bool // a cell runs: reads are allowed
	gen     int  // counts begin and end calls: a read started under another gives up
}

func newCellInput() (cellInput, error) { return newTTYInput(int(os.Stdin.Fd())) }

// newTTYInput reads the file descriptor fd.
func newTTYInput(fd int) (*ttyInput, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	return &ttyInput{fd: fd, wake: p}, nil
}

// begin allows reads: a cell starts.
func (in *ttyInput) begin() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.drain()
	in.running = true
	in.gen++
}

// end makes the reads waiting, and any later ones until the next begin,
// fail with errInputEnded.
func (in *ttyInput) end() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.running = false
	in.gen++
	unix.Write(in.wake[1], []byte{0})
}

// drain empties the wake pipe (in.mu held).
func (in *ttyInput) drain() {
	var b [64]byte
	for {
		if n, err := unix.Read(in.wake[0], b[:]); n <= 0 || err != nil {
			return
		}
	}
}

func (in *ttyInput) Read(p []byte) (int, error) {
	in.mu.Lock()
	g, running := in.gen, in.running
	in.mu.Unlock()
	if !running {
		return 0, errInputEnded
	}
	fds := []unix.PollFd{{Fd: int32(in.fd), Events: unix.POLLIN}, {Fd: int32(in.wake[0]), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
			return 0, err
		}
		if n, err, done := in.readNow(g, p); done {
			return n, err
		}
	}
}

// readNow reads the terminal if the read started under generation g may
// and a line (or the end of the input) is there, without waiting;
// done is false when there is nothing to read yet.
func (in *ttyInput) readNow(g int, p []byte) (n int, err error, done bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.gen != g || !in.running {
		return 0, errInputEnded, true
	}
	in.drain()
	// only the reads of the running cell read, under in.mu: what poll
	// finds now is still there for read
	fds := []unix.PollFd{{Fd: int32(in.fd), Events: unix.POLLIN}}
	if k, perr := unix.Poll(fds, 0); perr != nil || k == 0 {
		return 0, nil, false
	}
	n, err = unix.Read(in.fd, p)
	switch {
	case err == unix.EINTR:
		return 0, nil, false
	case err != nil:
		return 0, err, true
	case n == 0:
		return 0, io.EOF, true
	}
	return n, nil, true
}
