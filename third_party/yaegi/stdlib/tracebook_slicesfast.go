package stdlib

import (
	"reflect"
	"slices"
)

// Compiled helpers for the generic slices source (stdlib/generic): the
// interpreted Sort, Min, Max, BinarySearch, Contains and Index call them for
// []int, []int64, []float64 and []string, and overlaps calls Overlaps, as
// interpreted code has no unsafe. The import path is not a Go package.
func init() {
	Symbols["tracebook/slicesfast/slicesfast"] = map[string]reflect.Value{
		"Overlaps": reflect.ValueOf(overlaps),

		"SortInt":     reflect.ValueOf(slices.Sort[[]int]),
		"SortInt64":   reflect.ValueOf(slices.Sort[[]int64]),
		"SortFloat64": reflect.ValueOf(slices.Sort[[]float64]),
		"SortString":  reflect.ValueOf(slices.Sort[[]string]),

		"MinInt":     reflect.ValueOf(slices.Min[[]int]),
		"MinInt64":   reflect.ValueOf(slices.Min[[]int64]),
		"MinFloat64": reflect.ValueOf(slices.Min[[]float64]),
		"MinString":  reflect.ValueOf(slices.Min[[]string]),

		"MaxInt":     reflect.ValueOf(slices.Max[[]int]),
		"MaxInt64":   reflect.ValueOf(slices.Max[[]int64]),
		"MaxFloat64": reflect.ValueOf(slices.Max[[]float64]),
		"MaxString":  reflect.ValueOf(slices.Max[[]string]),

		"BinarySearchInt":     reflect.ValueOf(slices.BinarySearch[[]int]),
		"BinarySearchInt64":   reflect.ValueOf(slices.BinarySearch[[]int64]),
		"BinarySearchFloat64": reflect.ValueOf(slices.BinarySearch[[]float64]),
		"BinarySearchString":  reflect.ValueOf(slices.BinarySearch[[]string]),

		"IndexInt":     reflect.ValueOf(slices.Index[[]int]),
		"IndexInt64":   reflect.ValueOf(slices.Index[[]int64]),
		"IndexFloat64": reflect.ValueOf(slices.Index[[]float64]),
		"IndexString":  reflect.ValueOf(slices.Index[[]string]),
	}
}

// overlaps reports whether the memory ranges a[:len(a)] and b[:len(b)]
// overlap; a and b are slices of one element type.
func overlaps(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Len() == 0 || vb.Len() == 0 {
		return false
	}
	size := va.Type().Elem().Size()
	if size == 0 {
		return false
	}
	pa, pb := va.Pointer(), vb.Pointer()
	return pa <= pb+uintptr(vb.Len()-1)*size+(size-1) &&
		pb <= pa+uintptr(va.Len()-1)*size+(size-1)
}
