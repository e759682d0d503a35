package interp_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math/big"
	"math/rand"
	"reflect"
	"slices"
	"strings"
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

// The slices, maps, cmp and sync API, as interpreted, against the output of
// the same program compiled (go run, Go 1.26).
func TestTracebookGenericStdlibAPI(t *testing.T) {
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(stdlibAPIProgram); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(`runAPI()`); err != nil {
		t.Fatal(err)
	}
	if out.String() != strings.TrimPrefix(stdlibAPIWant, "\n") {
		t.Errorf("got\n%s\nwant\n%s", out.String(), stdlibAPIWant)
	}
}

const stdlibAPIProgram = `

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

type IDs []int

type P struct {
	Name string
	Age  int
}

func runAPI() {
	s := []int{3, 1, 4, 1, 5, 9, 2, 6}
	slices.Sort(s)
	fmt.Println("Sort", s, slices.IsSorted(s))
	ids := IDs{5, 2, 8}
	slices.Sort(ids)
	fmt.Println("SortNamed", ids, slices.Min(ids), slices.Max(ids))
	ps := []P{{"b", 30}, {"a", 30}, {"c", 20}}
	slices.SortFunc(ps, func(x, y P) int { return cmp.Compare(x.Name, y.Name) })
	fmt.Println("SortFunc", ps)
	slices.SortStableFunc(ps, func(x, y P) int { return cmp.Compare(x.Age, y.Age) })
	fmt.Println("SortStableFunc", ps, slices.IsSortedFunc(ps, func(x, y P) int { return x.Age - y.Age }))
	fmt.Println("MinMax", slices.Min(s), slices.Max(s), slices.Min([]float64{2.5, -1}), slices.Max([]string{"a", "z", "m"}))
	fmt.Println("MinMaxFunc", slices.MinFunc(ps, func(x, y P) int { return x.Age - y.Age }), slices.MaxFunc(ps, func(x, y P) int { return strings.Compare(x.Name, y.Name) }))
	i, ok := slices.BinarySearch(s, 5)
	j, ok2 := slices.BinarySearch([]string{"a", "c"}, "b")
	fmt.Println("BinarySearch", i, ok, j, ok2)
	k, ok3 := slices.BinarySearchFunc(ps, 30, func(p P, t int) int { return p.Age - t })
	fmt.Println("BinarySearchFunc", k, ok3)
	fmt.Println("Contains", slices.Contains(s, 9), slices.Contains([]string{"x"}, "y"), slices.ContainsFunc(ps, func(p P) bool { return p.Age > 25 }))
	fmt.Println("Index", slices.Index(s, 4), slices.Index([]float64{1, 2}, 3), slices.IndexFunc(ps, func(p P) bool { return p.Name == "a" }))
	fmt.Println("Equal", slices.Equal(s, slices.Clone(s)), slices.Equal([]int{1}, []int{2}), slices.EqualFunc([]int{1, 2}, []string{"1", "2"}, func(a int, b string) bool { return fmt.Sprint(a) == b }))
	fmt.Println("Compact", slices.Compact([]int{1, 1, 2, 2, 2, 3, 1}), slices.CompactFunc([]string{"a", "A", "b"}, strings.EqualFold))
	r := []int{1, 2, 3}
	slices.Reverse(r)
	fmt.Println("Reverse", r)
	fmt.Println("Insert", slices.Insert([]int{1, 4}, 1, 2, 3), "Delete", slices.Delete([]int{0, 1, 2, 3}, 1, 3), "DeleteFunc", slices.DeleteFunc([]int{1, 2, 3, 4}, func(x int) bool { return x%2 == 0 }))
	fmt.Println("Replace", slices.Replace([]int{0, 1, 2, 3}, 1, 3, 7, 8, 9))
	g := slices.Grow([]int{1}, 10)
	fmt.Println("Grow", len(g), cap(g) >= 11, "Clip", cap(slices.Clip(g)))
	fmt.Println("Concat", slices.Concat([]int{1}, []int{2, 3}, nil, []int{4}), "Repeat", slices.Repeat([]string{"a", "b"}, 3))
	m := map[string]int{"a": 1, "b": 2}
	c := maps.Clone(m)
	c["c"] = 3
	fmt.Println("maps", len(m), len(c), maps.Equal(m, c), maps.EqualFunc(m, map[string]float64{"a": 1, "b": 2}, func(x int, y float64) bool { return float64(x) == y }))
	maps.Copy(m, map[string]int{"z": 26})
	maps.DeleteFunc(c, func(k string, v int) bool { return v > 1 })
	fmt.Println("Copy", m, "DeleteFunc", c)
	fmt.Println("cmp", cmp.Compare(1, 2), cmp.Compare("b", "a"), cmp.Less(1.5, 2.5), cmp.Or("", "x", "y"), cmp.Or(0, 0))
	n := 0
	f := sync.OnceFunc(func() { n++ })
	f()
	f()
	v := sync.OnceValue(func() int { n += 10; return n })
	v1, v2 := sync.OnceValues(func() (string, error) { return "once", nil })()
	fmt.Println("sync", n, v(), v(), n, v1, v2)
}
`

