package msa

import (
	"fmt"
	"html"
	"image/color"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// Block is a multiple sequence alignment block: one row per sequence, the
// symbols of each row in columns, gaps between them.
type Block struct {
	rows    [][]int32 // symbols of each row
	cols    [][]int32 // column of each symbol of each row
	width   int
	names   []string // symbol names
	labels  []string // row labels
	weights []int64  // processes per row (1 for plain sequences)
	guide   guideInfo
}

// guideInfo is the guide order of a block and what it was read from.
type guideInfo struct {
	method Guide
	steps  []Step
	pairs  []pairSim  // GuideMatrix: the sorted comparisons
	top    []symCount // GuideRanking: the top characters
	rank   []int64    // GuideRanking: top-character count per row
}

// guideOrder computes the guide order of seqs (weights w) by g; GuideAuto
// takes the matrix for up to limit sequences.
func guideOrder(seqs [][]int32, w []int64, g Guide, limit int) guideInfo {
	if g == GuideAuto {
		g = GuideMatrix
		if len(seqs) > limit {
			g = GuideRanking
		}
	}
	gi := guideInfo{method: g}
	if g == GuideMatrix {
		tops := make([]topK, len(seqs))
		var c counter
		for i, s := range seqs {
			tops[i] = topOf(c.count(s, nil), 2)
		}
		gi.pairs = matrixOrder(tops)
		gi.steps = guideFromPairs(len(seqs), gi.pairs)
		return gi
	}
	gi.steps, gi.top, gi.rank = rankingOrder(seqs, w)
	return gi
}

// newBlock aligns seqs progressively.
func newBlock(seqs [][]int32, w []int64, o options) *Block {
	al := &aligner{o: o.align}
	gi := guideOrder(seqs, w, o.guide, o.limit)
	cols, width := progressive(seqs, gi.steps, al)
	return &Block{rows: seqs, cols: cols, width: width, weights: w, guide: gi}
}

// Strings aligns strings, one symbol per rune, for worked examples such as
// Weber's Figure 5.8: msa.Strings("ababababab", "aaaabbbb", "cde", "dec",
// "decb"). Rows are labelled "Sequence 1", "Sequence 2", ... Options: WithGuide,
// WithMatrixLimit, WithScoring, WithMethod.
func Strings(seqs []string, opts ...Option) *Block {
	const fn = "msa.Strings"
	o := collect(fn, opts)
	defer work.RecoverAs(fn)
	sy := newSymbols()
	rows := make([][]int32, len(seqs))
	labels := make([]string, len(seqs))
	w := make([]int64, len(seqs))
	for i, s := range seqs {
		rows[i] = sy.encode(s)
		labels[i] = fmt.Sprintf("Sequence %d", i+1)
		w[i] = 1
	}
	b := newBlock(rows, w, o)
	b.names, b.labels = sy.Names, labels
	return b
}

// Sequences aligns sequences of names (function names, one per call), rows
// labelled by labels (nil: "Sequence 1", ...).
func Sequences(seqs [][]string, labels []string, opts ...Option) *Block {
	const fn = "msa.Sequences"
	o := collect(fn, opts)
	if labels != nil && len(labels) != len(seqs) {
		fail(fn, "%d labels for %d sequences", len(labels), len(seqs))
	}
	defer work.RecoverAs(fn)
	sy := newSymbols()
	rows := make([][]int32, len(seqs))
	w := make([]int64, len(seqs))
	for i, s := range seqs {
		r := make([]int32, len(s))
		for j, name := range s {
			r[j] = sy.ID(name)
		}
		rows[i], w[i] = r, 1
	}
	if labels == nil {
		labels = make([]string, len(seqs))
		for i := range labels {
			labels[i] = fmt.Sprintf("Sequence %d", i+1)
		}
	}
	b := newBlock(rows, w, o)
	b.names, b.labels = sy.Names, labels
	return b
}

// NumRows returns the number of sequences.
func (b *Block) NumRows() int { return len(b.rows) }

// Width returns the number of columns.
func (b *Block) Width() int { return b.width }

// Label returns the label of row r.
func (b *Block) Label(r int) string { return b.labels[r] }

// Guide returns the guide method that ran and its steps (sequence indexes).
func (b *Block) Guide() (Guide, []Step) { return b.guide.method, b.guide.steps }

// grid returns the block as symbol ids, -1 for gaps.
func (b *Block) grid() [][]int32 {
	g := make([][]int32, len(b.rows))
	for r, row := range b.rows {
		line := make([]int32, b.width)
		for i := range line {
			line[i] = -1
		}
		for i, s := range row {
			line[b.cols[r][i]] = s
		}
		g[r] = line
	}
	return g
}

// Row returns row r as one cell per column: the symbol's name, "" for a gap.
func (b *Block) Row(r int) []string {
	if r < 0 || r >= len(b.rows) {
		fail("msa.Block.Row", "row %d out of range (%d rows)", r, len(b.rows))
	}
	out := make([]string, b.width)
	for i, s := range b.rows[r] {
		out[b.cols[r][i]] = b.names[s]
	}
	return out
}

// Aligned returns each row as a string with "-" for gaps (for one-rune
// symbols, as in the seed's figures).
func (b *Block) Aligned() []string {
	out := make([]string, len(b.rows))
	for r := range b.rows {
		var sb strings.Builder
		for _, c := range b.Row(r) {
			if c == "" {
				c = "-"
			}
			sb.WriteString(c)
		}
		out[r] = sb.String()
	}
	return out
}

// SumOfPairs returns the sum-of-pairs score of the block under s (zero
// value: align's default scoring): for every pair of rows, the score of
// the pairwise alignment the block induces (columns where both rows have a
// gap dropped). Rows count once each, whatever their weight.
func (b *Block) SumOfPairs(s align.Scoring) int64 {
	if s == (align.Scoring{}) {
		s = align.DefaultScoring
	}
	g := b.grid()
	return sumOfPairs(g, s)
}

func sumOfPairs(g [][]int32, s align.Scoring) int64 {
	var total int64
	for i := range g {
		for j := i + 1; j < len(g); j++ {
			for c := range g[i] {
				x, y := g[i][c], g[j][c]
				switch {
				case x < 0 && y < 0:
				case x < 0 || y < 0:
					total += int64(s.Gap)
				case x == y:
					total += int64(s.Match)
				default:
					total += int64(s.Mismatch)
				}
			}
		}
	}
	return total
}

// columnState is the state of column c: Equal when every row has the same
// symbol, Gap when some rows have a gap and the others one symbol,
// Different when the rows have more than one symbol.
func columnState(g [][]int32, c int) State {
	first, gap := int32(-1), false
	for _, row := range g {
		x := row[c]
		switch {
		case x < 0:
			gap = true
		case first < 0:
			first = x
		case x != first:
			return Different
		}
	}
	if gap {
		return Gap
	}
	return Equal
}

// Table returns the block in wide form: row, label, processes, then one
// string column per alignment column ("1", "2", ...) holding the symbol's
// name, null for a gap.
func (b *Block) Table() *arrowio.Table {
	n := len(b.rows)
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	cols := []arrowio.Column{arrowio.Int32("Row", idx), arrowio.String("Label", b.labels), arrowio.Int64("Processes", b.weights)}
	g := b.grid()
	for c := 0; c < b.width; c++ {
		v, ok := make([]string, n), make([]bool, n)
		for r := range g {
			if s := g[r][c]; s >= 0 {
				v[r], ok[r] = b.names[s], true
			}
		}
		cols = append(cols, arrowio.NullableString(fmt.Sprint(c+1), v, ok))
	}
	return arrowio.MustTable(cols...)
}

// GuideTable returns the guide order: one row per pairwise alignment step
// (partner in the block, new sequence, the similarity or top-character
// count that chose it).
func (b *Block) GuideTable() *arrowio.Table {
	st := b.guide.steps
	step, part, nw := make([]int32, len(st)), make([]string, len(st)), make([]string, len(st))
	score := make([]int64, len(st))
	for i, s := range st {
		step[i], part[i], nw[i], score[i] = int32(i+1), b.labels[s.Partner], b.labels[s.New], s.Score
	}
	name := "Similarity"
	if b.guide.method == GuideRanking {
		name = "Top Characters"
	}
	return arrowio.MustTable(arrowio.Int32("Step", step), arrowio.String("Partner", part),
		arrowio.String("New", nw), arrowio.Int64(name, score))
}

// Comparisons returns the sorted Max2FreqHashing similarity matrix (Table
// 5.2): one row per pair of sequences, by similarity descending; empty for
// the ranking guide.
func (b *Block) Comparisons() *arrowio.Table {
	ps := b.guide.pairs
	sc, a, c := make([]int64, len(ps)), make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		sc[i], a[i], c[i] = p.score, b.labels[p.i], b.labels[p.j]
	}
	return arrowio.MustTable(arrowio.Int64("Similarity", sc), arrowio.String("Sequence", a), arrowio.String("With", c))
}

