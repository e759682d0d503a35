package interp_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// evalFixB evaluates src and returns its output and the error of Eval.
func evalFixB(t *testing.T, src string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(src)
	return out.String(), err
}

// Untyped constant arithmetic is exact: comparisons of big untyped
// constants are folded exactly (1<<100 > 1<<100-1 failed with "constant
// ... overflows int64"), a typed constant is a value of its type (rounded:
// const fh1 float64 = 1<<100 - 1 equals 1<<100), and conversions of a
// constant to a float type do not go through int64. Expected output from
// the same program compiled with Go 1.26.
func TestTracebookExactConstants(t *testing.T) {
	src := `package main

import "fmt"

const (
	huge   = 1 << 100
	huge1  = huge - 1
	one    = huge >> 100
	rsh    = 1e302 >> 1000
	fh     float64 = 1 << 100
	fh1    float64 = huge - 1
	f32    float32 = 0.1
	third          = 1.0 / 3
	big            = 1e300 * 1e300 / 1e300
)

func main() {
	fmt.Println(huge > huge1, huge1+1 == huge, huge == huge1, one, rsh)
	fmt.Println(fh == fh1, fh1+1 == fh, fh-huge, f32 == 0.1, float64(f32) == 0.1)
	fmt.Println(third*3 == 1, big == 1e300, huge/huge1, huge%1000)
	var f float64 = huge
	var g float32 = huge1
	fmt.Println(f, g, f == huge, float64(huge1), uint64(huge>>36-1))
	fmt.Println(huge>>98, -huge>>98, ^(huge - 1) >> 99, int8(-128), uint8(255))
	const a float64 = 0.1
	fmt.Println(a*3 == 0.3, 0.1*3 == 0.3, a*3)
}
`
	want := `true true false 1 9
true true 0 true false
true true 1 376
1.2676506002282294e+30 1.2676506e+30 true 1.2676506002282294e+30 18446744073709551615
4 -4 -2 -128 255
false true 0.30000000000000004
`
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// An operation on typed integer constants whose exact result is not a value
// of the type is a compile error, as in Go ("x * 2 (constant 200 of type
// int8) overflows int8"); it wrapped around to -56.
func TestTracebookTypedConstOverflow(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"x * 2", "constant 200 overflows int8"},
		{"x + x", "constant 200 overflows int8"},
		{"-x - x - x", "constant -200 overflows int8"},
		{"x << 1", "constant 200 overflows int8"},
	} {
		src := "package main\n\nconst x int8 = 100\n\nfunc main() {\n\ty := " + c.expr + "\n\tprintln(y)\n}\n"
		out, err := evalFixB(t, src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v (output %q), want %q", c.expr, err, out, c.want)
		}
	}
}