const stdlibAPIWant = `
Sort [1 1 2 3 4 5 6 9] true
SortNamed [2 5 8] 2 8
SortFunc [{a 30} {b 30} {c 20}]
SortStableFunc [{c 20} {a 30} {b 30}] true
MinMax 1 9 -1 z
MinMaxFunc {c 20} {c 20}
BinarySearch 5 true 1 false
BinarySearchFunc 1 true
Contains true false true
Index 4 -1 1
Equal true false true
Compact [1 2 3 1] [a b]
Reverse [3 2 1]
Insert [1 2 3 4] Delete [0 3] DeleteFunc [1 3]
Replace [0 7 8 9 3]
Grow 1 true Clip 1
Concat [1 2 3 4] Repeat [a b a b a b]
maps 2 3 false true
Copy map[a:1 b:2 z:26] DeleteFunc map[a:1]
cmp -1 1 true x 0
sync 11 11 11 11 once <nil>
`

// slicesOps runs, interpreted, the slices functions that have compiled fast
// paths, on []int (fast path) and []int32 (interpreted generic code).
const slicesOps = `import "slices"
func opsInt(x []int, t int) ([]int, int, int, int, bool, []int, int) {
	s := slices.Clone(x)
	slices.Sort(s)
	mn, mx := 0, 0
	if len(x) > 0 {
		mn, mx = slices.Min(x), slices.Max(x)
	}
	i, ok := slices.BinarySearch(s, t)
	return s, mn, mx, i, ok, slices.Compact(slices.Clone(s)), slices.Index(x, t)
}
func opsInt32(x []int32, t int32) ([]int32, int32, int32, int, bool, []int32, int) {
	s := slices.Clone(x)
	slices.Sort(s)
	var mn, mx int32
	if len(x) > 0 {
		mn, mx = slices.Min(x), slices.Max(x)
	}
	i, ok := slices.BinarySearch(s, t)
	return s, mn, mx, i, ok, slices.Compact(slices.Clone(s)), slices.Index(x, t)
}`

type opsResult[E any] struct {
	sorted      []E
	min, max    E
	index       int
	found       bool
	compact     []E
	firstOfTarg int
}

// compiledOps is the oracle: the same operations, compiled.
func compiledOps[E cmp.Ordered](x []E, t E) opsResult[E] {
	s := slices.Clone(x)
	slices.Sort(s)
	var r opsResult[E]
	if len(x) > 0 {
		r.min, r.max = slices.Min(x), slices.Max(x)
	}
	r.sorted = s
	r.index, r.found = slices.BinarySearch(s, t)
	r.compact = slices.Compact(slices.Clone(s))
	r.firstOfTarg = slices.Index(x, t)
	return r
}

