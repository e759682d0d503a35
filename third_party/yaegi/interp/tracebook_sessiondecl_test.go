package interp_test

import (
	"testing"
)

// Global variables are initialised in Go's dependency order, which follows
// references through function bodies: declared functions and variables
// holding a function literal (the session declares a cell's functions so).
func TestTracebookInitThroughFuncs(t *testing.T) {
	want := []string{"3\n", "6\n", "3 4\n"}
	for k, src := range []string{
		// a declared function reads a variable declared after its caller
		`package main
import "fmt"
var n = count()
func count() int { return len(tests) }
var tests = []int{1, 2, 3}
func main() { fmt.Println(n) }`,
		// variables holding function literals, mutually recursive (Go
		// refuses this for variables, an initialisation cycle; it is how
		// the session declares a cell's functions even and odd, which
		// compiled Go initialises so, printing 6)
		`package main
import "fmt"
var n = even(len(tests))
var even = func(k int) int { if k == 0 { return 1 }; return odd(k - 1) }
var odd = func(k int) int { if k == 0 { return 0 }; return even(k - 1) + 2 * len(tests) }
var tests = []int{1, 2, 3}
func main() { fmt.Println(n) }`,
		// a local name hides the global: no false dependency
		`package main
import "fmt"
var n = f()
func f() int { tests := 3; return tests }
var tests = g()
func g() int { return n + 1 }
func main() { fmt.Println(n, tests) }`,
	} {
		i, out := newTB(t)
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if got := out.String(); got != want[k] {
			t.Errorf("output %q, want %q\n%s", got, want[k], src)
		}
	}
}

// A main function runs when its compilation runs (EvalPath, Eval of a
// file), but not again with later compilations, and a variable named main
// never runs.
func TestTracebookMainOnce(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `package main; import "fmt"; func main() { fmt.Println("main") }`)
	evalTB(t, i, `x := 1`)
	evalTB(t, i, `package main; var y = 2`)
	evalTB(t, i, `package main; var main = func() { fmt.Println("var main") }`)
	evalTB(t, i, `package main; var z = 3`)
	if got := out.String(); got != "main\n" {
		t.Fatalf("output %q", got)
	}
	evalTB(t, i, `main()`)
	if got := out.String(); got != "main\nvar main\n" {
		t.Fatalf("output %q", got)
	}
}

// An untyped constant of an earlier compilation stays untyped: the types of
// two untyped constants never count as a redeclared type (a notebook's
// constants of one cell used in the next).
func TestTracebookUntypedAcross(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `package main; const big = 1 << 40; const c = 10; const f = 2.5`)
	evalTB(t, i, `import "fmt"`)
	evalTB(t, i, `fmt.Println(c+1, 1+c, big/c, c*f)`)
	evalTB(t, i, `package main; const d = c * 3; const h = f * 2`)
	evalTB(t, i, `var x float64 = d`)
	evalTB(t, i, `fmt.Println(d, h, x, d == 30)`)
	if got, want := out.String(), "11 11 109951162777 25\n30 5 30 true\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}

// A variable of a binary package can be assigned (upstream 381e0459).
func TestTracebookAssignBinaryVar(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `import "fmt"; import "runtime"`)
	evalTB(t, i, `old := runtime.MemProfileRate; runtime.MemProfileRate = 16 * 1024; fmt.Println(runtime.MemProfileRate); runtime.MemProfileRate = old`)
	if got := out.String(); got != "16384\n" {
		t.Fatalf("output %q", got)
	}
}