// Ranking returns the Max3FreqHashing ranking (Table 5.4): rows by their
// count of the top characters, descending; empty for the matrix guide.
func (b *Block) Ranking() *arrowio.Table {
	var lab []string
	var cnt []int64
	if b.guide.method == GuideRanking && len(b.rows) > 0 {
		main := 0
		if len(b.guide.steps) > 0 {
			main = b.guide.steps[0].Partner
		}
		lab, cnt = append(lab, b.labels[main]), append(cnt, b.guide.rank[main])
		for _, s := range b.guide.steps {
			lab, cnt = append(lab, b.labels[s.New]), append(cnt, b.guide.rank[s.New])
		}
	}
	return arrowio.MustTable(arrowio.Int64("Top Characters", cnt), arrowio.String("Sequence", lab))
}

// TopCharacters returns the ranking guide's top characters and their
// counts over all rows (the head of Table 5.3); nil for the matrix guide.
func (b *Block) TopCharacters() []string {
	var out []string
	for _, t := range b.guide.top {
		out = append(out, fmt.Sprintf("%s %d", b.names[t.sym], t.count))
	}
	return out
}

// State colours of the figures: Weber's Figure 5.12 (green equal, blue
// gap, red different).
var stateFill = map[State]color.Color{
	Equal:     color.RGBA{0xb7, 0xe1, 0xa1, 0xff},
	Gap:       color.RGBA{0xa6, 0xc8, 0xf0, 0xff},
	Different: color.RGBA{0xf4, 0xa6, 0xa0, 0xff},
}

