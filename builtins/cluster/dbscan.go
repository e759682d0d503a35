package cluster

import (
	"fmt"
	"math"

	"github.com/tracebook/tracebook/builtins/work"
)

// DBSCAN (Ester et al. 1996) as Weber 2016, section 5.1.2, Algorithm 4
// writes it.

// dbResult is one DBSCAN clustering.
type dbResult struct {
	Label    []int32 // cluster of each point, 0..Clusters-1; -1 is noise
	Clusters int
	Core     []bool // core points: at least minPts-1 neighbours
}

// dbscan clusters the points of d by density, following Algorithm 4
// exactly. The neighbours of a point are the other points at distance
// <= eps: the point itself does not count, and a point is a core point when
// it has at least minPts-1 neighbours (Algorithm 4: "sizeof(neighborPs) <
// minPs - 1" marks noise), i.e. at least minPts points within eps counting
// itself, as in Ester et al. So minPts = 1 makes every point a core point
// and minPts = 2 makes every point with a neighbour one.
//
// Points are visited in index order; each unvisited core point starts the
// next cluster (numbered 0.. in order of discovery), which grows through
// the neighbourhoods of its core points. A non-core point within eps of a
// core point (a border point) belongs to the first cluster that reaches it;
// the other points are noise (-1).
//
// Each point's neighbourhood is read once (n^2 distance reads in all);
// memory is O(n) besides the matrix.
func dbscan(d *Distances, eps float64, minPts int) (dbResult, error) {
	switch {
	case eps < 0 || math.IsNaN(eps):
		return dbResult{}, fmt.Errorf("dbscan: eps = %g, want eps >= 0", eps)
	case minPts < 1:
		return dbResult{}, fmt.Errorf("dbscan: minPts = %d, want minPts >= 1", minPts)
	}
	n := d.Len()
	j := work.Start("DBSCAN", int64(n), "points")
	defer j.Done()

	const none = -1
	r := dbResult{Label: make([]int32, n), Core: make([]bool, n)}
	for i := range r.Label {
		r.Label[i] = none
	}
	visited := make([]bool, n)
	nb := make([]int32, 0, n)    // neighbourhood being read
	queue := make([]int32, 0, n) // points of the growing cluster; each enters once
	// visit marks p visited and reads its neighbourhood into nb; it
	// reports whether p is a core point.
	visit := func(p int) (bool, error) {
		visited[p] = true
		nb = regionQuery(d, p, eps, nb[:0])
		r.Core[p] = len(nb) >= minPts-1
		return r.Core[p], j.Add(1)
	}
	for p := range n {
		if visited[p] {
			continue
		}
		core, err := visit(p)
		if err != nil {
			return dbResult{}, err
		}
		if !core {
			continue // noise, unless a later cluster reaches it
		}
		c := int32(r.Clusters)
		r.Clusters++
		r.Label[p] = c
		// expandCluster: a point is labelled when it enters the queue, which
		// is when Algorithm 4 would add it (lines 20-21): nothing else can
		// claim it before, and a point already in a cluster is left alone.
		queue = queue[:0]
		for _, q := range nb {
			if r.Label[q] == none {
				r.Label[q] = c
				queue = append(queue, q)
			}
		}
		for h := 0; h < len(queue); h++ {
			q := int(queue[h])
			if visited[q] {
				continue // noise seen earlier: a border point
			}
			core, err := visit(q)
			if err != nil {
				return dbResult{}, err
			}
			if !core {
				continue
			}
			for _, s := range nb {
				if r.Label[s] == none {
					r.Label[s] = c
					queue = append(queue, s)
				}
			}
		}
	}
	return r, nil
}

// regionQuery appends to nb the points other than p at distance <= eps
// from p, in increasing order.
func regionQuery(d *Distances, p int, eps float64, nb []int32) []int32 {
	for q, x := range d.row(p) {
		if float64(x) <= eps {
			nb = append(nb, int32(q))
		}
	}
	for q := p + 1; q < d.n; q++ {
		if q&4095 == 0 {
			work.Check()
		}
		if float64(d.v[index(q, p)]) <= eps {
			nb = append(nb, int32(q))
		}
	}
	return nb
}
