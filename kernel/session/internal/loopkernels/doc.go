// Package loopkernels holds small loop kernels measured twice by
// kernel/session's BenchmarkLoopKernels: compiled, as this package, and
// interpreted by yaegi, from this file's own text (Source).
package loopkernels

import _ "embed"

// Source is the text of kernels.go, for the interpreter.
//
//go:embed kernels.go
var Source string
