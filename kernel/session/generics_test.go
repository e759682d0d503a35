package session

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestGenericsInCells runs, in one session, the generic code users write in
// cells (inference from func literals, ~ constraints, generic types and
// closures, instances across cells) and the generic standard library, and
// checks each cell's exact output and shown value.
func TestGenericsInCells(t *testing.T) {
	s, out, errb, _ := newTest(t)
	for _, c := range []struct{ name, code, stdout, value string }{
		{"Map infers U from the func literal", `func Map[T, U any](s []T, f func(T) U) []U { r := make([]U, 0, len(s)); for _, x := range s { r = append(r, f(x)) }; return r }
Map([]int{1,2,3}, func(i int) string { return fmt.Sprint(i*2) })`,
			"", "[2 4 6]"},
		{"Map with other types, another cell", `Map([]string{"a", "bb"}, func(s string) int { return len(s) })`,
			"", "[1 2]"},
		{"~ constraints with int and a named float64", `type Number interface{ ~int | ~int64 | ~float64 }
func Sum[T Number](xs []T) T { var s T; for _, x := range xs { s += x }; return s }
type Sec float64
fmt.Println(Sum([]int{1, 2, 3}), Sum([]Sec{1.5, 2.25}))`,
			"6 3.75\n", ""},
		{"generic type with pointer methods, two instances", `type Stack[T any] struct{ items []T }
func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }
func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}
var si Stack[int]
si.Push(1)
si.Push(2)
ss := &Stack[string]{}
ss.Push("x")
fmt.Println(si.Pop())
fmt.Println(ss.Pop())
fmt.Println(ss.Pop())`,
			"2 true\nx true\n false\n", ""},
		{"generic closure", `func Counter[T comparable]() func(T) int {
	seen := map[T]int{}
	return func(v T) int { seen[v]++; return seen[v] }
}
count := Counter[string]()
count("go")
count("yaegi")
count("go")`,
			"", "2"},
		{"same generic, another type, another cell", `ids := Counter[int]()
ids(7)`,
			"", "1"},
		{"Filter and Reduce", `func Filter[T any](s []T, keep func(T) bool) []T {
	var r []T
	for _, x := range s {
		if keep(x) {
			r = append(r, x)
		}
	}
	return r
}
func Reduce[T, A any](s []T, init A, f func(A, T) A) A {
	acc := init
	for _, x := range s {
		acc = f(acc, x)
	}
	return acc
}
evens := Filter([]int{1, 2, 3, 4, 5, 6}, func(i int) bool { return i%2 == 0 })
Reduce(evens, "", func(acc string, i int) string { return acc + fmt.Sprint(i) })`,
			"", "\"246\""},
		{"Filter on strings", `Filter([]string{"go", "rust", "gleam"}, func(s string) bool { return strings.HasPrefix(s, "g") })`,
			"", "[go gleam]"},
		{"untyped arguments take the largest default type", `func Max2[T cmp.Ordered](a, b T) T { if a > b { return a }; return b }
fmt.Println(Max2(3, 7), Max2("a", "b"), Max2(1, 2.5))`,
			"7 b 2.5\n", ""},
		{"slices.Max", `slices.Max([]int{3, 1, 4})`,
			"", "4"},
		{"sorting and searching", `xs := []int{5, 2, 8, 1}
slices.Sort(xs)
i, found := slices.BinarySearch(xs, 5)
fmt.Println(xs, i, found, slices.Min(xs), slices.Contains(xs, 8), slices.Index(xs, 2))`,
			"[1 2 5 8] 2 true 1 true 1\n", ""},
		{"SortStableFunc", `type P struct{ Name string; Age int }
people := []P{{"Ann", 31}, {"Bob", 25}, {"Cid", 31}}
slices.SortStableFunc(people, func(a, b P) int { return cmp.Compare(a.Age, b.Age) })
people`,
			"", "[{Bob 25} {Ann 31} {Cid 31}]"},
		{"Compact", `slices.Compact([]string{"a", "a", "b", "a"})`,
			"", "[a b a]"},
		{"maps.Clone and Equal", `m := map[string]int{"x": 1}
m2 := maps.Clone(m)
m2["y"] = 2
fmt.Println(m, m2, maps.Equal(m, m2))`,
			"map[x:1] map[x:1 y:2] false\n", ""},
		{"sync.OnceValue", `answer := sync.OnceValue(func() int { fmt.Println("computed"); return 42 })
fmt.Println(answer(), answer())`,
			"computed\n42 42\n", ""},
		{"a generic function value", "toS := Map[int, string]\ntoS([]int{4}, func(i int) string { return fmt.Sprint(i, i) })",
			"", "[4 4]"},
		{"inference through *Stack[T]", "func Drain[T any](s *Stack[T]) []T { r := s.items; s.items = nil; return r }\nss.Push(\"p\")\nss.Push(\"q\")\nDrain(ss)",
			"", "[p q]"},
	} {
		out.mu.Lock()
		out.b.Reset()
		out.mu.Unlock()
		r := s.Execute(context.Background(), c.code)
		s.Sync()
		if r.Err != nil {
			t.Fatalf("%s: %s: %s", c.name, r.Err.Name, r.Err.Value)
		}
		if got := out.String(); got != c.stdout {
			t.Errorf("%s: stdout %q, want %q", c.name, got, c.stdout)
		}
		if got := text(r); got != c.value {
			t.Errorf("%s: value %q, want %q", c.name, got, c.value)
		}
	}
	if e := errb.String(); e != "" {
		t.Errorf("stderr: %q", e)
	}
}

// TestSlicesSortSpeed prints the time of slices.Sort on 1M random ints in a
// cell: []int (compiled fast path), a named IDs []int, sort.Ints (compiled Go)
// and []int32 (interpreted generic code, about a minute). Run with
// TRACEBOOK_SORT_SPEED=1 go test ./kernel/session -run TestSlicesSortSpeed -v
func TestSlicesSortSpeed(t *testing.T) {
	if os.Getenv("TRACEBOOK_SORT_SPEED") == "" {
		t.Skip("set TRACEBOOK_SORT_SPEED=1")
	}
	s, out, _, _ := newTest(t)
	mustRun(t, s, `type IDs []int
func randInts(n int) []int {
	r := rand.New(rand.NewSource(1))
	a := make([]int, n)
	for i := range a {
		a[i] = r.Int()
	}
	return a
}
func timeMs(f func()) int64 { t := time.Now(); f(); return time.Since(t).Milliseconds() }`)
	mustRun(t, s, `const n = 1_000_000
a := randInts(n)
ids := IDs(slices.Clone(a))
c := slices.Clone(a)
a32 := make([]int32, n)
for i, x := range a { a32[i] = int32(x) }
fmt.Println("slices.Sort []int (fast path):", timeMs(func() { slices.Sort(a) }), "ms")
fmt.Println("slices.Sort IDs:", timeMs(func() { slices.Sort(ids) }), "ms")
fmt.Println("sort.Ints []int (compiled Go):", timeMs(func() { sort.Ints(c) }), "ms")
fmt.Println("slices.Sort []int32 (interpreted):", timeMs(func() { slices.Sort(a32) }), "ms")
fmt.Println(slices.Equal(a, c), slices.Equal([]int(ids), c), slices.IsSorted(a32))`)
	s.Sync()
	t.Log("\n" + out.String())
	if !strings.HasSuffix(out.String(), "true true true\n") {
		t.Errorf("sorts disagree: %q", out.String())
	}
}
