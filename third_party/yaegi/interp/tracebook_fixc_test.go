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
