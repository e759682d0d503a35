//go:build go1.22
// +build go1.22

package generic

import _ "embed"

//go:embed go1_22_cmp_cmp.go.txt
var cmpSource string

//go:embed go1_22_maps_maps.go.txt
var mapsSource string

//go:embed go1_22_slices_slices.go.txt
var slicesSource string

//go:embed go1_22_slices_sort.go.txt
var slicesSortSource string

//go:embed go1_22_slices_zsortanyfunc.go.txt
var slicesSortFuncSource string

//go:embed go1_22_slices_zsortordered.go.txt
var slicesSortOrderedSource string

//go:embed go1_22_sync_oncefunc.go.txt
var syncSource string

// Package iter and the iterator functions of maps and slices (Go 1.23),
// added by tracebook.

//go:embed go1_22_tracebook_iter.go.txt
var iterSource string

//go:embed go1_22_tracebook_slices_iter.go.txt
var slicesIterSource string

//go:embed go1_22_tracebook_maps_iter.go.txt
var mapsIterSource string

// Sources contains the list of generic packages source strings.
var Sources = [...]string{
	cmpSource,
	mapsSource,
	slicesSource,
	slicesSortSource, slicesSortFuncSource, slicesSortOrderedSource, // tracebook: Go 1.26 slices sorting
	syncSource,                                   // tracebook: sync.OnceValue, OnceValues
	iterSource, slicesIterSource, mapsIterSource, // tracebook: Go 1.23 iterators
}
