package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"sort"
	"strings"
)

// segKind classifies a top-level piece of a cell.
type segKind int

const (
	segStmt    segKind = iota // statement(s)
	segImport                 // import declaration
	segType                   // type declaration
	segConst                  // const declaration
	segVar                    // var declaration
	segFunc                   // plain function declaration (rebindable)
	segDecl                   // other declaration kept as is: methods, generic funcs, init
	segPackage                // a package clause (a pasted file's), ignored
)

// segment is one top-level statement or declaration of a cell.
type segment struct {
	kind  segKind
	local bool // a statement whose header declares local names (for, if, switch, select, labelled)
	text  string
	line  int // 1-based cell line of the first character
	start int // byte offset in the cell
	end   int
	// for segFunc
	name    string
	sig     string // normalised signature, to detect changes
	varDecl string // "var name func(...) ..."
	assign  string // "name = func(...) ... { body }"
	tramp   string // for a method: the trampoline declaration (redefine.go)
}

// SyntaxError is a parse error in a cell, with cell-relative positions.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("cell line %d:%d: %s", e.Line, e.Col, e.Msg) }

// segments cuts a cell into top-level segments with go/scanner.
func segments(src string) ([]segment, error) {
	fset := token.NewFileSet()
	f := fset.AddFile("cell", -1, len(src))
	var s scanner.Scanner
	var scanErr *SyntaxError
	s.Init(f, []byte(src), func(pos token.Position, msg string) {
		if scanErr == nil {
			scanErr = &SyntaxError{Line: pos.Line, Col: pos.Column, Msg: msg}
		}
	}, scanner.ScanComments)
	var segs []segment
	depth := 0
	header := false // inside a for/if/switch header, where ';' does not end a statement
	start := -1
	var toks []token.Token
	end := 0
	flush := func() {
		if start < 0 {
			return
		}
		seg := segment{text: src[start:end], start: start, end: end, line: f.Line(f.Pos(start))}
		seg.kind = classify(toks)
		if seg.kind == segStmt && len(toks) > 0 {
			switch toks[0] {
			case token.FOR, token.IF, token.SWITCH, token.SELECT:
				seg.local = true
			case token.IDENT:
				seg.local = len(toks) > 1 && toks[1] == token.COLON
			}
		}
		segs = append(segs, seg)
		start = -1
		toks = toks[:0]
	}
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.COMMENT {
			continue
		}
		off := f.Offset(pos)
		if tok == token.SEMICOLON && depth == 0 && !(header && lit == ";") {
			header = false
			flush()
			continue
		}
		if depth == 0 {
			switch tok {
			case token.FOR, token.IF, token.SWITCH, token.SELECT:
				header = true
			case token.LBRACE:
				header = false
			}
		}
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		}
		if start < 0 {
			start = off
		}
		if len(toks) < 64 {
			toks = append(toks, tok)
		}
		if tok == token.SEMICOLON && lit == "\n" {
			end = off
		} else {
			l := len(lit)
			if l == 0 {
				l = len(tok.String())
			}
			end = off + l
		}
	}
	flush()
	if scanErr != nil {
		return nil, scanErr
	}
	return segs, nil
}

// classify decides a segment's kind from its first tokens.
func classify(toks []token.Token) segKind {
	if len(toks) == 0 {
		return segStmt
	}
	switch toks[0] {
	case token.PACKAGE:
		return segPackage
	case token.IMPORT:
		return segImport
	case token.TYPE:
		return segType
	case token.CONST:
		return segConst
	case token.VAR:
		return segVar
	case token.FUNC:
		if len(toks) > 1 && toks[1] == token.IDENT {
			return segFunc // refined by parseFunc (generics, init, main)
		}
		if len(toks) > 1 && toks[1] == token.LPAREN {
			// method "func (r T) Name(" vs literal "func (x int) int {"
			d := 0
			for i := 1; i < len(toks); i++ {
				switch toks[i] {
				case token.LPAREN, token.LBRACK, token.LBRACE:
					d++
				case token.RPAREN, token.RBRACK, token.RBRACE:
					d--
				}
				if d == 0 {
					if i+2 < len(toks) && toks[i+1] == token.IDENT && (toks[i+2] == token.LPAREN || toks[i+2] == token.LBRACK) {
						return segDecl
					}
					return segStmt
				}
			}
		}
	}
	return segStmt
}

