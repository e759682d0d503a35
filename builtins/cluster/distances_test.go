package cluster

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/work"
)

func mustDistances(t testing.TB, n int) *Distances {
	t.Helper()
	d, err := NewDistances(n)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// randomDistances fills an n x n matrix with random values: multiples of
// 1/8 in [0, 2] when dyadic (sums are exact and ties frequent), uniform in
// [0, 1) otherwise. Not a metric.
func randomDistances(t testing.TB, rng *rand.Rand, n int, dyadic bool) *Distances {
	d := mustDistances(t, n)
	for i := range n {
		for j := range i {
			if dyadic {
				d.Set(i, j, float64(rng.IntN(17))/8)
			} else {
				d.Set(i, j, rng.Float64())
			}
		}
	}
	return d
}

// pointDistances is the Euclidean distance matrix of points in the plane.
func pointDistances(t testing.TB, pts [][2]float64) *Distances {
	d := mustDistances(t, len(pts))
	for i := range pts {
		for j := range i {
			d.Set(i, j, math.Hypot(pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]))
		}
	}
	return d
}

// plantedDistances has n points in groups of about equal size (point i in
// group i % groups): distances in [0, 0.2) within a group, [0.5, 1) across.
func plantedDistances(t testing.TB, n, groups int, seed uint64) *Distances {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := mustDistances(t, n)
	for i := range n {
		row := d.row(i)
		for j := range row {
			if i%groups == j%groups {
				row[j] = float32(0.2 * rng.Float64())
			} else {
				row[j] = float32(0.5 + 0.5*rng.Float64())
			}
		}
	}
	return d
}

func TestDistancesAtSet(t *testing.T) {
	const n = 9
	d := mustDistances(t, n)
	if d.Len() != n {
		t.Fatalf("Len = %d, want %d", d.Len(), n)
	}
	// Distinct values for every pair: a wrong index would alias two pairs.
	val := func(i, j int) float64 { return float64(min(i, j)*100+max(i, j)) + 0.5 }
	for i := range n {
		for j := i + 1; j < n; j++ {
			if (i+j)%2 == 0 {
				d.Set(i, j, val(i, j))
			} else {
				d.Set(j, i, val(i, j))
			}
		}
		d.Set(i, i, 0)
	}
	for i := range n {
		for j := range n {
			want := val(i, j)
			if i == j {
				want = 0
			}
			if got := d.At(i, j); got != want {
				t.Errorf("At(%d, %d) = %g, want %g", i, j, got, want)
			}
			if got := float64(d.at(i, j)); got != want {
				t.Errorf("at(%d, %d) = %g, want %g", i, j, got, want)
			}
		}
	}
	d.Set(2, 5, 0.1)
	if got, want := d.At(5, 2), float64(float32(0.1)); got != want {
		t.Errorf("At(5, 2) = %v, want float32-rounded %v", got, want)
	}
	for _, f := range []func(){
		func() { d.Set(3, 3, 1) },
		func() { d.At(n, 0) },
		func() { d.At(-1, 0) },
		func() { d.Set(0, n, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}

func TestDistancesBytes(t *testing.T) {
	for _, c := range []struct {
		n    int
		want int64
	}{
		{-3, 0}, {0, 0}, {1, 0}, {2, 4}, {3, 12},
		{128, 32_512},            // Table 5.5: ~32 kB
		{1024, 2_095_104},        // ~2 MB
		{16384, 536_838_144},     // ~512 MB
		{131072, 34_359_476_224}, // ~32 GB
		{1 << 40, math.MaxInt64},
	} {
		if got := DistancesBytes(c.n); got != c.want {
			t.Errorf("DistancesBytes(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	// Table 5.5: 1,024 processes need ~2 MB.
	if mib := float64(DistancesBytes(1024)) / (1 << 20); math.Abs(mib-2) > 0.01 {
		t.Errorf("DistancesBytes(1024) = %.3f MiB, want ~2", mib)
	}
	d := mustDistances(t, 1024)
	if got := int64(len(d.v)) * 4; got != DistancesBytes(1024) {
		t.Errorf("NewDistances(1024) holds %d bytes, want %d", got, DistancesBytes(1024))
	}
}

func TestNewDistancesMemory(t *testing.T) {
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "1G")
	for _, c := range []struct {
		n       int
		message string
	}{
		{100_000, "cluster.NewDistances: 100000 processes: distance matrix needs 18.63 GiB of memory, only "},
		{1 << 40, "cluster.NewDistances: 1099511627776 processes: distance matrix needs "},
	} {
		_, err := NewDistances(c.n)
		var me *work.MemoryError
		if !errors.As(err, &me) {
			t.Fatalf("NewDistances(%d) = %v, want a *work.MemoryError", c.n, err)
		}
		if me.Need != DistancesBytes(c.n) || me.Available > 1<<30 {
			t.Errorf("NewDistances(%d): need %d, available %d; want need %d, available <= 1 GiB",
				c.n, me.Need, me.Available, DistancesBytes(c.n))
		}
		if !strings.HasPrefix(err.Error(), c.message) {
			t.Errorf("NewDistances(%d) = %q, want it to start with %q", c.n, err, c.message)
		}
	}
	if _, err := NewDistances(1000); err != nil {
		t.Errorf("NewDistances(1000) under 1G: %v", err)
	}
	if _, err := NewDistances(-1); err == nil || !strings.Contains(err.Error(), "NewDistances: n = -1") {
		t.Errorf("NewDistances(-1) = %v, want an error naming n = -1", err)
	}
}
