package compare

import (
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
)

// Two regions of one name under the same caller are one call path by name: their calls add up
// on each process, and the summary still encodes and decodes.
func TestRepeatedRegionName(t *testing.T) {
	names := []string{"main", "f", "f"}
	a := tracetest.Trace(names, tracetest.Process(tracetest.Call{0, 0, 10}, tracetest.Call{1, 1, 3}, tracetest.Call{2, 4, 8}))
	b := tracetest.Trace(names, tracetest.Process(tracetest.Call{0, 0, 10}, tracetest.Call{1, 1, 3}))
	r := Runs(a, b)
	var found bool
	for _, w := range r.TreeRows() {
		if w.Path != "main > f" {
			continue
		}
		found = true
		if w.Calls != [2]float64{2, 1} || w.Mean != [2]int64{6, 2} || w.Max != [2]int64{6, 2} {
			t.Errorf("main > f: calls %v mean %v max %v, want [2 1] [6 2] [6 2]", w.Calls, w.Mean, w.Max)
		}
	}
	if !found {
		t.Fatalf("no row main > f in %v", r.TreeRows())
	}
	m := SummaryMethod()
	s, err := part.Run(a, a.Processes(), m)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := part.Encode(m, 0, s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := part.Decode(m, 0, enc)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if got := back.(*Summary).procs[0].Paths; len(got) != 2 || got[1].Calls != 2 || got[1].Incl != 6 {
		t.Errorf("decoded paths %+v, want main and f with 2 calls, 6 ns", got)
	}
}