// pad returns the prefix that puts a chunk's first character on yaegi line
// cellLine+1 (yaegi lines are cell lines plus one).
func pad(cellLine int) string { return strings.Repeat("\n", cellLine) }

// declPrefix and stmtPrefix wrap a segment for go/parser so that its
// positions map to the cell like yaegi's do.
const (
	declPrefix = "package main;"
	stmtPrefix = "package main;func _(){"
)

// parseSeg parses one segment alone; positions in the returned file are
// cell line + 1.
func parseSeg(fset *token.FileSet, seg *segment) (*ast.File, error) {
	var src string
	if seg.kind == segPackage {
		src = pad(seg.line) + seg.text
	} else if seg.kind == segStmt {
		src = stmtPrefix + pad(seg.line) + seg.text + "\n}"
	} else {
		src = declPrefix + pad(seg.line) + seg.text
	}
	f, err := parser.ParseFile(fset, "cell", src, parser.ParseComments)
	if err != nil {
		if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 {
			se := &SyntaxError{Line: el[0].Pos.Line - 1, Col: el[0].Pos.Column, Msg: el[0].Msg}
			if last := seg.line + strings.Count(seg.text, "\n"); se.Line > last {
				// past the segment: the wrapper's closing brace; the cell ended early
				se.Line, se.Col = last, 1+len(seg.text)-1-strings.LastIndex(seg.text, "\n")
				// what was found there is the wrapper's brace, not the user's
				se.Msg = "unexpected end of cell: " + strings.TrimSuffix(se.Msg, ", found '}'")
			}
			return nil, se
		}
		return nil, err
	}
	return f, nil
}

// funcInfo fills the rebinding fields of a plain function segment, or turns
// it into a plain declaration when it cannot be rebound (generic functions,
// init, main).
func funcInfo(f *ast.File, seg *segment) {
	var fd *ast.FuncDecl
	for _, d := range f.Decls {
		if x, ok := d.(*ast.FuncDecl); ok {
			fd = x
		}
	}
	// main is a plain function: a cell calls it, nothing runs it implicitly
	// A function calling recover itself stays declared: deferred as a
	// function value, yaegi would not give it the panic (defer handle()).
	if fd == nil || fd.Recv != nil || fd.Type.TypeParams != nil || fd.Body == nil ||
		fd.Name.Name == "init" || fd.Name.Name == "_" || callsRecover(fd.Body) {
		seg.kind = segDecl
		return
	}
	base := len(declPrefix) + seg.line // offset of seg.text in the parsed source
	file := f.Pos()
	off := func(p token.Pos) int { return int(p-file) - base }
	typ := seg.text[off(fd.Type.Params.Pos()):off(fd.Type.End())]
	seg.name = fd.Name.Name
	seg.sig = normSig(fd.Type)
	seg.varDecl = "var " + seg.name + " func" + typ
	// "func NAME(" -> "NAME = func(": keeps every newline of the original.
	seg.assign = seg.name + " = func" + seg.text[off(fd.Type.Params.Pos()):]
}

// callsRecover reports whether a function body calls recover itself (not in
// a function literal).
func callsRecover(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "recover" && id.Obj == nil {
				found = true
			}
		}
		return !found
	})
	return found
}

// normSig prints a function type without parameter names.
func normSig(t *ast.FuncType) string {
	var b strings.Builder
	list := func(fl *ast.FieldList) {
		b.WriteByte('(')
		if fl != nil {
			for _, fld := range fl.List {
				n := len(fld.Names)
				if n == 0 {
					n = 1
				}
				for i := 0; i < n; i++ {
					b.WriteString(types(fld.Type))
					b.WriteByte(',')
				}
			}
		}
		b.WriteByte(')')
	}
	list(t.Params)
	list(t.Results)
	return b.String()
}

