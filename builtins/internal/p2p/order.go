package p2p

import (
	"runtime"

	"github.com/tracebook/tracebook/builtins/work"
)

// digitBits is the width of a radix digit: 65,536 buckets, a 512 KB
// histogram per worker; times of runs up to 18 hours (2^46 ns) sort in
// three passes.
const digitBits = 16

// parallelFrom is the number of keys from which a pass is split among the
// cores (below it, starting goroutines costs more than it saves).
const parallelFrom = 1 << 16

// StableOrder returns the permutation that sorts keys stably: ascending,
// equal keys in their order in keys. It is a least-significant-digit radix
// sort of the keys minus their smallest, 16 bits a pass, skipping the
// digits that all keys share, each pass split among the cores; sorted keys
// cost one pass to check. It polls work.Check between passes. len(keys)
// must be below 2^31.
func StableOrder(keys []int64) []int32 {
	n := len(keys)
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	if n < 2 {
		return idx
	}
	lo, hi, sorted := keys[0], keys[0], true
	for i, k := range keys[1:] {
		lo, hi = min(lo, k), max(hi, k)
		if k < keys[i] {
			sorted = false
		}
	}
	if sorted {
		return idx
	}
	k := make([]uint64, n)
	for i, v := range keys {
		k[i] = uint64(v) - uint64(lo)
	}
	_, idx = sortPairs(k, idx, uint64(hi)-uint64(lo))
	return idx
}

// sortPairs sorts keys (all <= span) with their values by a stable
// least-significant-digit radix sort and returns them sorted (in keys and
// vals or in buffers of the same length).
func sortPairs[V any](keys []uint64, vals []V, span uint64) ([]uint64, []V) {
	n := len(keys)
	workers := 1
	if n >= parallelFrom {
		workers = max(1, runtime.GOMAXPROCS(0))
	}
	k2, v2 := make([]uint64, n), make([]V, n)
	count := make([][]int, workers)
	for w := range count {
		count[w] = make([]int, 1<<digitBits)
	}
	part := func(w int) (int, int) { return w * n / workers, (w + 1) * n / workers }
	for shift := uint(0); shift < 64 && span>>shift != 0; shift += digitBits {
		work.Check()
		work.Parallel(workers, func(w int) {
			c := count[w]
			clear(c)
			a, b := part(w)
			for _, v := range keys[a:b] {
				c[v>>shift&(1<<digitBits-1)]++
			}
		})
		// bucket d of worker w starts after bucket d of the workers before
		// it and all smaller buckets: stable
		sum, one := 0, false
		for d := range 1 << digitBits {
			inBucket := 0
			for w := range workers {
				c := count[w][d]
				count[w][d] = sum
				sum += c
				inBucket += c
			}
			one = one || inBucket == n
		}
		if one {
			continue // one digit for all: this pass changes nothing
		}
		work.Parallel(workers, func(w int) {
			c := count[w]
			a, b := part(w)
			for i, v := range keys[a:b] {
				d := v >> shift & (1<<digitBits - 1)
				j := c[d]
				c[d]++
				k2[j], v2[j] = v, vals[a+i]
			}
		})
		keys, k2, vals, v2 = k2, keys, v2, vals
	}
	return keys, vals
}
