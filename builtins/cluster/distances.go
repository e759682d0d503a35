package cluster

import (
	"fmt"
	"math"

	"github.com/tracebook/tracebook/builtins/work"
)

// Distances is a symmetric n x n distance matrix with 0 on the diagonal,
// the input of the baseline clusterings (K-Medoids, DBSCAN; Weber 2016,
// section 5.1.2). Only the strict lower triangle is stored, in float32:
// n(n-1)/2 * 4 bytes, the figures of Weber's Table 5.5 (1,024 processes
// ~2 MB, 16,384 ~512 MB, 131,072 ~32 GB).
type Distances struct {
	n int
	v []float32 // row i (i >= 1) holds d(i, 0..i-1) at v[i(i-1)/2:]
}

// DistancesBytes returns the memory a Distances of n processes needs:
// n(n-1)/2 * 4 bytes (math.MaxInt64 when that does not fit an int64).
func DistancesBytes(n int) int64 {
	if n < 2 {
		return 0
	}
	if int64(n) > 2_000_000_000 {
		return math.MaxInt64
	}
	return int64(n) * int64(n-1) * 2
}

// NewDistances returns an n x n matrix of zeros. It checks first that the
// matrix fits in the memory still available; the error then says how much
// memory n processes need and how much there is (a *work.MemoryError).
func NewDistances(n int) (*Distances, error) {
	if n < 0 {
		return nil, fmt.Errorf("cluster.NewDistances: n = %d processes, want n >= 0", n)
	}
	need := DistancesBytes(n)
	const what = "distance matrix"
	err := work.Reserve(what, need)
	if err == nil && (need == math.MaxInt64 || need/4 > math.MaxInt) {
		avail, _ := work.Available()
		err = &work.MemoryError{What: what, Need: need, Available: avail}
	}
	if err != nil {
		return nil, fmt.Errorf("cluster.NewDistances: %d processes: %w", n, err)
	}
	return &Distances{n: n, v: make([]float32, need/4)}, nil
}

// Len returns the number of processes n.
func (d *Distances) Len() int { return d.n }

// index returns the position of d(i, j) for i > j.
func index(i, j int) int { return i*(i-1)/2 + j }

func (d *Distances) check(fn string, i, j int) {
	if uint(i) >= uint(d.n) || uint(j) >= uint(d.n) {
		panic(fmt.Errorf("cluster.Distances.%s: index (%d, %d) out of range [0, %d)", fn, i, j, d.n))
	}
}

// At returns d(i, j) = d(j, i); d(i, i) is 0.
func (d *Distances) At(i, j int) float64 {
	d.check("At", i, j)
	switch {
	case i > j:
		return float64(d.v[index(i, j)])
	case i < j:
		return float64(d.v[index(j, i)])
	}
	return 0
}

// Set sets d(i, j) and d(j, i) to v (rounded to float32). The diagonal is
// fixed at 0: Set(i, i, v) panics unless v is 0.
func (d *Distances) Set(i, j int, v float64) {
	d.check("Set", i, j)
	switch {
	case i > j:
		d.v[index(i, j)] = float32(v)
	case i < j:
		d.v[index(j, i)] = float32(v)
	default:
		if v != 0 {
			panic(fmt.Errorf("cluster.Distances.Set: diagonal (%d, %d) must stay 0, got %g", i, j, v))
		}
	}
}

// row returns d(i, 0..i-1), the stored part of row i.
func (d *Distances) row(i int) []float32 {
	b := index(i, 0)
	return d.v[b : b+i : b+i]
}

// at is At without the range check, for the algorithms' inner loops.
func (d *Distances) at(i, j int) float32 {
	if i > j {
		return d.v[index(i, j)]
	}
	if i < j {
		return d.v[index(j, i)]
	}
	return 0
}
