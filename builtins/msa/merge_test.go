package msa

import (
	"strings"
	"testing"
)

// Weber's Figures 5.11-5.13. The figures are images the seed text does not
// carry; the three call trees below are reconstructed from the text of
// 5.2.2: the root's children are m in all three; m's children have "a gap
// in the first two processes" (a, called by process 3 only); a's children
// are gaps; b's children merge d and e into one Different node; that
// node's child c is missing in process 3; c under m is a leaf. The result
// has the text's counts: four equal nodes, four gap nodes, one different.
var fig511 = []string{
	"m(b(d(c)) c)",
	"m(b(d(c)) c)",
	"m(a(x y) b(e) c)",
}

func TestMergedTreeFig512(t *testing.T) {
	tr := treeTrace(t, fig511, nil)
	m := Align(tr.Processes()...)
	want := strings.Join([]string{
		"ε [equal [0 1 2]]",
		"  m [equal [0 1 2]]",
		"    a [gap [2]]",
		"      x [gap [2]]",
		"      y [gap [2]]",
		"    b [equal [0 1 2]]",
		"      d | e [different [0 1 2]]",
		"        c [gap [0 1]]",
		"    c [equal [0 1 2]]",
		"",
	}, "\n")
	if got := render(m); got != want {
		t.Fatalf("merged tree\n%s\nwant\n%s", got, want)
	}
	e, g, d := m.StateCounts()
	if e != 4 || g != 4 || d != 1 {
		t.Fatalf("states %d equal, %d gap, %d different; want 4, 4, 1 (Figure 5.12, root counted as equal)", e, g, d)
	}
}
