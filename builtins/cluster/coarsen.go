package cluster

import (
	"fmt"
	"html"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Coarsened is the greedy merge of structural groups of SC VIII.B
// (Clustering.Coarsen): groups are combined, the most similar pair first,
// while their similarity is at least σ; the similarity of a merged group
// to another is the average of its parts' similarities weighted by their
// process counts. For each merged group it recommends the two pairs of processes to align (SC
// VIII.D): the most dissimilar pair (one process of each of the two
// least similar groups merged into it) and the pair whose time profiles
// differ most.
type Coarsened struct {
	Sigma float64
	// Parts lists, per merged group, the structural groups it combines
	// (ascending); merged groups are ordered by their first part.
	Parts [][]int

	c        *Clustering
	pair     [][2]int // structural pair: batch positions, -1 if none
	pairSim  []float64
	time     [][2]int // time pair: batch positions, -1 if none
	timeDist []float64
	exact    []bool
}

// Coarsen merges the clustering's groups greedily at threshold σ (the merge
// of SC VIII.B) on the similarity matrix (Matrix): fewer, coarser groups,
// each with the pairs of processes to align.
func (c *Clustering) Coarsen(sigma float64) *Coarsened {
	const fn = "cluster.Clustering.Coarsen"
	if sigma < 0 || sigma > 1 || sigma != sigma {
		fail(fn, "σ = %v is outside [0, 1]", sigma)
	}
	m := c.Matrix()
	sizes := make([]int, len(c.groups))
	for i, g := range c.groups {
		sizes[i] = len(g)
	}
	parts := greedyMerge(m.Values, m.frac, sizes, sigma)
	r := &Coarsened{Sigma: sigma, Parts: parts, c: c}
	if part.Remote(c.tr) {
		var all []int
		for _, ps := range parts {
			if len(ps) == 1 && len(c.groups[ps[0]]) < 2 {
				continue
			}
			for _, g := range ps {
				for _, i := range c.groups[g] {
					all = append(all, int(i))
				}
			}
		}
		c.remoteProfiles(fn, all)
	}
	job := work.Start("recommending pairs", int64(len(parts)), "groups")
	defer job.Done()
	for _, ps := range parts {
		// Structural pair: the two least similar parts.
		sp, best := [2]int{-1, -1}, 2.0
		for a := 0; a < len(ps); a++ {
			for b := a + 1; b < len(ps); b++ {
				if v := m.Values[ps[a]][ps[b]]; v < best {
					best, sp = v, [2]int{int(c.groups[ps[a]][0]), int(c.groups[ps[b]][0])}
				}
			}
		}
		if sp[0] < 0 {
			best = 1
		}
		r.pair = append(r.pair, sp)
		r.pairSim = append(r.pairSim, best)
		var members []int
		for _, g := range ps {
			for _, i := range c.groups[g] {
				members = append(members, int(i))
			}
		}
		tp, d, exact := c.timePair(members)
		r.time = append(r.time, tp)
		r.timeDist = append(r.timeDist, d)
		r.exact = append(r.exact, exact)
		job.Add(1)
		job.Check()
	}
	return r
}

// Merge is Coarsen.
//
// Deprecated: use Coarsen; Merge means combining partials (builtins/part).
func (c *Clustering) Merge(sigma float64) *Coarsened { return c.Coarsen(sigma) }

// Merged is Coarsened.
//
// Deprecated: use Coarsened.
type Merged = Coarsened

// greedyMerge merges groups while the largest similarity between two
// current groups is >= sigma; ties go to the pair (i, j), i < j, with the
// smallest i, then j. The merged similarity is the size-weighted average.
// It keeps each row's best partner, so a merge costs O(g) unless rows must
// be rescanned.
//
// Every comparison (with σ, and between two similarities) is exact: sim
// holds the floating-point values and frac(i, j) the exact fraction of the
// original groups i and j; see exactSims.
func greedyMerge(sim [][]float64, frac func(i, j int) (num, den int64), sizes []int, sigma float64) [][]int {
	g := len(sim)
	s := make([][]float64, g)
	for i := range s {
		s[i] = append([]float64(nil), sim[i]...)
	}
	n := append([]int(nil), sizes...)
	alive := make([]bool, g)
	parts := make([][]int, g)
	for i := range alive {
		alive[i] = true
		parts[i] = []int{i}
	}
	ex := newExactSims(s, n, frac, sizes, parts)
	sig := decimalRat(sigma)
	sigMod, sigOK := ratResidue(sig)
	reaches := func(i, j int) bool { // sim(i, j) >= σ
		if !sigOK {
			return ex.exact(i, j).Cmp(sig) >= 0
		}
		return ex.cmpRat(i, j, sig, sigMod) >= 0
	}
	// better reports whether s[i][j] beats s[i][k] (row i's order: larger,
	// then lower column).
	better := func(i, j, k int) bool {
		c := ex.cmp(i, j, i, k)
		return c > 0 || c == 0 && j < k
	}
	best := make([]int, g) // row i's most similar alive j != i (lowest j on ties), -1 if none
	tol := ex.tol
	rescan := func(i int) {
		row := s[i]
		b, bv := -1, 0.0
		for j, v := range row {
			switch {
			case j == i || !alive[j]:
			case b < 0 || v-bv > tol:
				b, bv = j, v
			case bv-v > tol: // clearly worse
			case ex.cmp(i, j, i, b) > 0:
				b, bv = j, v
			}
		}
		best[i] = b
	}
	for i := range g {
		rescan(i)
	}
	for steps := 0; ; steps++ {
		if steps&63 == 0 {
			work.Check()
		}
		bi, bj := -1, -1
		for i := 0; i < g; i++ {
			if !alive[i] || best[i] < 0 {
				continue
			}
			j := best[i]
			a, b := min(i, j), max(i, j)
			if bi < 0 {
				bi, bj = a, b
				continue
			}
			if c := ex.cmp(a, b, bi, bj); c > 0 || (c == 0 && (a < bi || (a == bi && b < bj))) {
				bi, bj = a, b
			}
		}
		if bi < 0 || !reaches(bi, bj) {
			break
		}
		// merge bj into bi
		for k := 0; k < g; k++ {
			if alive[k] && k != bi && k != bj {
				v := (float64(n[bi])*s[bi][k] + float64(n[bj])*s[bj][k]) / float64(n[bi]+n[bj])
				s[bi][k], s[k][bi] = v, v
			}
		}
		ex.merged(bi, bj, alive)
		n[bi] += n[bj]
		alive[bj] = false
		parts[bi] = append(parts[bi], parts[bj]...)
		for k := 0; k < g; k++ {
			if !alive[k] {
				continue
			}
			switch {
			case k == bi || best[k] == bi || best[k] == bj:
				rescan(k)
			case better(k, bi, best[k]):
				best[k] = bi
			}
		}
	}
	var out [][]int
	for i := range g {
		if alive[i] {
			p := parts[i]
			slices.Sort(p)
			out = append(out, p)
		}
	}
	return out
}

// decimalRat returns the decimal x stands for: the shortest decimal that
// rounds to x (0.6 is 3/5, not the binary 0.59999999999999997780). A
// threshold typed as 0.6 is compared as 3/5.
func decimalRat(x float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	if !ok {
		panic(fmt.Sprintf("cluster: no decimal for %v", x))
	}
	return r
}

// exactSims decides comparisons of merged similarities exactly. The
// similarity of two merged groups X and Y is the process-weighted mean of
// their parts' similarities,
//
//	sim(X, Y) = S(X, Y) / (N_X N_Y),  S(X, Y) = Σ_{x∈X, y∈Y} n_x n_y sim(x, y)
//
// (the weighted average of SC VIII.B applied merge by merge is bilinear,
// so it comes to this whatever the order of the merges). Three tests, from
// cheap to dear:
//
//  1. Floating point. Each value starts within half an ulp (<= 2^-53) of
//     its fraction, and a weighted average of two values adds at most 3
//     roundings of 2^-53 to the larger of their errors, so after at most g
//     merges every value is within (1 + 3g)·2^-53 of its fraction. Two
//     values farther apart than twice that are ordered by their floats.
//  2. Residues. S(X, Y) is kept modulo the prime p = 2^61 - 1 too (the
//     fractions' denominators are invertible mod p), merged by addition
//     like the floats. Equal fractions have equal residues, so unequal
//     residues prove two close values different; equal residues are taken
//     as equality (a tie). A false tie would need two values closer than
//     the float bound whose difference has a numerator divisible by
//     2^61 - 1; no pair of similarities with denominators below 2^30 (the
//     number of attributes) and groups below 2^31 processes gets near.
//  3. Rational arithmetic, from the parts' fractions, for two values that
//     are close but different: their order.
//
// Ties (equal similarities, a value at σ) are the common case in real
// clusterings (pairsim 0 between unrelated groups, equal fractions of
// small sets) and cost two multiplications modulo p.
type exactSims struct {
	s     [][]float64
	r     [][]uint64 // S mod p
	n     []int      // processes per current group
	frac  func(i, j int) (int64, int64)
	sizes []int
	parts [][]int
	tol   float64
}

// modP is the Mersenne prime 2^61 - 1.
const modP = 1<<61 - 1

func mulMod(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	// a, b < 2^61: the product is below 2^122; fold bits 61 and up.
	x := (lo & modP) + (lo>>61 | hi<<3)
	if x >= modP {
		x -= modP
	}
	return x
}

func addMod(a, b uint64) uint64 {
	x := a + b
	if x >= modP {
		x -= modP
	}
	return x
}

func powMod(a, e uint64) uint64 {
	r := uint64(1)
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = mulMod(r, a)
		}
		a = mulMod(a, a)
	}
	return r
}