// A generic function or type declared again (a cell run again, or changed)
// is instantiated from the new declaration: instances generated from the
// old one are not reused (generic.go genAST keyed them by name only).
func TestTracebookGenericRedeclared(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `import "fmt"`)
	evalTB(t, i, `package main; func F[T any](x T) T { return x }`)
	evalTB(t, i, `fmt.Println(F(3), F("a"))`)
	evalTB(t, i, `package main; func F[T any](x T) T { var z T; return z }`)
	evalTB(t, i, `fmt.Println(F(3), F("a"))`)
	// the same file twice (typeparam/eface.go): E[int] was instantiated
	// through g[int] only, whose old instance was reused
	src := `package main
type E[T any] interface{}
func g[T any](x interface{}) E[T] { return x }
var h = func() { fmt.Println(g[int](4) == (E[int])(4)) }`
	for k := 0; k < 2; k++ {
		evalTB(t, i, src)
		evalTB(t, i, `h()`)
	}
	if got, want := out.String(), "3 a\n0 \ntrue\ntrue\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}

// Restore forgets the generic instances a failed compilation generated.
func TestTracebookRestoreGeneric(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `import "fmt"`)
	evalTB(t, i, `package main; type G[T any] struct{ v T }; func (g G[T]) Get() T { return g.v }`)
	s := i.Snapshot()
	if _, err := i.Compile(`x := G[int]{1}.Get() + undefinedY`); err == nil {
		t.Fatal("compiled")
	}
	i.Restore(s)
	evalTB(t, i, `fmt.Println(G[int]{2}.Get())`)
	if got := out.String(); got != "2\n" {
		t.Fatalf("output %q", got)
	}
}

// Declarations in any order: a generic function's signature naming a
// generic type declared later, with the type's methods between them; and
// the same file compiled again (a notebook cell run twice), where the uses
// before the type's declaration must bind to the type declared afresh.
func TestTracebookTypeDeclaredLater(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `import "fmt"`)
	src := `package main
func sum[T int | float64](s *Stack[T]) T { var t T; for _, x := range s.items { t += x }; return t }
func (s *Stack[T]) Push(x T) { s.items = append(s.items, x) }
type Stack[T any] struct{ items []T }
func describe(p Point) string { return p.String() }
func (p Point) String() string { return fmt.Sprint(p.X, ",", p.Y) }
type Point struct{ X, Y int }
`
	for k := 0; k < 2; k++ {
		evalTB(t, i, src)
		evalTB(t, i, `s := &Stack[int]{}`)
		evalTB(t, i, `s.Push(1); s.Push(2); fmt.Println(sum(s), describe(Point{1, 2}))`)
	}
	if got, want := out.String(), "3 1,2\n3 1,2\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}

// A constant spec of several names: iota counts specs, not names, and an
// implicit repetition repeats every value of the previous spec
// (test/iota.go).
func TestTracebookIotaSpecs(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `package main
import "fmt"
const (
	abit, amask = 1 << iota, 1<<iota - 1
	bbit, bmask = 1 << iota, 1<<iota - 1
	cbit, cmask
)
const (
	a, b = iota, iota * 10
	c, d
	e = iota
)
func main() { fmt.Println(abit, amask, bbit, bmask, cbit, cmask, a, b, c, d, e) }`)
	if got, want := out.String(), "1 0 2 1 4 3 0 0 1 10 2\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}

// A recursive generic type declared again (test/typeparam/issue54535.go run
// twice in one session) made an endless type AST whose analysis overflowed
// the stack, killing the process; with the bounds of tracebook_typedepth.go
// and the generic fixes, the second declaration compiles as the first.
func TestTracebookRecursiveGenericAgain(t *testing.T) {
	src := `package main
type node[T any] struct {
	items    items[T]
	children items[*node[T]]
}
func (n *node[T]) f(i int, j int) bool { return len(n.children[i].items) < j }
type items[T any] []T
var use = func() { fmt.Println(len(node[int]{}.items)) }
`
	i, out := newTB(t)
	evalTB(t, i, `import "fmt"`)
	for k := 0; k < 2; k++ {
		evalTB(t, i, src)
		evalTB(t, i, `use()`)
	}
	if got := out.String(); got != "0\n0\n" {
		t.Fatalf("output %q", got)
	}
}
