package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/kernel"
	"github.com/tracebook/tracebook/kernel/session"
)

// A terminal session is the kernel's session without Jupyter (tracebook run
// and tracebook repl): shown values are written to stdout as text, figures
// to files, progress bars to stderr when it is a terminal.

// termOptions configure a terminal session.
type termOptions struct {
	stdout, stderr io.Writer
	stdin          io.Reader // what input reads (nil: end of file)
	args           []string  // os.Args of the cells
	// figures is the path prefix of figure files ("dir/name": figures are
	// dir/name-1.png, ...); "" writes none and says so.
	figures  string
	progress bool // draw progress bars on stderr (it is a terminal)
	color    bool // keep the ANSI colours of tracebacks
	// name is the script's file: positions "cell line N" are written
	// "name:N" (its cells are padded to their file lines); "": kept
	name string
	// exit: os.Exit exits the process (after the output so far);
	// otherwise it panics, as in the kernel
	exit bool
	// failFast: a panic in a goroutine ends the process with status 1, as
	// a Go program's ends; otherwise it is reported and the session goes on
	failFast bool
}

// termSink is the display sink of a terminal session.
type termSink struct {
	opt  termOptions
	sess *session.Session // set once the session exists: its output is synced before a display

	// exitWith, when set, ends the process in place of os.Exit (the REPL's
	// gives the terminal its mode back first)
	exitWith func(code int)

	mu     sync.Mutex
	nfig   int
	bar    string // the id of the bar on the last line of stderr, "" for none
	figErr error  // the last failure to write a figure
}

func newTermSession(opt termOptions) (*session.Session, *termSink, error) {
	t := &termSink{opt: opt}
	var in *bufio.Reader
	if opt.stdin != nil {
		in = bufio.NewReader(opt.stdin)
	}
	fe := kernel.Frontend{
		Stdout: barBreaker{t, opt.stdout},
		Stderr: barBreaker{t, opt.stderr},
		Input: func(prompt string, password bool) (string, error) {
			if in == nil {
				return "", io.EOF
			}
			t.endBar()
			fmt.Fprint(opt.stderr, prompt)
			line, err := in.ReadString('\n')
			if err != nil && line == "" {
				return "", err
			}
			return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
		},
		Error: func(e *kernel.ExecError) {
			showError(t, e)
			if opt.failFast {
				t.exit(1)
			}
		},
	}
	so := session.Options{IO: fe, Symbols: symbols.Symbols, Preimport: preimports(), Args: opt.args}
	if opt.exit {
		so.Exit = t.exit
	}
	s, err := session.New(so)
	if err != nil {
		return nil, nil, err
	}
	t.sess = s
	display.SetSink(t)
	return s, t, nil
}

// ansiRE matches the colour sequences of tracebacks.
var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// exit ends the process with code once the output so far is written.
func (t *termSink) exit(code int) {
	t.sess.Sync()
	t.endBar()
	if t.exitWith != nil {
		t.exitWith(code)
	}
	os.Exit(code)
}

// kernelNoteRE matches what goroutine panics say about the kernel.
var kernelNoteRE = regexp.MustCompile(`; the kernel and its state are intact$`)

// traceback returns the lines of e as the terminal shows them: positions
// in the script's file, colours only on a terminal.
func (t *termSink) traceback(e *kernel.ExecError) []string {
	lines := e.Formatted()
	for i, l := range lines {
		if !t.opt.color {
			l = stripANSI(l)
		}
		if t.opt.name != "" {
			l = cellLineRE.ReplaceAllString(l, t.opt.name+":$1$2")
		}
		lines[i] = kernelNoteRE.ReplaceAllString(l, "")
	}
	return lines
}

// barBreaker ends the line of a progress bar before output reaches the
// terminal.
type barBreaker struct {
	t *termSink
	w io.Writer
}

func (b barBreaker) Write(p []byte) (int, error) {
	b.t.endBar()
	return b.w.Write(p)
}

// Display writes a display: figures to a file, anything else as its text.
func (t *termSink) Display(data, md map[string]any, id string, update bool) {
	t.sess.Sync()
	t.show(data)
}

// Clear does nothing: a terminal keeps what was written.
func (t *termSink) Clear(bool) {}

// show writes a bundle: a figure to the next figure file (said on
// stderr), anything else as text/plain on stdout.
func (t *termSink) show(data map[string]any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endBarLocked()
	if ext, b := figureOf(data); b != nil {
		if t.opt.figures == "" {
			fmt.Fprintf(t.opt.stderr, "(a figure: not written, no file name for it)\n")
			return
		}
		t.nfig++
		path := fmt.Sprintf("%s-%d.%s", t.opt.figures, t.nfig, ext)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.figErr = err
			fmt.Fprintf(t.opt.stderr, "figure %d: %v\n", t.nfig, err)
			return
		}
		fmt.Fprintf(t.opt.stderr, "figure %d written to %s\n", t.nfig, path)
		return
	}
	text, _ := data["text/plain"].(string)
	if text == "" {
		return
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	io.WriteString(t.opt.stdout, text)
}

