package session

import (
	"context"
	"strings"
	"testing"
)

// No panic of the interpreter leaves Execute: inputs that made yaegi panic
// in the session's own evaluations (naming the cell's types after it ran,
// probing a type declared again) or in compiling the cell are errors of
// the cell, naming its line, or are handled.
func TestInterpreterPanicIsACellError(t *testing.T) {
	s, out, _, _ := newTest(t)
	for run := 0; run < 2; run++ {
		// a constraint type: (*C)(nil) made yaegi panic (typeparam/subdict.go)
		if r := s.Execute(context.Background(), "type C comparable\nfunc eq[T C](a, b T) bool { return a == b }\nfmt.Println(eq(1, 1))"); r.Err != nil {
			t.Fatalf("run %d: %+v", run, r.Err)
		}
		// a recursive slice type: yaegi cannot build it
		if r := s.Execute(context.Background(), "type L []L"); r.Err != nil {
			t.Fatalf("run %d: %+v", run, r.Err)
		}
		r := s.Execute(context.Background(), "x := 1\n\nl := L{}")
		if r.Err == nil || r.Err.Name != "CompileError" || !strings.HasPrefix(r.Err.Value, "cell line 3: ") {
			t.Fatalf("run %d: %+v", run, r.Err)
		}
	}
	if got := out.String(); got != "true\ntrue\n" {
		t.Fatalf("output %q", got)
	}
}
