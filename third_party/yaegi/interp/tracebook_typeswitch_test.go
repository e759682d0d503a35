package interp_test

import (
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// runTypesProg runs a main program and returns its output; the wanted
// outputs below are those of the same program compiled by Go 1.26 (except
// where noted).
func runTypesProg(t *testing.T, src string) string {
	t.Helper()
	var out strings.Builder
	i := interp.New(interp.Options{Stdout: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(src); err != nil {
		return out.String() + "error: " + err.Error()
	}
	return out.String()
}

func checkTypesProg(t *testing.T, src, want string) {
	t.Helper()
	if got := runTypesProg(t, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

const typeSwitchProg = `package main

import (
	"errors"
	"fmt"
)

type MyErr struct{ msg string }

func (e *MyErr) Error() string { return e.msg }

type MyInt int

func (m MyInt) String() string { return fmt.Sprintf("MyInt(%d)", int(m)) }

func classify(err error) string {
	switch e := err.(type) {
	case nil:
		return "nil"
	case *MyErr:
		return "myerr " + e.msg
	case fmt.Stringer:
		return "stringer " + e.String()
	default:
		return "other " + e.Error()
	}
}

func kind(x any) string {
	switch v := x.(type) {
	case int, MyInt:
		return fmt.Sprint("int or MyInt ", v)
	case error:
		return "error " + v.Error()
	case nil:
		return "nil"
	}
	return "other"
}

func g[T any](x any) string {
	switch any(x).(type) {
	case T:
		return "T"
	case int:
		return "int"
	}
	return "other"
}

func main() {
	fmt.Println(classify(&MyErr{"boom"}))
	fmt.Println(classify(nil))
	fmt.Println(classify(errors.New("x")))
	fmt.Println(kind(errors.New("y")), "|", kind(&MyErr{"b"}), "|", kind(MyInt(1)), "|", kind(2), "|", kind(nil), "|", kind(2.5))
	var e error = &MyErr{"m"}
	if m, ok := e.(*MyErr); ok {
		fmt.Println("assert", m.msg)
	}
	_, ok := e.(fmt.Stringer)
	fmt.Println(ok)
	var a any = MyInt(3)
	s, ok := a.(fmt.Stringer)
	fmt.Println(s, ok)
	_, ok = a.(int)
	fmt.Println(ok)
	fmt.Println(g[int](1), g[string](1), g[float64](2.5), g[int32](int32(1)))
	var u, w any = MyInt(1), 1
	fmt.Println(u == w, u == MyInt(1), u == any(MyInt(1)))
	x := -5
	switch {
	case x > 1, x < -1:
		fmt.Println("out")
	default:
		fmt.Println("in")
	}
	switch a {
	case 3:
		fmt.Println("int 3")
	case MyInt(3):
		fmt.Println("MyInt 3")
	}
	defer func() { fmt.Println("recovered:", recover()) }()
	_ = a.(string)
}
`

func TestTracebookTypeSwitch(t *testing.T) {
	checkTypesProg(t, typeSwitchProg, `myerr boom
nil
other x
error y | error b | int or MyInt MyInt(1) | int or MyInt 2 | nil | other
assert m
false
MyInt(3) true
false
T int T T
false true true
out
MyInt 3
recovered: interface conversion: interface {} is main.MyInt, not string
`)
}

// Generic type switches and assertions: an interface case with a type
// parameter in a method signature (signatures compared), a value of a type
// with methods returned as any keeps them, an assertion impossible for one
// instance compiles, a case list repeating T's argument, and a named result
// starts at zero when the call assigns to an existing variable (got =
// stringify(...) appended to got's old value).
const genericTypeSwitchProg = `package main

import "fmt"

type myint int

func (x myint) foo() int { return int(x) }

type myfloat float64

func (x myfloat) foo() float64 { return float64(x) }

func f[T any](i interface{}) string {
	switch x := i.(type) {
	case interface{ foo() T }:
		return fmt.Sprint("fooer ", x.foo())
	default:
		return "other"
	}
}

type S struct{ x int }

func (t *S) M1() string { return "M1" }

func F[T any](x T) any { return x }

func never[B any](b B) string {
	if _, ok := any(b).(interface{ m1() }); ok {
		return "m1"
	}
	return "no m1"
}

func g[T any](x any) string {
	switch x.(type) {
	case T, int:
		return "T or int"
	}
	return "other"
}

type Stringer interface{ String() string }

func (x myint) String() string { return fmt.Sprint("#", int(x)) }

func stringify[T Stringer](s []T) (ret []string) {
	for _, v := range s {
		ret = append(ret, v.String())
	}
	return ret
}

func main() {
	fmt.Println(f[int](myint(6)), f[int](myfloat(7)), f[float64](myint(8)), f[float64](myfloat(9)))
	fmt.Println(F(&S{}).(interface{ M1() string }).M1())
	fmt.Println(never(S{}))
	fmt.Println(g[int](1), g[string](2), g[string]("s"), g[string](2.5))
	got := stringify([]myint{1, 2})
	got = stringify([]myint{3})
	fmt.Println(got)
}
`

func TestTracebookGenericTypeSwitch(t *testing.T) {
	checkTypesProg(t, genericTypeSwitchProg, `fooer 6 other other fooer 9
M1
no m1
T or int T or int T or int other
[#3]
`)
}

// A case of interface type in a tagless switch is true == case.
const taglessIfaceProg = `package main

import "fmt"

func main() {
	switch i := interface{}(true); {
	case i:
		fmt.Println("i is true")
	default:
		fmt.Println("default")
	}
	var j any = "x"
	switch {
	case j:
		fmt.Println("j")
	default:
		fmt.Println("j is not true")
	}
}
`

func TestTracebookTaglessInterfaceCase(t *testing.T) {
	checkTypesProg(t, taglessIfaceProg, "i is true\nj is not true\n")
}

// println(f()) of a call with several results prints each of them
// (typeparam/dottype.go: println(f2[int](i)) printed 3, not 3 true).
func TestTracebookPrintMultiValue(t *testing.T) {
	var stderr strings.Builder
	i := interp.New(interp.Options{Stdout: &strings.Builder{}, Stderr: &stderr})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	src := `package main

import "strconv"

func two() (int, string) { return 3, "x" }

func f2[T any](x interface{}) (T, bool) {
	t, ok := x.(T)
	return t, ok
}

func main() {
	println(strconv.Atoi("12"))
	print(two())
	println()
	println(f2[int](3))
	println(f2[int]("s"))
}
`
	if _, err := i.Eval(src); err != nil {
		t.Fatal(err)
	}
	// Go 1.26 prints this (the nil error is "(0x0,0x0)").
	want := "12 (0x0,0x0)\n3x\n3 true\n0 false\n"
	if got := stderr.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// "a, b := f(), T{}": the composite literal's shortcut skipped the whole
// definition, a stayed nil (typeparam/ifaceconv.go).
const defineCallAndLiteralProg = `package main

import "fmt"

func fs(x int) interface{} {
	y := []int{x}
	var i interface{} = y
	return i
}

func fs2(x int) interface{} {
	return []int{x}
}

func fr(x int) interface{} { return x }

func main() {
	a, b := fs2(7), []int{7}
	fmt.Println(a, b)
	c, d := fr(7), []int{7}
	fmt.Println(c, d)
	e, g := fs(7), [1]int{7}
	fmt.Println(e, g)
	h, k := fs(7), struct{}{}
	fmt.Println(h, k)
}
`

func TestTracebookDefineCallAndLiteral(t *testing.T) {
	checkTypesProg(t, defineCallAndLiteralProg, `[7] [7]
7 [7]
[7] [7]
[7] {}
`)
}
