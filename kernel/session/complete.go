package session

import (
	"errors"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

var keywords = []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package",
	"range", "return", "select", "struct", "switch", "type", "var",
	"append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
	"new", "panic", "print", "println", "real", "recover",
	"bool", "byte", "error", "float32", "float64", "int", "int8", "int16", "int32", "int64", "rune",
	"string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any", "true", "false", "nil", "iota"}

// Complete returns completions for the identifier at cursor (a byte
// offset) and the range of code they replace: inside a string literal the
// files and directories its text begins (paths, see pathCompletions), on a
// line that begins with % the magics, elsewhere Go names.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		if recover() != nil { // reflection on an interpreted value
			matches = nil
		}
	}()
	if cursor > len(code) {
		cursor = len(code)
	}
	if m, st, ok := magicCompletions(code, cursor); ok {
		return m, st, cursor
	}
	if m, st, ok := pathCompletions(code, cursor); ok {
		return m, st, cursor
	}
	_, _, start, _ = parseExprAt(code, cursor)
	prefix := code[start:cursor]
	end = cursor
	var cands []string
	if start > 0 && code[start-1] == '.' {
		// after an expression: resolve its type without running it
		dot := start - 1
		x, ok := s.resolveSrc(code[exprStart(code, dot):dot])
		if !ok {
			return nil, start, end
		}
		cands = s.members(x)
	} else {
		cands = append(cands, keywords...)
		for n := range s.globals() {
			if !strings.HasPrefix(n, "__") {
				cands = append(cands, n)
			}
		}
		for n := range s.imported {
			cands = append(cands, n)
		}
		for n := range s.funcs {
			cands = append(cands, n)
		}
		for n := range s.declared {
			cands = append(cands, n)
		}
		for n := range autoImports {
			cands = append(cands, n)
		}
	}
	seen := map[string]bool{}
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) && !seen[c] {
			seen[c] = true
			matches = append(matches, c)
		}
	}
	sort.Strings(matches)
	return matches, start, end
}

// members lists what follows "x.": a package's exports, a type's
// methods, or a value's fields and methods.
func (s *Session) members(x operand) []string {
	switch {
	case x.pkg != "":
		return s.exports(x.pkg)
	case x.typ == nil:
		return nil
	case x.isType:
		var out []string
		for _, t := range []reflect.Type{x.typ, reflect.PointerTo(x.typ)} {
			for i := 0; i < t.NumMethod(); i++ {
				out = append(out, t.Method(i).Name)
			}
		}
		return out
	}
	return fieldsAndMethods(x.typ)
}

// pkgSyms returns the compiled symbols of an import path (stdlib or
// builtins); export tables are keyed "path/name".
func (s *Session) pkgSyms(importPath string) map[string]reflect.Value {
	for k, syms := range s.symbols {
		if path.Dir(k) == importPath {
			return syms
		}
	}
	return nil
}

func (s *Session) exports(importPath string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !strings.HasPrefix(n, "_") && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for n := range s.pkgSyms(importPath) {
		add(n)
	}
	for n := range s.in.Symbols(importPath)[importPath] {
		add(n)
	}
	return out
}

