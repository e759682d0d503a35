package msa_test

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/part/parttest"
)

// Every MSA case renders the same on each trace as on the trace
// distributed to 1, 3 and more ranks than processes, cell by cell.
func TestDistributedEqualsLocal(t *testing.T) {
	names, trs, err := disttest.StructureTraces("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range disttest.Cases() {
		if !strings.HasPrefix(c.Name, "msa.") {
			continue
		}
		n++
		for k, tr := range trs {
			want, err := c.Run(tr)
			if err != nil {
				t.Errorf("%s on %s: %v", c.Name, names[k], err)
				continue
			}
			for _, ranks := range []int{1, 3, tr.NumProcesses() + 2} {
				got, err := c.Run(parttest.Distribute(tr, ranks))
				if err != nil {
					t.Errorf("%s on %s, %d ranks: %v", c.Name, names[k], ranks, err)
				} else if got != want {
					t.Errorf("%s on %s, %d ranks: differs from the local run:\n%s", c.Name, names[k], ranks, firstDiff(want, got))
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no msa case")
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "local:       " + al[i] + "\ndistributed: " + bl[i]
		}
	}
	return "lengths differ"
}
