package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// runAssignMain evaluates the program src (package main) and returns its output.
func runAssignMain(t *testing.T, src string) string {
	t.Helper()
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(src); err != nil {
		t.Fatalf("%v\noutput: %s", err, out.String())
	}
	return out.String()
}

// The expected outputs are those of the same programs compiled by Go 1.26.
var assignPrograms = []struct{ name, src, want string }{
	{"receive into every destination", `package main

import "fmt"

type S struct{ f, g int }

func ret(c chan int) int { return <-c }

func main() {
	c := make(chan int, 10)
	xs := []int{0, 0}
	c <- 1
	xs[0] = <-c
	fmt.Println("xs", xs)
	var s S
	c <- 2
	s.f = <-c
	fmt.Println("s", s)
	p := new(int)
	c <- 3
	*p = <-c
	fmt.Println("p", *p)
	m := map[string]int{}
	c <- 4
	m["a"] = <-c
	fmt.Println("m", m)
	x := 10
	c <- 5
	x += <-c
	fmt.Println("x", x)
	c <- 6
	fmt.Println("ret", ret(c))
	c <- 7
	fn := func() int { return <-c }
	fmt.Println("clo", fn())
	var v int
	var ok bool
	c <- 8
	v, ok = <-c
	fmt.Println("vok", v, ok)
	c <- 9
	xs[1], ok = <-c
	fmt.Println("xsok", xs, ok)
	c <- 10
	fmt.Println("call", fmt.Sprint(<-c))
	c <- 11
	c <- 12
	fmt.Println("lit", []int{<-c, <-c})
	c <- 13
	select {
	case xs[1] = <-c:
	}
	fmt.Println("sel", xs)
	c <- 14
	select {
	case v, ok = <-c:
	}
	fmt.Println("selok", v, ok)
}
`, `xs [1 0]
s {2 0}
p 3
m map[a:4]
x 15
ret 6
clo 7
vok 8 true
xsok [1 9] true
call 10
lit [11 12]
sel [1 13]
selok 14 true
`},
	{"received value assigned to variables of other types", `package main

import "fmt"

func main() {
	c := make(chan int, 10)
	var v int
	c <- 1
	v = <-c
	v++
	p := &v
	*p += 10
	v = 7
	fmt.Println(v)
	var i interface{}
	c <- 2
	i = <-c
	fmt.Println(i)
	i = "s"
	fmt.Println(i)
	var e error
	ce := make(chan error, 1)
	ce <- fmt.Errorf("boom")
	e = <-ce
	fmt.Println(e)
	w := <-c2()
	w = 5
	fmt.Println(w)
}

func c2() chan int { c := make(chan int, 1); c <- 3; return c }
`, `7
2
s
boom
5
`},
	{"select cases assigning a receive", `package main

import "fmt"

func getc(c chan int) chan int { fmt.Println("getc"); return c }

func main() {
	c := make(chan int, 10)
	x := 0
	c <- 1
	select {
	case x = <-c:
		fmt.Println("in", x)
	}
	fmt.Println("x", x)
	c <- 2
	select {
	case y := <-c:
		fmt.Println("y", y)
	}
	xs := []int{0, 0}
	i := 1
	c <- 3
	select {
	case xs[i] = <-c:
	}
	fmt.Println("xs", xs)
	var ok bool
	c <- 4
	select {
	case x, ok = <-getc(c):
	}
	fmt.Println("xok", x, ok)
	close(c)
	select {
	case xs[0], ok = <-c:
	}
	fmt.Println("xok2", xs, ok)
	d := make(chan int, 1)
	d <- 5
	select {
	case z, ok2 := <-d:
		fmt.Println("z", z, ok2)
	}
}
`, `in 1
x 1
y 2
xs [0 3]
getc
xok 4 true
xok2 [0 3] false
z 5 true
`},
	{"tuple assignments", `package main

import "fmt"

type S struct{ a, b int }

var calls []string

func f(x int) int { calls = append(calls, fmt.Sprint("f", x)); return x * 10 }
func g() (int, int) { return 7, 8 }
func idx(i int) int { calls = append(calls, fmt.Sprint("i", i)); return i }

func main() {
	x, y := 1, 2
	x, y = 5, f(1)
	fmt.Println(x, y)
	x, y = y, x
	fmt.Println(x, y)
	a := []int{1, 2, 3}
	i, j := 0, 2
	a[i], a[j] = a[j], a[i]
	fmt.Println(a)
	var s S
	s.a, s.b = g()
	fmt.Println(s)
	m := map[string]int{"k": 3}
	var v int
	var ok bool
	v, ok = m["k"]
	fmt.Println(v, ok)
	a[0], ok = m["z"]
	fmt.Println(a, ok)
	_, y = 9, 10
	x, _ = 11, 12
	fmt.Println(x, y)
	_, _ = g()
	_ = f(3)
	a[idx(0)], a[idx(1)] = f(4), f(5)
	fmt.Println(a, calls)
	p := &s
	p.a, p.b = p.b, p.a
	fmt.Println(s)
	var e interface{}
	e, x = "str", 3
	fmt.Println(e, x)
	i, a[i] = 1, 9
	fmt.Println(i, a)
	m["a"], m["b"] = 1, 2
	fmt.Println(m)
}
`, `5 10
10 5
[3 2 1]
{7 8}
3 true
[0 2 1] false
11 10
[40 50 1] [f1 f3 i0 i1 f4 f5]
{8 7}
str 3
1 [9 50 1]
map[a:1 b:2 k:3]
`},
	{"two-value assignments into every destination", `package main

import "fmt"

type S struct{ a int; ok bool }

func main() {
	m := map[string]int{"k": 3}
	a := []int{5, 6}
	var ok bool
	a[0], ok = m["z"]
	fmt.Println(a, ok)
	v := 4
	v, ok = m["z"]
	fmt.Println(v, ok)
	var s S
	s.a, s.ok = m["k"]
	fmt.Println(s)
	m2 := map[string]int{}
	m2["x"], ok = m["k"]
	fmt.Println(m2, ok)
	var e interface{} = 1.5
	e, ok = m["k"]
	fmt.Println(e, ok)
	var i interface{} = "str"
	n := 9
	n, ok = i.(int)
	fmt.Println(n, ok)
	a[1], ok = i.(int)
	fmt.Println(a, ok)
	c := make(chan int, 1)
	close(c)
	a[1] = 7
	a[1], ok = <-c
	fmt.Println(a, ok)
	m2["y"], s.ok = <-c
	fmt.Println(m2, s)
	_, ok = m["k"]
	fmt.Println(ok)
	v, _ = m["k"]
	fmt.Println(v)
}
`, `[0 6] false
0 false
{3 true}
map[x:3] true
3 true
0 false
[0 0] false
[0 0] false
map[x:3 y:0] {3 false}
true
3
`},
	{"range assigning existing operands", `package main

import "fmt"

type S struct{ f int }
type P struct{ g string }

func main() {
	s := []string{"a", "b", "c"}
	var i int
	var x string
	for i = range s {
	}
	fmt.Println(i)
	for i, x = range s {
	}
	fmt.Println(i, x)
	m := map[string]int{"k": 7}
	var k string
	var v int
	for k, v = range m {
	}
	fmt.Println(k, v)
	arr := [3]int{4, 5, 6}
	for i, v = range arr {
	}
	fmt.Println(i, v)
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	close(ch)
	for v = range ch {
	}
	fmt.Println(v)
	for i = range 10 {
	}
	fmt.Println(i)
	a := []int{0, 0}
	for a[0] = range s {
	}
	fmt.Println(a)
	var st S
	var p P
	mp := map[int]string{3: "z"}
	for st.f, p.g = range mp {
	}
	fmt.Println(st, p)
	for _, v = range []int{8, 9} {
	}
	fmt.Println(v)
	for k, _ = range m {
	}
	fmt.Println(k)
	for range s {
	}
	for i, _ = range "héllo" {
	}
	fmt.Println(i)
	var r rune
	for _, r = range "hé" {
	}
	fmt.Println(r)
	cnt := 0
	for i = range s {
		cnt += i
	}
	fmt.Println(cnt, i)
}
`, `2
2 c
k 7
2 6
2
9
[2 0]
{3} {z}
9
k
5
233
3 2
`},
	{"select with a default case in a function with results", `package main

import "fmt"

type E[V any] struct{ c chan V }

func (e *E[V]) Try() (v V, ok bool) {
	select {
	case r := <-e.c:
		return r, true
	default:
		return v, false
	}
}

func try2(c chan int) (v int, ok bool) {
	select {
	case r := <-c:
		return r, true
	default:
		return v, false
	}
}

func main() {
	c := make(chan int, 1)
	c <- 3
	fmt.Println(try2(c))
	fmt.Println(try2(c))
	e := &E[int]{c: make(chan int, 1)}
	e.c <- 4
	fmt.Println(e.Try())
	fmt.Println(e.Try())
}
`, `3 true
0 false
4 true
0 false
`},
	{"upstream ports: redeclared result, untyped shift operands", `package main

import (
	"errors"
	"fmt"
)

func redeclared() (n int, err error) {
	k, err := 2, errors.New("failed")
	n = k * 3
	return
}

func shift(b uint) uint {
	return uint(3) + (0x10 >> b)
}

func main() {
	n, err := redeclared()
	fmt.Println(n, err)
	fmt.Println(shift(2))
	const big = 1 << 40
	var u uint8 = 1
	fmt.Println(u + (big >> 40))
}
`, `6 failed
7
2
`},
	{"a short redeclaration of a function literal result", `package main

import (
	"errors"
	"fmt"
)

var g func() (n int, err error)

func main() {
	f := func() (n int, err error) {
		k, err := 2, errors.New("failed")
		n = k * 3
		return
	}
	fmt.Println(f())
	a, b := f()
	fmt.Println(a, b)
	g = f
	fmt.Println(g())
	h := func() (err error) {
		j, err := 1, errors.New("h")
		_ = j
		return
	}
	fmt.Println(h())
}
`, `6 failed
6 failed
6 failed
h
`},
	{"new of an expression (Go 1.26)", `package main

import "fmt"

type P struct{ X, Y int }

func main() {
	p := new(123)
	x := 42
	q := new(x)
	x = 1
	r := new([2]int{1, 2})
	var i int
	v := new(i > 0)
	s := new("str")
	f := new(1.5)
	c := new('a')
	pp := new(P{1, 2})
	fmt.Println(*p, *q, *r, *v, *s, *f, *c, *pp)
	fmt.Printf("%T %T %T %T\n", p, v, f, c)
	var e interface{} = 3
	pe := new(e)
	fmt.Println(*pe)
}
`, `123 42 [1 2] false str 1.5 97 {1 2}
*int *bool *float64 *int32
3
`},
	{"address of an element of a slice or of an array through a pointer", `package main

import "fmt"

func mk() []int { return []int{1, 2, 3} }

func main() {
	s := make([]byte, 8)
	p := (*[8]byte)(s)
	fmt.Println(&p[0] == &s[0])
	q := &mk()[1]
	*q = 9
	fmt.Println(*q)
	arr := [3]int{1, 2, 3}
	pa := &arr
	e := &pa[2]
	*e = 7
	fmt.Println(arr)
}
`, `true
9
[1 2 7]
`},
	{"spec examples of assignment order, range over int and func into existing operands", `package main

import "fmt"

func main() {
	x := []int{1, 2, 3}
	i := 0
	i, x[i] = 1, 2
	fmt.Println(i, x)
	i = 0
	x[i], i = 2, 1
	fmt.Println(i, x)
	x[0], x[0] = 1, 2
	fmt.Println(x)
	i = 2
	x = []int{3, 5, 7}
	for i, x[i] = range x {
		break
	}
	fmt.Println(i, x)
	var i64 int64
	for i64 = range 3 {
	}
	fmt.Println(i64)
	seq := func(yield func(int, string) bool) {
		_ = yield(1, "a") && yield(2, "b")
	}
	var k int
	var v string
	for k, v = range seq {
	}
	fmt.Println(k, v)
outer:
	for k = range 5 {
		for v = range map[string]int{"z": 1} {
			if k == 2 {
				continue outer
			}
		}
	}
	fmt.Println(k, v)
}
`, `1 [2 2 3]
1 [2 2 3]
[2 2 3]
0 [3 5 3]
2
2 b
4 z
`},
	{"compound receives, map entries from calls, swaps of interfaces", `package main

import (
	"fmt"
	"strconv"
)

type S struct {
	n int
	m map[string]int
}

func two() (int, string) { return 4, "four" }
func add(a, b int) int    { return a + b }

type Stringer interface{ String() string }
type T int

func (t T) String() string { return "T" + strconv.Itoa(int(t)) }

func main() {
	c := make(chan int, 10)
	m := map[string]int{"a": 1}
	c <- 5
	m["a"] += <-c
	s := S{m: map[string]int{}}
	c <- 6
	s.n -= <-c
	c <- 7
	s.m["q"] = <-c
	fmt.Println(m, s.n, s.m)
	var n int
	var str string
	mm := map[string]string{}
	mi := map[string]int{}
	mi["x"], mm["y"] = two()
	n, str = two()
	fmt.Println(mi, mm, n, str)
	var err error
	mi["z"], err = strconv.Atoi("12")
	fmt.Println(mi["z"], err)
	n, err = strconv.Atoi("zz")
	fmt.Println(n, err)
	c <- 1
	c <- 2
	fmt.Println(add(<-c, <-c))
	c <- 3
	type P struct{ A, B int }
	c <- 4
	fmt.Println(P{A: <-c, B: <-c}, map[string]int{"k": func() int { c <- 8; return <-c }()})
	var a, b Stringer = T(1), T(2)
	a, b = b, a
	fmt.Println(a.String(), b.String())
	sa, sb := S{n: 1}, S{n: 2}
	sa, sb = sb, sa
	fmt.Println(sa.n, sb.n)
	var e1, e2 interface{} = 1, "x"
	e1, e2 = e2, e1
	fmt.Println(e1, e2)
	arr := [3]int{1, 2, 3}
	arr[0], arr[2] = arr[2], arr[0]
	fmt.Println(arr)
	fs := []func() int{nil, nil}
	fs[0], fs[1] = func() int { return 1 }, func() int { return 2 }
	fmt.Println(fs[0](), fs[1]())
	var st Stringer
	var ok bool
	var anyv interface{} = T(5)
	st, ok = anyv.(Stringer)
	fmt.Println(st.String(), ok)
	st, ok = interface{}(3).(Stringer)
	fmt.Println(st == nil, ok)
}
`, `map[a:6] -6 map[q:7]
map[x:4] map[y:four] 4 four
12 <nil>
0 strconv.Atoi: parsing "zz": invalid syntax
3
{3 4} map[k:8]
T2 T1
2 1
x 1
[3 2 1]
1 2
T5 true
true false
`},
	{"comma-ok assertion to an interpreted interface", `package main

import (
	"fmt"
	"strconv"
)

type Stringer interface{ String() string }
type T int

func (t T) String() string { return "T" + strconv.Itoa(int(t)) }

func main() {
	var st Stringer
	var ok bool
	var anyv interface{} = T(5)
	st, ok = anyv.(Stringer)
	fmt.Println(st.String(), ok)
	st, ok = interface{}(3).(Stringer)
	fmt.Println(st == nil, ok)
	var e error
	e, ok = interface{}(fmt.Errorf("x")).(error)
	fmt.Println(e, ok)
	var fs fmt.Stringer
	fs, ok = anyv.(fmt.Stringer)
	fmt.Println(fs.String(), ok)
	var n int
	n, ok = interface{}(7).(int)
	fmt.Println(n, ok)
	var t T
	t, ok = anyv.(T)
	fmt.Println(int(t), ok)
}
`, `T5 true
true false
x true
T5 true
7 true
5 true
`},
	{"range over an untyped rune constant, assignment to a compiled package variable", `package main

import (
	"fmt"
	"runtime"
)

func main() {
	for i := range 'c' {
		var r *rune = &i
		_ = r
	}
	var n int
	for i := range 'b' {
		n += int(i)
	}
	fmt.Printf("%d\n", n)
	for i := range int8(2) {
		fmt.Printf("%T ", i)
	}
	for i := range 2 {
		fmt.Printf("%T\n", i)
	}
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 4096
	fmt.Println(runtime.MemProfileRate)
	runtime.MemProfileRate = old
}
`, `4753
int8 int8 int
int
4096
`},
	{"a recursive generic function with an untyped operand", `package main

import "fmt"

func fact[T interface{ ~int | ~int64 | ~float64 }](n T) T {
	if n == 1 {
		return 1
	}
	return n * fact(n-1)
}

func main() {
	fmt.Println(fact(5), fact[int64](6), fact(4.0))
}
`, `120 720 24
`},
	{"nil pointer indirections panic with the runtime error", `package main

import "fmt"

type P struct{ x int }

func try(f func()) {
	defer func() { fmt.Println(recover()) }()
	f()
}

func main() {
	var p *int
	var q *P
	try(func() { _ = *p })
	try(func() { *p = 1 })
	try(func() { fmt.Println(q.x) })
	try(func() { q.x = 2 })
	try(func() { q.x++ })
	try(func() {
		var e error
		defer func() { e, _ = recover().(error); fmt.Println(e != nil) }()
		_ = q.x
	})
}
`, `runtime error: invalid memory address or nil pointer dereference
runtime error: invalid memory address or nil pointer dereference
runtime error: invalid memory address or nil pointer dereference
runtime error: invalid memory address or nil pointer dereference
runtime error: invalid memory address or nil pointer dereference
true
<nil>
`},
	{"a tuple assignment panics when it assigns the faulty operand", `package main

import "fmt"

type Point struct{ x, y int }

func main() {
	x := []int{1, 2, 3}
	func() {
		defer func() { fmt.Println(recover(), x) }()
		x[1], x[3] = 4, 5
	}()
	var p *Point
	func() {
		defer func() { fmt.Println(recover(), x) }()
		x[2], p.x = 6, 7
	}()
}
`, `runtime error: index out of range [3] with length 3 [1 4 3]
runtime error: invalid memory address or nil pointer dereference [1 4 6]
`},
}

