package interp_test

import "testing"

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
