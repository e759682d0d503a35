package session

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"

	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/kernel"
)

// TestBuiltinErrors: a builtin's *work.Error is shown as an error named
// after the builtin, with its message; wrapped, it keeps the wrapping text;
// other panics stay "panic"; an interrupted builtin is "Interrupted".
func TestBuiltinErrors(t *testing.T) {
	syms := interp.Exports{"errtest/errtest": {
		"Boxes": reflect.ValueOf(func(bins int) int {
			if bins <= 0 {
				work.Fail("profile.Boxes", "bins is %d; it must be positive", bins)
			}
			return bins
		}),
		"Load": reflect.ValueOf(func() {
			panic(fmt.Errorf("loading a.otf2: %w", work.Errorf("trace.Open", "no such file")))
		}),
		"Crash":     reflect.ValueOf(func() { panic("boom") }),
		"Anonymous": reflect.ValueOf(func() { panic(&work.Error{Msg: "no name"}) }),
		"Wait": reflect.ValueOf(func() {
			defer work.RecoverAs("fold.Wait")
			for {
				work.Check()
			}
		}),
	}}
	s, err := New(Options{IO: kernel.Frontend{}, Symbols: syms})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, `import "errtest"`)
	for _, c := range []struct {
		code, name, value, tb0 string
	}{
		{"n := errtest.Boxes(0)", "profile.Boxes", "bins is 0; it must be positive", "profile.Boxes: bins is 0; it must be positive"},
		{"errtest.Load()", "trace.Open", "loading a.otf2: trace.Open: no such file", "trace.Open: loading a.otf2: trace.Open: no such file"},
		{"errtest.Crash()", "panic", "boom", "panic: boom"},
		{"errtest.Anonymous()", "panic", ": no name", "panic: : no name"},
	} {
		r := s.Execute(context.Background(), c.code)
		if r.Err == nil {
			t.Errorf("%s: no error", c.code)
			continue
		}
		if r.Err.Name != c.name || !strings.HasPrefix(r.Err.Value, c.value) || len(r.Err.Traceback) == 0 || r.Err.Traceback[0] != c.tb0 &&
			!strings.HasPrefix(r.Err.Traceback[0], c.tb0) {
			t.Errorf("%s:\n got %s: %q %q\nwant %s: %q %q", c.code, r.Err.Name, r.Err.Value, r.Err.Traceback, c.name, c.value, c.tb0)
		}
		if c.name != "panic" && r.Err.Value != c.value {
			t.Errorf("%s: value %q, want exactly %q", c.code, r.Err.Value, c.value)
		}
	}
	// the cell position follows in the traceback
	r := s.Execute(context.Background(), "x := 1\nerrtest.Boxes(-x)")
	if r.Err == nil || len(r.Err.Traceback) < 2 || !strings.Contains(r.Err.Traceback[1], "cell line 2") {
		t.Errorf("traceback of a builtin error lacks the cell line: %+v", r.Err)
	}
	// a builtin stopped by an interrupt is interrupted, not its error
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = s.Execute(ctx, "errtest.Wait()")
	if r.Err == nil || r.Err.Name != "Interrupted" {
		t.Errorf("interrupted builtin: %+v", r.Err)
	}
	// and the session goes on
	if r := mustRun(t, s, "errtest.Boxes(3)"); text(r) != "3" {
		t.Errorf("after the errors: %q", text(r))
	}
}
