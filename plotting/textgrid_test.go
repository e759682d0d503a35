package plotting

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var tgGap = color.Gray{Y: 225}

// weberBlock is the MSA block of Weber's Figure 5.10 in the shape the msa package passes it:
// one row per sequence, gaps as "—" on light grey, functions coloured by name.
func weberBlock() (rows []string, cells [][]string, fills [][]color.Color) {
	rows = []string{"Sequence 1", "Sequence 2", "Sequence 3", "Sequence 4", "Sequence 5"}
	cells = [][]string{
		{"a", "b", "c", "—", "d", "—", "e"},
		{"a", "b", "—", "—", "d", "—", "e"},
		{"a", "—", "c", "f", "—", "d", "e"},
		{"a", "b", "c", "f", "—", "d", "—"},
		{"a", "b", "c", "—", "d", "—", "e"},
	}
	fills = make([][]color.Color, len(cells))
	for r, row := range cells {
		fills[r] = make([]color.Color, len(row))
		for c, s := range row {
			fills[r][c] = tgGap
			if s != "—" {
				fills[r][c] = Categorical(int(s[0] - 'a'))
			}
		}
	}
	return rows, cells, fills
}

// tgCells is a rows x cols grid whose cell [r][c] is texts[(r*cols+c*7)%len(texts)].
func tgCells(rows, cols int, texts ...string) [][]string {
	out := make([][]string, rows)
	for r := range out {
		out[r] = make([]string, cols)
		for c := range out[r] {
			out[r][c] = texts[(r*cols+c*7)%len(texts)]
		}
	}
	return out
}

func tgLayoutOf(f *Figure) *textGrid { return f.body.(*textGridPlot).g }

// checkTextGridLayout checks a layout against its definition: the rows drawn are the most that
// fit in budgetH (with the note if anything is left out), each column as wide as its widest
// drawn text (and its label) within [tgMinCellW, tgMaxCellW], the columns drawn the most that
// fit beside the row labels, and every text within its space.
func checkTextGridLayout(t *testing.T, name string, rowLabels, colLabels []string, cells [][]string, budgetW, budgetH vg.Length, g *textGrid) {
	t.Helper()
	rows, cols := len(cells), len(cells[0])
	n, k := len(g.cells), len(g.colW)
	cut := n < rows || k < cols
	noteH := vg.Length(0)
	if cut {
		noteH = tgNoteH
	}
	if n < 1 || k < 1 {
		t.Fatalf("%s: %d rows and %d columns drawn", name, n, k)
	}
	if h := tgHeadH + vg.Length(n)*tgCellH + noteH; h > budgetH && n > 1 {
		t.Errorf("%s: %d rows take %g pt, more than %g", name, n, h, budgetH)
	}
	if h := tgHeadH + vg.Length(n+1)*tgCellH + noteH; n < rows && h <= budgetH {
		t.Errorf("%s: %d of %d rows drawn, but %d fit in %g pt", name, n, rows, n+1, budgetH)
	}
	sty, head := textStyle(tgFont, color.Black), textStyle(tgHeadFont, color.Black)
	label := func(labels []string, i int) string {
		if labels == nil {
			return fmt.Sprint(i + 1)
		}
		return labels[i]
	}
	labelW := vg.Length(0)
	for r := range n {
		labelW = max(labelW, sty.Width(label(rowLabels, r)))
		if w := sty.Width(g.rowLabels[r]); w > g.labelW {
			t.Errorf("%s: row label %q is %g wide in %g", name, g.rowLabels[r], w, g.labelW)
		}
	}
	if want := min(labelW, tgMaxLabelW); g.labelW != want {
		t.Errorf("%s: row labels %g pt wide, want %g", name, g.labelW, want)
	}
	colW := func(c int) vg.Length {
		w := head.Width(label(colLabels, c)) + 2
		for r := range n {
			w = max(w, sty.Width(cells[r][c])+2*tgPadX)
		}
		return min(max(w, tgMinCellW), tgMaxCellW)
	}
	total := vg.Length(0)
	for c := range k {
		if want := colW(c); g.colW[c] != want {
			t.Errorf("%s: column %d is %g wide, want %g", name, c, g.colW[c], want)
		}
		if g.colX[c] != total {
			t.Errorf("%s: column %d at %g, want %g", name, c, g.colX[c], total)
		}
		total += g.colW[c]
	}
	avail := budgetW - g.labelW - tgLabelGap
	if total > avail && k > 1 {
		t.Errorf("%s: %d columns take %g pt, more than %g", name, k, total, avail)
	}
	if k < cols && total+colW(k) <= avail {
		t.Errorf("%s: %d of %d columns drawn, but the next (%g pt) fits in %g - %g", name, k, cols, colW(k), avail, total)
	}
	if g.width != g.labelW+tgLabelGap+total || g.height != tgHeadH+vg.Length(n)*tgCellH {
		t.Errorf("%s: drawing %gx%g for %d columns (%g pt) and %d rows", name, g.width, g.height, k, total, n)
	}
	for r := range n {
		for c := range k {
			got, full := g.cells[r][c], cells[r][c]
			if w := sty.Width(got); w > g.colW[c]-2*tgPadX {
				t.Errorf("%s: cell %d,%d %q is %g wide in a %g pt column", name, r, c, got, w, g.colW[c])
			}
			if got != full && (!strings.HasSuffix(got, ellipsis) || !strings.HasPrefix(full, strings.TrimSuffix(got, ellipsis))) {
				t.Errorf("%s: cell %d,%d %q drawn as %q", name, r, c, full, got)
			}
		}
	}
	var parts []string
	if k < cols {
		parts = append(parts, fmt.Sprintf("%s of %s columns", grouped(k), grouped(cols)))
	}
	if n < rows {
		parts = append(parts, fmt.Sprintf("%s of %s rows", grouped(n), grouped(rows)))
	}
	if want := ""; cut {
		if want = "showing " + strings.Join(parts, " and "); g.note != want {
			t.Errorf("%s: note %q, want %q", name, g.note, want)
		}
	} else if g.note != "" {
		t.Errorf("%s: note %q, want none", name, g.note)
	}
}