// residue returns num/den mod p (den > 0).
func residue(num, den int64, inv map[int64]uint64) uint64 {
	iv, ok := inv[den]
	if !ok {
		iv = powMod(uint64(den)%modP, modP-2)
		inv[den] = iv
	}
	return mulMod(uint64(num)%modP, iv)
}

func newExactSims(s [][]float64, n []int, frac func(i, j int) (int64, int64), sizes []int, parts [][]int) *exactSims {
	g := len(s)
	e := &exactSims{s: s, n: n, frac: frac, sizes: sizes, parts: parts,
		tol: 2 * float64(1+3*(g+1)) * 0x1p-53, r: make([][]uint64, g)}
	inv := map[int64]uint64{}
	for i := range g {
		e.r[i] = make([]uint64, g)
	}
	for i := range g {
		for j := i + 1; j < g; j++ {
			num, den := frac(i, j)
			v := mulMod(residue(num, den, inv), uint64(sizes[i])*uint64(sizes[j])%modP)
			e.r[i][j], e.r[j][i] = v, v
		}
		if i&63 == 63 {
			work.Check()
		}
	}
	return e
}

// merged records that group j merged into group i (call before n is
// updated or after: it reads only the residues).
func (e *exactSims) merged(i, j int, alive []bool) {
	for k := range e.r {
		if alive[k] && k != i && k != j {
			v := addMod(e.r[i][k], e.r[j][k])
			e.r[i][k], e.r[k][i] = v, v
		}
	}
}

