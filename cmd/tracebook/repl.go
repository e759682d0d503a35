package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/peterh/liner"

	"github.com/tracebook/tracebook/kernel"
	"github.com/tracebook/tracebook/kernel/session"
)

// tracebook repl is the kernel's session in a terminal, as IPython's
// console is: "In [N]: " prompts, line editing and history (liner), Tab
// completion and name? help from the session, cells of several lines
// completed by the session's is_complete logic, Ctrl-C interrupting the
// running cell.

func init() { extraCommands["repl"] = runRepl }

const replUsage = `usage:
  tracebook repl [--figures P]     an interactive Go session with the builtins

Type Go as in a notebook cell; the value of a cell's last expression is shown as
Out[N]. A cell of several lines (func f() int {, ...) runs once its brackets close.
name? shows the documentation of name, name?? more of it; %help lists the builtins.
Tab completes; Up/Down and Ctrl-R search the history, the last 1000 cells, kept in
tracebook/history in the user's configuration directory ($XDG_CONFIG_HOME, by
default ~/.config, on Linux). Ctrl-C drops the cell being typed or interrupts the
running one; Ctrl-D on an empty line exits. Figures are written to tracebook-N.png in
the current directory, numbered after those already there (said on stderr).

With input that is not a terminal (tracebook repl < cells.go) the lines are read as
they come, without prompts or banner: each cell's value on stdout, errors on
stderr; the session goes on after an error and the exit status is 1 if any cell
failed. Typed at a terminal without line editing (TERM=dumb, or stdout a pipe) the
same, with prompts on stderr.

flags:
  --figures P    write figures to P-1.png, P-2.png, ... (default tracebook)
`

// historyLimit is the number of cells the history file keeps.
const historyLimit = 1000

// newlineMark stands for a line break in a history entry: liner edits one
// line, so a cell of several lines is recalled as one line with these
// marks, and turned back into lines when it is entered.
const newlineMark = "\u2424" // ␤

// runRepl is "tracebook repl".
func runRepl(args []string) error {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	figures := fs.String("figures", "tracebook", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Print(replUsage)
			return nil
		}
		return usageError{err.Error() + "\n" + replUsage}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("repl takes no arguments (%q)\n%s", fs.Args(), replUsage)}
	}
	interactive := isTerminal(os.Stdin) && isTerminal(os.Stdout) && liner.TerminalSupported()
	if !interactive {
		// typed without line editing (stdout a pipe, TERM=dumb): prompts on stderr
		prompts := isTerminal(os.Stdin) && isTerminal(os.Stderr)
		return replPiped(os.Stdin, *figures, prompts)
	}
	return replInteractive(*figures)
}

// replSession starts the session of the REPL. Its figures are numbered
// after those of earlier sessions, so that none is overwritten.
func replSession(stdin io.Reader, figures string) (*session.Session, *termSink, error) {
	s, t, err := newTermSession(termOptions{stdout: os.Stdout, stderr: os.Stderr, stdin: stdin,
		args: []string{"tracebook"}, figures: figures,
		progress: isTerminal(os.Stderr), color: isTerminal(os.Stderr)})
	if err == nil {
		t.nfig = lastFigure(figures)
	}
	return s, t, err
}

// lastFigure is the highest N of the files PREFIX-N.png and PREFIX-N.svg,
// 0 for none.
func lastFigure(prefix string) int {
	last := 0
	for _, ext := range []string{"png", "svg"} {
		paths, _ := filepath.Glob(globEscape(prefix) + "-*." + ext)
		for _, p := range paths {
			digits := strings.TrimSuffix(strings.TrimPrefix(p, prefix+"-"), "."+ext)
			if n, err := strconv.Atoi(digits); err == nil && n > 0 && strconv.Itoa(n) == digits {
				last = max(last, n)
			}
		}
	}
	return last
}

