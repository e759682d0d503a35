package interp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// evalSeq evaluates srcs one by one, as notebook cells, and returns each
// result or error as text.
func evalSeq(t *testing.T, srcs ...string) []string {
	t.Helper()
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(`import "fmt"`); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, src := range srcs {
		v, err := i.Eval(src)
		switch {
		case err != nil:
			out = append(out, "error: "+err.Error())
		case v.IsValid() && v.CanInterface():
			out = append(out, fmt.Sprint(v.Interface()))
		default:
			out = append(out, "")
		}
	}
	return out
}

func checkLast(t *testing.T, got []string, want string) {
	t.Helper()
	if last := got[len(got)-1]; last != want {
		t.Errorf("got %q, want %q (all: %q)", last, want, got)
	}
}

func TestTracebookTypeRedefined(t *testing.T) {
	checkLast(t, evalSeq(t, `type P struct{A int}`, `type P struct{A int; B int}`, `P{1,2}`), "{1 2}")
	// an earlier value keeps its old type and still prints
	checkLast(t, evalSeq(t, `type P struct{A int}`, `var p = P{7}`, `type P struct{A, B int}`, `p`), "{7}")
	// a new function uses the new type
	checkLast(t, evalSeq(t, `type P struct{A int}`, `type P struct{A, B int}`,
		`func sum(p P) int { return p.A + p.B }`, `sum(P{1, 2})`), "3")
	// twice, and from a struct to a slice
	checkLast(t, evalSeq(t, `type P struct{A int}`, `type P struct{A, B int}`, `type P struct{A, B, C int}`, `P{1, 2, 3}`), "{1 2 3}")
	checkLast(t, evalSeq(t, `type P struct{A int}`, `type P []int`, `len(P{1, 2, 3})`), "3")
	// methods of the old type do not carry over to the new one
	got := evalSeq(t, `type P struct{A int}`, `func (p P) Get() int { return p.A }`, `type P struct{A, B int}`, `P{1, 2}.Get()`)
	if !strings.Contains(got[3], "undefined") {
		t.Errorf("old method on new type: %q", got)
	}
}

func TestTracebookMethodRedefined(t *testing.T) {
	base := []string{`type T struct{A int}`, `func (t T) Twice() int { return 2*t.A }`}
	checkLast(t, evalSeq(t, append(base, `func (t T) Twice() int { return 3*t.A }`, `T{2}.Twice()`)...), "6")
	// a changed signature
	checkLast(t, evalSeq(t, append(base, `func (t T) Twice(k int) int { return k*t.A }`, `T{2}.Twice(5)`)...), "10")
	// a method added later, with a pointer receiver, on a value created before
	checkLast(t, evalSeq(t, append(base, `var v = T{2}`, `func (t *T) Set(k int) { t.A = k }`, `v.Set(7); v.Twice()`)...), "14")
	// fmt sees a redefined String method
	checkLast(t, evalSeq(t, append(base, `func (t T) String() string { return "one" }`,
		`func (t T) String() string { return "two" }`, `fmt.Sprint(T{})`)...), "two")
}

func TestTracebookVarParamNamedLikeGlobal(t *testing.T) {
	// "var f func(p int) int" beside a global p declared by an earlier Eval
	checkLast(t, evalSeq(t, `var p = 3`, `var f func(p int) int`, `f = func(p int) int { return 2 * p }`, `f(p)`), "6")
}

func TestTracebookCommaOkAtTopLevel(t *testing.T) {
	m := `var m = map[string]int{"a": 1}`
	// in the block of a top-level statement
	checkLast(t, evalSeq(t, m, `var s string`, `for _, w := range []string{"a", "b"} { _, ok := m[w]; s += fmt.Sprint(ok) }`, `s`), "truefalse")
	checkLast(t, evalSeq(t, m, `var s string`, `{ v, ok := m["a"]; s = fmt.Sprint(v, ok) }`, `s`), "1 true")
	// at top level: map index, receive, type assertion, call
	checkLast(t, evalSeq(t, m, `_, ok := m["a"]`, `ok`), "true")
	checkLast(t, evalSeq(t, `var c = make(chan int, 1)`, `c <- 4`, `x, ok := <-c`, `fmt.Sprint(x, ok)`), "4 true")
	checkLast(t, evalSeq(t, `var e interface{} = "s"`, `s, ok := e.(string)`, `fmt.Sprint(len(s), ok)`), "1 true")
	checkLast(t, evalSeq(t, `func two() (int, bool) { return 3, true }`, `a, b := two()`, `fmt.Sprint(a, b)`), "3 true")
}