func types(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			b.WriteString(x.Name + " ") // names stay apart (sigMentions)
		case *ast.StarExpr:
			b.WriteByte('*')
		case *ast.ArrayType:
			b.WriteString("[]")
		case *ast.MapType:
			b.WriteString("map")
		case *ast.Ellipsis:
			b.WriteString("...")
		case *ast.FuncType:
			b.WriteString("func")
		case *ast.ChanType:
			b.WriteString("chan")
		case *ast.SelectorExpr:
			b.WriteString(types(x.X) + "." + x.Sel.Name)
			return false
		case *ast.BasicLit:
			b.WriteString(x.Value)
		}
		return true
	})
	return b.String()
}

// chunkBuilder assembles segments into one source, keeping each segment on
// its cell line (yaegi line = cell line + 1).
type chunkBuilder struct {
	b    strings.Builder
	line int // current yaegi line - 1 (i.e. cell line of the write position)
	n    int
}

func newChunk(prefix string) *chunkBuilder {
	c := &chunkBuilder{}
	c.b.WriteString(prefix)
	return c
}

func (c *chunkBuilder) add(cellLine int, text string) {
	if c.n > 0 || cellLine > c.line {
		if cellLine > c.line {
			c.b.WriteString(strings.Repeat("\n", cellLine-c.line))
			c.line = cellLine
		} else {
			c.b.WriteString(";")
		}
	}
	c.b.WriteString(text)
	c.line += strings.Count(text, "\n")
	c.n++
}

func (c *chunkBuilder) String() string { return c.b.String() }

// Chunk is one piece of source handed to yaegi.
type Chunk struct {
	Src  string
	Stmt bool // statements (no package clause) rather than declarations
	Line int  // cell line of the first segment
	// Expr is set on the last chunk when it is an expression statement
	// whose value is shown; it holds the expression's text.
	Expr string
}

// importSpec is one import of a cell: the name it binds and the path.
type importSpec struct{ name, path string }

// plan is the result of splitting a cell.
type plan struct {
	imports []importSpec    // imports declared by the cell
	chunks  []Chunk         // in evaluation order
	funcs   []segment       // rebound functions
	display bool            // the cell ends with an expression whose value is shown
	names   []string        // names declared at top level by the cell
	types   map[string]bool // non-generic types declared by the cell
	// typeLine is the cell line of each type's declaration
	typeLine map[string]int
	// structTypes are the non-generic struct types declared by the cell
	structTypes map[string]bool
}

