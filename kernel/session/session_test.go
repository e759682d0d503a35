package session

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/kernel"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func newTest(t *testing.T) (*Session, *syncBuf, *syncBuf, chan *kernel.ExecError) {
	t.Helper()
	out, errb := &syncBuf{}, &syncBuf{}
	panics := make(chan *kernel.ExecError, 4)
	s, err := New(Options{IO: kernel.Frontend{Stdout: out, Stderr: errb, Error: func(e *kernel.ExecError) { panics <- e }},
		Symbols: symbols.Symbols, Preimport: []string{"github.com/tracebook/tracebook/builtins/display"}})
	if err != nil {
		t.Fatal(err)
	}
	return s, out, errb, panics
}

func text(r kernel.ExecResult) string {
	if r.Data == nil {
		return ""
	}
	s, _ := r.Data["text/plain"].(string)
	return s
}

func mustRun(t *testing.T, s *Session, code string) kernel.ExecResult {
	t.Helper()
	r := s.Execute(context.Background(), code)
	if r.Err != nil {
		t.Fatalf("cell %q: %s: %s\n%s", code, r.Err.Name, r.Err.Value, strings.Join(r.Err.Traceback, "\n"))
	}
	return r
}

func TestMixedCellAndState(t *testing.T) {
	s, out, _, _ := newTest(t)
	r := mustRun(t, s, `
x := 40
type P struct{ A, B int }
func add(p P) int { return p.A + p.B + x }
import "strings"
const k = 2
y := add(P{1, 1})
strings.Repeat("a", k) + fmt.Sprint(y)`)
	if got := text(r); got != `"aa42"` {
		t.Fatalf("last value %q", got)
	}
	mustRun(t, s, `fmt.Println("hello", x)`)
	if out.String() != "hello 40\n" {
		t.Fatalf("stdout %q", out.String())
	}
	if got := text(mustRun(t, s, "x + 2")); got != "42" {
		t.Fatalf("persisted var: %q", got)
	}
	if got := text(mustRun(t, s, "y := 3")); got != "" {
		t.Fatalf("assignment displayed %q", got)
	}
}

func TestRedefinitionReachesCallers(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, "func f(n int) int { return n + 1 }\nfunc g(n int) int { return f(n) * 10 }")
	if got := text(mustRun(t, s, "g(2)")); got != "30" {
		t.Fatalf("g(2) = %s", got)
	}
	mustRun(t, s, "func f(n int) int { return n + 2 }")
	if got := text(mustRun(t, s, "g(2)")); got != "40" {
		t.Fatalf("after redefinition g(2) = %s, want 40", got)
	}
	// recursion and a changed signature
	mustRun(t, s, "func fib(n int) int { if n < 2 { return n }; return fib(n-1) + fib(n-2) }")
	if got := text(mustRun(t, s, "fib(15)")); got != "610" {
		t.Fatalf("fib %s", got)
	}
	mustRun(t, s, "func f(a, b int) string { return fmt.Sprint(a * b) }")
	if got := text(mustRun(t, s, "f(6, 7)")); got != `"42"` {
		t.Fatalf("new signature %s", got)
	}
}

func TestErrorsPointToCellLines(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, "a, b := 1, 2")
	r := s.Execute(context.Background(), "a2 := 1\nb2 := 2\nc := zz + a2")
	if r.Err == nil || !strings.Contains(r.Err.Value, "cell line 3:") || !strings.Contains(r.Err.Value, "zz") {
		t.Fatalf("compile error %+v", r.Err)
	}
	// an undefined name in a later definition: that name, not a name an
	// earlier statement of the cell defines and uses
	for _, c := range []string{"d1 := 1\nfmt.Println(d1)\ny1 := zz", "d2 := 1\nfmt.Println(d2)\nvar y2 = zz"} {
		r = s.Execute(context.Background(), c)
		if r.Err == nil || !strings.Contains(r.Err.Value, "cell line 3:") || !strings.Contains(r.Err.Value, "undefined: zz") {
			t.Fatalf("%q: compile error %+v", c, r.Err)
		}
	}
	r = s.Execute(context.Background(), "x := 1\n\ny := (x +")
	if r.Err == nil || r.Err.Name != "SyntaxError" || !strings.Contains(r.Err.Value, "cell line 3") {
		t.Fatalf("syntax error %+v", r.Err)
	}
	r = s.Execute(context.Background(), "var m map[string]int\nfunc boom() { m[\"a\"] = 1 }\n\nboom()")
	if r.Err == nil || r.Err.Name != "panic" || !strings.Contains(strings.Join(r.Err.Traceback, "\n"), "cell line 2") {
		t.Fatalf("panic %+v", r.Err)
	}
	// inside a function of several lines: the line of the statement that
	// panicked, not the function's first (yaegi v0.16.1 reported that)
	r = s.Execute(context.Background(), "func deep() {\n\tx := 1\n\t_ = x\n\tvar m map[string]int\n\tm[\"a\"] = 1\n}\n\ndeep()")
	if tb := strings.Join(r.Err.Traceback, "\n"); !strings.Contains(tb, "cell line 5:") || strings.Contains(tb, "cell line 2") {
		t.Fatalf("panic in a function %+v", r.Err)
	}
	// the session survives
	if got := text(mustRun(t, s, "a + b")); got != "3" {
		t.Fatalf("after errors %q", got)
	}
	r = s.Execute(context.Background(), "%nosuch\n1")
	if r.Err == nil || !strings.Contains(r.Err.Value, "nosuch") {
		t.Fatalf("unknown magic %+v", r.Err)
	}
}