// globEscape quotes the pattern characters of a path for filepath.Glob.
func globEscape(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune("*?[\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// replPiped runs cells read from a file or pipe: no prompts (unless
// prompts: then on stderr), no banner; the session goes on after an
// error, which makes the exit status 1. SIGINT stops the running cell and
// the REPL (status 130), as in tracebook run; os.Exit(N) in a cell ends it
// with status N.
func replPiped(in io.Reader, figures string, prompts bool) error {
	s, t, err := replSession(nil, figures)
	if err != nil {
		return err
	}
	ints := newInterrupts(os.Stderr)
	interrupted := false
	exec := func(code string) kernel.ExecResult {
		res, hit := ints.run(s, code)
		interrupted = interrupted || hit
		return res
	}
	buf := cellBuffer{isComplete: s.IsComplete}
	failed := false
	run := func(cell string) error {
		ok, exit := replCell(s, t, exec, cell, "")
		switch {
		case exit != nil:
			return exit
		case interrupted:
			return exitError{130}
		}
		failed = failed || !ok
		return nil
	}
	r := bufio.NewReader(in)
	for n := 1; ; {
		if prompts {
			p := fmt.Sprintf("In [%d]: ", n)
			if buf.pending() {
				p = continuationPrompt(p)
			}
			fmt.Fprint(os.Stderr, p)
		}
		line, err := r.ReadString('\n')
		if line != "" || err == nil {
			if cell, ready := buf.add(strings.TrimRight(line, "\r\n")); ready && strings.TrimSpace(cell) != "" {
				if err := run(cell); err != nil {
					return err
				}
				n++
			}
		}
		if err != nil {
			if cell := buf.flush(); cell != "" {
				// the end of the input ends the cell (its error says what is missing)
				if err := run(cell); err != nil {
					return err
				}
			}
			if err != io.EOF {
				return fmt.Errorf("reading the input: %w", err)
			}
			break
		}
	}
	if failed {
		return exitError{1}
	}
	return nil
}

// replInteractive is the REPL on a terminal.
func replInteractive(figures string) error {
	cooked, cookedErr := liner.TerminalMode()
	s, t, err := replSession(os.Stdin, figures)
	if err != nil {
		return err
	}
	ints := newCellInterrupts()
	defer ints.stop()
	histPath, histErr := historyPath()
	var hist []string
	if histErr == nil {
		hist, histErr = readHistory(histPath)
	}
	if histErr != nil {
		fmt.Fprintf(os.Stderr, "history not kept: %v\n", histErr)
	}

	line := liner.NewLiner()
	defer line.Close()
	// liner keeps the terminal raw (no echo, no line editing by the
	// terminal) from here on, and turns Ctrl-C into a key only while it
	// reads a line: between two prompts Ctrl-C would be a SIGINT, lost.
	// Ctrl-C stays a key until a cell runs; a cell runs with the terminal
	// as it was (Ctrl-C is SIGINT, a cell reading os.Stdin sees its line
	// echoed and ended by Enter).
	noSignals()
	raw, rawErr := liner.TerminalMode()
	exec := func(code string) kernel.ExecResult {
		return ints.run(func(ctx context.Context) kernel.ExecResult {
			if cookedErr == nil && rawErr == nil {
				cooked.ApplyMode()
				defer raw.ApplyMode()
			}
			res := s.Execute(ctx, code)
			s.Sync()
			return res
		})
	}
	line.SetCtrlCAborts(true)
	line.SetTabCompletionStyle(liner.TabPrints)
	for _, h := range hist {
		line.AppendHistory(h)
	}
	buf := cellBuffer{isComplete: s.IsComplete}
	line.SetWordCompleter(func(l string, pos int) (string, []string, string) {
		return completeLine(s.Complete, buf.text(), l, pos)
	})

	fmt.Printf("tracebook %s: Go with the trace builtins. %%help lists the builtins, Ctrl-D exits.\n", kernel.Version)
	n := 1
	indent := ""
	for {
		prompt := fmt.Sprintf("In [%d]: ", n)
		if buf.pending() {
			prompt = continuationPrompt(prompt)
		}
		l, err := line.PromptWithSuggestion(prompt, indent, -1)
		switch {
		case errors.Is(err, liner.ErrPromptAborted): // Ctrl-C: the cell typed so far is dropped
			buf.flush()
			indent = ""
			continue
		case errors.Is(err, io.EOF): // Ctrl-D on an empty line
			if buf.pending() { // ends the cell being typed, not the session
				buf.flush()
				indent = ""
				fmt.Println()
				continue
			}
			fmt.Println()
			return nil
		case err != nil:
			return fmt.Errorf("reading the terminal: %w", err)
		}
		cell, ready := buf.add(l)
		if !ready {
			// liner counts a tab as one column: the indent is pre-filled
			// with spaces, which Go reads alike
			indent = strings.ReplaceAll(buf.indent, "\t", "    ")
			continue
		}
		indent = ""
		if strings.TrimSpace(cell) == "" {
			continue
		}
		entry := strings.ReplaceAll(cell, "\n", newlineMark)
		line.AppendHistory(entry)
		if histErr == nil {
			if err := appendHistory(histPath, entry); err != nil {
				fmt.Fprintf(os.Stderr, "history not kept: %v\n", err)
				histErr = err
			}
		}
		if _, _, help := kernel.HelpQuery(strings.TrimSpace(cell)); help {
			replCell(s, t, exec, cell, "") // not counted: nothing is executed
		} else {
			if _, exit := replCell(s, t, exec, cell, fmt.Sprintf("Out[%d]: ", n)); exit != nil {
				return exit
			}
			n++
		}
		fmt.Println()
	}
}

// continuationPrompt is the prompt of a cell's next lines, as wide as the
// first line's: "   ...: ".
func continuationPrompt(first string) string {
	const dots = "...: "
	return strings.Repeat(" ", max(len(first)-len(dots), 0)) + dots
}

// osExitRE matches the panic of os.Exit in a cell.
var osExitRE = regexp.MustCompile(`^os\.Exit\((-?\d+)\)`)

// replCell runs one cell with exec (or shows the help a name? asks for)
// and writes its value, with the prefix out when it is text, or its error;
// it reports whether the cell succeeded, and returns the exitError of a
// cell that called os.Exit.
func replCell(s *session.Session, t *termSink, exec func(string) kernel.ExecResult, cell, out string) (ok bool, exit error) {
	if expr, detail, ok := kernel.HelpQuery(strings.TrimSpace(cell)); ok {
		data, found := s.Inspect(expr, len(expr), detail)
		if !found {
			data = map[string]any{"text/plain": "no documentation found for " + expr}
		}
		t.show(data)
		return found, nil
	}
	res := exec(cell)
	if e := res.Err; e != nil {
		if m := osExitRE.FindStringSubmatch(e.Value); m != nil && e.Name == "panic" {
			n, _ := strconv.Atoi(m[1])
			return false, exitError{n & 0xff}
		}
		t.endBar()
		fmt.Fprintln(os.Stderr, strings.Join(t.traceback(e), "\n"))
		return false, nil
	}
	if res.Data == nil {
		return true, nil
	}
	if _, fig := figureOf(res.Data); fig != nil || out == "" {
		t.show(res.Data)
		return true, nil
	}
	text, _ := res.Data["text/plain"].(string)
	text = strings.TrimSuffix(text, "\n")
	if strings.Contains(text, "\n") {
		out += "\n" // a table starts on its own line, as in IPython
	}
	t.show(map[string]any{"text/plain": out + text})
	return true, nil
}

// cellBuffer gathers the lines of a cell until the session says it is
// complete: "complete" or "invalid" (running it shows the error) end the
// cell, "incomplete" asks for another line with the indent it gives. A
// name? line is a cell of its own.
type cellBuffer struct {
	isComplete func(code string) (status, indent string)
	lines      []string
	indent     string // the indent of the next line, when pending
}

// add appends a line (newline marks of a recalled history entry become
// line breaks) and returns the cell when it is ready to run. An empty
// first line is a ready, empty cell.
func (b *cellBuffer) add(line string) (cell string, ready bool) {
	b.lines = append(b.lines, strings.ReplaceAll(line, newlineMark, "\n"))
	code := strings.Join(b.lines, "\n")
	if len(b.lines) == 1 {
		if _, _, help := kernel.HelpQuery(strings.TrimSpace(code)); help {
			return b.flush(), true
		}
	}
	status, indent := b.isComplete(code)
	if status == "incomplete" {
		b.indent = indent
		return "", false
	}
	return b.flush(), true
}

// pending reports whether lines of an unfinished cell are held.
func (b *cellBuffer) pending() bool { return len(b.lines) > 0 }

// text is the cell typed so far, with a line break after its last line
// (the start of the line being typed), "" for none.
func (b *cellBuffer) text() string {
	if len(b.lines) == 0 {
		return ""
	}
	return strings.Join(b.lines, "\n") + "\n"
}

// flush returns the lines held as a cell and empties the buffer.
func (b *cellBuffer) flush() string {
	cell := strings.Join(b.lines, "\n")
	b.lines, b.indent = nil, ""
	return cell
}

// completeLine answers liner's word completer for the line being typed (pos
// in runes) with the session's completions of the cell: the text before
// the completed word, its candidates and the text after it.
func completeLine(complete func(string, int) ([]string, int, int), before, line string, pos int) (head string, matches []string, tail string) {
	r := []rune(line)
	pos = min(max(pos, 0), len(r))
	cur := len(string(r[:pos]))
	off := len(before)
	matches, start, end := complete(before+line, off+cur)
	start, end = start-off, end-off
	if len(matches) == 0 || start < 0 || start > cur || end < cur || end > len(line) {
		return line[:cur], nil, line[cur:]
	}
	return line[:start], matches, line[end:]
}

// historyPath is the history file, in the user's configuration directory.
func historyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "tracebook", "history"), nil
}

