package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// bruteSilhouette is the mean silhouette coefficient straight from its
// definition (see silhouette).
func bruteSilhouette(d *Distances, assign []int32) float64 {
	var total float64
	count := 0
	for i, ci := range assign {
		if ci < 0 {
			continue
		}
		count++
		sum := map[int32]float64{}
		size := map[int32]int{}
		for j, cj := range assign {
			if cj >= 0 && j != i {
				sum[cj] += d.At(i, j)
				size[cj]++
			}
		}
		if size[ci] == 0 {
			continue // singleton
		}
		a := sum[ci] / float64(size[ci])
		b := math.Inf(1)
		for c, s := range size {
			if c != ci {
				b = min(b, sum[c]/float64(s))
			}
		}
		if math.IsInf(b, 1) || (a == 0 && b == 0) {
			continue
		}
		total += (b - a) / max(a, b)
	}
	if count == 0 {
		return 0
	}
	return total / float64(count)
}

func TestSilhouetteExample(t *testing.T) {
	// Points 0, 1, 10, 11 on a line, clusters {0, 1} and {10, 11}.
	d := pointDistances(t, [][2]float64{{0, 0}, {1, 0}, {10, 0}, {11, 0}})
	s0 := (10.5 - 1) / 10.5 // point 0: a = 1, b = (10 + 11) / 2
	s1 := (9.5 - 1) / 9.5   // point 1: a = 1, b = (9 + 10) / 2
	want := (s0 + s1) / 2   // the other two mirror them
	if got := silhouette(d, []int32{0, 0, 1, 1}); math.Abs(got-want) > 1e-15 {
		t.Errorf("silhouette = %v, want %v", got, want)
	}
	// One cluster, singletons, noise only, a = b = 0: all 0.
	if got := silhouette(d, []int32{0, 0, 0, 0}); got != 0 {
		t.Errorf("one cluster: %v, want 0", got)
	}
	if got := silhouette(d, []int32{0, 1, 2, 3}); got != 0 {
		t.Errorf("singletons: %v, want 0", got)
	}
	if got := silhouette(d, []int32{-1, -1, -1, -1}); got != 0 {
		t.Errorf("noise: %v, want 0", got)
	}
	z := mustDistances(t, 4)
	if got := silhouette(z, []int32{0, 0, 1, 1}); got != 0 {
		t.Errorf("all at distance 0: %v, want 0", got)
	}
	// Noise is ignored: the score of {0, 1} with 10 and 11 unclustered
	// is that of one cluster.
	if got := silhouette(d, []int32{0, 0, -1, -1}); got != 0 {
		t.Errorf("one cluster and noise: %v, want 0", got)
	}
}

func TestSilhouetteBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	defer func(b int) { silhouetteBlockBytes = b }(silhouetteBlockBytes)
	for iter := range 400 {
		n := 1 + rng.IntN(14)
		d := randomDistances(t, rng, n, iter%2 == 0)
		k := 1 + rng.IntN(n)
		assign := make([]int32, n)
		for i := range assign {
			assign[i] = int32(rng.IntN(k))
			if iter%3 == 0 && rng.IntN(4) == 0 {
				assign[i] = -1
			}
		}
		// Blocks of 1, 2 or all clusters per pass.
		silhouetteBlockBytes = []int{8 * 520, 16 * 520, 64 << 20}[iter%3]
		got, want := silhouette(d, assign), bruteSilhouette(d, assign)
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("n = %d, assign %v, block %d: silhouette = %v, brute force %v", n, assign, silhouetteBlockBytes, got, want)
		}
	}
}

