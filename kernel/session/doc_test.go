package session

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/kernel"
)

// newDocTest is a session with every builtin pre-imported (as the kernel
// starts one), a small generated trace tr, an alignment a of its first two
// processes, a duration d and a slice of strings words.
func newDocTest(t *testing.T) (*Session, *syncBuf) {
	t.Helper()
	var pre []string
	for k := range symbols.Symbols {
		pre = append(pre, path.Dir(k))
	}
	sort.Strings(pre)
	out := &syncBuf{}
	s, err := New(Options{IO: kernel.Frontend{Stdout: out}, Symbols: symbols.Symbols, Preimport: pre})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "cfg := synth.DefaultGenConfig()\ncfg.Ranks, cfg.Iterations, cfg.Depth = 4, 10, 2\ntr := synth.Generate(cfg)")
	mustRun(t, s, "a := align.Pair(tr.Processes()[0], tr.Processes()[1])")
	mustRun(t, s, "var d time.Duration = 3 * time.Second")
	mustRun(t, s, `words := strings.Fields("a b")`)
	return s, out
}

// Every exported name of every builtin package is documented: an
// undocumented export fails here.
func TestDocTableCoversBuiltins(t *testing.T) {
	if len(symbols.Symbols) == 0 {
		t.Fatal("no builtins")
	}
	for k, syms := range symbols.Symbols {
		p := path.Dir(k)
		if symbols.Docs[p].Doc == "" {
			t.Errorf("package %s has no doc comment", p)
		}
		for n := range syms {
			if n[0] == '_' {
				continue
			}
			if e := symbols.Docs[p+"."+n]; e.Doc == "" || e.Decl == "" {
				t.Errorf("%s.%s: no documentation (decl %q, doc %q)", p, n, e.Decl, e.Doc)
			}
		}
	}
}

func TestHelpText(t *testing.T) {
	s, _ := newDocTest(t)
	for _, tc := range []struct {
		code   string
		detail int
		want   string
	}{
		// a builtin function and a method reached through a value
		{"align.Pair", 0, "func Pair(p, q *trace.Process, opts ...Option) *Result\n\nPair aligns two processes: hierarchically (Algorithm 2) by default,\nflat over the pre-order sequences with WithFlat().\n"},
		{"tr.Processes", 0, "func (t *Trace) Processes() []*Process\n\nProcesses returns all locations in order. The slice is shared; do not modify.\n"},
		{"x := tr.Processes()", 15, "func (t *Trace) Processes() []*Process\n\nProcesses returns all locations in order. The slice is shared; do not modify.\n"},
		// a field through an index of a call result
		{"tr.Processes()[0].Rank", 0, "Rank int32\n\nlocation group (process) index\n"},
		// the standard library, read from GOROOT
		{"strings.Fields", 0, "func Fields(s string) []string\n\nFields splits the string s around each instance of one or more consecutive white space\ncharacters, as defined by [unicode.IsSpace], returning a slice of substrings of s or an\nempty slice if s contains only white space. Every element of the returned slice is\nnon-empty. Unlike [Split], leading and trailing runs of white space characters\nare discarded.\n"},
		{"time.Duration.Seconds", 0, "func (d Duration) Seconds() float64\n\nSeconds returns the duration as a floating point number of seconds.\n"},
		{"d.Seconds", 0, "func (d Duration) Seconds() float64\n\nSeconds returns the duration as a floating point number of seconds.\n"},
		// a variable: type, value, and the doc of its type
		{"d", 0, "d time.Duration = 3s\n\ntype Duration int64\n\nA Duration represents the elapsed time between two instants\nas an int64 nanosecond count. The representation limits the\nlargest representable duration to approximately 290 years.\n"},
		{"words", 0, "words []string = [a b]\n"},
		{"a.LabelA", 0, "a.LabelA string = rank 0\n"},
		{"align.GapA", 0, "align.GapA align.State = GapA\n\nconst (\n\tEqual State = iota // the same element in A and B\n\tDiff               // different elements (a mismatch)\n\tGapA               // present only in B\n\tGapB               // present only in A\n)\n\npresent only in B\n\ntype State uint8\n\nState is the comparison state of an aligned pair (Weber's CMP bar).\n"},
	} {
		cursor := len(tc.code)
		if tc.detail == 15 { // cursor inside the name
			cursor, tc.detail = 10, 0
		}
		h, ok := s.Help(tc.code, cursor, tc.detail)
		if !ok || h.Text != tc.want {
			t.Errorf("Help(%q):\n got %q %v\nwant %q", tc.code, h.Text, ok, tc.want)
		}
	}
	if _, ok := s.Help("nosuch.Name", 11, 0); ok {
		t.Error("unknown name found")
	}
}

