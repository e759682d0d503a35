package serve

import (
	"sync/atomic"
	"testing"
	"time"
)

// Which parent changes end the kernel (the process test is in test/kernel/test_client.py,
// ParentWatch, killing the real parent of a real kernel).
func TestParentWatch(t *testing.T) {
	for _, c := range []struct {
		name      string
		start     int
		jpy       string
		watch     bool
		gone, not []int
	}{
		{"JPY_PARENT_PID is the parent: any change", 500, "500", true, []int{1, 42, 501}, []int{500}},
		{"no JPY_PARENT_PID: reparented to init", 500, "", true, []int{1}, []int{500, 42}},
		{"JPY_PARENT_PID of another process (a wrapper)", 500, "77", true, []int{1}, []int{500, 77}},
		{"JPY_PARENT_PID not a number", 500, "x", true, []int{1}, []int{500}},
		{"started by init", 1, "1", false, nil, nil},
	} {
		gone, watch := parentWatch(c.start, c.jpy)
		if watch != c.watch {
			t.Errorf("%s: watch = %v", c.name, watch)
			continue
		}
		for _, p := range c.gone {
			if !gone(p) {
				t.Errorf("%s: parent %d not taken as gone", c.name, p)
			}
		}
		for _, p := range c.not {
			if gone(p) {
				t.Errorf("%s: parent %d taken as gone", c.name, p)
			}
		}
	}
}

// watchParent calls exit once, with the new parent, after the parent changed; stop ends it.
func TestWatchParentExitsOnce(t *testing.T) {
	var ppid atomic.Int64
	ppid.Store(500)
	started := make(chan struct{})
	getppid := func() int {
		p := int(ppid.Load())
		select {
		case <-started:
		default:
			close(started) // the first call, at the start of the watch
		}
		return p
	}
	exited := make(chan int, 2)
	done := make(chan struct{})
	go func() {
		watchParent(getppid, "500", time.Millisecond, nil, func(p int) { exited <- p })
		close(done)
	}()
	<-started
	ppid.Store(1)
	if p := <-exited; p != 1 {
		t.Errorf("exit(%d), want exit(1)", p)
	}
	<-done
	if len(exited) != 0 {
		t.Error("exit called twice")
	}

	stop := make(chan struct{})
	done = make(chan struct{})
	go func() {
		watchParent(func() int { return 500 }, "500", time.Millisecond, stop, func(int) { t.Error("exit with the parent alive") })
		close(done)
	}()
	close(stop)
	<-done
}
