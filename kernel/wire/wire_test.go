package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSignKnownVector(t *testing.T) {
	// HMAC-SHA256(key "key", "abcd"), computed by openssl dgst -sha256 -hmac key.
	s, _ := NewSigner("hmac-sha256", "key")
	got := string(s.Sign([]byte("a"), []byte("b"), []byte("c"), []byte("d")))
	if want := "2a31ec0ee8d878c9eece9fb0df79b3b90b2256240163aa5ee50d176d3d1121f8"; got != want {
		t.Fatalf("sign = %s, want %s", got, want)
	}
}

func TestRoundTripAndForgery(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", "secret")
	parent := &Message{Header: NewHeader("execute_request", "sess"), RawHeader: json.RawMessage(`{"msg_id":"p1","msg_type":"execute_request","extra":1}`)}
	parent.Identities = [][]byte{[]byte("id1"), []byte("id2")}
	m, err := Reply(parent, "execute_reply", "k", map[string]any{"status": "ok"})
	if err != nil {
		t.Fatal(err)
	}
	m.Buffers = [][]byte{[]byte("buf")}
	frames, err := Encode(m, s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(frames, s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.MsgType != "execute_reply" || len(got.Identities) != 2 || string(got.Buffers[0]) != "buf" {
		t.Fatalf("round trip lost data: %+v", got)
	}
	if !bytes.Contains(got.ParentHeader, []byte(`"extra":1`)) {
		t.Fatalf("parent header not echoed verbatim: %s", got.ParentHeader)
	}
	// Tamper with each signed frame: every change must be rejected.
	d := 2 // index of delimiter
	for i := d + 2; i < d+6; i++ {
		f := cloneFrames(frames)
		f[i] = append(f[i], ' ')
		if _, err := Decode(f, s); !errors.Is(err, ErrSignature) {
			t.Errorf("tampered frame %d: err = %v, want ErrSignature", i, err)
		}
	}
	// Wrong key, missing signature.
	other, _ := NewSigner("hmac-sha256", "other")
	if _, err := Decode(frames, other); !errors.Is(err, ErrSignature) {
		t.Errorf("wrong key accepted: %v", err)
	}
	f := cloneFrames(frames)
	f[d+1] = nil
	if _, err := Decode(f, s); !errors.Is(err, ErrSignature) {
		t.Errorf("unsigned message accepted: %v", err)
	}
	// No key: unsigned accepted, signed rejected.
	none, _ := NewSigner("hmac-sha256", "")
	fr, _ := Encode(m, none)
	if _, err := Decode(fr, none); err != nil {
		t.Errorf("unsigned with empty key rejected: %v", err)
	}
	if _, err := Decode(frames, none); err == nil {
		t.Errorf("signed message accepted with empty key")
	}
}

func TestDecodeMalformed(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", "k")
	cases := map[string][][]byte{
		"no delimiter": {[]byte("a"), []byte("b")},
		"short":        {Delimiter, []byte("x"), []byte("{}")},
	}
	for name, fr := range cases {
		if _, err := Decode(fr, s); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Properly signed but invalid JSON header / content.
	for _, bad := range [][4]string{{"not json", "{}", "{}", "{}"}, {`{"msg_type":"x"}`, "{}", "{}", "{"}, {`{}`, "{}", "{}", "{}"}} {
		sig := s.Sign([]byte(bad[0]), []byte(bad[1]), []byte(bad[2]), []byte(bad[3]))
		fr := [][]byte{Delimiter, sig, []byte(bad[0]), []byte(bad[1]), []byte(bad[2]), []byte(bad[3])}
		if _, err := Decode(fr, s); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestSchemes(t *testing.T) {
	for _, sc := range []string{"hmac-sha256", "hmac-sha512", "hmac-sha1", "hmac-md5"} {
		s, err := NewSigner(sc, "k")
		if err != nil {
			t.Fatal(err)
		}
		if !s.Verify(s.Sign([]byte("h"), nil, nil, nil), []byte("h"), nil, nil, nil) {
			t.Errorf("%s: own signature rejected", sc)
		}
	}
	if _, err := NewSigner("rot13", "k"); err == nil {
		t.Error("unknown scheme accepted")
	}
}

func TestConnectionFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.json")
	os.WriteFile(p, []byte(`{"shell_port":1,"iopub_port":2,"stdin_port":3,"control_port":4,"hb_port":5,"ip":"127.0.0.1","key":"k","transport":"tcp","signature_scheme":"hmac-sha256"}`), 0o600)
	ci, err := ReadConnectionFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Endpoint(ci.ShellPort) != "tcp://127.0.0.1:1" {
		t.Errorf("endpoint %s", ci.Endpoint(ci.ShellPort))
	}
	os.WriteFile(p, []byte(`{"shell_port":0}`), 0o600)
	if _, err := ReadConnectionFile(p); err == nil {
		t.Error("port 0 accepted")
	}
	os.WriteFile(p, []byte(`{`), 0o600)
	if _, err := ReadConnectionFile(p); err == nil {
		t.Error("truncated file accepted")
	}
}

func cloneFrames(f [][]byte) [][]byte {
	out := make([][]byte, len(f))
	for i := range f {
		out[i] = append([]byte(nil), f[i]...)
	}
	return out
}

func TestReplayGuard(t *testing.T) {
	g := NewReplayGuard(3)
	for _, c := range []struct {
		sig  string
		seen bool
	}{{"a", false}, {"a", true}, {"b", false}, {"c", false}, {"a", true}, {"d", false}, {"a", false}, {"", false}, {"", false}} {
		if got := g.Seen(c.sig); got != c.seen {
			t.Fatalf("Seen(%q) = %v, want %v", c.sig, got, c.seen)
		}
	}
}

// A captured message sent again with its signature in another case was a
// new string to the replay guard and ran again (issue 29). Only the
// canonical lower-case spelling verifies, and the guard keys on the digest.
func TestReplaySpellings(t *testing.T) {
	s, _ := NewSigner("hmac-sha256", "secret")
	m, _ := NewMessage("execute_request", "sess", nil, map[string]any{"code": "x := 1"})
	frames, err := Encode(m, s)
	if err != nil {
		t.Fatal(err)
	}
	g := NewReplayGuard(16)
	first, err := Decode(frames, s)
	if err != nil || g.Seen(first.Signature) {
		t.Fatalf("first delivery: err %v", err)
	}
	sigAt := 1 // after the delimiter
	for i, f := range frames {
		if string(f) == string(Delimiter) {
			sigAt = i + 1
		}
	}
	for _, spell := range []func(string) string{strings.ToUpper, func(x string) string {
		return strings.ToUpper(x[:1]) + x[1:]
	}} {
		forged := append([][]byte(nil), frames...)
		forged[sigAt] = []byte(spell(string(frames[sigAt])))
		got, err := Decode(forged, s)
		if err == nil && !g.Seen(got.Signature) {
			t.Errorf("signature %q (another spelling of a seen digest) accepted as new", forged[sigAt])
		}
	}
	if !g.Seen(strings.ToUpper(first.Signature)) {
		t.Error("the guard does not key on the digest: an upper-case spelling is unseen")
	}
}
