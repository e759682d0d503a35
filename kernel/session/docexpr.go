package session

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"strings"
)

// exprStart returns the offset where the expression ending at end begins:
// identifiers, selectors, calls, index expressions, type assertions and
// parentheses, read backwards over go/scanner's tokens (so brackets in
// strings and comments do not count). It returns end when there is none.
func exprStart(code string, end int) int {
	type tk struct {
		off int
		tok token.Token
	}
	var toks []tk
	var sc scanner.Scanner
	src := code[:end]
	file := token.NewFileSet().AddFile("cell", -1, len(src))
	sc.Init(file, []byte(src), func(token.Position, string) {}, 0)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			if file.Offset(pos) >= len(src) {
				break // inserted at the end
			}
			tok = token.ILLEGAL // a line break ends the expression
		}
		toks = append(toks, tk{file.Offset(pos), tok})
	}
	match := func(i int) int { // opener of the closer at i
		depth := 0
		for ; i >= 0; i-- {
			switch toks[i].tok {
			case token.RPAREN, token.RBRACK, token.RBRACE:
				depth++
			case token.LPAREN, token.LBRACK, token.LBRACE:
				depth--
				if depth == 0 {
					return i
				}
			}
		}
		return -1
	}
	operandEnd := func(t token.Token) bool {
		return t == token.IDENT || t == token.RPAREN || t == token.RBRACK || t == token.STRING
	}
	start := -1
	i := len(toks) - 1
	for i >= 0 {
		switch toks[i].tok {
		case token.IDENT, token.STRING, token.INT, token.FLOAT, token.CHAR:
			start = i
		case token.RPAREN, token.RBRACK:
			j := match(i)
			if j < 0 {
				return end
			}
			switch {
			case j > 0 && toks[j-1].tok == token.PERIOD: // x.(T)
				i = j - 2
				continue
			case j > 0 && operandEnd(toks[j-1].tok): // call or index
				i = j - 1
				continue
			case toks[i].tok == token.RPAREN:
				start = j
			default:
				return end
			}
		default:
			if start < 0 {
				return end
			}
			return toks[start].off
		}
		if start > 0 && toks[start-1].tok == token.PERIOD {
			i = start - 2
			continue
		}
		break
	}
	if start < 0 {
		return end
	}
	return toks[start].off
}

// operand is what an expression denotes, found without running it.
type operand struct {
	pkg    string        // import path, when the expression names a package
	typ    reflect.Type  // the value's type, or the type itself (isType)
	isType bool          // the expression is a type
	val    reflect.Value // the value, when known (globals and their fields)
	key    string        // documentation key of what the expression names
	recv   bool          // typ is a method type whose first parameter is the receiver
}

var predeclared = map[string]reflect.Type{
	"bool": reflect.TypeFor[bool](), "byte": reflect.TypeFor[byte](), "rune": reflect.TypeFor[rune](),
	"int": reflect.TypeFor[int](), "int64": reflect.TypeFor[int64](), "int32": reflect.TypeFor[int32](),
	"uint": reflect.TypeFor[uint](), "uint64": reflect.TypeFor[uint64](), "float64": reflect.TypeFor[float64](),
	"float32": reflect.TypeFor[float32](), "string": reflect.TypeFor[string](), "error": reflect.TypeFor[error](),
	"any": reflect.TypeFor[any](),
}

var constantValue = reflect.TypeFor[constant.Value]()

// resolveSrc parses src as an expression and resolves it.
func (s *Session) resolveSrc(src string) (operand, bool) {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return operand{}, false
	}
	return s.resolve(e)
}

// resolve finds the static type (and, for globals, the value) of e.
func (s *Session) resolve(e ast.Expr) (operand, bool) {
	switch e := e.(type) {
	case *ast.Ident:
		if v, ok := s.globals()[e.Name]; ok {
			return valueOperand(v), true
		}
		if p, ok := s.packagePath(e.Name); ok {
			return operand{pkg: p, key: p}, true
		}
		if t, ok := predeclared[e.Name]; ok {
			return operand{typ: t, isType: true}, true
		}
	case *ast.SelectorExpr:
		x, ok := s.resolve(e.X)
		if !ok {
			return operand{}, false
		}
		return s.selectOn(x, e.Sel.Name)
	case *ast.CallExpr:
		f, ok := s.resolve(e.Fun)
		switch {
		case !ok:
			if id, isID := e.Fun.(*ast.Ident); isID && (id.Name == "len" || id.Name == "cap") {
				return operand{typ: predeclared["int"]}, true
			}
		case f.isType:
			return operand{typ: f.typ}, true
		case f.typ != nil && f.typ.Kind() == reflect.Func && f.typ.NumOut() > 0:
			return operand{typ: f.typ.Out(0)}, true
		}
	case *ast.IndexExpr:
		x, ok := s.resolve(e.X)
		if !ok || x.typ == nil || x.isType {
			return operand{}, false
		}
		t := x.typ
		if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Array {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
			return operand{typ: t.Elem()}, true
		case reflect.String:
			return operand{typ: predeclared["byte"]}, true
		}
	case *ast.SliceExpr:
		x, ok := s.resolve(e.X)
		if !ok || x.typ == nil || x.isType {
			return operand{}, false
		}
		t := x.typ
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Array {
			t = reflect.SliceOf(t.Elem())
		}
		return operand{typ: t}, true
	case *ast.StarExpr:
		x, ok := s.resolve(e.X)
		if !ok || x.typ == nil {
			return operand{}, false
		}
		if x.isType {
			return operand{typ: reflect.PointerTo(x.typ), isType: true}, true
		}
		if x.typ.Kind() == reflect.Pointer {
			o := operand{typ: x.typ.Elem()}
			if x.val.IsValid() && !x.val.IsNil() {
				o.val = x.val.Elem()
			}
			return o, true
		}
	case *ast.ParenExpr:
		return s.resolve(e.X)
	case *ast.TypeAssertExpr:
		if t, ok := s.resolve(e.Type); ok && t.isType {
			return operand{typ: t.typ}, true
		}
	case *ast.CompositeLit:
		if t, ok := s.resolve(e.Type); ok && t.isType {
			return operand{typ: t.typ}, true
		}
	case *ast.BasicLit:
		switch e.Kind {
		case token.STRING:
			return operand{typ: predeclared["string"]}, true
		case token.INT:
			return operand{typ: predeclared["int"]}, true
		case token.FLOAT:
			return operand{typ: predeclared["float64"]}, true
		}
	}
	return operand{}, false
}

