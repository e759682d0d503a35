package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/work"
)

func lineDistances(t *testing.T, xs []float64) *Distances {
	pts := make([][2]float64, len(xs))
	for i, x := range xs {
		pts[i][0] = x
	}
	return pointDistances(t, pts)
}

func TestDBSCANHandMade(t *testing.T) {
	// On a line, eps 1.1, minPts 4 (>= 3 neighbours): A = 0 .. 2 by 0.5
	// (core 0.5 .. 2, border 0), B = 4 .. 6 by 0.5 (core 4 .. 5.5, border
	// 6), 3 a border point of both (neighbours 2 and 4), 9 noise.
	for _, c := range []struct {
		xs    []float64
		label []int32
	}{
		// B is discovered first and takes 3.
		{[]float64{5, 0, 3, 9, 1, 4, 6, 0.5, 4.5, 1.5, 5.5, 2},
			[]int32{0, 1, 0, -1, 1, 0, 0, 1, 0, 1, 0, 1}},
		// 3 comes first, is noise until A (discovered first) takes it.
		{[]float64{3, 2, 4, 0, 9, 0.5, 1, 1.5, 4.5, 5, 5.5, 6},
			[]int32{0, 0, 1, 0, -1, 0, 0, 0, 1, 1, 1, 1}},
	} {
		d := lineDistances(t, c.xs)
		r, err := dbscan(d, 1.1, 4)
		if err != nil {
			t.Fatal(err)
		}
		if lit := algorithm4(d, 1.1, 4); !slices.Equal(lit.Label, c.label) {
			t.Errorf("points %v: Algorithm 4 literally: labels %v, want %v", c.xs, lit.Label, c.label)
		}
		var core []bool
		for _, x := range c.xs {
			core = append(core, (x >= 0.5 && x <= 2) || (x >= 4 && x <= 5.5))
		}
		if !slices.Equal(r.Label, c.label) || r.Clusters != 2 || !slices.Equal(r.Core, core) {
			t.Errorf("points %v:\nlabels %v, %d clusters, core %v\nwant   %v, 2 clusters, core %v", c.xs, r.Label, r.Clusters, r.Core, c.label, core)
		}
	}
	// minPts 1: every point is a core point, clusters are the components
	// under eps; minPts 2: a point needs one neighbour.
	d := lineDistances(t, []float64{0, 5, 1, 9, 6})
	for _, c := range []struct {
		minPts int
		label  []int32
	}{
		{1, []int32{0, 1, 0, 2, 1}},
		{2, []int32{0, 1, 0, -1, 1}},
		{3, []int32{-1, -1, -1, -1, -1}},
	} {
		r, err := dbscan(d, 1, c.minPts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Label, c.label) {
			t.Errorf("minPts %d: labels %v, want %v", c.minPts, r.Label, c.label)
		}
	}
}

// algorithm4 is Weber's Algorithm 4 taken literally (the first version of
// dbscan): points visited in index order, each cluster grown from a queue
// of neighbourhoods, a point labelled when it joins the queue.
func algorithm4(d *Distances, eps float64, minPts int) dbResult {
	n := d.Len()
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
		return r.Core[p], nil
	}
	for p := range n {
		if visited[p] {
			continue
		}
		core, err := visit(p)
		if err != nil {
			panic(err)
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
				panic(err)
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
	return r
}

// regionQuery appends to nb the points other than p at distance <= eps
// from p, in increasing order.
func regionQuery(d *Distances, p int, eps float64, nb []int32) []int32 {
	for q := range d.Len() {
		if q != p && d.At(p, q) <= eps {
			nb = append(nb, int32(q))
		}
	}
	return nb
}

// dbscanOracle labels the points the brute-force way: core points have
// >= minPts-1 neighbours within eps (not counting themselves); clusters are
// the connected components of the core points under "within eps",
// numbered by their lowest point index; a border point takes the lowest
// cluster number among its core neighbours (the first cluster Algorithm 4
// discovers that reaches it); the rest is noise.
func dbscanOracle(d *Distances, eps float64, minPts int) (label []int32, core []bool) {
	n := d.Len()
	near := func(i, j int) bool { return i != j && d.At(i, j) <= eps }
	core = make([]bool, n)
	for i := range n {
		c := 0
		for j := range n {
			if near(i, j) {
				c++
			}
		}
		core[i] = c >= minPts-1
	}
	comp := make([]int, n) // component by the lowest index, flood fill
	for i := range comp {
		comp[i] = -1
	}
	for i := range n {
		if !core[i] || comp[i] >= 0 {
			continue
		}
		stack := []int{i}
		comp[i] = i
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for q := range n {
				if core[q] && comp[q] < 0 && near(p, q) {
					comp[q] = i
					stack = append(stack, q)
				}
			}
		}
	}
	number := map[int]int32{}
	for i := range n { // components in order of their lowest index
		if core[i] && comp[i] == i {
			number[i] = int32(len(number))
		}
	}
	label = make([]int32, n)
	for i := range n {
		label[i] = -1
		if core[i] {
			label[i] = number[comp[i]]
			continue
		}
		for q := range n {
			if core[q] && near(i, q) && (label[i] < 0 || number[comp[q]] < label[i]) {
				label[i] = number[comp[q]]
			}
		}
	}
	return label, core
}

func TestDBSCANOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for iter := range 1500 {
		n := 1 + rng.IntN(25)
		dyadic := iter%2 == 0
		d := randomDistances(t, rng, n, dyadic)
		eps := float64(rng.IntN(10)) / 8
		if !dyadic {
			// Also eps just around a stored (float32) distance.
			eps = rng.Float64()
			if n > 1 {
				x := d.At(1, 0)
				eps = []float64{x, math.Nextafter(x, 0), math.Nextafter(x, 1), eps}[rng.IntN(4)]
			}
		}
		minPts := 1 + rng.IntN(6)
		r, err := dbscan(d, eps, minPts)
		if err != nil {
			t.Fatal(err)
		}
		label, core := dbscanOracle(d, eps, minPts)
		if lit := algorithm4(d, eps, minPts); !slices.Equal(r.Label, lit.Label) || !slices.Equal(r.Core, lit.Core) || r.Clusters != lit.Clusters {
			t.Fatalf("iteration %d: labels %v, core %v, %d clusters; Algorithm 4 literally: %v, %v, %d",
				iter, r.Label, r.Core, r.Clusters, lit.Label, lit.Core, lit.Clusters)
		}
		where := fmt.Sprintf("iteration %d: n = %d, eps = %g, minPts = %d", iter, n, eps, minPts)
		if !slices.Equal(r.Core, core) {
			t.Fatalf("%s: core %v, oracle %v", where, r.Core, core)
		}
		// As partitions: noise alike, core points grouped alike, each
		// border point with one of its core neighbours.
		var coreL, coreO []int32
		for i := range n {
			if (r.Label[i] < 0) != (label[i] < 0) {
				t.Fatalf("%s: point %d labelled %d, oracle %d", where, i, r.Label[i], label[i])
			}
			if core[i] {
				coreL, coreO = append(coreL, r.Label[i]), append(coreO, label[i])
			}
		}
		wantO := make([]int, len(coreO))
		for i, l := range coreO {
			wantO[i] = int(l)
		}
		if !samePartition(coreL, wantO) {
			t.Fatalf("%s: core clusters %v, oracle %v", where, coreL, coreO)
		}
		for i := range n {
			if core[i] || label[i] < 0 {
				continue
			}
			ok := false
			for q := range n {
				ok = ok || (core[q] && q != i && d.At(i, q) <= eps && r.Label[q] == r.Label[i])
			}
			if !ok {
				t.Fatalf("%s: border point %d in cluster %d, none of its core neighbours is", where, i, r.Label[i])
			}
		}
		// Exactly: numbering by discovery.
		if !slices.Equal(r.Label, label) || r.Clusters != int(slices.Max(append(label, -1))+1) {
			t.Fatalf("%s: labels %v (%d clusters), oracle %v", where, r.Label, r.Clusters, label)
		}
	}
}

func TestDBSCANBadArguments(t *testing.T) {
	d := mustDistances(t, 3)
	for _, c := range []struct {
		eps    float64
		minPts int
		want   string
	}{
		{-0.5, 2, "dbscan: eps = -0.5"},
		{0.5, 0, "dbscan: minPts = 0"},
	} {
		if _, err := dbscan(d, c.eps, c.minPts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("dbscan(%g, %d) = %v, want an error containing %q", c.eps, c.minPts, err, c.want)
		}
	}
	r, err := dbscan(mustDistances(t, 0), 0, 1)
	if err != nil || len(r.Label) != 0 || r.Clusters != 0 {
		t.Errorf("empty: %+v, %v", r, err)
	}
}

func TestKMedoidsDBSCANInterrupted(t *testing.T) {
	d := plantedDistances(t, 50, 3, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	work.SetContext(ctx)
	defer work.SetContext(context.Background())
	if _, err := kMedoids(d, 3); !errors.Is(err, work.ErrInterrupted) {
		t.Errorf("kMedoids: %v, want interrupted", err)
	}
	if _, _, err := kMedoidsRange(d, 1, 3); !errors.Is(err, work.ErrInterrupted) {
		t.Errorf("kMedoidsRange: %v, want interrupted", err)
	}
	if _, err := dbscan(d, 0.3, 2); !errors.Is(err, work.ErrInterrupted) {
		t.Errorf("dbscan: %v, want interrupted", err)
	}
	func() {
		defer func() {
			if v := recover(); !work.Interrupted(v) {
				t.Errorf("silhouette: panic %v, want interrupted", v)
			}
		}()
		silhouette(d, make([]int32, 50))
	}()
}

// BenchmarkDBSCAN runs DBSCAN as Weber's Table 5.6 does (clusters of at
// least two members, 70% similarity: eps 0.3, minPts 2; seed 17.7 s at
// 1,024 processes, 25 min 38 s at 4,096) on planted groups.
func BenchmarkDBSCAN(b *testing.B) {
	for _, c := range []struct{ n, groups int }{{1024, 16}, {1024, 187}, {4096, 16}, {4096, 207}} {
		d := plantedDistances(b, c.n, c.groups, 1)
		b.Run(fmt.Sprintf("n=%d/groups=%d", c.n, c.groups), func(b *testing.B) {
			for b.Loop() {
				r, err := dbscan(d, 0.3, 2)
				if err != nil {
					b.Fatal(err)
				}
				if r.Clusters != c.groups {
					b.Fatalf("%d clusters, want %d", r.Clusters, c.groups)
				}
			}
		})
	}
}
