package compare_test

import (
	"errors"
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
	names, trs, err := disttest.Traces("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg := synth.DefaultGenConfig()
	cfg.Ranks = 4
	other := synth.Generate(cfg)
	cases := disttest.CasesOf("compare.")
	if len(cases) == 0 {
		t.Fatal("no compare case")
	}
	for _, c := range cases {
		for k, a := range trs {
			for _, b := range []*trace.Trace{trs[(k+1)%len(trs)], other} {
				for _, ranks := range []int{1, 3, a.NumProcesses() + 2} {
					for _, remote := range [][2]*trace.Trace{
						{parttest.Distribute(a, ranks), b},
						{a, parttest.Distribute(b, ranks)},
						{parttest.Distribute(a, ranks), parttest.Distribute(b, 3)},
					} {
						refused, err := disttest.Diff(c, [2]*trace.Trace{a, b}, remote)
						if err == nil && refused {
							err = errors.New("refused the runs, locally and distributed")
						}
						if err != nil {
							t.Errorf("%s on %s, %d ranks: %v", c.Name, names[k], ranks, err)
						}
					}
				}
			}
		}
	}
}
