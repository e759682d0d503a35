package interp_test

import (
	"testing"
	"time"
)

// Converting a slice shorter than the array to an array or a pointer to an
// array panics with Go's runtime.Error (Go 1.26 output).
func TestTracebookSliceToArrayShort(t *testing.T) {
	src := `package main

import "fmt"

func try(fn func()) {
	defer func() {
		r := recover()
		_, ok := r.(interface{ RuntimeError() })
		fmt.Println(r, ok)
	}()
	fn()
}

func main() {
	s := []int{1, 2, 3}
	a := [2]int(s)
	p := (*[3]int)(s)
	p[0] = 9
	fmt.Println(a, s)
	try(func() { _ = [4]int(s) })
	try(func() { _ = (*[5]int)(s[:1]) })
}
`
	want := "[1 2] [9 2 3]\n" +
		"runtime error: cannot convert slice with length 3 to array or pointer to array with length 4 true\n" +
		"runtime error: cannot convert slice with length 1 to array or pointer to array with length 5 true\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Package constants named like predeclared types (int, string, bool, as in
// GOROOT test/rename.go) do not hide those types from the compiler, which
// looked "int" up by name for ranges and untyped constants (Go 1.26 output).
func TestTracebookPredeclaredTypeNamesShadowed(t *testing.T) {
	src := `package main

import "fmt"

const (
	int    = 1
	string = 2
	bool   = 3
)

func main() {
	n := int + string + bool
	s := []float64{1.5, 2.5}
	for i, v := range s {
		fmt.Println(i, v, n)
	}
	for i := range 2 {
		fmt.Println(i)
	}
	x := 7
	fmt.Printf("%T %v %v\n", x, len(s)+n, 1<<3 == 8)
}
`
	want := "0 1.5 6\n1 2.5 6\n0\n1\nint 8 true\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A generic function instantiated before the functions it calls are
// compiled (declared after it) runs them when deferred; a closure held in
// a variable can be deferred (it deadlocked on its frame's lock). Expected
// output from Go 1.26.
func TestTracebookDeferLaterAndClosureVar(t *testing.T) {
	src := `package main

import (
	"fmt"
	"sort"
)

func F[P any](p P) {
	defer done()
	g := later
	g(2)
	s := []int{3, 1, 2}
	sort.Slice(s, less(s))
	fmt.Println("F", p, s)
	fn := func() { later(3) }
	defer fn()
}

type I interface{ M() }

func H[P I](p P) { defer catch(); p.M() }

func main() {
	F(1)
	H[I](nil)
	fmt.Println("ok")
}

func done() { fmt.Println("done") }

func later(x int) { fmt.Println("later", x) }

func less(s []int) func(i, j int) bool { return func(i, j int) bool { return s[i] < s[j] } }

func catch() {
	err := recover()
	_, ok := err.(error)
	fmt.Println("caught", ok, err)
}
`
	want := "later 2\nF 1 [1 2 3]\nlater 3\ndone\n" +
		"caught true runtime error: invalid memory address or nil pointer dereference\nok\n"
	done := make(chan string, 1)
	go func() { done <- evalMainProgram(t, src) }()
	select {
	case got := <-done:
		if got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("deadlock: the program did not finish")
	}
}

// A function declaration or a generic function instance returned as a func
// value (return plain, return show[T]) is wrapped for the result (it was
// a *interp.node: "reflect.Set: value of type *interp.node is not
// assignable"). GOROOT test/typeparam/issue58513.go. Go 1.26 output.
func TestTracebookReturnFuncDecl(t *testing.T) {
	src := `package main

import "fmt"

func plain() { fmt.Println("plain") }

func show[T any]() { var z T; fmt.Printf("%T\n", z) }

func get() func() { return plain }

func get2[T any]() func() { return show[T] }

func none() func() { return nil }

func closure(n int) func() int { return func() int { return n * 2 } }

type box struct{ n int }

func (b box) M() { fmt.Println("M", b.n) }

func method() func() { return box{5}.M }

func main() {
	get()()
	get2[int]()()
	get2[string]()()
	fmt.Println(none() == nil, closure(4)())
	method()()
}
`
	want := "plain\nint\nstring\ntrue 8\nM 5\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A method promoted from an interface embedded after another field, or in
// an embedded struct, is called on the interface's value (it failed with
// "invalid interface value"). GOROOT test/typeparam/issue44688.go. Go 1.26
// output.
func TestTracebookPromotedInterfaceMethod(t *testing.T) {
	src := `package main

import "fmt"

type Setter interface{ Set(int) }

type Inner struct {
	n int
	Setter
}

type Outer struct {
	a, b int
	Inner
}

type Imp struct{ f int }

func (a *Imp) Set(s int) { a.f = s }

func main() {
	im := &Imp{}
	var in Inner
	in.Setter = im
	in.Set(1)
	fmt.Println(im.f)
	var o Outer
	o.Inner.Setter = im
	o.Set(2)
	fmt.Println(im.f)
	p := &o
	p.Set(3)
	fmt.Println(im.f)
	func() {
		defer func() { fmt.Println("recovered:", recover() != nil) }()
		var z Outer
		z.Set(4)
	}()
}
`
	want := "1\n2\n3\nrecovered: true\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
