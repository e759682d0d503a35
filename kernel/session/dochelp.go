package session

import (
	"go/doc/comment"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/builtins/symbols/godoc"
)

// Help is the documentation of a name, as plain text and as Markdown.
type Help struct {
	Text, Markdown string
}

// Help documents the expression at cursor (a byte offset): a package, a
// package member, a session variable, or a field or method reached through
// one (`a.Similarity`, `tr.Processes()[0].Name`), found without running
// anything. Detail 1 adds the methods of the type. Inside the arguments of
// a call, where the cursor is not on a name that resolves (`align.Runs(a, |`,
// in a string argument), it documents the called function, as IPython's
// Shift-Tab does.
func (s *Session) Help(code string, cursor, detail int) (Help, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.help(code, cursor, detail)
}

// Inspect is Help as a MIME bundle (text/plain and text/markdown): the
// kernel's inspect_request.
func (s *Session) Inspect(code string, cursor, detail int) (map[string]any, bool) {
	h, ok := s.Help(code, cursor, detail)
	return map[string]any{"text/plain": h.Text, "text/markdown": h.Markdown}, ok
}

func (s *Session) help(code string, cursor, detail int) (h Help, found bool) {
	defer func() {
		if recover() != nil { // reflection on an interpreted value: no help rather than no kernel
			h, found = Help{}, false
		}
	}()
	if cursor > len(code) {
		cursor = len(code)
	}
	if h, ok := s.helpAt(code, cursor, detail); ok {
		return h, true
	}
	if open, ok := enclosingCall(code, cursor); ok {
		return s.helpAt(code, open, detail)
	}
	return Help{}, false
}

// helpAt documents the expression at or just before cursor.
func (s *Session) helpAt(code string, cursor, detail int) (Help, bool) {
	_, name, _, end := parseExprAt(code, cursor)
	if name == "" {
		// the cursor after "f(x)", "a[i]" or "f(": the expression before it
		c := strings.TrimRight(code[:cursor], " \t")
		if end = len(c); !strings.HasSuffix(c, ")") && !strings.HasSuffix(c, "]") {
			_, name, _, end = parseExprAt(code, len(strings.TrimSuffix(c, "(")))
			if name == "" {
				return Help{}, false
			}
		}
	}
	src := code[exprStart(code, end):end]
	o, ok := s.resolveSrc(src)
	if !ok {
		return Help{}, false
	}
	return s.describe(src, o, detail), true
}

// helpDoc builds Help section by section; doc links in comments resolve
// against pkg.
type helpDoc struct {
	s        *Session
	pkg      string
	text, md []string
}

func (h *helpDoc) decl(d string) {
	if d = strings.TrimSpace(d); d != "" {
		h.text = append(h.text, d)
		h.md = append(h.md, "```go\n"+d+"\n```")
	}
}

func (h *helpDoc) doc(d string) {
	if d = strings.TrimSpace(d); d == "" {
		return
	}
	h.text = append(h.text, d)
	p := comment.Parser{
		LookupPackage: func(name string) (string, bool) {
			if p, ok := h.s.packagePath(name); ok {
				return p, true
			}
			return "", false
		},
		LookupSym: func(recv, name string) bool {
			k := h.pkg + "." + name
			if recv != "" {
				k = h.pkg + "." + recv + "." + name
			}
			_, ok := h.s.docEntry(k)
			return ok
		},
	}
	pr := comment.Printer{DocLinkURL: func(l *comment.DocLink) string {
		if l.ImportPath == "" {
			c := *l
			c.ImportPath = h.pkg
			l = &c
		}
		return l.DefaultURL("https://pkg.go.dev")
	}}
	h.md = append(h.md, strings.TrimSpace(string(pr.Markdown(p.Parse(d)))))
}

// entry adds the declaration and doc of key, if documented.
func (h *helpDoc) entry(key string) bool {
	e, ok := h.s.docEntry(key)
	if ok {
		h.pkg = keyPackage(key)
		h.decl(e.Decl)
		h.doc(e.Doc)
	}
	return ok
}

func (h *helpDoc) help() Help {
	return Help{Text: strings.Join(h.text, "\n\n") + "\n", Markdown: strings.Join(h.md, "\n\n") + "\n"}
}

