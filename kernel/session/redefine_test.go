package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// cells runs cells in a fresh session and returns, per cell, what the user
// sees: "out=... err=... val=..." and " ERR name: value" on an error.
func cells(t *testing.T, cs ...string) []string {
	t.Helper()
	s, out, errb, _ := newTest(t)
	var got []string
	for _, c := range cs {
		r := s.Execute(context.Background(), c)
		s.Sync()
		line := fmt.Sprintf("out=%q err=%q val=%q", out.String(), errb.String(), text(r))
		if r.Err != nil {
			line += fmt.Sprintf(" ERR %s: %s", r.Err.Name, r.Err.Value)
		}
		got = append(got, line)
		out.mu.Lock()
		out.b.Reset()
		out.mu.Unlock()
		errb.mu.Lock()
		errb.b.Reset()
		errb.mu.Unlock()
	}
	return got
}

// step is a cell and what it shows.
type step struct{ cell, want string }

func runSteps(t *testing.T, steps []step) {
	t.Helper()
	cs := make([]string, len(steps))
	for i, s := range steps {
		cs[i] = s.cell
	}
	got := cells(t, cs...)
	for i, s := range steps {
		if got[i] != s.want {
			t.Errorf("cell %d %q:\n got %s\nwant %s", i, s.cell, got[i], s.want)
		}
	}
}

func TestRedefineType(t *testing.T) {
	runSteps(t, []step{
		{"type P struct{A int}", `out="" err="" val=""`},
		{"type P struct{A int; B int}", `out="" err="" val=""`},
		{"P{1,2}", `out="" err="" val="{1 2}"`},
	})
}

func TestRedefineTypeNotesOldUsers(t *testing.T) {
	runSteps(t, []step{
		{"type P struct{A int}\nfunc area(p P) int { return p.A }\np := P{3}", `out="" err="" val=""`},
		{"type P struct{A, B int}", `out="" err="note: type P was redefined; earlier declarations still use the old P: var p, func area\n" val=""`},
		// the old variable still prints, the old function still takes it
		{"p", `out="" err="" val="{3}"`},
		{"area(p)", `out="" err="" val="3"`},
		// a new function uses the new type; a parameter named like the global p
		{"func area(p P) int { return p.A * p.B }\narea(P{2, 3})", `out="" err="" val="6"`},
		{"func perimeter(q P) int { return 2 * (q.A + q.B) }\nperimeter(P{2, 3})", `out="" err="" val="10"`},
		// the old value is not the new type
		{"perimeter(p)", `out="" err="" val="" ERR CompileError: cell line 1:11: cannot use the old main.P as main.P (redefined since)`},
		// twice (area and perimeter are told once); the same definition again
		{"type P struct{A, B, C int}", `out="" err="note: type P was redefined; earlier declarations still use the old P: func area, func perimeter\n" val=""`},
		{"type P struct{A, B, C int}", `out="" err="" val=""`},
		{"P{1, 2, 3}", `out="" err="" val="{1 2 3}"`},
		// from a struct to a slice
		{"type P []int", `out="" err="" val=""`},
		{"len(P{1, 2, 3, 4})", `out="" err="" val="4"`},
	})
}

func TestRedefineMethod(t *testing.T) {
	runSteps(t, []step{
		{"type T struct{A int}\nfunc (t T) Twice() int { return 2*t.A }", `out="" err="" val=""`},
		{"func show(t T) int { return t.Twice() }\nv := T{2}\nvar st fmt.Stringer", `out="" err="" val=""`},
		{"func (t T) Twice() int { return 3*t.A }", `out="" err="" val=""`},
		{"T{2}.Twice()", `out="" err="" val="6"`},
		// a value created before, a function compiled before
		{"v.Twice()", `out="" err="" val="6"`},
		{"show(v)", `out="" err="" val="6"`},
		// interface satisfaction: fmt's Stringer, a Stringer variable
		{"func (t T) String() string { return \"one\" }\nst = v\nfmt.Println(v, st)", `out="one one\n" err="" val=""`},
		{"func (t T) String() string { return \"two\" }\nfmt.Println(v, st)", `out="two two\n" err="" val=""`},
		// a method added later, with a pointer receiver
		{"func (t *T) Set(k int) { t.A = k }\nv.Set(5)\nshow(v)", `out="" err="" val="15"`},
		// a changed signature: new code uses it, show keeps the old one
		{"func (t T) Twice(k int) int { return k * t.A }\nv.Twice(10)", `out="" err="" val="50"`},
		{"show(v)", `out="" err="" val="15"`},
		// unnamed parameters, variadic, several results
		{"func (t T) Sum(a int, b ...int) (n int, err error) { n = t.A + a; for _, x := range b { n += x }; return }\nT{1}.Sum(2, 3, 4)", `out="" err="" val="10"`},
		// the type redefined: its methods do not carry over
		{"type T struct{A, B int}", `out="" err="note: type T was redefined; earlier declarations still use the old T: var v, func show; its methods belong to the old T, declare them again: Set, String, Sum, Twice\n" val=""`},
		{"func (t T) Twice() int { return t.A + t.B }\nT{1, 2}.Twice()", `out="" err="" val="3"`},
	})
}