func TestHelpMarkdownAndMethods(t *testing.T) {
	s, _ := newDocTest(t)
	h, _ := s.Help("strings.Fields", 14, 0)
	want := "```go\nfunc Fields(s string) []string\n```\n\nFields splits the string s around each instance of one or more consecutive white space characters, as defined by [unicode.IsSpace](https://pkg.go.dev/unicode#IsSpace), returning a slice of substrings of s or an empty slice if s contains only white space. Every element of the returned slice is non-empty. Unlike [Split](https://pkg.go.dev/strings#Split), leading and trailing runs of white space characters are discarded.\n"
	if h.Markdown != want {
		t.Errorf("markdown:\n got %q\nwant %q", h.Markdown, want)
	}
	h, _ = s.Help("tr.Processes()[0].Msgs", 22, 1)
	if !strings.Contains(h.Text, "Methods:\n\tfunc (m *Messages) Add(peer, comm, tag int32, bytes, req int64) int32\n\tfunc (m *Messages) Len() int") {
		t.Errorf("detail 1 methods:\n%s", h.Text)
	}
	// %help NAME shows the same documentation in the cell, as Markdown
	r := mustRun(t, s, "%help d.Seconds")
	if md, _ := r.Data["text/markdown"].(string); md != "```go\nfunc (d Duration) Seconds() float64\n```\n\nSeconds returns the duration as a floating point number of seconds.\n" {
		t.Errorf("%%help: %q", md)
	}
}

func TestCompleteAfterExpression(t *testing.T) {
	s, _ := newDocTest(t)
	for _, tc := range []struct{ code, want string }{
		{"align.Pair(tr.Processes()[0], tr.Processes()[1]).", "AlignedStrings CorrectedScore Counts Dissimilarity FlatOptimum FunctionTimeDiff HAError Heuristic Hierarchical LabelA LabelB Len MIMEBundle Method Plot PreorderError Score Similarity Skew String Table Timeline Why WriteChrome"},
		{"x := tr.Processes()[0].Msgs.", "Add Bytes Comm Len Peer Request Tag"},
		{"fmt.Println(a.Sim", "Similarity"},
		{"(*a).Sc", "Score"},
		{"d.Sec", "Seconds"},
		{"time.Duration.Ho", "Hours"},
		{`strings.Fields("a (b)")[0].`, ""},
		{"words[0].", ""},
		{"nosuch().", ""},
	} {
		m, start, end := s.Complete(tc.code, len(tc.code))
		if got := strings.Join(m, " "); got != tc.want || end != len(tc.code) || start != strings.LastIndexByte(tc.code, '.')+1 {
			t.Errorf("Complete(%q) = %q %d %d, want %q", tc.code, got, start, end, tc.want)
		}
	}
}

func TestMagicsOnAnyLine(t *testing.T) {
	s, out := newDocTest(t)
	r := mustRun(t, s, "x := 1\n%time\ny := x + 1\ny")
	if text(r) != "2" || !strings.HasPrefix(out.String(), "wall time: ") {
		t.Fatalf("%%time on line 2: value %q, stdout %q", text(r), out.String())
	}
	out.mu.Lock()
	out.b.Reset()
	out.mu.Unlock()
	r = mustRun(t, s, "raw := `\n%time\n`\nlen(raw)")
	if text(r) != "7" || out.String() != "" {
		t.Fatalf("%%time inside a raw string: value %q, stdout %q", text(r), out.String())
	}
	r = mustRun(t, s, "// the session so far\n%who")
	if got := text(r); !strings.Contains(got, "\ny                int                      2\n") {
		t.Fatalf("%%who on line 2: %q", got)
	}
	if r := s.Execute(t.Context(), "x := 1\n%nope"); r.Err == nil || r.Err.Value != "unknown magic %nope (cell line 2); available: %help [name], %who, %time" {
		t.Fatalf("unknown magic: %+v", r.Err)
	}
}

