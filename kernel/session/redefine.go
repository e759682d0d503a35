package session

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"sort"
	"strings"
)

// Methods are made rebindable like plain functions (see funcInfo): the
// method declared to yaegi is a trampoline that calls a package variable
// holding the body,
//
//	var __tbm1_T_Twice func(T) int
//	func (__tbr T) Twice() int { return __tbm1_T_Twice(__tbr) }
//	__tbm1_T_Twice = func(t T) int { return 2 * t.A }
//
// so that redefining the method with the same signature only assigns the
// variable: values created before, functions compiled before (they hold the
// trampoline) and interface values (fmt's Stringer) all see the new body.
// A method whose signature changes is declared again; yaegi replaces it for
// new code (PATCHES.md), while code compiled before keeps the old one, as
// its call sites were checked against the old signature.
//
// Methods of generic types stay plain declarations: a new declaration
// reaches new code only.

// methodVar names the variable holding the body of method typ.name (the
// length keeps A_B.C and A.B_C apart).
func methodVar(typ, name string) string {
	return fmt.Sprintf("__tbm%d_%s_%s", len(typ), typ, name)
}

// methodInfo turns a method segment into a rebindable one (kind segFunc,
// name "T.Method"); it leaves generic receivers and bodiless methods alone.
func methodInfo(f *ast.File, seg *segment) {
	var fd *ast.FuncDecl
	for _, d := range f.Decls {
		if x, ok := d.(*ast.FuncDecl); ok {
			fd = x
		}
	}
	if fd == nil || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Body == nil || fd.Name.Name == "_" || callsRecover(fd.Body) {
		return // (callsRecover: see funcInfo)
	}
	recv := fd.Recv.List[0]
	rt := recv.Type
	if st, ok := rt.(*ast.StarExpr); ok {
		rt = st.X
	}
	tid, ok := rt.(*ast.Ident)
	if !ok {
		return // generic receiver T[X], or invalid
	}
	base := len(declPrefix) + seg.line
	file := f.Pos()
	off := func(p token.Pos) int { return int(p-file) - base }
	text := func(n ast.Node) string { return seg.text[off(n.Pos()):off(n.End())] }

	recvType := text(recv.Type)
	recvName := "_"
	if len(recv.Names) == 1 && recv.Names[0].Name != "_" {
		recvName = recv.Names[0].Name
	}
	// parameters: types (for the variable's type), named (for the body's
	// literal) and forwarded (for the trampoline)
	varParams := []string{recvType}
	litParams := []string{recvName + " " + recvType}
	var trParams, args []string
	ell := ""
	for _, fld := range fd.Type.Params.List {
		t := text(fld.Type)
		names := []string{"_"}
		if len(fld.Names) > 0 {
			names = names[:0]
			for _, n := range fld.Names {
				names = append(names, n.Name)
			}
		}
		for _, n := range names {
			a := fmt.Sprintf("__tba%d", len(args))
			varParams = append(varParams, t)
			litParams = append(litParams, n+" "+t)
			trParams = append(trParams, a+" "+t)
			args = append(args, a)
			if _, ok := fld.Type.(*ast.Ellipsis); ok {
				ell = "..."
			}
		}
	}
	var results []string
	if fd.Type.Results != nil {
		for _, fld := range fd.Type.Results.List {
			n := len(fld.Names)
			if n == 0 {
				n = 1
			}
			for i := 0; i < n; i++ {
				results = append(results, text(fld.Type))
			}
		}
	}
	res := ""
	switch len(results) {
	case 0:
	case 1:
		res = " " + results[0]
	default:
		res = " (" + strings.Join(results, ", ") + ")"
	}
	v := methodVar(tid.Name, fd.Name.Name)
	call := v + "(" + strings.Join(append([]string{"__tbr"}, args...), ", ") + ell + ")"
	if len(results) > 0 {
		call = "return " + call
	}
	seg.kind = segFunc
	seg.name = tid.Name + "." + fd.Name.Name
	seg.sig = types(recv.Type) + " " + normSig(fd.Type)
	seg.varDecl = "var " + v + " func(" + strings.Join(varParams, ", ") + ")" + res
	seg.tramp = "func (__tbr " + recvType + ") " + fd.Name.Name + "(" + strings.Join(trParams, ", ") + ")" + res + " { " + call + " }"
	// The literal keeps the body on its cell lines; its results keep their
	// names, as the body may use them.
	// The newlines of the original header go right after "func(", where
	// they cannot end a statement (after the results they would).
	head := strings.Join(litParams, ", ") + ")"
	if fd.Type.Results != nil {
		head += " " + text(fd.Type.Results)
	}
	orig := seg.text[:off(fd.Body.Pos())]
	if d := strings.Count(orig, "\n") - strings.Count(head, "\n"); d > 0 {
		head = strings.Repeat("\n", d) + head
	}
	seg.assign = v + " = func(" + head + " " + seg.text[off(fd.Body.Pos()):]
}

