package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// runMain evaluates the program src (package main, with func main) and
// returns what it printed on its standard output, and the error of the
// evaluation.
func runMain(t *testing.T, src string) (string, error) {
	t.Helper()
	var out, stderr bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(src)
	return out.String(), err
}

// checkMain runs src and compares its output with want, the output of the
// same program compiled by Go 1.26.
func checkMain(t *testing.T, src, want string) {
	t.Helper()
	got, err := runMain(t, src)
	if err != nil {
		t.Fatalf("error: %v (output %q)", err, got)
	}
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTracebookMinMaxClear(t *testing.T) {
	checkMain(t, `package main

import (
	"fmt"
	"math"
)

const c = max(1, 2.5)
const d = min("b", "a", "c")
const e int8 = 3
const g = max(e, 7)

func main() {
	fmt.Println(c, d, g)
	fmt.Printf("%T %T %T\n", g, max(1, 'a'), c)
	x, y := 3, 9
	fmt.Println(min(x, y), max(x, y, 20), min(x, 1))
	fmt.Println(max(1.5, math.NaN(), 2), min(math.Inf(1), 3), min(math.NaN(), 1), max(2, math.NaN()))
	z := 0.0
	nz := math.Copysign(0, -1)
	fmt.Println(math.Signbit(min(z, nz)), math.Signbit(max(nz, z)), math.Signbit(min(nz, z)), math.Signbit(max(z, nz)))
	s := "pear"
	fmt.Println(min(s, "apple", "zoo"), max(s, "apple"))
	var i interface{} = min(2, x)
	fmt.Println(i)
	var u8 uint8 = 200
	fmt.Println(max(u8, 100), min(u8, 255))
	const big = max(1<<40, 5)
	fmt.Println(big, func() int { return max(x, 4) }())
	var f32 float32 = 1.5
	fmt.Println(min(f32, 0.5))

	m := map[string]int{"a": 1, "b": 2}
	clear(m)
	fmt.Println(len(m), m)
	sl := []int{1, 2, 3}
	clear(sl[1:])
	fmt.Println(sl)
	var nm map[int]int
	clear(nm)
	nan := map[float64]int{math.NaN(): 1, math.NaN(): 2}
	clear(nan)
	fmt.Println(len(nan))
	ps := []*int{&x, &y}
	clear(ps)
	fmt.Println(ps[0] == nil, ps[1] == nil)
	func() {
		m := map[int]int{1: 1}
		defer func() { fmt.Println("after", len(m)) }()
		defer clear(m)
		fmt.Println("before", len(m))
	}()
}
`, `2.5 a 7
int8 int32 float64
3 20 1
NaN 3 NaN NaN
true false true false
apple pear
2
200 200
1099511627776 4
0.5
0 map[]
[1 0 0]
0
true true
before 1
after 0
`)
	for _, c := range []struct{ src, want string }{
		{`min(1, "a")`, "mismatched types"},
		{`func f() { var a int; var b float64; _ = max(a, b) }`, "mismatched types"},
		{`max(true, false)`, "cannot be ordered"},
		{`min()`, "not enough arguments"},
		{`clear(3)`, "not a map or slice"},
		{`func f() { var a int8; _ = max(a, 300) }`, "overflows"},
	} {
		got := evalSeq(t, c.src)
		if !strings.Contains(got[0], c.want) {
			t.Errorf("%s: got %q, want an error with %q", c.src, got[0], c.want)
		}
	}
}

// TestTracebookMethodExprValue: method expressions of every kind of type as
// function values, method values binding their receiver when evaluated, nil
// receivers and deferred nil functions panicking as in Go.
func TestTracebookMethodExprValue(t *testing.T) {
	checkMain(t, `package main

import (
	"bytes"
	"fmt"
	"strings"
)

type T struct{ n int }

func (t T) Get() int          { return t.n }
func (t T) Add(k int) int     { return t.n + k }
func (t T) Sum(ks ...int) int { s := t.n; for _, k := range ks { s += k }; return s }
func (t *T) Inc()             { t.n++ }
func (t T) Print()            { fmt.Println("print", t.n) }
func (t *T) PGet() int        { return t.n }

type E struct{ T }
type PE struct{ *T }

type I interface{ Get() int }

type N int

func (n N) Twice() N { return 2 * n }

func try(f func()) (r interface{}) {
	defer func() { r = recover() }()
	f()
	return nil
}

func main() {
	// method expressions
	f := T.Get
	fmt.Println(f(T{3}), T.Add(T{1}, 2), T.Sum(T{1}, 2, 3), T.Sum(T{1}, []int{4, 5}...))
	g := T.Add
	fmt.Println(g(T{3}, 4))
	h := (*T).Inc
	t := &T{5}
	h(t)
	(*T).Inc(t)
	fmt.Println(t.n, (*T).Get(t), (*T).PGet(t))
	fmt.Println(E.Get(E{T{8}}), (*E).Get(&E{T{9}}), PE.Get(PE{&T{4}}))
	pi := PE.Inc
	pe := PE{&T{1}}
	pi(pe)
	fmt.Println(pe.n)
	fmt.Println(I.Get(T{9}), I.Get(&T{10}))
	ig := I.Get
	fmt.Println(ig(T{11}))
	fmt.Println(N.Twice(21), struct{ T }.Get(struct{ T }{T{6}}), interface{ Get() int }.Get(T{7}))
	var fs []func(T) int
	fs = append(fs, T.Get, func(t T) int { return -t.n })
	fmt.Println(fs[0](T{2}), fs[1](T{2}))
	bl := (*bytes.Buffer).Len
	var b bytes.Buffer
	b.WriteString("abc")
	fmt.Println(bl(&b), (*strings.Builder).Len(&strings.Builder{}))
	str := fmt.Stringer.String
	fmt.Println(str(&b))
	fmt.Println(strings.Map(N(1).Twice2(), "ab"))

	// method values: the receiver is evaluated and copied when the method value is
	v := T{1}
	mv := v.Get
	v.n = 100
	fmt.Println(mv(), v.Get())
	pv := t.PGet
	t.n = 50
	fmt.Println(pv())
	pm := v.Inc // &v
	pm()
	fmt.Println(v.n)
	e := E{T{5}}
	ef := e.Get
	e.n = 7
	fmt.Println(ef(), e.Get())
	var it I = T{12}
	im := it.Get
	it = T{13}
	fmt.Println(im(), it.Get())

	// nil receivers
	var np *T
	fmt.Println(try(func() { _ = np.Get }))
	fmt.Println(try(func() { _ = np.PGet }) == nil)
	var ni I
	fmt.Println(try(func() { _ = ni.Get }))
	var npe PE
	fmt.Println(try(func() { _ = npe.Get }))
	var nf func()
	fmt.Println(try(func() { defer nf(); fmt.Println("deferred nil func") }))

	// defer and go evaluate the receiver at the statement
	func() {
		w := T{1}
		defer fmt.Println("deferred", w.Get())
		defer func(f func() int) { fmt.Println("deferred value", f()) }(w.Get)
		defer w.Print()
		defer w.Inc()
		w.n = 2
	}()
	done := make(chan int)
	w := T{30}
	go func(f func(int) int) { done <- f(1) }(w.Add)
	w.n = 0
	fmt.Println(<-done)
}

func (n N) Twice2() func(rune) rune { return func(r rune) rune { return r + rune(n) } }
`, `3 3 6 10
7
7 7 7
8 9 4
2
9 10
11
42 6 7
2 -2
3 0
abc
bc
1 100
50
101
5 7
12 13
runtime error: invalid memory address or nil pointer dereference
true
runtime error: invalid memory address or nil pointer dereference
runtime error: invalid memory address or nil pointer dereference
deferred nil func
runtime error: invalid memory address or nil pointer dereference
print 1
deferred value 1
deferred 1
31
`)
	for _, c := range []struct{ src, want string }{
		{"type T struct{}\nfunc (t *T) M() {}\nvar f = T.M", "needs pointer receiver"},
		{"type T struct{}\nvar f = T.M", "M"},
	} {
		got := evalSeq(t, c.src)
		if !strings.Contains(got[0], c.want) || !strings.HasPrefix(got[0], "error:") {
			t.Errorf("%q: got %q, want an error with %q", c.src, got[0], c.want)
		}
	}
}

// TestTracebookGenericMethodKey: a generic function and a method of a generic
// type of the same name, instantiated with the same types, are two instances;
// a method expression G[A].m instantiates G[A]; a panic in a program with
// instantiated generic code (whose AST has cycles) does not overflow the
// stack looking for the panicking node.
func TestTracebookGenericMethodKey(t *testing.T) {
	checkMain(t, `package main

import "fmt"

func g0[T any](x T) T { return x }

type s[T any] struct{ a T }

func (x s[T]) g0() T { return x.a }

func (x s[T]) g1() T { return x.g0() }

func boom() (r interface{}) {
	defer func() { r = recover() }()
	var m map[string]int
	m["x"] = 1
	return nil
}

func main() {
	f := g0[int]
	fmt.Println(f(7), g0(8))
	x := s[int]{a: 9}
	fmt.Println(x.g0(), x.g1(), s[int].g0(x))
	h := s[string].g1
	fmt.Println(h(s[string]{"z"}))
	fmt.Println(boom())
}
`, `7 8
9 9 9
z
assignment to entry in nil map
`)

	// Before: fatal error: stack overflow (originalExecNode), the process ended.
	_, err := runMain(t, `package main
import (
	"fmt"
)
func main() {
	interfaceMethods()
	recursive()
}
func is7(x int) {
	if x != 7 {
		println(x)
		panic("assertion failed")
	}
}
func is77(x, y int) {
	if x != 7 || y != 7 {
		println(x, y)
		panic("assertion failed")
	}
}
type s[T any] struct {
	a T
}
func (x s[T]) g0() {
}
func (x s[T]) g1() T {
	return x.a
}
func (x s[T]) g2() (T, T) {
	return x.a, x.a
}
var x interface {
	g0()
	g1() int
	g2() (int, int)
} = s[int]{a: 7}
func interfaceMethods() {
	x.g0()
	is7(x.g1())
	is77(x.g2())
	var m map[string]int
	m["a"] = 1
}
func recursive() {
	if got, want := recur1[int](5), 110; got != want {
		panic(fmt.Sprintf("recur1[int](5) = %d, want = %d", got, want))
	}
}
type Integer interface {
	int | int32 | int64
}
func recur1[T Integer](n T) T {
	if n == 0 || n == 1 {
		return T(1)
	} else {
		return n * recur2(n-1)
	}
}
func recur2[T Integer](n T) T {
	list := make([]T, n)
	for i, _ := range list {
		list[i] = T(i + 1)
	}
	var sum T
	for _, elt := range list {
		sum += elt
	}
	return sum + recur1(n-1)
}
`)
	if err == nil || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Errorf("got %v, want the panic of the program", err)
	}
}

