package session

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// Interpretation speed on loop kernels, next to the same Go compiled: each
// kernel is one source text, compiled into this test binary below and
// interpreted by yaegi (make bench prints both; there is no target, the
// figures must not regress).

const loopKernels = `
func sumFor(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func sumRange(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func matmul(n int) float64 {
	a := make([]float64, n*n)
	b := make([]float64, n*n)
	c := make([]float64, n*n)
	for i := range a {
		a[i] = float64(i % 7)
		b[i] = float64(i % 5)
	}
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			aik := a[i*n+k]
			for j := 0; j < n; j++ {
				c[i*n+j] += aik * b[k*n+j]
			}
		}
	}
	return c[n*n-1]
}

func mapCount(n int) int {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		m[i%1000]++
	}
	return len(m)
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func closures(n int) int {
	var fs []func() int
	for i := 0; i < n; i++ {
		fs = append(fs, func() int { return i })
	}
	s := 0
	for _, f := range fs {
		s += f()
	}
	return s
}
`

// The compiled twins of loopKernels, the same text (TestLoopKernelsAgree
// compares their results).

func sumFor(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

func sumRange(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func matmul(n int) float64 {
	a := make([]float64, n*n)
	b := make([]float64, n*n)
	c := make([]float64, n*n)
	for i := range a {
		a[i] = float64(i % 7)
		b[i] = float64(i % 5)
	}
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			aik := a[i*n+k]
			for j := 0; j < n; j++ {
				c[i*n+j] += aik * b[k*n+j]
			}
		}
	}
	return c[n*n-1]
}

func mapCount(n int) int {
	m := map[int]int{}
	for i := 0; i < n; i++ {
		m[i%1000]++
	}
	return len(m)
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func closures(n int) int {
	var fs []func() int
	for i := 0; i < n; i++ {
		fs = append(fs, func() int { return i })
	}
	s := 0
	for _, f := range fs {
		s += f()
	}
	return s
}

type loopKernel struct {
	name     string
	compiled any
	arg      any
}

var loopKernelList = []loopKernel{
	{"sumFor", sumFor, 1_000_000},
	{"sumRange", sumRange, make([]int, 1_000_000)},
	{"matmul", matmul, 60},
	{"mapCount", mapCount, 100_000},
	{"fib", fib, 22},
	{"closures", closures, 10_000},
}

func interpretedKernels(tb testing.TB) *interp.Interpreter {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		tb.Fatal(err)
	}
	if _, err := i.Eval(loopKernels); err != nil {
		tb.Fatal(err)
	}
	return i
}

func callKernel(tb testing.TB, f reflect.Value, arg any) any {
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
		if n, ok := arg.(int); ok && k.name != "fib" && k.name != "matmul" {
			arg = n / 100 // a quick check
		}
		if k.name == "sumRange" {
			xs := make([]int, 1000)
			for j := range xs {
				xs[j] = j * 3
			}
			arg = xs
		}
		want := callKernel(t, reflect.ValueOf(k.compiled), arg)
		got := callKernel(t, v, arg)
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
				callKernel(b, f, k.arg)
			}
		})
		b.Run(k.name+"/interpreted", func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				callKernel(b, v, k.arg)
			}
		})
	}
}
