//go:build !amd64

package align

// lanesStep returns the vector step loop for D and Wx, nil where there is
// none (on this architecture: never).
func lanesStep(d, wx int) func(k *lanesKernel, from, to int) { return nil }
