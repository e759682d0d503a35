package session

import (
	"context"
	"strings"
	"testing"
)

// A panic of the interpreter while the session handles a cell is an error
// of the cell naming its line, never a crash of the host: a recursive slice
// type made yaegi panic in the session's naming of the cell's types (a
// panic that escaped Execute), after the cell had run.
func TestInterpreterPanicIsACellError(t *testing.T) {
	s, out, _, _ := newTest(t)
	for run := 0; run < 2; run++ {
		r := s.Execute(context.Background(), "fmt.Println(\"ran\")\ntype L []L")
		if r.Err == nil || r.Err.Name != "CompileError" || !strings.HasPrefix(r.Err.Value, "cell line 2: type L: ") {
			t.Fatalf("run %d: %+v", run, r.Err)
		}
		if out.String() != "" {
			t.Fatalf("the cell ran: %q", out.String())
		}
	}
	// nothing of the cell is left declared
	r := s.Execute(context.Background(), "var L int\nL")
	if r.Err != nil || text(r) != "0" {
		t.Fatalf("%+v %q", r.Err, text(r))
	}
}
