package cluster

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace/synth"
)

func TestViews(t *testing.T) {
	tr := synth.Generate(synth.PIConGPUConfig(5, 2, 2))
	c := Structural(tr)
	if c.NumGroups() != 5 {
		t.Fatalf("%d groups", c.NumGroups())
	}
	tab := c.Table()
	if tab.NumRows() != tr.NumProcesses() || !strings.Contains(tab.String(), "Pairs+") {
		t.Errorf("process table: %d rows\n%s", tab.NumRows(), tab)
	}
	h := c.MIMEBundle()["text/html"].(string)
	for _, want := range []string{"structural clustering (pairs) of 23 processes: 5 groups", "<td>G4</td>", "GPU stream", "merged at σ = 0.83"} {
		if !strings.Contains(h, want) {
			t.Errorf("summary HTML lacks %q:\n%s", want, h)
		}
	}
	if g := c.GroupTable(); g.NumRows() != 5 {
		t.Errorf("group table rows %d", g.NumRows())
	}
	for name, b := range map[string]map[string]any{"lattice": c.Lattice().MIMEBundle(), "matrix": c.Matrix().MIMEBundle()} {
		if png, _ := b["image/png"].([]byte); len(png) < 1000 || b["text/plain"] == "" {
			t.Errorf("%s bundle: png %d bytes, text %q", name, len(png), b["text/plain"])
		}
	}
	if m := c.Matrix().Table(); m.NumCols() != 3+5 || m.NumRows() != 5 {
		t.Errorf("matrix table %d x %d", m.NumRows(), m.NumCols())
	}
	// Extents against the up-relation: the processes of every node at or below.
	l := c.Lattice()
	ext := l.extents()
	for n := range l.nodes {
		var want int64
		for m := range l.nodes {
			if isAbove(l, int32(n), int32(m)) {
				want += int64(len(l.nodes[m].procs))
			}
		}
		if ext[n] != want {
			t.Errorf("extent of node %d: %d, want %d", n, ext[n], want)
		}
	}
	if ext[l.top] != int64(tr.NumProcesses()) {
		t.Errorf("top extent %d", ext[l.top])
	}
	lt := l.Table().String()
	if !strings.Contains(lt, "Extent") || !strings.Contains(lt, "Parents") {
		t.Errorf("lattice table:\n%s", lt)
	}
	if s := c.Coarsen(0.5).MIMEBundle()["text/html"].(string); !strings.Contains(s, "merged at σ = 0.50") {
		t.Errorf("merged HTML: %s", s)
	}
}

// Members are exact: ranks 0, 2 and 4 are listed, not shown as the range
// "rank 0 … rank 4"; a range means every rank in it.
func TestMembersAreExact(t *testing.T) {
	specs := []string{"main(a)", "main(b)", "main(a)", "main(b)", "main(a)"}
	for range 3 {
		specs = append(specs, "main(b)")
	}
	c := Structural(callTrace(specs...))
	mem, _ := c.GroupTable().Strings("Members")
	if want := []string{"rank 0, rank 2, rank 4 (3)", "rank 1, rank 3, rank 5 … rank 7 (5)"}; strings.Join(mem, "|") != strings.Join(want, "|") {
		t.Errorf("members %q, want %q", mem, want)
	}
	if got := c.GroupLabel(0); got != "G0: rank 0, rank 2, rank 4 (3)" {
		t.Errorf("GroupLabel(0) = %q", got)
	}
	if !strings.Contains(c.String(), "G1: 5 processes (5 MPI ranks): rank 1, rank 3, rank 5 … rank 7 (5)") {
		t.Errorf("summary %q", c.String())
	}
	// A lattice of bare process ids.
	l := NewLattice(Funcs, 0)
	for _, id := range []int{0, 2, 3, 4, 9} {
		must(t, l.AddNames(id, []string{"f"}))
	}
	if got := l.Table().String(); !strings.Contains(got, "[0, 2 … 4, 9] (5)") {
		t.Errorf("lattice members:\n%s", got)
	}
}
