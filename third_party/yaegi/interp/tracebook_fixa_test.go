package interp_test

import (
	"bytes"
	"strconv"
	"strings"
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

// TestTracebookIfaceMapKeys: maps keyed by an interpreted interface type
// (test/maplinear.go: m[C(i)] panicked in MapIndex; a key through a
// variable of the interface type was another entry than the same value
// written directly). Expected outputs: Go 1.26.
func TestTracebookIfaceMapKeys(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"interpreted", `package main

import "fmt"

type I interface{ M() int }

type C int

func (c C) M() int { return int(c) }

type D int

func (d D) M() int { return -int(d) }

type P struct{ X, Y int }

func (p P) M() int { return p.X + p.Y }

func get(i int) I {
	if i%2 == 0 {
		return C(i)
	}
	return D(i)
}

func main() {
	m := map[I]int{}
	m[C(1)] = 1
	m[D(1)] = 2
	var i I = C(1)
	m[i] += 10
	m[get(2)] = 3
	m[P{1, 2}] = 4
	fmt.Println(len(m), m[C(1)], m[D(1)], m[C(2)], m[get(1)], m[P{1, 2}], m[P{2, 1}])
	v, ok := m[C(5)]
	fmt.Println(v, ok)
	delete(m, get(1))
	_, ok = m[D(1)]
	fmt.Println(len(m), ok)
	sum := 0
	for k, v := range m {
		sum += k.M() * v
	}
	fmt.Println(sum)
	l := map[I]string{C(1): "c", D(1): "d"}
	fmt.Println(l[C(1)], l[D(1)], len(l))
	m[nil] = 7
	fmt.Println(m[nil], len(m))
	x := C(3)
	m[x] = 9
	x = 4
	fmt.Println(m[C(3)], m[C(4)])
	m[C(3)]++
	fmt.Println(m[C(3)])
}
`, `4 11 2 3 2 4 0
0 false
3 false
29
c d 2
7 4
9 0
10
`},
		{"compiled_and_nil", `package main

import (
	"fmt"
	"time"
)

type Str interface{ String() string }

type N int

func (n N) String() string { return fmt.Sprint("N", int(n)) }

func main() {
	m := map[Str]int{}
	m[time.Duration(5)] = 1
	m[N(5)] = 2
	var s Str = time.Duration(5)
	m[s] += 10
	s = N(5)
	m[s] += 100
	fmt.Println(len(m), m[time.Duration(5)], m[N(5)])
	for k := range m {
		_ = k.String()
	}
	type key struct{ a Str }
	mm := map[Str]map[Str]bool{}
	mm[N(1)] = map[Str]bool{N(2): true}
	fmt.Println(mm[N(1)][N(2)], mm[N(2)][N(1)])
	var e error
	me := map[error]int{e: 1}
	fmt.Println(me[nil], len(me))
}
`, `2 11 102
true false
1 1
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalFixA(t, tc.src)
			if err != nil {
				t.Fatalf("error: %v (output %q)", err, got)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// ifaceMapRandomSrc applies random operations (assign, +=, ++, delete,
// lookups, direct conversions) to a map[I]int, with keys of five dynamic
// types reached in several ways (conversion, struct field, slice element),
// and to a model map keyed by (type, value). It prints the sizes, weighted
// sums of both maps, and the number of disagreements seen.
const ifaceMapRandomSrc = `package main

import (
	"fmt"
	"math/rand"
)

type I interface{ Tag() int }

type C int

func (C) Tag() int { return 0 }

type D int

func (D) Tag() int { return 1 }

type S string

func (S) Tag() int { return 2 }

type P struct{ A, B int }

func (P) Tag() int { return 3 }

type Q struct{ n int }

func (*Q) Tag() int { return 4 }

type holder struct{ k I }

var ptrs = []*Q{{0}, {1}, {2}}

// mk returns the key i of kind t in one of several forms, and its model key.
func mk(r *rand.Rand, t, v int) (I, [2]int) {
	var k I
	switch t {
	case 0:
		k = C(v)
	case 1:
		k = D(v)
	case 2:
		k = S(fmt.Sprint(v))
	case 3:
		k = P{v, v % 3}
	default:
		v = v % len(ptrs)
		k = ptrs[v]
	}
	switch r.Intn(3) {
	case 1:
		h := holder{k}
		k = h.k
	case 2:
		s := []I{k}
		k = s[0]
	}
	return k, [2]int{t, v}
}

func main() {
	r := rand.New(rand.NewSource(SEED))
	m := map[I]int{}
	model := map[[2]int]int{}
	bad := 0
	for step := 0; step < 4000; step++ {
		t, v := r.Intn(5), r.Intn(20)
		k, mk2 := mk(r, t, v)
		switch op := r.Intn(7); op {
		case 0:
			m[k] = step
			model[mk2] = step
		case 1:
			m[k] += 3
			model[mk2] += 3
		case 2:
			m[k]++
			model[mk2]++
		case 3:
			delete(m, k)
			delete(model, mk2)
		case 4:
			got, ok := m[k]
			want, wok := model[mk2]
			if got != want || ok != wok {
				bad++
			}
		case 5:
			// direct conversions, not through a variable of type I
			switch t {
			case 0:
				m[C(v)] = -step
			case 1:
				m[D(v)] = -step
			case 2:
				m[S(fmt.Sprint(v))] = -step
			case 3:
				m[P{v, v % 3}] = -step
			default:
				m[ptrs[v%len(ptrs)]] = -step
			}
			model[mk2] = -step
		case 6:
			if m[k] != model[mk2] {
				bad++
			}
		}
		if len(m) != len(model) {
			bad++
		}
	}
	sum := 0
	for k, v := range m {
		sum += (k.Tag() + 1) * v
	}
	msum := 0
	for k, v := range model {
		msum += (k[0] + 1) * v
	}
	fmt.Println(len(m), len(model), sum, msum, bad)
}
`

// TestTracebookIfaceMapKeysRandom checks map[I]int against the model for
// several seeds: no disagreement, and the output of Go 1.26.
func TestTracebookIfaceMapKeysRandom(t *testing.T) {
	want := map[int]string{
		1: "63 63 -24989 -24989 0\n",
		2: "71 71 30560 30560 0\n",
		3: "57 57 -116776 -116776 0\n",
	}
	for seed, w := range want {
		src := strings.Replace(ifaceMapRandomSrc, "SEED", strconv.Itoa(seed), 1)
		got, err := evalFixA(t, src)
		if err != nil {
			t.Fatalf("seed %d: error: %v (output %q)", seed, err, got)
		}
		if got != w {
			t.Errorf("seed %d: got %q, want %q", seed, got, w)
		}
	}
}

// TestTracebookSwitchCaseList: in a switch with a tag, the expressions of
// "case a, b, c:" are evaluated and compared left to right, and evaluation
// stops at the first match. Expected output: Go 1.26.
func TestTracebookSwitchCaseList(t *testing.T) {
	const src = `package main

import "fmt"

func val(s string, v int) int { fmt.Print(s, " "); return v }

func main() {
	for _, x := range []int{0, 1, 2, 3, 5} {
		switch x {
		case val("one", 1):
			fmt.Println("one")
		case val("two", 2), val("three", 3), val("five", 5):
			fmt.Println("2/3/5")
		default:
			fmt.Println("def")
		}
	}
	var i interface{} = "b"
	switch i {
	case "a", 1, "b", 2.5:
		fmt.Println("iface match")
	}
}
`
	const want = `one two three five def
one one
one two 2/3/5
one two three 2/3/5
one two three five 2/3/5
iface match
`
	got, err := evalFixA(t, src)
	if err != nil {
		t.Fatalf("error: %v (output %q)", err, got)
	}
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestTracebookIfaceMapKeysRedefinedType: a cell that redefines a type
// gets keys of the new type (the interned key of the old one had the old
// methods).
func TestTracebookIfaceMapKeysRedefinedType(t *testing.T) {
	var out bytes.Buffer
	i := interp.New(interp.Options{Stdout: &out})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		`import "fmt"`,
		`type I interface{ M() int }`,
		`type C int`,
		`func (c C) M() int { return 1 }`,
		`m := map[I]int{C(1): 1}`,
		`for k := range m { fmt.Println(k.M()) }`,
		`type C int`,
		`func (c C) M() int { return 2 }`,
		`m2 := map[I]int{C(1): 1}`,
		`for k := range m2 { fmt.Println(k.M()) }`,
	} {
		if _, err := i.Eval(src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	if got, want := out.String(), "1\n2\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
