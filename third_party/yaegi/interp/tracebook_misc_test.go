package interp_test

import "testing"

// A nil pointer to an array: len and cap are the array's length, a range
// over its indices runs, a range over its elements panics (Go 1.26 output).
func TestTracebookNilArrayPointer(t *testing.T) {
	src := `package main

import "fmt"

func main() {
	var p *[10]int
	s := 0
	for i := range p {
		s += i
	}
	fmt.Println(s)
	for i := range len(p) {
		s += i
	}
	fmt.Println(s, len(p), cap(p))
	func() {
		defer func() { fmt.Println("recovered:", recover() != nil) }()
		for _, v := range p {
			s += v
		}
	}()
}
`
	want := "45\n90 10 10\nrecovered: true\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A shift count that is an untyped constant expression of float or complex
// type (x<<1., x<<(1<<x)) is an integer at run time (Go 1.26 output).
func TestTracebookShiftCount(t *testing.T) {
	src := `package main

import "fmt"

func main() {
	var x int = 1
	fmt.Println(x<<1, x<<1., x<<(1+0i), x<<(1<<x), x<<(1.<<x))
	var u uint = 3
	fmt.Println(x<<u, 1<<u)
	const M = ^uint(0)
	fmt.Println(x<<(M+0) == 0)
}
`
	want := "2 2 2 4 4\n8 8\ntrue\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Compiled code gets the dynamic value of an interface holding an
// interpreted value, never the interpreter's box: fmt printed a struct with
// methods in an any as {0xc000... {0xc000... 409}} (Go 1.26 output).
func TestTracebookBoxedValuesToCompiled(t *testing.T) {
	src := `package main

import (
	"encoding/json"
	"fmt"
)

type P struct{ X int }

func (p P) Double() int { return 2 * p.X }

type S int

func (s S) String() string { return fmt.Sprintf("S(%d)", int(s)) }

type I interface{ Double() int }

func main() {
	p := P{8}
	var w any = p
	fmt.Println(w)
	var w2 any = P{9}
	fmt.Println(w2)
	_, ok := w2.(I)
	fmt.Println(ok)
	fmt.Printf("%v %+v\n", w, w)
	xs := []any{p, P{1}, S(2)}
	fmt.Println(xs...)
	fmt.Println(xs)
	m := map[string]any{"a": p, "s": S(3)}
	fmt.Println(m)
	var s any = S(4)
	fmt.Println(s)
	b, _ := json.Marshal(w)
	fmt.Println(string(b))
}
`
	want := "{8}\n{9}\ntrue\n{8} {X:8}\n{8} {1} S(2)\n[{8} {1} S(2)]\nmap[a:{8} s:S(3)]\nS(4)\n{\"X\":8}\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A short variable declaration of several values, one a composite literal:
// the literal's direct store made the whole statement a no-op, leaving the
// other variables zero (Go 1.26 output).
func TestTracebookDefineWithCompositeLit(t *testing.T) {
	src := `package main

import "fmt"

func f() []int { return []int{1} }
func g() int   { return 7 }

type T struct{ A int }

func main() {
	a, b := f(), 2
	fmt.Println(a, b)
	a2, b2 := f(), g()
	fmt.Println(a2, b2)
	a3, b3 := f(), T{5}
	fmt.Println(a3, b3)
	a4, b4 := g(), []int{2}
	fmt.Println(a4, b4)
	a5, b5 := []int{3}, f()
	fmt.Println(a5, b5)
	var a6, b6 []int
	a6, b6 = f(), []int{2}
	fmt.Println(a6, b6)
}
`
	want := "[1] 2\n[1] 7\n[1] {5}\n7 [2]\n[3] [1]\n[1] [2]\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A loop that starts goroutines with a function literal: a goroutine that
// finished used to put the literal's frame slot back to its old value after
// the next iteration had stored its own closure there, so the loop called
// the previous closure (a wrong argument, silently) or a zero value (a nil
// dereference). 200 rounds of 100 goroutines started as the session
// rewrites a go statement: before the fix, most runs of the test had wrong
// rounds.
func TestTracebookGoLiteralInLoop(t *testing.T) {
	src := `package main

import (
	"fmt"
	"sync"
)

func round() int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for i := 1; i <= 100; i++ {
		wg.Add(1)
		// the session's rewrite of go func(n int) {...}(i)
		go func(f func()) {
			defer func() { recover() }()
			f()
		}(func() func() {
			a := i
			return func() {
				func(n int) {
					defer wg.Done()
					mu.Lock()
					total += n
					mu.Unlock()
				}(a)
			}
		}())
	}
	wg.Wait()
	return total
}

func main() {
	bad := 0
	for r := 0; r < 200; r++ {
		if round() != 5050 {
			bad++
		}
	}
	fmt.Println("wrong rounds:", bad)
}
`
	if got := evalMainProgram(t, src); got != "wrong rounds: 0\n" {
		t.Errorf("got %q", got)
	}
}

// A non-constant shift of an untyped constant takes the type of the other
// operand (val | 1<<uint(pos) is a uint64): its frame slot kept the
// untyped default int, a panic "SetUint on int Value" (Go 1.26 output).
func TestTracebookUntypedShiftOperand(t *testing.T) {
	src := `package main

import "fmt"

func main() {
	var val uint64 = 4
	pos := 3
	var u8 uint8 = 1
	var i32 int32 = -8
	fmt.Println(val|1<<uint(pos), val+1<<pos, 1<<pos|val, val&^(1<<pos))
	fmt.Println(u8|1<<uint(pos), i32>>1|1<<pos, i32+1<<pos)
	f := 2.0
	_ = f
	x := uint16(7)
	x = x ^ 1<<pos
	fmt.Println(x, val|1<<(pos+1))
	var arr [3]uint64
	arr[1] = arr[0] | 1<<uint(pos)
	fmt.Println(arr)
}
`
	want := "12 12 12 4\n9 -4 0\n15 20\n[0 8 0]\n"
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
