package session

import (
	"context"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/internal/memlimit"
	"github.com/tracebook/tracebook/kernel"

	"github.com/traefik/yaegi/interp"
)

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Issue 29, defect 8: re-running a cell frees what its previous run held.
func TestRerunFreesMemory(t *testing.T) {
	s, _, _, _ := newTest(t)
	const cell = "big := make([]byte, 200<<20)\nbig[len(big)-1] = 1"
	mustRun(t, s, cell)
	one := liveHeap()
	for i := 0; i < 9; i++ {
		mustRun(t, s, cell)
	}
	ten := liveHeap()
	t.Logf("heap after 1 run %d MB, after 10 runs %d MB", one>>20, ten>>20)
	if float64(ten) > 1.5*float64(one) {
		t.Fatalf("heap after 10 runs of a 200 MB cell: %d MB, after one: %d MB", ten>>20, one>>20)
	}
	if got := text(mustRun(t, s, "len(big) + int(big[len(big)-1])")); got != "209715201" {
		t.Fatalf("len(big) + last = %s", got)
	}
}

// Issue 29, defect 9: unbounded recursion in a cell is an error of the
// cell naming the function, and the session and its state survive it.
// It runs in a child process: before, Go's fatal "stack overflow" ended
// the process.
func TestRecursionIsACellError(t *testing.T) {
	memlimit.Run(t, 4<<30, testRecursionIsACellError)
}

func testRecursionIsACellError(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, "x := 41")
	for _, cell := range []string{
		"func f(n int) int { return f(n+1) }\nf(0)",
		"func g(n int) int { return 1 + g(n+1) }\ng(0) + x",
		"type Node struct{ next *Node }\nfunc (n *Node) Len() int { return 1 + n.Len() }\n(&Node{}).Len()",
	} {
		r := s.Execute(context.Background(), cell)
		if r.Err == nil || !strings.Contains(r.Err.Value, "call depth exceeds") {
			t.Fatalf("cell %q: %+v, want a call depth error", cell, r.Err)
		}
		t.Log(r.Err.Value)
	}
	r := mustRun(t, s, "func depth(n int) int { if n == 0 { return 0 }; return 1 + depth(n-1) }\ndepth(5000) + x + 1")
	if got := text(r); got != "5042" {
		t.Fatalf("after the errors: %q", got)
	}
}

// Issue 29, defect 9: a make larger than the memory available is an error
// of the cell in work.Reserve's words, and the session and its state
// survive it. It runs in a child process whose address space is limited,
// so that the allocation fails (Go's fatal "out of memory") if it is
// attempted.
func TestHugeMakeIsACellError(t *testing.T) {
	memlimit.Run(t, 4<<30, func(t *testing.T) {
		t.Setenv("TRACEBOOK_MEMORY_LIMIT", "1G")
		testHugeMakeIsACellError(t)
	})
}

func testHugeMakeIsACellError(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, "x := 41")
	for _, cell := range []string{
		"b := make([]byte, 30<<30)",
		"m := make(map[int]int, 1<<31)",
		"xs := make([]int, 100<<20)\nxs = append(xs, xs...)",
	} {
		r := s.Execute(context.Background(), cell)
		if r.Err == nil || !strings.Contains(r.Err.Value, "of memory, only") {
			t.Fatalf("cell %q: %+v, want a memory error", cell, r.Err)
		}
		t.Log(r.Err.Value)
	}
	if got := text(mustRun(t, s, "x + 1")); got != "42" {
		t.Fatalf("after the errors: %q", got)
	}
}

// signalWriter passes writes on, and sends on seen once what it waits
// for has been written.
type signalWriter struct {
	syncBuf
	want string
	seen chan bool
}

func (w *signalWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuf.Write(p)
	if w.seen != nil && strings.Contains(w.syncBuf.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return n, err
}

// Issue 29, defect 10: an interrupt stops interpreted code, but a compiled
// call runs on until it returns. The reply names it, and the next cell
// waits for it instead of seeing the values it was given change.
func TestInterruptNamesRunningCompiledCall(t *testing.T) {
	started, release := make(chan bool), make(chan bool)
	fill := func(xs []int) {
		started <- true
		<-release
		xs[0] = 99
	}
	syms := interp.Exports{"tbtest/tbtest": {"Fill": reflect.ValueOf(fill)}}
	for k, v := range symbols.Symbols {
		syms[k] = v
	}
	errb := &signalWriter{want: "waiting for tbtest.Fill", seen: make(chan bool)}
	waiting := errb.seen
	s, err := New(Options{IO: kernel.Frontend{Stderr: errb}, Symbols: syms})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "import \"tbtest\"\nxs := []int{1, 2, 3}")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	r := s.Execute(ctx, "tbtest.Fill(xs)")
	if r.Err == nil || r.Err.Name != "Interrupted" || !strings.Contains(r.Err.Value, "tbtest.Fill, a compiled call, is still running in the background and may still change xs;") {
		t.Fatalf("interrupted cell: %+v", r.Err)
	}
	t.Log(r.Err.Value)
	next := make(chan kernel.ExecResult)
	go func() { next <- s.Execute(context.Background(), "xs[0]") }()
	select {
	case r := <-next:
		t.Fatalf("the next cell ran while tbtest.Fill runs: %q %+v", text(r), r.Err)
	case <-waiting:
	}
	close(release)
	if got := text(<-next); got != "99" {
		t.Fatalf("xs[0] after waiting: %q", got)
	}
}

// Interrupting a cell that waits for a compiled call gives up waiting:
// that cell does not run, and later cells run with a warning.
func TestInterruptTheWaitForACompiledCall(t *testing.T) {
	started, release := make(chan bool), make(chan bool)
	defer close(release)
	syms := interp.Exports{"tbtest/tbtest": {"Block": reflect.ValueOf(func() { started <- true; <-release })}}
	errb := &signalWriter{want: "waiting for tbtest.Block", seen: make(chan bool)}
	waiting := errb.seen
	s, err := New(Options{IO: kernel.Frontend{Stderr: errb}, Symbols: syms})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "import \"tbtest\"\nx := 1")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	if r := s.Execute(ctx, "tbtest.Block()"); r.Err == nil || r.Err.Name != "Interrupted" {
		t.Fatalf("interrupted cell: %+v", r.Err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { <-waiting; cancel() }()
	r := s.Execute(ctx, "x = 2")
	if r.Err == nil || !strings.Contains(r.Err.Value, "stopped waiting for tbtest.Block") {
		t.Fatalf("interrupted wait: %+v", r.Err)
	}
	if got := text(mustRun(t, s, "x")); got != "1" {
		t.Fatalf("x = %q: the cell whose wait was interrupted ran", got)
	}
	if !strings.Contains(errb.String(), "note: tbtest.Block, interrupted in an earlier cell, is still running") {
		t.Fatalf("stderr %q", errb.String())
	}
}
