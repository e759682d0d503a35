package cluster

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Matrix is a group x group matrix of a structural measure (SC Table II):
// pairsim (symmetric) or pairsub (row i, column j: how much of group j's
// behaviour group i includes).
type Matrix struct {
	Name   string      // "pairsim", "pairsub", "funcsim", ...
	Labels []string    // group labels, "G0: rank 0"
	Sizes  []int       // processes per group
	Values [][]float64 // Values[i][j]
	Note   string      // how it was computed, e.g. a fallback

	// The exact values: attribute counts of each group and of each two
	// groups' intersection (see frac).
	size  []int64
	inter [][]int64
	sub   bool // inter/size[j] (subsumption) instead of inter/union
}

// frac returns the exact value of entry (i, j) as a fraction num/den, the
// one Values holds rounded to float64.
func (m *Matrix) frac(i, j int) (num, den int64) {
	if m.sub {
		if m.size[j] == 0 {
			return 1, 1
		}
		return m.inter[i][j], m.size[j]
	}
	union := m.size[i] + m.size[j] - m.inter[i][j]
	if union == 0 {
		return 1, 1
	}
	return m.inter[i][j], union
}

// Len returns the number of groups.
func (m *Matrix) Len() int { return len(m.Values) }

// At returns the value of groups i and j.
func (m *Matrix) At(i, j int) float64 {
	if i < 0 || j < 0 || i >= len(m.Values) || j >= len(m.Values) {
		fail("cluster.Matrix.At", "(%d, %d) out of range for %d groups", i, j, len(m.Values))
	}
	return m.Values[i][j]
}

// Table returns the matrix in wide form: Group, Label, Processes, then one
// float64 column per group named G0, G1, ...
func (m *Matrix) Table() *arrowio.Table {
	g := len(m.Values)
	idx, size := make([]int32, g), make([]int64, g)
	for i := range g {
		idx[i], size[i] = int32(i), int64(m.Sizes[i])
	}
	cols := []arrowio.Column{arrowio.Int32("Group", idx), arrowio.String("Label", m.Labels), arrowio.Int64("Processes", size)}
	for j := range g {
		col := make([]float64, g)
		for i := range g {
			col[i] = m.Values[i][j]
		}
		cols = append(cols, arrowio.Float64(fmt.Sprintf("G%d", j), col))
	}
	return arrowio.MustTable(cols...)
}

// Plot draws the matrix as a heatmap on [0, 1] with the values written in
// the cells when they fit (SC Table II).
func (m *Matrix) Plot() *plotting.Figure {
	title := m.Name + " between structural groups"
	if m.Name == "pairsub" || strings.HasSuffix(m.Name, "sub") {
		title += " (row includes column)"
	}
	return plotting.Matrix(title, m.Labels, shortLabels(len(m.Values)), m.Values, plotting.WithColorRange(0, 1))
}

func shortLabels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("G%d", i)
	}
	return out
}

// String prints the lower triangle like SC Table II (the full matrix for
// pairsub), two decimals, for up to 30 groups.
func (m *Matrix) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %d groups", m.Name, len(m.Values))
	if m.Note != "" {
		b.WriteString(" (" + m.Note + ")")
	}
	if len(m.Values) > 30 {
		return b.String() + " (m.Table() lists the values)"
	}
	sym := !strings.HasSuffix(m.Name, "sub")
	b.WriteString("\n     ")
	for j := range m.Values {
		fmt.Fprintf(&b, " %5s", fmt.Sprintf("G%d", j))
	}
	for i, row := range m.Values {
		fmt.Fprintf(&b, "\n%-5s", fmt.Sprintf("G%d", i))
		for j, v := range row {
			if sym && j > i {
				break
			}
			fmt.Fprintf(&b, " %5.2f", v)
		}
	}
	return b.String()
}

// MIMEBundle renders the heatmap, with the text form.
func (m *Matrix) MIMEBundle() map[string]any {
	out := m.Plot().MIMEBundle()
	out["text/plain"] = m.String()
	return out
}

// MIMEMetadata is the heatmap's display metadata.
func (m *Matrix) MIMEMetadata() map[string]any { return m.Plot().MIMEMetadata() }

// matrixBytes estimates the memory of a g x g matrix and its int64
// intersection counts (kept for the exact values).
func matrixBytes(g int) int64 { return int64(g) * int64(g) * 16 }