func fieldsAndMethods(t reflect.Type) []string {
	var out []string
	add := func(t reflect.Type) {
		for i := 0; i < t.NumMethod(); i++ {
			out = append(out, t.Method(i).Name)
		}
	}
	add(t)
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		add(reflect.PointerTo(t))
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		for i := 0; i < st.NumField(); i++ {
			if f := st.Field(i); f.IsExported() {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

func sorted(s []string) []string { sort.Strings(s); return s }

// IsComplete tells a console whether the code is ready to run: "complete",
// "incomplete" (with the indent of the next line) or "invalid".
func (s *Session) IsComplete(code string) (status, indent string) {
	if strings.TrimSpace(code) == "" {
		return "complete", ""
	}
	body, _, err := parseMagics(code)
	if err != nil {
		return "invalid", ""
	}
	_, err = Split(body, nil)
	if err == nil {
		return "complete", ""
	}
	// incomplete: the parser ran out of cell (more lines can finish it)
	var se *SyntaxError
	if errors.As(err, &se) && (strings.Contains(se.Msg, "EOF") || strings.Contains(se.Msg, "not terminated") ||
		strings.Contains(se.Msg, "unexpected end of cell")) {
		// more closing than opening brackets: no further line can fix it
		if depth := bracketDepth(body); depth >= 0 {
			return "incomplete", strings.Repeat("\t", max(depth, 1))
		}
	}
	return "invalid", ""
}

// bracketDepth is the number of brackets left open at the end of src;
// brackets in comments and strings do not count.
func bracketDepth(src string) int {
	var sc scanner.Scanner
	file := token.NewFileSet().AddFile("cell", -1, len(src))
	sc.Init(file, []byte(src), nil, 0)
	depth := 0
	for {
		_, tok, _ := sc.Scan()
		switch tok {
		case token.EOF:
			return depth
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		}
	}
}

// magics are the session's magic commands (magics.go), for completion.
var magics = []string{"%help", "%time", "%who"}

// magicCompletions completes "%he" to "%help" when the cursor's line, up to
// the cursor, is a % and letters (not inside a raw string or comment).
func magicCompletions(code string, cursor int) (matches []string, start int, ok bool) {
	lineStart := strings.LastIndexByte(code[:cursor], '\n') + 1
	word := strings.TrimLeft(code[lineStart:cursor], " \t")
	if !strings.HasPrefix(word, "%") || strings.ContainsAny(word, " \t") {
		return nil, 0, false
	}
	if quotedLines(code)[strings.Count(code[:lineStart], "\n")] {
		return nil, 0, false
	}
	for _, m := range magics {
		if strings.HasPrefix(m, word) {
			matches = append(matches, m)
		}
	}
	return matches, cursor - len(word), true
}

// maxPathCompletions bounds the entries offered from one directory.
const maxPathCompletions = 500

// pathCompletions completes a path inside an interpreted or raw string
// literal that the cursor is in (`trace.Open("../sh` offers the entries of
// .. beginning with "sh", directories with a trailing /): relative paths
// are relative to the kernel's working directory, the notebook's; "~/" is
// the home directory. Hidden entries are offered only for a name that
// begins with a dot. A literal with escapes is not completed.
func pathCompletions(code string, cursor int) (matches []string, start int, ok bool) {
	lit, at, in := stringAt(code, cursor)
	if !in || strings.Contains(lit, "\\") {
		return nil, 0, false
	}
	dir, base := "", lit
	if k := strings.LastIndexByte(lit, '/'); k >= 0 {
		dir, base = lit[:k+1], lit[k+1:]
	}
	list := dir
	if list == "" {
		list = "."
	} else if strings.HasPrefix(list, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, 0, false
		}
		list = filepath.Join(home, list[2:])
	}
	entries, err := os.ReadDir(list)
	if err != nil {
		return []string{}, at, true
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, base) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(list, n)); err == nil {
				isDir = st.IsDir()
			}
		}
		if isDir {
			n += "/"
		}
		matches = append(matches, dir+n)
		if len(matches) == maxPathCompletions {
			break
		}
	}
	sort.Strings(matches)
	return matches, at, true
}

// stringAt reports whether cursor is inside a string literal of code, and
// then its text up to the cursor and where that text begins.
func stringAt(code string, cursor int) (text string, start int, ok bool) {
	var sc scanner.Scanner
	src := code[:cursor]
	file := token.NewFileSet().AddFile("cell", -1, len(src))
	sc.Init(file, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			return "", 0, false
		}
		off := file.Offset(pos)
		if tok != token.STRING || off+len(lit) != len(src) {
			continue
		}
		// the literal reaches the cursor: the cursor is inside it unless it is closed there
		q := lit[0]
		if len(lit) >= 2 && lit[len(lit)-1] == q && (q == '`' || !strings.HasSuffix(lit[:len(lit)-1], "\\")) {
			return "", 0, false
		}
		return lit[1:], off + 1, true
	}
}