// TestTextGridLayoutExact: 120 rows of 3,000 columns of two-letter texts: every column is
// tgMinCellW wide, so budgets for 40 columns and 25 rows (with the note) give exactly those.
func TestTextGridLayoutExact(t *testing.T) {
	labels := make([]string, 120)
	for i := range labels {
		labels[i] = fmt.Sprint("rank ", i)
	}
	cells := tgCells(120, 3000, "f1", "g", "—")
	widest := func(labels []string) vg.Length {
		w := vg.Length(0)
		for _, l := range labels {
			w = max(w, textStyle(tgFont, color.Black).Width(l))
		}
		return w
	}
	labelW := widest(labels[:25])
	budgetW := labelW + tgLabelGap + 40*tgMinCellW + tgMinCellW - 0.5
	budgetH := vg.Length(tgHeadH + 25*tgCellH + tgNoteH + tgCellH - 0.5)
	g := textGridLayout(labels, nil, cells, nil, budgetW, budgetH)
	if len(g.cells) != 25 || len(g.colW) != 40 {
		t.Errorf("%d rows and %d columns drawn, want 25 and 40", len(g.cells), len(g.colW))
	}
	if want := "showing 40 of 3,000 columns and 25 of 120 rows"; g.note != want {
		t.Errorf("note %q, want %q", g.note, want)
	}
	checkTextGridLayout(t, "exact", labels, nil, cells, budgetW, budgetH, g)

	// The height of all 120 rows but not of the note too: when columns are cut, the note takes
	// the place of two rows.
	all := vg.Length(tgHeadH + 120*tgCellH)
	wideW := widest(labels[:118]) + tgLabelGap + 40*tgMinCellW + 0.5
	g = textGridLayout(labels, nil, cells, nil, wideW, all)
	if want := "showing 40 of 3,000 columns and 118 of 120 rows"; g.note != want {
		t.Errorf("note %q, want %q", g.note, want)
	}
	checkTextGridLayout(t, "columns cut", labels, nil, cells, wideW, all, g)
	// Five columns: all rows and columns fit, no note.
	five := tgCells(120, 5, "f1", "g", "—")
	g = textGridLayout(labels, nil, five, nil, wideW, all)
	if len(g.cells) != 120 || len(g.colW) != 5 || g.note != "" {
		t.Errorf("%d rows, %d columns, note %q; want 120, 5, none", len(g.cells), len(g.colW), g.note)
	}
	checkTextGridLayout(t, "all fit", labels, nil, five, wideW, all, g)
	// Only rows cut.
	g = textGridLayout(labels, nil, five, nil, wideW, all-1)
	if want := "showing 118 of 120 rows"; g.note != want {
		t.Errorf("note %q, want %q", g.note, want)
	}
	checkTextGridLayout(t, "rows cut", labels, nil, five, wideW, all-1, g)
}