func (s *Session) describe(src string, o operand, detail int) Help {
	h := helpDoc{s: s}
	switch {
	case o.pkg != "":
		if !h.entry(o.key) {
			h.decl("package " + pkgName(o.pkg) + " // import \"" + o.pkg + "\"")
		}
		names := sorted(s.exports(o.pkg))
		h.text = append(h.text, "Exports: "+strings.Join(names, ", "))
		h.md = append(h.md, "**Exports**: "+strings.Join(names, ", "))
	case o.isType:
		if !h.entry(o.key) {
			h.decl("type " + src + " " + o.typ.String())
		}
		if detail > 0 {
			s.methods(&h, o.typ)
		}
	case o.typ == nil: // untyped constant
		h.entry(o.key)
	case o.typ.Kind() == reflect.Func && (o.key != "" || s.funcs[src] != ""):
		if !h.entry(o.key) { // a function of the session
			h.decl("func " + src + strings.TrimPrefix(signature(o.typ, o.recv), "func"))
		}
	default: // a value: variable, field, constant or call result
		e, documented := s.docEntry(o.key)
		head := o.val.IsValid() || !documented
		if head {
			line := src + " " + o.typ.String()
			if _, val := describe(o.val); o.val.IsValid() && val != "" {
				line += " = " + val
			}
			h.text = append(h.text, line)
			h.md = append(h.md, "```go\n"+line+"\n```")
		}
		if !head || e.Doc != "" { // a field's bare declaration adds nothing to the line above
			h.entry(o.key)
		}
		t := o.typ
		for t.Name() == "" && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		h.entry(typeKey(t))
		if detail > 0 {
			s.methods(&h, t)
		}
	}
	if len(h.text) == 0 {
		h.decl(src)
	}
	return h.help()
}

// methods lists the exported methods of t (and *t) with their declarations.
func (s *Session) methods(h *helpDoc, t reflect.Type) {
	seen := map[string]bool{}
	var decls []string
	for _, t := range []reflect.Type{t, reflect.PointerTo(t)} {
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			if seen[m.Name] {
				continue
			}
			seen[m.Name] = true
			if e, ok := s.docEntry(s.memberKey(t, m.Name)); ok {
				decls = append(decls, e.Decl)
			} else {
				decls = append(decls, "func "+m.Name+strings.TrimPrefix(signature(m.Type, t.Kind() != reflect.Interface), "func"))
			}
		}
		if t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer {
			break
		}
	}
	if len(decls) == 0 {
		return
	}
	sort.Strings(decls)
	h.text = append(h.text, "Methods:\n\t"+strings.Join(decls, "\n\t"))
	h.md = append(h.md, "**Methods**\n\n```go\n"+strings.Join(decls, "\n")+"\n```")
}

// signature prints a function type, without its receiver when recv.
func signature(t reflect.Type, recv bool) string {
	var in, out []string
	for i := 0; i < t.NumIn(); i++ {
		if recv && i == 0 {
			continue
		}
		p := t.In(i).String()
		if t.IsVariadic() && i == t.NumIn()-1 {
			p = "..." + t.In(i).Elem().String()
		}
		in = append(in, p)
	}
	for i := 0; i < t.NumOut(); i++ {
		out = append(out, t.Out(i).String())
	}
	sig := "func(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		sig += " " + out[0]
	default:
		sig += " (" + strings.Join(out, ", ") + ")"
	}
	return sig
}

// docEntry finds the documentation of key: the generated table of the
// builtins, else the standard library's source.
func (s *Session) docEntry(key string) (godoc.Entry, bool) {
	if key == "" {
		return godoc.Entry{}, false
	}
	if e, ok := symbols.Docs[key]; ok {
		return e, true
	}
	p := keyPackage(key)
	if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
		return godoc.Entry{}, false // not the standard library
	}
	e, ok := stdDocs(p)[key]
	return e, ok
}

// keyPackage is the import path part of a documentation key.
func keyPackage(key string) string {
	slash := strings.LastIndexByte(key, '/') + 1
	if i := strings.IndexByte(key[slash:], '.'); i >= 0 {
		return key[:slash+i]
	}
	return key
}

var (
	stdMu    sync.Mutex
	stdCache = map[string]map[string]godoc.Entry{}
)

// stdDocs reads the documentation of a standard package from GOROOT/src
// once; without the source it is empty (inspection shows signatures).
func stdDocs(importPath string) map[string]godoc.Entry {
	stdMu.Lock()
	defer stdMu.Unlock()
	if m, ok := stdCache[importPath]; ok {
		return m
	}
	m, err := godoc.Read(filepath.Join(goroot(), "src", filepath.FromSlash(importPath)), importPath)
	if err != nil {
		m = map[string]godoc.Entry{}
	}
	stdCache[importPath] = m
	return m
}

var goroot = sync.OnceValue(func() string {
	//lint:ignore SA1019 the kernel runs beside the toolchain that built it
	if r := runtime.GOROOT(); r != "" {
		if _, err := os.Stat(filepath.Join(r, "src", "fmt")); err == nil {
			return r
		}
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})
