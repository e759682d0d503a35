// Copyright 2026 The tracebook Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package zmq4

// Tests of the tracebook patches (PATCHES.md). Each fails, or crashes the
// test binary, on upstream v0.17.0.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// rawPeer is a hand-written ZMTP 3.0 peer: it says exactly the bytes a test
// wants, as a hostile or stalled client would.
type rawPeer struct {
	t *testing.T
	c net.Conn
}

func dialRaw(t *testing.T, ep string) *rawPeer {
	t.Helper()
	_, addr, err := splitAddr(ep)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawPeer{t: t, c: c}
}

func (p *rawPeer) write(b []byte) {
	p.t.Helper()
	_ = p.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := p.c.Write(b); err != nil {
		p.t.Fatalf("raw peer write: %v", err)
	}
}

func greetingBytes() []byte {
	g := make([]byte, 64)
	g[0], g[9], g[10], g[11] = 0xff, 0x7f, 3, 0
	copy(g[12:], "NULL")
	return g
}

func frame(flags byte, body []byte) []byte {
	if len(body) > 255 {
		h := make([]byte, 9)
		h[0] = flags | isLongBitFlag
		binary.BigEndian.PutUint64(h[1:], uint64(len(body)))
		return append(h, body...)
	}
	return append([]byte{flags, byte(len(body))}, body...)
}

func readyCmd(sockType string) []byte {
	body := append([]byte{5}, "READY"...)
	body = append(body, byte(len("Socket-Type")))
	body = append(body, "Socket-Type"...)
	body = binary.BigEndian.AppendUint32(body, uint32(len(sockType)))
	body = append(body, sockType...)
	return frame(isCommandBitFlag, body)
}

// handshake sends the greeting and READY and reads the socket's until
// its READY arrives.
func (p *rawPeer) handshake(sockType string) {
	p.t.Helper()
	p.write(greetingBytes())
	p.write(readyCmd(sockType))
	_ = p.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var g [64]byte
	if _, err := io.ReadFull(p.c, g[:]); err != nil {
		p.t.Fatalf("raw peer: greeting: %v", err)
	}
	var h [2]byte
	if _, err := io.ReadFull(p.c, h[:]); err != nil {
		p.t.Fatalf("raw peer: READY: %v", err)
	}
	if _, err := io.ReadFull(p.c, make([]byte, h[1])); err != nil {
		p.t.Fatalf("raw peer: READY body: %v", err)
	}
	_ = p.c.SetReadDeadline(time.Time{})
}

// closedByPeer reports whether the socket closed the raw connection within
// a few seconds (what it should do to a peer that breaks the rules).
func (p *rawPeer) closedByPeer() bool {
	_ = p.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	for {
		_, err := p.c.Read(buf)
		if err == nil {
			continue
		}
		var ne net.Error
		return !(errors.As(err, &ne) && ne.Timeout())
	}
}