// TestTextGridLayoutRandom checks layouts of random grids (texts of random lengths, some longer
// than a cell, labels long and short) in random budgets against their definition.
func TestTextGridLayoutRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	words := []string{"a", "—", "MPI_Send", "compute", "MPI_Allreduce", "solve_the_linear_system_with_pcg", "f12", "io"}
	for trial := range 200 {
		rows, cols := 1+r.IntN(60), 1+r.IntN(80)
		cells := make([][]string, rows)
		for i := range cells {
			cells[i] = make([]string, cols)
			for j := range cells[i] {
				cells[i][j] = words[r.IntN(len(words))]
			}
		}
		var rowLabels, colLabels []string
		if r.IntN(2) == 0 {
			rowLabels = make([]string, rows)
			for i := range rowLabels {
				rowLabels[i] = fmt.Sprintf("rank %d (x%d)", i, r.IntN(5000)) + strings.Repeat(" long", r.IntN(2)*r.IntN(40))
			}
		}
		if r.IntN(2) == 0 {
			colLabels = make([]string, cols)
			for j := range colLabels {
				colLabels[j] = words[r.IntN(len(words))]
			}
		}
		budgetW, budgetH := vg.Length(50+r.IntN(1000)), vg.Length(20+r.IntN(900))
		name := fmt.Sprintf("trial %d (%dx%d in %gx%g)", trial, rows, cols, budgetW, budgetH)
		g := textGridLayout(rowLabels, colLabels, cells, nil, budgetW, budgetH)
		checkTextGridLayout(t, name, rowLabels, colLabels, cells, budgetW, budgetH, g)
	}
}

func TestTextGridPanics(t *testing.T) {
	two := [][]string{{"a", "b"}, {"c", "d"}}
	white := [][]color.Color{{nil, nil}, {nil, nil}}
	cases := []struct {
		name, want string
		f          func()
	}{
		{"ragged", "plotting.TextGrid: row 1 has 1 cells, row 0 has 2", func() {
			TextGrid("t", nil, nil, [][]string{{"a", "b"}, {"c"}}, nil)
		}},
		{"fills rows", "plotting.TextGrid: 1 rows of fills for 2 rows of cells", func() {
			TextGrid("t", nil, nil, two, white[:1])
		}},
		{"fills row", "plotting.TextGrid: fills row 1 has 3 colours for 2 cells", func() {
			TextGrid("t", nil, nil, two, [][]color.Color{{nil, nil}, {nil, nil, nil}})
		}},
		{"fills nil row", "plotting.TextGrid: fills row 0 has 0 colours for 2 cells", func() {
			TextGrid("t", nil, nil, two, [][]color.Color{nil, {nil, nil}})
		}},
		{"row labels", "plotting.TextGrid: 3 row labels for 2 rows", func() {
			TextGrid("t", []string{"a", "b", "c"}, nil, two, white)
		}},
		{"column labels", "plotting.TextGrid: 1 column labels for 2 columns", func() {
			TextGrid("t", nil, []string{"x"}, two, white)
		}},
		{"labels of no rows", "plotting.TextGrid: 1 row labels for 0 rows", func() {
			TextGrid("t", []string{"a"}, nil, nil, nil)
		}},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if msg := fmt.Sprint(recover()); msg != c.want {
					t.Errorf("%s: panic %q, want %q", c.name, msg, c.want)
				}
			}()
			c.f()
		}()
	}
}

