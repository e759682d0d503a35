// Package mix is the 64-bit hash mixer the builtins share: the step of
// splitmix64 (Steele, Lea, Flood 2014), for deterministic generators,
// subtree hashes and k-mer sampling.
package mix

// Mix64 adds the golden-ratio increment to x and applies splitmix64's
// finaliser; Mix64(0) is splitmix64's first output for seed 0.
func Mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