func TestMethodMultiLineHeader(t *testing.T) {
	// the body keeps its cell lines; named results stay usable
	runSteps(t, []step{
		{"type T struct{A int}\n// Sum adds.\nfunc (t *T) Sum(\n\ta int,\n\tb ...int,\n) (n int) {\n\tn = t.A + a\n\tfor _, x := range b {\n\t\tn += x\n\t}\n\treturn\n}\nv := &T{1}\nv.Sum(1, 2, 3)",
			`out="" err="" val="7"`},
		{"func (t *T) Sum(\n\ta int,\n\tb ...int,\n) (n int) {\n\tn = 2 * a\n\treturn\n}\nv.Sum(4)", `out="" err="" val="8"`},
	})
}

func TestMethodSplit(t *testing.T) {
	p, err := Split("func (p *P) Scale(k float64, _ int) (r P) {\n\tr = *p\n\treturn\n}", nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, c := range p.chunks {
		all = append(all, c.Src)
	}
	want := "package main;\nfunc (__tbr *P) Scale(__tba0 float64, __tba1 int) P { return __tbm1_P_Scale(__tbr, __tba0, __tba1) };var __tbm1_P_Scale = func(p *P, k float64, _ int) (r P) {\n\tr = *p\n\treturn\n}"
	if got := strings.Join(all, "\x00"); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestCommaOkInTopLevelBlocks(t *testing.T) {
	runSteps(t, []step{
		{`m := map[string]int{"a":1}`, `out="" err="" val=""`},
		{`for _, w := range []string{"a","b"} { _, ok := m[w]; fmt.Println(ok) }`, `out="true\nfalse\n" err="" val=""`},
		{`{ _, ok := m["a"]; fmt.Println(ok) }`, `out="true\n" err="" val=""`},
		{"func f() { for _, w := range []string{\"a\",\"b\"} { _, ok := m[w]; fmt.Println(ok) } }\nf()", `out="true\nfalse\n" err="" val=""`},
		{`v, ok := m["a"]`, `out="" err="" val=""`},
		{`fmt.Println(v, ok)`, `out="1 true\n" err="" val=""`},
	})
}

func TestRuntimeAndTypeMessages(t *testing.T) {
	runSteps(t, []step{
		{"n := 1", `out="" err="" val=""`},
		{`n = n + "x"`, `out="" err="" val="" ERR CompileError: cell line 1:5: invalid operation: mismatched types int and untyped string`},
		{"xs := []int{1}", `out="" err="" val=""`},
		{"xs[5]", `out="" err="" val="" ERR panic: runtime error: index out of range [5] with length 1 (cell line 1)`},
		{"xs[2:9]", `out="" err="" val="" ERR panic: runtime error: slice bounds out of range [:9] with capacity 1 (cell line 1)`},
		{"xs[5] = 1", `out="" err="" val="" ERR panic: runtime error: index out of range [5] with length 1 (cell line 1)`},
		{"a := [2]int{}\nk := 3\na[k]", `out="" err="" val="" ERR panic: runtime error: index out of range [3] with length 2 (cell line 3)`},
		{`s := "abc"` + "\ns[1:k+5]", `out="" err="" val="" ERR panic: runtime error: slice bounds out of range [:8] with length 3 (cell line 2)`},
		{"func get(i int) (v int, err error) {\n\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\terr = r.(runtime.Error)\n\t\t}\n\t}()\n\treturn xs[i], nil\n}\nget(4)",
			`out="" err="" val="error: runtime error: index out of range [4] with length 1"`},
	})
}

func TestRedefineGeneric(t *testing.T) {
	runSteps(t, []step{
		{"type G[X any] struct{ x X }\nfunc (g G[X]) Get() X { return g.x }\nG[int]{3}.Get()", `out="" err="" val="3"`},
		// a method redefined reaches an instance made before, for new code
		{"func (g G[X]) Get() X { var z X; return z }\nG[int]{3}.Get()", `out="" err="" val="0"`},
		{"type G[X any] struct{ y, x X }\nG[int]{4, 3}", `out="" err="" val="{4 3}"`},
		{"func (g G[X]) Get() X { return g.y }\nG[string]{\"a\", \"b\"}.Get()", `out="" err="" val="\"a\""`},
	})
}
