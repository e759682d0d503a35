package wire

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"strings"
	"sync"
	"time"
)

// ProtocolVersion is the Jupyter messaging protocol version spoken.
const ProtocolVersion = "5.3"

// Delimiter separates routing identities from the message proper.
var Delimiter = []byte("<IDS|MSG>")

// ConnectionInfo is the content of a Jupyter connection file.
type ConnectionInfo struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name"`
}

// ReadConnectionFile reads and validates a connection file.
func ReadConnectionFile(path string) (*ConnectionInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("connection file: %w", err)
	}
	var ci ConnectionInfo
	if err := json.Unmarshal(b, &ci); err != nil {
		return nil, fmt.Errorf("connection file %s: %w", path, err)
	}
	if ci.Transport == "" {
		ci.Transport = "tcp"
	}
	if ci.IP == "" {
		ci.IP = "127.0.0.1"
	}
	if ci.SignatureScheme == "" {
		ci.SignatureScheme = "hmac-sha256"
	}
	for name, p := range map[string]int{"shell_port": ci.ShellPort, "iopub_port": ci.IOPubPort,
		"stdin_port": ci.StdinPort, "control_port": ci.ControlPort, "hb_port": ci.HBPort} {
		if p <= 0 || p > 65535 {
			return nil, fmt.Errorf("connection file %s: %s %d out of range", path, name, p)
		}
	}
	if _, err := NewSigner(ci.SignatureScheme, ci.Key); err != nil {
		return nil, fmt.Errorf("connection file %s: %w", path, err)
	}
	return &ci, nil
}

// Endpoint returns the ZeroMQ endpoint of a port, e.g. "tcp://127.0.0.1:5555".
func (ci *ConnectionInfo) Endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return fmt.Sprintf("%s://%s:%d", ci.Transport, ci.IP, port)
}

// Header is a message header (also used for the parent header).
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one decoded Jupyter message.
type Message struct {
	Identities   [][]byte
	Header       Header
	RawHeader    json.RawMessage // the header as received, echoed as parent header
	ParentHeader json.RawMessage // kept verbatim so replies echo it exactly
	Metadata     map[string]any
	Content      json.RawMessage
	Buffers      [][]byte
	Signature    string // the HMAC as received (hex), for replay detection
}

// Signer computes message signatures; a Signer with an empty key signs
// nothing and accepts only empty signatures, as the protocol specifies.
type Signer struct {
	newHash func() hash.Hash
	key     []byte
}

// NewSigner returns a signer for a scheme such as "hmac-sha256".
func NewSigner(scheme, key string) (*Signer, error) {
	var h func() hash.Hash
	switch strings.ToLower(scheme) {
	case "hmac-sha256", "":
		h = sha256.New
	case "hmac-sha512":
		h = sha512.New
	case "hmac-sha1":
		h = sha1.New
	case "hmac-md5":
		h = md5.New
	default:
		return nil, fmt.Errorf("unsupported signature_scheme %q", scheme)
	}
	return &Signer{newHash: h, key: []byte(key)}, nil
}

// Sign returns the hex signature of the four signed frames.
func (s *Signer) Sign(header, parent, metadata, content []byte) []byte {
	if len(s.key) == 0 {
		return nil
	}
	m := hmac.New(s.newHash, s.key)
	m.Write(header)
	m.Write(parent)
	m.Write(metadata)
	m.Write(content)
	sum := m.Sum(nil)
	out := make([]byte, hex.EncodedLen(len(sum)))
	hex.Encode(out, sum)
	return out
}

// Verify reports whether sig is the signature of the frames, in constant time.
func (s *Signer) Verify(sig, header, parent, metadata, content []byte) bool {
	if len(s.key) == 0 {
		return len(sig) == 0
	}
	want := s.Sign(header, parent, metadata, content)
	// only the canonical spelling (lower-case hex, what every client
	// sends): another spelling of the same digest would be a new string to
	// the replay guard, so a captured message could run again
	return hmac.Equal(sig, want)
}

// Decode errors.
var (
	ErrNoDelimiter = errors.New("missing <IDS|MSG> delimiter")
	ErrShort       = errors.New("fewer than 5 frames after the delimiter")
	ErrSignature   = errors.New("bad signature")
)