func TestTracebookSlicesRandomized(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(slicesOps); err != nil {
		t.Fatal(err)
	}
	vi, err := i.Eval("opsInt")
	if err != nil {
		t.Fatal(err)
	}
	v32, err := i.Eval("opsInt32")
	if err != nil {
		t.Fatal(err)
	}
	opsInt := vi.Interface().(func([]int, int) ([]int, int, int, int, bool, []int, int))
	opsInt32 := v32.Interface().(func([]int32, int32) ([]int32, int32, int32, int, bool, []int32, int))
	r := rand.New(rand.NewSource(1))
	for trial := 0; trial < 300; trial++ {
		n := r.Intn(100)
		if trial%50 == 0 {
			n = 2000 // past the insertion sort threshold, into pdqsort proper
		}
		span := 1 + r.Intn(2*n+1) // small spans give duplicates
		x := make([]int, n)
		x32 := make([]int32, n)
		for k := range x {
			x[k] = r.Intn(span) - span/2
			x32[k] = int32(x[k])
		}
		target := r.Intn(span+2) - span/2 - 1

		want := compiledOps(x, target)
		var got opsResult[int]
		got.sorted, got.min, got.max, got.index, got.found, got.compact, got.firstOfTarg = opsInt(slices.Clone(x), target)
		if !reflect.DeepEqual(got, want) && !(n == 0 && len(got.sorted) == 0 && len(got.compact) == 0 && got.index == want.index) {
			t.Fatalf("[]int %v, %d: got %+v, want %+v", x, target, got, want)
		}

		want32 := compiledOps(x32, int32(target))
		var got32 opsResult[int32]
		got32.sorted, got32.min, got32.max, got32.index, got32.found, got32.compact, got32.firstOfTarg = opsInt32(slices.Clone(x32), int32(target))
		if !reflect.DeepEqual(got32, want32) && !(n == 0 && len(got32.sorted) == 0 && len(got32.compact) == 0 && got32.index == want32.index) {
			t.Fatalf("[]int32 %v, %d: got %+v, want %+v", x32, target, got32, want32)
		}
	}
}

// A parameter of generic type (*Stack[T], Pair[K, V]) binds the type
// arguments of the argument's instance.
func TestTracebookGenericInferFromGenericType(t *testing.T) {
	const stack = `type Stack[T any] struct{ items []T }
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }
func Drain[T any](s *Stack[T]) []T { r := s.items; s.items = nil; return r }`
	const pair = `type Pair[K comparable, V any] struct { Key K; Val V }
func Swap[K comparable, V comparable](p Pair[K, V]) Pair[V, K] { return Pair[V, K]{p.Val, p.Key} }
func Keys[K comparable, V any](ps []Pair[K, V]) []K { var r []K; for _, p := range ps { r = append(r, p.Key) }; return r }`
	for _, tc := range []struct {
		srcs []string
		want string
	}{
		{[]string{stack, `st := &Stack[string]{}`, `st.Push("a"); st.Push("b")`, `Drain(st)`}, "[a b]"},
		{[]string{pair, `Swap(Pair[string, int]{"a", 1})`}, "{1 a}"},
		{[]string{pair, `sw := Swap(Pair[string, int]{"a", 1})`, `sw.Key + 1`}, "2"},
		{[]string{pair, `Keys([]Pair[int, string]{{1, "x"}, {2, "y"}})`}, "[1 2]"},
	} {
		if got := evalGenerics(t, tc.srcs...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.srcs[len(tc.srcs)-1], got, tc.want)
		}
	}
}

// Generic function values with all type arguments, F[A] and F[A, B], global
// (typed during global analysis) or local.
func TestTracebookGenericFuncValue(t *testing.T) {
	const defs = `import "fmt"
func Id[T any](x T) T { return x }
func Map[T, U any](s []T, f func(T) U) []U { r := make([]U, 0, len(s)); for _, x := range s { r = append(r, f(x)) }; return r }`
	for _, tc := range []struct {
		srcs []string
		want string
	}{
		{[]string{defs, `f := Id[int]`, `f(3)`}, "3"},
		{[]string{defs, `toS := Map[int, string]`, `toS([]int{1}, func(i int) string { return "n" + fmt.Sprint(i) })`}, "[n1]"},
		{[]string{defs, `func g() []int { h := Map[string, int]; return h([]string{"ab"}, func(s string) int { return len(s) }) }`, `g()`}, "[2]"},
	} {
		if got := evalGenerics(t, tc.srcs...); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.srcs[1], got, tc.want)
		}
	}
}