// weight returns N_i N_j mod p.
func (e *exactSims) weight(i, j int) uint64 {
	return mulMod(uint64(e.n[i])%modP, uint64(e.n[j])%modP)
}

// exact returns sim(i, j) of the current groups i and j as a fraction.
func (e *exactSims) exact(i, j int) *big.Rat {
	// Terms with equal denominators are summed as integers first.
	byDen := map[int64]*big.Int{}
	var w, t big.Int
	var nx, ny int64
	for _, x := range e.parts[i] {
		for _, y := range e.parts[j] {
			num, den := e.frac(x, y)
			if num == 0 {
				continue
			}
			acc, ok := byDen[den]
			if !ok {
				acc = new(big.Int)
				byDen[den] = acc
			}
			t.SetInt64(int64(e.sizes[x]))
			t.Mul(&t, w.SetInt64(int64(e.sizes[y])))
			t.Mul(&t, w.SetInt64(num))
			acc.Add(acc, &t)
		}
	}
	for _, x := range e.parts[i] {
		nx += int64(e.sizes[x])
	}
	for _, y := range e.parts[j] {
		ny += int64(e.sizes[y])
	}
	dens := make([]int64, 0, len(byDen))
	for d := range byDen {
		dens = append(dens, d)
	}
	slices.Sort(dens)
	sum := new(big.Rat)
	var q big.Rat
	for _, d := range dens {
		sum.Add(sum, q.SetFrac(byDen[d], w.SetInt64(d)))
	}
	var nn big.Int
	nn.SetInt64(nx)
	return sum.Quo(sum, new(big.Rat).SetInt(nn.Mul(&nn, w.SetInt64(ny))))
}

// cmp compares sim(i, j) with sim(k, l).
func (e *exactSims) cmp(i, j, k, l int) int {
	a, b := e.s[i][j], e.s[k][l]
	switch {
	case a-b > e.tol:
		return 1
	case b-a > e.tol:
		return -1
	case i == k && j == l || i == l && j == k:
		return 0
	case mulMod(e.r[i][j], e.weight(k, l)) == mulMod(e.r[k][l], e.weight(i, j)):
		return 0
	}
	return e.exact(i, j).Cmp(e.exact(k, l))
}

// cmpRat compares sim(i, j) with the fraction r (num/den, den > 0).
func (e *exactSims) cmpRat(i, j int, r *big.Rat, rmod uint64) int {
	rf, _ := r.Float64()
	a := e.s[i][j]
	switch {
	case a-rf > e.tol:
		return 1
	case rf-a > e.tol:
		return -1
	case e.r[i][j] == mulMod(rmod, e.weight(i, j)):
		return 0
	}
	return e.exact(i, j).Cmp(r)
}