func TestTextGridNoData(t *testing.T) {
	for name, f := range map[string]*Figure{
		"nil":        TextGrid("t", nil, nil, nil, nil),
		"no columns": TextGrid("t", []string{"a"}, []string{}, [][]string{{}}, [][]color.Color{{}}),
	} {
		if f.note != "no data" {
			t.Errorf("%s: note %q, want \"no data\"", name, f.note)
		}
		checkRender(t, "textgrid_empty_"+strings.ReplaceAll(name, " ", "_"), f)
	}
}

// TestTextGridWeberBlock draws the block of Figure 5.10: everything shown, no note, the figure
// as wide as the drawing, every text in the SVG, and the text readable (inside the figure, apart,
// at least 8 pt).
func TestTextGridWeberBlock(t *testing.T) {
	rows, cells, fills := weberBlock()
	f := TextGrid("MSA block (Weber Fig. 5.10)", rows, nil, cells, fills)
	g := tgLayoutOf(f)
	if len(g.cells) != 5 || len(g.colW) != 7 || g.note != "" {
		t.Errorf("%d rows and %d columns drawn, note %q", len(g.cells), len(g.colW), g.note)
	}
	checkTextGridLayout(t, "weber", rows, nil, cells, 1e6, 1e6, g)
	titleW := f.plot.Title.TextStyle.Width(f.title) + 2*margin
	if w, _ := f.Size(); w != float64(max(g.width+2*margin+2*tgPad, titleW, dagMinWidth)) || w >= dagMaxWidth {
		t.Errorf("width %g, drawing %g, title %g", w, g.width, titleW)
	}
	checkRender(t, "textgrid_weber", f)
	checkTexts(t, "textgrid_weber", f)
	svg, err := f.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(slices.Clone(rows), "a", "—", "f", "1", "7") {
		if !strings.Contains(string(svg), ">"+html.EscapeString(s)+"<") {
			t.Errorf("SVG lacks the text %q", s)
		}
	}
	for _, x := range drawnTexts(t, f) {
		if h := x.box.Max.Y - x.box.Min.Y; h < tgHeadFont {
			t.Errorf("%q drawn %g pt high", x.s, h)
		}
	}
	if dir := os.Getenv("PLOTTING_OUT"); dir != "" {
		f.Save(filepath.Join(dir, "textgrid_weber.svg"))
	}
}

// TestTextGridLargeIsSummarised: 120 x 3,000 stays within the largest figure and says what it
// shows; long texts, long labels and a small WithSize keep the text readable.
func TestTextGridLargeIsSummarised(t *testing.T) {
	labels := make([]string, 120)
	for i := range labels {
		labels[i] = fmt.Sprintf("rank %d (x%d)", i, 3*i+1)
	}
	cells := tgCells(120, 3000, "MPI_Send", "compute", "—", "f")
	f := TextGrid("120 sequences", labels, nil, cells, nil)
	g := tgLayoutOf(f)
	w, h := f.Size()
	if w > dagMaxWidth || h > dagMaxHeight {
		t.Errorf("figure %gx%g pt", w, h)
	}
	if want := fmt.Sprintf("showing %d of 3,000 columns and %d of 120 rows", len(g.colW), len(g.cells)); g.note != want || len(g.cells) < 60 || len(g.colW) < 10 {
		t.Errorf("note %q, want %q", g.note, want)
	}
	// The drawing fills the largest figure: one more row or column would not fit.
	if h+tgCellH <= dagMaxHeight || w+tgMaxCellW <= dagMaxWidth {
		t.Errorf("figure %gx%g pt leaves room", w, h)
	}
	checkTexts(t, "textgrid_large", f)
	checkRender(t, "textgrid_large", f)

	long := strings.Repeat("a_very_long_function_name_", 5)
	figs := map[string]*Figure{
		"long texts":  TextGrid(long+long, []string{long, "b"}, []string{long, "y"}, [][]string{{long, "x"}, {"y", long}}, nil),
		"small size":  TextGrid("small", labels, nil, cells, nil, WithSize(200, 100)),
		"tiny size":   TextGrid("tiny", []string{long}, nil, [][]string{{long, long, long}}, nil, WithSize(80, 60)),
		"no title":    TextGrid("", nil, nil, tgCells(3, 4, "x"), nil),
		"dark fills":  TextGrid("dark", nil, nil, [][]string{{"a", "b"}}, [][]color.Color{{color.Black, StateColor(1)}}),
		"numbered 1k": TextGrid("numbers", nil, nil, tgCells(2, 1200, "a"), nil),
	}
	for name, f := range figs {
		checkTexts(t, "textgrid "+name, f)
		checkRender(t, "textgrid_"+strings.ReplaceAll(name, " ", "_"), f)
	}
	if g := tgLayoutOf(figs["long texts"]); g.labelW != tgMaxLabelW || g.colW[0] != tgMaxCellW {
		t.Errorf("long texts: row labels %g pt, first column %g pt; want %d and %d", g.labelW, g.colW[0], tgMaxLabelW, tgMaxCellW)
	}
	if w, h := figs["small size"].Size(); w != 200 || h != 100 {
		t.Errorf("WithSize(200, 100) gives %gx%g", w, h)
	}
}

