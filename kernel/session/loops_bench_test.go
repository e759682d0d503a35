package session

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/tracebook/tracebook/kernel/session/internal/loopkernels"
)

// Interpretation speed on loop kernels, next to the same Go compiled: each
// kernel of package loopkernels runs compiled, and interpreted by yaegi from
// the package's own source text (make bench prints both; there is no target,
// the figures must not regress).

type loopKernel struct {
	name     string
	compiled any
	arg      any
}

var loopKernelList = []loopKernel{
	{"SumFor", loopkernels.SumFor, 1_000_000},
	{"SumRange", loopkernels.SumRange, make([]int, 1_000_000)},
	{"Matmul", loopkernels.Matmul, 60},
	{"MapCount", loopkernels.MapCount, 100_000},
	{"Fib", loopkernels.Fib, 22},
	{"Closures", loopkernels.Closures, 10_000},
}

func interpretedKernels(tb testing.TB) *interp.Interpreter {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		tb.Fatal(err)
	}
	src := strings.Replace(loopkernels.Source, "package loopkernels", "", 1)
	if _, err := i.Eval(src); err != nil {
		tb.Fatal(err)
	}
	return i
}

func callKernel(f reflect.Value, arg any) any {
	return f.Call([]reflect.Value{reflect.ValueOf(arg)})[0].Interface()
}

func TestLoopKernelsAgree(t *testing.T) {
	i := interpretedKernels(t)
	for _, k := range loopKernelList {
		v, err := i.Eval(k.name)
		if err != nil {
			t.Fatal(err)
		}
		arg := k.arg
		if n, ok := arg.(int); ok && k.name != "Fib" && k.name != "Matmul" {
			arg = n / 100 // a quick check
		}
		if k.name == "SumRange" {
			xs := make([]int, 1000)
			for j := range xs {
				xs[j] = j * 3
			}
			arg = xs
		}
		want := callKernel(reflect.ValueOf(k.compiled), arg)
		got := callKernel(v, arg)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s(%v): interpreted %v, compiled %v", k.name, k.arg, got, want)
		}
	}
}

func BenchmarkLoopKernels(b *testing.B) {
	i := interpretedKernels(b)
	for _, k := range loopKernelList {
		v, err := i.Eval(k.name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(k.name+"/compiled", func(b *testing.B) {
			f := reflect.ValueOf(k.compiled)
			for n := 0; n < b.N; n++ {
				callKernel(f, k.arg)
			}
		})
		b.Run(k.name+"/interpreted", func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				callKernel(v, k.arg)
			}
		})
	}
}