// ratResidue returns r mod p, ok false if its denominator is a multiple
// of p (then no residue; compare exactly).
func ratResidue(r *big.Rat) (uint64, bool) {
	var pb, num, den big.Int
	pb.SetUint64(modP)
	den.Mod(r.Denom(), &pb)
	if den.Sign() == 0 {
		return 0, false
	}
	num.Mod(r.Num(), &pb)
	return mulMod(num.Uint64(), powMod(den.Uint64(), modP-2)), true
}

// exactTimePairs is the largest group for which the time pair is found
// exactly (all pairs compared); larger groups use repeated farthest-point
// sweeps, which find a pair at least half as far apart as the farthest.
const exactTimePairs = 2048

// timePair returns the two members (batch positions) whose time profiles
// (exclusive time per function) differ most in L1 distance (ns).
func (c *Clustering) timePair(members []int) ([2]int, float64, bool) {
	if len(members) < 2 {
		return [2]int{-1, -1}, 0, true
	}
	prof := make([]profile, len(members))
	for k, i := range members {
		prof[k] = c.profile(i)
	}
	bestA, bestB, best := 0, 1, -1.0
	if len(members) <= exactTimePairs {
		for a := range prof {
			for b := a + 1; b < len(prof); b++ {
				if d := prof[a].dist(prof[b]); d > best {
					bestA, bestB, best = a, b, d
				}
			}
			if a&63 == 0 {
				work.Check()
			}
		}
		return [2]int{members[bestA], members[bestB]}, best, true
	}
	far := func(from int) (int, float64) {
		f, fd := from, -1.0
		for k := range prof {
			if d := prof[from].dist(prof[k]); d > fd {
				f, fd = k, d
			}
		}
		return f, fd
	}
	a := 0
	for range 4 {
		b, d := far(a)
		if d > best {
			bestA, bestB, best = a, b, d
		}
		a = b
		work.Check()
	}
	x, y := min(bestA, bestB), max(bestA, bestB)
	return [2]int{members[x], members[y]}, best, false
}

// profile is a process's exclusive time per region name, sorted by name.
type profile struct {
	names []string
	excl  []float64
}

func profileOf(p *trace.Process) profile {
	st := p.RegionStats()
	byName := map[string]float64{}
	for _, s := range st {
		byName[p.RegionName(s.Region)] += float64(s.Exclusive)
	}
	var pr profile
	for n := range byName {
		pr.names = append(pr.names, n)
	}
	slices.Sort(pr.names)
	for _, n := range pr.names {
		pr.excl = append(pr.excl, byName[n])
	}
	return pr
}

// dist is the L1 distance of two profiles (a region missing from one
// counts as 0 there).
func (a profile) dist(b profile) float64 {
	var d float64
	i, j := 0, 0
	for i < len(a.names) || j < len(b.names) {
		switch {
		case j >= len(b.names) || (i < len(a.names) && a.names[i] < b.names[j]):
			d += math.Abs(a.excl[i])
			i++
		case i >= len(a.names) || b.names[j] < a.names[i]:
			d += math.Abs(b.excl[j])
			j++
		default:
			d += math.Abs(a.excl[i] - b.excl[j])
			i++
			j++
		}
	}
	return d
}

// Len returns the number of merged groups.
func (r *Coarsened) Len() int { return len(r.Parts) }

func (r *Coarsened) check(fn string, i int) {
	if i < 0 || i >= len(r.Parts) {
		fail(fn, "merged group %d out of range: %d groups (0..%d)", i, len(r.Parts), len(r.Parts)-1)
	}
}

// Group returns the processes of merged group i, in trace order.
func (r *Coarsened) Group(i int) []*trace.Process {
	r.check("cluster.Coarsened.Group", i)
	var out []*trace.Process
	for _, g := range r.Parts[i] {
		out = append(out, r.c.Group(g)...)
	}
	slices.SortFunc(out, func(a, b *trace.Process) int { return a.Index - b.Index })
	return out
}

// Pair returns merged group i's most dissimilar pair of processes (SC
// VIII.D, first pair): the first process of each of the two least similar
// structural groups merged into it; nil, nil if it is one structural group.
func (r *Coarsened) Pair(i int) (*trace.Process, *trace.Process) {
	r.check("cluster.Coarsened.Pair", i)
	return r.proc(r.pair[i][0]), r.proc(r.pair[i][1])
}

