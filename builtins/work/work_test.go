package work

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/display"
)

func TestCheckFollowsTheCellContext(t *testing.T) {
	if Stopped() || Err() != nil {
		t.Fatal("background context reported as stopped")
	}
	ctx, cancel := context.WithCancel(context.Background())
	SetContext(ctx)
	defer SetContext(context.Background())
	j := Start("x", 10, "")
	if err := j.Add(1); err != nil {
		t.Fatalf("Add before cancel: %v", err)
	}
	cancel()
	// AfterFunc runs in its own goroutine: wait for the flag.
	deadline := time.Now().Add(5 * time.Second)
	for !Stopped() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(Err(), ErrInterrupted) || !errors.Is(j.Add(1), ErrInterrupted) {
		t.Fatalf("after cancel: Err %v, Add %v", Err(), j.Add(1))
	}
	func() {
		defer func() {
			if r := recover(); !Interrupted(r) {
				t.Fatalf("Check panicked with %v", r)
			}
		}()
		Check()
		t.Fatal("Check did not panic")
	}()
	func() {
		defer func() {
			if r := recover(); !Interrupted(r) {
				t.Fatalf("Job.Check panicked with %v", r)
			}
		}()
		j.Check()
		t.Fatal("Job.Check did not panic")
	}()
	// A new cell is not interrupted; a job of the old cell still is.
	SetContext(context.Background())
	if Stopped() || !errors.Is(j.Err(), ErrInterrupted) {
		t.Fatalf("new cell stopped %v, old job %v", Stopped(), j.Err())
	}
	var nilJob *Job
	if nilJob.Add(5) != nil || nilJob.Set(5) != nil {
		t.Fatal("nil job reports an interrupt in a running cell")
	}
	nilJob.Done()
}

func TestAlreadyCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	SetContext(ctx)
	defer SetContext(context.Background())
	if !Stopped() {
		t.Fatal("a cancelled context is not stopped")
	}
}

type rec struct{ updates []string }

func (r *rec) Display(data, _ map[string]any, id string, update bool) {
	r.updates = append(r.updates, data["text/plain"].(string))
}
func (r *rec) Clear(bool) {}

// A job shows no bar before ShowAfter and a bar with rate and ETA after;
// Done ends it as done, an interrupt as interrupted.
func TestJobShowsProgressOnlyWhenLong(t *testing.T) {
	r := &rec{}
	display.SetSink(r)
	defer display.SetSink(nil)
	clock := time.Unix(1000, 0)
	now = func() time.Time { return clock }
	defer func() { now = time.Now }()

	quick := Start("quick", 100, "rows")
	quick.Add(100)
	quick.Done()
	if len(r.updates) != 0 {
		t.Fatalf("a quick job showed a bar: %q", r.updates)
	}

	slow := Start("slow", 1000, "rows")
	slow.Add(10)
	clock = clock.Add(2 * time.Second)
	slow.Set(500)
	if len(r.updates) == 0 {
		t.Fatal("a job past ShowAfter showed no bar")
	}
	slow.Done()
	last := r.updates[len(r.updates)-1]
	if !strings.Contains(last, "1,000/1,000") || !strings.Contains(last, "done") {
		t.Fatalf("final bar %q", last)
	}

	ctx, cancel := context.WithCancel(context.Background())
	SetContext(ctx)
	defer SetContext(context.Background())
	stopped := Start("stopped", 1000, "rows")
	clock = clock.Add(2 * time.Second)
	stopped.Set(300)
	cancel()
	for !Stopped() {
		time.Sleep(time.Millisecond)
	}
	stopped.Done()
	last = r.updates[len(r.updates)-1]
	if !strings.Contains(last, "interrupted") || !strings.Contains(last, "300/1,000") {
		t.Fatalf("interrupted bar %q", last)
	}
}

func TestReserve(t *testing.T) {
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "1G")
	if err := Reserve("small", 1<<20); err != nil {
		t.Fatalf("1 MiB refused: %v", err)
	}
	if err := Reserve("table", 512<<20); err != nil {
		t.Fatalf("512 MiB of 1 GiB refused: %v", err)
	}
	err := Reserve("the DP matrix", 3<<30)
	var me *MemoryError
	if !errors.As(err, &me) || me.Need != 3<<30 || me.Available > 1<<30 {
		t.Fatalf("3 GiB of 1 GiB: %v", err)
	}
	if !strings.Contains(err.Error(), "the DP matrix needs 3.00 GiB") {
		t.Fatalf("message %q", err)
	}
	if n, ok := Available(); !ok || n > 1<<30 {
		t.Fatalf("Available %d %v", n, ok)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "512K": 512 << 10, "64M": 64 << 20, "2G": 2 << 30, "1.5GiB": 3 << 29, "3 GB": 3 << 30} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "G"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

func TestStopError(t *testing.T) {
	mem := &MemoryError{What: "x", Need: 2, Available: 1}
	wrapped := fmt.Errorf("step: %w", ErrInterrupted)
	for _, c := range []struct {
		v    any
		want error
	}{
		{ErrInterrupted, ErrInterrupted},
		{wrapped, wrapped},
		{mem, mem},
		{errors.New("other"), nil},
		{"a string panic", nil},
		{nil, nil},
	} {
		if got := StopError(c.v); got != c.want {
			t.Errorf("StopError(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}
