package disttest_test

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/part/parttest"
)

// The structural cases render identically on each trace and on the trace
// distributed to 3 ranks.
func TestStructureCasesDistributed(t *testing.T) {
	names, trs, err := disttest.StructureTraces("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range disttest.Cases() {
		if !structural(c.Name) {
			continue
		}
		for k, tr := range trs {
			if c.Run2 != nil {
				b := trs[(k+1)%len(trs)]
				want, werr := c.Run2(tr, b)
				got, gerr := c.Run2(parttest.Distribute(tr, 3), parttest.Distribute(b, 3))
				compare(t, c.Name+" "+names[k], want, werr, got, gerr)
				continue
			}
			want, werr := c.Run(tr)
			got, gerr := c.Run(parttest.Distribute(tr, 3))
			compare(t, c.Name+" "+names[k], want, werr, got, gerr)
		}
	}
}

func structural(name string) bool {
	for _, p := range []string{"cluster.", "msa.", "ccg.", "compare."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func compare(t *testing.T, what, want string, werr error, got string, gerr error) {
	t.Helper()
	if werr != nil {
		t.Errorf("%s: local: %v", what, werr)
		return
	}
	if gerr != nil {
		t.Errorf("%s: distributed: %v", what, gerr)
		return
	}
	if len(want) < 100 {
		t.Errorf("%s: the local rendering is %d bytes: %q", what, len(want), want)
	}
	if got != want {
		wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
		for i := range min(len(wl), len(gl)) {
			if wl[i] != gl[i] {
				t.Errorf("%s: line %d differs:\nlocal:       %s\ndistributed: %s", what, i+1, wl[i], gl[i])
				return
			}
		}
		t.Errorf("%s: %d lines locally, %d distributed", what, len(wl), len(gl))
	}
}
