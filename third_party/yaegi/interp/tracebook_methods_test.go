package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// runMain evaluates the program src (package main, with func main) and
// returns what it printed, and the error of the evaluation.
func runMain(t *testing.T, src string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
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