// Decode parses and verifies a multipart message.
func Decode(frames [][]byte, s *Signer) (*Message, error) {
	d := -1
	for i, f := range frames {
		if bytes.Equal(f, Delimiter) {
			d = i
			break
		}
	}
	if d < 0 {
		return nil, ErrNoDelimiter
	}
	rest := frames[d+1:]
	if len(rest) < 5 {
		return nil, ErrShort
	}
	if !s.Verify(rest[0], rest[1], rest[2], rest[3], rest[4]) {
		return nil, ErrSignature
	}
	m := &Message{Identities: frames[:d], RawHeader: json.RawMessage(rest[1]), Signature: string(rest[0])}
	if err := json.Unmarshal(rest[1], &m.Header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if m.Header.MsgType == "" {
		return nil, errors.New("header: empty msg_type")
	}
	if !json.Valid(rest[2]) {
		return nil, errors.New("parent_header: invalid JSON")
	}
	m.ParentHeader = json.RawMessage(rest[2])
	if len(bytes.TrimSpace(rest[3])) > 0 {
		if err := json.Unmarshal(rest[3], &m.Metadata); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
	}
	if !json.Valid(rest[4]) {
		return nil, errors.New("content: invalid JSON")
	}
	m.Content = json.RawMessage(rest[4])
	m.Buffers = rest[5:]
	return m, nil
}

// Encode serialises and signs a message into frames.
func Encode(m *Message, s *Signer) ([][]byte, error) {
	header, err := json.Marshal(m.Header)
	if err != nil {
		return nil, err
	}
	parent := []byte(m.ParentHeader)
	if len(parent) == 0 {
		parent = []byte("{}")
	}
	md := m.Metadata
	if md == nil {
		md = map[string]any{}
	}
	metadata, err := json.Marshal(md)
	if err != nil {
		return nil, err
	}
	content := []byte(m.Content)
	if len(content) == 0 {
		content = []byte("{}")
	}
	frames := make([][]byte, 0, len(m.Identities)+6+len(m.Buffers))
	frames = append(frames, m.Identities...)
	frames = append(frames, Delimiter, s.Sign(header, parent, metadata, content), header, parent, metadata, content)
	frames = append(frames, m.Buffers...)
	return frames, nil
}

// NewID returns a random UUID-4 string.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// NewHeader makes a header for a new message of a session.
func NewHeader(msgType, session string) Header {
	return Header{
		MsgID:    NewID(),
		Session:  session,
		Username: "tracebook",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// Reply builds a message answering parent on the same routing identities.
func Reply(parent *Message, msgType, session string, content any) (*Message, error) {
	m, err := NewMessage(msgType, session, parent, content)
	if err != nil {
		return nil, err
	}
	m.Identities = parent.Identities
	return m, nil
}

// NewMessage builds a message whose parent header is parent's header (nil: none).
func NewMessage(msgType, session string, parent *Message, content any) (*Message, error) {
	c, err := json.Marshal(content)
	if err != nil {
		return nil, fmt.Errorf("%s content: %w", msgType, err)
	}
	m := &Message{Header: NewHeader(msgType, session), Content: c, ParentHeader: json.RawMessage("{}")}
	if parent != nil && len(parent.RawHeader) > 0 {
		m.ParentHeader = parent.RawHeader
	} else if parent != nil {
		ph, err := json.Marshal(parent.Header)
		if err != nil {
			return nil, err
		}
		m.ParentHeader = ph
	}
	return m, nil
}

// ReplayGuard remembers the signatures of recent messages so that a captured
// signed message sent again is recognised (as ipykernel's digest history
// does). It keeps the last N signatures; the zero value is not usable, use
// NewReplayGuard. Safe for concurrent use.
type ReplayGuard struct {
	mu   sync.Mutex
	seen map[string]struct{}
	ring []string
	next int
}

// NewReplayGuard returns a guard remembering the last n signatures.
func NewReplayGuard(n int) *ReplayGuard {
	return &ReplayGuard{seen: make(map[string]struct{}, n), ring: make([]string, n)}
}

// Seen records sig and reports whether it was seen before. Empty signatures
// (a kernel without a key) are never replays.
func (g *ReplayGuard) Seen(sig string) bool {
	if sig == "" {
		return false
	}
	sig = strings.ToLower(sig) // the digest, whatever its spelling
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.seen[sig]; ok {
		return true
	}
	if old := g.ring[g.next]; old != "" {
		delete(g.seen, old)
	}
	g.ring[g.next] = sig
	g.seen[sig] = struct{}{}
	g.next = (g.next + 1) % len(g.ring)
	return false
}