// Split turns a cell into yaegi chunks. known maps already rebound function
// names to their signatures; functions whose signature is unchanged are
// re-assigned without redeclaring their variable, so earlier callers follow.
func Split(src string, known map[string]string) (*plan, error) {
	segs, err := segments(src)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	p := &plan{}
	files := make([]*ast.File, len(segs))
	for i := range segs {
		f, err := parseSeg(fset, &segs[i])
		if err != nil {
			return nil, err
		}
		files[i] = f
		if segs[i].kind == segFunc {
			funcInfo(f, &segs[i])
		}
		if segs[i].kind == segDecl {
			methodInfo(f, &segs[i]) // redefine.go
		}
		for _, d := range f.Decls {
			switch x := d.(type) {
			case *ast.GenDecl:
				for _, sp := range x.Specs {
					switch s := sp.(type) {
					case *ast.ImportSpec:
						is := importSpec{path: strings.Trim(s.Path.Value, "`\"")}
						is.name = pkgName(is.path)
						if s.Name != nil {
							is.name = s.Name.Name
						}
						for _, o := range p.imports {
							if o.name == is.name && o.path != is.path && is.name != "_" && is.name != "." {
								pos := fset.Position(s.Pos())
								return nil, &SyntaxError{Line: pos.Line - 1, Col: pos.Column,
									Msg: fmt.Sprintf("%s redeclared in this cell: imported as %q and as %q", is.name, o.path, is.path)}
							}
						}
						p.imports = append(p.imports, is)
					case *ast.TypeSpec:
						p.names = append(p.names, s.Name.Name)
						if p.typeLine == nil {
							p.typeLine = map[string]int{}
						}
						p.typeLine[s.Name.Name] = fset.Position(s.Name.Pos()).Line - 1
						if _, ok := s.Type.(*ast.StructType); ok && s.TypeParams == nil && !s.Assign.IsValid() {
							if p.structTypes == nil {
								p.structTypes = map[string]bool{}
							}
							p.structTypes[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.names = append(p.names, n.Name)
						}
					}
				}
			case *ast.FuncDecl:
				if x.Recv == nil && x.Name.Name != "_" && segs[i].kind != segStmt {
					p.names = append(p.names, x.Name.Name)
				}
			}
		}
	}
	p.types = cellTypes(segs, files)
	for i, sg := range segs {
		if sg.kind == segPackage && i > 0 {
			return nil, &SyntaxError{Line: sg.line, Col: 1, Msg: "a package clause must come first in a cell"}
		}
	}
	inPlace := inPlaceDecls(segs, files)
	imp := newChunk(declPrefix)
	// The declarations of a cell are compiled together, before its
	// statements, as those of a Go file: any order, variables initialised
	// in dependency order (functions are variables holding a literal, so
	// that a redefinition reaches earlier callers). Those that use a
	// variable defined by a statement of the cell stay in place (see
	// inPlaceDecls); their functions are declared here and assigned there.
	hoist := newChunk(declPrefix)
	for i, s := range segs {
		switch s.kind {
		case segImport:
			imp.add(s.line, s.text)
		case segType, segConst:
			hoist.add(s.line, s.text)
		case segVar, segDecl:
			if !inPlace[i] {
				hoist.add(s.line, s.text)
			}
		case segFunc:
			// a signature naming a type the cell redeclares needs a new variable
			fresh := false
			if old, ok := known[s.name]; !ok || old != s.sig || sigMentions(s.sig, p.types) {
				fresh = true
			}
			if fresh && s.tramp != "" {
				hoist.add(s.line, s.tramp)
			}
			if inPlace[i] {
				if fresh {
					hoist.add(s.line, s.varDecl)
				}
			} else {
				// a variable redeclared with the same type keeps its
				// storage (yaegi globalSlot): earlier callers follow
				hoist.add(s.line, "var "+s.assign)
			}
			p.funcs = append(p.funcs, s)
		}
	}
	if imp.n > 0 {
		p.chunks = append(p.chunks, Chunk{Src: imp.String()})
	}
	if hoist.n > 0 {
		p.chunks = append(p.chunks, Chunk{Src: hoist.String()})
	}
	var cur *chunkBuilder
	curStmt := false
	curLine := 0
	emit := func() {
		if cur != nil && cur.n > 0 {
			p.chunks = append(p.chunks, Chunk{Src: cur.String(), Stmt: curStmt, Line: curLine})
		}
		cur = nil
	}
	for i, s := range segs {
		var stmt bool
		switch s.kind {
		case segStmt:
			stmt = true
		case segFunc:
			if !inPlace[i] {
				continue
			}
			// The function's variable is hoisted; its value is assigned in
			// place, so its body may use names declared by earlier statements.
			stmt = true
			s.text = s.assign
		case segVar, segDecl:
			if !inPlace[i] {
				continue
			}
			stmt = false
		default:
			continue
		}
		// Each top-level statement is its own chunk: a panic's top frame
		// is then known to be that statement (yaegi reports the position
		// of its wrapper function), and the statements before a failing
		// one keep their effects, as in other notebook kernels.
		if cur == nil || stmt != curStmt || stmt {
			emit()
			curLine = s.line
			if stmt {
				cur = newChunk("")
			} else {
				cur = newChunk(declPrefix)
			}
			curStmt = stmt
		}
		if stmt && s.local && s.line >= 1 {
			// A block around the statement keeps the names of its
			// header (loop variables, if/switch initialisers) local, as
			// in Go; yaegi would make them globals. The brace closes the
			// padding line, so positions stay those of the cell.
			cur.b.WriteString(strings.Repeat("\n", s.line-1) + "{\n" + s.text + "\n}")
			cur.line, cur.n = s.line+strings.Count(s.text, "\n")+1, 1
			continue
		}
		cur.add(s.line, s.text)
	}
	emit()
	if n := len(segs); n > 0 && segs[n-1].kind == segStmt {
		p.display = showsValue(files[n-1])
		if p.display && len(p.chunks) > 0 {
			p.chunks[len(p.chunks)-1].Expr = segs[n-1].text
		}
	}
	return p, nil
}

// inPlaceDecls marks the declarations of a cell that use a variable defined
// by one of its statements (x := ...), directly or through another such
// declaration: they are compiled and initialised where they stand, after
// that statement. Types and constants cannot use variables.
func inPlaceDecls(segs []segment, files []*ast.File) []bool {
	dep := map[string]bool{}
	for i, s := range segs {
		if s.kind != segStmt || s.local {
			continue
		}
		for _, d := range files[i].Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			for _, st := range fd.Body.List {
				if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
					for _, l := range as.Lhs {
						if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
							dep[id.Name] = true
						}
					}
				}
			}
		}
	}
	out := make([]bool, len(segs))
	if len(dep) == 0 {
		return out
	}
	for changed := true; changed; {
		changed = false
		for i, s := range segs {
			switch s.kind {
			case segVar, segFunc, segDecl:
			default:
				continue
			}
			if out[i] {
				continue
			}
			for _, id := range files[i].Unresolved {
				if dep[id.Name] {
					out[i], changed = true, true
					break
				}
			}
			if !out[i] {
				continue
			}
			for _, n := range declaredNames(files[i]) {
				dep[n] = true
			}
			if typ, m, ok := strings.Cut(s.name, "."); s.kind == segFunc && ok {
				dep[methodVar(typ, m)] = true
			}
		}
	}
	return out
}