// Conversions of untyped constants in constant declarations with iota:
// string(iota + 'a') repeated for the next specs failed with "constant
// definition loop" (the conversion had given its operand the type string),
// float64(1<<100) was 0 (converted through int64). Expected output from the
// same program compiled with Go 1.26.
func TestTracebookIotaConversions(t *testing.T) {
	src := `package main

import "fmt"

const (
	s = string(iota + 'a')
	t
	u
)

const (
	p = float32(iota) / 3
	q
	r
)

const (
	b0 = 1.5 * iota
	b1
	b2
)

const (
	c0 = float64(1<<100) + iota
	c1
)

const (
	k0 = uint8(255 - iota)
	k1
)

type Weekday int

const (
	Sunday Weekday = iota
	Monday
)

const bigShift = 1 << 100 >> 98

func main() {
	fmt.Println(s, t, u, p, q, r)
	fmt.Println(b0, b1, b2, c0, c1, c1 == c0, k0, k1)
	fmt.Println(Sunday, Monday, bigShift, float32(1<<100), float64(1.5), int64(-1<<63))
	fmt.Printf("%T %T %T %T\n", s, p, b1, k1)
}
`
	want := `a b c 0 0.33333334 0.6666667
0 1.5 3 1.2676506002282294e+30 1.2676506002282294e+30 true 255 254
0 1 4 1.2676506e+30 1.5 -9223372036854775808
string float32 float64 uint8
`
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// len and cap of an expression of array type (or pointer to array) without
// function calls or receives are constants and the operand is not evaluated
// (len(s[10]) of an empty s panicked with index out of range; len(*p) of a
// nil p is 8); len(f()) calls f. Expected output from the same program
// compiled with Go 1.26.
func TestTracebookConstArrayLen(t *testing.T) {
	src := `package main

import "fmt"

var b struct{ a [10]int }
var m map[string][20]int
var s [][30]int
var p *[8]int

const (
	n1 = len(b.a)
	n2 = len(m[""])
	n3 = cap(s[10])
)

var calls int

func f() *[40]int { calls++; return nil }

func main() {
	i := 10
	x := len(s[i])
	y := cap(m["k"])
	z := len(p)
	w := len(*p)
	v := len(f())
	u := len([]int{1, 2, 3, 4}[:2][0:1])
	var arr [5][7]int
	fmt.Println(n1, n2, n3, x, y, z, w, v, u, len(arr[i]), calls)
	func() {
		defer func() { fmt.Println("recovered:", recover() != nil) }()
		fmt.Println(len(f()[1:]))
	}()
	fmt.Println(calls)
}
`
	want := `10 20 30 30 20 8 8 40 1 7 1
recovered: true
2
`
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// len(f()) is not a constant: Go rejects it in a constant declaration
// ("len(f()) (value of type int) is not constant"); it was 40.
func TestTracebookConstLenNotConstant(t *testing.T) {
	src := "package main\n\nfunc f() *[40]int { return nil }\n\nconst n = len(f())\n\nfunc main() { println(n) }\n"
	out, err := evalFixB(t, src)
	if err == nil || !strings.Contains(err.Error(), "is not constant") {
		t.Errorf("got error %v (output %q), want a \"not constant\" error", err, out)
	}
}

// real, imag and complex of untyped constants are exact untyped constants
// (real(c) of const c = 1 + 2i panicked in the compiler: "call of
// reflect.Value.Complex on interface Value"); of typed operands they have
// the float type of the operand. Expected output from Go 1.26.
func TestTracebookComplexConstParts(t *testing.T) {
	src := `package main

import "fmt"

const c = 1 + 2i
const r = real(c)
const big = complex(1<<70, 0.5)

var c64 complex64 = 3 + 4i

func main() {
	fmt.Println(real(c), imag(c), r, real(big) == 1<<70, imag(big))
	fmt.Printf("%T %T %T\n", real(c64), imag(c64), real(c))
	x := 2.5
	fmt.Println(real(c64), imag(c64), complex(x, 1), real(complex(x, 1)))
	const c32 complex64 = 1.5 + 2.5i
	fmt.Println(real(c32), imag(c32))
	fmt.Printf("%T %v\n", real(c32), complex(1, 2))
}
`
	want := `1 2 1 true 0.5
float32 float32 float64
3 4 (2.5+1i) 2.5
1.5 2.5
float32 (1+2i)
`
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A constant converted or assigned to a signed integer type must be in the
// type's range: int8(200) and var i8 int8 = 128 wrapped around to -56 and
// -128 (the check compared the bit length of the absolute value). Go 1.26
// rejects both programs.
func TestTracebookSignedConstRange(t *testing.T) {
	for _, stmt := range []string{
		"x := int8(200)",
		"var x int8 = 128",
		"x := int16(1 << 15)",
		"var x int32 = 1 << 31",
		"x := int8(-129)",
	} {
		src := "package main\n\nfunc main() {\n\t" + stmt + "\n\tprintln(x)\n}\n"
		out, err := evalFixB(t, src)
		if err == nil {
			t.Errorf("%s: no error, output %q", stmt, out)
		}
	}
	src := "package main\n\nfunc main() {\n\tvar a, b, c = int8(-128), int8(127), uint8(255)\n\tprintln(a, b, c, int16(-1<<15))\n}\n"
	if got := evalMainProgram(t, src); got != "-128 127 255 -32768\n" {
		t.Errorf("got %q, want %q", got, "-128 127 255 -32768\n")
	}
}

// Typed constants with iota and shifts: Effective Go's ByteSize (a float
// type: KB ByteSize = 1 << (10 * iota) failed with "shift count type
// main.ByteSize, must be integer", the count took the type of the shift)
// and ^F of a typed unsigned constant (it was -2, "overflows uint8").
// Expected output from the same program compiled with Go 1.26.
func TestTracebookTypedIotaShifts(t *testing.T) {
	src := `package main

import "fmt"

type ByteSize float64

const (
	_           = iota
	KB ByteSize = 1 << (10 * iota)
	MB
	GB
	TB
	PB
	EB
	ZB
	YB
)

type Flags uint8

const (
	F0 Flags = 1 << iota
	F1
	F2
	F7 = F0 << 7
)

const mask = ^uint32(0) >> 4

func main() {
	fmt.Println(KB, MB, GB, YB, YB/ZB)
	fmt.Println(F0, F1, F2, F7, F0|F2, mask, ^F0)
	var a [len("héllo") * 2]int
	var b [int(KB / 256)]int
	fmt.Println(len(a), len(b))
	switch x := 5; x {
	case 1 << 2, 5:
		fmt.Println("ok")
	}
	const h = 0x7fffffffffffffff
	fmt.Println(h+1 > h, uint64(h+1), -h-1)
}
`
	want := `1024 1.048576e+06 1.073741824e+09 1.2089258196146292e+24 1024
1 2 4 128 5 268435455 254
12 4
ok
true 9223372036854775808 -9223372036854775808
`
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The same constant forms declared inside a function (compiled by the CFG
// pass rather than the global one). Expected output from Go 1.26.
func TestTracebookLocalConstants(t *testing.T) {
	src := `package main

import "fmt"

func main() {
	const (
		huge          = 1 << 100
		huge1         = huge - 1
		fh    float64 = 1 << 100
		fh1   float64 = huge - 1
		s             = string(iota + 'a')
		t
	)
	type BS float64
	const (
		_      = iota
		KB  BS = 1 << (10 * iota)
		MB
	)
	var arr [3][5]int
	var sl [][7]int
	const n = len(arr[2])
	fmt.Println(huge > huge1, fh == fh1, fh1-huge, s, t, KB, MB, n, cap(sl[3]))
	const r = real(2 + 3i)
	fmt.Println(r, huge>>98, float32(huge1))
}
`
	want := `true true 0 e f 1024 1.048576e+06 5 7
2 4 1.2676506e+30
`
	if got := evalMainProgram(t, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
