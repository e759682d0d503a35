package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/kernel/wire"
)

// fakeTransport records what the kernel sends.
type fakeTransport struct {
	mu   sync.Mutex
	sent []sent
}

type sent struct {
	ch Channel
	m  *wire.Message
}

func (f *fakeTransport) Send(ch Channel, m *wire.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, sent{ch, m})
	return nil
}

func (f *fakeTransport) take() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sent
	f.sent = nil
	return s
}

// fakeInterp evaluates a tiny language: "print X" writes X, "value X" returns
// X, "fail" errors, "wait" blocks until cancelled, "read" reads a line.
type fakeInterp struct{ fe Frontend }

func (f *fakeInterp) Execute(ctx context.Context, code string) ExecResult {
	switch {
	case strings.HasPrefix(code, "print "):
		fmt.Fprint(f.fe.Stdout, code[6:])
	case strings.HasPrefix(code, "value "):
		return ExecResult{Data: map[string]any{"text/plain": code[6:]}}
	case code == "fail":
		return ExecResult{Err: &ExecError{Name: "E", Value: "failed"}}
	case code == "wait":
		<-ctx.Done()
		return ExecResult{Err: &ExecError{Name: "Interrupted", Value: "x"}}
	case code == "read":
		s, err := f.fe.Input("name?", false)
		if err != nil {
			return ExecResult{Err: &ExecError{Name: "Input", Value: err.Error()}}
		}
		return ExecResult{Data: map[string]any{"text/plain": s}}
	case code == "show":
		f.fe.Display(map[string]any{"text/html": "<b>"}, nil, "d1", false)
		f.fe.Display(map[string]any{"text/html": "<i>"}, nil, "d1", true)
	}
	return ExecResult{}
}
func (f *fakeInterp) Complete(code string, cursor int) ([]string, int, int) {
	return []string{"héllo"}, 0, cursor
}
func (f *fakeInterp) Inspect(code string, cursor, detail int) (map[string]any, bool) {
	return map[string]any{"text/plain": fmt.Sprintf("doc of %s (detail %d)", code, detail),
		"text/markdown": fmt.Sprintf("```go\n%s\n```\n\ndetail %d\n", code, detail)}, true
}
func (f *fakeInterp) IsComplete(code string) (string, string) { return "incomplete", "\t" }
func (f *fakeInterp) Sync()                                   {}

func newKernel(t *testing.T) (*Kernel, *fakeTransport) {
	ft := &fakeTransport{}
	k, err := New(ft, func(fe Frontend) (Interpreter, error) { return &fakeInterp{fe}, nil })
	if err != nil {
		t.Fatal(err)
	}
	k.Logf = t.Logf
	return k, ft
}

func request(t *testing.T, msgType string, content any) *wire.Message {
	m, err := wire.NewMessage(msgType, "client", nil, content)
	if err != nil {
		t.Fatal(err)
	}
	m.Identities = [][]byte{[]byte("client-id")}
	m.RawHeader, _ = json.Marshal(m.Header)
	return m
}

func types(ss []sent) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ch.String()+":"+s.m.Header.MsgType)
	}
	return out
}

func content(t *testing.T, m *wire.Message) map[string]any {
	var c map[string]any
	if err := json.Unmarshal(m.Content, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestExecuteSequence(t *testing.T) {
	k, ft := newKernel(t)
	req := request(t, "execute_request", map[string]any{"code": "value 42", "silent": false})
	k.Handle(Shell, req)
	got := strings.Join(types(take(k, ft)), " ")
	want := "iopub:status iopub:execute_input iopub:execute_result shell:execute_reply iopub:status"
	if got != want {
		t.Fatalf("messages:\n got %s\nwant %s", got, want)
	}
	k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "print hi"}))
	ss := take(k, ft)
	var stream, reply int
	for i, s := range ss {
		switch s.m.Header.MsgType {
		case "stream":
			stream = i
			if c := content(t, s.m); c["text"] != "hi" || c["name"] != "stdout" {
				t.Fatalf("stream %v", c)
			}
		case "execute_reply":
			reply = i
			if c := content(t, s.m); c["execution_count"].(float64) != 2 {
				t.Fatalf("count %v", c)
			}
		}
		if string(s.m.ParentHeader) == "{}" && s.m.Header.MsgType != "status" {
			t.Errorf("%s without parent header", s.m.Header.MsgType)
		}
	}
	if stream == 0 || stream > reply {
		t.Fatalf("stream must precede the reply: %v", types(ss))
	}
}