// roundTrip checks that a well-behaved DEALER still gets an echo from the
// ROUTER served by echo.
func roundTrip(t *testing.T, ep string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d := NewDealer(ctx, WithID(SocketIdentity(fmt.Sprintf("ok-%d", time.Now().UnixNano()))))
	defer d.Close()
	if err := d.Dial(ep); err != nil {
		t.Fatalf("dial: %v", err)
	}
	if err := d.Send(NewMsgString("ping")); err != nil {
		t.Fatalf("send: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		m, err := d.Recv()
		if err == nil && string(m.Frames[0]) != "ping" {
			err = fmt.Errorf("echo %q", m.Frames[0])
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("round trip: no echo from the ROUTER within 10 s")
	}
}

func echoRouter(t *testing.T) (string, Socket) {
	t.Helper()
	ep, err := EndPoint("tcp")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRouter(context.Background(), WithID(SocketIdentity("router")))
	if err := r.Listen(ep); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() {
		for {
			m, err := r.Recv()
			if err != nil {
				return
			}
			_ = r.Send(m)
		}
	}()
	return ep, r
}

// A frame header announcing 2^62 bytes made upstream call make([]byte, 2^62)
// in the reader goroutine: "makeslice: len out of range", the process died.
func TestTracebookFrameTooLarge(t *testing.T) {
	ep, _ := echoRouter(t)
	for _, tc := range []struct {
		name        string
		afterHello  bool
		size        uint64
		description string
	}{
		{"2^62 after handshake", true, 1 << 62, ""},
		{"over the limit after handshake", true, uint64(DefaultMaxMessageSize) + 1, ""},
		{"2^40 during handshake", false, 1 << 40, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := dialRaw(t, ep)
			if tc.afterHello {
				p.handshake("DEALER")
			} else {
				p.write(greetingBytes())
			}
			h := make([]byte, 9)
			h[0] = isLongBitFlag
			if !tc.afterHello {
				h[0] |= isCommandBitFlag
			}
			binary.BigEndian.PutUint64(h[1:], tc.size)
			p.write(h)
			p.write(make([]byte, 1000))
			if !p.closedByPeer() {
				t.Error("the socket kept a connection that announced an over-size frame")
			}
			roundTrip(t, ep)
		})
	}
}

// Many empty frames count against the limit too (each costs a slice header).
func TestTracebookManyEmptyFrames(t *testing.T) {
	ep, err := EndPoint("tcp")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRouter(context.Background(), WithMaxMessageSize(64<<10))
	defer r.Close()
	if err := r.Listen(ep); err != nil {
		t.Fatal(err)
	}
	p := dialRaw(t, ep)
	p.handshake("DEALER")
	var b bytes.Buffer
	for i := 0; i < 10000; i++ {
		b.Write([]byte{hasMoreBitFlag, 0})
	}
	_ = p.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = p.c.Write(b.Bytes()) // may fail once the socket closes the connection
	if !p.closedByPeer() {
		t.Error("10,000 empty frames (> 64 KiB with their overhead) did not close the connection")
	}
}

// A READY command whose property is cut short made upstream index past the
// end of the body (protocol.go Property.Write) in the accept loop: a panic.
func TestTracebookShortReady(t *testing.T) {
	ep, _ := echoRouter(t)
	for _, body := range [][]byte{
		append([]byte{5}, "READY\x0bSocket-Typ"...),
		append([]byte{5}, "READY\x03abc\x00\x00"...),
		append([]byte{5}, "READY\x05abcde"...),
		readyCmd("NOT-A-TYPE")[2:],
	} {
		p := dialRaw(t, ep)
		p.write(greetingBytes())
		p.write(frame(isCommandBitFlag, body))
		if !p.closedByPeer() {
			t.Errorf("READY %q: connection not closed", body)
		}
	}
	roundTrip(t, ep)
}

// Upstream ran every handshake inside the accept loop without a deadline:
// one peer that connected and said nothing locked out every later one.
func TestTracebookIdlePeerDoesNotBlockOthers(t *testing.T) {
	ep, _ := echoRouter(t)
	for i := 0; i < 3; i++ {
		dialRaw(t, ep) // connects, never speaks
	}
	half := dialRaw(t, ep)
	half.write(greetingBytes()[:20]) // half a greeting
	roundTrip(t, ep)
}

// An idle peer is dropped once HandshakeTimeout passes.
func TestTracebookHandshakeTimeout(t *testing.T) {
	old := HandshakeTimeout
	HandshakeTimeout = 200 * time.Millisecond
	defer func() { HandshakeTimeout = old }()
	ep, _ := echoRouter(t)
	p := dialRaw(t, ep)
	if !p.closedByPeer() {
		t.Error("a peer that never completed its handshake was kept past the timeout")
	}
}

type failingListener struct {
	net.Listener
	calls atomic.Int64
}

func (l *failingListener) Accept() (net.Conn, error) {
	l.calls.Add(1)
	return nil, errors.New("accept: too many open files")
}

// Upstream retried a failing Accept at once, forever: 100% CPU when the
// process ran out of file descriptors.
func TestTracebookAcceptBackoff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fl := &failingListener{Listener: ln}
	sck := newSocket(context.Background(), Router)
	sck.listener = fl
	go sck.accept()
	time.Sleep(500 * time.Millisecond)
	sck.cancel()
	// with the backoff (5 ms doubling to 1 s) about 7 calls fit in 500 ms;
	// without it, millions
	if n := fl.calls.Load(); n > 100 {
		t.Errorf("Accept called %d times in 500 ms after failing: no backoff", n)
	}
}

