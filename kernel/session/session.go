package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/kernel"
)

// Session is a live interpreter: the kernel's Interpreter.
var _ kernel.Interpreter = (*Session)(nil)

// Session is a live interpreter.
type Session struct {
	mu          sync.Mutex // one execution at a time
	in          *interp.Interpreter
	io          kernel.Frontend
	imported    map[string]string // package name -> import path
	funcs       map[string]string // rebound function name -> signature
	declared    map[string]bool   // names declared by cells (types, consts, funcs, vars)
	symbols     interp.Exports
	stdin       *lineReader
	stderr      *panicFilter
	history     []string
	outPipe     *pipeStream
	errPipe     *pipeStream
	captured    []any
	didCapture  bool
	lastGlobals map[string]bool // names of the last answer of globals
	// typeNames names the struct types declared in cells: yaegi builds
	// them as unnamed reflect types (struct { A int }), which %who and
	// inspection would otherwise show.
	typeNames map[reflect.Type]string
	probed    reflect.Type // set by probe
	bg        *background  // a compiled call of an interrupted cell still running
}

// Options configure a new session.
type Options struct {
	// IO connects the session to the outside world: its writers receive
	// output as it is produced (also from goroutines still running after
	// their cell ended); Input reads one line typed by the user (nil: reads
	// see end of file); Error reports a panic in a goroutine started by a
	// cell. Display and Clear are not used (displays go through package
	// display's sink).
	IO kernel.Frontend
	// Symbols are compiled packages made available (builtins/symbols).
	Symbols interp.Exports
	// Preimport lists import paths imported at start under their names.
	Preimport []string
	// Args is os.Args as cells see it (nil: just "tracebook"): a script's
	// name and arguments under tracebook run.
	Args []string
	// Exit, when set, is os.Exit as cells see it: a script's exits the
	// process. Without it os.Exit panics, so that it cannot end a kernel.
	Exit func(code int)
}

// maxCallDepth bounds the depth of interpreted calls in a goroutine. An
// interpreted call takes 0.8 KB (a declared function) to 6 KB (a function
// value, as the session declares a cell's functions) of Go stack, so the
// limit stays under 150 MB, far from Go's fatal 1 GB, while recursion over
// a tree, or down a list of 10000 elements, still runs.
const maxCallDepth = 20000

// displayPath is the import path of the display builtins.
const displayPath = "github.com/tracebook/tracebook/builtins/display"

// reportPath is the import path of the session's runtime helpers.
const reportPath = "tracebook/rt"

// New starts a session.
func New(opt Options) (*Session, error) {
	s := &Session{io: opt.IO, imported: map[string]string{}, funcs: map[string]string{},
		declared: map[string]bool{}, symbols: interp.Exports{}, typeNames: map[reflect.Type]string{}}
	for k, v := range stdlib.Symbols {
		s.symbols[k] = v
	}
	for k, v := range opt.Symbols {
		s.symbols[k] = v
	}
	if s.io.Stdout == nil {
		s.io.Stdout = io.Discard
	}
	if s.io.Stderr == nil {
		s.io.Stderr = io.Discard
	}
	s.stdin = &lineReader{s: s}
	s.stderr = &panicFilter{}
	var err error
	if s.outPipe, err = newPipeStream("/dev/stdout", s.io.Stdout, nil); err != nil {
		return nil, err
	}
	if s.errPipe, err = newPipeStream("/dev/stderr", s.io.Stderr, s.stderr.swallow); err != nil {
		return nil, err
	}
	args := opt.Args
	if args == nil {
		args = []string{"tracebook"}
	}
	s.in = interp.New(interp.Options{
		Stdin:  s.stdin,
		Stdout: s.outPipe.w,
		Stderr: s.errPipe.w,
		Env:    os.Environ(),
		Args:   args,
		// cells are compiled for the life of the session: keep no AST
		// for a debugger
		NoDebugger: true,
		// ordinary mistakes stay errors of their cell: unbounded
		// recursion, a make or append larger than the memory available
		MaxCallDepth: maxCallDepth,
		Reserve:      work.Reserve,
	})
	if err := s.in.Use(stdlib.Symbols); err != nil {
		return nil, err
	}
	if opt.Exit != nil {
		if err := s.in.Use(interp.Exports{"os/os": {"Exit": reflect.ValueOf(opt.Exit)}}); err != nil {
			return nil, err
		}
	}
	capture := reflect.ValueOf(s.capture)
	rt := interp.Exports{reportPath + "/rt": {"GoPanic": reflect.ValueOf(s.goPanic), "Capture": capture,
		"TypeName": reflect.ValueOf(s.typeName), "Probe": reflect.ValueOf(s.probe)}}
	if err := s.in.Use(rt); err != nil {
		return nil, err
	}
	if opt.Symbols != nil {
		if err := s.in.Use(opt.Symbols); err != nil {
			return nil, err
		}
	}
	// A value of an interpreted type reaches compiled code as a bare
	// value, without its methods, unless yaegi wraps it for an interface.
	// The shown value and display's functions taking any get the wrappers
	// of the interfaces display looks for, as fmt's functions do for
	// fmt.Stringer.
	wrap := []reflect.Type{reflect.TypeOf((*display.MIMEBundler)(nil)).Elem(),
		reflect.TypeOf((*fmt.Formatter)(nil)).Elem(), reflect.TypeOf((*fmt.Stringer)(nil)).Elem()}
	mt := map[reflect.Value][]reflect.Type{capture: wrap}
	for _, f := range []string{"Show", "Bundle", "Updatable", "JSON"} {
		if v, ok := opt.Symbols[displayPath+"/display"][f]; ok {
			mt[v] = wrap
		}
	}
	if err := s.in.Use(interp.Exports{".": {"MapTypes": reflect.ValueOf(mt)}}); err != nil {
		return nil, err
	}
	if err := s.useStdio(); err != nil {
		return nil, err
	}
	if _, err := s.in.Eval(`import __tbrt "` + reportPath + `"`); err != nil {
		return nil, fmt.Errorf("session runtime: %w", err)
	}
	for _, p := range opt.Preimport {
		if err := s.importPath(p); err != nil {
			return nil, fmt.Errorf("preimport %s: %w", p, err)
		}
	}
	return s, nil
}