func TestExprStart(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"align.Pair", "align.Pair"},
		{`x := a.b(c, "d)")[0].e`, `a.b(c, "d)")[0].e`},
		{"fmt.Println(a.Sim", "a.Sim"},
		{"  (*a).Score", "(*a).Score"},
		{"v.(fmt.Stringer).String", "v.(fmt.Stringer).String"},
		{"x + y\nz.w", "z.w"},
		{"f(x", "x"},
		{"f(x, ", ""},
		{"raw := `a.b`", "`a.b`"},
	} {
		if got := tc.code[exprStart(tc.code, len(tc.code)):]; got != tc.want {
			t.Errorf("exprStart(%q) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

func TestHelpMagicUnknownName(t *testing.T) {
	s, _ := newDocTest(t)
	r := mustRun(t, s, "%help nosuch.Thing")
	if md, _ := r.Data["text/markdown"].(string); md != "no documentation found for `nosuch.Thing`\n" {
		t.Errorf("%%help unknown: %q", md)
	}
}

// Shift-Tab inside a call's arguments documents the called function (issue 32: it found
// nothing); a name under the cursor that resolves is still documented itself.
func TestHelpInsideCallArguments(t *testing.T) {
	s, _ := newDocTest(t)
	pair, _ := s.Help("align.Pair", 10, 0)
	if pair.Text == "" {
		t.Fatal("no help for align.Pair")
	}
	for _, code := range []string{
		"align.Pair(",
		"align.Pair(a, ",
		"align.Pair(tr.Processes()[0], ",
		"x := align.Pair(tr.Processes()[0], tr.Proc",
		`align.Pair(p, "some (text`,
		"align.Pair(p, strings.Fields(\"x\")[0], nosuch",
	} {
		if h, ok := s.Help(code, len(code), 0); !ok || h.Text != pair.Text {
			t.Errorf("Help(%q|) = %q %v, want align.Pair's", code, h.Text, ok)
		}
	}
	// the innermost call, and a resolvable name under the cursor, win
	if h, _ := s.Help("align.Pair(strings.Fields(", 26, 0); !strings.HasPrefix(h.Text, "func Fields") {
		t.Errorf("inner call: %q", h.Text)
	}
	if h, _ := s.Help("align.Pair(d", 12, 0); !strings.HasPrefix(h.Text, "d time.Duration") {
		t.Errorf("name in the arguments: %q", h.Text)
	}
	// not a call: no help
	for _, code := range []string{"x := (", "y := []int{1, ", ""} {
		if h, ok := s.Help(code, len(code), 0); ok {
			t.Errorf("Help(%q|) = %q, want none", code, h.Text)
		}
	}
}

// Completion inside a string literal offers paths; on a % line, the magics (issue 32).
func TestCompletePathsAndMagics(t *testing.T) {
	s, _ := newDocTest(t)
	dir := t.TempDir()
	for _, d := range []string{"shared", "sharp", ".hidden", "other"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"shared/a.otf2", "shell.csv", ".hidden/x"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		code  string
		want  string // matches, space-separated
		start int    // where they replace, from the end of code (-1: no path completion expected)
	}{
		{`trace.Open("` + dir + `/sh`, dir + "/shared/ " + dir + "/sharp/ " + dir + "/shell.csv", len(dir) + 3},
		{`trace.Open("` + dir + `/shared/`, dir + "/shared/a.otf2", len(dir) + 8},
		{"x := `" + dir + "/.h", dir + "/.hidden/", len(dir) + 3},
		{`trace.Open("` + dir + `/`, dir + "/other/ " + dir + "/shared/ " + dir + "/sharp/ " + dir + "/shell.csv", len(dir) + 1},
		{`trace.Open("` + dir + `/nosuch/x`, "", len(dir) + 9},
		{"%he", "%help", 3},
		{"x := 1\n  %t", "%time", 2},
		{"%", "%help %time %who", 1},
	} {
		m, start, end := s.Complete(tc.code, len(tc.code))
		if got := strings.Join(m, " "); got != tc.want || end != len(tc.code) || start != len(tc.code)-tc.start {
			t.Errorf("Complete(%q) = %q [%d:%d], want %q [%d:]", tc.code, got, start, end, tc.want, len(tc.code)-tc.start)
		}
	}
	// a closed string is not completed as a path; Go names are
	code := `trace.Open("x") + tr`
	if m, _, _ := s.Complete(code, len(code)); !slices.Contains(m, "tr") {
		t.Errorf("after a closed string: %q", m)
	}
	// a % inside a raw string is not a magic
	code = "x := `\n%he"
	if m, _, _ := s.Complete(code, len(code)); slices.Contains(m, "%help") {
		t.Errorf("magic offered inside a raw string: %q", m)
	}
}