func TestErrorAbortHookAndSilent(t *testing.T) {
	k, ft := newKernel(t)
	called := 0
	k.abortQueued = func() { called++ }
	k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "fail"}))
	ss := take(k, ft)
	var sawErr bool
	for _, s := range ss {
		if s.m.Header.MsgType == "error" {
			sawErr = true
		}
		if s.m.Header.MsgType == "execute_reply" && content(t, s.m)["status"] != "error" {
			t.Fatalf("reply %s", s.m.Content)
		}
	}
	if !sawErr || called != 1 {
		t.Fatalf("error output %v, abortQueued calls %d", sawErr, called)
	}
	k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "fail", "stop_on_error": false}))
	if called != 1 {
		t.Fatal("abortQueued called with stop_on_error false")
	}
	take(k, ft)
	k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "value 1", "silent": true}))
	if got := strings.Join(types(take(k, ft)), " "); got != "iopub:status shell:execute_reply iopub:status" {
		t.Fatalf("silent: %s", got)
	}
}

func TestInterruptAndInput(t *testing.T) {
	k, ft := newKernel(t)
	done := startWaiting(t, k)
	k.Handle(Control, request(t, "interrupt_request", map[string]any{}))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("interrupt did not stop the execution")
	}
	take(k, ft)
	// input with allow_stdin
	reading := make(chan struct{})
	go func() {
		k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "read", "allow_stdin": true}))
		close(reading)
	}()
	var ireq *wire.Message
	for i := 0; i < 500 && ireq == nil; i++ {
		time.Sleep(5 * time.Millisecond)
		ft.mu.Lock()
		for _, s := range ft.sent {
			if s.ch == Stdin && s.m.Header.MsgType == "input_request" {
				ireq = s.m
			}
		}
		ft.mu.Unlock()
	}
	if ireq == nil {
		t.Fatal("no input_request on stdin")
	}
	if string(ireq.Identities[0]) != "client-id" {
		t.Fatalf("input_request routed to %q", ireq.Identities[0])
	}
	k.Handle(Stdin, request(t, "input_reply", map[string]any{"value": "Ada"}))
	<-reading
	var result string
	for _, s := range take(k, ft) {
		if s.m.Header.MsgType == "execute_result" {
			result = content(t, s.m)["data"].(map[string]any)["text/plain"].(string)
		}
	}
	if result != "Ada" {
		t.Fatalf("input result %q", result)
	}
	// without allow_stdin: immediate error, no request
	k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "read"}))
	for _, s := range take(k, ft) {
		if s.ch == Stdin {
			t.Fatal("input_request sent although stdin is not allowed")
		}
	}
}

