package compare_test

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// The comparison renders the same when either run, or both, is
// distributed (to 1, 3 and more ranks than processes), cell by cell: each
// trace against the next one and against a generated run of another size.
func TestDistributedEqualsLocal(t *testing.T) {
	names, trs, err := disttest.StructureTraces("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg := synth.DefaultGenConfig()
	cfg.Ranks = 4
	other := synth.Generate(cfg)
	n := 0
	for _, c := range disttest.Cases() {
		if !strings.HasPrefix(c.Name, "compare.") {
			continue
		}
		n++
		for k, a := range trs {
			for _, b := range []*trace.Trace{trs[(k+1)%len(trs)], other} {
				want, err := c.Run2(a, b)
				if err != nil {
					t.Errorf("%s on %s: %v", c.Name, names[k], err)
					continue
				}
				for _, ranks := range []int{1, 3, a.NumProcesses() + 2} {
					for _, both := range [][2]*trace.Trace{
						{parttest.Distribute(a, ranks), b},
						{a, parttest.Distribute(b, ranks)},
						{parttest.Distribute(a, ranks), parttest.Distribute(b, 3)},
					} {
						got, err := c.Run2(both[0], both[1])
						if err != nil {
							t.Errorf("%s on %s, %d ranks: %v", c.Name, names[k], ranks, err)
						} else if got != want {
							t.Errorf("%s on %s, %d ranks: differs from the local run:\n%s", c.Name, names[k], ranks, firstDiff(want, got))
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no compare case")
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