func TestTracebookMismatchedAssign(t *testing.T) {
	checkLast(t, evalSeq(t, `var n = 1`, `n = n + "x"`), "error: 1:32: invalid operation: mismatched types int and untyped string")
	checkLast(t, evalSeq(t, `var n = 1`, `var s string`, `s = n + 1`), "error: 1:32: cannot use type int as type string in assignment")
}

func TestTracebookBoundsErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`xs[5]`, "runtime error: index out of range [5] with length 1"},
		{`xs[5] = 1`, "runtime error: index out of range [5] with length 1"},
		{`xs[i]`, "runtime error: index out of range [-1]"},
		{`xs[2:9]`, "runtime error: slice bounds out of range [:9] with capacity 1"},
		{`xs[2:]`, "runtime error: slice bounds out of range [2:1]"},
		{`xs[i+2:i+1]`, "runtime error: slice bounds out of range [1:0]"},
		{`xs[0:1:i+9]`, "runtime error: slice bounds out of range [::8] with capacity 1"},
		{`arr[i+5]`, "runtime error: index out of range [4] with length 3"},
		{`arr[1:i+7]`, "runtime error: slice bounds out of range [:6] with length 3"},
		{`str[i+9]`, "runtime error: index out of range [8] with length 3"},
		{`str[2:i+9]`, "runtime error: slice bounds out of range [:8] with length 3"},
		// recover sees a runtime.Error
		{`safe()`,
			"true runtime error: index out of range [7] with length 1"},
	} {
		got := evalSeq(t, `import "runtime"`, `var xs = []int{1}`, `var i = -1`, `var arr [3]int`, `var str = "abc"`,
			`func safe() (s string) { defer func() { r := recover(); _, ok := r.(runtime.Error); s = fmt.Sprint(ok, " ", r) }(); _ = xs[7]; return }`,
			c.src)
		if last := strings.TrimPrefix(got[len(got)-1], "error: "); last != c.want {
			t.Errorf("%s: got %q, want %q", c.src, last, c.want)
		}
	}
}

func TestTracebookOldValueOfRedefinedType(t *testing.T) {
	seq := []string{`type P struct{A int}`, `var p = P{3}`, `type P struct{A, B int}`}
	checkLast(t, evalSeq(t, append(seq, `func area(q P) int { return q.A * q.B }`, `area(p)`)...),
		"error: 1:33: cannot use the old main.P as main.P (redefined since)")
	checkLast(t, evalSeq(t, append(seq, `var q P = p`)...), "error: 1:24: cannot use the old main.P as main.P (redefined since)")
	// the same fields again: old values are assignable
	checkLast(t, evalSeq(t, `type P struct{A int}`, `var p = P{3}`, `type P struct{A int}`, `var q P = p`, `q.A`), "3")
}

func TestTracebookGenericRedefined(t *testing.T) {
	base := []string{`type G[X any] struct{ x X }`, `func (g G[X]) Get() X { return g.x }`, `G[int]{3}.Get()`}
	// a method redefined: an instance made before gets the new body
	checkLast(t, evalSeq(t, append(base, `func (g G[X]) Get() X { var z X; return z }`, `G[int]{3}.Get()`)...), "0")
	// the type redefined
	checkLast(t, evalSeq(t, append(base, `type G[X any] struct{ y, x X }`, `fmt.Sprint(G[int]{4, 3})`)...), "{4 3}")
	checkLast(t, evalSeq(t, append(base, `type G[X any] struct{ y, x X }`, `func (g G[X]) Get() X { return g.y }`, `G[int]{4, 3}.Get()`)...), "4")
}