// TestTracebookPanicValue: recover() gives the value panicked (not its
// reflect.Value); a nil pointer's field and a nil func call panic with Go's
// runtime error; a panic in a deferred call replaces the one under way and
// the other deferred calls still run.
func TestTracebookPanicValue(t *testing.T) {
	checkMain(t, `package main

import (
	"errors"
	"fmt"
)

type E struct{ s string }

func try(f func()) (r interface{}) {
	defer func() { r = recover() }()
	f()
	return nil
}

func main() {
	r := try(func() { panic(5) })
	fmt.Println(r == 5, r)
	r = try(func() { panic("x") })
	s, ok := r.(string)
	fmt.Println(s, ok)
	r = try(func() { panic(errors.New("std")) })
	e, ok := r.(error)
	fmt.Println(e, ok)
	r = try(func() { panic(fmt.Sprintf("%d-%d", 1, 2)) })
	fmt.Printf("%q\n", r)
	r = try(func() { var p *E; _ = p.s })
	fmt.Println(r)
	r = try(func() { var f func(int) int; f(1) })
	fmt.Println(r)
	r = try(func() {
		defer func() { panic("second") }()
		panic("first")
	})
	fmt.Println(r)
	n := 0
	func() {
		defer func() { n += 10 * len(fmt.Sprint(recover())) }()
		defer func() { n++ }()
		defer func() { panic("again") }()
		panic("once")
	}()
	fmt.Println(n)
}
`, `true 5
x true
std true
"1-2"
runtime error: invalid memory address or nil pointer dereference
runtime error: invalid memory address or nil pointer dereference
second
51
`)
}