func TestTracebookAssignForms(t *testing.T) {
	for _, p := range assignPrograms {
		t.Run(p.name, func(t *testing.T) {
			if got := runAssignMain(t, p.src); got != p.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, p.want)
			}
		})
	}
}

func TestTracebookAssignMismatch(t *testing.T) {
	i := interp.New(interp.Options{})
	_, err := i.Eval("package main\nfunc main() {\n\tvar a, b, c int\n\ta, b, c = 1, 2\n\t_, _, _ = a, b, c\n}\n")
	if err == nil || !strings.Contains(err.Error(), "assignment mismatch: 3 variables but 2 values") {
		t.Errorf("got %v, want an assignment mismatch error", err)
	}
}

func TestTracebookAssignConstant(t *testing.T) {
	for src, want := range map[string]string{
		"package main\nconst K = 3\nfunc main() {\n\tK = 4\n}\n":           "cannot assign to K (neither addressable nor a map index expression)",
		"package main\nimport \"math\"\nfunc main() {\n\tmath.Pi = 3\n}\n": "cannot assign to math.Pi (neither addressable nor a map index expression)",
	} {
		i := interp.New(interp.Options{})
		if err := i.Use(stdlib.Symbols); err != nil {
			t.Fatal(err)
		}
		_, err := i.Eval(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", src, err, want)
		}
	}
}
