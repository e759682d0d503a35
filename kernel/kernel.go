package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tracebook/tracebook/kernel/wire"
)

// Version is the tracebook version reported by kernel_info and `tracebook version`.
var Version = "0.1.0"

// Kernel dispatches messages.
type Kernel struct {
	t       Transport
	interp  Interpreter
	session string
	pub     *publisher
	Logf    func(format string, args ...any)
	// abortQueued, if set (by ServeShell), is called when a cell fails with
	// stop_on_error, before its reply is sent: it aborts the execute
	// requests queued behind it.
	abortQueued func()

	mu       sync.Mutex
	count    int
	parent   *wire.Message // execute_request being served (or last one)
	cancel   context.CancelFunc
	inputCh  chan inputReply
	history  []histEntry
	shutdown chan bool // receives restart flag
}

// New creates a kernel sending through t. The interpreter is made by
// newInterp, which receives the Frontend to write to.
func New(t Transport, newInterp func(Frontend) (Interpreter, error)) (*Kernel, error) {
	k := &Kernel{t: t, session: wire.NewID(), inputCh: make(chan inputReply, 1), shutdown: make(chan bool, 1),
		Logf: log.Printf}
	k.pub = newPublisher(t, k.session)
	fe := Frontend{
		Stdout:  streamWriter{k, "stdout"},
		Stderr:  streamWriter{k, "stderr"},
		Display: k.display,
		Clear:   k.clear,
		Input:   k.input,
		Error: func(e *ExecError) {
			k.publish("error", map[string]any{"ename": e.Name, "evalue": e.Value, "traceback": e.traceback()})
		},
	}
	in, err := newInterp(fe)
	if err != nil {
		return nil, err
	}
	k.interp = in
	return k, nil
}

// ShutdownRequested delivers the restart flag of a shutdown request.
func (k *Kernel) ShutdownRequested() <-chan bool { return k.shutdown }

// RequestShutdown asks for a shutdown as a shutdown_request does (the
// transport's answer to SIGTERM); a request already pending is kept.
func (k *Kernel) RequestShutdown(restart bool) {
	select {
	case k.shutdown <- restart:
	default:
	}
}

// Starting publishes the "starting" status, once the transport is up.
func (k *Kernel) Starting() { k.status(nil, "starting") }

// Flush waits until all IOPub output has been handed to the transport.
func (k *Kernel) Flush() { k.pub.flush() }

// reply sends a reply to m on ch.
func (k *Kernel) reply(ch Channel, m *wire.Message, msgType string, content any) {
	r, err := wire.Reply(m, msgType, k.session, content)
	if err != nil {
		k.Logf("tracebook: %s: %v", msgType, err)
		return
	}
	if err := k.t.Send(ch, r); err != nil {
		k.Logf("tracebook: send %s on %s: %v", msgType, ch, err)
	}
}

func (k *Kernel) status(parent *wire.Message, state string) {
	k.publishTo(parent, "status", map[string]any{"execution_state": state})
}

// Interrupt cancels the running execution, if any (and any pending input).
func (k *Kernel) Interrupt() {
	k.mu.Lock()
	if k.cancel != nil {
		k.cancel()
	}
	k.mu.Unlock()
	select {
	case k.inputCh <- inputReply{err: errors.New("interrupted")}:
	default:
	}
}

