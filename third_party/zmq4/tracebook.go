// Copyright 2026 The tracebook Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zmq4

// Additions of the tracebook copy (see PATCHES.md): limits on what a peer can
// make this process allocate, and recovery in the goroutines that read peers.

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxMessageSize is the largest message (the sum of its frames, each
// counted with frameOverhead bytes more) a connection accepts unless the
// socket says otherwise (WithMaxMessageSize). A peer announcing more has its
// connection closed; nothing is allocated for it.
const DefaultMaxMessageSize int64 = 256 << 20

// handshakeMaxMessageSize bounds what a peer may send before its handshake is
// complete (the READY command and its metadata are a few hundred bytes).
const handshakeMaxMessageSize int64 = 64 << 10

// frameOverhead is what one received frame costs beyond its bytes (a slice
// header and allocation rounding), so a message of many empty frames is
// bounded too.
const frameOverhead = 32

// readChunk is how much of a frame is allocated ahead of the bytes received:
// a frame announcing a large size grows as its bytes arrive.
const readChunk = 1 << 20

// HandshakeTimeout is how long an accepted connection has to complete its
// ZMTP greeting and handshake.
var HandshakeTimeout = 10 * time.Second

// CloseDrainTimeout bounds how long closing a socket waits for the messages
// queued for its peers to be written.
var CloseDrainTimeout = 2 * time.Second

// maxHandshakes bounds the handshakes under way on one listening socket;
// connections beyond it are closed at once.
const maxHandshakes = 256

// ErrMessageTooLarge is the error of a peer's message over the size limit.
var ErrMessageTooLarge = errors.New("zmq4: message larger than the connection's limit")

// WithMaxMessageSize sets the largest message a connection of the socket
// accepts (bytes, frames included; <= 0: DefaultMaxMessageSize).
func WithMaxMessageSize(n int64) Option {
	return func(s *socket) {
		s.maxMsgSize = n
	}
}

// readBody reads a frame of size bytes, allocating as the bytes arrive (at
// most readChunk ahead of them), so a peer that announces a size and sends
// less costs what it sent.
func readBody(r io.Reader, size uint64) ([]byte, error) {
	if size <= readChunk {
		body := make([]byte, size)
		_, err := io.ReadFull(r, body)
		return body, err
	}
	body := make([]byte, 0, readChunk)
	for uint64(len(body)) < size {
		n := min(size-uint64(len(body)), readChunk)
		if uint64(cap(body)-len(body)) < n {
			grown := make([]byte, len(body), min(size, 2*uint64(cap(body))))
			copy(grown, body)
			body = grown
		}
		m, err := io.ReadFull(r, body[len(body):len(body)+int(n)])
		body = body[:len(body)+m]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return body, err
		}
	}
	return body, nil
}

// recoverConn ends a goroutine serving c after a panic: the connection is
// closed and the process goes on. The log says so at most once a second (a
// peer could repeat the panic), with the count of those not logged.
func recoverConn(c *Conn, where string) {
	if r := recover(); r != nil {
		if c != nil {
			c.Close()
			c.SetClosed()
		}
		now := time.Now().UnixNano()
		last := recoverLast.Load()
		if now-last < int64(time.Second) || !recoverLast.CompareAndSwap(last, now) {
			recoverHeld.Add(1)
			return
		}
		held := recoverHeld.Swap(0)
		logger := log.New(os.Stderr, "zmq4: ", 0)
		logger.Printf("%s: recovered from %v; connection closed (%d more not logged)", where, r, held)
	}
}

var recoverLast, recoverHeld atomic.Int64

func errTooLarge(size, limit int64) error {
	return fmt.Errorf("%w (%d bytes announced, limit %d)", ErrMessageTooLarge, size, limit)
}

