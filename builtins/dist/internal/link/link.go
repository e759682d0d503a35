// Package link is the authenticated connection between a notebook's kernel
// and rank 0 of a tracebook MPI job: frames of (type, request id, payload)
// over TCP, each carrying an HMAC-SHA256 over a per-direction sequence
// number, so that a peer without the job's key is refused at the handshake
// and a frame altered, replayed or reordered on the way is refused.
//
// Handshake (both sides prove the key, neither sends it): the kernel sends
// its greeting and a fresh 32-byte nonce; rank 0 answers with its own
// nonce and HMAC(key, "rank0" | nonce_k | nonce_r); the kernel checks it
// and answers HMAC(key, "kernel" | nonce_k | nonce_r). The frames' key is
// HMAC(key, "frames" | nonce_k | nonce_r): fresh for every connection.
package link

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

const greeting = "tracebook-dist/1\n"

// MaxFrame is the largest payload a frame carries (a partial of a method
// over a whole trace is far smaller; this bounds what a damaged length can
// make the receiver allocate).
const MaxFrame = 8 << 30

// NewKey returns a fresh random key of 32 bytes.
func NewKey() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(err)
	}
	return k
}

// WriteKeyFile writes key, hex encoded, to path readable by its owner only.
func WriteKeyFile(path string, key []byte) error {
	return os.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), 0o600)
}

// ReadKeyFile reads a key written by WriteKeyFile.
func ReadKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) < 16 {
		return nil, fmt.Errorf("%s: not a key written by tracebook (want at least 32 hex digits)", path)
	}
	return k, nil
}

// Frame is one message.
type Frame struct {
	Type    byte
	ID      uint64 // the request it belongs to
	Payload []byte
}

// Conn is an authenticated connection. Send may be called from several
// goroutines; Recv from one.
type Conn struct {
	c       net.Conn
	r       *bufio.Reader
	key     []byte
	wmu     sync.Mutex
	sendSeq uint64
	recvSeq uint64
	// Sent and Received count the bytes of frames (payload and header).
	Sent, Received int64
}

func mac(key []byte, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// ErrAuth is the error of a handshake whose peer does not hold the key.
var ErrAuth = errors.New("the peer does not hold the job's key")

// Accept runs the kernel's side of the handshake on c (the listener's
// side), with deadline for the handshake.
func Accept(c net.Conn, key []byte, deadline time.Duration) (*Conn, error) {
	_ = c.SetDeadline(time.Now().Add(deadline))
	defer c.SetDeadline(time.Time{})
	nk := NewKey()
	if _, err := c.Write(append([]byte(greeting), nk...)); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	buf := make([]byte, 32+32)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("handshake: %w", err)
	}
	nr, proof := buf[:32], buf[32:]
	if !hmac.Equal(proof, mac(key, []byte("rank0"), nk, nr)) {
		return nil, ErrAuth
	}
	if _, err := c.Write(mac(key, []byte("kernel"), nk, nr)); err != nil {
		return nil, err
	}
	return &Conn{c: c, r: r, key: mac(key, []byte("frames"), nk, nr)}, nil
}

// Dial connects to the kernel at addr and runs rank 0's side of the
// handshake.
func Dial(addr string, key []byte, timeout time.Duration) (*Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	r := bufio.NewReader(c)
	buf := make([]byte, len(greeting)+32)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf[:len(greeting)]) != greeting {
		c.Close()
		return nil, fmt.Errorf("%s is not a tracebook kernel's listener (%v)", addr, err)
	}
	nk := buf[len(greeting):]
	nr := NewKey()
	if _, err := c.Write(append(nr, mac(key, []byte("rank0"), nk, nr)...)); err != nil {
		c.Close()
		return nil, err
	}
	proof := make([]byte, 32)
	if _, err := io.ReadFull(r, proof); err != nil {
		c.Close()
		return nil, fmt.Errorf("the kernel at %s refused the key: %w", addr, err)
	}
	if !hmac.Equal(proof, mac(key, []byte("kernel"), nk, nr)) {
		c.Close()
		return nil, fmt.Errorf("the listener at %s does not hold the job's key", addr)
	}
	_ = c.SetDeadline(time.Time{})
	return &Conn{c: c, r: r, key: mac(key, []byte("frames"), nk, nr)}, nil
}

// Send writes a frame.
func (c *Conn) Send(f Frame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	hdr := make([]byte, 0, 17)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(f.Payload)))
	hdr = append(hdr, f.Type)
	hdr = binary.LittleEndian.AppendUint64(hdr, f.ID)
	var seq [8]byte
	binary.LittleEndian.PutUint64(seq[:], c.sendSeq)
	c.sendSeq++
	sum := mac(c.key, seq[:], hdr, f.Payload)
	for _, b := range [][]byte{hdr, f.Payload, sum} {
		if _, err := c.c.Write(b); err != nil {
			return err
		}
	}
	c.Sent += int64(len(hdr) + len(f.Payload) + len(sum))
	return nil
}

// Recv reads the next frame. A frame whose HMAC does not verify is an
// error: the connection is then unusable.
func (c *Conn) Recv() (Frame, error) {
	hdr := make([]byte, 17)
	if _, err := io.ReadFull(c.r, hdr); err != nil {
		return Frame{}, err
	}
	n := binary.LittleEndian.Uint64(hdr)
	if n > MaxFrame {
		return Frame{}, fmt.Errorf("link: frame of %d bytes (more than %d): damaged", n, MaxFrame)
	}
	f := Frame{Type: hdr[8], ID: binary.LittleEndian.Uint64(hdr[9:])}
	f.Payload = make([]byte, n)
	if _, err := io.ReadFull(c.r, f.Payload); err != nil {
		return Frame{}, err
	}
	sum := make([]byte, 32)
	if _, err := io.ReadFull(c.r, sum); err != nil {
		return Frame{}, err
	}
	var seq [8]byte
	binary.LittleEndian.PutUint64(seq[:], c.recvSeq)
	c.recvSeq++
	if !hmac.Equal(sum, mac(c.key, seq[:], hdr, f.Payload)) {
		return Frame{}, errors.New("link: a frame failed its HMAC check (altered, replayed or out of order)")
	}
	c.Received += int64(len(hdr)) + int64(n) + 32
	return f, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// RemoteAddr is the peer's address.
func (c *Conn) RemoteAddr() net.Addr { return c.c.RemoteAddr() }