func (s *Session) importPath(p string) error {
	if _, err := s.in.Eval(`import "` + p + `"`); err != nil {
		return err
	}
	s.imported[pkgName(p)] = p
	return nil
}

// pkgName guesses the package name of an import path (the last element,
// without a major-version suffix).
func pkgName(p string) string {
	b := path.Base(p)
	if strings.HasPrefix(b, "v") && len(b) > 1 && strings.Trim(b[1:], "0123456789") == "" {
		b = path.Base(path.Dir(p))
	}
	return b
}

// Imported returns the packages imported in the session, name -> path.
func (s *Session) Imported() map[string]string {
	out := map[string]string{}
	for k, v := range s.imported {
		out[k] = v
	}
	return out
}

// goPanic is called by rewritten go statements (see rewriteGo).
func (s *Session) goPanic(r any, line int) {
	e := &kernel.ExecError{Name: "goroutine panic", Value: fmt.Sprint(r),
		Traceback: []string{fmt.Sprintf("panic: %v", r), fmt.Sprintf("in a goroutine started at cell line %d; the kernel and its state are intact", line)}}
	if s.io.Error != nil {
		s.io.Error(e)
	}
}

// autoImports maps package names to standard-library import paths that are
// imported on first use without an import line.
var autoImports = map[string]string{
	"fmt": "fmt", "strings": "strings", "strconv": "strconv", "math": "math", "sort": "sort",
	"time": "time", "os": "os", "io": "io", "bytes": "bytes", "errors": "errors",
	"regexp": "regexp", "sync": "sync", "context": "context", "rand": "math/rand",
	"bufio": "bufio", "unicode": "unicode", "utf8": "unicode/utf8", "filepath": "path/filepath",
	"path": "path", "json": "encoding/json", "csv": "encoding/csv", "hex": "encoding/hex",
	"base64": "encoding/base64", "runtime": "runtime", "reflect": "reflect", "slices": "slices",
	"maps": "maps", "cmp": "cmp", "atomic": "sync/atomic", "big": "math/big", "bits": "math/bits",
	"cmplx": "math/cmplx", "heap": "container/heap", "list": "container/list",
	"tabwriter": "text/tabwriter", "sha256": "crypto/sha256", "binary": "encoding/binary",
	"log": "log", "html": "html", "template": "text/template", "fs": "io/fs", "iter": "iter",
}

var lineRE = regexp.MustCompile(`(?:_\.go:|cell:)?(\d+):(\d+): `)

// cellPos rewrites yaegi positions ("12:3: ") in a message to cell lines.
func cellPos(msg string) string {
	return lineRE.ReplaceAllStringFunc(msg, func(m string) string {
		sm := lineRE.FindStringSubmatch(m)
		l, _ := strconv.Atoi(sm[1])
		if l > 1 {
			l--
		}
		return fmt.Sprintf("cell line %d:%s: ", l, sm[2])
	})
}

