package align

// lanesStep returns the vector step loop for D and Wx, nil where there is
// none: AVX2 for the default scoring's D = 4, Wx = 1.
func lanesStep(d, wx int) func(k *lanesKernel, from, to int) {
	if d != 4 || wx != 1 || !hasAVX2 {
		return nil
	}
	return func(k *lanesKernel, from, to int) {
		bpLanes41AVX2(&k.st, &k.peq[0], &k.rowoff[0], &k.cin[0], &k.cout[0], &k.real, from, to)
	}
}

var hasAVX2 = cpuHasAVX2()

// bpLanes41AVX2 runs steps from..to-1 (from >= 3) of the four-lane loop
// for D = 4, Wx = 1 (bplanes_amd64.s); stepGo is its reference.
//
//go:noescape
func bpLanes41AVX2(st *lanesState, peq *uint64, rowoff *int32, cin, cout *uint8, real *[4]uint64, from, to int)

// cpuHasAVX2 reports whether the CPU and the OS support AVX2.
func cpuHasAVX2() bool
