package interp_test

import (
	"bytes"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// evalMainProgram evaluates a main package and returns what it printed.
func evalMainProgram(t *testing.T, src string) string {
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

// Switch statements: a case with several expressions in a tagless switch
// tries each in turn (only the first was evaluated); a tag of interface
// type is compared with each case as tag == value (dynamic types, no
// conversion of the interface). Expected outputs from the same programs
// compiled with Go 1.26.
func TestTracebookSwitch(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"tagless case lists", `package main

import "fmt"

func t(s string, v bool) bool { fmt.Print(s, " "); return v }

func main() {
	b1, b2 := false, true
	switch {
	case b1, b2:
		fmt.Println("vars")
	}
	switch {
	case t("a", false), t("b", true), t("c", true):
		fmt.Println("calls")
	case t("d", true):
		fmt.Println("no")
	}
	switch {
	case t("e", false), t("f", false):
		fmt.Println("no")
	case t("g", false):
	default:
		fmt.Println("default")
	}
	for i := 0; i < 3; i++ {
		switch {
		case i == 0, i == 2:
			fmt.Println("even", i)
			fallthrough
		case i == 100:
			fmt.Println("fell", i)
		default:
			fmt.Println("odd", i)
		}
	}
}
`, "vars\na b calls\ne f g default\neven 0\nfell 0\nodd 1\neven 2\nfell 2\n"},
		{"interface tags", `package main

import "fmt"

func main() {
	var x interface{} = 5
	switch x {
	case 5:
		fmt.Println("five")
	}
	var y interface{} = int64(5)
	switch y {
	case 5:
		fmt.Println("wrong")
	case int64(5):
		fmt.Println("int64 five")
	}
	var e error
	switch e {
	case nil:
		fmt.Println("nil")
	}
	var u uint8 = 200
	switch u {
	case 200:
		fmt.Println("200")
	}
	var w interface{} = []int{1}
	switch w {
	case 1:
		fmt.Println("wrong")
	default:
		fmt.Println("slice is no int")
	}
	defer func() { fmt.Println("recovered:", recover()) }()
	var v interface{} = []int{1}
	switch v {
	case w:
	}
}
`, "five\nint64 five\nnil\n200\nslice is no int\nrecovered: runtime error: comparing uncomparable type []int\n"},
	} {
		if got := evalMainProgram(t, c.src); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}
