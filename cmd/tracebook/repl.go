package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

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
running one (again while it has not stopped: exits, status 130); Ctrl-D on an empty
line exits; os.Exit(N) in a cell exits with status N. A cell reading os.Stdin reads
the next line typed. Figures are written to tracebook-N.png in the current
directory, numbered after those already there (said on stderr).

With input that is not a terminal (tracebook repl < cells.go) the lines are read as
they come, without prompts or banner: each cell's value on stdout, errors on
stderr; the session goes on after an error and the exit status is 1 if any cell
failed or a figure could not be written. Cells reading os.Stdin see its end. Typed
at a terminal without line editing (TERM=dumb, or stdout a pipe) the same, with
prompts on stderr.

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
// after those of earlier sessions, so that none is overwritten. os.Exit
// in a cell exits the process (the cell is in the history already, and a
// cell runs with the terminal in its own mode); stdin is what cells read
// as os.Stdin (nil: end of file).
func replSession(stdin io.Reader, figures string) (*session.Session, *termSink, error) {
	s, t, err := newTermSession(termOptions{stdout: os.Stdout, stderr: os.Stderr, stdin: stdin,
		args: []string{"tracebook"}, figures: figures, exit: true,
		progress: isTerminal(os.Stderr), color: isTerminal(os.Stderr)})
	if err == nil {
		t.nfig = lastFigure(figures)
	}
	return s, t, err
}

// lastFigure is the highest N of the files PREFIX-N.png and PREFIX-N.svg,
// 0 for none.
func lastFigure(prefix string) int {
	prefix = filepath.Clean(prefix) // as Glob gives the paths: ./f-1.png is f-1.png
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
// error, which makes the exit status 1, as does a figure not written.
// Cells reading os.Stdin see its end: the input is the REPL's. SIGINT
// stops the running cell and the REPL (status 130), as in tracebook run;
// os.Exit(N) in a cell ends it with status N.
func replPiped(in io.Reader, figures string, prompts bool) error {
	s, t, err := replSession(nil, figures)
	if err != nil {
		return err
	}
	if null, err := os.Open(os.DevNull); err == nil {
		os.Stdin = null // cells read its end, not the lines of the REPL
	}
	ints := newInterrupts(os.Stderr)
	defer ints.stop()
	interrupted := false
	exec := func(code string) kernel.ExecResult {
		res, hit := ints.run(s, code)
		interrupted = interrupted || hit
		return res
	}
	buf := cellBuffer{isComplete: s.IsComplete}
	failed := false
	run := func(cell string) error {
		ok := replCell(s, t, exec, cell, "")
		if interrupted {
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
	t.endBar()
	if failed || t.figErr != nil {
		return exitError{1}
	}
	return nil
}

// ttyInput is what a cell reads at the terminal, as os.Stdin or through
// fmt.Scan: a file of its own on the terminal, read only while a cell
// runs. A read that an interrupted cell (or a goroutine of an ended one)
// left waiting for a line gives up at the cell's end, without taking the
// line typed at the next prompt: the REPL's standard input, which the
// line editor reads, cannot give up a read, a file opened anew can (a
// deadline). Where the terminal cannot be opened so, f is os.Stdin and
// the read stays.
type ttyInput struct{ f *os.File }

// openTTYInput opens the terminal of the standard input anew.
func openTTYInput() ttyInput {
	f, err := os.Open(ttyPath)
	if err != nil {
		return ttyInput{os.Stdin}
	}
	a, err1 := f.Stat()
	b, err2 := os.Stdin.Stat()
	sameTTY := err1 == nil && err2 == nil && (os.SameFile(a, b) || ttyPath == "/dev/tty")
	if !sameTTY || f.SetReadDeadline(time.Time{}) != nil { // not pollable: no deadline
		f.Close()
		return ttyInput{os.Stdin}
	}
	return ttyInput{f}
}

// begin allows reads: a cell starts.
func (in ttyInput) begin() { in.f.SetReadDeadline(time.Time{}) }

// end makes the reads waiting, and any later ones until the next begin,
// fail with errInputEnded.
func (in ttyInput) end() { in.f.SetReadDeadline(time.Unix(1, 0)) }

func (in ttyInput) Read(p []byte) (int, error) {
	n, err := in.f.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = errInputEnded
	}
	return n, err
}

// errInputEnded is the error of a read of os.Stdin by a cell that has
// ended (interrupted while it waited for a line, or its goroutine).
var errInputEnded = errors.New("os.Stdin: the cell reading it has ended (the terminal is the prompt's)")

// termModes switches the terminal between its own mode (cooked, as the
// REPL found it: while a cell runs) and liner's (raw: at the prompt).
// exit restores the terminal's own mode for good and exits.
type termModes struct {
	mu          sync.Mutex
	cooked, raw liner.ModeApplier // nil: not known
}

func (m *termModes) apply(mode liner.ModeApplier) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cooked != nil && m.raw != nil {
		mode.ApplyMode()
	}
}

// exit restores the terminal and exits with code, holding m.mu so that no
// mode is applied after.
func (m *termModes) exit(code int) {
	m.mu.Lock()
	if m.cooked != nil {
		m.cooked.ApplyMode()
	}
	os.Exit(code)
}

// exitOnSignals restores the terminal and exits with status 128+N on
// SIGTERM and SIGHUP (they would leave it raw); the returned func stops
// it.
func exitOnSignals(modes *termModes) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for sig := range ch {
			fmt.Fprintln(os.Stderr)
			n, _ := sig.(syscall.Signal)
			modes.exit(128 + int(n))
		}
	}()
	return func() {
		signal.Stop(ch)
		close(ch)
	}
}

