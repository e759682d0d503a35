package interp_test

import "testing"

// Values of interpreted types in interfaces, as compiled code and the
// interpreter's own operations see them: json and reflect get the concrete
// value, map keys of interface type are found through an interface
// variable, a pointer keeps the value methods of its element, a struct
// literal in a global interface variable keeps its methods, fmt sees
// methods of values in []any and map[string]any, a value round-tripped
// through sync.Map asserts back, a nil interpreted interface prints <nil>,
// and variadic arguments of a compiled function (errors.Join) are wrapped
// one by one.
const compiledSeesProg = `package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
)

type Score int

func (s Score) String() string { return fmt.Sprint(int(s), " pts") }

type Shape interface{ Area() float64 }

type Sq struct{ S float64 }

func (s Sq) Area() float64 { return s.S * s.S }

type NotFound struct{ Key string }

func (n NotFound) Error() string { return n.Key + " not found" }

type Item struct{ N int }

func (i Item) String() string { return fmt.Sprint("item ", i.N) }

var global any = Sq{3}

var shape Shape = Sq{4}

func main() {
	var v any = Score(3)
	b, _ := json.Marshal(v)
	fmt.Println(string(b), reflect.ValueOf(v).Kind(), v)
	m := map[any]int{}
	m[Score(1)] = 10
	var k any = Score(1)
	x, ok := m[k]
	fmt.Println(x, ok, len(m))
	delete(m, k)
	fmt.Println(len(m))
	var e any = &NotFound{"p"}
	_, isErr := e.(error)
	fmt.Println(isErr, e)
	s, ok := global.(Shape)
	fmt.Println(s.Area(), ok, shape.Area())
	fmt.Println([]any{nil, Item{1}, map[string]any{"k": Item{2}}})
	var sm sync.Map
	sm.Store("a", Item{5})
	got, _ := sm.Load("a")
	it, ok := got.(Item)
	fmt.Println(it.N, ok)
	var nilShape Shape
	fmt.Println(nilShape, []Shape{nil, Sq{1}})
	err := errors.Join(NotFound{"x"}, NotFound{"y"})
	var nf NotFound
	fmt.Println(errors.As(err, &nf), nf.Key)
}
`

func TestTracebookInterfaceValuesForCompiledCode(t *testing.T) {
	checkTypesProg(t, compiledSeesProg, `3 int 3 pts
10 true 1
0
true p not found
9 true 16
[<nil> item 1 map[k:item 2]]
5 true
<nil> [<nil> {1}]
true x
`)
}
