package profile

import (
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/plotting/plottest"
)

// Issue 32: the communication matrix's colour bar read 0 to 4e+06 (bytes); it reads in MiB now
// (0 to 3.98 MiB).
func TestCommPlotColorBarInMiB(t *testing.T) {
	tr, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	texts := plottest.Texts(t, CommMatrix(tr).Plot())
	if !slices.Contains(texts, "MiB") || !slices.Contains(texts, "3") {
		t.Errorf("colour bar not in MiB: %q", texts)
	}
	if bad := plottest.Exponents(texts); len(bad) > 0 {
		t.Errorf("tick labels with exponents %q", bad)
	}
}