// replInteractive is the REPL on a terminal.
func replInteractive(figures string) error {
	modes := &termModes{}
	cooked, cookedErr := liner.TerminalMode()
	if cookedErr == nil {
		modes.cooked = cooked
	}
	defer exitOnSignals(modes)()
	input := openTTYInput()
	input.end() // until a cell runs
	s, t, err := replSession(input, figures)
	if err != nil {
		return err
	}
	// os.Exit from a goroutine while the prompt has the terminal raw
	t.exitWith = modes.exit
	ints := newInterrupts(os.Stderr)
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
	// cells read the terminal through input, liner through the os.Stdin it kept
	os.Stdin = input.f
	if raw, err := liner.TerminalMode(); err == nil && cookedErr == nil {
		modes.raw = raw
	}
	exec := func(code string) kernel.ExecResult {
		modes.apply(modes.cooked)
		defer modes.apply(modes.raw)
		input.begin()
		defer input.end()
		// a SIGINT at the prompt (kill -INT: Ctrl-C is a key there) does
		// not stop the next cell
		ints.mu.Lock()
		ints.pending = false
		ints.mu.Unlock()
		res, _ := ints.run(s, code)
		return res
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
		cell, ready := buf.add(fromHistory(l))
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
			replCell(s, t, exec, cell, fmt.Sprintf("Out[%d]: ", n))
			n++
		}
		fmt.Println()
	}
}

// fromHistory turns the newline marks of a line recalled from the history
// back into line breaks: those outside interpreted string and rune
// literals, which cannot hold a line break (a mark typed or recalled in
// "..." or '...' stays the character).
func fromHistory(line string) string {
	if !strings.Contains(line, newlineMark) {
		return line
	}
	var b strings.Builder
	var quote rune // the literal being read: '"', '\'' or '`'; 0 for none
	comment := ""  // "//" or "/*" while in a comment
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		next := rune(0)
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		if r == []rune(newlineMark)[0] && quote != '"' && quote != '\'' {
			b.WriteByte('\n')
			if comment == "//" {
				comment = ""
			}
			continue
		}
		b.WriteRune(r)
		switch {
		case comment == "//":
		case comment == "/*":
			if r == '*' && next == '/' {
				b.WriteRune(next)
				i++
				comment = ""
			}
		case quote == '`':
			if r == '`' {
				quote = 0
			}
		case quote != 0:
			if r == '\\' && next != 0 && string(next) != newlineMark {
				b.WriteRune(next)
				i++
			} else if r == quote {
				quote = 0
			}
		case r == '/' && (next == '/' || next == '*'):
			comment = "/" + string(next)
			b.WriteRune(next)
			i++
		case r == '"' || r == '\'' || r == '`':
			quote = r
		}
	}
	return b.String()
}

// continuationPrompt is the prompt of a cell's next lines, as wide as the
// first line's: "   ...: ".
func continuationPrompt(first string) string {
	const dots = "...: "
	return strings.Repeat(" ", max(len(first)-len(dots), 0)) + dots
}

// replCell runs one cell with exec (or shows the help a name? asks for)
// and writes its value, with the prefix out when it is text, or its error;
// it reports whether the cell succeeded.
func replCell(s *session.Session, t *termSink, exec func(string) kernel.ExecResult, cell, out string) (ok bool) {
	if query, found := showHelp(s, t, cell); query {
		return found
	}
	res := exec(cell)
	if res.Err != nil {
		showError(t, res.Err)
		return false
	}
	if res.Data == nil {
		return true
	}
	if _, fig := figureOf(res.Data); fig != nil || out == "" {
		t.show(res.Data)
		return true
	}
	text, _ := res.Data["text/plain"].(string)
	text = strings.TrimSuffix(text, "\n")
	if strings.Contains(text, "\n") {
		out += "\n" // a table starts on its own line, as in IPython
	}
	t.show(map[string]any{"text/plain": out + text})
	return true
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

// add appends a line (a recalled history entry may hold several) and
// returns the cell when it is ready to run. An empty first line is a
// ready, empty cell.
func (b *cellBuffer) add(line string) (cell string, ready bool) {
	b.lines = append(b.lines, line)
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
// historyLimit entries. Sessions running at once take turns (a lock on
// the file's directory), each reading the file again first, so that they
// keep each other's cells.
func appendHistory(path, entry string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	hist, err := readHistory(path)
	if err != nil {
		return err
	}
	if len(hist) == 0 || hist[len(hist)-1] != entry {
		hist = append(hist, entry)
	}
	hist = trimHistory(hist, historyLimit)
	tmp, err := os.CreateTemp(dir, "history-*")
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

// lockDir takes an exclusive lock (flock(2)) on a directory, waiting for
// it; unlock releases it.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	return func() { f.Close() }, nil // closing releases the lock
}

// trimHistory keeps the last n entries.
func trimHistory(hist []string, n int) []string {
	if len(hist) > n {
		return hist[len(hist)-n:]
	}
	return hist
}