// readHistory reads the entries of the history file (none if it does not
// exist), one a line.
func readHistory(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var hist []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSuffix(l, "\r"); l != "" {
			hist = append(hist, l)
		}
	}
	return trimHistory(hist, historyLimit), nil
}

// appendHistory adds an entry to the history file, keeping the last
// historyLimit entries. The file is read again first, so that sessions
// running at once keep each other's cells.
func appendHistory(path, entry string) error {
	hist, err := readHistory(path)
	if err != nil {
		return err
	}
	if len(hist) == 0 || hist[len(hist)-1] != entry {
		hist = append(hist, entry)
	}
	hist = trimHistory(hist, historyLimit)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "history-*")
	if err != nil {
		return err
	}
	_, err = io.WriteString(tmp, strings.Join(hist, "\n")+"\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// trimHistory keeps the last n entries.
func trimHistory(hist []string, n int) []string {
	if len(hist) > n {
		return hist[len(hist)-n:]
	}
	return hist
}

// cellInterrupts cancels the running cell on SIGINT. Unlike tracebook
// run's handler it never exits: at the prompt liner reads Ctrl-C itself,
// and a SIGINT between cells is ignored.
type cellInterrupts struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	ch     chan os.Signal
}

func newCellInterrupts() *cellInterrupts {
	in := &cellInterrupts{ch: make(chan os.Signal, 1)}
	signal.Notify(in.ch, os.Interrupt)
	go func() {
		for range in.ch {
			in.mu.Lock()
			if in.cancel != nil {
				in.cancel()
			}
			in.mu.Unlock()
		}
	}()
	return in
}

// run executes one cell with a context cancelled by SIGINT.
func (in *cellInterrupts) run(exec func(ctx context.Context) kernel.ExecResult) kernel.ExecResult {
	ctx, cancel := context.WithCancel(context.Background())
	in.mu.Lock()
	in.cancel = cancel
	in.mu.Unlock()
	res := exec(ctx)
	in.mu.Lock()
	in.cancel = nil
	in.mu.Unlock()
	cancel()
	return res
}

// stop restores the default action of SIGINT.
func (in *cellInterrupts) stop() { signal.Stop(in.ch) }

// noSignals makes the terminal's interrupt and suspend keys plain input
// (termios ISIG off). liner's terminal mode is its copy of the system's
// termios structure, whose local flags (Lflag) are changed by reflection:
// liner has no call for it, and the ioctl requests differ between systems.
// If the field is not there nothing changes.
func noSignals() {
	m, err := liner.TerminalMode()
	if err != nil {
		return
	}
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	f := v.Elem().FieldByName("Lflag")
	if !f.IsValid() || !f.CanSet() || !f.CanUint() {
		return
	}
	f.SetUint(f.Uint() &^ uint64(syscall.ISIG))
	m.ApplyMode()
}