var gapFill = color.RGBA{0xee, 0xee, 0xee, 0xff}

// Plot draws the block as a grid of cells (Weber's Figure 5.10): one row
// per sequence, symbols coloured by their column's state (green: every row
// has the symbol, blue: some rows have a gap, red: different symbols),
// gaps as "—" on grey.
func (b *Block) Plot() *plotting.Figure {
	return b.plot(fmt.Sprintf("MSA block: %d sequences, %d columns (green equal, blue gap, red different)", len(b.rows), b.width))
}

func (b *Block) plot(title string) *plotting.Figure {
	g := b.grid()
	states := make([]State, b.width)
	for c := range states {
		states[c] = columnState(g, c)
	}
	cells := make([][]string, len(g))
	fills := make([][]color.Color, len(g))
	for r, row := range g {
		cells[r] = make([]string, b.width)
		fills[r] = make([]color.Color, b.width)
		for c, s := range row {
			if s < 0 {
				cells[r][c], fills[r][c] = "—", gapFill
				continue
			}
			cells[r][c], fills[r][c] = b.names[s], stateFill[states[c]]
		}
	}
	return plotting.TextGrid(title, b.labels, nil, cells, fills)
}

// String prints the aligned rows.
func (b *Block) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "MSA block of %d sequences, %d columns (guide: %s)\n", len(b.rows), b.width, b.guide.method)
	for r := range b.rows {
		fmt.Fprintf(&sb, "%-12s %s\n", b.labels[r], strings.Join(cellsOr(b.Row(r), "—"), " "))
	}
	return sb.String()
}

func cellsOr(cells []string, gap string) []string {
	for i, c := range cells {
		if c == "" {
			cells[i] = gap
		}
	}
	return cells
}

// MIMEBundle renders the block as its table, under a line naming the guide.
func (b *Block) MIMEBundle() map[string]any {
	tb := b.Table().MIMEBundle()
	h, _ := tb["text/html"].(string)
	head := fmt.Sprintf("MSA block of %d sequences, %d columns (guide: %s, %d pairwise steps)", len(b.rows), b.width, b.guide.method, len(b.guide.steps))
	return map[string]any{"text/plain": b.String(), "text/html": "<p><b>" + html.EscapeString(head) + "</b></p>" + h}
}