// Upstream wrote to PUB subscribers one after another with blocking
// writes: one subscriber that stopped reading froze every other.
func TestTracebookStalledSubscriber(t *testing.T) {
	ep, err := EndPoint("tcp")
	if err != nil {
		t.Fatal(err)
	}
	pub := NewPub(context.Background())
	defer pub.Close()
	if err := pub.Listen(ep); err != nil {
		t.Fatal(err)
	}
	stalled := dialRaw(t, ep)
	stalled.handshake("SUB")
	stalled.write(frame(0, []byte{1})) // subscribe to everything, then never read
	if c, ok := stalled.c.(*net.TCPConn); ok {
		_ = c.SetReadBuffer(4096)
	}

	sub := NewSub(context.Background())
	defer sub.Close()
	if err := sub.SetOption(OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	if err := sub.Dial(ep); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 16)
	go func() {
		for {
			m, err := sub.Recv()
			if err != nil {
				return
			}
			if s := string(m.Frames[0]); s == "end" || s == "hello" {
				got <- s
			}
		}
	}()
	// wait until both subscriptions are registered
	waitFor(t, "two subscribers", func() bool {
		_ = pub.Send(NewMsgString("hello"))
		select {
		case <-got:
			return numConns(pub) == 2
		case <-time.After(50 * time.Millisecond):
			return false
		}
	})

	payload := bytes.Repeat([]byte("x"), 64<<10)
	for i := 0; i < 3000; i++ { // 192 MB: far past the stalled peer's socket buffers
		if err := pub.Send(NewMsg(payload)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the healthy subscriber's message", func() bool {
		_ = pub.Send(NewMsgString("end"))
		select {
		case s := <-got:
			return s == "end"
		case <-time.After(50 * time.Millisecond):
			return false
		}
	})
	var dropped int64
	pub.(*pubSocket).sck.mu.RLock()
	for _, c := range pub.(*pubSocket).sck.conns {
		dropped += c.Dropped()
	}
	pub.(*pubSocket).sck.mu.RUnlock()
	if dropped == 0 {
		t.Error("no message was dropped for the stalled subscriber: the test did not stall it")
	}
}

// The same for ROUTER: replies to a peer that stopped reading must not stall
// replies to the others.
func TestTracebookStalledRouterPeer(t *testing.T) {
	ep, r := echoRouter(t)
	stalled := dialRaw(t, ep)
	stalled.handshake("DEALER")
	if c, ok := stalled.c.(*net.TCPConn); ok {
		_ = c.SetReadBuffer(4096)
	}
	// ask for 3000 echoes of 64 KiB, never read them
	payload := bytes.Repeat([]byte("y"), 64<<10)
	go func() {
		for i := 0; i < 3000; i++ {
			_ = stalled.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := stalled.c.Write(frame(0, payload)); err != nil {
				return
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	roundTrip(t, ep)
	_ = r
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
	}
}

// Backlog follows the least busy subscriber that still reads, and ignores
// one that stopped.
func TestTracebookBacklog(t *testing.T) {
	old := StallAfter
	StallAfter = time.Hour
	defer func() { StallAfter = old }()
	ep, err := EndPoint("tcp")
	if err != nil {
		t.Fatal(err)
	}
	pub := NewPub(context.Background())
	defer pub.Close()
	if err := pub.Listen(ep); err != nil {
		t.Fatal(err)
	}
	stalled := dialRaw(t, ep)
	stalled.handshake("SUB")
	stalled.write(frame(0, []byte{1}))
	if c, ok := stalled.c.(*net.TCPConn); ok {
		_ = c.SetReadBuffer(4096)
	}
	waitFor(t, "the subscriber", func() bool {
		time.Sleep(10 * time.Millisecond)
		return numConns(pub) == 1
	})
	bl := pub.(*pubSocket)
	payload := bytes.Repeat([]byte("z"), 64<<10)
	for i := 0; i < 500; i++ {
		_ = pub.Send(NewMsg(payload))
	}
	waitFor(t, "a backlog for the subscriber that does not read", func() bool {
		time.Sleep(10 * time.Millisecond)
		return bl.Backlog() > 100
	})
	StallAfter = 200 * time.Millisecond
	waitFor(t, "the stalled subscriber to be ignored", func() bool {
		time.Sleep(20 * time.Millisecond)
		return bl.Backlog() == 0
	})
}

func numConns(s Socket) int {
	sck := s.(*pubSocket).sck
	sck.mu.RLock()
	defer sck.mu.RUnlock()
	return len(sck.conns)
}
