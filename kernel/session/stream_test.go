package session

import (
	"strings"
	"testing"
)

// A cell that closes os.Stdout or os.Stderr must not silence the cells
// after it: their output still reaches the notebook.
func TestClosedStdioReopened(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		out          func(o, e *syncBuf) *syncBuf
	}{
		{"stdout", "os.Stdout", func(o, _ *syncBuf) *syncBuf { return o }},
		{"stderr", "os.Stderr", func(_, e *syncBuf) *syncBuf { return e }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, out, errb, _ := newTest(t)
			buf := tc.out(out, errb)
			mustRun(t, s, `fmt.Fprintln(`+tc.stream+`, "before")`)
			mustRun(t, s, `if err := `+tc.stream+`.Close(); err != nil { panic(err) }`)
			mustRun(t, s, `fmt.Fprintln(`+tc.stream+`, "after, by the file")`)
			mustRun(t, s, `fmt.Println("after, by fmt"); fmt.Fprintln(os.Stderr, "after, on stderr")`)
			got := buf.String()
			for _, want := range []string{"before", "after, by the file"} {
				if !strings.Contains(got, want) {
					t.Errorf("%s after %s.Close(): missing %q in %q", tc.name, tc.stream, want, got)
				}
			}
			if !strings.Contains(out.String(), "after, by fmt") {
				t.Errorf("stdout after %s.Close(): missing fmt.Println's line in %q", tc.stream, out.String())
			}
			if !strings.Contains(errb.String(), "after, on stderr") {
				t.Errorf("stderr after %s.Close(): missing the line in %q", tc.stream, errb.String())
			}
		})
	}
}
