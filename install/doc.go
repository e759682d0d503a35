// Package install holds the kernelspec template (kernel.json and logos)
// that `tracebook install` writes; the files are embedded in the binary.
package install

import "embed"

// Files is the kernelspec directory template.
//
//go:embed kernel.json logo-32x32.png logo-64x64.png logo-svg.svg
var Files embed.FS
