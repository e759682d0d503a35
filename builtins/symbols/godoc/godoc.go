// Package godoc reads the documentation of a Go package from its source
// with go/doc: one entry per exported name, method and struct field, keyed
// "importpath.Name", "importpath.Type.Method" and "importpath.Type.Field",
// and the package's own, keyed "importpath".
// The builtin tables are generated with it; the kernel reads the standard
// library's documentation with it on demand.
package godoc

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Entry documents one name: its Go declaration and its doc comment (plain
// comment text as go/doc returns it, possibly empty).
type Entry struct {
	Decl, Doc string
}

// Read parses the non-test Go files of dir, the source of importPath, and
// returns its exported documentation.
func Read(dir, importPath string) (map[string]Entry, error) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.Type()&fs.ModeType != 0 || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return map[string]Entry{}, nil
	}
	// Files of other packages (package main generators, _ignored files) and
	// build-constrained variants: keep the package most files declare, and
	// of names declared twice, the first.
	count := map[string]int{}
	for _, f := range files {
		count[f.Name.Name]++
	}
	pkg := files[0].Name.Name
	for n, c := range count {
		if strings.HasSuffix(n, "_test") {
			continue
		}
		if c > count[pkg] || c == count[pkg] && n < pkg {
			pkg = n
		}
	}
	var keep []*ast.File
	for _, f := range files {
		if f.Name.Name == pkg {
			keep = append(keep, f)
		}
	}
	p, err := doc.NewFromFiles(fset, keep, importPath, doc.PreserveAST)
	if err != nil {
		return nil, err
	}
	r := reader{fset: fset, prefix: importPath + ".", out: map[string]Entry{}}
	r.add(importPath, Entry{Decl: "package " + p.Name + " // import \"" + importPath + "\"", Doc: p.Doc})
	r.values(p.Consts, "const")
	r.values(p.Vars, "var")
	r.funcs(p.Funcs)
	for _, t := range p.Types {
		r.typ(t)
	}
	return r.out, nil
}

type reader struct {
	fset   *token.FileSet
	prefix string
	out    map[string]Entry
}

func (r *reader) add(key string, e Entry) {
	if _, dup := r.out[key]; !dup {
		r.out[key] = e
	}
}

func (r *reader) print(n any) string {
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	if err := cfg.Fprint(&b, r.fset, n); err != nil {
		return ""
	}
	return b.String()
}

// values documents each exported name of const and var groups; a name in
// a group has its own comment, else the group's.
func (r *reader) values(vs []*doc.Value, kw string) {
	for _, v := range vs {
		for _, spec := range v.Decl.Specs {
			vs := spec.(*ast.ValueSpec)
			d := v.Doc
			if c := text(vs.Doc, vs.Comment); c != "" {
				d = c
			}
			one := *vs
			one.Doc, one.Comment = nil, nil
			decl := kw + " " + r.print(&one)
			if len(vs.Values) == 0 && len(v.Decl.Specs) > 1 {
				// implicit repetition (iota): the group says what the name is
				g := *v.Decl
				g.Doc = nil
				decl = r.print(&g)
			}
			for _, n := range vs.Names {
				if n.IsExported() {
					r.add(r.prefix+n.Name, Entry{Decl: decl, Doc: d})
				}
			}
		}
	}
}

func (r *reader) funcs(fs []*doc.Func) {
	for _, f := range fs {
		if !ast.IsExported(f.Name) {
			continue
		}
		fd := *f.Decl
		fd.Body, fd.Doc = nil, nil
		key := r.prefix + f.Name
		if f.Recv != "" {
			key = r.prefix + strings.TrimPrefix(f.Recv, "*") + "." + f.Name
			if i := strings.IndexByte(key[len(r.prefix):], '['); i >= 0 { // generic receiver T[E]
				key = key[:len(r.prefix)+i] + key[strings.LastIndexByte(key, '.'):]
			}
		}
		r.add(key, Entry{Decl: r.print(&fd), Doc: f.Doc})
	}
}

func (r *reader) typ(t *doc.Type) {
	r.values(t.Consts, "const")
	r.values(t.Vars, "var")
	r.funcs(t.Funcs)
	r.funcs(t.Methods)
	if !ast.IsExported(t.Name) {
		return
	}
	var spec *ast.TypeSpec
	for _, s := range t.Decl.Specs {
		if ts := s.(*ast.TypeSpec); ts.Name.Name == t.Name {
			spec = ts
		}
	}
	if spec == nil {
		return
	}
	d := t.Doc
	if d == "" {
		d = text(spec.Doc, spec.Comment)
	}
	one := *spec
	one.Doc, one.Comment = nil, nil
	r.add(r.prefix+t.Name, Entry{Decl: "type " + r.print(&one), Doc: d})
	key := r.prefix + t.Name + "."
	switch st := spec.Type.(type) {
	case *ast.StructType:
		for _, f := range st.Fields.List {
			typ := r.print(f.Type)
			for _, n := range f.Names {
				if n.IsExported() {
					r.add(key+n.Name, Entry{Decl: n.Name + " " + typ, Doc: text(f.Doc, f.Comment)})
				}
			}
		}
	case *ast.InterfaceType:
		for _, f := range st.Methods.List {
			if len(f.Names) == 0 {
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					ft, _ := f.Type.(*ast.FuncType)
					decl := n.Name + strings.TrimPrefix(r.print(ft), "func")
					r.add(key+n.Name, Entry{Decl: decl, Doc: text(f.Doc, f.Comment)})
				}
			}
		}
	}
}

func text(groups ...*ast.CommentGroup) string {
	for _, g := range groups {
		if t := g.Text(); t != "" {
			return t
		}
	}
	return ""
}

// Keys returns the keys of m in order (for generated code).
func Keys(m map[string]Entry) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
