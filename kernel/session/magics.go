package session

import (
	"fmt"
	"go/scanner"
	"go/token"
	"html"
	"reflect"
	"sort"
	"strings"

	"github.com/tracebook/tracebook/builtins/display"
)

type magicSet struct {
	help, who, time bool
	helpName        string // %help NAME
}

// parseMagics strips %magic lines, wherever they are in the cell (a line
// starting with % is never Go, unless it is inside a raw string or a
// comment, which go/scanner tells), replacing them by empty lines so line
// numbers stay those of the cell. "%time code" keeps the code of its line;
// %time on any line times the whole cell.
func parseMagics(code string) (string, magicSet, error) {
	var m magicSet
	lines := strings.Split(code, "\n")
	quoted := quotedLines(code)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "%") || quoted[i] {
			continue
		}
		word, rest, _ := strings.Cut(t[1:], " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "help":
			m.help = true
			m.helpName = rest
			lines[i] = ""
		case "who":
			m.who = true
			lines[i] = ""
		case "time":
			m.time = true
			lines[i] = strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " \t"))+len("%time ")) + rest
		default:
			return "", m, fmt.Errorf("unknown magic %%%s (cell line %d); available: %%help [name], %%who, %%time", word, i+1)
		}
	}
	return strings.Join(lines, "\n"), m, nil
}

// quotedLines marks the lines (0-based) that begin inside a raw string
// literal or a block comment.
func quotedLines(code string) map[int]bool {
	var q map[int]bool
	var sc scanner.Scanner
	file := token.NewFileSet().AddFile("cell", -1, len(code))
	sc.Init(file, []byte(code), func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			return q
		}
		if (tok == token.STRING || tok == token.COMMENT) && strings.Contains(lit, "\n") {
			first := file.Line(pos) // 1-based: the next line is index first
			for n := strings.Count(lit, "\n"); n > 0; n-- {
				if q == nil {
					q = map[int]bool{}
				}
				q[first+n-1] = true
			}
		}
	}
}

// helpText documents the session in Markdown: magics, display API, and the
// exported names of every pre-imported tracebook package; or, given a
// name, that name's documentation as Inspect shows it (detail 1).
func (s *Session) helpText(name string) string {
	if name != "" {
		h, ok := s.help(name, len(name), 1)
		if !ok {
			return "no documentation found for `" + name + "`\n"
		}
		return h.Markdown
	}
	var b strings.Builder
	b.WriteString("## tracebook session\n\n")
	b.WriteString("Cells are Go: declarations and statements in any order; the last expression is shown. ")
	b.WriteString("Common standard packages (fmt, strings, math, time, sort, ...) are imported when used.\n\n")
	b.WriteString("**Magics**: `%help` this page · `%help name` documentation of a name · `%who` session variables · `%time` wall time of the cell (on any line) · `name?`, `?name` documentation of a name (pager), `name??` with its methods · Shift-Tab documentation at the cursor\n\n")
	b.WriteString("**Display**: `display.Show(v)` now · `display.HTML(s)` · `display.Markdown(s)` · `display.PNG(b)` · `display.SVG(s)` · `display.JSON(v)` · `display.Text(s)` · `display.Clear()` · `h := display.Updatable(v); h.Update(v2)` · `p := display.NewProgress(label, total); p.Set(n); p.Done()`. ")
	b.WriteString("Any value with a `MIMEBundle() map[string]any` method renders through it.\n\n")
	var pkgs []string
	for name, p := range s.imported {
		if strings.HasPrefix(p, "github.com/tracebook/") {
			pkgs = append(pkgs, name)
		}
	}
	sort.Strings(pkgs)
	if len(pkgs) > 0 {
		b.WriteString("**Builtins** (pre-imported):\n\n")
		for _, name := range pkgs {
			syms := s.symbols[s.imported[name]+"/"+name]
			if syms == nil {
				syms = s.symbols[s.imported[name]]
			}
			var ns []string
			for n := range syms {
				if n != "" && n[0] != '_' {
					ns = append(ns, n)
				}
			}
			sort.Strings(ns)
			fmt.Fprintf(&b, "- `%s`: %s\n", name, strings.Join(ns, ", "))
		}
	}
	return b.String()
}

// whoTable lists session variables.
type whoTable struct{ rows [][3]string }

func (w whoTable) MIMEBundle() map[string]any {
	if len(w.rows) == 0 {
		return map[string]any{"text/plain": "no variables defined"}
	}
	var t, h strings.Builder
	h.WriteString("<table><thead><tr><th>name</th><th>type</th><th>value</th></tr></thead><tbody>")
	for _, r := range w.rows {
		fmt.Fprintf(&t, "%-16s %-24s %s\n", r[0], r[1], r[2])
		fmt.Fprintf(&h, "<tr><td><code>%s</code></td><td><code>%s</code></td><td>%s</td></tr>",
			html.EscapeString(r[0]), html.EscapeString(r[1]), html.EscapeString(r[2]))
	}
	h.WriteString("</tbody></table>")
	return map[string]any{"text/plain": t.String(), "text/html": h.String()}
}

func (s *Session) who() display.MIMEBundler {
	g := s.globals()
	names := make([]string, 0, len(g))
	for n := range g {
		if strings.HasPrefix(n, "__") || n == "_" {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var w whoTable
	for _, n := range names {
		v := g[n]
		typ, val := describe(v)
		if v.IsValid() {
			typ = s.typeString(v.Type())
		}
		if _, isFunc := s.funcs[n]; isFunc {
			typ = "func" + strings.TrimPrefix(typ, "func")
			val = "(function)"
		}
		w.rows = append(w.rows, [3]string{n, typ, val})
	}
	return w
}

// describe returns a value's type and a one-line summary.
func describe(v reflect.Value) (typ, val string) {
	if !v.IsValid() {
		return "invalid", ""
	}
	typ = v.Type().String()
	if !v.CanInterface() {
		return typ, ""
	}
	defer func() {
		if recover() != nil {
			val = "?"
		}
	}()
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array, reflect.Chan:
		val = fmt.Sprintf("len %d", v.Len())
		if v.Kind() != reflect.Chan && v.Len() <= 8 {
			val = fmt.Sprintf("%v", v.Interface())
		}
	case reflect.Func:
		val = "(function)"
	default:
		if st, ok := v.Interface().(fmt.Stringer); ok {
			val = st.String()
		} else {
			val = fmt.Sprintf("%v", v.Interface())
		}
	}
	if i := strings.IndexByte(val, '\n'); i >= 0 {
		val = val[:i] + " ..."
	}
	if len(val) > 80 {
		val = val[:77] + "..."
	}
	return typ, val
}
