package kernel

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tracebook/tracebook/kernel/wire"
)

// publish sends an IOPub message for the request being executed.
func (k *Kernel) publish(msgType string, content any) {
	k.publishTo(k.currentParent(), msgType, content)
}

func (k *Kernel) publishTo(parent *wire.Message, msgType string, content any) {
	m, err := wire.NewMessage(msgType, k.session, parent, content)
	if err != nil {
		k.Logf("tracebook: %s: %v", msgType, err)
		return
	}
	m.Identities = [][]byte{[]byte("kernel." + msgType)}
	k.pub.send(m)
}

// publisher serialises IOPub output: one goroutine sends, nothing is
// dropped, and stream text is batched.
type publisher struct {
	t       Transport
	session string

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*wire.Message
	sending bool
	// pending stream text
	sParent *wire.Message
	sName   string
	sBuf    []byte
	timer   *time.Timer
	stalled bool // every subscriber was behind for paceWait: stop waiting for them
}

// Pacing of IOPub on the transport's backlog: wait while the least busy
// subscriber has more than paceHigh messages queued. The transport leaves
// out subscribers that stopped reading, so this waits only for clients that
// are slow, not stopped; paceWait bounds the wait for one message all the
// same, after which every subscriber counts as stalled until one catches up.
const paceHigh = 256

var paceWait = 10 * time.Second

func (p *publisher) pace() {
	b, ok := p.t.(Backlogger)
	if !ok {
		return
	}
	n := b.Backlog(IOPub)
	if p.stalled {
		p.stalled = n > paceHigh/2
		return
	}
	for deadline := time.Now().Add(paceWait); n > paceHigh; n = b.Backlog(IOPub) {
		if time.Now().After(deadline) {
			p.stalled = true
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// incompleteUTF8Tail is the length of a UTF-8 sequence cut off at the end
// of b (0 when b ends on a character boundary or in invalid bytes).
func incompleteUTF8Tail(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

const (
	// maxQueued bounds the IOPub messages waiting for the socket; stream
	// output beyond it blocks the writer until the socket catches up.
	maxQueued     = 64
	streamBatch   = 64 << 10
	streamLatency = 50 * time.Millisecond
)

func newPublisher(t Transport, session string) *publisher {
	p := &publisher{t: t, session: session}
	p.cond = sync.NewCond(&p.mu)
	go p.loop()
	return p
}

func (p *publisher) loop() {
	for {
		p.mu.Lock()
		for len(p.queue) == 0 {
			p.cond.Wait()
		}
		m := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.sending = true
		p.mu.Unlock()
		_ = p.t.Send(IOPub, m)
		p.pace()
		p.mu.Lock()
		p.sending = false
		p.cond.Broadcast()
		p.mu.Unlock()
	}
}

func (p *publisher) enqueueLocked(m *wire.Message) {
	p.queue = append(p.queue, m)
	p.cond.Broadcast()
}

// flushStreamLocked turns pending stream text into a message.
func (p *publisher) flushStreamLocked() { p.flushStreamPart(len(p.sBuf)) }

// flushStreamPart sends the first n bytes of the pending stream text and
// keeps the rest pending.
func (p *publisher) flushStreamPart(n int) {
	if n == 0 {
		return
	}
	text := strings.ToValidUTF8(string(p.sBuf[:n]), "\uFFFD")
	m, err := wire.NewMessage("stream", p.session, p.sParent, map[string]any{"name": p.sName, "text": text})
	p.sBuf = p.sBuf[:copy(p.sBuf, p.sBuf[n:])]
	if err == nil {
		m.Identities = [][]byte{[]byte("kernel.stream." + p.sName)}
		p.enqueueLocked(m)
	}
}

func (p *publisher) stream(parent *wire.Message, name string, b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.sBuf) > 0 && (p.sName != name || p.sParent != parent) {
		p.flushStreamLocked()
	}
	p.sParent, p.sName = parent, name
	p.sBuf = append(p.sBuf, b...)
	if len(p.sBuf) >= streamBatch {
		// keep whole UTF-8 sequences together: a character cut by the
		// write boundary waits for the rest of its bytes
		p.flushStreamPart(len(p.sBuf) - incompleteUTF8Tail(p.sBuf))
		// flow control: the writer (the cell's stdout pipe) waits while
		// the socket is behind, so output is neither lost nor piled up
		for len(p.queue) >= maxQueued {
			p.cond.Wait()
		}
		if len(p.sBuf) == 0 {
			return
		}
	}
	if p.timer == nil {
		p.timer = time.AfterFunc(streamLatency, func() {
			p.mu.Lock()
			p.timer = nil
			p.flushStreamLocked()
			p.mu.Unlock()
		})
	}
}

func (p *publisher) send(m *wire.Message) {
	p.mu.Lock()
	p.flushStreamLocked()
	p.enqueueLocked(m)
	p.mu.Unlock()
}

// flush sends pending stream text and waits until the queue is empty.
func (p *publisher) flush() {
	p.mu.Lock()
	p.flushStreamLocked()
	for len(p.queue) > 0 || p.sending {
		p.cond.Wait()
	}
	p.mu.Unlock()
}