// TestTextGridFillsAtCells decodes the PNG and samples each cell near its left edge, clear of
// its text and outline: the pixel has the cell's fill (white for a nil fill).
func TestTextGridFillsAtCells(t *testing.T) {
	const rows, cols = 4, 6
	cells := tgCells(rows, cols, "MPI_Allreduce_with_a_long_name", "—", "f")
	fills := make([][]color.Color, rows)
	for r := range fills {
		fills[r] = make([]color.Color, cols)
		for c := range fills[r] {
			fills[r][c] = Categorical(r*cols + c)
		}
	}
	fills[1][2] = nil
	fills[2] = []color.Color{tgGap, color.Black, nil, StateColor(3), rgb(0x00ff00), rgb(0x0000ff)}
	labels := []string{"Sequence 1", "Sequence 2", "Sequence 3", "Sequence 4"}
	for _, f := range []*Figure{
		TextGrid("fills", labels, nil, cells, fills),
		TextGrid("", labels, nil, cells, fills, WithSize(140, 70)), // one cell, scaled down
	} {
		b, err := f.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		tp := f.body.(*textGridPlot)
		c := draw.Crop(canvasFor(f), margin, -margin, margin, -margin)
		main := f.mainCanvas(c, f.sideW)
		pl := tp.place(f.plotFor(main).DataCanvas(main).Rectangle)
		if n, k := len(tp.g.cells), len(tp.g.colW); f.title == "fills" && (n != rows || k != cols || pl.s != 1) ||
			f.title == "" && (n != 1 || k != 1 || pl.s >= 1) {
			t.Errorf("%q: %d rows, %d columns drawn at scale %g", f.title, n, k, pl.s)
		}
		for r := range tp.g.cells {
			for col := range tp.g.colW {
				rect := pl.cell(r, col)
				x, y := rect.Min.X+2*pl.s, (rect.Min.Y+rect.Max.Y)/2
				px, py := int(x.Dots(dpi)), int((f.height - y).Dots(dpi))
				want := fills[r][col]
				if want == nil {
					want = color.White
				}
				wr, wg, wb, _ := want.RGBA()
				gr, gg, gb, _ := img.At(px, py).RGBA()
				d := func(a, b uint32) int { return max(int(a>>8)-int(b>>8), int(b>>8)-int(a>>8)) }
				if d(wr, gr) > 3 || d(wg, gg) > 3 || d(wb, gb) > 3 {
					t.Errorf("%s: cell %d,%d at pixel (%d, %d) is %v, want %v", f.title, r, col, px, py, img.At(px, py), want)
				}
			}
		}
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 3000: "3,000", 123456: "123,456", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
