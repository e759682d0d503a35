package interp_test

import "testing"

// Methods of interpreted types seen by fmt inside composite values, by
// errors.Is/As/Unwrap, and by the interface conversion of a struct literal.

const fmtMethodsProg = `package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

type Pt struct{ X, Y int }

func (p Pt) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

type MyErr struct{ Code int }

func (e *MyErr) Error() string { return fmt.Sprintf("code %d", e.Code) }

type ValErr struct{ msg string }

func (e ValErr) Error() string { return "valerr " + e.msg }

type Line struct {
	A, B Pt
	N    int
}

type Sentinel struct{}

func (Sentinel) Error() string { return "sentinel" }

type wrapErr struct{ inner error }

func (w wrapErr) Error() string { return "wrap: " + w.inner.Error() }
func (w wrapErr) Unwrap() error { return w.inner }

type isErr struct{ k int }

func (e isErr) Error() string        { return "isErr" }
func (e isErr) Is(target error) bool { return target == errTarget }

var errTarget = errors.New("target")

type byLen []string

func (s byLen) Len() int           { return len(s) }
func (s byLen) Less(i, j int) bool { return len(s[i]) < len(s[j]) }
func (s byLen) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

func find() error { return &MyErr{42} }

func main() {
	p := Pt{1, 2}
	fmt.Println(p, &p)
	fmt.Println([]Pt{{1, 2}, {3, 4}})
	fmt.Println([2]Pt{{5, 6}, {7, 8}})
	fmt.Println(map[string]Pt{"a": {1, 1}})
	fmt.Println(Line{Pt{0, 0}, Pt{1, 1}, 3})
	fmt.Println([]*Pt{&p})
	fmt.Printf("%v %s %d\n", []Pt{p}, []Pt{p}, p.X)
	s := fmt.Sprint([]Pt{p})
	fmt.Println(s, len(s))
	var err error = &MyErr{7}
	fmt.Println(err)
	fmt.Printf("%v|%s\n", err, err)
	fmt.Println(ValErr{"x"}, []error{ValErr{"y"}, &MyErr{1}})
	e2 := fmt.Errorf("ctx: %w", find())
	fmt.Println(e2)
	var me *MyErr
	fmt.Println(errors.As(e2, &me), me.Code)
	w := wrapErr{Sentinel{}}
	fmt.Println(errors.Is(w, Sentinel{}))
	fmt.Println(errors.Is(isErr{1}, errTarget))
	words := []string{"ccc", "a", "bb"}
	sort.Sort(byLen(words))
	fmt.Println(words)
	fmt.Println(strings.Repeat("-", 3))
}
`

func TestTracebookFmtMethodsInComposites(t *testing.T) {
	checkTypesProg(t, fmtMethodsProg, `(1,2) (1,2)
[(1,2) (3,4)]
[(5,6) (7,8)]
map[a:(1,1)]
{(0,0) (1,1) 3}
[(1,2)]
[(1,2)] [(1,2)] 1
[(1,2)] 7
code 7
code 7|code 7
valerr x [valerr y code 1]
ctx: code 42
true 42
true
true
[a bb ccc]
---
`)
}

const fmtVerbsProg = `package main

import "fmt"

type T int

func (t T) String() string { return fmt.Sprintf("T<%d>", int(t)) }

type E struct{ Code int }

func (e E) Error() string { return fmt.Sprintf("E%d", e.Code) }

type PS struct{ N int }

func (p *PS) String() string { return "ptr-stringer" }

type Both struct{}

func (Both) Error() string  { return "as-error" }
func (Both) String() string { return "as-string" }

type Wrap struct {
	Name  string
	Items []T
	m     T
}

func main() {
	fmt.Printf("%v %s %d %x %q %5s|%-6v|\n", T(1), T(2), T(3), T(255), T(4), T(5), T(6))
	fmt.Printf("%v %d %+v\n", E{7}, E{8}, E{9})
	fmt.Println(PS{1}, &PS{2}, []*PS{{3}}, []PS{{4}})
	fmt.Println(Both{}, []Both{{}})
	fmt.Printf("%v %+v\n", Wrap{"w", []T{1, 2}, 3}, Wrap{"w", []T{1}, 3})
	fmt.Println(map[T]int{1: 2}, map[string][]T{"k": {1}})
	fmt.Println(fmt.Sprint(T(1), E{2}), fmt.Sprintln([]E{{3}}))
	fmt.Printf("%d %v\n", []T{1, 2}, []T{1, 2})
	var ts []T
	fmt.Println(ts, len(ts))
	fmt.Println(fmt.Errorf("wrapped: %w", E{5}))
	fmt.Print(fmt.Sprintln([1]E{{6}}))
}
`

func TestTracebookFmtVerbs(t *testing.T) {
	// Go 1.26 prints the same but: "m:3" (yaegi's reflect struct fields of
	// unexported names are X-prefixed), and "map[T<1>:2]" (map keys are not
	// wrapped: wrappers are not comparable).
	checkTypesProg(t, fmtVerbsProg, `T<1> T<2> 3 543c3235353e "T<4>"  T<5>|T<6>  |
E7 {8} E9
{1} ptr-stringer [ptr-stringer] [{4}]
as-error [as-error]
{w [T<1> T<2>] 3} {Name:w Items:[T<1>] Xm:3}
map[1:2] map[k:[T<1>]]
T<1> E2 [E3]

[1 2] [T<1> T<2>]
[] 0
wrapped: E5
[E6]
`)
}

const errorLiteralProg = `package main

import "fmt"

type isErr struct{ k int }

func (e isErr) Error() string { return "isErr" }

type P struct{ k int }

func (e *P) Error() string { return "P" }

func main() {
	var e error = isErr{2}
	fmt.Println(e)
	var e2 error
	e2 = isErr{3}
	fmt.Println(e2)
	e3 := error(isErr{4})
	fmt.Println(e3)
	var e4 error = &P{1}
	fmt.Println(e4)
	x := isErr{5}
	var e5 error = x
	fmt.Println(e5)
}
`

func TestTracebookErrorStructLiteral(t *testing.T) {
	checkTypesProg(t, errorLiteralProg, `isErr
isErr
isErr
P
isErr
`)
}
