package hugepage

import (
	"syscall"
	"unsafe"
)

// hugeMin is the smallest allocation worth backing by huge pages.
const hugeMin = 4 << 20

// Advise asks the kernel to back the memory of s, a slice not yet
// written, with transparent huge pages (madvise MADV_HUGEPAGE) when it is
// at least 4 MiB: a column of a big trace is then faulted in 2 MiB at a
// time instead of 4 KiB, which takes most of the system time out of
// filling it. It is advice: nothing changes where the kernel does not
// support it.
func Advise[T any](s []T) {
	var zero T
	n := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if n < hugeMin {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s[:1])))
	const page = 4096
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + n) &^ (page - 1)
	if hi <= lo {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, 14 /* MADV_HUGEPAGE */)
}
