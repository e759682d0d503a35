package link

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// pair connects a kernel side and a rank-0 side over loopback with the
// given keys and returns both ends' results.
func pair(t *testing.T, kernelKey, rankKey []byte) (k *Conn, kerr error, r *Conn, rerr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			kerr = err
			return
		}
		k, kerr = Accept(c, kernelKey, 5*time.Second)
		if kerr != nil {
			c.Close()
		}
	}()
	r, rerr = Dial(ln.Addr().String(), rankKey, 5*time.Second)
	<-done
	return
}

func TestHandshakeAndFrames(t *testing.T) {
	key := NewKey()
	k, kerr, r, rerr := pair(t, key, key)
	if kerr != nil || rerr != nil {
		t.Fatalf("handshake with the same key: kernel %v, rank %v", kerr, rerr)
	}
	defer k.Close()
	defer r.Close()
	for i, f := range []Frame{{Type: TRun, ID: 1, Payload: []byte("hello")}, {Type: TQuit}, {Type: TResult, ID: 1 << 40, Payload: bytes.Repeat([]byte{7}, 1<<20)}} {
		if err := k.Send(f); err != nil {
			t.Fatal(err)
		}
		g, err := r.Recv()
		if err != nil || g.Type != f.Type || g.ID != f.ID || !bytes.Equal(g.Payload, f.Payload) {
			t.Fatalf("frame %d: got %v (%v)", i, g.Type, err)
		}
	}
	if err := r.Send(Frame{Type: THello, Payload: Encode(Hello{Size: 3})}); err != nil {
		t.Fatal(err)
	}
	g, err := k.Recv()
	var h Hello
	if err != nil || Decode(g.Payload, &h) != nil || h.Size != 3 {
		t.Fatalf("rank to kernel: %v %+v", err, h)
	}
}

func TestWrongKeyRefused(t *testing.T) {
	_, kerr, r, rerr := pair(t, NewKey(), NewKey())
	if !errors.Is(kerr, ErrAuth) {
		t.Errorf("the kernel accepted a rank with another key: %v", kerr)
	}
	if rerr == nil {
		r.Close()
		t.Error("the rank took a kernel with another key for its own")
	}
}

// A frame altered on the way, or replayed, fails its HMAC.
func TestTamperedAndReplayedFrames(t *testing.T) {
	key := NewKey()
	a, b := net.Pipe()
	kb := &Conn{c: b, r: bufioReader(b), key: key}
	var wire bytes.Buffer
	rec := &Conn{c: recorder{&wire}, key: key}
	if err := rec.Send(Frame{Type: TRun, ID: 5, Payload: []byte("profile.comm")}); err != nil {
		t.Fatal(err)
	}
	frame := wire.Bytes()
	// altered: one payload byte flipped
	bad := bytes.Clone(frame)
	bad[20] ^= 1
	go a.Write(bad)
	if _, err := kb.Recv(); err == nil {
		t.Error("an altered frame was accepted")
	}
	// replayed: the same frame twice on a fresh connection
	a2, b2 := net.Pipe()
	kb2 := &Conn{c: b2, r: bufioReader(b2), key: key}
	go func() { a2.Write(frame); a2.Write(frame) }()
	if _, err := kb2.Recv(); err != nil {
		t.Fatalf("the first frame: %v", err)
	}
	if _, err := kb2.Recv(); err == nil {
		t.Error("a replayed frame was accepted")
	}
}

func TestKeyFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "key")
	k := NewKey()
	if err := WriteKeyFile(p, k); err != nil {
		t.Fatal(err)
	}
	got, err := ReadKeyFile(p)
	if err != nil || !bytes.Equal(got, k) {
		t.Fatalf("ReadKeyFile: %v", err)
	}
	if err := WriteKeyFile(p, []byte("short")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKeyFile(p); err == nil {
		t.Error("a 5-byte key was read")
	}
}

type recorder struct{ w *bytes.Buffer }

func (r recorder) Read([]byte) (int, error)         { return 0, errors.New("write only") }
func (r recorder) Write(p []byte) (int, error)      { return r.w.Write(p) }
func (r recorder) Close() error                     { return nil }
func (r recorder) LocalAddr() net.Addr              { return nil }
func (r recorder) RemoteAddr() net.Addr             { return nil }
func (r recorder) SetDeadline(time.Time) error      { return nil }
func (r recorder) SetReadDeadline(time.Time) error  { return nil }
func (r recorder) SetWriteDeadline(time.Time) error { return nil }

func bufioReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }
