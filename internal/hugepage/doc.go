// Package hugepage advises the kernel to back big, freshly made slices
// (the columns a trace reader fills) with transparent huge pages.
package hugepage
