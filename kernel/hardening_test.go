package kernel

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// An execute_request sent on control ran beside the cell and replaced its
// cancel function: interrupt then no longer stopped the cell (issue 29).
// Control serves only control requests; others get an error reply.
func TestControlRefusesShellRequests(t *testing.T) {
	k, ft := newKernel(t)
	done := startWaiting(t, k)
	k.Handle(Control, request(t, "execute_request", map[string]any{"code": "value 1"}))
	k.Handle(Control, request(t, "complete_request", map[string]any{"code": "x", "cursor_pos": 1}))
	var replies []string
	for _, s := range take(k, ft) {
		if s.ch == Control {
			c := content(t, s.m)
			replies = append(replies, fmt.Sprintf("%s:%v:%v", s.m.Header.MsgType, c["status"], c["ename"]))
		}
		if s.m.Header.MsgType == "execute_result" {
			t.Errorf("the execute_request sent on control ran: %s", s.m.Content)
		}
	}
	want := "execute_reply:error:WrongChannel complete_reply:error:WrongChannel"
	if got := strings.Join(replies, " "); got != want {
		t.Errorf("control replies %q, want %q", got, want)
	}
	k.Handle(Control, request(t, "interrupt_request", map[string]any{}))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("interrupt no longer stops the cell after a shell request on control")
	}
	k.Handle(Control, request(t, "kernel_info_request", map[string]any{}))
	for _, s := range take(k, ft) {
		if s.ch == Control && s.m.Header.MsgType == "kernel_info_reply" && content(t, s.m)["status"] != "ok" {
			t.Errorf("kernel_info on control: %s", s.m.Content)
		}
	}
}

// backlogTransport reports a backlog that drains as time passes (healthy)
// or never (stalled).
type backlogTransport struct {
	fakeTransport
	backlog atomic.Int64
	drain   bool
	waits   atomic.Int64
}

func (b *backlogTransport) Backlog(Channel) int {
	n := b.backlog.Load()
	if n > paceHigh {
		b.waits.Add(1)
	}
	if b.drain && n > 0 {
		b.backlog.Add(-50)
	}
	return int(n)
}

// The publisher waits for a healthy subscriber that is behind, and stops
// waiting for one that never catches up.
func TestPublisherPacing(t *testing.T) {
	healthy := &backlogTransport{drain: true}
	healthy.backlog.Store(1000)
	p := &publisher{t: healthy}
	p.pace()
	if healthy.backlog.Load() > paceHigh || p.stalled {
		t.Errorf("did not wait for a draining subscriber: backlog %d, stalled %v", healthy.backlog.Load(), p.stalled)
	}

	old := paceWait
	paceWait = 200 * time.Millisecond
	defer func() { paceWait = old }()
	stalled := &backlogTransport{}
	stalled.backlog.Store(1000)
	p = &publisher{t: stalled}
	p.pace()
	if !p.stalled {
		t.Fatal("a subscriber that never drains is not marked stalled")
	}
	before := stalled.waits.Load()
	for i := 0; i < 100; i++ {
		p.pace() // one look each, no more waiting while stalled
	}
	if n := stalled.waits.Load() - before; n > 100 {
		t.Errorf("the publisher kept waiting for a stalled subscriber (%d looks in 100 messages)", n)
	}
	stalled.backlog.Store(0)
	p.pace()
	if p.stalled {
		t.Error("a subscriber that caught up is still counted as stalled")
	}
}
