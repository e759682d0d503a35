package interp_test

import (
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// evalGenerics evaluates each source in one interpreter and returns the
// printed form (%v) of the last value.
func evalGenerics(t *testing.T, srcs ...string) string {
	t.Helper()
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	var last string
	for _, src := range srcs {
		v, err := i.Eval(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		last = ""
		if v.IsValid() {
			last = fmt.Sprint(v.Interface())
		}
	}
	return last
}

func TestTracebookGenericInferByName(t *testing.T) {
	const mapFn = `import "fmt"
func Map[T, U any](s []T, f func(T) U) []U { r := make([]U, 0, len(s)); for _, x := range s { r = append(r, f(x)) }; return r }`
	for _, tc := range []struct {
		srcs []string
		want string
	}{
		// U appears only in the result of the func literal.
		{[]string{mapFn, `Map([]int{1, 2, 3}, func(i int) string { return fmt.Sprint(i * 2) })`}, "[2 4 6]"},
		{[]string{mapFn, `len(Map([]string{"x", "yy"}, func(s string) int { return len(s) }))`}, "2"},
		// Parameters sharing one field (a, b T); untyped constants take the typed argument's type.
		{[]string{`func Max2[T int | float64](a, b T) T { if a > b { return a }; return b }`, `Max2(1, 2.5)`}, "2.5"},
		{[]string{`func Pick[T any, U any](u U, t T) T { return t }`, `Pick(1, "s")`}, "s"},
		// A type parameter found only through a constraint's core type.
		{[]string{`func First[S ~[]E, E any](s S) E { return s[0] }`, `type IDs []int`, `First(IDs{7, 8})`}, "7"},
		// Variadic arguments.
		{[]string{`func Sum[T int | float64](xs ...T) T { var s T; for _, x := range xs { s += x }; return s }`, `Sum(1.5, 2)`}, "3.5"},
		{[]string{`func Sum[T int | float64](xs ...T) T { var s T; for _, x := range xs { s += x }; return s }`, `Sum([]int{1, 2}...)`}, "3"},
	} {
		if got := evalGenerics(t, tc.srcs...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.srcs[len(tc.srcs)-1], got, tc.want)
		}
	}
}

// A global x := F(...) needs the call's type during global analysis, before
// the instantiated function is compiled.
func TestTracebookGenericGlobalDefine(t *testing.T) {
	for _, tc := range []struct {
		srcs []string
		want string
	}{
		{[]string{`func Counter[T comparable]() func(T) int { m := map[T]int{}; return func(v T) int { m[v]++; return m[v] } }`,
			`c := Counter[string]()`, `c("a"); c("b")`, `c("a")`}, "2"},
		{[]string{`func Id[T any](x T) T { return x }`, `g := Id(4)`, `g + 1`}, "5"},
		{[]string{`func Id[T any](x T) T { return x }`, `var g = Id[float64](4)`, `g / 8`}, "0.5"},
		{[]string{`func Mk[T any](n int) []T { return make([]T, n) }`, `e := Mk[string](2)`, `len(e)`}, "2"},
		{[]string{`type Stack[T any] struct{ items []T }
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }
func NewStack[T any]() *Stack[T] { return &Stack[T]{} }`, `s := NewStack[int]()`, `s.Push(3); s.Push(4)`, `s.items`}, "[3 4]"},
	} {
		if got := evalGenerics(t, tc.srcs...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.srcs[1], got, tc.want)
		}
	}
}

// An instantiated function first compiled inside a var declaration got no
// executable body: calls returned zero values.
func TestTracebookGenericInstanceInVarDecl(t *testing.T) {
	const id = `func Id[T any](x T) T { return x }`
	for _, tc := range []struct {
		srcs []string
		want string
	}{
		{[]string{id, `func f() float64 { var g = Id(4.5); return g }`, `f()`}, "4.5"},
		{[]string{id, `func f() int { var g int = Id[int](3); return g }`, `f()`}, "3"},
		{[]string{id, `func f() string { var s = Id("s"); return s }`, `f()`}, "s"},
	} {
		if got := evalGenerics(t, tc.srcs...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.srcs[1], got, tc.want)
		}
	}
}

// F[A](...) of a function with more type parameters, or with a type
// argument that is itself an instantiated type parameter (Grow[S](nil, n)
// inside slices.Concat), is instantiated by the call, which infers the rest;
// an untyped nil argument binds nothing.
func TestTracebookGenericPartialTypeArgs(t *testing.T) {
	const conv = `import "fmt"
func Conv[U, T any](xs []T, f func(T) U) []U { var r []U; for _, x := range xs { r = append(r, f(x)) }; return r }`
	const grow = `func G[S ~[]E, E any](s S, n int) S { return append(s, make(S, n)...)[:len(s)] }
func C[S ~[]E, E any](ss ...S) S { r := G[S](nil, 3); for _, s := range ss { r = append(r, s...) }; return r }`
	for _, tc := range []struct {
		srcs []string
		want string
	}{
		{[]string{conv, `Conv[string]([]int{1, 2}, func(i int) string { return fmt.Sprint(i, "!") })`}, "[1! 2!]"},
		{[]string{grow, `C([]int{1}, nil, []int{2, 3})`}, "[1 2 3]"},
		{[]string{grow, `func f() []string { return C([]string{"a"}, []string{"b"}) }`, `f()`}, "[a b]"},
	} {
		if got := evalGenerics(t, tc.srcs...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.srcs[len(tc.srcs)-1], got, tc.want)
		}
	}
}

// Two sources of one package (the slices sort files, or two cells) may
// import the same binary package.
func TestTracebookReimportBinaryPackage(t *testing.T) {
	got := evalGenerics(t, `import "strings"`, `import "strings"`, `strings.ToUpper("a")`)
	if got != "A" {
		t.Errorf("got %q, want %q", got, "A")
	}
}

// A source package compiled under the name of a binary package (the generic
// part of sync: OnceValue) shadows it; the binary symbols stay reachable.
func TestTracebookSourceExtendsBinaryPackage(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(interp.Exports{"ext/ext": {
		"Twice":  reflect.ValueOf(func(x int) int { return 2 * x }),
		"Number": reflect.ValueOf((*big.Int)(nil)),
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Compile(`package ext; func Id[T any](x T) T { return x }`); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval(`import "ext"
func f() string { var n ext.Number; n.SetInt64(int64(ext.Twice(ext.Id(21)))); return n.String() }`)
	if err != nil {
		t.Fatal(err)
	}
	if v, err = i.Eval(`f()`); err != nil {
		t.Fatal(err)
	}
	if got := v.Interface(); got != "42" {
		t.Errorf("got %v, want 42", got)
	}
}
