package interp_test

import (
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// runProgram evaluates a main package and returns what it printed.
func runProgram(t *testing.T, src string) (string, error) {
	t.Helper()
	var out, errOut strings.Builder
	i := interp.New(interp.Options{Stdout: &out, Stderr: &errOut})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(src)
	return out.String(), err
}

type programCase struct{ name, src, want string }

func runProgramCases(t *testing.T, cases []programCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runProgram(t, tc.src)
			if err != nil {
				t.Fatalf("error: %v (output %q)", err, got)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Recursive and mutually recursive generic types instantiated themselves
// again while being built, until Go's fatal stack overflow. Outputs checked
// against the same programs compiled with Go 1.26.
func TestTracebookRecursiveGenericTypes(t *testing.T) {
	runProgramCases(t, []programCase{
		{"list", `package main
import "fmt"
type List[T any] struct { next *List[T]; val T }
func (l *List[T]) Push(v T) *List[T] { return &List[T]{next: l, val: v} }
func main() {
	var l *List[string]
	l = l.Push("a").Push("b")
	for p := l; p != nil; p = p.next { fmt.Print(p.val, " ") }
	fmt.Println()
}`, "b a \n"},
		{"tree with two type parameters", `package main
import "fmt"
type Tree[K, V any] struct { left, right *Tree[K, V]; k K; v V }
func (t *Tree[K, V]) Walk(f func(K, V)) {
	if t == nil { return }
	t.left.Walk(f); f(t.k, t.v); t.right.Walk(f)
}
func main() {
	t := &Tree[int, string]{k: 2, v: "b"}
	t.left = &Tree[int, string]{k: 1, v: "a"}
	t.right = &Tree[int, string]{k: 3, v: "c"}
	t.Walk(func(k int, v string) { fmt.Print(k, v, " ") })
	fmt.Println(t.right.right == nil)
}`, "1a 2b 3c true\n"},
		{"mutually recursive structs", `package main
import "fmt"
type A[T any] struct { b *B[T]; x T }
type B[T any] struct { a *A[T]; y T }
func main() {
	a := &A[float64]{x: 1.5}
	a.b = &B[float64]{a: a, y: 2.5}
	fmt.Println(a.b.a.x, a.b.y, a.b.a == a)
}`, "1.5 2.5 true\n"},
		{"interface and struct naming each other", `package main
import "fmt"
type Seq[T any] interface { Match(func(Empty[T]) int, func(Cons[T]) int) int }
type Empty[T any] struct{}
func (e Empty[T]) Match(f func(Empty[T]) int, g func(Cons[T]) int) int { return f(e) }
type Cons[T any] struct { Head T; Tail Seq[T] }
func (c Cons[T]) Match(f func(Empty[T]) int, g func(Cons[T]) int) int { return g(c) }
func Len[T any](s Seq[T]) int {
	return s.Match(func(Empty[T]) int { return 0 }, func(c Cons[T]) int { return 1 + Len(c.Tail) })
}
func main() {
	var s Seq[int] = Cons[int]{1, Cons[int]{2, Empty[int]{}}}
	fmt.Println(Len(s))
}`, "2\n"},
		{"map of slices of itself", `package main
import "fmt"
type Node[T comparable] struct { val T; kids map[T][]*Node[T] }
func main() {
	n := &Node[string]{val: "root", kids: map[string][]*Node[string]{}}
	n.kids["x"] = append(n.kids["x"], &Node[string]{val: "leaf"})
	fmt.Println(n.val, len(n.kids["x"]), n.kids["x"][0].val, n.kids["x"][0].kids == nil)
}`, "root 1 leaf true\n"},
	})
}

// No recursion in building a type may overflow the stack (a fatal error
// that kills the process): each is a compile error.
func TestTracebookTypeRecursionIsAnError(t *testing.T) {
	deep := "package main\nvar x " + strings.Repeat("[]", 5000) + "int\nfunc main() {}"
	for _, tc := range []struct{ name, src, want string }{
		{"expanding instantiation", `package main
type T[P any] struct { f *T[[]P]; x P }
func main() { var t T[int]; println(t.x) }`, "instantiation cycle: main.T"},
		{"generic recursive channel", `package main
type Chan[T any] chan Chan[T]
func main() { ch := make(Chan[int], 1); ch <- ch }`, "invalid recursive type"},
		{"recursive func type", `package main
type F func(int) F
func main() { var f F; f = func(n int) F { return f }; f(1) }`, "invalid recursive type main.F"},
		{"recursive channel", `package main
type C chan C
func main() { c := make(C, 1); c <- c }`, "invalid recursive type main.C"},
		{"deeply nested type", deep, "too deeply nested"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runProgram(t, tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A composite literal assigned to a struct field of an interpreted interface
// type (s.it = T{}) panicked in reflect.Set (the literal was wrapped for an
// interface but stored in its own slot).
func TestTracebookCompositeLitToInterfaceField(t *testing.T) {
	runProgramCases(t, []programCase{
		{"field", `package main
import "fmt"
type Iterator interface { Iterate(fn func(int) bool) }
type Stream struct { it Iterator }
type one struct{ x int }
func (o one) Iterate(fn func(int) bool) { fn(o.x) }
func main() {
	var s Stream
	s.it = one{3}
	s.it.Iterate(func(i int) bool { fmt.Println(i); return true })
	p := &Stream{}
	p.it = one{4}
	p.it.Iterate(func(i int) bool { fmt.Println(i); return true })
}`, "3\n4\n"},
		{"generic struct", `package main
import "fmt"
type Iterator[T any] interface { Iterate(fn func(T) bool) }
type Stream[T any] struct { it Iterator[T] }
type empty struct{}
func (empty) Iterate(fn func(int) bool) { fn(7) }
func main() {
	s := Stream[int]{}
	s.it = empty{}
	s.it.Iterate(func(i int) bool { fmt.Println(i); return true })
}`, "7\n"},
	})
}

// byte and rune type arguments satisfy union constraints naming uint8 and
// int32 (the fork's check of redefined types told byte from uint8 apart);
// an untyped rune argument infers rune (it gave "untyped rune").
func TestTracebookByteRuneConstraints(t *testing.T) {
	runProgramCases(t, []programCase{
		{"unions", `package main
import (
	"cmp"
	"fmt"
)
type Ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}
func Max[T Ordered](a, b T) T { if a > b { return a }; return b }
func Min[T cmp.Ordered](a, b T) T { if a < b { return a }; return b }
type Box[T Ordered] struct{ v T }
func (b Box[T]) Get() T { return b.v }
func main() {
	fmt.Println(Max[byte](3, 4), Max[rune]('a', 'b'), Max(byte(1), 2), Max('x', 'y'))
	fmt.Println(Min[byte](3, 4), Min[rune]('a', 'b'), Min(byte(1), 2), Min('x', 'y'))
	fmt.Printf("%T %T\n", Max('x', 'y'), Min(byte(1), 2))
	fmt.Println(Box[byte]{7}.Get(), Box[rune]{'z'}.Get(), string(Box[rune]{'z'}.Get()))
}`, "4 98 2 121\n3 97 1 120\nint32 uint8\n7 122 z\n"},
	})
}

// Constraints naming other type parameters (~map[K]V, _SliceOf[E],
// numericAbs[T]) are checked with the type arguments, and inference goes
// through the core type of an instantiated generic constraint.
func TestTracebookConstraintsWithTypeParams(t *testing.T) {
	runProgramCases(t, []programCase{
		{"map core type", `package main
import "fmt"
func CopyMap[M interface{ ~map[K]V }, K comparable, V any](m M) M {
	out := make(M, len(m))
	for k, v := range m { out[k] = v }
	return out
}
type Ages map[string]int
func main() {
	c := CopyMap(Ages{"a": 1})
	fmt.Printf("%v %d\n", c, len(CopyMap(map[*string]int(nil))))
}`, "map[a:1] 0\n"},
		{"generic constraint", `package main
import "fmt"
type SliceOf[E any] interface{ ~[]E }
type Number interface{ ~int | ~float64 }
type MySlice []int
func Double[S SliceOf[E], E Number](s S) S {
	r := make(S, len(s))
	for i, v := range s { r[i] = v + v }
	return r
}
func main() {
	fmt.Println(Double(MySlice{1, 2}), Double([]float64{1.5}))
	var _ MySlice = Double(MySlice{})
}`, "[2 4] [3]\n"},
		{"methods and a struct core type", `package main
import "fmt"
type Num interface{ ~int | ~float64 }
type absVal[T Num] interface {
	~struct{ V T }
	Abs() T
	Value() T
}
type ord[T Num] struct{ V T }
func (a ord[T]) Abs() T { if a.V < 0 { return -a.V }; return a.V }
func (a ord[T]) Value() T { return a.V }
func absDiff[T Num, U absVal[T]](a, b U) T {
	d := a.Value() - b.Value()
	return U{V: d}.Abs()
}
func main() {
	fmt.Println(absDiff(ord[int]{1}, ord[int]{4}), absDiff(ord[float64]{2.5}, ord[float64]{-1}))
}`, "3 3.5\n"},
		{"explicit type arguments", `package main
import "fmt"
type SliceOf[E any] interface{ ~[]E }
func First[S SliceOf[E], E any](s S) E { return s[0] }
func main() {
	fmt.Println(First[[]int, int]([]int{5}))
}`, "5\n"},
	})
	_, err := runProgram(t, `package main
type SliceOf[E any] interface{ ~[]E }
func First[S SliceOf[E], E any](s S) E { return s[0] }
func main() { First[[]int, string]([]int{5}) }`)
	if err == nil || !strings.Contains(err.Error(), "does not implement") {
		t.Errorf("[]int as SliceOf[string]: got %v, want a 'does not implement' error", err)
	}
}

// A composite literal of a type parameter's type (S{}, U{V: v}, M{k: v}).
func TestTracebookCompositeLitOfTypeParam(t *testing.T) {
	runProgramCases(t, []programCase{
		{"core types", `package main
import "fmt"
type P[T any] struct{ V T }
func Make[T any, U ~struct{ V T }](v T) U { return U{V: v} }
func Make2[S ~[]E, E any](e E) S { return S{e, e} }
func Zero[S ~[]E, E any]() S { return S{} }
type M map[string]int
func MkMap[K comparable, V any, M ~map[K]V](k K, v V) M { return M{k: v} }
func main() {
	fmt.Println(Make[int, P[int]](3))
	fmt.Println(Make2[[]int](4))
	fmt.Println(len(Zero[[]string]()), Zero[[]string]() == nil)
	fmt.Println(MkMap[string, int, M]("a", 1))
}`, "{3}\n[4 4]\n0 false\nmap[a:1]\n"},
	})
}

// A type parameter of a generic function declared the package's type of the
// same name away (func Id[T any] and type T): "undefined type" on T{4}.
func TestTracebookTypeParamKeepsGlobalType(t *testing.T) {
	runProgramCases(t, []programCase{
		{"same name", `package main
import "fmt"
type T struct{ A int }
func Id[T any](x T) T { return x }
func main() { fmt.Println(Id(3), T{4}, Id(T{5})) }`, "3 {4} {5}\n"},
	})
}

// Field names equal to a type parameter's name (type Pair[A, B any]
// struct{ A A; B B }) are no type; a func value returned by a generic call
// is no generic function.
func TestTracebookGenericFieldNamedLikeTypeParam(t *testing.T) {
	runProgramCases(t, []programCase{
		{"pair", `package main
import "fmt"
type Gen[A any] func() (A, bool)
type Pair[A, B any] struct { A A ` + "`json:\"a\"`" + `; B B }
func NewPair[A, B any](a A, b B) Pair[A, B] { return Pair[A, B]{A: a, B: b} }
func Combine[T1, T2, T any](g1 Gen[T1], g2 Gen[T2], join func(T1, T2) T) Gen[T] {
	return func() (T, bool) {
		var t T
		t1, ok := g1()
		if !ok { return t, false }
		t2, ok := g2()
		if !ok { return t, false }
		return join(t1, t2), true
	}
}
func Combine2[A, B any](ga Gen[A], gb Gen[B]) Gen[Pair[A, B]] { return Combine(ga, gb, NewPair[A, B]) }
func main() {
	var g1 Gen[int] = func() (int, bool) { return 3, true }
	var g2 Gen[string] = func() (string, bool) { return "y", true }
	gc := Combine2(g1, g2)
	got, ok := gc()
	fmt.Println(got.A, got.B, ok, got)
}`, "3 y true {3 y}\n"},
	})
}

// An instance's type arguments are found for inference whatever its node
// (_Equal(s1, s2) of two _Set[string] from _Make[string]()); comparable is no
// core type (the type parameter was bound to "comparable").
func TestTracebookInferFromInstance(t *testing.T) {
	runProgramCases(t, []programCase{
		{"set", `package main
import "fmt"
type Set[E comparable] struct{ m map[E]struct{} }
func Make[E comparable]() Set[E] { return Set[E]{m: make(map[E]struct{})} }
func (s Set[E]) Add(v E) { s.m[v] = struct{}{} }
func Equal[E comparable](s1, s2 Set[E]) bool {
	if len(s1.m) != len(s2.m) { return false }
	for v := range s1.m { if _, ok := s2.m[v]; !ok { return false } }
	return true
}
func main() {
	s1, s2 := Make[string](), Make[string]()
	s1.Add("a")
	fmt.Println(Equal(s1, s2))
	s2.Add("a")
	fmt.Println(Equal(s1, s2))
}`, "false\ntrue\n"},
	})
}

// A switch whose tag is an interface compares dynamic types and values (it
// converted the interface to the case's type: a panic); an instance's map
// literal may repeat a key through a type parameter (T(0) with T int).
func TestTracebookSwitchOnInterfaceTag(t *testing.T) {
	runProgramCases(t, []programCase{
		{"switch", `package main
import "fmt"
func kind(x any) string {
	switch x {
	case int(0):
		return "int zero"
	case 3, "3":
		return "three"
	case nil:
		return "nil"
	}
	return "other"
}
func main() { fmt.Println(kind(0), kind(3), kind("3"), kind(int64(3)), kind(nil), kind(2.5)) }`, "int zero three three other nil other\n"},
		{"generic keys", `package main
import "fmt"
func F[T, U ~int | ~int64]() map[any]int {
	switch any(nil) {
	case int(0), T(0), U(0):
		return nil
	}
	return map[any]int{int(0): 1, T(0): 2, U(0): 3}
}
func main() { fmt.Println(len(F[int, int]()), len(F[int, int64]())) }`, "1 2\n"},
	})
}

// A single type term in a constraint (*B in interface{ Set(string); *B }) is
// a type set, not an embedded interface: PT is inferred from T.
func TestTracebookPointerConstraint(t *testing.T) {
	runProgramCases(t, []programCase{
		{"setter", `package main
import (
	"fmt"
	"strconv"
)
type Setter[B any] interface {
	Set(string)
	*B
}
type Int int
func (p *Int) Set(s string) { v, _ := strconv.Atoi(s); *p = Int(v) }
func FromStrings[T any, PT Setter[T]](s []string) []T {
	r := make([]T, len(s))
	for i, v := range s {
		p := PT(&r[i])
		p.Set(v)
	}
	return r
}
func main() { fmt.Println(FromStrings[Int]([]string{"1", "22"})) }`, "[1 22]\n"},
	})
}

// A func literal passed for a parameter of generic func type (Func2[A1, A2,
// R]) infers the type arguments from the func type's definition.
func TestTracebookInferFromGenericFuncType(t *testing.T) {
	runProgramCases(t, []programCase{
		{"func2", `package main
import "fmt"
type Func2[A1, A2, R any] func(a1 A1, a2 A2) R
func Apply[A1, A2, R any](fn Func2[A1, A2, R], a A1, b A2) R { return fn(a, b) }
func main() {
	r := Apply(func(a int, b string) string { return fmt.Sprint(b, a) }, 3, "x")
	fmt.Printf("%v %T\n", r, r)
}`, "x3 string\n"},
	})
}

// Conversions to generic types, generic methods returning generic types,
// and a generic function called from a method of its own result type while
// it is being compiled (Some[int] returns Opt[int], whose Map calls Some).
func TestTracebookGenericConversionsAndMethods(t *testing.T) {
	runProgramCases(t, []programCase{
		{"conversions and methods", `package main
import "fmt"
type Vec[T any] []T
type ID[T any] int
func (v Vec[T]) Len() int { return len(v) }
func (v Vec[T]) Map(f func(T) T) Vec[T] {
	r := make(Vec[T], 0, len(v))
	for _, x := range v { r = append(r, f(x)) }
	return r
}
type Pair[K, V comparable] struct { Key K; Val V }
func (p Pair[K, V]) Swap() Pair[V, K] { return Pair[V, K]{p.Val, p.Key} }
type Opt[T any] struct { v T; ok bool }
func Some[T any](v T) Opt[T] { return Opt[T]{v, true} }
func (o Opt[T]) Map(f func(T) T) Opt[T] {
	if !o.ok { return o }
	return Some(f(o.v))
}
func main() {
	s := []int{1, 2, 3}
	v := Vec[int](s)
	fmt.Println(v.Len(), v.Map(func(x int) int { return x * 10 }))
	id := ID[string](7)
	fmt.Println(id + 1)
	p := Pair[string, int]{"a", 1}
	fmt.Println(p.Swap(), p.Swap().Swap())
	fmt.Println(Some(4).Map(func(x int) int { return x + 1 }))
}`, "3 [10 20 30]\n8\n{1 a} {a 1}\n{5 true}\n"},
	})
}

// make of a send- or receive-only channel type (append.go's make(Recv)), and
// blank type declarations, generic or not, are legal Go.
func TestTracebookUnidirectionalMakeAndBlankTypes(t *testing.T) {
	runProgramCases(t, []programCase{
		{"make and blank types", `package main
import "fmt"
type Recv <-chan int
type _ struct{ X int }
type _[T any] struct{ v T }
type SliceOf[E any] interface{ ~[]E }
func Append[S SliceOf[T], T any](s S, t ...T) S { return append(s, t...) }
func main() {
	r := make(Recv)
	a := Append([]Recv{r}, r)
	fmt.Println(len(a), a[0] == r, a[1] == r)
	c := make(<-chan int, 2)
	d := make(chan<- string)
	fmt.Println(cap(c), cap(d))
}`, "2 true true\n2 0\n"},
	})
}

// x.(T) of a type parameter is a dynamic check: an instance where it can
// not succeed compiles (v0.16.1: "impossible type assertion").
func TestTracebookAssertToTypeParam(t *testing.T) {
	runProgramCases(t, []programCase{
		{"assert", `package main
import "fmt"
type Named interface{ Name() string }
type anon struct{ x int }
type dog struct{}
func (dog) Name() string { return "rex" }
func As[T any](n Named) (T, bool) {
	t, ok := n.(T)
	return t, ok
}
func main() {
	_, ok := As[anon](dog{})
	d, ok2 := As[dog](dog{})
	fmt.Println(ok, ok2, d.Name())
}`, "false true rex\n"},
	})
}

// len of a nil pointer to an array is the array's length (Read[Token] with
// type Token *[16]byte).
func TestTracebookLenOfNilArrayPointer(t *testing.T) {
	runProgramCases(t, []programCase{
		{"len", `package main
import "fmt"
type Token *[4]byte
func Size[T interface{ ~*[4]byte }]() int { var t T; return len(t) }
func main() {
	var p *[3]int
	fmt.Println(len(p), Size[Token](), cap(p))
}`, "3 4 3\n"},
	})
}