// Handle dispatches one message received on ch. Shell messages are handled
// one at a time by the caller's goroutine; control messages may arrive
// while a shell message is running.
func (k *Kernel) Handle(ch Channel, m *wire.Message) {
	if ch == Stdin {
		if m.Header.MsgType == "input_reply" {
			var c struct {
				Value string `json:"value"`
			}
			if err := json.Unmarshal(m.Content, &c); err != nil {
				k.Logf("tracebook: bad input_reply: %v", err)
				return
			}
			select {
			case k.inputCh <- inputReply{value: c.Value}:
			default:
				k.Logf("tracebook: input_reply without a pending input_request dropped")
			}
		}
		return
	}
	if ch == Control && !controlTypes[m.Header.MsgType] {
		// never run: a shell request on control would run beside the cell
		// and take over its interrupt
		k.wrongChannel(ch, m)
		return
	}
	k.status(m, "busy")
	defer func() {
		if r := recover(); r != nil {
			k.Logf("tracebook: handler for %s panicked: %v", m.Header.MsgType, r)
		}
		k.pub.flush()
		k.status(m, "idle")
	}()
	switch t := m.Header.MsgType; t {
	case "kernel_info_request":
		k.reply(ch, m, "kernel_info_reply", k.kernelInfo())
	case "execute_request":
		k.execute(ch, m)
	case "complete_request":
		k.complete(ch, m)
	case "inspect_request":
		k.inspect(ch, m)
	case "is_complete_request":
		var c struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(m.Content, &c)
		st, ind := k.interp.IsComplete(c.Code)
		r := map[string]any{"status": st}
		if st == "incomplete" {
			r["indent"] = ind
		}
		k.reply(ch, m, "is_complete_reply", r)
	case "history_request":
		k.historyReply(ch, m)
	case "comm_info_request":
		k.reply(ch, m, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
	case "comm_open":
		// No comm targets are registered: tell the front end the comm is closed.
		var c struct {
			CommID     string `json:"comm_id"`
			TargetName string `json:"target_name"`
		}
		_ = json.Unmarshal(m.Content, &c)
		k.Logf("tracebook: comm_open for unknown target %q; closing", c.TargetName)
		k.publishTo(m, "comm_close", map[string]any{"comm_id": c.CommID, "data": map[string]any{}})
	case "comm_msg", "comm_close":
		// messages for comms that do not exist are ignored, as the protocol says
	case "interrupt_request":
		k.Interrupt()
		k.reply(ch, m, "interrupt_reply", map[string]any{"status": "ok"})
	case "shutdown_request":
		var c struct {
			Restart bool `json:"restart"`
		}
		_ = json.Unmarshal(m.Content, &c)
		k.Interrupt()
		k.reply(ch, m, "shutdown_reply", map[string]any{"status": "ok", "restart": c.Restart})
		k.RequestShutdown(c.Restart)
	case "connect_request":
		k.reply(ch, m, "connect_reply", map[string]any{"status": "ok"})
	default:
		k.Logf("tracebook: unsupported message type %q on %s ignored", t, ch)
	}
}

// controlTypes are the requests the control channel serves (those of
// ipykernel's control handlers, and kernel_info which clients may send on
// either channel). Anything else sent there gets an error reply.
var controlTypes = map[string]bool{
	"kernel_info_request": true, "shutdown_request": true, "interrupt_request": true,
	"debug_request": true, "usage_request": true, "abort_request": true, "clear_request": true,
}

// wrongChannel answers a request sent on a channel that does not serve it
// with an error reply of the matching type, as ipykernel does for unknown
// requests; nothing runs.
func (k *Kernel) wrongChannel(ch Channel, m *wire.Message) {
	t := m.Header.MsgType
	k.Logf("tracebook: %s on %s refused (a shell request)", t, ch)
	if !strings.HasSuffix(t, "_request") {
		return
	}
	k.reply(ch, m, strings.TrimSuffix(t, "_request")+"_reply", map[string]any{
		"status": "error", "ename": "WrongChannel",
		"evalue":    fmt.Sprintf("%s is not served on the %s channel; send it on shell", t, ch),
		"traceback": []string{},
	})
}

// LanguageInfo is the language_info of the kernel_info reply, which
// front ends also write into a notebook's metadata.
func LanguageInfo() map[string]any {
	return map[string]any{
		"name":               "go",
		"version":            strings.TrimPrefix(runtime.Version(), "go"),
		"mimetype":           "text/x-go",
		"file_extension":     ".go",
		"pygments_lexer":     "go",
		"codemirror_mode":    "go",
		"nbconvert_exporter": "",
	}
}

func (k *Kernel) kernelInfo() map[string]any {
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       wire.ProtocolVersion,
		"implementation":         "tracebook",
		"implementation_version": Version,
		"language_info":          LanguageInfo(),
		"banner":                 fmt.Sprintf("tracebook %s: Go %s interpreted by yaegi, with trace-analysis builtins. %%help lists them.", Version, goVersion),
		"help_links": []map[string]string{
			{"text": "tracebook README", "url": "https://github.com/tracebook/tracebook#readme"},
			{"text": "Go documentation", "url": "https://go.dev/doc/"},
			{"text": "Go standard library", "url": "https://pkg.go.dev/std"},
		},
		"debugger": false,
	}
}

// runeToByte converts a cursor in code points (the protocol's unit) to a
// byte offset; byteToRune converts back.
func runeToByte(s string, r int) int {
	if r <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == r {
			return i
		}
		n++
	}
	return len(s)
}

func byteToRune(s string, b int) int {
	if b > len(s) {
		b = len(s)
	}
	return utf8.RuneCountInString(s[:b])
}

func (k *Kernel) complete(ch Channel, m *wire.Message) {
	var c struct {
		Code   string `json:"code"`
		Cursor *int   `json:"cursor_pos"`
	}
	_ = json.Unmarshal(m.Content, &c)
	cur := len(c.Code)
	if c.Cursor != nil {
		cur = runeToByte(c.Code, *c.Cursor)
	}
	matches, start, end := k.interp.Complete(c.Code, cur)
	if matches == nil {
		matches = []string{}
	}
	k.reply(ch, m, "complete_reply", map[string]any{"status": "ok", "matches": matches,
		"cursor_start": byteToRune(c.Code, start), "cursor_end": byteToRune(c.Code, end), "metadata": map[string]any{}})
}

func (k *Kernel) inspect(ch Channel, m *wire.Message) {
	var c struct {
		Code   string `json:"code"`
		Cursor *int   `json:"cursor_pos"`
		Detail int    `json:"detail_level"`
	}
	_ = json.Unmarshal(m.Content, &c)
	cur := len(c.Code)
	if c.Cursor != nil {
		cur = runeToByte(c.Code, *c.Cursor)
	}
	data, found := k.interp.Inspect(c.Code, cur, c.Detail)
	if !found || data == nil {
		data = map[string]any{}
	}
	k.reply(ch, m, "inspect_reply", map[string]any{"status": "ok", "found": found, "data": data, "metadata": map[string]any{}})
}
