package interp_test

import (
	"bytes"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// evalFixA runs a main package and returns its standard output.
func evalFixA(t *testing.T, src string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(src)
	return out.String(), err
}

// TestTracebookSwitchDefaultInMiddle: a default clause that is not the last
// one keeps its place (the clauses were reordered, so a fallthrough from or
// to it went elsewhere and later cases were tested in another order), and
// every expression of "case a, b:" in a switch with a tag is evaluated.
// Expected output: the same program compiled by Go 1.26 (test/switch.go).
func TestTracebookSwitchDefaultInMiddle(t *testing.T) {
	const src = `package main

import "fmt"

func trace(s string, b bool) bool { fmt.Print(s, " "); return b }

func val(s string, v int) int { fmt.Print(s, " "); return v }

func main() {
	for _, x := range []int{0, 1, 5, 20} {
		switch {
		case trace("a", x > 10):
			fmt.Println("A")
		default:
			fmt.Println("D")
		case trace("b", x > 1):
			fmt.Println("B")
			fallthrough
		case trace("c", x > 0):
			fmt.Println("C")
		}
		switch x {
		case val("one", 1):
			fmt.Println("one")
			fallthrough
		default:
			fmt.Println("def")
			fallthrough
		case val("two", 2), val("five", 5):
			fmt.Println("two/five")
		case val("five again", 5):
			fmt.Println("never")
		}
	}
	var i interface{} = 2.5
	switch v := i.(type) {
	default:
		fmt.Println("default", v)
	case int:
		fmt.Println("int", v)
	case float64:
		fmt.Println("float64", v)
	}
	switch v := i.(type) {
	default:
		fmt.Println("default", v)
	}
	switch {
	default:
	case trace("x", true):
		fmt.Println("X")
	}
}
`
	const want = `a b c D
one two five five again def
two/five
a b c C
one one
def
two/five
a b B
C
one two five two/five
a A
one two five five again def
two/five
float64 2.5
default 2.5
x X
`
	got, err := evalFixA(t, src)
	if err != nil {
		t.Fatalf("error: %v (output %q)", err, got)
	}
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestTracebookFallthroughFinalCase: Go rejects a fallthrough in the last
// clause ("cannot fallthrough final case in switch").
func TestTracebookFallthroughFinalCase(t *testing.T) {
	for _, src := range []string{
		"package main\nfunc main() { x := 1; switch x { case 1: fallthrough } }",
		"package main\nfunc main() { x := 1; switch { case x == 1: fallthrough } }",
		"package main\nfunc main() { x := 1; switch x { case 2: default: fallthrough } }",
	} {
		_, err := evalFixA(t, src)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("cannot fallthrough final case in switch")) {
			t.Errorf("%s: got error %v, want cannot fallthrough final case in switch", src, err)
		}
	}
}
