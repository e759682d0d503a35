package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// bracketsComplete is a stand-in for the session's IsComplete: a cell is
// incomplete while brackets are open (one tab of indent per bracket),
// invalid when more close than open.
func bracketsComplete(code string) (string, string) {
	depth := 0
	for _, c := range code {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
	switch {
	case depth > 0:
		return "incomplete", strings.Repeat("\t", depth)
	case depth < 0:
		return "invalid", ""
	}
	return "complete", ""
}

func TestReplCellBuffer(t *testing.T) {
	type step struct {
		line   string
		ready  bool
		cell   string // when ready
		indent string // when not
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"one line", []step{{"1 + 1", true, "1 + 1", ""}}},
		{"empty line", []step{{"", true, "", ""}}},
		{"func over lines", []step{
			{"func f() int {", false, "", "\t"},
			{"\tif true {", false, "", "\t\t"},
			{"\t\treturn 1", false, "", "\t\t"},
			{"\t}", false, "", "\t"},
			{"\treturn 2", false, "", "\t"},
			{"}", true, "func f() int {\n\tif true {\n\t\treturn 1\n\t}\n\treturn 2\n}", ""},
			{"f()", true, "f()", ""}, // the buffer starts again
		}},
		{"invalid ends the cell", []step{{"x := (1", false, "", "\t"}, {"))", true, "x := (1\n))", ""}}},
		{"a help query is a cell, open bracket or not", []step{{"align.Runs(a, ?", true, "align.Runs(a, ?", ""}}},
		{"? inside a cell is not help", []step{{"f(", false, "", "\t"}, {"x?", false, "", "\t"}, {")", true, "f(\nx?\n)", ""}}},
		{"recalled history entry", []step{{"func g() {\n\tprintln()\n}", true, "func g() {\n\tprintln()\n}", ""}}},
		{"a newline mark is a character", []step{{"s := \"a" + newlineMark + "b\"", true, "s := \"a" + newlineMark + "b\"", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := cellBuffer{isComplete: bracketsComplete}
			for i, s := range tc.steps {
				cell, ready := b.add(s.line)
				if ready != s.ready {
					t.Fatalf("step %d (%q): ready %v, want %v", i, s.line, ready, s.ready)
				}
				if ready && cell != s.cell {
					t.Fatalf("step %d: cell %q, want %q", i, cell, s.cell)
				}
				if !ready && b.indent != s.indent {
					t.Fatalf("step %d: indent %q, want %q", i, b.indent, s.indent)
				}
				if b.pending() == ready {
					t.Fatalf("step %d: pending %v after ready %v", i, b.pending(), ready)
				}
			}
		})
	}
}

func TestReplCellBufferFlush(t *testing.T) {
	b := cellBuffer{isComplete: bracketsComplete}
	b.add("for {")
	b.add("\tn++")
	if got, want := b.text(), "for {\n\tn++\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got := b.flush(); got != "for {\n\tn++" {
		t.Errorf("flush %q", got)
	}
	if b.pending() || b.text() != "" || b.indent != "" {
		t.Errorf("after flush: pending %v, text %q, indent %q", b.pending(), b.text(), b.indent)
	}
}

func TestReplCompleteLine(t *testing.T) {
	// complete offers the names of words that begin with the identifier
	// before the cursor, replacing it (start..cursor), as the session does.
	words := []string{"ToLower", "ToUpper", "Trim", "x"}
	var gotCode string
	var gotCursor int
	complete := func(code string, cursor int) ([]string, int, int) {
		gotCode, gotCursor = code, cursor
		start := cursor
		for start > 0 && (code[start-1] >= 'A' && code[start-1] <= 'z') {
			start--
		}
		var m []string
		for _, w := range words {
			if strings.HasPrefix(w, code[start:cursor]) {
				m = append(m, w)
			}
		}
		return m, start, cursor
	}
	tests := []struct {
		before, line string
		pos          int // runes
		head         string
		matches      []string
		tail         string
	}{
		{"", "strings.ToU", 11, "strings.", []string{"ToUpper"}, ""},
		{"", "strings.To(s)", 10, "strings.", []string{"ToLower", "ToUpper"}, "(s)"},
		{"", `"é" + strings.T`, 15, `"é" + strings.`, []string{"ToLower", "ToUpper", "Trim"}, ""}, // é: 1 rune, 2 bytes
		{"func f() {\n", "\treturn strings.Tr", 18, "\treturn strings.", []string{"Trim"}, ""},
		{"", "strings.Q", 9, "strings.Q", nil, ""},
	}
	for _, tc := range tests {
		head, matches, tail := completeLine(complete, tc.before, tc.line, tc.pos)
		if head != tc.head || !reflect.DeepEqual(matches, tc.matches) || tail != tc.tail {
			t.Errorf("completeLine(%q, %q, %d) = %q, %q, %q; want %q, %q, %q",
				tc.before, tc.line, tc.pos, head, matches, tail, tc.head, tc.matches, tc.tail)
		}
		wantCursor := len(tc.before) + len(string([]rune(tc.line)[:tc.pos]))
		if gotCode != tc.before+tc.line || gotCursor != wantCursor {
			t.Errorf("complete called with (%q, %d), want (%q, %d)", gotCode, gotCursor, tc.before+tc.line, wantCursor)
		}
	}
	// a range outside the line being typed (the session replacing text of
	// the lines before) offers nothing
	outside := func(code string, cursor int) ([]string, int, int) { return []string{"x"}, 0, cursor }
	if h, m, tl := completeLine(outside, "abc\n", "de", 2); h != "de" || m != nil || tl != "" {
		t.Errorf("completion starting in an earlier line: %q, %q, %q", h, m, tl)
	}
}

func TestReplTrimHistory(t *testing.T) {
	var h []string
	for i := range 5 {
		h = append(h, fmt.Sprint(i))
	}
	if got := trimHistory(h, 3); !reflect.DeepEqual(got, []string{"2", "3", "4"}) {
		t.Errorf("trimHistory(5 entries, 3) = %q", got)
	}
	if got := trimHistory(h, 5); len(got) != 5 {
		t.Errorf("trimHistory(5 entries, 5) = %q", got)
	}
	if got := trimHistory(nil, 3); len(got) != 0 {
		t.Errorf("trimHistory(nil, 3) = %q", got)
	}
}

func TestReplHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tracebook", "history") // its directory does not exist yet
	if h, err := readHistory(path); err != nil || h != nil {
		t.Fatalf("no file: %q, %v", h, err)
	}
	var want []string
	for i := range historyLimit + 5 {
		e := fmt.Sprintf("cell %d", i)
		if err := appendHistory(path, e); err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	want = want[len(want)-historyLimit:]
	if err := appendHistory(path, want[len(want)-1]); err != nil { // the same again: not repeated
		t.Fatal(err)
	}
	got, err := readHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history has %d entries %q ... %q, want %d: %q ... %q",
			len(got), got[0], got[len(got)-1], len(want), want[0], want[len(want)-1])
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("files beside the history: %v", entries)
	}
}

