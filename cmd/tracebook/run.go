package main

import (
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/tracebook/tracebook/kernel"
	"github.com/tracebook/tracebook/kernel/session"
)

// exitError ends the command with a status and no further message (the
// message, if any, was written already).
type exitError struct{ code int }

func (e exitError) Error() string { return "exit status " + strconv.Itoa(e.code) }

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const runUsage = `usage:
  tracebook run [flags] FILE.go [ARGS...]     run a Go script with the builtins
  tracebook run [flags] -e CODE [ARGS...]      run the Go code CODE
  tracebook run [flags] NOTEBOOK.ipynb         execute a notebook's Go cells headless

A script is Go as in a notebook cell, or a whole package main file (its main is
called). Lines "// %%" split it into cells, run one after another as the kernel runs
them: the value of each cell's last expression is written to stdout as text, figures
shown with display.Show (or as a cell's value) to FILE-1.png, FILE-2.png, ... next to the
script. os.Args is FILE ARGS... An error stops the script: its traceback, with file and
line, goes to stderr and the exit status is 1 (os.Exit(N) in the script: N; SIGINT: 130,
the running builtin stops as on an interrupt in the notebook).

flags:
  -e CODE        run CODE instead of a file (figures: tracebook-1.png, ... here)
  --figures P    write figures to P-1.png, P-2.png, ...
  --out FILE     with a notebook: write the executed notebook to FILE
  --allow-errors with a notebook: run every cell, even after an error
`

// runRun is "tracebook run".
func runRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	code := fs.String("e", "", "")
	figures := fs.String("figures", "", "")
	out := fs.String("out", "", "")
	allowErrors := fs.Bool("allow-errors", false, "")
	// parse reads flags; help: -h was given (the usage is printed)
	parse := func(args []string) (help bool, err error) {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Print(runUsage)
				return true, nil
			}
			return false, usageError{err.Error() + "\n" + runUsage}
		}
		return false, nil
	}
	if help, err := parse(args); help || err != nil {
		return err
	}
	rest := fs.Args()
	eSet := false
	fs.Visit(func(f *flag.Flag) { eSet = eSet || f.Name == "e" })
	var name, src string
	var scriptArgs []string
	switch {
	case eSet:
		name, src, scriptArgs = "-e", *code, append([]string{"-e"}, rest...)
		if *figures == "" {
			*figures = "tracebook"
		}
	case len(rest) == 0:
		return usageError{"need a FILE.go, a NOTEBOOK.ipynb or -e CODE\n" + runUsage}
	default:
		name, scriptArgs = rest[0], rest
		var b []byte
		var err error
		if name == "-" {
			b, err = io.ReadAll(os.Stdin)
			name = "<stdin>"
			if *figures == "" {
				*figures = "tracebook"
			}
		} else {
			b, err = os.ReadFile(name)
		}
		if err != nil {
			return usageError{err.Error()}
		}
		src = string(b)
		if strings.EqualFold(filepath.Ext(name), ".ipynb") {
			// flags may follow a notebook (it takes no arguments)
			if help, err := parse(rest[1:]); help || err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usageError{fmt.Sprintf("a notebook takes no arguments (%q)", fs.Args())}
			}
			return runNotebook(name, b, *out, *allowErrors)
		}
		if *figures == "" {
			*figures = figurePrefix(name)
		}
	}
	if *out != "" {
		return usageError{"--out is for notebooks"}
	}
	var stdin io.Reader
	if name != "<stdin>" {
		stdin = os.Stdin
	}
	s, t, err := newTermSession(termOptions{stdout: os.Stdout, stderr: os.Stderr, stdin: stdin, args: scriptArgs,
		figures: *figures, progress: isTerminal(os.Stderr), color: isTerminal(os.Stderr), name: name, exit: true, failFast: true})
	if err != nil {
		return err
	}
	return runScript(s, t, newInterrupts(os.Stderr), name, src)
}

// cellMarkRE matches a comment starting a cell: "// %%" (the percent
// format of jupytext and editors), with an optional title or "[markdown]".
var cellMarkRE = regexp.MustCompile(`^//\s*%%`)

// scriptCell is one cell of a script: its source, padded with empty lines
// so that its line numbers are the file's.
type scriptCell struct {
	src  string
	line int // the file line of its first line; 0 for tracebook's call of main
}

// scriptCells splits a script at its cell markers: line comments "// %%"
// alone on their line (go/scanner finds them, so a raw string or a block
// comment holding such a line is not split). Markdown cells ("// %%
// [markdown]") are skipped.
func scriptCells(src string) []scriptCell {
	lines := strings.SplitAfter(src, "\n")
	marks := map[int]bool{} // 0-based line -> starts a cell
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	var sc scanner.Scanner
	sc.Init(f, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT || !cellMarkRE.MatchString(lit) {
			continue
		}
		p := f.Position(pos)
		if strings.TrimSpace(lines[p.Line-1][:p.Column-1]) == "" {
			marks[p.Line-1] = true
		}
	}
	var cells []scriptCell
	start, skip := 0, false
	flush := func(end int) {
		if !skip && end > start {
			body := strings.Join(lines[start:end], "")
			if strings.TrimSpace(body) != "" {
				cells = append(cells, scriptCell{src: strings.Repeat("\n", start) + body, line: start + 1})
			}
		}
	}
	for i, l := range lines {
		if marks[i] {
			flush(i)
			start, skip = i+1, strings.Contains(l, "[markdown]")
		}
	}
	flush(len(lines))
	return cells
}

// hasMain reports whether src is a Go file that declares func main.
func hasMain(src string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			return true
		}
	}
	return false
}

// cellLineRE matches the positions the session gives ("cell line 12:5").
var cellLineRE = regexp.MustCompile(`cell line (\d+)(:\d+)?`)

// runScript runs a script's cells in order until an error.
func runScript(s *session.Session, t *termSink, ints *interrupts, name, src string) error {
	cells := scriptCells(src)
	if hasMain(src) {
		cells = append(cells, scriptCell{src: "main()", line: 0}) // line 0: tracebook's call
	}
	for _, c := range cells {
		if query, _ := showHelp(s, t, c.src); query {
			continue
		}
		res, interrupted := ints.run(s, c.src)
		if res.Err != nil {
			if c.line == 0 && len(res.Err.Traceback) > 1 {
				// the call of main is tracebook's, not a line of the file
				last := res.Err.Traceback[len(res.Err.Traceback)-1]
				if cellLineRE.MatchString(last) && strings.HasPrefix(strings.TrimSpace(last), "at ") {
					res.Err.Traceback = res.Err.Traceback[:len(res.Err.Traceback)-1]
				}
			}
			return scriptError(t, res.Err, name, interrupted)
		}
		if res.Data != nil {
			t.show(res.Data)
		}
	}
	t.endBar()
	if t.figErr != nil {
		return exitError{1}
	}
	return nil
}

// scriptError writes a cell's error with the script's file and line and
// returns the exit status it ends with.
func scriptError(t *termSink, e *kernel.ExecError, name string, interrupted bool) error {
	t.endBar()
	if interrupted {
		fmt.Fprintf(t.opt.stderr, "%s: interrupted (SIGINT)\n", name)
		return exitError{130}
	}
	showError(t, e)
	return exitError{1}
}