// declaredNames returns the package-level names a declaration segment declares.
func declaredNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch x := d.(type) {
		case *ast.GenDecl:
			for _, sp := range x.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					for _, n := range vs.Names {
						out = append(out, n.Name)
					}
				}
			}
		case *ast.FuncDecl:
			if x.Recv == nil {
				out = append(out, x.Name.Name)
			}
		}
	}
	return out
}

// showsValue reports whether the statement segment's last statement is an
// expression worth displaying (not a print call).
func showsValue(f *ast.File) bool {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || len(fd.Body.List) == 0 {
			continue
		}
		es, ok := fd.Body.List[len(fd.Body.List)-1].(*ast.ExprStmt)
		if !ok {
			return false
		}
		if call, ok := es.X.(*ast.CallExpr); ok {
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				switch fn.Name {
				case "print", "println", "panic", "close", "delete", "copy", "clear":
					return false
				}
			case *ast.SelectorExpr:
				if pkg, ok := fn.X.(*ast.Ident); ok {
					n := fn.Sel.Name
					if (pkg.Name == "fmt" && (strings.HasPrefix(n, "Print") || strings.HasPrefix(n, "Fprint"))) ||
						pkg.Name == "log" || (pkg.Name == "display" && n == "Updatable") {
						return false
					}
				}
			}
		}
		return true
	}
	return false
}

