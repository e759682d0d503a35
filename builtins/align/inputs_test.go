package align

// Weber's input sets of Tables 3.2-3.6 (3.5.1): both sequences of length n.
var weberSets = []struct {
	name string
	gen  func(n int) ([]int32, []int32)
}{
	{"Equal", func(n int) ([]int32, []int32) { return pattern(n, "a"), pattern(n, "a") }},
	{"HalfEqual", func(n int) ([]int32, []int32) { return pattern(n, "a"), pattern(n, "ab") }},
	{"SmallEqualBlocks", func(n int) ([]int32, []int32) { return pattern(n, "a"), pattern(n, "aaabbbbbbb") }},
	{"LargeEqualBlocks", func(n int) ([]int32, []int32) { return pattern(n, "a"), pattern(n, "aaaaaaabbb") }},
	{"Different", func(n int) ([]int32, []int32) { return pattern(n, "a"), pattern(n, "b") }},
}

func pattern(n int, p string) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(p[i%len(p)])
	}
	return s
}
