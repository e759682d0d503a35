package session

import (
	"strings"
	"testing"
)

func TestSegmentsAndKinds(t *testing.T) {
	src := `import "strings"
x := 1
for i := 0; i < 3; i++ { x += i }
type T struct{ A int }
func (t T) M() int { return t.A }
func f(a int) (int, error) {
	return a, nil
}
func G[T any](v T) T { return v }
const c = 1; var v = 2
func() { x++ }()
if y := x; y > 0 { x-- } else { x++ }`
	segs, err := segments(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind segKind
		line int
	}{{segImport, 1}, {segStmt, 2}, {segStmt, 3}, {segType, 4}, {segDecl, 5}, {segFunc, 6}, {segFunc, 9},
		{segConst, 10}, {segVar, 10}, {segStmt, 11}, {segStmt, 12}}
	if len(segs) != len(want) {
		for _, s := range segs {
			t.Logf("%d %d %q", s.kind, s.line, s.text)
		}
		t.Fatalf("%d segments, want %d", len(segs), len(want))
	}
	for i, w := range want {
		if segs[i].kind != w.kind || segs[i].line != w.line {
			t.Errorf("segment %d %q: kind %d line %d, want %d %d", i, segs[i].text, segs[i].kind, segs[i].line, w.kind, w.line)
		}
	}
}

func TestSplitKeepsLinesAndRebinds(t *testing.T) {
	src := "x := 1\n\nfunc f(a int) int {\n\treturn a + x\n}\ntype T int\nf(2)"
	p, err := Split(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	// hoisted: type and the function's variable; then statements in order
	var srcs []string
	for _, c := range p.chunks {
		srcs = append(srcs, c.Src)
	}
	all := strings.Join(srcs, "\n----\n")
	if !strings.Contains(srcs[0], "var f func(a int) int") || !strings.Contains(srcs[0], "type T int") {
		t.Fatalf("hoisted chunk:\n%s", all)
	}
	// every chunk keeps its cell line: line L of the cell is line L+1 of the chunk
	for _, c := range p.chunks {
		lines := strings.Split(c.Src, "\n")
		for i, l := range lines {
			if strings.Contains(l, "return a + x") && i != 4 {
				t.Errorf("body on chunk line %d, want 4 (cell line 4 + 1 - 1):\n%s", i, c.Src)
			}
		}
	}
	if !strings.Contains(all, "f = func(a int) int {") {
		t.Fatalf("no rebinding assignment:\n%s", all)
	}
	if !p.display {
		t.Fatal("last expression f(2) not displayed")
	}
	// same signature again, using a variable of a statement of the cell:
	// no var redeclaration, only the assignment in place
	p2, _ := Split("y := 2\nfunc f(b int) int { return b + y }", map[string]string{"f": p.funcs[0].sig})
	for _, c := range p2.chunks {
		if strings.Contains(c.Src, "var f") {
			t.Fatalf("redeclared an unchanged function:\n%s", c.Src)
		}
	}
	p3, _ := Split("func f(b string) int { return x }\nx := 1", map[string]string{"f": p.funcs[0].sig})
	if !strings.Contains(p3.chunks[0].Src, "var f func(b string) int") {
		t.Fatalf("changed signature not redeclared: %q", p3.chunks[0].Src)
	}
	// a function using no statement's variable is declared with the
	// cell's other declarations, as a variable holding its literal
	p4, _ := Split("fmt.Println(f(1))\nfunc f(b int) int { return b + z }\nvar z = 2", nil)
	if len(p4.chunks) != 2 || !strings.Contains(p4.chunks[0].Src, "var f = func(b int) int { return b + z }") ||
		!strings.Contains(p4.chunks[0].Src, "var z = 2") || !p4.chunks[1].Stmt {
		t.Fatalf("declarations not hoisted together: %+v", p4.chunks)
	}
}

func TestDisplayRules(t *testing.T) {
	for code, want := range map[string]bool{
		"x + 1":                     true,
		"x := 1":                    false,
		`fmt.Println("a")`:          false,
		`fmt.Sprint("a")`:           true,
		"display.Show(1)":           true, // returns nothing: no value shown (TestMagics)
		`display.HTML("<b>")`:       true,
		"var y int":                 false,
		"f(3)":                      true,
		"for {\n break\n}":          false,
		"func g() int { return 1 }": false,
	} {
		p, err := Split(code, nil)
		if err != nil {
			t.Fatal(code, err)
		}
		if p.display != want {
			t.Errorf("display(%q) = %v, want %v", code, p.display, want)
		}
	}
}

func TestRewriteGo(t *testing.T) {
	src := "x := 1\ngo work(x,\n\ty...)\ngo func() { panic(1) }()\nfunc h() {\n\tgo obj.Method(2)\n}"
	out, err := rewriteGo(src, "R")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "\n") != strings.Count(src, "\n") {
		t.Fatalf("newlines changed:\n%s", out)
	}
	for _, want := range []string{"go func(__tbf func()) { defer func() { if r := recover(); r != nil { R(r, 2) } }(); __tbf() }(func() func() { __tbg1 := x; __tbg2 := y; return func() { work(__tbg1, __tbg2...) } }())",
		"R(r, 4)", "__tbg3 := 2; __tbg4 := obj.Method; return func() { __tbg4(__tbg3) }", "R(r, 6)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if _, err := Split(out, nil); err != nil {
		t.Fatalf("rewritten cell does not parse: %v\n%s", err, out)
	}
}

func TestSyntaxErrorLines(t *testing.T) {
	for code, line := range map[string]int{
		"x := 1\ny := )":              2,
		"a := 1\n\nb := (a +":         3,
		"func f() {\n\treturn 1 +\n}": 3,
	} {
		_, err := Split(code, nil)
		se, ok := err.(*SyntaxError)
		if !ok || se.Line != line {
			t.Errorf("Split(%q) error %v, want line %d", code, err, line)
		}
	}
}
