package session

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/kernel"
)

// The habits table (testdata/habits.txt) holds sequences of cells of
// ordinary Go that notebook users write, each with its exact output. The
// same file drives test/kernel/test_client.py's real-client run of the
// sequences marked "client".
//
// Format: "=== name [client]" starts a sequence; "--- cell" starts a cell,
// "--- want" its expected output: stdout as printed, then "= value" for a
// shown value (text/plain), "! Name: message" for an error and
// "goroutine panic: message" for a panic in a goroutine.

type habitStep struct{ cell, want string }

type habit struct {
	name   string
	client bool
	steps  []habitStep
}

func loadHabits(t *testing.T, file string) []habit {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var hs []habit
	var cur *[]string
	var cell, want []string
	flush := func() {
		if len(hs) > 0 && cur != nil {
			h := &hs[len(hs)-1]
			h.steps = append(h.steps, habitStep{strings.Join(cell, "\n"), strings.Join(want, "\n")})
		}
		cell, want, cur = nil, nil, nil
	}
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "=== "):
			flush()
			name := strings.TrimPrefix(l, "=== ")
			client := strings.HasSuffix(name, " [client]")
			hs = append(hs, habit{name: strings.TrimSuffix(name, " [client]"), client: client})
		case l == "--- cell":
			flush()
			cur = &cell
		case l == "--- want":
			cur = &want
		case cur != nil:
			*cur = append(*cur, l)
		}
	}
	flush()
	for i := range hs {
		for j := range hs[i].steps {
			s := &hs[i].steps[j]
			s.cell = strings.TrimRight(s.cell, "\n")
			s.want = strings.TrimRight(s.want, "\n")
		}
	}
	return hs
}

// habitOutput runs one cell and writes what the user sees in the table's
// format.
func habitOutput(s *Session, out, errb *syncBuf, panics chan *kernel.ExecError, cell string) string {
	out.reset()
	errb.reset()
	r := s.Execute(context.Background(), cell)
	s.Sync()
	var b strings.Builder
	b.WriteString(out.String())
	if e := errb.String(); e != "" {
		for _, l := range strings.Split(strings.TrimRight(e, "\n"), "\n") {
			b.WriteString("stderr: " + l + "\n")
		}
	}
	if v := text(r); v != "" {
		b.WriteString("= " + v + "\n")
	}
	if r.Err != nil {
		b.WriteString("! " + r.Err.Name + ": " + r.Err.Value + "\n")
	}
	// a panic in a goroutine arrives asynchronously
	wait := time.Duration(0)
	if strings.Contains(cell, "go func") {
		wait = 500 * time.Millisecond
	}
	select {
	case e := <-panics:
		b.WriteString("goroutine panic: " + e.Value + "\n")
	case <-time.After(wait):
	}
	return strings.TrimRight(b.String(), "\n")
}

func TestHabits(t *testing.T) {
	hs := loadHabits(t, "testdata/habits.txt")
	if len(hs) < 60 {
		t.Fatalf("%d sequences in the habits table; the issue asks for at least 60", len(hs))
	}
	runHabits(t, hs, 1)
}

// runHabits runs each sequence in a session of its own, runs times in a
// row, and compares every cell's output with the table's.
func runHabits(t *testing.T, hs []habit, runs int) {
	t.Helper()
	seen := map[string]bool{}
	for _, h := range hs {
		if seen[h.name] {
			t.Fatalf("two sequences named %q", h.name)
		}
		seen[h.name] = true
		t.Run(strings.ReplaceAll(h.name, " ", "_"), func(t *testing.T) {
			s, out, errb, panics := newTest(t)
			for run := 1; run <= runs; run++ {
				for i, st := range h.steps {
					if got := habitOutput(s, out, errb, panics, st.cell); got != st.want {
						t.Errorf("run %d, cell %d:\n%s\n--- got:\n%s\n--- want:\n%s", run, i+1, st.cell, got, st.want)
					}
				}
			}
		})
	}
}

func (s *syncBuf) reset() { s.mu.Lock(); defer s.mu.Unlock(); s.b.Reset() }