// Execute runs a cell. Cancelling ctx interrupts it; state is kept.
func (s *Session) Execute(ctx context.Context, code string) (res kernel.ExecResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// No panic of the interpreter (a bug of yaegi's) reaches the host:
	// the cell fails with it. The compilation steps recover their own
	// panics, naming the cell line (compile, nameTypes); this is the last
	// resort.
	defer func() {
		if r := recover(); r != nil {
			msg := cellPos(fmt.Sprintf("the interpreter failed on this cell (%v); please report it with the cell", r))
			res = kernel.ExecResult{Err: &kernel.ExecError{Name: "InternalError", Value: msg, Traceback: []string{"InternalError: " + msg}}}
		}
	}()
	// Builtins learn of an interrupt through package work (no context
	// arguments on the notebook surface).
	work.SetContext(ctx)
	defer work.SetContext(context.Background())
	s.history = append(s.history, code)
	if e := s.awaitBackground(ctx); e != nil {
		return kernel.ExecResult{Err: e}
	}
	code, magics, err := parseMagics(code)
	if err != nil {
		return kernel.ExecResult{Err: &kernel.ExecError{Name: "MagicError", Value: err.Error()}}
	}
	start := time.Now()
	if magics.help {
		res.Data, res.Metadata = display.Bundle(display.Markdown(s.helpText(magics.helpName)))
	}
	if magics.who {
		res.Data, res.Metadata = display.Bundle(s.who())
	}
	s.reopenStdio() // closed since the last cell (by a goroutine)
	if strings.TrimSpace(code) != "" {
		r := s.run(ctx, code)
		if r.Err != nil || r.Data != nil {
			res = r
		}
	}
	s.reopenStdio()
	if magics.time {
		fmt.Fprintf(s.io.Stdout, "wall time: %v\n", time.Since(start).Round(time.Microsecond))
	}
	return res
}

func (s *Session) run(ctx context.Context, code string) kernel.ExecResult {
	code, err := rewriteGo(code, "__tbrt.GoPanic")
	if err != nil {
		return kernel.ExecResult{Err: syntaxErr(err)}
	}
	p, err := Split(code, s.funcs)
	if err != nil {
		return kernel.ExecResult{Err: syntaxErr(err)}
	}
	if err := s.autoImport(code, p); err != nil {
		return kernel.ExecResult{Err: &kernel.ExecError{Name: "ImportError", Value: err.Error()}}
	}
	oldTypes := s.oldTypes(p) // redefine.go
	// The whole cell is compiled before any of it runs: a compile error
	// anywhere means nothing ran and no name of the cell is left declared.
	snap := s.in.Snapshot()
	progs := make([]*interp.Program, len(p.chunks))
	capture := false
	for i, c := range p.chunks {
		if c.Expr != "" {
			// The value of the last expression is captured by a compiled
			// function: yaegi's own Eval result is stale for calls without
			// results. A call without results does not compile this way,
			// so it is then compiled as a plain statement.
			before := s.in.Snapshot()
			if prog, err := s.compile(pad(c.Line) + "__tbrt.Capture(" + c.Expr + ",\n)"); err == nil {
				progs[i], capture = prog, true
				continue
			}
			s.in.Restore(before)
		}
		prog, err := s.compile(c.Src)
		if err != nil {
			s.in.Restore(snap)
			return kernel.ExecResult{Err: s.compileErr(err, code, p, c.Src)}
		}
		progs[i] = prog
	}
	naming := s.nameTypes(p)
	for _, f := range p.funcs {
		s.funcs[f.name] = f.sig
	}
	for _, n := range p.names {
		s.declared[n] = true
	}
	for _, ip := range p.imports {
		s.imported[ip.name] = ip.path
	}
	// redefinitions evaluates code of its own, before the cell's value
	// is captured
	if note := s.redefinitions(p, oldTypes); note != "" {
		fmt.Fprintln(s.io.Stderr, note)
	}
	s.captured, s.didCapture = nil, false
	for i, prog := range progs {
		s.stderr.begin()
		_, err := s.in.ExecuteWithContext(ctx, prog)
		s.settle(ctx, err)
		trace := s.stderr.end()
		if err != nil {
			if s.bg != nil && s.bg.what == "" {
				s.bg.what = s.argNames(code, s.bg.call)
			}
			return kernel.ExecResult{Err: s.evalErr(ctx, err, fixTop(trace, p.chunks[i]))}
		}
	}
	for _, prog := range naming {
		_, _ = s.in.Execute(prog)
	}
	captured, did := s.captured, s.didCapture
	// The session keeps no reference to the shown value: once rendered,
	// it is garbage unless the cell stored it.
	s.captured = nil
	if !capture || !did {
		return kernel.ExecResult{}
	}
	return s.renderValues(captured)
}

