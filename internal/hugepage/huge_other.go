//go:build !linux

package hugepage

// Advise does nothing where transparent huge pages are not advised.
func Advise[T any](s []T) {}
