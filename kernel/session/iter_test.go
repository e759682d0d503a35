package session

import (
	"testing"
)

// Range over int (Go 1.22), range over func and package iter (Go 1.23), as
// cells use them; see third_party/yaegi/PATCHES.md, "range over func".

func TestRangeOverFuncCells(t *testing.T) {
	s, out, _, _ := newTest(t)
	mustRun(t, s, `import "iter"
func count(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}
func pairs(words ...string) func(yield func(string, int) bool) {
	return func(yield func(string, int) bool) {
		for _, w := range words {
			if !yield(w, len(w)) {
				fmt.Println("stopped at", w)
				return
			}
		}
	}
}
func firstLong(words ...string) string {
	for w, n := range pairs(words...) {
		if n > 3 {
			return w
		}
	}
	return ""
}`)
	checkCells(t, s, out, []cellCase{
		{"total := 0\nfor v := range count(5) {\n\ttotal += v\n}\ntotal", "", "10"},
		{"for w, n := range pairs(\"go\", \"yaegi\", \"tracebook\", \"x\") {\n\tif n == 2 {\n\t\tcontinue\n\t}\n\tif n > 5 {\n\t\tbreak\n\t}\n\tfmt.Println(w, n)\n}",
			"yaegi 5\nstopped at tracebook\n", ""},
		{`firstLong("a", "bb", "cccc", "dd")`, "stopped at cccc\n", `"cccc"`},
		{"for x := range func(yield func(int) bool) { _ = yield(1) && yield(2) } {\n\tfmt.Println(x)\n}", "1\n2\n", ""},
		{"for i := range 3 {\n\tfmt.Print(i, \" \")\n}", "0 1 2 ", ""},
		{"grid := 0\nouter:\nfor i := range count(3) {\n\tfor j := range count(3) {\n\t\tif j > i {\n\t\t\tcontinue outer\n\t\t}\n\t\tgrid += 10*i + j\n\t}\n}\ngrid", "", "84"},
	})
}

func TestIterStdlibCells(t *testing.T) {
	s, out, _, _ := newTest(t)
	mustRun(t, s, `import ("iter"; "maps"; "slices")
m := map[string]int{"b": 2, "a": 1, "c": 3}`)
	checkCells(t, s, out, []cellCase{
		{`slices.Sorted[string](maps.Keys[map[string]int, string, int](m))`, "", "[a b c]"},
		{`slices.SortedFunc[int](maps.Values[map[string]int, string, int](m), func(a, b int) int { return b - a })`, "", "[3 2 1]"},
		{"for i, v := range slices.Backward[[]string, string]([]string{\"x\", \"y\"}) {\n\tfmt.Println(i, v)\n}", "1 y\n0 x\n", ""},
		{"func sortedOf(seq iter.Seq[int]) []int { return slices.Sorted[int](seq) }\nsortedOf(slices.Values[[]int, int]([]int{3, 1, 2}))", "", "[1 2 3]"},
	})
}

// TestIterStdlibInferredCells: iterator functions with inferred type
// arguments. slices.Sorted(maps.Keys(m)) and slices.Collect(slices.Values(s)),
// maps.Collect(maps.All(m)) still fail to infer E (README, "Go in cells").
func TestIterStdlibInferredCells(t *testing.T) {
	s, out, _, _ := newTest(t)
	mustRun(t, s, `import ("maps"; "slices")
m := map[string]int{"b": 2, "a": 1, "c": 3}`)
	checkCells(t, s, out, []cellCase{
		{"for i, v := range slices.All([]string{\"x\", \"y\"}) {\n\tfmt.Println(i, v)\n}", "0 x\n1 y\n", ""},
	})
}

// cellCase is a cell with the stdout it prints and the value it shows.
type cellCase struct{ cell, out, val string }

// checkCells runs the cells in one session and checks each one's stdout and
// shown value exactly.
func checkCells(t *testing.T, s *Session, out *syncBuf, cases []cellCase) {
	t.Helper()
	for _, tc := range cases {
		before := len(out.String())
		r := mustRun(t, s, tc.cell)
		if got := out.String()[before:]; got != tc.out {
			t.Errorf("cell %q: stdout %q, want %q", tc.cell, got, tc.out)
		}
		if got := text(r); got != tc.val {
			t.Errorf("cell %q: value %q, want %q", tc.cell, got, tc.val)
		}
	}
}