func TestGoroutinePanicIsReported(t *testing.T) {
	s, _, _, panics := newTest(t)
	mustRun(t, s, "done := make(chan int)\nfunc work(n int) { defer close(done); var m map[string]int; if n > 0 { m[\"x\"] = n } }\ngo work(1)\n<-done")
	select {
	case e := <-panics:
		if !strings.Contains(strings.Join(e.Traceback, " "), "cell line 3") {
			t.Fatalf("goroutine panic %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("goroutine panic not reported")
	}
	if got := text(mustRun(t, s, "1 + 1")); got != "2" {
		t.Fatalf("session after goroutine panic %q", got)
	}
}

// Nested go statements and time.AfterFunc callbacks run on goroutines that
// the cell did not start directly; their panics must not kill the process.
func TestNestedGoroutineAndAfterFuncPanics(t *testing.T) {
	s, _, _, panics := newTest(t)
	cases := []struct{ code, line string }{
		{"go func() {\n\tgo func() { panic(\"inner\") }()\n}()\ntime.Sleep(100 * time.Millisecond)", "cell line 2"},
		{"x := 0\ntime.AfterFunc(time.Millisecond, func() { x++; panic(\"late\") })\ntime.Sleep(100 * time.Millisecond)", "cell line 2"},
	}
	for _, c := range cases {
		mustRun(t, s, c.code)
		select {
		case e := <-panics:
			if !strings.Contains(strings.Join(e.Traceback, " "), c.line) {
				t.Fatalf("%q: panic reported as %+v", c.code, e)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: panic not reported", c.code)
		}
	}
	if got := text(mustRun(t, s, "x")); got != "1" {
		t.Fatalf("AfterFunc callback state: x = %q", got)
	}
}

func TestInterruptKeepsState(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, "count := 0")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	t0 := time.Now()
	r := s.Execute(ctx, "for { count++ }")
	if r.Err == nil || r.Err.Name != "Interrupted" {
		t.Fatalf("interrupt result %+v", r.Err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("interrupt took %v", d)
	}
	r = mustRun(t, s, "count > 0")
	if text(r) != "true" {
		t.Fatalf("state after interrupt %q", text(r))
	}
}

func TestAutoImportAndStdin(t *testing.T) {
	s, out, _, _ := newTest(t)
	if got := text(mustRun(t, s, `strings.ToUpper("go") + strconv.Itoa(sort.SearchInts([]int{1,2,3}, 2))`)); got != `"GO1"` {
		t.Fatalf("auto import %q", got)
	}
	s.SetInput(func(prompt string, pw bool) (string, error) { return "Ada", nil })
	mustRun(t, s, `var name string
fmt.Scanln(&name)
fmt.Println("hi", name)`)
	if !strings.Contains(out.String(), "hi Ada") {
		t.Fatalf("stdin: %q", out.String())
	}
	mustRun(t, s, `fmt.Fprintln(os.Stderr, "to stderr"); os.Stdout.WriteString("direct\n")`)
	if !strings.Contains(out.String(), "direct") {
		t.Fatalf("os.Stdout: %q", out.String())
	}
}

func TestCompleteInspectIsComplete(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, "import \"strings\"\nmyVariable := 42")
	m, start, end := s.Complete("strings.ToU", 11)
	if len(m) == 0 || m[0] != "ToUpper" || start != 8 || end != 11 {
		t.Fatalf("complete %v %d %d", m, start, end)
	}
	m, _, _ = s.Complete("myVa", 4)
	if len(m) != 1 || m[0] != "myVariable" {
		t.Fatalf("complete var %v", m)
	}
	d, ok := s.Inspect("strings.ToUpper", 10, 0)
	if txt, _ := d["text/plain"].(string); !ok || !strings.HasPrefix(txt, "func ToUpper(s string) string\n\nToUpper returns") {
		t.Fatalf("inspect %q %v", txt, ok)
	}
	if md, _ := d["text/markdown"].(string); !strings.Contains(md, "ToUpper returns") {
		t.Fatalf("inspect markdown %q", md)
	}
	if d, ok := s.Inspect("myVariable", 3, 0); !ok || !strings.Contains(d["text/plain"].(string), "int = 42") {
		t.Fatalf("inspect var %q", d["text/plain"])
	}
	for _, c := range []struct{ code, status, indent string }{
		{"x := 1", "complete", ""},
		{"func f() {", "incomplete", "\t"},
		{"for i := 0; i < 3; i++ {\n", "incomplete", "\t"},
		{"func g() {\n\tfor {\n", "incomplete", "\t\t"},
		{"// {\nfunc h() {", "incomplete", "\t"}, // braces in comments do not count
		{"s := \"{\"\nfunc h() {", "incomplete", "\t"},
		{"fmt.Println(", "incomplete", "\t"},
		{"x := f(1,", "incomplete", "\t"},
		{"x := 1 +", "incomplete", "\t"},
		{"x := (1 +", "incomplete", "\t"},
		{"x := )", "invalid", ""},
		{"x := 1 }", "invalid", ""},
		{"func ( {}", "invalid", ""},
		{"x := := 2", "invalid", ""},
		{"if x {\n} else", "incomplete", "\t"},
		{"s := `abc", "incomplete", "\t"},
		{"x++", "complete", ""},
	} {
		if got, indent := s.IsComplete(c.code); got != c.status || indent != c.indent {
			t.Errorf("IsComplete(%q) = %s %q, want %s %q", c.code, got, indent, c.status, c.indent)
		}
	}
}

func TestMagics(t *testing.T) {
	s, out, _, _ := newTest(t)
	mustRun(t, s, "answer := 42")
	r := mustRun(t, s, "%who")
	if !strings.Contains(text(r), "answer") || !strings.Contains(text(r), "42") {
		t.Fatalf("who %q", text(r))
	}
	mustRun(t, s, "%time\nz := 0\nfor i := 0; i < 1000; i++ { z += i }")
	if !strings.Contains(out.String(), "wall time:") {
		t.Fatalf("time %q", out.String())
	}
	mustRun(t, s, "func two(ok bool) (int, error) { if ok { return 7, nil }; return 0, errors.New(\"bad input\") }")
	if got := text(mustRun(t, s, "two(true)")); got != "7" {
		t.Fatalf("(v, nil) shows %q", got)
	}
	if got := text(mustRun(t, s, "two(false)")); got != "error: bad input" {
		t.Fatalf("(v, err) shows %q", got)
	}
	if got := text(mustRun(t, s, "strings.Cut(\"a=b\", \"=\")")); got != `("a", "b", true)` {
		t.Fatalf("multiple values show %q", got)
	}
	if r := mustRun(t, s, "display.Show(1)"); r.Data != nil {
		t.Fatalf("a call without results displayed %v", r.Data)
	}
	r = mustRun(t, s, "%help")
	if md, _ := r.Data["text/markdown"].(string); !strings.Contains(md, "display.Show") {
		t.Fatalf("help %v", r.Data)
	}
}

// The last value of a cell as the analyst sees it: multi-line strings as
// their text, nil (an untyped nil, a nil error) as nothing.
func TestLastValueRendering(t *testing.T) {
	s, _, _, _ := newTest(t)
	for _, c := range []struct {
		code, want string
		none       bool // no output at all
	}{
		{code: `"one line"`, want: `"one line"`},
		{code: `"tab\there"`, want: `"tab\there"`},
		{code: `"first\nsecond\n"`, want: "first\nsecond\n"},
		{code: "`raw\n\"quoted\"`", want: "raw\n\"quoted\""},
		{code: `os.RemoveAll(filepath.Join(os.TempDir(), "tracebook-no-such-dir"))`, none: true},
		{code: "var e error\ne", none: true},
		{code: "nil", none: true},
		{code: "var p *int\np", want: "<nil>"},
		{code: `strings.Cut("a\nb", "\n")`, want: `("a", "b", true)`},
		{code: `errors.New("bad\ninput")`, want: "error: bad\ninput"},
	} {
		r := mustRun(t, s, c.code)
		if c.none {
			if r.Data != nil {
				t.Errorf("%q shows %q, want nothing", c.code, text(r))
			}
			continue
		}
		if got := text(r); got != c.want {
			t.Errorf("%q shows %q, want %q", c.code, got, c.want)
		}
	}
}
