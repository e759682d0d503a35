package cluster

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

func TestViews(t *testing.T) {
	tr := trace.Generate(trace.PIConGPUConfig(5, 2, 2))
	c := Structural(tr)
	if c.NumGroups() != 5 {
		t.Fatalf("%d groups", c.NumGroups())
	}
	tab := c.Table()
	if tab.NumRows() != tr.NumProcesses() || !strings.Contains(tab.String(), "pairs_plus") {
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
	if !strings.Contains(lt, "extent") || !strings.Contains(lt, "parents") {
		t.Errorf("lattice table:\n%s", lt)
	}
	if s := c.Merge(0.5).MIMEBundle()["text/html"].(string); !strings.Contains(s, "merged at σ = 0.50") {
		t.Errorf("merged HTML: %s", s)
	}
}
