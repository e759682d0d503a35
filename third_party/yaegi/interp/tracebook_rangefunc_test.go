package interp_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// rangeFuncSymbols are compiled iterators, as a binary package would export them.
var rangeFuncSymbols = interp.Exports{
	"gen/gen": {
		"Count": reflect.ValueOf(func(n int) func(func(int) bool) {
			return func(yield func(int) bool) {
				for i := 0; i < n; i++ {
					if !yield(i) {
						return
					}
				}
			}
		}),
		"Pairs": reflect.ValueOf(func(yield func(string, int) bool) {
			_ = yield("a", 1) && yield("b", 2) && yield("c", 3)
		}),
		// Stubborn ignores yield's false, which Go forbids.
		"Stubborn": reflect.ValueOf(func(yield func(int) bool) {
			yield(1)
			yield(2)
		}),
	},
}

func evalRangeFunc(t *testing.T, src string) (string, error) {
	t.Helper()
	var out, errOut strings.Builder
	i := interp.New(interp.Options{Stdout: &out, Stderr: &errOut})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(rangeFuncSymbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(src)
	return out.String(), err
}

func TestTracebookRangeFunc(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"int", `package main
import "fmt"
func main() {
	for i := range 3 { fmt.Print(i, " ") }
	n := int64(2)
	for i := range n { fmt.Printf("%T:%d ", i, i) }
	var u uint8 = 2
	for i := range u { fmt.Printf("%T:%d ", i, i) }
	for range 2 { fmt.Print("x") }
	for i := range 0 { fmt.Print("never", i) }
}`, "0 1 2 int64:0 int64:1 uint8:0 uint8:1 xx"},

		{"literal", `package main
import "fmt"
func main() {
	for x := range func(yield func(int) bool) { _ = yield(1) && yield(2) } { fmt.Print(x, " ") }
	for range func(yield func() bool) { _ = yield() && yield() } { fmt.Print("z") }
}`, "1 2 zz"},

		{"seq2 break continue", `package main
import "fmt"
func gen(n int) func(func(int, string) bool) {
	return func(yield func(int, string) bool) {
		for i := 0; i < n; i++ {
			if !yield(i, fmt.Sprint("s", i)) {
				fmt.Print("stop@", i, " ")
				return
			}
		}
		fmt.Print("end ")
	}
}
func main() {
	for i, s := range gen(6) {
		if i == 1 { continue }
		if i == 4 { break }
		fmt.Print(s, " ")
	}
	for i := range gen(2) { fmt.Print(i, " ") }
	fmt.Print("after")
}`, "s0 s2 s3 stop@4 0 1 end after"},

		{"return", `package main
import "fmt"
func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		defer fmt.Print("iterdone ")
		for i := 0; i < n; i++ {
			if !yield(i) { return }
		}
	}
}
func find(n, want int) (int, string) {
	for i := range count(n) {
		for j := range count(n) {
			if i*j == want { return i*10 + j, "found" }
		}
	}
	return -1, "none"
}
func main() {
	fmt.Println(find(5, 6))
	fmt.Println(find(2, 6))
}`, "iterdone iterdone iterdone iterdone 23 found\niterdone iterdone iterdone -1 none\n"},

		{"labelled", `package main
import "fmt"
func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) { fmt.Print("stop", i, " "); return }
		}
	}
}
func main() {
outer:
	for i := range count(3) {
		for j := range count(3) {
			if j == 1 { continue outer }
			if i == 2 { break outer }
			fmt.Print(i, j, " ")
		}
	}
	fmt.Print("| ")
plain:
	for k := 0; k < 3; k++ {
		for j := range count(3) {
			if j == k { continue plain }
			if k == 2 { break plain }
			fmt.Print(k, j, " ")
		}
	}
	fmt.Print("| ")
	for i := range count(2) {
		switch i {
		case 0:
			continue
		}
		for _, s := range []string{"a", "b"} {
			if s == "b" { break }
			fmt.Print(i, s, " ")
		}
	}
}`, "0 0 stop1 1 0 stop1 stop0 stop2 | stop0 1 0 stop1 stop0 | 1a "},

		{"named types", `package main
import ("fmt"; "iter")
type Seq func(yield func(int) bool)
func squares(n int) Seq {
	return func(yield func(int) bool) {
		for i := 1; i <= n; i++ {
			if !yield(i * i) { return }
		}
	}
}
type List struct{ v []string }
func (l *List) All(yield func(int, string) bool) {
	for i, s := range l.v {
		if !yield(i, s) { return }
	}
}
func main() {
	sum := 0
	for v := range squares(4) { sum += v }
	fmt.Print(sum, " ")
	var s iter.Seq[string] = func(yield func(string) bool) { _ = yield("p") && yield("q") }
	for v := range s { fmt.Print(v) }
	var s2 iter.Seq2[string, int] = func(yield func(string, int) bool) { yield("k", 7) }
	for k, v := range s2 { fmt.Print(" ", k, v) }
	l := &List{v: []string{"x", "y"}}
	for i, v := range l.All { fmt.Print(" ", i, v) }
}`, "30 pq k7 0x 1y"},

		{"recursive iterator", `package main
import "fmt"
type Tree struct {
	L, R *Tree
	V    int
}
func (t *Tree) walk(yield func(int) bool) bool {
	return t == nil || t.L.walk(yield) && yield(t.V) && t.R.walk(yield)
}
func (t *Tree) All(yield func(int) bool) { t.walk(yield) }
func main() {
	t := &Tree{V: 4, L: &Tree{V: 2, L: &Tree{V: 1}, R: &Tree{V: 3}}, R: &Tree{V: 5}}
	for v := range t.All {
		if v == 5 { break }
		fmt.Print(v, " ")
	}
}`, "1 2 3 4 "},

		{"compiled iterators", `package main
import ("fmt"; "gen")
func main() {
	for i := range gen.Count(3) {
		for k, v := range gen.Pairs {
			if v == 2 { break }
			fmt.Print(i, k, v, " ")
		}
		if i == 1 { break }
	}
	f := gen.Count
	n := 0
	for range f(1000) { n++ }
	fmt.Print(n)
}`, "0a1 1a1 1000"},

		{"defer in body", `package main
import "fmt"
func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) { return }
		}
	}
}
func f() {
	defer fmt.Print("end")
	for range count(2) {
		defer fmt.Print("d ")
	}
	fmt.Print("body ")
}
func main() { f() }`, "body d d end"},

		{"iter package", `package main
import ("fmt"; "maps"; "slices")
func main() {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	fmt.Println(slices.Sorted[string](maps.Keys[map[string]int, string, int](m)))
	fmt.Println(slices.SortedFunc[int](maps.Values[map[string]int, string, int](m), func(a, b int) int { return b - a }))
	for i, v := range slices.All[[]string, string]([]string{"x", "y"}) { fmt.Print(i, v, " ") }
	for i, v := range slices.Backward[[]string, string]([]string{"x", "y"}) { fmt.Print(i, v, " ") }
	fmt.Println()
	fmt.Println(slices.Collect[int](slices.Values[[]int, int]([]int{4, 5})), slices.Collect[int](slices.Values[[]int, int](nil)) == nil)
	fmt.Println(slices.AppendSeq[[]int, int]([]int{1}, slices.Values[[]int, int]([]int{4, 5})))
	for c := range slices.Chunk[[]int, int]([]int{1, 2, 3, 4, 5}, 2) { fmt.Print(c, len(c), cap(c), " ") }
	fmt.Println()
	var all map[int]string
	all = maps.Collect[int, string](slices.All[[]string, string]([]string{"p", "q"}))
	maps.Insert[map[int]string, int, string](all, maps.All[map[int]string, int, string](map[int]string{7: "z"}))
	fmt.Println(all)
}`, "[a b c]\n[3 2 1]\n0x 1y 1y 0x \n[4 5] true\n[1 4 5]\n[1 2] 2 2 [3 4] 2 2 [5] 1 1 \nmap[0:p 1:q 7:z]\n"},

		{"break in select", `package main
import "fmt"
func main() {
	ch := make(chan int, 1)
	for _, v := range []int{1, 2, 3} {
		ch <- v
		select {
		case x := <-ch:
			if x == 2 { break }
			fmt.Print("x", x)
		}
		fmt.Print("; ")
	}
	for v := range func(yield func(int) bool) { _ = yield(1) && yield(2) && yield(3) } {
		select {
		default:
			if v == 2 { break }
			fmt.Print("d", v)
		}
		fmt.Print(". ")
	}
}`, "x1; ; x3; d1. . d3. "},

		{"pull", `package main
import ("fmt"; "iter")
func squares(yield func(int) bool) {
	for i := range 3 {
		if !yield(i * i) {
			fmt.Println("stopped")
			return
		}
	}
}
func bad(yield func(int) bool) { yield(7); panic("boom") }
func pairs(yield func(string, int) bool) { _ = yield("a", 1) && yield("b", 2) }
func useBad() {
	defer func() { fmt.Println("recovered", recover()) }()
	next, stop := iter.Pull[int](bad)
	defer stop()
	fmt.Println(next())
	fmt.Println(next())
}
func main() {
	next, stop := iter.Pull[int](squares)
	fmt.Println(next())
	fmt.Println(next())
	stop()
	fmt.Println(next())
	stop()
	n2, s2 := iter.Pull[int](squares)
	for {
		v, ok := n2()
		if !ok {
			break
		}
		fmt.Print(v, " ")
	}
	s2()
	_, s3 := iter.Pull[int](squares)
	s3()
	p, ps := iter.Pull2[string, int](pairs)
	for {
		k, v, ok := p()
		if !ok {
			break
		}
		fmt.Print(k, v, " ")
	}
	ps()
	fmt.Println()
	useBad()
}`, "0 true\n1 true\nstopped\n0 false\n0 1 4 a1 b2 \n7 true\nrecovered boom\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalRangeFunc(t, tc.src)
			if err != nil {
				t.Fatalf("error %v (output %q)", err, got)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTracebookRangeFuncErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want, wantOut string }{
		{"yield after false", `package main
import "fmt"
func main() {
	for x := range func(yield func(int) bool) { yield(1); yield(2) } {
		fmt.Print(x)
		break
	}
}`, "range function continued iteration after function for loop body returned false", "1"},
		{"compiled yield after false", `package main
import ("fmt"; "gen")
func main() {
	for x := range gen.Stubborn {
		fmt.Print(x)
		break
	}
}`, "range function continued iteration after function for loop body returned false", "1"},
		{"too many variables", `package main
func main() {
	for a, b := range func(yield func(int) bool) {} { _, _ = a, b }
}`, "range over func(func(int) bool) permits only 1 iteration variables", ""},
		{"int two variables", `package main
func main() {
	for a, b := range 3 { _, _ = a, b }
}`, "range over untyped int permits only one iteration variable", ""},
		{"goto out", `package main
func main() {
	for range func(yield func() bool) { yield() } {
		goto out
	}
out:
}`, "goto out of a range-over-func loop body is not supported by tracebook's interpreter", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalRangeFunc(t, tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if got != tc.wantOut {
				t.Errorf("output %q, want %q", got, tc.wantOut)
			}
		})
	}
}

// BenchmarkTracebookRangeFunc sums 1M ints in the interpreter: with range over
// an int, and with range over an interpreted and a compiled iterator.
func BenchmarkTracebookRangeFunc(b *testing.B) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		b.Fatal(err)
	}
	if err := i.Use(rangeFuncSymbols); err != nil {
		b.Fatal(err)
	}
	if _, err := i.Eval(`import "gen"
func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}
func sumInt(n int) int { s := 0; for i := range n { s += i }; return s }
func sumFunc(n int) int { s := 0; for i := range count(n) { s += i }; return s }
func sumCompiled(n int) int { s := 0; for i := range gen.Count(n) { s += i }; return s }`); err != nil {
		b.Fatal(err)
	}
	const n = 1_000_000
	for _, name := range []string{"sumInt", "sumFunc", "sumCompiled"} {
		v, err := i.Eval(name)
		if err != nil {
			b.Fatal(err)
		}
		sum := v.Interface().(func(int) int)
		b.Run(name, func(b *testing.B) {
			for j := 0; j < b.N; j++ {
				if got := sum(n); got != n*(n-1)/2 {
					b.Fatalf("%s = %d", name, got)
				}
			}
		})
	}
}