func TestRepliesAndCursorUnits(t *testing.T) {
	k, ft := newKernel(t)
	cases := []struct {
		typ   string
		c     map[string]any
		reply string
		check func(c map[string]any) bool
	}{
		{"kernel_info_request", nil, "kernel_info_reply", func(c map[string]any) bool {
			li := c["language_info"].(map[string]any)
			return li["name"] == "go" && li["file_extension"] == ".go" && li["mimetype"] == "text/x-go" && c["protocol_version"] == "5.3"
		}},
		// cursor_pos is in code points: "é" is 2 bytes, 1 code point
		{"complete_request", map[string]any{"code": "é.x", "cursor_pos": 3}, "complete_reply", func(c map[string]any) bool {
			return c["cursor_end"].(float64) == 3 && c["cursor_start"].(float64) == 0
		}},
		{"inspect_request", map[string]any{"code": "abc", "cursor_pos": 1, "detail_level": 1}, "inspect_reply", func(c map[string]any) bool {
			d := c["data"].(map[string]any)
			return c["found"] == true && d["text/plain"] == "doc of abc (detail 1)" && d["text/markdown"] == "```go\nabc\n```\n\ndetail 1\n"
		}},
		{"is_complete_request", map[string]any{"code": "func f() {"}, "is_complete_reply", func(c map[string]any) bool {
			return c["status"] == "incomplete" && c["indent"] == "\t"
		}},
		{"comm_info_request", map[string]any{}, "comm_info_reply", func(c map[string]any) bool { return c["status"] == "ok" }},
		{"shutdown_request", map[string]any{"restart": true}, "shutdown_reply", func(c map[string]any) bool { return c["restart"] == true }},
	}
	for _, tc := range cases {
		ch := Shell
		if controlTypes[tc.typ] {
			ch = Control
		}
		k.Handle(ch, request(t, tc.typ, tc.c))
		var got *wire.Message
		for _, s := range take(k, ft) {
			if s.m.Header.MsgType == tc.reply {
				got = s.m
			}
		}
		if got == nil {
			t.Fatalf("%s: no %s", tc.typ, tc.reply)
		}
		if c := content(t, got); !tc.check(c) {
			t.Errorf("%s: %v", tc.reply, c)
		}
	}
	select {
	case r := <-k.ShutdownRequested():
		if !r {
			t.Fatal("restart flag lost")
		}
	default:
		t.Fatal("shutdown not signalled")
	}
}

func TestHistoryAndUpdatesAndBatching(t *testing.T) {
	k, ft := newKernel(t)
	for _, c := range []string{"value 1", "value 2", "value 1", "show"} {
		k.Handle(Shell, request(t, "execute_request", map[string]any{"code": c}))
	}
	var disp []string
	for _, s := range take(k, ft) {
		if s.m.Header.MsgType == "display_data" || s.m.Header.MsgType == "update_display_data" {
			c := content(t, s.m)
			disp = append(disp, s.m.Header.MsgType+":"+c["transient"].(map[string]any)["display_id"].(string))
		}
	}
	if strings.Join(disp, " ") != "display_data:d1 update_display_data:d1" {
		t.Fatalf("displays %v", disp)
	}
	hist := func(c map[string]any) []any {
		k.Handle(Shell, request(t, "history_request", c))
		for _, s := range take(k, ft) {
			if s.m.Header.MsgType == "history_reply" {
				return content(t, s.m)["history"].([]any)
			}
		}
		t.Fatal("no history_reply")
		return nil
	}
	if h := hist(map[string]any{"hist_access_type": "tail", "n": 2}); len(h) != 2 || h[1].([]any)[2] != "show" {
		t.Fatalf("tail %v", h)
	}
	if h := hist(map[string]any{"hist_access_type": "range", "session": 0, "start": 2, "stop": 3}); len(h) != 1 || h[0].([]any)[1].(float64) != 2 {
		t.Fatalf("range %v", h)
	}
	if h := hist(map[string]any{"hist_access_type": "search", "pattern": "value 1*", "unique": true}); len(h) != 1 {
		t.Fatalf("search unique %v", h)
	}
	if h := hist(map[string]any{"hist_access_type": "tail", "n": 1, "output": true}); len(h[0].([]any)[2].([]any)) != 2 {
		t.Fatalf("output %v", h)
	}
	// stream batching: many small writes become few messages, in order
	w := streamWriter{k, "stdout"}
	var want strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(w, "%d\n", i)
		fmt.Fprintf(&want, "%d\n", i)
	}
	k.Flush()
	var got strings.Builder
	n := 0
	for _, s := range take(k, ft) {
		if s.m.Header.MsgType == "stream" {
			got.WriteString(content(t, s.m)["text"].(string))
			n++
		}
	}
	if got.String() != want.String() {
		t.Fatal("stream text lost or reordered")
	}
	if n > 10 {
		t.Fatalf("%d stream messages for 10000 writes", n)
	}
}

