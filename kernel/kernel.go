package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"io"
	"log"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tracebook/tracebook/kernel/wire"
)

// Version is the tracebook version reported by kernel_info and `tracebook version`.
var Version = "0.1.0"

// Channel names a kernel socket.
type Channel int

// The Jupyter channels.
const (
	Shell Channel = iota
	Control
	IOPub
	Stdin
)

func (c Channel) String() string {
	return [...]string{"shell", "control", "iopub", "stdin"}[c]
}

// Transport sends messages on a channel (signing is the transport's job).
type Transport interface {
	Send(ch Channel, m *wire.Message) error
}

// ExecError is an error shown for a cell.
type ExecError struct {
	Name, Value string
	Traceback   []string
}

// ANSI colours of tracebacks, those of ipykernel (IPython's default scheme):
// front ends show error outputs with them, so an error does not read like
// ordinary output.
const (
	ansiRed   = "\x1b[0;31m" // the error's name
	ansiGreen = "\x1b[0;32m" // where: cell line and column
	ansiCyan  = "\x1b[0;36m" // the function
	ansiReset = "\x1b[0m"
)

var (
	tbNameRE  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_ ]{0,40}): `)
	tbWhereRE = regexp.MustCompile(`cell line \d+(?::\d+)?`)
	tbFuncRE  = regexp.MustCompile(`(cell line \d+(?::\d+)?, in |^\s+in )(\S+)`)
)

// traceback returns e's traceback as sent to front ends: Name: Value when
// the interpreter gave none, coloured like ipykernel's. The first line's
// leading name ("panic", "CompileError") is red, cell positions green,
// function names cyan; lines that already carry colour are kept.
func (e *ExecError) traceback() []string {
	tb := e.Traceback
	if len(tb) == 0 {
		tb = []string{e.Name + ": " + e.Value}
	}
	out := make([]string, len(tb))
	for i, line := range tb {
		if strings.Contains(line, "\x1b[") {
			out[i] = line
			continue
		}
		line = tbFuncRE.ReplaceAllString(line, "$1"+ansiCyan+"$2"+ansiReset)
		line = tbWhereRE.ReplaceAllString(line, ansiGreen+"$0"+ansiReset)
		if i == 0 {
			line = tbNameRE.ReplaceAllString(line, ansiRed+"$1"+ansiReset+": ")
		}
		out[i] = line
	}
	return out
}

// ExecResult is what executing a cell produced.
type ExecResult struct {
	Data, Metadata map[string]any // value of the last expression, nil: none
	Err            *ExecError
}

// Interpreter is the language seam.
type Interpreter interface {
	Execute(ctx context.Context, code string) ExecResult
	Complete(code string, cursor int) (matches []string, start, end int) // byte offsets
	// Inspect documents the name at cursor as a MIME bundle (text/plain,
	// text/markdown); detail is Jupyter's detail_level (0 or 1).
	Inspect(code string, cursor, detail int) (data map[string]any, found bool)
	IsComplete(code string) (status, indent string)
	// Sync returns once output written by the interpreter so far reached its writers.
	Sync()
}

// Frontend is what the kernel offers an interpreter while it runs: output
// streams, displays and user input, all routed to the cell being executed.
type Frontend struct {
	Stdout, Stderr io.Writer
	Display        func(data, metadata map[string]any, id string, update bool)
	Clear          func(wait bool)
	Input          func(prompt string, password bool) (string, error)
	Error          func(e *ExecError) // an error outside the cell's own flow (goroutine panic)
}

// Kernel dispatches messages.
type Kernel struct {
	t       Transport
	interp  Interpreter
	session string
	pub     *publisher
	Logf    func(format string, args ...any)
	// OnError, if set, is called when a cell fails with stop_on_error, before
	// its reply is sent: the transport aborts the execute requests queued
	// behind it.
	OnError func()

	mu       sync.Mutex
	count    int
	parent   *wire.Message // execute_request being served (or last one)
	cancel   context.CancelFunc
	inputCh  chan inputReply
	history  []histEntry
	shutdown chan bool // receives restart flag
}

type inputReply struct {
	value string
	err   error
}

type histEntry struct {
	session, line int
	input, output string
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

// Flush waits until all IOPub output has been handed to the transport.
func (k *Kernel) Flush() { k.pub.flush() }

func (k *Kernel) currentParent() *wire.Message {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.parent
}

type streamWriter struct {
	k    *Kernel
	name string
}

func (w streamWriter) Write(b []byte) (int, error) {
	w.k.pub.stream(w.k.currentParent(), w.name, b)
	return len(b), nil
}

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

func (k *Kernel) display(data, metadata map[string]any, id string, update bool) {
	c := map[string]any{"data": data, "metadata": orEmpty(metadata), "transient": map[string]any{}}
	if id != "" {
		c["transient"] = map[string]any{"display_id": id}
	}
	if update {
		k.publish("update_display_data", c)
	} else {
		k.publish("display_data", c)
	}
}

func (k *Kernel) clear(wait bool) { k.publish("clear_output", map[string]any{"wait": wait}) }

var errNoStdin = errors.New("input is not available: the front end does not allow stdin for this request")

func (k *Kernel) input(prompt string, password bool) (string, error) {
	k.mu.Lock()
	parent := k.parent
	k.mu.Unlock()
	if parent == nil || !allowStdin(parent) {
		return "", errNoStdin
	}
	// output before the prompt must appear before it
	k.interp.Sync()
	k.pub.flush()
	select { // drop a stale reply
	case <-k.inputCh:
	default:
	}
	m, err := wire.NewMessage("input_request", k.session, parent, map[string]any{"prompt": prompt, "password": password})
	if err != nil {
		return "", err
	}
	m.Identities = parent.Identities
	if err := k.t.Send(Stdin, m); err != nil {
		return "", err
	}
	r := <-k.inputCh // an interrupt also answers, with an error
	return r.value, r.err
}

func allowStdin(m *wire.Message) bool {
	var c struct {
		AllowStdin *bool `json:"allow_stdin"`
	}
	_ = json.Unmarshal(m.Content, &c)
	return c.AllowStdin != nil && *c.AllowStdin
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

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
		select {
		case k.shutdown <- c.Restart:
		default:
		}
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

func (k *Kernel) kernelInfo() map[string]any {
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       wire.ProtocolVersion,
		"implementation":         "tracebook",
		"implementation_version": Version,
		"language_info": map[string]any{
			"name":               "go",
			"version":            goVersion,
			"mimetype":           "text/x-go",
			"file_extension":     ".go",
			"pygments_lexer":     "go",
			"codemirror_mode":    "go",
			"nbconvert_exporter": "",
		},
		"banner": fmt.Sprintf("tracebook %s: Go %s interpreted by yaegi, with trace-analysis builtins. %%help lists them.", Version, goVersion),
		"help_links": []map[string]string{
			{"text": "tracebook README", "url": "https://github.com/tracebook/tracebook#readme"},
			{"text": "Go documentation", "url": "https://go.dev/doc/"},
			{"text": "Go standard library", "url": "https://pkg.go.dev/std"},
		},
		"debugger": false,
	}
}

type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// execute runs an execute_request. It returns whether it failed.
func (k *Kernel) execute(ch Channel, m *wire.Message) bool {
	var req executeRequest
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.reply(ch, m, "execute_reply", map[string]any{"status": "error", "ename": "BadRequest",
			"evalue": "execute_request content: " + err.Error(), "traceback": []string{}, "execution_count": k.count})
		return true
	}
	store := !req.Silent && (req.StoreHistory == nil || *req.StoreHistory)
	k.mu.Lock()
	if store {
		k.count++
	}
	count := k.count
	ctx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	k.parent = m
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.cancel = nil
		k.mu.Unlock()
		cancel()
	}()
	if !req.Silent {
		k.publishTo(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}
	if name, detail, ok := helpQuery(req.Code); ok {
		// "name?", "?name" and "name??" show the documentation of name in the pager
		data, found := k.interp.Inspect(name, len(name), detail)
		if !found {
			data = map[string]any{"text/plain": "no documentation found for " + name}
		}
		k.pub.flush()
		k.reply(ch, m, "execute_reply", map[string]any{"status": "ok", "execution_count": count, "user_expressions": map[string]any{},
			"payload": []any{map[string]any{"source": "page", "data": data, "start": 0}}})
		return false
	}
	res := k.interp.Execute(ctx, req.Code)
	k.interp.Sync()
	if store {
		k.mu.Lock()
		k.history = append(k.history, histEntry{session: 1, line: count, input: req.Code, output: plain(res.Data)})
		k.mu.Unlock()
	}
	if res.Err != nil {
		tb := res.Err.traceback()
		if !req.Silent {
			k.publishTo(m, "error", map[string]any{"ename": res.Err.Name, "evalue": res.Err.Value, "traceback": tb})
		}
		k.pub.flush()
		if k.OnError != nil && (req.StopOnError == nil || *req.StopOnError) {
			// before the reply, so that only requests already queued are aborted
			k.OnError()
		}
		k.reply(ch, m, "execute_reply", map[string]any{"status": "error", "execution_count": count,
			"ename": res.Err.Name, "evalue": res.Err.Value, "traceback": tb})
		return true
	}
	if res.Data != nil && !req.Silent {
		k.publishTo(m, "execute_result", map[string]any{"execution_count": count, "data": res.Data, "metadata": orEmpty(res.Metadata)})
	}
	ue := map[string]any{}
	for name, expr := range req.UserExpressions {
		r := k.interp.Execute(ctx, expr) // interruptible like the cell
		if r.Err != nil {
			ue[name] = map[string]any{"status": "error", "ename": r.Err.Name, "evalue": r.Err.Value, "traceback": r.Err.traceback()}
		} else {
			d := r.Data
			if d == nil {
				d = map[string]any{"text/plain": ""}
			}
			ue[name] = map[string]any{"status": "ok", "data": d, "metadata": orEmpty(r.Metadata)}
		}
	}
	k.pub.flush()
	k.reply(ch, m, "execute_reply", map[string]any{"status": "ok", "execution_count": count,
		"user_expressions": ue, "payload": []any{}})
	return false
}

// Abort answers a queued execute_request without running it.
func (k *Kernel) Abort(ch Channel, m *wire.Message) {
	k.status(m, "busy")
	k.reply(ch, m, "execute_reply", map[string]any{"status": "aborted", "execution_count": k.count})
	k.status(m, "idle")
}

// helpQuery recognises "name?" and "pkg.Name?" cells.
// helpQuery recognizes IPython's help syntax on a one-line cell: "expr?"
// or "?expr" (detail 0) and "expr??" or "??expr" (detail 1), where expr is
// a Go expression such as strings.Fields or a.Similarity, or the beginning of
// a call with unclosed parentheses ("align.Runs(a, ?").
func helpQuery(code string) (expr string, detail int, ok bool) {
	c := strings.TrimSpace(code)
	if strings.Contains(c, "\n") {
		return "", 0, false
	}
	switch {
	case strings.HasPrefix(c, "??"):
		c, detail = c[2:], 1
	case strings.HasPrefix(c, "?"):
		c = c[1:]
	case strings.HasSuffix(c, "??"):
		c, detail = c[:len(c)-2], 1
	case strings.HasSuffix(c, "?"):
		c = c[:len(c)-1]
	default:
		return "", 0, false
	}
	c = strings.TrimSpace(c)
	if c == "" {
		return "", 0, false
	}
	if _, err := parser.ParseExpr(c); err != nil && strings.Count(c, "(") <= strings.Count(c, ")") {
		return "", 0, false
	}
	// an expression, or the start of a call ("align.Runs(a, ?"): the interpreter documents
	// the called function
	return c, detail, true
}

func plain(d map[string]any) string {
	if d == nil {
		return ""
	}
	s, _ := d["text/plain"].(string)
	return s
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

func (k *Kernel) historyReply(ch Channel, m *wire.Message) {
	var c struct {
		Output  bool   `json:"output"`
		Access  string `json:"hist_access_type"`
		Session int    `json:"session"`
		Start   int    `json:"start"`
		Stop    *int   `json:"stop"`
		N       int    `json:"n"`
		Pattern string `json:"pattern"`
		Unique  bool   `json:"unique"`
	}
	_ = json.Unmarshal(m.Content, &c)
	k.mu.Lock()
	all := append([]histEntry(nil), k.history...)
	k.mu.Unlock()
	var sel []histEntry
	switch c.Access {
	case "tail":
		n := c.N
		if n <= 0 || n > len(all) {
			n = len(all)
		}
		sel = all[len(all)-n:]
	case "range":
		for _, h := range all {
			if h.line >= c.Start && (c.Stop == nil || h.line < *c.Stop) {
				sel = append(sel, h)
			}
		}
	case "search":
		seen := map[string]bool{}
		for i := len(all) - 1; i >= 0; i-- {
			h := all[i]
			if !globMatch(c.Pattern, h.input) {
				continue
			}
			if c.Unique && seen[h.input] {
				continue
			}
			seen[h.input] = true
			sel = append([]histEntry{h}, sel...)
		}
		if c.N > 0 && len(sel) > c.N {
			sel = sel[len(sel)-c.N:]
		}
	}
	out := make([]any, 0, len(sel))
	for _, h := range sel {
		if c.Output {
			out = append(out, []any{h.session, h.line, []any{h.input, h.output}})
		} else {
			out = append(out, []any{h.session, h.line, h.input})
		}
	}
	k.reply(ch, m, "history_reply", map[string]any{"status": "ok", "history": out})
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

// Backlogger is a transport that tells how many messages wait for the least
// busy subscriber of a channel. The transport drops messages for a
// subscriber that falls too far behind (so a stopped one cannot stall the
// others); the publisher paces itself on the least busy one, so a healthy
// client loses nothing however fast a cell prints.
type Backlogger interface {
	Backlog(ch Channel) int
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

// execute2 handles an execute_request like Handle and reports failure.
func (k *Kernel) execute2(m *wire.Message) (failed bool) {
	k.status(m, "busy")
	defer func() {
		if r := recover(); r != nil {
			k.Logf("tracebook: execute panicked: %v", r)
			failed = true
		}
		k.pub.flush()
		k.status(m, "idle")
	}()
	return k.execute(Shell, m)
}

// globMatch matches like Python's fnmatch (IPython's history search): "*"
// is any run of characters, newlines included; "?" is one character.
func globMatch(pattern, s string) bool {
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}