// valueOperand describes a known value; an interface holding a value is
// described by the value it holds.
func valueOperand(v reflect.Value) operand {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() {
		return operand{}
	}
	return operand{typ: v.Type(), val: v}
}

// packagePath is the import path of a package name in the session.
func (s *Session) packagePath(name string) (string, bool) {
	if p, ok := s.imported[name]; ok {
		return p, true
	}
	if p, ok := autoImports[name]; ok {
		if _, g := s.globals()[name]; !g {
			return p, true
		}
	}
	return "", false
}

// selectOn resolves x.name.
func (s *Session) selectOn(x operand, name string) (operand, bool) {
	if x.pkg != "" {
		key := x.pkg + "." + name
		v, ok := s.pkgSyms(x.pkg)[name]
		if !ok {
			v, ok = s.in.Symbols(x.pkg)[x.pkg][name]
		}
		switch {
		case !ok:
			if _, doc := s.docEntry(key); doc {
				return operand{key: key}, true
			}
			return operand{}, false
		case !v.IsValid() || v.Type().Implements(constantValue):
			return operand{key: key}, true // untyped constant
		case v.Kind() == reflect.Pointer && v.IsNil() && !v.CanAddr():
			return operand{typ: v.Type().Elem(), isType: true, key: key}, true
		}
		return operand{typ: v.Type(), val: v, key: key}, true
	}
	if x.typ == nil {
		return operand{}, false
	}
	t := x.typ
	if m, ok := methodByName(t, name); ok {
		o := operand{typ: m.Type, key: s.memberKey(t, name), recv: t.Kind() != reflect.Interface}
		if x.isType {
			o.recv = false // a method expression takes the receiver as its first argument
		}
		return o, true
	}
	if x.isType {
		return operand{}, false
	}
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct {
		return operand{}, false
	}
	f, ok := st.FieldByName(name)
	if !ok || !f.IsExported() {
		return operand{}, false
	}
	o := operand{typ: f.Type, key: s.memberKey(t, name)}
	if v := reflect.Indirect(x.val); v.IsValid() && v.Kind() == reflect.Struct {
		if fv, err := v.FieldByIndexErr(f.Index); err == nil {
			o.val = fv
		}
	}
	return o, true
}

// methodByName finds a method of t or of *t.
func methodByName(t reflect.Type, name string) (reflect.Method, bool) {
	if m, ok := t.MethodByName(name); ok {
		return m, true
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		return reflect.PointerTo(t).MethodByName(name)
	}
	return reflect.Method{}, false
}

// typeKey is the documentation key of a named type ("path.Name").
func typeKey(t reflect.Type) string {
	if t.Kind() == reflect.Pointer && t.Name() == "" {
		t = t.Elem()
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return ""
	}
	n := t.Name()
	if i := strings.IndexByte(n, '['); i >= 0 {
		n = n[:i]
	}
	return t.PkgPath() + "." + n
}

// memberKey is the documentation key of t's field or method name; a
// promoted member is documented on the embedded type that declares it.
func (s *Session) memberKey(t reflect.Type, name string) string {
	var find func(t reflect.Type, depth int) string
	find = func(t reflect.Type, depth int) string {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if k := typeKey(t); k != "" {
			if _, ok := s.docEntry(k + "." + name); ok {
				return k + "." + name
			}
		}
		if t.Kind() != reflect.Struct || depth > 4 {
			return ""
		}
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.Anonymous {
				if k := find(f.Type, depth+1); k != "" {
					return k
				}
			}
		}
		return ""
	}
	if k := find(t, 0); k != "" {
		return k
	}
	if k := typeKey(t); k != "" {
		return k + "." + name
	}
	return ""
}

// enclosingCall returns the offset of the '(' of the innermost call whose
// arguments the cursor is in (`f(a, |`, `f(g(x), "s|`), read over
// go/scanner's tokens so brackets in strings and comments do not count.
func enclosingCall(code string, cursor int) (int, bool) {
	var sc scanner.Scanner
	src := code[:cursor]
	file := token.NewFileSet().AddFile("cell", -1, len(src))
	sc.Init(file, []byte(src), func(token.Position, string) {}, 0)
	type open struct {
		off int
		tok token.Token
	}
	var stack []open
	prev := token.ILLEGAL
	for {
		pos, tok, _ := sc.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			t := tok
			if tok == token.LPAREN && prev != token.IDENT && prev != token.RPAREN && prev != token.RBRACK {
				t = token.ILLEGAL // a parenthesised expression, not a call
			}
			stack = append(stack, open{file.Offset(pos), t})
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		prev = tok
	}
	if len(stack) == 0 || stack[len(stack)-1].tok != token.LPAREN {
		return 0, false
	}
	return stack[len(stack)-1].off, true
}