// TestTracebookGenericMethods: a method of a generic type calls another
// declared after it; a generic type's method with an unnamed receiver; a
// conversion to a type parameter (PT(&x)) in an instantiated body.
func TestTracebookGenericMethods(t *testing.T) {
	checkMain(t, `package main

import (
	"fmt"
	"strconv"
)

type Foo[T any] struct{ v T }

// f calls g, declared after it
func (l *Foo[T]) f() string { return "f:" + l.g() }

func (l *Foo[T]) g() string { return fmt.Sprint(l.v) }

type Fooer[T any] interface{ Foo(p T) }

type fooer1[T any] struct{}

func (fooer1[T]) Foo(T) {} // unnamed receiver

type fooer2[T any] struct{ n int }

func (mr *fooer2[T]) Foo(p T) { mr.n++ }

type Setter[B any] interface {
	Set(string)
	*B
}

func fromStrings[T any, PT Setter[T]](s []string) []T {
	result := make([]T, len(s))
	for i, v := range s {
		p := PT(&result[i]) // a conversion to the type parameter
		p.Set(v)
	}
	return result
}

type SettableInt int

func (p *SettableInt) Set(s string) {
	i, _ := strconv.Atoi(s)
	*p = SettableInt(i)
}

func main() {
	foo := &Foo[int]{7}
	fmt.Println(foo.f())
	f1 := fooer1[byte]{}
	f1.Foo(1)
	f2 := &fooer2[byte]{}
	f2.Foo(1)
	fmt.Println(f2.n)
	fmt.Println(fromStrings[SettableInt, *SettableInt]([]string{"1", "2"}))
}
`, `f:7
1
[1 2]
`)

	// A recursive generic type that cannot be instantiated in a value
	// position is a compile error, not a panic of the host.
	_, err := runMain(t, `package main

type Chan[T any] chan Chan[T]

func (ch Chan[T]) recv() Chan[T] { return <-ch }

func main() {
	ch := Chan[int](make(chan Chan[int]))
	_ = ch
}
`)
	if err == nil {
		t.Log("recursive generic channel type: compiled")
	} else if !strings.Contains(err.Error(), "Chan[int]") {
		t.Errorf("got %v, want an error naming Chan[int]", err)
	}
}