// nameTypes compiles, for the struct types a cell declares, the calls that
// record their reflect types under their names (run after the cell). A type
// whose call does not compile (yaegi fails on some types) is left unnamed:
// it shows as its structure.
func (s *Session) nameTypes(p *plan) []*interp.Program {
	names := make([]string, 0, len(p.structTypes))
	for n := range p.structTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	var progs []*interp.Program
	for _, n := range names {
		before := s.in.Snapshot()
		prog, err := s.compile(fmt.Sprintf("%s__tbrt.TypeName(%q, (*%s)(nil))", pad(p.typeLine[n]), n, n))
		if err != nil {
			s.in.Restore(before)
			continue
		}
		progs = append(progs, prog)
	}
	return progs
}

// evalQuiet evaluates code of the session's own (not the user's): a
// failure, a panic of the interpreter included, is an error and leaves no
// declaration behind.
func (s *Session) evalQuiet(src string) (err error) {
	before := s.in.Snapshot()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the interpreter failed: %v", r)
		}
		if err != nil {
			s.in.Restore(before)
		}
	}()
	_, err = s.in.Eval(src)
	return err
}

// probe receives a value whose dynamic type the session asks for; unlike
// Capture, its argument is never wrapped for an interface.
func (s *Session) probe(v any) { s.probed = reflect.TypeOf(v) }

func (s *Session) typeName(name string, p any) {
	t := reflect.TypeOf(p)
	if t == nil || t.Kind() != reflect.Pointer {
		return
	}
	if e := t.Elem(); e.Kind() == reflect.Struct && e.Name() == "" {
		s.typeNames[e] = name
	}
}

// typeString writes a type as the user declared it: struct types declared
// in cells by their names, in composite types too ([]Run, map[string]*Run).
func (s *Session) typeString(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	if n, ok := s.typeNames[t]; ok {
		return n
	}
	if t.Name() != "" {
		return t.String()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + s.typeString(t.Elem())
	case reflect.Slice:
		return "[]" + s.typeString(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), s.typeString(t.Elem()))
	case reflect.Map:
		return "map[" + s.typeString(t.Key()) + "]" + s.typeString(t.Elem())
	case reflect.Chan:
		switch t.ChanDir() {
		case reflect.RecvDir:
			return "<-chan " + s.typeString(t.Elem())
		case reflect.SendDir:
			return "chan<- " + s.typeString(t.Elem())
		}
		return "chan " + s.typeString(t.Elem())
	}
	return t.String()
}

// compile compiles one chunk; a panic of the compiler (a yaegi bug) is an
// error, not a crash of the kernel.
func (s *Session) compile(src string) (prog *interp.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cell line %d: the interpreter failed on this cell (%v); please report it with the cell", chunkLine(src), r)
		}
	}()
	return s.in.Compile(src)
}

// chunkLine returns the cell line of a chunk's first statement or
// declaration: its text starts after the newlines that put it on its cell
// line (see pad).
func chunkLine(src string) int {
	body := strings.TrimPrefix(src, declPrefix)
	return strings.Count(body[:len(body)-len(strings.TrimLeft(body, " \t\n"))], "\n")
}

// compileErr turns a compilation error into what the user sees.
func (s *Session) compileErr(err error, code string, p *plan, src string) *kernel.ExecError {
	msg := cellPos(err.Error())
	if strings.Contains(msg, "definition loop") {
		// yaegi's message for an undefined name in a top-level
		// definition; name the culprit instead.
		if u := s.undefined(code, p); u != "" {
			msg = u
		}
	}
	if !strings.Contains(msg, "cell line ") {
		// a message without a position (a failure of the compiler
		// itself): the line of the chunk that failed
		msg = fmt.Sprintf("cell line %d: %s", chunkLine(src), msg)
	}
	return &kernel.ExecError{Name: "CompileError", Value: msg, Traceback: []string{"CompileError: " + msg}}
}

