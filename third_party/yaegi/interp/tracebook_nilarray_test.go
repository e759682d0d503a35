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