// take returns what was sent once the IOPub queue has drained.
func take(k *Kernel, ft *fakeTransport) []sent {
	k.Flush()
	return ft.take()
}

// slowTransport sends one message per delay and records the longest IOPub
// queue the publisher built up.
type slowTransport struct {
	fakeTransport
	delay time.Duration
}

func (s *slowTransport) Send(ch Channel, m *wire.Message) error {
	time.Sleep(s.delay)
	return s.fakeTransport.Send(ch, m)
}

// A writer faster than the socket is slowed down (bounded queue), nothing is
// lost, and multi-byte characters cut by the batch boundary stay whole.
func TestStreamFlowControlAndUTF8(t *testing.T) {
	st := &slowTransport{delay: time.Millisecond}
	k, err := New(st, func(fe Frontend) (Interpreter, error) { return &fakeInterp{fe}, nil })
	if err != nil {
		t.Fatal(err)
	}
	w := streamWriter{k, "stdout"}
	var want strings.Builder
	maxQ := 0
	chunk := strings.Repeat("aé€😀", 997) // odd length: batch boundaries fall inside characters
	for i := 0; i < 1000; i++ {
		fmt.Fprint(w, chunk)
		want.WriteString(chunk)
		k.pub.mu.Lock()
		maxQ = max(maxQ, len(k.pub.queue))
		k.pub.mu.Unlock()
	}
	k.Flush()
	var got strings.Builder
	for _, s := range st.take() {
		if s.m.Header.MsgType == "stream" {
			got.WriteString(content(t, s.m)["text"].(string))
		}
	}
	if strings.Contains(got.String(), "\uFFFD") {
		t.Fatal("a character was cut at a batch boundary")
	}
	if got.String() != want.String() {
		t.Fatalf("stream text lost or reordered: %d bytes of %d", got.Len(), want.Len())
	}
	if maxQ > maxQueued {
		t.Fatalf("IOPub queue grew to %d messages (bound %d)", maxQ, maxQueued)
	}
}

