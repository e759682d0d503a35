package interp

import (
	"fmt"
	"math"
	"reflect"
)

// This file is tracebook's addition to yaegi (see ../PATCHES.md): a make
// or append in interpreted code asking for more memory than the machine
// has ended the process with Go's fatal "out of memory", which no recover
// catches. Options.Reserve is asked first, and its error is panicked.

// reserveMin is the size under which allocations are not checked: the
// check reads the memory available, too slow for every small make.
const reserveMin = 1 << 20

// reserveElems asks Options.Reserve for n elements of the slice, map or
// channel type t, made by make.
func (interp *Interpreter) reserveElems(t reflect.Type, n int) {
	if interp.opt.reserve == nil || n <= 0 {
		return
	}
	size := int64(t.Elem().Size())
	if t.Kind() == reflect.Map {
		size += int64(t.Key().Size())
	}
	if bytes := mulBytes(size, n); bytes >= reserveMin {
		interp.reserve(fmt.Sprintf("make(%s, %d)", t, n), bytes)
	}
}

// reserveGrowth asks Options.Reserve for the array a slice v grows into
// when add elements are appended beyond its capacity.
func (interp *Interpreter) reserveGrowth(v reflect.Value, add int) {
	if interp.opt.reserve == nil || v.Kind() != reflect.Slice {
		return
	}
	need := v.Len() + add
	if need <= v.Cap() {
		return
	}
	if bytes := mulBytes(int64(v.Type().Elem().Size()), need); bytes >= reserveMin {
		interp.reserve(fmt.Sprintf("append to %s of length %d", v.Type(), v.Len()), bytes)
	}
}

func (interp *Interpreter) reserve(what string, bytes int64) {
	if err := interp.opt.reserve(what, bytes); err != nil {
		panic(err)
	}
}

// mulBytes is size*n, or math.MaxInt64 if it overflows.
func mulBytes(size int64, n int) int64 {
	if size == 0 {
		return 0
	}
	if int64(n) > math.MaxInt64/size {
		return math.MaxInt64
	}
	return size * int64(n)
}
