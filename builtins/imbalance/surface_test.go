package imbalance

import (
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part"
)

// Every table of imbalance follows the notebook vocabulary (docs/surface.md): Title Case
// names, durations with their unit in the name and the metadata, time points named "(ns)"
// without.
func TestTableColumnNames(t *testing.T) {
	tr := seedTrace()
	r := Analyze(tr)
	p, err := part.Run(tr, tr.Processes(), Method(tr))
	if err != nil {
		t.Fatal(err)
	}
	points := []string{"Start (ns)", "End (ns)"}
	for _, x := range []struct {
		name   string
		table  *arrowio.Table
		points []string
	}{
		{"Result.Table", r.Table(), points},
		{"Result.Iterations", r.Iterations(), points},
		{"Result.Segments", r.Segments(), points},
		{"Result.Processes", r.Processes(), nil},
		{"Result.Candidates", r.Candidates(), nil},
		{"SegmentSet.Table", p.(*SegmentSet).Table(), points},
		{"Calls.Table", CountCalls(tr.Processes()).Table(), nil},
	} {
		if err := arrowio.CheckColumnNames(x.table, x.points...); err != nil {
			t.Errorf("%s: %v", x.name, err)
		}
	}
}
