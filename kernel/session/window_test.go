package session

import (
	"strings"
	"testing"
)

// Windows from a cell: untyped constants are ns, time.Duration values
// carry their unit, Span feeds Window, and the result is a trace.
func TestWindowFromCell(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, `import "github.com/tracebook/tracebook/builtins/trace"`)
	mustRun(t, s, `import "github.com/tracebook/tracebook/builtins/trace/synth"`)
	mustRun(t, s, `cfg := synth.DefaultGenConfig()
cfg.MPI = true
tr := synth.Generate(cfg)
a := tr.Window(1e6, 2e6)
b := tr.Window(time.Millisecond, 2*time.Millisecond)
c := tr.Window(tr.Span("solve", 1, 3))`)
	if r := text(mustRun(t, s, `a.NumEvents() == b.NumEvents() && a.NumEvents() > 0`)); r != "true" {
		t.Errorf("Window(1e6, 2e6) and Window(time.Millisecond, 2*time.Millisecond) differ: %s", r)
	}
	if r := text(mustRun(t, s, `c.String() + " " + tr.Main().Between("solve", 1, 3).String()`)); !strings.Contains(r, "Window(") || !strings.Contains(r, `Main() · Between(`) {
		t.Errorf("cuts from a cell: %s", r)
	}
}
