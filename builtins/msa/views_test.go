package msa

import (
	"slices"
	"strings"
	"testing"
)

func TestTableFig512(t *testing.T) {
	tr := treeTrace(t, fig511, func(p int, name string) int64 {
		if name == "c" {
			return int64(10 * p) // c: 10, 20, 30 ns of own time on ranks 0, 1, 2
		}
		return 0
	})
	m := Align(tr.Processes()...)
	tb := m.Table()
	region, _ := tb.Strings("Region")
	state, _ := tb.Strings("State")
	count, _ := tb.Int64s("Processes")
	which, _ := tb.Strings("Which")
	mx, _ := tb.Int64s("Max (ns)")
	md, _ := tb.Int64s("Median (ns)")
	slow, _ := tb.Strings("Slowest")
	if want := []string{"ε", "m", "a", "x", "y", "b", "d | e", "c", "c"}; !slices.Equal(region, want) {
		t.Fatalf("regions %v, want %v", region, want)
	}
	if want := []string{"equal", "equal", "gap", "gap", "gap", "equal", "different", "gap", "equal"}; !slices.Equal(state, want) {
		t.Fatalf("states %v", state)
	}
	if want := []int64{3, 3, 1, 1, 1, 3, 3, 2, 3}; !slices.Equal(count, want) {
		t.Fatalf("counts %v", count)
	}
	if which[2] != "rank 2" || which[7] != "rank 0, rank 1" || which[1] != "all" {
		t.Fatalf("which %q", which)
	}
	// The leaf c under m: 10 + 10p ns on rank p; the slowest is rank 2.
	if mx[8] != 30 || md[8] != 20 || slow[8] != "rank 2" {
		t.Fatalf("c under m: max %d median %d slowest %s, want 30, 20, rank 2", mx[8], md[8], slow[8])
	}
	dv := m.Divergences()
	path, _ := dv.Strings("Call Path")
	// Below d | e, c is called by ranks 0-1 only (under d): a divergence
	// too.
	if want := []string{"m > a", "m > b > d | e", "m > b > d | e > c"}; !slices.Equal(path, want) {
		t.Fatalf("divergences %v, want %v", path, want)
	}
	// The block of b's children: d (ranks 0-1) against e (rank 2).
	blk := m.Block(5)
	lab, _ := blk.Strings("Label")
	col, _ := blk.Strings("1")
	if !slices.Equal(lab, []string{"rank 0, rank 1 (2)", "rank 2"}) || !slices.Equal(col, []string{"d", "e"}) {
		t.Fatalf("block of b: labels %q column %q", lab, col)
	}
	if got := m.Find("c"); !slices.Equal(got, []int{7, 8}) {
		t.Fatalf("Find(c) = %v", got)
	}
	if got := m.CallPath(7); got != "m > b > d | e > c" {
		t.Fatalf("CallPath(7) = %q", got)
	}
}

func TestFiguresRender(t *testing.T) {
	tr := treeTrace(t, fig511, nil)
	m := Align(tr.Processes()...)
	for name, f := range map[string]interface{ PNG() ([]byte, error) }{
		"Plot":      m.Plot(),
		"PlotFrom":  m.PlotFrom(5, 1),
		"PlotBlock": m.PlotBlock(1),
		"Block":     Strings(fig58).Plot(),
	} {
		png, err := f.PNG()
		if err != nil || len(png) < 1000 {
			t.Fatalf("%s: %d bytes, %v", name, len(png), err)
		}
	}
	if got := m.PlotBlock(1).Title(); !strings.Contains(got, "children of node 1 (m): 2 distinct sequences, 3 columns") {
		t.Fatalf("PlotBlock title %q", got)
	}
	bundle := m.MIMEBundle()
	if h, _ := bundle["text/html"].(string); !strings.Contains(h, "merged call tree of 3 processes (2 distinct call trees): 9 nodes — 4 equal, 4 gap, 1 different") {
		t.Fatalf("bundle html %q", h)
	}
	if s := Strings(fig58).String(); !strings.Contains(s, "Sequence 2   — a a a — a b b b — b") {
		t.Fatalf("block text %q", s)
	}
}
