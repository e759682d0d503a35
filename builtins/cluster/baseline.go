package cluster

import (
	"fmt"
	"html"
	"math"
	"math/big"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Baseline is a clustering of processes by one of the common algorithms
// Weber 5.1.2 compares hash clustering with: K-Medoids (Algorithm 3) or
// DBSCAN (Algorithm 4), on the process x process distance matrix 1 -
// similarity (pairsim, or the clustering's measure). Unlike the structural
// groups, their results depend on parameters (k, eps, minPts), and the
// matrix needs n(n-1)/2 * 4 bytes for n processes (Weber Table 5.5).
type Baseline struct {
	Method     string    // "K-Medoids" or "DBSCAN"
	Params     string    // "k = 3", "eps = 0.3, minPts = 2"
	Clusters   int       // number of clusters (noise not counted)
	Silhouette float64   // mean silhouette coefficient (K-Medoids; DBSCAN: of its clusters, noise as singletons)
	PerK       []float64 // K-Medoids: the mean silhouette of each k tried, from kmin
	Kmin       int

	c     *Clustering
	label []int32 // per clustered process; -1 noise
}

// distances builds the process x process distance matrix of c: 1 -
// similarity of the processes' groups (equal to the process measure, since
// processes of one group have equal sets).
//
// With eps >= 0 (DBSCAN) the matrix is also exact at eps: whether a
// distance is at most eps is decided on the exact fraction 1 - inter/union
// against the decimal eps stands for (0.3 is 3/10, see decimalRat), and a
// stored float32 on the wrong side of dbscan's float32 threshold is moved
// to the nearest float32 on the right side (one float32 step at most). So
// two processes at exactly 70% similarity are neighbours at eps = 0.3,
// which 1 - 0.7 = 0.30000000000000004 would deny.
func (c *Clustering) distances(fn string, eps float64) *Distances {
	d, err := NewDistances(len(c.procs))
	if err != nil {
		failErr(fn, err)
	}
	m := c.Matrix()
	g := len(c.groups)
	dist := make([][]float32, g)
	for i := range g {
		dist[i] = make([]float32, g)
		for j := range g {
			dist[i][j] = float32(1 - m.Values[i][j])
		}
	}
	if eps >= 0 {
		e := float32Below(eps)
		er := decimalRat(eps)
		ef, _ := er.Float64()
		for i := range g {
			for j := range g {
				num, den := m.frac(i, j)
				df := 1 - m.Values[i][j]
				var near bool
				switch {
				case df-ef > 1e-12:
				case ef-df > 1e-12:
					near = true
				default:
					near = big.NewRat(den-num, den).Cmp(er) <= 0
				}
				switch {
				case near && dist[i][j] > e:
					dist[i][j] = e
				case !near && dist[i][j] <= e:
					dist[i][j] = math.Nextafter32(e, float32(math.Inf(1)))
				}
			}
		}
	}
	job := work.Start("distance matrix", int64(len(c.procs)), "processes")
	defer job.Done()
	for i := 1; i < len(c.procs); i++ {
		row := dist[c.groupOf[i]]
		for j := 0; j < i; j++ {
			d.v[index(i, j)] = row[c.groupOf[j]]
		}
		job.Add(1)
		job.Check()
	}
	return d
}

// KMedoids clusters c's processes with K-Medoids (Weber Algorithm 3) for
// every k in [kmin, kmax] and keeps the k with the best mean silhouette
// coefficient (ties: the smallest k).
func KMedoids(c *Clustering, kmin, kmax int) *Baseline {
	const fn = "cluster.KMedoids"
	if c == nil {
		fail(fn, "clustering is nil")
	}
	if kmin < 1 || kmax < kmin || kmax > len(c.procs) {
		fail(fn, "k range [%d, %d] is invalid for %d processes (need 1 <= kmin <= kmax <= processes)", kmin, kmax, len(c.procs))
	}
	best, perK, err := kMedoidsRange(c.distances(fn, -1), kmin, kmax)
	if err != nil {
		failErr(fn, err)
	}
	b := &Baseline{Method: "K-Medoids", Params: fmt.Sprintf("k = %d", best.K), Clusters: best.K,
		Silhouette: best.Silhouette, Kmin: kmin, c: c, label: best.Assign}
	if kmin != kmax {
		b.Params += fmt.Sprintf(" (best silhouette in %d..%d)", kmin, kmax)
	}
	for _, r := range perK {
		b.PerK = append(b.PerK, r.Silhouette)
	}
	return b
}

// DBSCAN clusters c's processes with DBSCAN (Weber Algorithm 4): eps is the
// largest distance 1 - similarity of neighbours (Weber 5.3.1 uses 0.3, "70%
// structural similarity"), minPts the smallest cluster. The distance is
// compared with eps exactly: processes at exactly 70% similarity are
// neighbours at eps = 0.3.
func DBSCAN(c *Clustering, eps float64, minPts int) *Baseline {
	const fn = "cluster.DBSCAN"
	if c == nil {
		fail(fn, "clustering is nil")
	}
	if eps < 0 || eps != eps || minPts < 1 {
		fail(fn, "eps = %v, minPts = %d: need eps >= 0 and minPts >= 1", eps, minPts)
	}
	d := c.distances(fn, eps)
	r, err := dbscan(d, eps, minPts)
	if err != nil {
		failErr(fn, err)
	}
	sil := make([]int32, len(r.Label))
	next := int32(r.Clusters)
	for i, l := range r.Label {
		if l < 0 { // noise: its own singleton for the silhouette
			sil[i], next = next, next+1
		} else {
			sil[i] = l
		}
	}
	return &Baseline{Method: "DBSCAN", Params: fmt.Sprintf("eps = %g, minPts = %d", eps, minPts), Clusters: r.Clusters,
		Silhouette: silhouette(d, sil), c: c, label: r.Label}
}

// Labels returns the cluster of each clustered process in trace order (-1:
// DBSCAN noise).
func (b *Baseline) Labels() []int {
	out := make([]int, len(b.label))
	for i, l := range b.label {
		out[i] = int(l)
	}
	return out
}

// Cluster returns the processes of cluster i (-1: DBSCAN's noise).
func (b *Baseline) Cluster(i int) []*trace.Process {
	if i < -1 || i >= b.Clusters {
		fail("cluster.Baseline.Cluster", "cluster %d out of range: %d clusters (0..%d, -1 for noise)", i, b.Clusters, b.Clusters-1)
	}
	var out []*trace.Process
	for k, l := range b.label {
		if int(l) == i {
			out = append(out, b.c.procs[k])
		}
	}
	return out
}

// Table returns one row per process: Process, Label, Kind, Cluster (null
// for noise) and Group (its structural group, to compare).
func (b *Baseline) Table() *arrowio.Table {
	n := len(b.label)
	idx, cl, grp := make([]int32, n), make([]int32, n), make([]int32, n)
	valid := make([]bool, n)
	lab, kind := make([]string, n), make([]string, n)
	for i, p := range b.c.procs {
		idx[i], cl[i], valid[i], grp[i] = int32(p.Index), b.label[i], b.label[i] >= 0, b.c.groupOf[i]
		lab[i], kind[i] = p.Label(), Kind(p)
	}
	return arrowio.MustTable(arrowio.Int32("Process", idx), arrowio.String("Label", lab), arrowio.Dict("Kind", kind),
		arrowio.NullableInt32("Cluster", cl, valid), arrowio.Int32("Group", grp))
}

// String lists the clusters briefly.
func (b *Baseline) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s (%s): %d clusters of %d processes, silhouette %.3f", b.Method, b.Params, b.Clusters, len(b.label), b.Silhouette)
	for i := -1; i < min(b.Clusters, maxSummaryGroups); i++ {
		ps := b.Cluster(i)
		if len(ps) == 0 {
			continue
		}
		name := fmt.Sprintf("C%d", i)
		if i < 0 {
			name = "noise"
		}
		fmt.Fprintf(&s, "\n%s: %d processes (%s): %s", name, len(ps), kinds(ps), members(ps))
	}
	return s.String()
}

// MIMEBundle renders the text form as HTML.
func (b *Baseline) MIMEBundle() map[string]any {
	lines := strings.Split(b.String(), "\n")
	var h strings.Builder
	fmt.Fprintf(&h, "<div><b>%s</b>", html.EscapeString(lines[0]))
	for _, l := range lines[1:] {
		fmt.Fprintf(&h, "<br>%s", html.EscapeString(l))
	}
	h.WriteString("</div>")
	return map[string]any{"text/html": h.String(), "text/plain": b.String()}
}
