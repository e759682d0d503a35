package fold_test

import (
	"testing"

	"github.com/tracebook/tracebook/builtins/dist/disttest"
)

// Every case of package fold in disttest (every entry point that runs
// distributed, every table of its result cell by cell, its headline and plot
// data) renders the same on the generated and real traces as on each
// distributed to 1, 3 and more ranks than it has processes.
func TestDistributedEqualsLocal(t *testing.T) { disttest.Check(t, "../..", "fold.") }
