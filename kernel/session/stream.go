package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"reflect"
	"sync"
	"syscall"

	"github.com/traefik/yaegi/interp"
)

// pipeStream gives the interpreter a real *os.File for os.Stdout or
// os.Stderr (so interpreted code may call any *os.File method on them) and
// forwards what is written to an io.Writer. Sync waits until everything
// written before it has been forwarded, so a cell's output is complete
// before its reply is sent.
//
// The pipe has two write ends. w is the session's own: fmt.Print, print
// and Sync write through it, and no cell can reach it. file, the
// interpreter's os.Stdout (or os.Stderr), is a duplicate of w: a cell may
// close it, which neither ends the pipe nor silences the cells after it,
// since reopen gives the interpreter a fresh duplicate.
type pipeStream struct {
	w      *os.File
	file   *os.File // the interpreter's variable (Use points os.Stdout at it)
	name   string   // file's name, "/dev/stdout" or "/dev/stderr"
	r      *os.File
	out    io.Writer
	filter func(line []byte) bool // true: swallow the line (yaegi panic frames)
	marker []byte

	mu      sync.Mutex
	pending []byte // partial line held for the filter, or data before a possible marker
	synced  chan struct{}
	syncMu  sync.Mutex // one Sync at a time: each waits for its own marker
}

func newPipeStream(name string, out io.Writer, filter func([]byte) bool) (*pipeStream, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var m [16]byte
	_, _ = rand.Read(m[:])
	p := &pipeStream{w: w, r: r, name: name, out: out, filter: filter,
		marker: []byte("\x00tbsync" + hex.EncodeToString(m[:]) + "\x00"), synced: make(chan struct{}, 1)}
	if p.file, err = p.dup(); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	go p.loop()
	return p, nil
}

// dup returns a new *os.File on the pipe's write end. (Not w.Fd, which
// would put w in blocking mode.)
func (p *pipeStream) dup() (*os.File, error) {
	rc, err := p.w.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) { fd, derr = syscall.Dup(int(s)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("%s: duplicating the output pipe: %w", p.name, derr)
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), p.name), nil
}

// reopen gives the interpreter a new file if a cell closed the one it had
// (os.Stdout.Close()); it reports whether it did. Call it between cells.
func (p *pipeStream) reopen() (bool, error) {
	if rc, err := p.file.SyscallConn(); err == nil && rc.Control(func(uintptr) {}) == nil {
		return false, nil // still open
	}
	f, err := p.dup()
	if err != nil {
		return false, err
	}
	p.file = f
	return true, nil
}

// useStdio points the interpreter's os.Stdout and os.Stderr at the
// pipes' closable duplicates (after every Use that sets them).
func (s *Session) useStdio() error {
	return s.in.Use(interp.Exports{"os/os": {
		"Stdout": reflect.ValueOf(&s.outPipe.file).Elem(),
		"Stderr": reflect.ValueOf(&s.errPipe.file).Elem(),
	}})
}

// reopenStdio gives cells a new os.Stdout or os.Stderr when a cell closed
// it, so that later output still reaches the notebook, and says so.
func (s *Session) reopenStdio() {
	for _, p := range []*pipeStream{s.outPipe, s.errPipe} {
		did, err := p.reopen()
		switch {
		case err != nil:
			fmt.Fprintf(s.io.Stderr, "tracebook: %s was closed and could not be reopened: %v\n", p.name, err)
		case did:
			fmt.Fprintf(s.io.Stderr, "tracebook: a cell closed %s; the next cells write to a new one\n", p.name)
		}
	}
}

func (p *pipeStream) loop() {
	buf := make([]byte, 64<<10)
	for {
		n, err := p.r.Read(buf)
		if n > 0 {
			p.consume(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (p *pipeStream) consume(b []byte) {
	p.mu.Lock()
	data := append(p.pending, b...)
	p.pending = nil
	for {
		i := bytes.Index(data, p.marker)
		if i < 0 {
			break
		}
		p.emit(data[:i], true)
		data = data[i+len(p.marker):]
		select {
		case p.synced <- struct{}{}:
		default:
		}
	}
	// keep a tail that could be the start of a marker
	keep := 0
	for k := len(p.marker) - 1; k > 0; k-- {
		if len(data) >= k && bytes.Equal(data[len(data)-k:], p.marker[:k]) {
			keep = k
			break
		}
	}
	body := data[:len(data)-keep]
	tail := append([]byte(nil), data[len(data)-keep:]...)
	p.emit(body, false)
	p.pending = append(p.pending, tail...)
	p.mu.Unlock()
}

// emit forwards data; with a filter, whole lines are checked and a partial
// last line that may be a panic frame is held until more arrives or flush.
func (p *pipeStream) emit(data []byte, flush bool) {
	if p.filter == nil {
		if len(data) > 0 {
			_, _ = p.out.Write(data)
		}
		return
	}
	var out []byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if !flush && len(data) < 256 && (data[0] >= '0' && data[0] <= '9' || data[0] == '_') {
				p.pending = append(p.pending, data...)
			} else {
				out = append(out, data...)
			}
			break
		}
		line := data[:i+1]
		if !p.filter(line) {
			out = append(out, line...)
		}
		data = data[i+1:]
	}
	if len(out) > 0 {
		_, _ = p.out.Write(out)
	}
}

// Sync waits until everything written so far has been forwarded.
func (p *pipeStream) Sync() {
	// Displays sync from any goroutine of a cell: two Syncs at once would
	// take each other's signal, and one of them would wait for ever.
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	select {
	case <-p.synced:
	default:
	}
	if _, err := p.w.Write(p.marker); err != nil { // w: never closed by a cell
		return
	}
	<-p.synced
}
