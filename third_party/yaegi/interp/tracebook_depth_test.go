package interp_test

import (
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// Unbounded recursion panics with a recoverable error naming the function
// at the depth limit, instead of Go's fatal stack overflow; the
// interpreter's state survives it.
func TestTracebookCallDepth(t *testing.T) {
	var out strings.Builder
	i := interp.New(interp.Options{Stdout: &out, Stderr: &strings.Builder{}, MaxCallDepth: 1000})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	evalTB(t, i, "import \"fmt\"")
	evalTB(t, i, "x := 42")
	evalTB(t, i, "func f(n int) int { return f(n+1) }\nfunc g(n int) int { if n == 0 { return 0 }; return 1 + g(n-1) }")
	_, err := i.Eval("f(0)")
	p, ok := err.(interp.Panic)
	if !ok {
		t.Fatalf("f(0): %v (%T), want a panic", err, err)
	}
	if e, ok := p.Value.(*interp.CallDepthError); !ok || e.Error() != "f: call depth exceeds 1000 (unbounded recursion?)" {
		t.Fatalf("panic value %v (%T)", p.Value, p.Value)
	}
	// Deep recursion under the limit runs, also after the panic; recover
	// sees the error; a goroutine starts at depth 1; closures and methods
	// are counted.
	evalTB(t, i, "fmt.Println(x, g(990))")
	evalTB(t, i, "func try() { defer func() { fmt.Println(recover()) }(); f(0) }")
	evalTB(t, i, "try()")
	evalTB(t, i, "done := make(chan int)\ngo func() { done <- g(990) }()\nfmt.Println(<-done)")
	evalTB(t, i, "var h func(int) int")
	evalTB(t, i, "h = func(n int) int { return h(n+1) }")
	evalTB(t, i, "type T struct{}\nfunc (t T) Walk(n int) int { return t.Walk(n+1) }")
	for _, c := range []struct{ src, want string }{{"h(0)", "h: call depth"}, {"T{}.Walk(0)", "t.Walk: call depth"}} {
		_, err := i.Eval(c.src)
		if p, ok := err.(interp.Panic); !ok || !strings.Contains(p.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
	if got, want := out.String(), "42 990\nf: call depth exceeds 1000 (unbounded recursion?)\n990\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}