// Matrix returns the similarity matrix of the groups under the
// clustering's measure (pairsim for Pairs, SC eq. 1; funcsim after a
// fallback), read off the concept lattice (SC VI.B). Computed once.
func (c *Clustering) Matrix() *Matrix {
	const fn = "cluster.Clustering.Matrix"
	if c.matrix != nil {
		return c.matrix
	}
	c.needLattice(fn)
	g := len(c.groups)
	if err := work.Reserve("cluster: similarity matrix", matrixBytes(g)); err != nil {
		panic(&Error{Func: fn, Msg: fmt.Sprintf("%d groups: %v", g, err), Err: err})
	}
	job := work.Start("similarity matrix", int64(g)*int64(g-1)/2, "group pairs")
	defer job.Done()
	size, inter := c.lattice.intersections(c.node, job)
	m := c.newMatrix(simName(c.measure))
	m.size, m.inter = size, inter
	for i := range g {
		for j := range g {
			num, den := m.frac(i, j)
			m.Values[i][j] = float64(num) / float64(den)
		}
	}
	if c.fallback != nil {
		m.Note = fmt.Sprintf("funcs: the %v lattice exceeded %d nodes", c.asked, c.fallback.Limit)
	}
	c.matrix = m
	return m
}

func simName(m Measure) string {
	switch m {
	case Funcs:
		return "funcsim"
	case PairsPlus:
		return "pairsim+"
	}
	return "pairsim"
}

func (c *Clustering) newMatrix(name string) *Matrix {
	g := len(c.groups)
	m := &Matrix{Name: name, Labels: make([]string, g), Sizes: make([]int, g), Values: make([][]float64, g)}
	for i := range g {
		m.Labels[i] = c.GroupLabel(i)
		m.Sizes[i] = len(c.groups[i])
		m.Values[i] = make([]float64, g)
	}
	return m
}

// Subsumption returns the subsumption matrix of SC VII: entry (i, j) is
// pairsub(Gi, Gj) = |pairs(Gi)+ ∩ pairs(Gj)+| / |pairs(Gj)+|, how much of
// group j's behaviour group i includes, read off the concept lattice of the
// transitively closed pair sets. With Funcs (asked for, or after a
// fallback) it is the inclusion of function sets. Computed once.
func (c *Clustering) Subsumption() *Matrix {
	const fn = "cluster.Clustering.Subsumption"
	if c.sub != nil {
		return c.sub
	}
	g := len(c.groups)
	if err := work.Reserve("cluster: subsumption matrix", matrixBytes(g)); err != nil {
		panic(&Error{Func: fn, Msg: fmt.Sprintf("%d groups: %v", g, err), Err: err})
	}
	measure, name := PairsPlus, "pairsub"
	if c.measure == Funcs {
		measure, name = Funcs, "funcsub"
	}
	l, nodes, err := c.closureLattice(measure)
	var le *LimitError
	if errors.As(err, &le) && measure != Funcs {
		measure, name = Funcs, "funcsub"
		l, nodes, err = c.closureLattice(Funcs)
	}
	if err != nil {
		panic(&Error{Func: fn, Msg: fmt.Sprintf("%v; raise the guard with cluster.WithNodeLimit", err), Err: err})
	}
	job := work.Start("subsumption matrix", int64(g)*int64(g-1)/2, "group pairs")
	defer job.Done()
	size, inter := l.intersections(nodes, job)
	m := c.newMatrix(name)
	m.size, m.inter, m.sub = size, inter, true
	for i := range g {
		for j := range g {
			num, den := m.frac(i, j)
			m.Values[i][j] = float64(num) / float64(den)
		}
	}
	if le != nil {
		m.Note = fmt.Sprintf("funcs: the pairs+ lattice exceeded %d nodes", le.Limit)
	}
	c.sub = m
	return m
}

// closureLattice builds the lattice of the groups' sets under measure m
// (each group inserted once with its processes) and returns each group's
// node; groups with equal sets share a node.
func (c *Clustering) closureLattice(m Measure) (*Lattice, []int32, error) {
	l := NewLattice(m, c.limit)
	l.tr = c.tr
	nodes := make([]int32, len(c.groups))
	for g, members := range c.groups {
		first := c.sets[c.setOf[members[0]]]
		procs := make([]int32, len(members))
		for k, i := range members {
			procs[k] = int32(c.procs[i].Index)
		}
		n, err := l.insert(procs, l.dict.idsOf(first.struc.Of(m)), len(c.groups)-g-1)
		if err != nil {
			return nil, nil, err
		}
		nodes[g] = n
	}
	l.finish()
	return l, nodes, nil
}