// checkKMedoids checks that r is a fixed point of the Voronoi iteration
// with kMedoids' tie-breaks and that its figures are right; tol is 0 for
// dyadic matrices (exact sums).
func checkKMedoids(t *testing.T, d *Distances, k int, r kmResult, tol float64) {
	t.Helper()
	n := d.Len()
	if r.K != k || len(r.Medoids) != k || len(r.Assign) != n {
		t.Fatalf("K = %d, %d medoids, %d labels; want %d, %d, %d", r.K, len(r.Medoids), len(r.Assign), k, k, n)
	}
	if r.Iterations < 1 || r.Iterations >= kmMaxIterations {
		t.Errorf("%d iterations", r.Iterations)
	}
	for c, m := range r.Medoids {
		if c > 0 && m <= r.Medoids[c-1] {
			t.Fatalf("medoids %v not increasing", r.Medoids)
		}
		if r.Assign[m] != int32(c) {
			t.Errorf("medoid %d of cluster %d is in cluster %d", m, c, r.Assign[m])
		}
	}
	isMedoid := map[int32]bool{}
	for _, m := range r.Medoids {
		isMedoid[m] = true
	}
	var cost float64
	for i := range n {
		c := r.Assign[i]
		if c < 0 || int(c) >= k {
			t.Fatalf("point %d in cluster %d", i, c)
		}
		cost += d.At(i, int(r.Medoids[c]))
		if isMedoid[int32(i)] {
			continue
		}
		// Nearest medoid, lowest index on ties.
		best := r.Medoids[0]
		for _, m := range r.Medoids {
			if d.At(i, int(m)) < d.At(i, int(best)) {
				best = m
			}
		}
		if best != r.Medoids[c] {
			t.Errorf("point %d: medoid %d (%g), nearest %d (%g)", i, r.Medoids[c], d.At(i, int(r.Medoids[c])), best, d.At(i, int(best)))
		}
	}
	if math.Abs(cost-r.Cost) > tol {
		t.Errorf("Cost = %v, brute force %v", r.Cost, cost)
	}
	// Each medoid has the least distance sum within its cluster.
	sum := func(x int, c int32) (s float64) {
		for j := range n {
			if r.Assign[j] == c {
				s += d.At(x, j)
			}
		}
		return s
	}
	for c, m := range r.Medoids {
		sm := sum(int(m), int32(c))
		for x := range n {
			if r.Assign[x] == int32(c) && sum(x, int32(c)) < sm-tol {
				t.Errorf("cluster %d: member %d has sum %v < medoid %d's %v", c, x, sum(x, int32(c)), m, sm)
			}
		}
	}
	if want := bruteSilhouette(d, r.Assign); math.Abs(r.Silhouette-want) > 1e-12 {
		t.Errorf("Silhouette = %v, brute force %v", r.Silhouette, want)
	}
}

func TestKMedoidsFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 300 {
		n := 1 + rng.IntN(30)
		k := 1 + rng.IntN(n)
		dyadic := iter%2 == 0
		d := randomDistances(t, rng, n, dyadic)
		r, err := kMedoids(d, k)
		if err != nil {
			t.Fatal(err)
		}
		tol := 1e-9
		if dyadic {
			tol = 0
		}
		checkKMedoids(t, d, k, r, tol)
		if t.Failed() {
			t.Fatalf("iteration %d: n = %d, k = %d, dyadic %v", iter, n, k, dyadic)
		}
	}
}

// referenceKMedoids is kMedoids as its comment describes it, written
// plainly: every sum and nearest medoid computed from At.
func referenceKMedoids(d *Distances, k int) (medoids, assign []int32, iterations int) {
	n := d.Len()
	sumTo := func(x int, members func(int) bool) (s float64) {
		for j := range n {
			if members(j) {
				s += d.At(x, j)
			}
		}
		return s
	}
	// Farthest first from the point of least total distance.
	first := 0
	for i := range n {
		if sumTo(i, func(int) bool { return true }) < sumTo(first, func(int) bool { return true }) {
			first = i
		}
	}
	chosen := map[int]bool{first: true}
	for len(chosen) < k {
		next, far := -1, -1.0
		for i := range n {
			if chosen[i] {
				continue
			}
			near := math.Inf(1)
			for m := range chosen {
				near = min(near, d.At(i, m))
			}
			if near > far {
				next, far = i, near
			}
		}
		chosen[next] = true
	}
	for m := range chosen {
		medoids = append(medoids, int32(m))
	}
	slices.Sort(medoids)
	assign = make([]int32, n)
	for {
		iterations++
		for i := range n {
			best := 0
			for c, m := range medoids {
				if int(m) == i {
					best = c
					break
				}
				if d.At(i, int(m)) < d.At(i, int(medoids[best])) {
					best = c
				}
			}
			assign[i] = int32(best)
		}
		changed := false
		for c, m := range medoids {
			in := func(j int) bool { return assign[j] == int32(c) }
			best, bs := int(m), sumTo(int(m), in)
			for x := range n {
				if s := sumTo(x, in); in(x) && s < bs {
					best, bs = x, s
				}
			}
			changed = changed || best != int(m)
			medoids[c] = int32(best)
		}
		if !changed {
			return medoids, assign, iterations
		}
		slices.Sort(medoids)
	}
}

func TestKMedoidsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for iter := range 300 {
		n := 1 + rng.IntN(30)
		k := 1 + rng.IntN(n)
		d := randomDistances(t, rng, n, true) // exact sums: ties decided alike
		r, err := kMedoids(d, k)
		if err != nil {
			t.Fatal(err)
		}
		medoids, assign, iterations := referenceKMedoids(d, k)
		if !slices.Equal(r.Medoids, medoids) || !slices.Equal(r.Assign, assign) || r.Iterations != iterations {
			t.Fatalf("iteration %d: n = %d, k = %d:\nmedoids %v, %d iterations, assign %v\nwant    %v, %d iterations, assign %v",
				iter, n, k, r.Medoids, r.Iterations, r.Assign, medoids, iterations, assign)
		}
	}
}

// bestMedoidCost is the least cost over all sets of k medoids.
func bestMedoidCost(d *Distances, k int) float64 {
	n := d.Len()
	best := math.Inf(1)
	for set := range 1 << n {
		if bitCount(set) != k {
			continue
		}
		var cost float64
		for i := range n {
			near := math.Inf(1)
			for m := range n {
				if set&(1<<m) != 0 {
					near = min(near, d.At(i, m))
				}
			}
			cost += near
		}
		best = min(best, cost)
	}
	return best
}

func bitCount(x int) (c int) {
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestKMedoidsOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	runs, optimal := 0, 0
	var excess float64
	for iter := range 600 {
		n := 1 + rng.IntN(8)
		k := 1 + rng.IntN(min(3, n))
		var d *Distances
		if iter%2 == 0 {
			d = randomDistances(t, rng, n, true)
		} else { // points in the plane: a metric
			pts := make([][2]float64, n)
			for i := range pts {
				pts[i] = [2]float64{rng.Float64(), rng.Float64()}
			}
			d = pointDistances(t, pts)
		}
		r, err := kMedoids(d, k)
		if err != nil {
			t.Fatal(err)
		}
		checkKMedoids(t, d, k, r, 1e-9)
		opt := bestMedoidCost(d, k)
		if r.Cost < opt-1e-9 {
			t.Fatalf("n = %d, k = %d: Cost %v below the optimum %v", n, k, r.Cost, opt)
		}
		runs++
		if r.Cost <= opt+1e-9 {
			optimal++
		} else {
			excess += (r.Cost - opt) / opt
		}
	}
	t.Logf("K-Medoids optimal in %d of %d tiny inputs (n <= 8, k <= 3); mean excess when not %.1f%%",
		optimal, runs, 100*excess/float64(max(1, runs-optimal)))
}

// blobs returns len(sizes) groups of points in the plane, group g of
// sizes[g] points within radius 1 of (20g, 10g^2), interleaved by index, and
// each point's group.
func blobs(rng *rand.Rand, sizes []int) ([][2]float64, []int) {
	var pts [][2]float64
	var group []int
	for g, s := range sizes {
		for range s {
			a, r := 2*math.Pi*rng.Float64(), rng.Float64()
			pts = append(pts, [2]float64{20*float64(g) + r*math.Cos(a), 10*float64(g*g) + r*math.Sin(a)})
			group = append(group, g)
		}
	}
	rng.Shuffle(len(pts), func(i, j int) {
		pts[i], pts[j] = pts[j], pts[i]
		group[i], group[j] = group[j], group[i]
	})
	return pts, group
}

// samePartition reports whether labels and want group the points alike.
func samePartition(labels []int32, want []int) bool {
	fwd, back := map[int32]int{}, map[int]int32{}
	for i, l := range labels {
		if g, ok := fwd[l]; ok && g != want[i] {
			return false
		}
		if l2, ok := back[want[i]]; ok && l2 != l {
			return false
		}
		fwd[l], back[want[i]] = want[i], l
	}
	return true
}

func TestKMedoidsBlobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 20 {
		pts, group := blobs(rng, []int{5, 7, 9, 1 + iter%4})
		d := pointDistances(t, pts)
		r, err := kMedoids(d, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !samePartition(r.Assign, group) {
			t.Fatalf("blobs %d: clusters %v, planted %v", iter, r.Assign, group)
		}
		checkKMedoids(t, d, 4, r, 1e-9)
	}
	// Duplicates: 3 places, each 4 times; the medoids are one per place.
	var pts [][2]float64
	var group []int
	for i := range 12 {
		pts = append(pts, [2]float64{float64(i % 3), 0})
		group = append(group, i%3)
	}
	d := pointDistances(t, pts)
	r, err := kMedoids(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !samePartition(r.Assign, group) || r.Cost != 0 {
		t.Errorf("duplicates: clusters %v, cost %v; want %v, 0", r.Assign, r.Cost, group)
	}
}

func TestKMedoidsRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for planted := 2; planted <= 5; planted++ {
		sizes := make([]int, planted)
		for g := range sizes {
			sizes[g] = 4 + rng.IntN(6)
		}
		pts, group := blobs(rng, sizes)
		d := pointDistances(t, pts)
		best, perK, err := kMedoidsRange(d, 2, 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(perK) != 7 {
			t.Fatalf("%d results, want 7", len(perK))
		}
		for i, r := range perK {
			if r.K != 2+i {
				t.Errorf("perK[%d].K = %d", i, r.K)
			}
			if r.K != best.K && r.Silhouette >= best.Silhouette {
				t.Errorf("k = %d: silhouette %v >= best (k = %d) %v", r.K, r.Silhouette, best.K, best.Silhouette)
			}
		}
		if best.K != planted || !samePartition(best.Assign, group) {
			sil := make([]string, len(perK))
			for i, r := range perK {
				sil[i] = fmt.Sprintf("%d:%.3f", r.K, r.Silhouette)
			}
			t.Errorf("planted %d: best k = %d (silhouettes %s)", planted, best.K, strings.Join(sil, " "))
		}
	}
	// All distances equal: every k scores 0; the smallest k wins.
	d := mustDistances(t, 5)
	for i := range 5 {
		for j := range i {
			d.Set(i, j, 1)
		}
	}
	for _, kmin := range []int{1, 2} {
		best, perK, err := kMedoidsRange(d, kmin, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range perK {
			if r.Silhouette != 0 {
				t.Errorf("equal distances, k = %d: silhouette %v, want 0", r.K, r.Silhouette)
			}
		}
		if best.K != kmin {
			t.Errorf("equal distances, k in [%d, 5]: best k = %d, want %d", kmin, best.K, kmin)
		}
	}
}

func TestKMedoidsBadArguments(t *testing.T) {
	d := mustDistances(t, 4)
	for _, c := range []struct {
		err  func() error
		want string
	}{
		{func() error { _, err := kMedoids(d, 0); return err }, "kMedoids: k = 0"},
		{func() error { _, err := kMedoids(d, 5); return err }, "kMedoids: k = 5"},
		{func() error { _, _, err := kMedoidsRange(d, 0, 3); return err }, "kMedoidsRange: kmin = 0"},
		{func() error { _, _, err := kMedoidsRange(d, 1, 5); return err }, "kMedoidsRange: kmax = 5"},
		{func() error { _, _, err := kMedoidsRange(d, 3, 2); return err }, "kMedoidsRange: kmin = 3 > kmax = 2"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	for _, k := range []int{1, 4} {
		if _, err := kMedoids(d, k); err != nil {
			t.Errorf("kMedoids(k = %d): %v", k, err)
		}
	}
}

// BenchmarkKMedoids clusters planted groups with k = the group count:
// 16 groups, and the group counts of ParaDiS in Weber's Table 5.6 (187 at
// 1,024 processes, 207 at 4,096; seed: 8.3 s and 9 min 55 s).
func BenchmarkKMedoids(b *testing.B) {
	for _, c := range []struct{ n, k int }{{1024, 16}, {1024, 187}, {4096, 16}, {4096, 207}} {
		d := plantedDistances(b, c.n, c.k, 1)
		b.Run(fmt.Sprintf("n=%d/k=%d", c.n, c.k), func(b *testing.B) {
			var r kmResult
			var err error
			for b.Loop() {
				if r, err = kMedoids(d, c.k); err != nil {
					b.Fatal(err)
				}
			}
			group := make([]int, c.n)
			for i := range group {
				group[i] = i % c.k
			}
			if !samePartition(r.Assign, group) {
				b.Fatal("planted groups not found")
			}
			b.ReportMetric(float64(r.Iterations), "iterations")
		})
	}
}
