package part

import (
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// UnionProcesses returns the union of a and b, ascending lists of process
// indices (trace.Process.Index) of two partials, and an error of fn naming a
// process present in both: partials merge only over disjoint processes. The
// result may share a's storage.
func UnionProcesses(fn string, a, b []int32) ([]int32, error) {
	switch {
	case len(b) == 0:
		return a, nil
	case len(a) == 0:
		return slices.Clone(b), nil
	case a[len(a)-1] < b[0]:
		return append(a, b...), nil
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			return nil, work.Errorf(fn, "process %d is in both partials (merge needs disjoint process sets)", a[i])
		}
	}
	return out, nil
}

// MergeSorted returns the union of a and b, each ascending by key, for a
// partial's Merge over disjoint processes (or series); an element of the
// same key in both is an error of fn naming the key (what, e.g. "process").
func MergeSorted[T any](fn, what string, a, b []T, key func(T) int) ([]T, error) {
	out := make([]T, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && key(a[i]) < key(b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || key(b[j]) < key(a[i]):
			out = append(out, b[j])
			j++
		default:
			return nil, work.Errorf(fn, "%s %d is in both partials", what, key(a[i]))
		}
	}
	return out, nil
}
