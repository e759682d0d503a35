package cluster

import (
	"fmt"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// K-Medoids after Weber 2016, section 5.1.2, Algorithm 3 (Voronoi
// iteration), with the silhouette coefficient (Rousseeuw 1987) to choose k.

// kmResult is one K-Medoids clustering.
type kmResult struct {
	K          int
	Assign     []int32 // cluster of each point, 0..K-1
	Medoids    []int32 // medoid of each cluster, increasing point index
	Cost       float64 // sum over points of the distance to their medoid
	Iterations int     // assignment passes
	Silhouette float64 // mean silhouette coefficient of Assign
}

// kmMaxIterations bounds the Voronoi iteration. The cost decreases strictly
// whenever a medoid changes, so the iteration ends on its own; the bound only
// guards against float rounding making a cycle of equal costs.
const kmMaxIterations = 1000

// kMedoids partitions the n points of d into k clusters (Algorithm 3).
//
// Initialisation (deterministic): the first medoid is the point with the
// least total distance to all others (the 1-medoid optimum); each next
// medoid is the point farthest from its nearest medoid so far (farthest
// first; ties: lowest index). So an initial medoid is at distance 0 from
// an earlier one only when every point left is: for a metric such as
// pairsim's Jaccard distance, only when fewer than k points differ.
//
// Iteration: every point joins its nearest medoid (ties: the medoid of
// lowest index; a medoid always joins its own cluster), then each cluster's
// medoid becomes the member with the least sum of distances to the members
// (ties: lowest index), but only when that sum is strictly less than the
// current medoid's, which makes the cost decrease at every change and the
// iteration end. It stops when no medoid changes. Clusters are numbered by
// increasing medoid index.
//
// Memory: O(n) besides the matrix (and the silhouette's, see silhouette).
func kMedoids(d *Distances, k int) (kmResult, error) {
	n := d.Len()
	if k < 1 || k > n {
		return kmResult{}, fmt.Errorf("kMedoids: k = %d, want 1 <= k <= n = %d", k, n)
	}
	j := work.Start(fmt.Sprintf("k-medoids (k = %d)", k), 0, "rows")
	defer j.Done()

	medoids, err := kmInit(d, k, j)
	if err != nil {
		return kmResult{}, err
	}
	assign := make([]int32, n)
	sums := make([]float64, n)
	best := make([]int32, k)
	r := kmResult{K: k, Assign: assign, Medoids: medoids}
	for {
		r.Iterations++
		if r.Cost, err = kmAssign(d, medoids, assign, j); err != nil {
			return kmResult{}, err
		}
		if r.Iterations >= kmMaxIterations {
			break
		}
		if err := clusterSums(d, assign, sums, j); err != nil {
			return kmResult{}, err
		}
		changed := false
		copy(best, medoids)
		for i := range n { // increasing i: strict < keeps the lowest index on ties
			if c := assign[i]; sums[i] < sums[best[c]] {
				best[c] = int32(i)
			}
		}
		for c, m := range best {
			if m != medoids[c] {
				changed = true
				medoids[c] = m
			}
		}
		if !changed {
			break
		}
		slices.Sort(medoids)
	}
	r.Silhouette = silhouette(d, assign)
	return r, nil
}

// kmInit chooses the k initial medoids (see kMedoids), in increasing order.
func kmInit(d *Distances, k int, j *work.Job) ([]int32, error) {
	n := d.Len()
	total := make([]float64, n)
	for i := 1; i < n; i++ {
		var s float64
		for jj, x := range d.row(i) {
			s += float64(x)
			total[jj] += float64(x)
		}
		total[i] += s
		if err := j.Add(1); err != nil {
			return nil, err
		}
	}
	first := 0
	for i, t := range total {
		if t < total[first] {
			first = i
		}
	}
	medoids := []int32{int32(first)}
	near := total // distance to the nearest medoid; -1 marks medoids
	for i := range near {
		near[i] = float64(d.at(first, i))
	}
	near[first] = -1
	for len(medoids) < k {
		next := -1
		for i, x := range near {
			if x >= 0 && (next < 0 || x > near[next]) {
				next = i
			}
		}
		medoids = append(medoids, int32(next))
		near[next] = -1
		for i, x := range near {
			if y := float64(d.at(next, i)); x >= 0 && y < x {
				near[i] = y
			}
		}
		if err := j.Add(1); err != nil {
			return nil, err
		}
	}
	slices.Sort(medoids)
	return medoids, nil
}

// kmAssign puts every point in the cluster of its nearest medoid (medoids
// in increasing order, so strict < keeps the lowest index on ties; a medoid
// in its own cluster) and returns the cost.
func kmAssign(d *Distances, medoids []int32, assign []int32, j *work.Job) (float64, error) {
	var cost float64
	for i := range assign {
		best, bd := 0, d.at(int(medoids[0]), i)
		for c := 1; c < len(medoids); c++ {
			if x := d.at(int(medoids[c]), i); x < bd {
				best, bd = c, x
			}
		}
		assign[i] = int32(best)
		cost += float64(bd)
		if i&1023 == 1023 {
			if err := j.Add(1024); err != nil {
				return 0, err
			}
		}
	}
	for c, m := range medoids {
		assign[m] = int32(c) // d(m, m) = 0: the cost is unchanged
	}
	return cost, nil
}

// clusterSums sets sums[i] to the sum of the distances from i to the
// members of its cluster, in one pass over the stored triangle.
func clusterSums(d *Distances, assign []int32, sums []float64, j *work.Job) error {
	clear(sums)
	for i := 1; i < len(assign); i++ {
		ci := assign[i]
		var s float64
		for jj, x := range d.row(i) {
			if assign[jj] == ci {
				s += float64(x)
				sums[jj] += float64(x)
			}
		}
		sums[i] += s
		if err := j.Add(1); err != nil {
			return err
		}
	}
	return nil
}

// kMedoidsRange runs kMedoids for every k in [kmin, kmax] and returns the
// clustering of the best mean silhouette (ties: the smallest k) and all of
// them, by increasing k (so perK holds kmax-kmin+1 assignments of n
// points).
func kMedoidsRange(d *Distances, kmin, kmax int) (best kmResult, perK []kmResult, err error) {
	n := d.Len()
	switch {
	case kmin < 1:
		return best, nil, fmt.Errorf("kMedoidsRange: kmin = %d, want kmin >= 1", kmin)
	case kmax > n:
		return best, nil, fmt.Errorf("kMedoidsRange: kmax = %d, want kmax <= n = %d", kmax, n)
	case kmin > kmax:
		return best, nil, fmt.Errorf("kMedoidsRange: kmin = %d > kmax = %d", kmin, kmax)
	}
	for k := kmin; k <= kmax; k++ {
		r, err := kMedoids(d, k)
		if err != nil {
			return kmResult{}, nil, err
		}
		perK = append(perK, r)
		if k == kmin || r.Silhouette > best.Silhouette {
			best = r
		}
	}
	return best, perK, nil
}

// silhouetteBlockBytes bounds silhouette's sums (a variable for tests).
var silhouetteBlockBytes = 64 << 20

// silhouette returns the mean silhouette coefficient (Rousseeuw 1987) of
// the clustering assign (cluster numbers 0.., negative = unclustered, such
// as DBSCAN's noise, which is neither scored nor part of any cluster):
// for a point i of cluster A, a = mean distance to the other members of A,
// b = least mean distance to the members of another non-empty cluster, and
// s(i) = (b-a)/max(a, b). s(i) is 0 when A is a singleton, when there is
// no other cluster, and when a = b = 0 (i sits at distance 0 from its own
// cluster and from another one: nothing separates them). The mean is over
// the clustered points; 0 when there are none.
//
// It reads the triangle once per block of clusters, accumulating the sums
// of at most 64 MiB of (cluster, point) pairs at a time, so the memory is
// O(n) plus min(64 MiB, 8 bytes x clusters x n). Interrupts panic (work.Check).
func silhouette(d *Distances, assign []int32) float64 {
	n := d.Len()
	if len(assign) != n {
		panic(fmt.Errorf("silhouette: %d labels for %d points", len(assign), n))
	}
	k := 0
	for _, c := range assign {
		k = max(k, int(c)+1)
	}
	size := make([]int, k)
	for _, c := range assign {
		if c >= 0 {
			size[c]++
		}
	}
	a := make([]float64, n)
	b := make([]float64, n)
	for i := range b {
		b[i] = -1 // none yet
	}
	// The sums of cluster c sit at acc[(c-c0)*stride:]; a stride of 8 mod
	// 512 float64 keeps the clusters' sums for one point in different
	// cache sets (a power-of-two n would put them all in one).
	stride := (n+511)/512*512 + 8
	block := max(1, min(k, silhouetteBlockBytes/(8*stride)))
	acc := make([]float64, block*stride)
	for c0 := 0; c0 < k; c0 += block {
		c1 := min(k, c0+block)
		clear(acc)
		for i := 1; i < n; i++ {
			work.Check()
			ci := int(assign[i])
			in := ci >= c0 && ci < c1
			var row []float64
			if in {
				row = acc[(ci-c0)*stride : (ci-c0)*stride+n]
			}
			for jj, x := range d.row(i) {
				if in {
					row[jj] += float64(x)
				}
				if cj := int(assign[jj]); cj >= c0 && cj < c1 {
					acc[(cj-c0)*stride+i] += float64(x)
				}
			}
		}
		for i, ci := range assign {
			if ci < 0 {
				continue
			}
			for c := c0; c < c1; c++ {
				sum := acc[(c-c0)*stride+i]
				switch {
				case c == int(ci):
					if size[c] > 1 {
						a[i] = sum / float64(size[c]-1)
					}
				case size[c] > 0:
					if m := sum / float64(size[c]); b[i] < 0 || m < b[i] {
						b[i] = m
					}
				}
			}
		}
	}
	var total float64
	count := 0
	for i, ci := range assign {
		if ci < 0 {
			continue
		}
		count++
		if size[ci] == 1 || b[i] < 0 {
			continue
		}
		if m := max(a[i], b[i]); m > 0 {
			total += (b[i] - a[i]) / m
		}
	}
	if count == 0 {
		return 0
	}
	return total / float64(count)
}
