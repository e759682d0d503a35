package cluster

import (
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every table of cluster follows the notebook vocabulary (docs/surface.md): Title Case names,
// units in parentheses and in the metadata.
func TestTableColumnNames(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = 6, 3, 2
	tr := synth.Generate(cfg)
	c := Structural(tr)
	for _, x := range []struct {
		name  string
		table *arrowio.Table
	}{
		{"Clustering.Table", c.Table()},
		{"Clustering.GroupTable", c.GroupTable()},
		{"HashClustering.Table", c.HashClustering().Table()},
		{"Lattice.Table", c.Lattice().Table()},
		{"Matrix.Table", c.Matrix().Table()},
		{"Subsumption.Table", c.Subsumption().Table()},
		{"Coarsened.Table", c.Coarsen(0.5).Table()},
		{"KMedoids.Table", KMedoids(c, 1, 2).Table()},
		{"DBSCAN.Table", DBSCAN(c, 0.5, 1).Table()},
	} {
		if err := arrowio.CheckColumnNames(x.table); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}
