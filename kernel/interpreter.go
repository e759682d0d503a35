package kernel

import (
	"context"
	"io"
	"regexp"
	"strings"
)

// ExecError is an error shown for a cell.
type ExecError struct {
	Name, Value string
	Traceback   []string
}

// Error returns "Name: Value".
func (e *ExecError) Error() string { return e.Name + ": " + e.Value }

// ANSI colours of tracebacks, those of ipykernel (IPython's default scheme):
// front ends show error outputs with them, so an error does not read like
// ordinary output.
const (
	ansiRed   = "\x1b[0;31m" // the error's name
	ansiGreen = "\x1b[0;32m" // where: cell line and column
	ansiCyan  = "\x1b[0;36m" // the function
	ansiReset = "\x1b[0m"
)

var (
	tbNameRE  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_. ]{0,40}): `)
	tbWhereRE = regexp.MustCompile(`cell line \d+(?::\d+)?`)
	tbFuncRE  = regexp.MustCompile(`(cell line \d+(?::\d+)?, in |^\s+in )(\S+)`)
)

// Formatted returns e's traceback as front ends show it (see traceback).
func (e *ExecError) Formatted() []string { return e.traceback() }

// traceback returns e's traceback as sent to front ends: Name: Value when
// the interpreter gave none, coloured like ipykernel's. The first line's
// leading name ("panic", "CompileError", a builtin's "profile.Boxes") is
// red, cell positions green, function names cyan; lines that already carry
// colour are kept.
func (e *ExecError) traceback() []string {
	tb := e.Traceback
	if len(tb) == 0 {
		tb = []string{e.Name + ": " + e.Value}
	}
	out := make([]string, len(tb))
	for i, line := range tb {
		if strings.Contains(line, "\x1b[") {
			out[i] = line
			continue
		}
		line = tbFuncRE.ReplaceAllString(line, "$1"+ansiCyan+"$2"+ansiReset)
		line = tbWhereRE.ReplaceAllString(line, ansiGreen+"$0"+ansiReset)
		if i == 0 {
			line = tbNameRE.ReplaceAllString(line, ansiRed+"$1"+ansiReset+": ")
		}
		out[i] = line
	}
	return out
}

// ExecResult is what executing a cell produced.
type ExecResult struct {
	Data, Metadata map[string]any // value of the last expression, nil: none
	Err            *ExecError
}

// Interpreter is the language seam.
type Interpreter interface {
	Execute(ctx context.Context, code string) ExecResult
	Complete(code string, cursor int) (matches []string, start, end int) // byte offsets
	// Inspect documents the name at cursor as a MIME bundle (text/plain,
	// text/markdown); detail is Jupyter's detail_level (0 or 1).
	Inspect(code string, cursor, detail int) (data map[string]any, found bool)
	IsComplete(code string) (status, indent string)
	// Sync returns once output written by the interpreter so far reached its writers.
	Sync()
}

// Frontend is what the kernel offers an interpreter while it runs: output
// streams, displays and user input, all routed to the cell being executed.
type Frontend struct {
	Stdout, Stderr io.Writer
	Display        func(data, metadata map[string]any, id string, update bool)
	Clear          func(wait bool)
	Input          func(prompt string, password bool) (string, error)
	Error          func(e *ExecError) // an error outside the cell's own flow (goroutine panic)
}
