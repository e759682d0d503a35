package interp_test

import (
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// Go 1.22 per-iteration loop variables (tracebook_loopvar.go). Each program's
// expected output is the output of the same program compiled by Go 1.26.
var loopVarCases = []struct{ name, src, want string }{
	{"defer_named", `package main

import (
	"errors"
	"fmt"
)

func g() (int, error) { return 1, errors.New("boom") }

func f() (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("wrapped: %w", err)
		}
	}()
	x, err := g()
	_ = x
	return err
}

func h() (n int) {
	defer func() {
		if r := recover(); r != nil {
			n = -1
		}
	}()
	var m map[string]int
	m["a"] = 1
	return 5
}

func k() (s string) {
	v := "a"
	defer func() { s += v }()
	v = "b"
	return "x"
}

func main() {
	fmt.Println(f())
	fmt.Println(h())
	fmt.Println(k())
}
`, "wrapped: boom\n-1\nxb\n"},
	{"for3_addr", `package main

import "fmt"

func main() {
	var ps []*int
	for i := 0; i < 3; i++ {
		ps = append(ps, &i)
	}
	for _, p := range ps {
		fmt.Print(*p, " ")
	}
	fmt.Println(ps[0] != ps[1])
	// two variables, continue
	var gs []func() (int, int)
	for i, j := 0, 10; i < 5; i, j = i+1, j-1 {
		if i%2 == 1 {
			continue
		}
		gs = append(gs, func() (int, int) { return i, j })
	}
	for _, g := range gs {
		a, b := g()
		fmt.Print(a, ",", b, " ")
	}
	fmt.Println()
}
`, "0 1 2 true\n0,10 2,8 4,6 \n"},
	{"for3_bodychange", `package main

import "fmt"

func main() {
	// The closure of iteration k sees the body's change of i, not the increment.
	var fs []func() int
	for i := 0; i < 6; i++ {
		fs = append(fs, func() int { return i })
		i += 1
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	// A closure that changes i changes the variable of its iteration only,
	// before the post statement copies it.
	var incs []func()
	for i := 0; i < 3; i++ {
		incs = append(incs, func() { i += 10 })
		if i == 0 {
			incs[0]()
		}
		fmt.Print(i, " ")
	}
	fmt.Println()
}
`, "1 3 5 \n10 \n"},
	{"for3_closure", `package main

import "fmt"

func main() {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
`, "0 1 2 \n"},
	{"for3_defer", `package main

import "fmt"

func f() {
	for i := 0; i < 3; i++ {
		defer func() { fmt.Print(i, " ") }()
	}
	for _, s := range []string{"x", "y"} {
		defer func() { fmt.Print(s, " ") }()
	}
}

func main() {
	f()
	fmt.Println()
}
`, "y x 2 1 0 \n"},
	{"for3_goroutine", `package main

import (
	"fmt"
	"sort"
	"sync"
)

func main() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var got []int
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			got = append(got, i)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Ints(got)
	fmt.Println(got)
	res := make(chan string, 3)
	for _, s := range []string{"a", "b", "c"} {
		go func() { res <- s }()
	}
	var rs []string
	for range 3 {
		rs = append(rs, <-res)
	}
	sort.Strings(rs)
	fmt.Println(rs)
}
`, "[0 1 2 3 4]\n[a b c]\n"},
	{"nested", `package main

import "fmt"

func main() {
	var fs []func() string
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			fs = append(fs, func() string { return fmt.Sprint(i, j) })
		}
	}
	// a loop run twice: the closures of the first run keep their values
	for r := 0; r < 2; r++ {
		for k := range 2 {
			fs = append(fs, func() string { return fmt.Sprint(r, k) })
		}
	}
	// closure inside a closure
	mk := func() []func() int {
		var gs []func() int
		for i := 0; i < 3; i++ {
			gs = append(gs, func() int { return i * i })
		}
		return gs
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	for _, g := range mk() {
		fmt.Print(g(), " ")
	}
	fmt.Println()
	// break leaves the last variable to the closure; the loop run again
	var hs []func() int
	for r := 0; r < 2; r++ {
		for i := 0; i < 10; i++ {
			hs = append(hs, func() int { return i })
			if i == 1 {
				break
			}
		}
	}
	for _, h := range hs {
		fmt.Print(h(), " ")
	}
	fmt.Println()
}
`, "0 0 0 1 1 0 1 1 0 0 0 1 1 0 1 1 0 1 4 \n0 1 0 1 \n"},
	{"ptr_method", `package main

import "fmt"

type C struct{ n int }

func (c *C) Inc() { c.n++ }
func (c *C) Get() int { return c.n }
func (c C) Val() int { return c.n }

func main() {
	var gets []func() int
	for _, c := range []C{{1}, {2}} {
		c.Inc()
		gets = append(gets, c.Get)
	}
	for _, g := range gets {
		fmt.Print(g(), " ")
	}
	var arrs [][]int
	for _, a := range [][2]int{{1, 2}, {3, 4}} {
		arrs = append(arrs, a[:])
	}
	fmt.Println(arrs)
	var vals []int
	for _, c := range []C{{5}, {6}} {
		vals = append(vals, c.Val())
	}
	fmt.Println(vals)
	var fps []*int
	for _, c := range []C{{7}, {8}} {
		fps = append(fps, &c.n)
	}
	fmt.Println(*fps[0], *fps[1])
}
`, "2 3 [[1 2] [3 4]]\n[5 6]\n7 8\n"},
	{"range_int_func", `package main

import "fmt"

func seq(yield func(int, string) bool) {
	for i, s := range []string{"x", "y", "z"} {
		if !yield(i, s) {
			return
		}
	}
}

func main() {
	var fs []func() int
	for i := range 3 {
		fs = append(fs, func() int { return i })
	}
	for k, s := range seq {
		fs = append(fs, func() int { return k*10 + len(s) })
	}
	var ps []*int
	for i := range 3 {
		ps = append(ps, &i)
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println(*ps[0], *ps[1], *ps[2])
}
`, "0 1 2 1 11 21 0 1 2\n"},
	{"range_map_chan", `package main

import (
	"fmt"
	"sort"
)

func main() {
	m := map[string]int{"a": 1, "b": 2, "c": 3}
	var fs []func() string
	for k, v := range m {
		fs = append(fs, func() string { return fmt.Sprint(k, v) })
	}
	var out []string
	for _, f := range fs {
		out = append(out, f())
	}
	sort.Strings(out)
	fmt.Println(out)
	c := make(chan int, 3)
	c <- 4
	c <- 5
	c <- 6
	close(c)
	var gs []func() int
	for v := range c {
		gs = append(gs, func() int { return v })
	}
	for _, g := range gs {
		fmt.Print(g(), " ")
	}
	fmt.Println()
}
`, "[a1 b2 c3]\n4 5 6 \n"},
	{"range_modify", `package main

import "fmt"

func main() {
	// Changing the index in the body does not change the iteration.
	for i := range []int{5, 6, 7} {
		i += 10
		fmt.Print(i, " ")
	}
	fmt.Println()
	n := 0
	for i, v := range []int{5, 6, 7} {
		n++
		if n > 10 {
			break
		}
		i = 0
		fmt.Print(i, v, " ")
	}
	fmt.Println(n)
	for i := range "héllo" {
		fmt.Print(i, " ")
	}
	fmt.Println()
	for i, r := range "a\xffé" {
		fmt.Print(i, ":", r, " ")
	}
	fmt.Println()
	var fs []func() int
	for i := range "ab€" {
		fs = append(fs, func() int { return i })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
}
`, "10 11 12 \n0 5 0 6 0 7 3\n0 1 3 4 5 \n0:97 1:65533 2:233 \n0 1 2 \n"},
	{"range_slice", `package main

import "fmt"

func main() {
	var fs []func() string
	for i, v := range []string{"a", "b", "c"} {
		fs = append(fs, func() string { return fmt.Sprint(i, v) })
	}
	arr := [3]int{7, 8, 9}
	for i, v := range arr {
		fs = append(fs, func() string { return fmt.Sprint(i, v) })
	}
	for i := range []int{1, 2} {
		fs = append(fs, func() string { return fmt.Sprint(i) })
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	var ps []*string
	for _, v := range []string{"p", "q"} {
		ps = append(ps, &v)
	}
	fmt.Println(*ps[0], *ps[1])
}
`, "0a 1b 2c 0 7 1 8 2 9 0 1 \np q\n"},
	{"select_case", `package main

import "fmt"

func main() {
	c := make(chan int, 1)
	var fs []func() int
	for i := 0; i < 3; i++ {
		c <- i * 10
		select {
		case v := <-c:
			fs = append(fs, func() int { return v })
		}
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	d := make(chan string, 1)
	var gs []func() string
	for _, s := range []string{"a", "b"} {
		d <- s
		select {
		case v, ok := <-d:
			gs = append(gs, func() string { return fmt.Sprint(v, ok) })
		}
	}
	for _, g := range gs {
		fmt.Print(g(), " ")
	}
	fmt.Println()
}
`, "0 10 20 \natrue btrue \n"},
	{"outer_var", `package main

import "fmt"

func main() {
	// a loop over an existing variable: one variable, as in Go
	var fs []func() int
	i := 0
	for i = 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	var k int
	for k = range []int{1, 2, 3} {
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println(i, k)
}
`, "3 3 3 3 2\n"},
	{"untyped_rune_range", `package main

import "fmt"

func main() {
	for i := range 'c' {
		var p *rune = &i
		if *p == 'a' {
			fmt.Printf("%T %c\n", i, *p)
		}
	}
	var i int
	for i = range [5]struct{}{} {
	}
	var k string
	var n int
	for k, n = range map[string]int{"z": 26} {
	}
	c := make(chan int, 2)
	c <- 1
	c <- 2
	close(c)
	var e int
	for e = range c {
	}
	fmt.Println(i, k, n, e)
}
`, "int32 a\n4 z 26 2\n"},
	{"range_slice_of_chans", `package main

import "fmt"

func main() {
	var a []chan int
	for i := range 3 {
		c := make(chan int, 1)
		c <- i * 2
		a = append(a, c)
	}
	for i, c := range a {
		fmt.Print(i, <-c, " ")
	}
	fmt.Println()
}
`, "0 0 1 2 2 4 \n"},
	{"labeled_continue", `package main

import "fmt"

func main() {
	var fs []func() int
outer:
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if j == 1 {
				fs = append(fs, func() int { return i*10 + j })
				continue outer
			}
		}
	}
	for _, f := range fs {
		fmt.Print(f(), " ")
	}
	fmt.Println()
	var gs []func() int
loop:
	for i := range 4 {
		switch {
		case i%2 == 0:
			gs = append(gs, func() int { return i })
			continue loop
		}
		select {
		default:
			gs = append(gs, func() int { return -i })
			continue
		}
	}
	for _, g := range gs {
		fmt.Print(g(), " ")
	}
	fmt.Println()
}
`, "1 11 21 \n0 -1 2 -3 \n"},
	{"range_pointer_to_array", `package main

import "fmt"

func main() {
	x := 5
	arr := [3]int{1, 2, 3}
	for i, v := range &arr {
		arr[2] = 30
		fmt.Print(i, v, x, " ")
	}
	fmt.Println()
	b := [3]int{1, 2, 3}
	for i, v := range b {
		b[2] = 30
		fmt.Print(i, v, " ")
	}
	fmt.Println()
	var fs []func() int
	for i := range &arr {
		fs = append(fs, func() int { return i })
	}
	fmt.Println(fs[0](), fs[2]())
}
`, "0 1 5 1 2 5 2 30 5 \n0 1 1 2 2 3 \n0 2\n"},
}

func evalLoopVar(t testing.TB, src string) (string, error) {
	t.Helper()
	var out strings.Builder
	i := interp.New(interp.Options{Stdout: &out, Stderr: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(src)
	return out.String(), err
}

func TestTracebookLoopVar(t *testing.T) {
	for _, tc := range loopVarCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalLoopVar(t, tc.src)
			if err != nil {
				t.Fatalf("error: %v (output %q)", err, got)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// BenchmarkTracebookLoopVar measures loop kernels over 1e6 ints: loops whose
// variables do not escape must not be slowed down by per-iteration copies.
func BenchmarkTracebookLoopVar(b *testing.B) {
	const src = `package main

var xs = make([]int, 1000000)

func For3() int {
	s := 0
	for i := 0; i < len(xs); i++ {
		s += xs[i]
	}
	return s
}

func RangeIndex() int {
	s := 0
	for i := range xs {
		s += i
	}
	return s
}

func RangeValue() int {
	s := 0
	for _, v := range xs {
		s += v
	}
	return s
}

func RangeInt() int {
	s := 0
	for i := range 1000000 {
		s += i
	}
	return s
}

func For3Escapes() int {
	s := 0
	var p *int
	for i := 0; i < 1000000; i++ {
		p = &i
		s += *p
	}
	return s
}
`
	i := interp.New(interp.Options{})
	if _, err := i.Eval(src); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"For3", "RangeIndex", "RangeValue", "RangeInt", "For3Escapes"} {
		v, err := i.Eval("main." + name)
		if err != nil {
			b.Fatal(err)
		}
		f := v.Interface().(func() int)
		b.Run(name, func(b *testing.B) {
			for n := 0; n < b.N; n++ {
				f()
			}
		})
	}
}
