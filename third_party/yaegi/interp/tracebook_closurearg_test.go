package interp_test

import "testing"

// A closure made in a loop and handed to compiled code that keeps it (here
// sync.OnceFunc, as a builtin keeping a callback would) captures that
// iteration's variables, as in Go: the wrapper made for compiled code used
// to run the closure's body in the frame of the call that made the wrapper,
// not in the closure's own captured frame (upstream 81a9d11b, issue #1634).
const closureArgProg = `package main

import (
	"fmt"
	"sync"
)

func main() {
	var fs []func()
	for i := 0; i < 3; i++ {
		fs = append(fs, sync.OnceFunc(func() { fmt.Print(i, " ") }))
	}
	for i := 0; i < 3; i++ {
		i := i
		fs = append(fs, sync.OnceFunc(func() { fmt.Print(i, " ") }))
	}
	for _, s := range []string{"a", "b", "c"} {
		fs = append(fs, sync.OnceFunc(func() { fmt.Print(s, " ") }))
	}
	f := func(n int) func() { return func() { fmt.Print(n*10, " ") } }
	for n := range 3 {
		fs = append(fs, sync.OnceFunc(f(n)))
	}
	for _, g := range fs {
		g()
	}
	fmt.Println()
	var deferred []int
	func() {
		for i := range 3 {
			defer func() { deferred = append(deferred, i) }()
		}
	}()
	fmt.Println(deferred)
}
`

func TestTracebookClosureHandedToCompiledCode(t *testing.T) {
	checkTypesProg(t, closureArgProg, "0 1 2 0 1 2 a b c 0 10 20 \n[2 1 0]\n")
}

// A struct type defined from a type defined from another struct type keeps
// the fields: composite literals and field selection went one level too
// shallow and the compiler panicked (upstream f6165819, issue #1679).
const definedFromDefinedProg = `package main

import "fmt"

type base struct {
	Name string
	N    int
}

type mid base

type top mid

func main() {
	t := &top{Name: "x", N: 2}
	v := top{"y", 3}
	type local base
	type local2 local
	l := &local2{Name: "z"}
	fmt.Println(t.Name, t.N, v.Name, v.N, l.Name)
}
`

func TestTracebookStructDefinedFromDefined(t *testing.T) {
	checkTypesProg(t, definedFromDefinedProg, "x 2 y 3 z\n")
}