// DefaultSendHWM is how many messages may wait to be written to one peer of
// a PUB or ROUTER socket; DefaultSendQueueBytes bounds their bytes. Past
// either, messages for that peer are dropped (as libzmq does at its
// high-water mark) and the other peers are served as before.
const (
	DefaultSendHWM        = 1000
	DefaultSendQueueBytes = 128 << 20
)

// sendQueue is a connection's bounded queue of outgoing messages and the
// goroutine that writes them (tracebook patch: upstream wrote to each peer
// in turn with blocking writes, so one peer that stopped reading stalled
// every other).
type sendQueue struct {
	once      sync.Once
	ch        chan Msg
	queued    atomic.Int64 // messages queued or being written
	bytes     atomic.Int64
	progress  atomic.Int64 // unix ns of the last message written, or of a burst's start
	dropped   atomic.Int64
	done      chan struct{}
	doneOnce  sync.Once // makes done
	closeOnce sync.Once // closes done
}

func msgSize(msg Msg) int64 {
	n := int64(0)
	for _, f := range msg.Frames {
		n += int64(len(f)) + frameOverhead
	}
	return n
}

// enqueue queues msg for c without blocking; it reports false if the
// message was dropped because c's queue is full or c is closed.
func (c *Conn) enqueue(msg Msg) bool {
	q := &c.out
	q.once.Do(func() {
		q.ch = make(chan Msg, DefaultSendHWM)
		go c.writeLoop()
	})
	if c.Closed() {
		q.dropped.Add(1)
		return false
	}
	size := msgSize(msg)
	waiting := q.queued.Load()
	if waiting > 0 && q.bytes.Load()+size > DefaultSendQueueBytes {
		q.dropped.Add(1)
		return false
	}
	if waiting == 0 {
		q.progress.Store(time.Now().UnixNano()) // the wait starts now
	}
	q.queued.Add(1)
	select {
	case q.ch <- msg:
		q.bytes.Add(size)
		return true
	default:
		q.queued.Add(-1)
		q.dropped.Add(1)
		return false
	}
}

// closeDone returns the channel closed when c closes.
func (c *Conn) closeDone() chan struct{} {
	c.out.doneOnce.Do(func() { c.out.done = make(chan struct{}) })
	return c.out.done
}

func (c *Conn) writeLoop() {
	defer recoverConn(c, "writer")
	done := c.closeDone()
	for {
		select {
		case <-done:
			return
		case msg := <-c.out.ch:
			err := c.SendMsg(msg)
			c.out.bytes.Add(-msgSize(msg))
			c.out.progress.Store(time.Now().UnixNano())
			c.out.queued.Add(-1)
			if err != nil {
				c.Close()
				c.SetClosed()
				return
			}
		}
	}
}

// Dropped returns how many messages for this peer were dropped because its
// send queue was full.
func (c *Conn) Dropped() int64 { return c.out.dropped.Load() }

// drain waits until c's queued messages are written, c closes or the
// deadline passes.
func (c *Conn) drain(deadline time.Time) {
	for c.out.queued.Load() > 0 && !c.Closed() && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
}

// StallAfter is how long a subscriber with messages waiting may write none
// before Backlog counts it as stalled.
var StallAfter = time.Second

// Backlog returns the fewest messages waiting in the send queue of any
// subscriber that is not stalled (0 without one): a publisher that wants its
// healthy subscribers, fast or slow, to lose nothing paces itself on it,
// while a subscriber that stopped reading (no message written for
// StallAfter) holds nobody back and loses its messages once its queue is
// full.
func (pub *pubSocket) Backlog() int {
	pub.sck.mu.RLock()
	defer pub.sck.mu.RUnlock()
	now := time.Now().UnixNano()
	least := -1
	for _, c := range pub.sck.conns {
		if c.Closed() {
			continue
		}
		n := int(c.out.queued.Load())
		if n > 0 && now-c.out.progress.Load() > int64(StallAfter) {
			continue // stalled
		}
		if least < 0 || n < least {
			least = n
		}
	}
	return max(least, 0)
}