// sigMentions reports whether a signature recorded for a rebound function
// or method (see normSig, methodInfo) names one of the types.
func sigMentions(sig string, types map[string]bool) bool {
	for _, w := range strings.FieldsFunc(sig, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80)
	}) {
		if types[w] {
			return true
		}
	}
	return false
}

// cellTypes returns the names of the non-generic types a cell declares.
func cellTypes(segs []segment, files []*ast.File) map[string]bool {
	out := map[string]bool{}
	for i, s := range segs {
		if s.kind != segType {
			continue
		}
		for _, d := range files[i].Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					// Generic types are left out: yaegi keeps their old
					// instances on redefinition, and "(*G)(nil)" (oldTypes)
					// crashes its compiler.
					if ts, ok := sp.(*ast.TypeSpec); ok && ts.TypeParams == nil {
						out[ts.Name.Name] = true
					}
				}
			}
		}
	}
	return out
}

// oldTypes returns the reflect types of the types a cell is about to
// redeclare, by name; they are compared with the new ones afterwards (see
// redefinitions).
func (s *Session) oldTypes(p *plan) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for n := range p.types {
		if !s.declared[n] {
			continue
		}
		s.probed = nil
		if err := s.evalQuiet("__tbrt.Probe((*" + n + ")(nil))"); err != nil {
			continue
		}
		if t := s.probed; t != nil && t.Kind() == reflect.Pointer {
			out[n] = t.Elem()
		}
	}
	return out
}

// redefinitions is called after a cell that ran without error. It forgets
// the signatures of earlier functions and methods that name a type the cell
// declared again (their next definition declares a new variable, of the new
// type), and returns a note naming what still uses an old type, or "".
func (s *Session) redefinitions(p *plan, old map[string]reflect.Type) string {
	if len(p.types) == 0 {
		return ""
	}
	inCell := map[string]bool{}
	for _, f := range p.funcs {
		inCell[f.name] = true
	}
	var notes []string
	names := make([]string, 0, len(old))
	for n := range old {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, tn := range names {
		one := map[string]bool{tn: true}
		var funcs, methods []string
		for fn, sig := range s.funcs {
			if inCell[fn] || !sigMentions(sig, one) {
				continue
			}
			delete(s.funcs, fn)
			if m, ok := strings.CutPrefix(fn, tn+"."); ok {
				methods = append(methods, m)
			} else if !strings.Contains(fn, ".") {
				funcs = append(funcs, "func "+fn)
			}
		}
		nt := s.oldTypes(&plan{types: one})[tn]
		if nt == old[tn] && len(methods) == 0 {
			continue // the same type again (yaegi's types are structural)
		}
		var vars []string
		if nt != old[tn] {
			for n, v := range s.globals() {
				if strings.HasPrefix(n, "__") || !v.IsValid() || v.Kind() == reflect.Func {
					continue
				}
				if usesType(v.Type(), old[tn], nil) {
					vars = append(vars, "var "+n)
				}
			}
		}
		sort.Strings(vars)
		sort.Strings(funcs)
		sort.Strings(methods)
		refs := append(vars, funcs...)
		if len(refs) == 0 && len(methods) == 0 {
			continue // nothing is left with the old type
		}
		note := "note: type " + tn + " was redefined"
		if len(refs) > 0 {
			note += "; earlier declarations still use the old " + tn + ": " + strings.Join(refs, ", ")
		}
		if len(methods) > 0 {
			note += "; its methods belong to the old " + tn + ", declare them again: " + strings.Join(methods, ", ")
		}
		notes = append(notes, note)
	}
	return strings.Join(notes, "\n")
}

// usesType reports whether t is or contains u.
func usesType(t, u reflect.Type, seen map[reflect.Type]bool) bool {
	if t == u {
		return true
	}
	if seen[t] {
		return false
	}
	if seen == nil {
		seen = map[reflect.Type]bool{}
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		return usesType(t.Elem(), u, seen)
	case reflect.Map:
		return usesType(t.Key(), u, seen) || usesType(t.Elem(), u, seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if usesType(t.Field(i).Type, u, seen) {
				return true
			}
		}
	}
	return false
}
