package cluster

import (
	"fmt"
	"math"

	"github.com/tracebook/tracebook/builtins/work"
)

// DBSCAN (Ester et al. 1996) as Weber 2016, section 5.1.2, Algorithm 4
// writes it.

// float32Below returns the largest float32 <= eps: a float32 x is <= e
// exactly when float64(x) <= eps.
func float32Below(eps float64) float32 {
	e := float32(eps)
	if float64(e) > eps {
		e = math.Nextafter32(e, float32(math.Inf(-1)))
	}
	return e
}

// dbResult is one DBSCAN clustering.
type dbResult struct {
	Label    []int32 // cluster of each point, 0..Clusters-1; -1 is noise
	Clusters int
	Core     []bool // core points: at least minPts-1 neighbours
}

// dbscan clusters the points of d by density with the result of
// Algorithm 4. The neighbours of a point are the other points at distance
// <= eps: the point itself does not count, and a point is a core point when
// it has at least minPts-1 neighbours (Algorithm 4: "sizeof(neighborPs) <
// minPs - 1" marks noise), i.e. at least minPts points within eps counting
// itself, as in Ester et al. So minPts = 1 makes every point a core point
// and minPts = 2 makes every point with a neighbour one.
//
// Algorithm 4 visits the points in index order; each unvisited core point
// starts the next cluster (numbered 0.. in order of discovery), which grows
// through the neighbourhoods of its core points. A non-core point within
// eps of a core point (a border point) belongs to the first cluster that
// reaches it; the other points are noise (-1). So the clusters are the
// connected components of the core points under "within eps", numbered in
// order of their lowest index, and a border point belongs to the first of
// them among its core neighbours'. dbscan computes exactly that in three
// sequential passes over the stored triangle (core points; components,
// union-find; border points) instead of Algorithm 4's neighbourhood
// queries, whose column reads jump through the whole matrix; the tests
// check it against Algorithm 4 taken literally.
//
// Memory: O(n) besides the matrix.
func dbscan(d *Distances, eps float64, minPts int) (dbResult, error) {
	switch {
	case eps < 0 || math.IsNaN(eps):
		return dbResult{}, fmt.Errorf("dbscan: eps = %g, want eps >= 0", eps)
	case minPts < 1:
		return dbResult{}, fmt.Errorf("dbscan: minPts = %d, want minPts >= 1", minPts)
	}
	n := d.Len()
	j := work.Start("DBSCAN", 3*int64(n), "rows")
	defer j.Done()
	e := float32Below(eps)
	r := dbResult{Label: make([]int32, n), Core: make([]bool, n)}

	// Pass 1: neighbour counts and core points.
	count := make([]int32, n)
	for i := range n {
		for jj, x := range d.row(i) {
			if x <= e {
				count[i]++
				count[jj]++
			}
		}
		if err := j.Add(1); err != nil {
			return dbResult{}, err
		}
	}
	for i, c := range count {
		r.Core[i] = int(c) >= minPts-1
	}

	// Pass 2: components of the core points; the root of each is its
	// lowest index.
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for i := range n {
		if r.Core[i] {
			for jj, x := range d.row(i) {
				if x <= e && r.Core[jj] {
					if a, b := find(int32(i)), find(int32(jj)); a != b {
						parent[max(a, b)] = min(a, b)
					}
				}
			}
		}
		if err := j.Add(1); err != nil {
			return dbResult{}, err
		}
	}
	// Clusters numbered in order of their roots. parent[x] <= x always, so
	// a root is labelled before its other members.
	for i := range n {
		switch {
		case !r.Core[i]:
			r.Label[i] = -1
		case parent[i] == int32(i):
			r.Label[i] = int32(r.Clusters)
			r.Clusters++
		default:
			r.Label[i] = r.Label[find(int32(i))]
		}
	}

	// Pass 3: each border point joins the first cluster among its core
	// neighbours'.
	join := func(b, c int) {
		if l := r.Label[c]; r.Label[b] < 0 || l < r.Label[b] {
			r.Label[b] = l
		}
	}
	for i := range n {
		for jj, x := range d.row(i) {
			if x <= e && r.Core[i] != r.Core[jj] {
				if r.Core[i] {
					join(jj, i)
				} else {
					join(i, jj)
				}
			}
		}
		if err := j.Add(1); err != nil {
			return dbResult{}, err
		}
	}
	return r, nil
}
