package interp_test

import (
	"runtime"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

func liveHeapTB() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// A cell run again, or a value computed and dropped, frees what it held:
// the global frame kept every redeclared variable's old value and every
// temporary of top-level code.
func TestTracebookFrameReleased(t *testing.T) {
	i, out := newTB(t)
	const mb = 64 << 20
	evalTB(t, i, "import \"fmt\"")
	evalTB(t, i, "var big []byte")
	evalTB(t, i, "func size() int { return len(big) }")
	base := liveHeapTB()
	cases := []struct{ name, src string }{
		{"redefined variable", "big := make([]byte, 64<<20)"},
		{"redeclared var", "var big = make([]byte, 64<<20)"},
		{"comma-ok define", "big, ok := make([]byte, 64<<20), true"},
		{"dropped result", "make([]byte, 64<<20)"},
		{"temporary in a block", "{ n := len(make([]byte, 64<<20)); _ = n }"},
		{"ranged copy", "for range make([]byte, 64<<20)[:1] {}"},
	}
	for _, c := range cases {
		for k := 0; k < 4; k++ {
			evalTB(t, i, c.src)
		}
		if grown := liveHeapTB() - base; grown > 1.5*mb {
			t.Errorf("%s: 4 runs hold %d MB", c.name, grown>>20)
		}
	}
	// Code compiled before a redefinition sees the new value.
	evalTB(t, i, "big := []byte{1, 2, 3}")
	evalTB(t, i, "fmt.Println(size())")
	// A value converted to an interface, or bound in a method value, by
	// top-level code keeps its receiver after the program ran.
	evalTB(t, i, "type T struct{ A int }\nfunc (t T) String() string { return fmt.Sprint(\"T\", t.A) }\nfunc (t T) Get() int { return t.A }")
	evalTB(t, i, "var s fmt.Stringer = T{7}")
	evalTB(t, i, "f := T{5}.Get")
	evalTB(t, i, "fmt.Println(s, f())")
	if got, want := out.String(), "3\nT7 5\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	runtime.KeepAlive(i)
}

// With NoDebugger, a compiled cell's AST is not kept for a debugger, nor
// its block scopes (whose nodes reach the whole AST).
func TestTracebookNoDebuggerKeepsNoAST(t *testing.T) {
	i := interp.New(interp.Options{NoDebugger: true})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	evalTB(t, i, "import \"fmt\"")
	src := "x := []int{1, 2, 3}\ny := x[1] * 2\nfor _, v := range x { y += v }\n_ = fmt.Sprint(y)"
	for k := 0; k < 50; k++ {
		evalTB(t, i, src)
	}
	base := liveHeapTB()
	for k := 0; k < 500; k++ {
		evalTB(t, i, src)
	}
	perCell := (liveHeapTB() - base) / 500
	t.Logf("%d bytes per cell", perCell)
	if perCell > 8<<10 {
		t.Errorf("each evaluation keeps %d bytes", perCell)
	}
	runtime.KeepAlive(i)
}