func TestIncompleteUTF8Tail(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{{"", 0}, {"abc", 0}, {"é", 0}, {"a\xc3", 1}, {"a\xe2\x82", 2}, {"a\xe2", 1}, {"a\xf0\x9f\x98", 3}, {"a\xf0\x9f", 2}, {"😀", 0}, {"a\x80", 0}} {
		if got := incompleteUTF8Tail([]byte(c.s)); got != c.want {
			t.Errorf("incompleteUTF8Tail(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

// Error outputs are coloured like ipykernel's; ename and evalue stay plain.
func TestTracebackColours(t *testing.T) {
	const red, green, cyan, reset = "\x1b[0;31m", "\x1b[0;32m", "\x1b[0;36m", "\x1b[0m"
	for _, c := range []struct {
		err  ExecError
		want []string
	}{
		{ExecError{Name: "E", Value: "failed"}, []string{red + "E" + reset + ": failed"}},
		{ExecError{Name: "CompileError", Value: "cell line 3:5: undefined: zz", Traceback: []string{"CompileError: cell line 3:5: undefined: zz"}},
			[]string{red + "CompileError" + reset + ": " + green + "cell line 3:5" + reset + ": undefined: zz"}},
		{ExecError{Name: "panic", Value: "boom (cell line 2:14, in f)",
			Traceback: []string{"panic: boom", "    at cell line 2:14, in f", "    at cell line 4", "    in github.com/x/y.F (y.go:12)"}},
			[]string{red + "panic" + reset + ": boom", "    at " + green + "cell line 2:14" + reset + ", in " + cyan + "f" + reset,
				"    at " + green + "cell line 4" + reset, "    in " + cyan + "github.com/x/y.F" + reset + " (y.go:12)"}},
		{ExecError{Name: "goroutine panic", Value: "x, in fact",
			Traceback: []string{"panic: x, in fact", "in a goroutine started at cell line 1; the kernel and its state are intact"}},
			[]string{red + "panic" + reset + ": x, in fact", "in a goroutine started at " + green + "cell line 1" + reset + "; the kernel and its state are intact"}},
		{ExecError{Name: "profile.Boxes", Value: "bins must be positive", Traceback: []string{"profile.Boxes: bins must be positive", "    at cell line 2:1"}},
			[]string{red + "profile.Boxes" + reset + ": bins must be positive", "    at " + green + "cell line 2:1" + reset}},
		{ExecError{Name: "E", Value: "v", Traceback: []string{red + "E" + reset + ": already coloured"}},
			[]string{red + "E" + reset + ": already coloured"}},
	} {
		got := c.err.traceback()
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s traceback\n got %q\nwant %q", c.err.Name, got, c.want)
		}
	}
	// through the wire: the error output and the reply carry the coloured
	// traceback, with ename and evalue unchanged
	k, ft := newKernel(t)
	k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "fail"}))
	n := 0
	for _, s := range take(k, ft) {
		if mt := s.m.Header.MsgType; mt == "error" || mt == "execute_reply" {
			n++
			c := content(t, s.m)
			if c["ename"] != "E" || c["evalue"] != "failed" || fmt.Sprint(c["traceback"]) != "["+red+"E"+reset+": failed]" {
				t.Errorf("%s: %v", mt, c)
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d error messages", n)
	}
}

// TestHelpQueryPager: "name?", "?name" and "name??" answer in the pager
// payload with the interpreter's documentation bundle; code that only
// ends in "?" (a comment) runs.
func TestHelpQueryPager(t *testing.T) {
	for _, tc := range []struct{ code, plain string }{
		{"strings.Fields?", "doc of strings.Fields (detail 0)"},
		{"?a.Similarity", "doc of a.Similarity (detail 0)"},
		{"align.Pair(p, q).Plot??", "doc of align.Pair(p, q).Plot (detail 1)"},
		{"??x", "doc of x (detail 1)"},
		// inside a call's arguments: the interpreter is asked at the end (it documents the call)
		{"align.Runs(a, ?", "doc of align.Runs(a, (detail 0)"},
		{"align.Runs(?", "doc of align.Runs( (detail 0)"},
		{"x := 1 // why?", ""},
		{"x := y) ?", ""},
		{"a?\nb", ""},
	} {
		k, ft := newKernel(t)
		k.Handle(Shell, request(t, "execute_request", map[string]any{"code": tc.code}))
		var got string
		for _, s := range take(k, ft) {
			if s.m.Header.MsgType != "execute_reply" {
				continue
			}
			pl, _ := content(t, s.m)["payload"].([]any)
			if len(pl) == 1 {
				p := pl[0].(map[string]any)
				d := p["data"].(map[string]any)
				if p["source"] != "page" || d["text/markdown"] == nil {
					t.Errorf("%q: payload %v", tc.code, p)
				}
				got, _ = d["text/plain"].(string)
			}
		}
		if got != tc.plain {
			t.Errorf("%q: pager %q, want %q", tc.code, got, tc.plain)
		}
	}
}

// startWaiting runs a cell that waits until interrupted, in the background,
// and returns a channel closed when its execution ends.
func startWaiting(t *testing.T, k *Kernel) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		k.Handle(Shell, request(t, "execute_request", map[string]any{"code": "wait"}))
		close(done)
	}()
	time.Sleep(50 * time.Millisecond)
	return done
}
