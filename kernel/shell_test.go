package kernel

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/kernel/wire"
)

// hookTransport is a fakeTransport that calls onSend after recording each
// message, in the sending goroutine: a test reacts to a reply at the exact
// point of the kernel's flow where it is sent.
type hookTransport struct {
	fakeTransport
	onSend func(ch Channel, m *wire.Message)
}

func (h *hookTransport) Send(ch Channel, m *wire.Message) error {
	_ = h.fakeTransport.Send(ch, m)
	if h.onSend != nil {
		h.onSend(ch, m)
	}
	return nil
}

func newHookKernel(t *testing.T) (*Kernel, *hookTransport) {
	ht := &hookTransport{}
	k, err := New(ht, func(fe Frontend) (Interpreter, error) { return &fakeInterp{fe}, nil })
	if err != nil {
		t.Fatal(err)
	}
	k.Logf = t.Logf
	return k, ht
}

// shellReplies lists the shell replies in the order sent, each as
// "msg_id-of-request=status" (kernel_info and others: "msg_id=type").
func shellReplies(t *testing.T, ss []sent, ids map[string]string) []string {
	var out []string
	for _, s := range ss {
		if s.ch != Shell {
			continue
		}
		name := ids[parentID(s.m)]
		if s.m.Header.MsgType == "execute_reply" {
			out = append(out, name+"="+content(t, s.m)["status"].(string))
		} else {
			out = append(out, name+"="+s.m.Header.MsgType)
		}
	}
	return out
}

// streams returns the stream text published, in order.
func streams(t *testing.T, ss []sent) string {
	var b strings.Builder
	for _, s := range ss {
		if s.m.Header.MsgType == "stream" {
			b.WriteString(content(t, s.m)["text"].(string))
		}
	}
	return b.String()
}

// queue returns a closed queue holding the requests, and the names of
// their message ids.
func queue(t *testing.T, reqs ...*wire.Message) (chan *wire.Message, map[string]string) {
	q := make(chan *wire.Message, len(reqs)+8)
	ids := map[string]string{}
	for i, r := range reqs {
		q <- r
		ids[r.Header.MsgID] = fmt.Sprint(i)
	}
	return q, ids
}

func exec(t *testing.T, code string, extra ...any) *wire.Message {
	c := map[string]any{"code": code}
	for i := 0; i+1 < len(extra); i += 2 {
		c[extra[i].(string)] = extra[i+1]
	}
	return request(t, "execute_request", c)
}

func TestShellQueueOrder(t *testing.T) {
	k, ft := newHookKernel(t)
	q, ids := queue(t, exec(t, "print a"), request(t, "kernel_info_request", map[string]any{}),
		exec(t, "print b"), exec(t, "value c"), request(t, "is_complete_request", map[string]any{"code": "x"}),
		exec(t, "print d"))
	close(q)
	k.ServeShell(q)
	ss := take(k, &ft.fakeTransport)
	got := strings.Join(shellReplies(t, ss, ids), " ")
	want := "0=ok 1=kernel_info_reply 2=ok 3=ok 4=is_complete_reply 5=ok"
	if got != want {
		t.Fatalf("replies\n got %s\nwant %s", got, want)
	}
	if s := streams(t, ss); s != "abd" {
		t.Fatalf("output %q, want \"abd\"", s)
	}
}

func TestShellStopOnError(t *testing.T) {
	k, ht := newHookKernel(t)
	q, ids := queue(t, exec(t, "print a"), exec(t, "fail"), exec(t, "print b"),
		request(t, "kernel_info_request", map[string]any{}), exec(t, "print c"),
		request(t, "complete_request", map[string]any{"code": "he"}))
	// A request sent once the failed cell's reply is out is not aborted.
	later := exec(t, "print d")
	ids[later.Header.MsgID] = "later"
	failID := ""
	for m := range ids {
		if ids[m] == "1" {
			failID = m
		}
	}
	ht.onSend = func(ch Channel, m *wire.Message) {
		if ch == Shell && parentID(m) == failID {
			q <- later
			close(q)
		}
	}
	k.ServeShell(q)
	ss := take(k, &ht.fakeTransport)
	got := strings.Join(shellReplies(t, ss, ids), " ")
	// the queued executes are aborted before the failure's reply; the other
	// requests are deferred, run right after it, in order; later runs
	want := "0=ok 2=aborted 4=aborted 1=error 3=kernel_info_reply 5=complete_reply later=ok"
	if got != want {
		t.Fatalf("replies\n got %s\nwant %s", got, want)
	}
	if s := streams(t, ss); s != "ad" {
		t.Fatalf("output %q, want \"ad\": aborted cells ran", s)
	}
	// every aborted request is framed by busy and idle, parented to it
	for _, s := range ss {
		if s.m.Header.MsgType == "execute_input" && (ids[parentID(s.m)] == "2" || ids[parentID(s.m)] == "4") {
			t.Fatalf("aborted request %s was started", ids[parentID(s.m)])
		}
	}
	states := map[string][]string{}
	for _, s := range ss {
		if s.m.Header.MsgType == "status" {
			id := ids[parentID(s.m)]
			states[id] = append(states[id], content(t, s.m)["execution_state"].(string))
		}
	}
	for _, id := range []string{"2", "4"} {
		if g := strings.Join(states[id], " "); g != "busy idle" {
			t.Errorf("status of aborted %s: %q, want \"busy idle\"", id, g)
		}
	}
}

func TestShellNoStopOnError(t *testing.T) {
	k, ft := newHookKernel(t)
	q, ids := queue(t, exec(t, "fail", "stop_on_error", false), exec(t, "print b"),
		exec(t, "fail"), exec(t, "print c", "silent", true), exec(t, "print e"))
	close(q)
	k.ServeShell(q)
	ss := take(k, &ft.fakeTransport)
	got := strings.Join(shellReplies(t, ss, ids), " ")
	// stop_on_error false: nothing is aborted; the second failure aborts
	// the rest
	want := "0=error 1=ok 3=aborted 4=aborted 2=error"
	if got != want {
		t.Fatalf("replies\n got %s\nwant %s", got, want)
	}
	if s := streams(t, ss); s != "b" {
		t.Fatalf("output %q, want \"b\"", s)
	}
}

// parentID is the msg_id of m's parent header ("" when it has none).
func parentID(m *wire.Message) string {
	var h struct {
		MsgID string `json:"msg_id"`
	}
	_ = json.Unmarshal(m.ParentHeader, &h)
	return h.MsgID
}
