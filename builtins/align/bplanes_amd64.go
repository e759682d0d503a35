package align

//go:generate go run gen_lanes.go

// lanesFunc runs steps from..to-1 (from >= 3) of the four-lane loop.
type lanesFunc func(st *lanesState, peq *uint64, rowoff *int32, cin, cout *uint8, real *[4]uint64, from, to int)

// lanesStep returns the vector step loop for D and Wx, nil where there is
// none: AVX2 (bplanes_amd64.s, generated) for D <= 4.
func lanesStep(d, wx int) func(k *lanesKernel, from, to int) {
	if !hasAVX2 || d >= len(lanesAVX2) || wx >= len(lanesAVX2[d]) || lanesAVX2[d][wx] == nil {
		return nil
	}
	f := lanesAVX2[d][wx]
	return func(k *lanesKernel, from, to int) {
		f(&k.st, &k.peq[0], &k.rowoff[0], &k.cin[0], &k.cout[0], &k.real, from, to)
	}
}

var hasAVX2 = cpuHasAVX2()

// cpuHasAVX2 reports whether the CPU and the OS support AVX2 (cpu_amd64.s).
func cpuHasAVX2() bool