// TimePair returns merged group i's pair of processes whose time profiles
// (exclusive time per function) differ most (SC VIII.D, second pair); nil,
// nil if the group has one process.
func (r *Coarsened) TimePair(i int) (*trace.Process, *trace.Process) {
	r.check("cluster.Coarsened.TimePair", i)
	return r.proc(r.time[i][0]), r.proc(r.time[i][1])
}

func (r *Coarsened) proc(i int) *trace.Process {
	if i < 0 {
		return nil
	}
	return r.c.procs[i]
}

// Table returns one row per coarsened group: Coarse Group, Groups (the
// structural groups combined, "0,2,5"), Processes, Kinds, Pair A, Pair B and
// Pair Similarity (the most dissimilar pair), Time A, Time B, Time Distance
// (ns) (L1 distance of exclusive time per function) and Time Exact (false
// when the group was too large to compare all pairs and farthest-point
// sweeps chose the pair).
func (r *Coarsened) Table() *arrowio.Table {
	n := len(r.Parts)
	idx, size := make([]int32, n), make([]int64, n)
	parts, kind := make([]string, n), make([]string, n)
	pa, pb, ta, tb := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	pv, tv := make([]bool, n), make([]bool, n)
	sim, dist := make([]float64, n), make([]float64, n)
	for i, ps := range r.Parts {
		idx[i] = int32(i)
		var s []string
		for _, g := range ps {
			s = append(s, fmt.Sprint(g))
		}
		parts[i] = strings.Join(s, ",")
		g := r.Group(i)
		size[i], kind[i] = int64(len(g)), kinds(g)
		if p, q := r.Pair(i); p != nil {
			pa[i], pb[i], pv[i] = p.Label(), q.Label(), true
		}
		sim[i] = r.pairSim[i]
		if p, q := r.TimePair(i); p != nil {
			ta[i], tb[i], tv[i] = p.Label(), q.Label(), true
		}
		dist[i] = r.timeDist[i]
	}
	ns := make([]int64, n)
	for i, d := range dist {
		ns[i] = int64(d)
	}
	return arrowio.MustTable(arrowio.Int32("Coarse Group", idx), arrowio.String("Groups", parts), arrowio.Int64("Processes", size),
		arrowio.String("Kinds", kind),
		arrowio.NullableString("Pair A", pa, pv), arrowio.NullableString("Pair B", pb, pv), arrowio.NullableFloat64("Pair Similarity", sim, pv),
		arrowio.NullableString("Time A", ta, tv), arrowio.NullableString("Time B", tb, tv),
		arrowio.NullableInt64("Time Distance (ns)", ns, tv).WithUnit("ns"), arrowio.Bool("Time Exact", r.exact))
}

// String lists the merged groups with their recommended pairs.
func (r *Coarsened) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "merged at σ = %.2f: %d groups from %d", r.Sigma, len(r.Parts), len(r.c.groups))
	for i := range min(len(r.Parts), maxSummaryGroups) {
		b.WriteString("\n" + r.line(i))
	}
	if len(r.Parts) > maxSummaryGroups {
		fmt.Fprintf(&b, "\n… %d more (m.Table() lists all)", len(r.Parts)-maxSummaryGroups)
	}
	return b.String()
}

func (r *Coarsened) line(i int) string {
	g := r.Group(i)
	var s []string
	for _, p := range r.Parts[i] {
		s = append(s, fmt.Sprintf("G%d", p))
	}
	out := fmt.Sprintf("M%d = %s: %s (%s)", i, strings.Join(s, "+"), plural(len(g), "process", "processes"), kinds(g))
	if p, q := r.Pair(i); p != nil {
		out += fmt.Sprintf("; least similar: %s vs %s (%.2f)", p.Label(), q.Label(), r.pairSim[i])
	}
	if p, q := r.TimePair(i); p != nil {
		out += fmt.Sprintf("; most different times: %s vs %s (%s)", p.Label(), q.Label(), arrowio.FormatDuration(int64(r.timeDist[i])))
	}
	return out
}

// MIMEBundle renders the merged groups as an HTML list with the text form.
func (r *Coarsened) MIMEBundle() map[string]any {
	var h strings.Builder
	fmt.Fprintf(&h, "<div><b>merged at σ = %.2f</b>: %d groups from %d<ul>", r.Sigma, len(r.Parts), len(r.c.groups))
	for i := range min(len(r.Parts), maxSummaryGroups) {
		fmt.Fprintf(&h, "<li>%s</li>", html.EscapeString(r.line(i)))
	}
	h.WriteString("</ul></div>")
	return map[string]any{"text/html": h.String(), "text/plain": r.String()}
}
