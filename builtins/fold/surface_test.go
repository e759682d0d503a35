package fold

import (
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every table of fold follows the notebook vocabulary (docs/surface.md): Title Case names,
// durations with their unit in the name and the metadata, time points named "(ns)" without.
func TestTableColumnNames(t *testing.T) {
	tr := synth.Generate(synth.PIConGPUConfig(4, 0, 3))
	f := Timeline(tr, Max, 50)
	ix := NewIndex(tr)
	streams := make([]int, len(ix.Streams()))
	for i := range streams {
		streams[i] = i
	}
	points := []string{"Start (ns)", "End (ns)"}
	for _, x := range []struct {
		name   string
		table  *arrowio.Table
		points []string
	}{
		{"Folded.Table", f.Table(), points},
		{"Utilisation.Table", GPUUtilisation(tr, WithWindows(3)).Table(), points},
		{"Counts.Table", ix.Counts(streams, f.T0, f.T1, 20).Table(), nil},
	} {
		if err := arrowio.CheckColumnNames(x.table, x.points...); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}