// settle waits for the cell's output to arrive. After an interrupt it first
// waits for yaegi's evaluation goroutine to stop (a builtin polls work.Check
// and stops within milliseconds), so that the panic lines yaegi prints
// while unwinding are caught by the panic filter, not shown as stderr.
func (s *Session) settle(ctx context.Context, err error) {
	if err != nil && ctx.Err() != nil {
		done := s.in.LastRun()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			// A compiled call does not stop on an interrupt: say which,
			// and make the next cell wait for it (awaitBackground).
			s.bg = &background{call: s.runningCall(), done: done}
		}
		// What the stopped builtin allocated is garbage now: give it back
		// to the system, so the kernel's memory returns to its level
		// before the cell.
		debug.FreeOSMemory()
	}
	s.Sync()
}

// capture receives the values of a cell's last expression.
func (s *Session) capture(v ...any) {
	s.captured, s.didCapture = v, true
}

// renderValues shows one value, or several (a multi-value call) as a tuple.
// A lone nil (untyped, or a nil error such as os.RemoveAll's) shows nothing,
// like Python's None; a string with a newline is shown as its text, as the
// lines it holds. Single-line strings stay Go-quoted so that "42" and 42 read
// differently, and strings inside a tuple stay quoted too.
func (s *Session) renderValues(vs []any) kernel.ExecResult {
	if len(vs) == 1 {
		if vs[0] == nil {
			return kernel.ExecResult{}
		}
		if str, ok := vs[0].(string); ok && strings.Contains(str, "\n") {
			return kernel.ExecResult{Data: map[string]any{"text/plain": str}, Metadata: map[string]any{}}
		}
		return s.render(reflect.ValueOf(&vs[0]).Elem())
	}
	// The Go idiom (v, err): a failed call shows its error, a successful
	// one shows v in full.
	if n := len(vs); n >= 2 {
		if err, ok := vs[n-1].(error); ok && err != nil {
			return s.render(reflect.ValueOf(&vs[n-1]).Elem())
		}
		if n == 2 && vs[1] == nil {
			return s.render(reflect.ValueOf(&vs[0]).Elem())
		}
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		r := s.render(reflect.ValueOf(&v).Elem())
		parts[i], _ = r.Data["text/plain"].(string)
	}
	return kernel.ExecResult{Data: map[string]any{"text/plain": "(" + strings.Join(parts, ", ") + ")"}, Metadata: map[string]any{}}
}

func (s *Session) render(v reflect.Value) (res kernel.ExecResult) {
	defer func() {
		if r := recover(); r != nil {
			res = kernel.ExecResult{Err: &kernel.ExecError{Name: "DisplayError", Value: fmt.Sprint(r)}}
		}
	}()
	if (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) && v.IsNil() {
		return kernel.ExecResult{Data: map[string]any{"text/plain": "nil"}, Metadata: map[string]any{}}
	}
	if !v.CanInterface() {
		return kernel.ExecResult{Data: map[string]any{"text/plain": v.String()}, Metadata: map[string]any{}}
	}
	x := v.Interface()
	if e, ok := x.(error); ok {
		if _, isB := x.(display.MIMEBundler); !isB {
			return kernel.ExecResult{Data: map[string]any{
				"text/plain": "error: " + e.Error(),
				"text/html":  `<pre style="color:#b00">error: ` + htmlEscape(e.Error()) + `</pre>`,
			}, Metadata: map[string]any{}}
		}
	}
	d, md := display.Bundle(x)
	return kernel.ExecResult{Data: d, Metadata: md}
}

func htmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return r.Replace(s)
}

func syntaxErr(err error) *kernel.ExecError {
	var se *SyntaxError
	if errors.As(err, &se) {
		return &kernel.ExecError{Name: "SyntaxError", Value: se.Error(), Traceback: []string{"SyntaxError: " + se.Error()}}
	}
	return &kernel.ExecError{Name: "SyntaxError", Value: err.Error(), Traceback: []string{err.Error()}}
}