func TestReplFromHistory(t *testing.T) {
	const m = newlineMark
	tests := []struct{ line, want string }{
		{"1 + 1", "1 + 1"},
		{"func g() {" + m + "\tprintln()" + m + "}", "func g() {\n\tprintln()\n}"},
		{"s := \"a" + m + "b\"", "s := \"a" + m + "b\""},                    // in a string: the character
		{"r := '" + m + "'", "r := '" + m + "'"},                            // in a rune
		{"s := \"q\\\"" + m + "\"" + m + "x", "s := \"q\\\"" + m + "\"\nx"}, // an escaped quote does not end the string
		{"f := func() string {" + m + "return \"x" + m + "y\"" + m + "}", "f := func() string {\nreturn \"x" + m + "y\"\n}"},
		{"x := 1 // \"it's" + m + "y := \"" + m + "\"", "x := 1 // \"it's\ny := \"" + m + "\""}, // a line comment ends at the mark
		{"/* \"" + m + "' */ s := \"" + m + "\"", "/* \"\n' */ s := \"" + m + "\""},             // quotes in a block comment
		{"r := `a" + m + "b`" + m + "c := '\"'", "r := `a\nb`\nc := '\"'"},                      // a raw string spans lines
	}
	for _, tc := range tests {
		if got := fromHistory(tc.line); got != tc.want {
			t.Errorf("fromHistory(%q) = %q, want %q", tc.line, got, tc.want)
		}
		// a cell's entry (line breaks as marks) comes back as the cell
		if strings.Contains(tc.want, "\n") {
			if got := fromHistory(strings.ReplaceAll(tc.want, "\n", m)); got != tc.want {
				t.Errorf("entry of %q recalled as %q", tc.want, got)
			}
		}
	}
}