// rewriteGo rewrites every `go CALL` statement of a cell so that a panic in
// the goroutine is recovered in interpreted code and reported with the
// cell line of the go statement; arguments are evaluated before the
// goroutine starts, as Go specifies. Newlines are preserved.
func rewriteGo(src string, report string) (string, error) {
	segs, err := segments(src)
	if err != nil {
		return "", err
	}
	var rs []repl
	n := 0
	fset := token.NewFileSet()
	for i := range segs {
		seg := &segs[i]
		if seg.kind == segImport || seg.kind == segPackage {
			continue
		}
		k := seg.kind
		f, err := parseSeg(fset, seg)
		if err != nil {
			return "", err
		}
		base := len(declPrefix) + seg.line
		if k == segStmt {
			base = len(stmtPrefix) + seg.line
		}
		file := f.Pos()
		off := func(p token.Pos) int { return int(p-file) - base + seg.start }
		recoverer := func(line int) string {
			return fmt.Sprintf("defer func() { if r := recover(); r != nil { %s(r, %d) } }()", report, line)
		}
		// sub returns src[lo:hi] of node nd with the go statements and
		// time.AfterFunc callbacks inside it rewritten, nested ones too.
		var sub func(nd ast.Node) string
		var goText func(g *ast.GoStmt) string
		var rewrites func(root ast.Node, skipRoot bool) []repl
		rewrites = func(root ast.Node, skipRoot bool) []repl {
			var out []repl
			ast.Inspect(root, func(nd ast.Node) bool {
				if nd == nil || (skipRoot && nd == root) {
					return true
				}
				switch x := nd.(type) {
				case *ast.GoStmt:
					out = append(out, repl{off(x.Pos()), off(x.End()), goText(x)})
					return false
				case *ast.CallExpr:
					// compiled code runs the callback on its own goroutine
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && len(x.Args) == 2 {
						if id, ok := sel.X.(*ast.Ident); ok && id.Name == "time" && sel.Sel.Name == "AfterFunc" {
							cb := x.Args[1]
							line := fset.Position(cb.Pos()).Line - 1
							out = append(out, repl{off(cb.Pos()), off(cb.End()),
								fmt.Sprintf("func(__tbf func()) func() { return func() { %s; __tbf() } }(%s)", recoverer(line), sub(cb))})
							// the duration argument may hold go statements too
							out = append(out, rewrites(x.Args[0], false)...)
							return false
						}
					}
				}
				return true
			})
			return out
		}
		sub = func(nd ast.Node) string {
			lo, hi := off(nd.Pos()), off(nd.End())
			return applyRepls(src, lo, hi, rewrites(nd, true))
		}
		goText = func(g *ast.GoStmt) string {
			line := fset.Position(g.Pos()).Line - 1
			call := g.Call
			// The function value and the arguments are evaluated at the
			// go statement, into variables of a function literal called
			// there: each go statement has its own (a variable of the
			// enclosing block would be shared by the goroutines a loop
			// starts, each reading it when it runs).
			var pre strings.Builder
			args := make([]string, len(call.Args))
			for j, a := range call.Args {
				n++
				name := fmt.Sprintf("__tbg%d", n)
				fmt.Fprintf(&pre, "%s := %s; ", name, sub(a))
				args[j] = name
			}
			fun := sub(call.Fun)
			switch call.Fun.(type) {
			case *ast.Ident, *ast.FuncLit:
			default:
				n++
				name := fmt.Sprintf("__tbg%d", n)
				fmt.Fprintf(&pre, "%s := %s; ", name, fun)
				fun = name
			}
			ell := ""
			if call.Ellipsis.IsValid() {
				ell = "..."
			}
			text := fmt.Sprintf("go func(__tbf func()) { %s; __tbf() }(func() func() { %sreturn func() { %s(%s%s) } }())",
				recoverer(line), pre.String(), fun, strings.Join(args, ", "), ell)
			// keep the line count: later code stays on its cell line
			if d := strings.Count(src[off(g.Pos()):off(g.End())], "\n") - strings.Count(text, "\n"); d > 0 {
				text += strings.Repeat("\n", d)
			}
			return text
		}
		rs = append(rs, rewrites(f, false)...)
	}
	return applyRepls(src, 0, len(src), rs), nil
}

// repl replaces src[start:end] by text.
type repl struct {
	start, end int
	text       string
}

// applyRepls returns src[lo:hi] with the replacements rs (disjoint, inside
// [lo, hi], in any order) applied.
func applyRepls(src string, lo, hi int, rs []repl) string {
	if len(rs) == 0 {
		return src[lo:hi]
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
	var b strings.Builder
	at := lo
	for _, r := range rs {
		b.WriteString(src[at:r.start])
		b.WriteString(r.text)
		at = r.end
	}
	b.WriteString(src[at:hi])
	return b.String()
}

// parsedSegments parses the segments of a cell other than its imports,
// leaving out those that do not parse: for questions about the names a cell
// uses (what to import, what is undefined, what a call was given).
func parsedSegments(code string) (*token.FileSet, []*ast.File) {
	segs, _ := segments(code)
	fset := token.NewFileSet()
	var files []*ast.File
	for i := range segs {
		if segs[i].kind == segImport || segs[i].kind == segPackage {
			continue
		}
		if f, err := parseSeg(fset, &segs[i]); err == nil {
			files = append(files, f)
		}
	}
	return fset, files
}
