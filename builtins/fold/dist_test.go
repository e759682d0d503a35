package fold_test

import (
	"fmt"
	"testing"

	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/part/parttest"
)

// TestDistributedEqualsLocal runs every case of package fold in disttest (every entry point
// that runs distributed, every table of its result cell by cell, its headline and plot data)
// on the generated and real traces and on each distributed to 1, 3 and more ranks than it
// has processes (parttest.Distribute): the renderings, or the errors, must be identical.
func TestDistributedEqualsLocal(t *testing.T) {
	traces, err := disttest.ProfileTraces("../..")
	if err != nil {
		t.Fatal(err)
	}
	cases := disttest.CasesOf("fold.")
	if len(cases) == 0 {
		t.Fatal("disttest has no cases of package fold")
	}
	for name, tr := range traces {
		for _, n := range []int{1, 3, tr.NumProcesses() + 2} {
			for _, c := range cases {
				t.Run(fmt.Sprintf("%s/%d/%s", name, n, c.Name), func(t *testing.T) {
					disttest.CheckLocalVsDistributed(t, c, tr, parttest.Distribute(tr, n))
				})
			}
		}
	}
}