func TestReplHistoryConcurrent(t *testing.T) {
	// two sessions appending at once keep all of each other's cells
	path := filepath.Join(t.TempDir(), "tracebook", "history")
	const n = 300 // 2n <= historyLimit: nothing trimmed
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, who := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if err := appendHistory(path, fmt.Sprintf("%s %d", who, i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := readHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2*n {
		t.Errorf("history has %d entries, want %d", len(got), 2*n)
	}
	next := map[string]int{}
	for _, e := range got {
		var who string
		var i int
		if _, err := fmt.Sscanf(e, "%s %d", &who, &i); err != nil || i != next[who] {
			t.Fatalf("entry %q: want %s %d next", e, who, next[who])
		}
		next[who]++
	}
}

func TestReplContinuationPrompt(t *testing.T) {
	for _, first := range []string{"In [1]: ", "In [10]: ", "In [100]: "} {
		c := continuationPrompt(first)
		if len(c) != len(first) || !strings.HasSuffix(c, "...: ") || strings.TrimLeft(c, " ") != "...: " {
			t.Errorf("continuationPrompt(%q) = %q", first, c)
		}
	}
}

func TestReplLastFigure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a[1]*") // pattern characters in the path are literal
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "tracebook")
	if n := lastFigure(prefix); n != 0 {
		t.Errorf("no figures: %d", n)
	}
	for _, name := range []string{"tracebook-1.png", "tracebook-3.svg", "tracebook-x.png", "tracebook-07.png",
		"tracebook-12.txt", "other-9.png", "tracebook-2-3.png"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := lastFigure(prefix); n != 3 {
		t.Errorf("lastFigure = %d, want 3 (tracebook-3.svg)", n)
	}
	// a prefix as typed, ./sub/f: Glob gives sub/f-1.png
	t.Chdir(dir)
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("sub", "f-2.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"./sub/f", "sub/f", "sub//f", "./sub/../sub/f"} {
		if n := lastFigure(p); n != 2 {
			t.Errorf("lastFigure(%q) = %d, want 2 (sub/f-2.png)", p, n)
		}
	}
}

func TestReplTTYInput(t *testing.T) {
	// a pipe stands for the terminal: a file with deadlines, as the
	// terminal opened anew is
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	in := ttyInput{r}
	in.end() // at the prompt
	buf := make([]byte, 64)
	if _, err := in.Read(buf); !errors.Is(err, errInputEnded) {
		t.Fatalf("read at the prompt: %v, want errInputEnded", err)
	}
	// a cell waits for a line and is interrupted: its read gives up
	in.begin()
	done := make(chan error)
	go func() {
		_, err := in.Read(buf)
		done <- err
	}()
	in.end()
	if err := <-done; !errors.Is(err, errInputEnded) {
		t.Fatalf("read of an ended cell: %v, want errInputEnded", err)
	}
	// a line typed at the prompt is not taken by a read of an ended cell
	if _, err := io.WriteString(w, "at the prompt\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Read(buf); !errors.Is(err, errInputEnded) {
		t.Fatalf("read after the cell: %v", err)
	}
	// the next cell reads it, then the end of the input
	in.begin()
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "at the prompt\n" {
		t.Fatalf("next cell read %q, %v", buf[:n], err)
	}
	w.Close()
	if _, err := in.Read(buf); err != io.EOF {
		t.Fatalf("read at the end of the input: %v, want EOF", err)
	}
}