// decodeBase64 decodes a PNG as a bundle holds it after JSON (base64, in
// lines or not).
func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s))
}

// figureOf returns the image of a figure's bundle: PNG first, then SVG.
func figureOf(data map[string]any) (ext string, b []byte) {
	switch v := data["image/png"].(type) {
	case []byte:
		return "png", v
	case string:
		if d, err := decodeBase64(v); err == nil {
			return "png", d
		}
	}
	if v, ok := data["image/svg+xml"].(string); ok {
		return "svg", []byte(v)
	}
	return "", nil
}

// Progress draws a bar on the last line of stderr, rewritten in place.
func (t *termSink) Progress(id, text string, ended bool) {
	if !t.opt.progress {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bar != "" && t.bar != id {
		io.WriteString(t.opt.stderr, "\n")
	}
	t.bar = id
	io.WriteString(t.opt.stderr, "\r\x1b[K"+text)
	if ended {
		io.WriteString(t.opt.stderr, "\n")
		t.bar = ""
	}
}

// endBar ends the line of a bar still drawn, before other output.
func (t *termSink) endBar() {
	t.mu.Lock()
	t.endBarLocked()
	t.mu.Unlock()
}

func (t *termSink) endBarLocked() {
	if t.bar != "" {
		io.WriteString(t.opt.stderr, "\n")
		t.bar = ""
	}
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && st.Mode()&os.ModeDevice != 0
}

// interrupts cancels the context of the running cell on SIGINT, as an
// interrupt request does in the kernel. A second SIGINT while a cell
// is already cancelled exits the process with status 130.
type interrupts struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	hit     bool // the running cell was interrupted
	pending bool // SIGINT came between cells: the next one is not run
	ch      chan os.Signal
}

func newInterrupts(stderr io.Writer) *interrupts {
	in := &interrupts{ch: make(chan os.Signal, 1)}
	signal.Notify(in.ch, os.Interrupt)
	go func() {
		for range in.ch {
			in.mu.Lock()
			c, again := in.cancel, in.hit
			if c == nil {
				in.pending = true // between cells
			} else {
				in.hit = true
			}
			in.mu.Unlock()
			switch {
			case c == nil:
			case again:
				fmt.Fprintln(stderr, "\ninterrupted again: exiting")
				os.Exit(130)
			default:
				c()
			}
		}
	}()
	return in
}

// run executes one cell, cancelled by SIGINT; it reports whether SIGINT
// came while it ran.
func (in *interrupts) run(s *session.Session, code string) (kernel.ExecResult, bool) {
	ctx, cancel := context.WithCancel(context.Background())
	in.mu.Lock()
	if in.pending {
		in.pending, in.hit = false, false
		in.mu.Unlock()
		cancel()
		return kernel.ExecResult{Err: &kernel.ExecError{Name: "Interrupted", Value: "interrupted between cells"}}, true
	}
	in.cancel, in.hit = cancel, false
	in.mu.Unlock()
	res := s.Execute(ctx, code)
	s.Sync()
	in.mu.Lock()
	in.cancel = nil
	hit := in.hit
	in.hit = false
	in.mu.Unlock()
	cancel()
	return res, hit
}

// figurePrefix is the prefix of the figure files of a script: its path
// without the extension.
func figurePrefix(script string) string {
	return strings.TrimSuffix(script, filepath.Ext(script))
}

// stop ends the handling of SIGINT (its default action is back) and the
// goroutine that did it.
func (in *interrupts) stop() {
	signal.Stop(in.ch)
	close(in.ch)
}

// showHelp shows the documentation a cell "name?" or "name??" asks for;
// it reports whether the cell is such a query and whether there is
// documentation.
func showHelp(s *session.Session, t *termSink, cell string) (query, found bool) {
	expr, detail, query := kernel.HelpQuery(strings.TrimSpace(cell))
	if !query {
		return false, false
	}
	data, found := s.Inspect(expr, len(expr), detail)
	if !found {
		data = map[string]any{"text/plain": "no documentation found for " + expr}
	}
	t.show(data)
	return true, found
}

// showError writes the traceback of a cell's error on stderr, after the
// line of a progress bar.
func showError(t *termSink, e *kernel.ExecError) {
	t.endBar()
	fmt.Fprintln(t.opt.stderr, strings.Join(t.traceback(e), "\n"))
}