func (s *Session) evalErr(ctx context.Context, err error, trace []string) *kernel.ExecError {
	// A cancelled cell is reported as interrupted whatever error its
	// interruption surfaced as: yaegi's own, or a builtin's ErrInterrupted
	// (returned, wrapped, or panicked by work.Check). settle has already
	// waited for the evaluation to stop.
	if ctx.Err() != nil {
		msg := "execution interrupted; session state is kept"
		if b := s.bg; b != nil && !b.gaveUp {
			msg = "execution interrupted; " + b.call + ", a compiled call, is still running in the background and may still change " + b.what + "; the next cell waits for it to return"
		}
		return &kernel.ExecError{Name: "Interrupted", Value: msg, Traceback: []string{"Interrupted: " + msg}}
	}
	var pv interp.Panic
	if p, ok := err.(interp.Panic); ok {
		pv = p
	} else if p, ok := err.(*interp.Panic); ok {
		pv = *p
	} else {
		msg := cellPos(err.Error())
		return &kernel.ExecError{Name: "CompileError", Value: msg, Traceback: []string{"CompileError: " + msg}}
	}
	if e, ok := pv.Value.(error); ok {
		if we := (*work.Error)(nil); errors.As(e, &we) && we.Func != "" {
			return builtinErr(e, we, trace)
		}
	}
	val := fmt.Sprint(pv.Value)
	if e, ok := pv.Value.(error); ok {
		val = e.Error()
	}
	tb := []string{"panic: " + val}
	where := ""
	for i, t := range trace {
		tb = append(tb, "    at "+t)
		if i == 0 {
			where = " (" + strings.TrimSuffix(t, " ") + ")"
		}
	}
	if len(trace) == 0 {
		if fr := compiledFrame(pv.Callers); fr != "" {
			tb = append(tb, "    in "+fr)
		}
	}
	return &kernel.ExecError{Name: "panic", Value: val + where, Traceback: tb}
}

// builtinErr is the error of a cell stopped by a builtin's *work.Error
// (the one error of the builtins, panicked by work.Fail): its name is the
// builtin ("profile.Boxes"), its value the builtin's message, or the whole
// text of e when something wrapped it. The traceback's first line reads
// like the panic's, "profile.Boxes: message", followed by the cell lines.
func builtinErr(e error, we *work.Error, trace []string) *kernel.ExecError {
	msg := we.Msg
	if e != error(we) {
		msg = e.Error()
	}
	tb := []string{we.Func + ": " + msg}
	for _, t := range trace {
		tb = append(tb, "    at "+t)
	}
	return &kernel.ExecError{Name: we.Func, Value: msg, Traceback: tb}
}

// compiledFrame names the first non-runtime, non-yaegi frame of a panic in
// compiled code (a builtin).
func compiledFrame(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") && !strings.Contains(f.Function, "traefik/yaegi") && f.Function != "" &&
			!strings.Contains(f.Function, "reflect.") {
			return fmt.Sprintf("%s (%s:%d)", f.Function, path.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// background is a compiled call made by an interrupted cell that was
// still running when the interrupt was answered: an interrupt stops
// interpreted code, but a compiled function (sort.Ints on 100M ints) runs
// until it returns, and may go on changing the values it was given.
type background struct {
	call string // "sort.Ints", or "a compiled call"
	what string // "xs", or "the values passed to it"
	done <-chan struct{}
	// gaveUp: a cell stopped waiting for it; later cells only warn
	gaveUp bool
}

// awaitBackground makes a cell wait for a compiled call still running from
// an interrupted cell, so that it does not see the call's values change
// under it. Interrupting the wait gives up waiting: that cell does not
// run, and later cells only warn while the call runs.
func (s *Session) awaitBackground(ctx context.Context) *kernel.ExecError {
	b := s.bg
	if b == nil {
		return nil
	}
	select {
	case <-b.done:
		s.bg = nil
		return nil
	default:
	}
	if b.gaveUp {
		fmt.Fprintf(s.io.Stderr, "note: %s, interrupted in an earlier cell, is still running in the background and may still change %s\n", b.call, b.what)
		return nil
	}
	fmt.Fprintf(s.io.Stderr, "waiting for %s, interrupted in an earlier cell, to return (interrupt to stop waiting)\n", b.call)
	select {
	case <-b.done:
		s.bg = nil
		return nil
	case <-ctx.Done():
		b.gaveUp = true
		msg := fmt.Sprintf("stopped waiting for %s, which is still running in the background and may still change %s; this cell did not run", b.call, b.what)
		return &kernel.ExecError{Name: "Interrupted", Value: msg, Traceback: []string{"Interrupted: " + msg}}
	}
}

// runningCall names the compiled function that the goroutine of yaegi's
// evaluation is in, as the interpreted code called it: the last frame
// before the interpreter's own, past reflect's and the runtime's, under
// its name in the session's symbols ("sort.Ints", "synth.Generate") or
// else its Go name ("sync.(*WaitGroup).Wait").
func (s *Session) runningCall() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, []byte("interp.(*Interpreter).ExecuteWithContext.func")) {
			continue
		}
		call := ""
		for _, l := range strings.Split(string(g), "\n")[1:] {
			if l == "" || l[0] == '\t' {
				continue // a goroutine's header, a file:line
			}
			if strings.Contains(l, "traefik/yaegi") {
				break
			}
			if i := strings.LastIndex(l, "("); i > 0 {
				l = l[:i]
			}
			if strings.HasPrefix(l, "runtime.") || strings.HasPrefix(l, "reflect.") || strings.HasPrefix(l, "internal/") {
				continue
			}
			call = l
		}
		if call != "" {
			return s.symbolName(call)
		}
	}
	return "a compiled call"
}

