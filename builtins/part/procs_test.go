package part_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
)

// UnionProcesses against a brute-force oracle on random ascending sets.
func TestUnionProcesses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var a, b []int32
		owner := map[int32]int{}
		for p := range int32(rng.IntN(12)) {
			switch rng.IntN(3) {
			case 0:
				a = append(a, p)
				owner[p]++
			case 1:
				b = append(b, p)
				owner[p]++
			}
		}
		overlap := int32(-1)
		if rng.IntN(4) == 0 && len(a) > 0 {
			overlap = a[rng.IntN(len(a))]
			if !slices.Contains(b, overlap) {
				b = append(b, overlap)
				slices.Sort(b)
			}
		}
		got, err := part.UnionProcesses("test", slices.Clone(a), b)
		if overlap >= 0 {
			if err == nil || !strings.Contains(err.Error(), "is in both partials") {
				t.Fatalf("%v and %v share %d: err %v", a, b, overlap, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v and %v: %v", a, b, err)
		}
		var want []int32
		for p := range int32(12) {
			if owner[p] > 0 {
				want = append(want, p)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("union of %v and %v = %v, want %v", a, b, got, want)
		}
	}
}

func TestMergeSorted(t *testing.T) {
	id := func(x int) int { return x }
	got, err := part.MergeSorted("f", "process", []int{1, 4, 9}, []int{0, 5, 10, 11}, id)
	if err != nil || !slices.Equal(got, []int{0, 1, 4, 5, 9, 10, 11}) {
		t.Errorf("MergeSorted = %v, %v", got, err)
	}
	if _, err := part.MergeSorted("f", "process", []int{1, 4}, []int{4}, id); err == nil || err.Error() != "f: process 4 is in both partials" {
		t.Errorf("a process in both: %v", err)
	}
	if got, _ := part.MergeSorted("f", "process", nil, []int{2}, id); !slices.Equal(got, []int{2}) {
		t.Errorf("into nothing: %v", got)
	}
}
