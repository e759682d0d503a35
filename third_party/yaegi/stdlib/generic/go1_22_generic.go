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

// Sources contains the list of generic packages source strings.
var Sources = [...]string{
	cmpSource,
	mapsSource,
	slicesSource,
	slicesSortSource, slicesSortFuncSource, slicesSortOrderedSource, // tracebook: Go 1.26 slices sorting
	syncSource, // tracebook: sync.OnceValue, OnceValues
}