// argNames names the variables a cell passes to a call of fn ("sort.Ints"):
// "xs", "a and b", or "the values passed to it".
func (s *Session) argNames(code, fn string) string {
	var names []string
	seen := map[string]bool{}
	_, files := parsedSegments(code)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ce, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := ce.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name+"."+sel.Sel.Name != fn {
				return true
			}
			for _, a := range ce.Args {
				if id := rootIdent(a); id != "" && !seen[id] {
					if _, pkg := s.imported[id]; !pkg {
						seen[id] = true
						names = append(names, id)
					}
				}
			}
			return true
		})
	}
	switch len(names) {
	case 0:
		return "the values passed to it"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// rootIdent returns the variable an expression designates storage of
// (xs in xs, xs[1:], &p.field), or "".
func rootIdent(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		if e.Name == "nil" || e.Name == "_" {
			return ""
		}
		return e.Name
	case *ast.SelectorExpr:
		return rootIdent(e.X)
	case *ast.IndexExpr:
		return rootIdent(e.X)
	case *ast.SliceExpr:
		return rootIdent(e.X)
	case *ast.StarExpr:
		return rootIdent(e.X)
	case *ast.ParenExpr:
		return rootIdent(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return rootIdent(e.X)
		}
	}
	return ""
}

// symbolName returns the name under which the session's symbols export
// the function of Go name fn, or fn without its package path.
func (s *Session) symbolName(fn string) string {
	for key, m := range s.symbols {
		for name, v := range m {
			if v.Kind() == reflect.Func && !v.IsNil() {
				if f := runtime.FuncForPC(v.Pointer()); f != nil && f.Name() == fn {
					return key[strings.LastIndex(key, "/")+1:] + "." + name
				}
			}
		}
	}
	return fn[strings.LastIndex(fn, "/")+1:]
}

// autoImport imports the common standard packages a cell uses without
// importing them.
func (s *Session) autoImport(code string, p *plan) error {
	declared := map[string]bool{}
	for _, n := range p.names {
		declared[n] = true
	}
	for _, ip := range p.imports {
		declared[ip.name] = true
	}
	globals := s.globals()
	need := map[string]string{}
	_, files := parsedSegments(code)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
				for _, l := range as.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						declared[id.Name] = true
					}
				}
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || id.Obj != nil {
				return true
			}
			if ip, ok := autoImports[id.Name]; ok {
				need[id.Name] = ip
			}
			return true
		})
	}
	names := make([]string, 0, len(need))
	for n := range need {
		if _, imp := s.imported[n]; imp || declared[n] || s.declared[n] {
			continue
		}
		if _, g := globals[n]; g {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := s.importPath(need[n]); err != nil {
			return err
		}
	}
	return nil
}

// undefined names the first identifier of a cell that is neither declared
// in the cell nor known to the session, as "cell line L:C: undefined: x".
func (s *Session) undefined(code string, p *plan) string {
	known := map[string]bool{}
	for _, n := range p.names {
		known[n] = true
	}
	for _, k := range keywords {
		known[k] = true
	}
	globals := s.globals()
	fset, files := parsedSegments(code)
	// names the cell's statements define (x := ...): each statement is
	// parsed alone, so its uses in later statements are unresolved; the
	// session's snapshot was restored, so they are not globals either
	for n := range statementNames(files) {
		known[n] = true
	}
	for _, f := range files {
		for _, id := range f.Unresolved {
			n := id.Name
			if known[n] || s.declared[n] || s.funcs[n] != "" {
				continue
			}
			if _, ok := globals[n]; ok {
				continue
			}
			if _, ok := s.imported[n]; ok {
				continue
			}
			pos := fset.Position(id.Pos())
			return fmt.Sprintf("cell line %d:%d: undefined: %s", pos.Line-1, pos.Column, n)
		}
	}
	return ""
}

// panicFilter collects yaegi's own "L:C: panic: f(...)" lines, written to
// the interpreter's stderr, as the interpreted call stack of a panic; other
// stderr output passes through.
type panicFilter struct {
	mu    sync.Mutex
	on    bool
	trace []string
}