// TestTracebookDeferRecover: defer recover() runs when the function returns,
// stopping the panic the function was deferred for; called by a panic of the
// function itself it does nothing (GOROOT recover1.go).
func TestTracebookDeferRecover(t *testing.T) {
	checkMain(t, `package main

import "fmt"

func mustRecover(x interface{}) {
	if v := recover(); v != x {
		fmt.Println("wrong value", v, x)
	}
}

func deferredRecoverStops() (s string) {
	defer func() { s = fmt.Sprint("outer sees ", recover()) }()
	defer func() {
		defer recover() // runs at this func's return: stops the panic 5
	}()
	panic(5)
}

func deferredRecoverInPanic() (s string) {
	defer func() { s = fmt.Sprint("outer sees ", recover()) }()
	defer func() {
		defer mustRecover(3)
		defer recover() // called by the panic 3: does nothing
		panic(3)
	}()
	panic(2)
}

func main() {
	fmt.Println(deferredRecoverStops())
	fmt.Println(deferredRecoverInPanic())
}
`, `outer sees <nil>
outer sees 2
`)
}

// TestTracebookRuntimeErrors: a failed type assertion panics with a
// runtime.Error worded as Go's (GOROOT recover3.go); indexing a nil pointer
// to an array panics with the nil dereference runtime error, and its len is
// its type's.
func TestTracebookRuntimeErrors(t *testing.T) {
	checkMain(t, `package main

import (
	"fmt"
	"runtime"
)

type M interface{ M() }

func try(f func()) {
	defer func() {
		r := recover()
		_, isRT := r.(runtime.Error)
		fmt.Println(isRT, r)
	}()
	f()
}

func main() {
	var x interface{} = 1
	try(func() { fmt.Println(x.(string)) })
	try(func() { fmt.Println(x.(M)) })
	var y interface{}
	try(func() { fmt.Println(y.(int)) })
	var p *[10]int
	try(func() { fmt.Println(p[1]) })
	fmt.Println(len(p))
}
`, `true interface conversion: interface {} is int, not string
true interface conversion: int is not main.M: missing method M
true interface conversion: interface {} is nil, not int
true runtime error: invalid memory address or nil pointer dereference
10
`)
}
