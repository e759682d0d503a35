package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

// pipeStream gives the interpreter a real *os.File for os.Stdout or
// os.Stderr (so interpreted code may call any *os.File method on them) and
// forwards what is written to an io.Writer. Sync waits until everything
// written before it has been forwarded, so a cell's output is complete
// before its reply is sent.
type pipeStream struct {
	w      *os.File
	r      *os.File
	out    io.Writer
	filter func(line []byte) bool // true: swallow the line (yaegi panic frames)
	marker []byte

	mu      sync.Mutex
	pending []byte // partial line held for the filter, or data before a possible marker
	synced  chan struct{}
}

func newPipeStream(out io.Writer, filter func([]byte) bool) (*pipeStream, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	var m [16]byte
	_, _ = rand.Read(m[:])
	p := &pipeStream{w: w, r: r, out: out, filter: filter,
		marker: []byte("\x00tbsync" + hex.EncodeToString(m[:]) + "\x00"), synced: make(chan struct{}, 1)}
	go p.loop()
	return p, nil
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
	select {
	case <-p.synced:
	default:
	}
	if _, err := p.w.Write(p.marker); err != nil {
		return
	}
	<-p.synced
}