var panicLineRE = regexp.MustCompile(`^(?:_\.go:)?(\d+):(\d+): panic(?:: (.*))?\n?$`)

func (f *panicFilter) swallow(b []byte) bool {
	m := panicLineRE.FindSubmatch(b)
	if m == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.on {
		return false
	}
	l, _ := strconv.Atoi(string(m[1]))
	fn := strings.TrimSuffix(string(m[3]), "(...)")
	entry := fmt.Sprintf("cell line %d:%s", l-1, m[2])
	if fn != "" && fn != "main" && fn != "main.func" {
		entry = fmt.Sprintf("%s, in %s", entry, fn)
	}
	if n := len(f.trace); n == 0 || f.trace[n-1] != entry {
		f.trace = append(f.trace, entry)
	}
	return true
}

func (f *panicFilter) begin() {
	f.mu.Lock()
	f.on, f.trace = true, nil
	f.mu.Unlock()
}

func (f *panicFilter) end() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on = false
	t := f.trace
	f.trace = nil
	return t
}

// fixTop replaces the position of the outermost interpreted frame, which
// yaegi reports at its statement wrapper, by the statement's cell line.
func fixTop(trace []string, c Chunk) []string {
	if len(trace) == 0 || !c.Stmt {
		return trace
	}
	t := append([]string(nil), trace...)
	last := t[len(t)-1]
	rest := ""
	if i := strings.Index(last, ", in "); i >= 0 {
		rest = last[i:]
	}
	t[len(t)-1] = fmt.Sprintf("cell line %d%s", c.Line, rest)
	return t
}

// Sync waits until all output written by the session so far has reached
// the IO writers.
func (s *Session) Sync() {
	s.outPipe.Sync()
	s.errPipe.Sync()
}

// lineReader is the interpreter's os.Stdin: each read that finds its buffer
// empty asks the front end for a line.
type lineReader struct {
	s   *Session
	buf []byte
}

func (r *lineReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		in := r.s.io.Input
		if in == nil {
			return 0, io.EOF
		}
		line, err := in("", false)
		if err != nil {
			return 0, err
		}
		r.buf = []byte(line + "\n")
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// SetInput replaces the input function (per execution: whether the front
// end allows stdin).
func (s *Session) SetInput(f func(prompt string, password bool) (string, error)) {
	s.io.Input = f
	s.stdin.buf = nil
}

// History returns the cells executed so far.
func (s *Session) History() []string { return append([]string(nil), s.history...) }

// parseExprAt is used by Inspect and Complete.
func parseExprAt(code string, cursor int) (qual, name string, start, end int) {
	if cursor > len(code) {
		cursor = len(code)
	}
	isID := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	start = cursor
	for start > 0 && isID(code[start-1]) {
		start--
	}
	end = cursor
	for end < len(code) && isID(code[end]) {
		end++
	}
	name = code[start:end]
	if start > 0 && code[start-1] == '.' {
		q := start - 1
		for q > 0 && isID(code[q-1]) {
			q--
		}
		qual = code[q : start-1]
	}
	return
}

var _ = parser.ParseExpr

// globals returns the interpreter's global variables. yaegi's Globals
// panics after a failed compilation left a symbol without a frame slot;
// the names of the last good answer are returned then, without values (a
// value kept here would keep what a re-run cell replaced alive).
func (s *Session) globals() (g map[string]reflect.Value) {
	defer func() {
		if recover() != nil {
			g = map[string]reflect.Value{}
			for n := range s.lastGlobals {
				g[n] = reflect.Value{}
			}
		}
	}()
	g = s.in.Globals()
	s.lastGlobals = make(map[string]bool, len(g))
	for n := range g {
		s.lastGlobals[n] = true
	}
	return g
}

// statementNames returns the names defined by the top-level statements of
// a cell's segments: short variable declarations and declarations in
// statement position.
func statementNames(files []*ast.File) map[string]bool {
	names := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			for _, st := range fd.Body.List {
				switch x := st.(type) {
				case *ast.AssignStmt:
					if x.Tok == token.DEFINE {
						for _, l := range x.Lhs {
							if id, ok := l.(*ast.Ident); ok {
								names[id.Name] = true
							}
						}
					}
				case *ast.DeclStmt:
					if g, ok := x.Decl.(*ast.GenDecl); ok {
						for _, sp := range g.Specs {
							switch sp := sp.(type) {
							case *ast.ValueSpec:
								for _, id := range sp.Names {
									names[id.Name] = true
								}
							case *ast.TypeSpec:
								names[sp.Name.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}
