package interp_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

func newTB(t *testing.T) (*interp.Interpreter, *strings.Builder) {
	t.Helper()
	var out strings.Builder
	i := interp.New(interp.Options{Stdout: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	return i, &out
}

func evalTB(t *testing.T, i *interp.Interpreter, src string) {
	t.Helper()
	if _, err := i.Eval(src); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
}

// A notebook re-runs cells: importing a package again is a no-op, and a
// new path for a name rebinds the name, as in a fresh file.
func TestTracebookReimport(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `import "fmt"`)
	evalTB(t, i, `import "fmt"`)
	evalTB(t, i, `import "math/rand"`)
	evalTB(t, i, `import "crypto/rand"`)
	evalTB(t, i, `b := make([]byte, 3); n, _ := rand.Read(b); fmt.Println(n)`)
	evalTB(t, i, `import r "math/rand"`)
	evalTB(t, i, `fmt.Println(r.New(r.NewSource(1)).Intn(1))`)
	if got := out.String(); got != "3\n0\n" {
		t.Fatalf("output %q", got)
	}
}

// Snapshot and Restore undo the declarations of compilations that failed.
func TestTracebookRestore(t *testing.T) {
	i, _ := newTB(t)
	evalTB(t, i, `type T struct{ A int }; func (t T) M() int { return t.A }`)
	evalTB(t, i, `q := 1`)
	s := i.Snapshot()
	if _, err := i.Compile(`q2 := 5`); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Compile(`package main; func (t T) N() int { return 2 }; type U int`); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Compile(`undefinedFn()`); err == nil {
		t.Fatal("undefinedFn compiled")
	}
	i.Restore(s)
	for _, src := range []string{`q2`, `U(1)`, `T{}.N()`} {
		if _, err := i.Eval(src); err == nil || !strings.Contains(err.Error(), "undefined") {
			t.Fatalf("%s after Restore: %v", src, err)
		}
	}
	v, err := i.Eval(`T{4}.M() + q`)
	if err != nil || v.Int() != 5 {
		t.Fatalf("earlier declarations after Restore: %v %v", v, err)
	}
	if _, ok := i.Globals()["q2"]; ok {
		t.Fatal("q2 in Globals after Restore")
	}
}

// A global var initialised from a variable of an earlier compilation is
// not a definition loop, even before that compilation ran; Globals does not
// panic on a compiled, not yet run, variable.
func TestTracebookCompileThenRun(t *testing.T) {
	i, _ := newTB(t)
	p1, err := i.Compile(`x := 40`)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := i.Compile(`package main; var y = x * 2`)
	if err != nil {
		t.Fatal(err)
	}
	_ = i.Globals()
	for _, p := range []*interp.Program{p1, p2} {
		if _, err := i.ExecuteWithContext(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	v, err := i.Eval(`y`)
	if err != nil || v.Int() != 80 {
		t.Fatalf("y = %v, %v", v, err)
	}
}

// A statement starting with a function literal runs once; deferred calls
// run once, with the arguments they had at the defer statement.
func TestTracebookDefer(t *testing.T) {
	i, out := newTB(t)
	evalTB(t, i, `import "fmt"`)
	evalTB(t, i, `x := 1`)
	evalTB(t, i, "func() {\n\tdefer fmt.Println(\"d\", x)\n\tx = 2\n}()")
	evalTB(t, i, `fmt.Println("a")`)
	evalTB(t, i, `defer fmt.Println("top", x)`)
	evalTB(t, i, `fmt.Println("b")`)
	evalTB(t, i, "func() {\n\tfor i := 0; i < 3; i++ {\n\t\tdefer fmt.Print(i, \" \")\n\t}\n}()")
	if got, want := out.String(), "d 1\na\ntop 2\nb\n2 1 0 "; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
}

// A global defined by indexing a value of a compiled type (a slice, map,
// array or string a binary function returned) gets the element's type; it
// used to fail with "constant definition loop".
func TestTracebookGlobalIndexOfValue(t *testing.T) {
	i, _ := newTB(t)
	evalTB(t, i, `import "strings"`)
	evalTB(t, i, `import "os"`)
	evalTB(t, i, `f := strings.Fields("a b")`)
	for src, want := range map[string]string{
		`a := f[1]`:                             "b",
		`b := strings.Fields("x y")[0]`:         "x",
		`c := strings.SplitN("p,q", ",", 2)[1]`: "q",
		`e := f[0][0]`:                          "97",
		`g := os.Args[:0]`:                      "[]",
	} {
		v, err := i.Eval(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		name := src[:1]
		v, err = i.Eval(name)
		if err != nil || fmt.Sprint(v) != want {
			t.Fatalf("%s: %s = %v (%v), want %s", src, name, v, err, want)
		}
	}
}

// After an interrupt, LastRun tells when a compiled call the interrupted
// code made has returned.
func TestTracebookLastRun(t *testing.T) {
	started, release := make(chan bool), make(chan bool)
	i, _ := newTB(t)
	if err := i.Use(interp.Exports{"blk/blk": {"Wait": reflect.ValueOf(func() { started <- true; <-release })}}); err != nil {
		t.Fatal(err)
	}
	evalTB(t, i, `import "blk"`)
	if i.LastRun() != nil {
		t.Fatal("LastRun before any run")
	}
	prog, err := i.Compile("blk.Wait()")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	if _, err := i.ExecuteWithContext(ctx, prog); err != context.Canceled {
		t.Fatalf("err %v", err)
	}
	done := i.LastRun()
	select {
	case <-done:
		t.Fatal("LastRun closed while the compiled call runs")
	default:
	}
	close(release)
	<-done
}
