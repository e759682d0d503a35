package ccg_test

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/work"
)

// Every ccg case renders the same on each trace as on the trace
// distributed to 1, 3 and more ranks than processes, cell by cell.
func TestDistributedEqualsLocal(t *testing.T) { disttest.Check(t, "../..", "ccg.") }

// A lossy graph built on a job depends on the split (similar sub-trees
// are shared within a rank's shards only); its events are within the
// bounds of the local graph's either way.
func TestDistributedLossyWithinBounds(t *testing.T) {
	names, trs, err := disttest.Traces("../..")
	if err != nil {
		t.Fatal(err)
	}
	b := ccg.Bounds{Abs: 2000, Rel: 0.05}
	eq := ccg.BuildMethod(b).(interface {
		Equal(a, b part.Partial) error
	})
	for k, tr := range trs {
		local := ccg.BuildTrace(tr, b)
		for _, ranks := range []int{1, 3, tr.NumProcesses() + 2} {
			dist := ccg.BuildTrace(parttest.Distribute(tr, ranks), b)
			if err := eq.Equal(local, dist); err != nil {
				t.Errorf("%s, %d ranks: %v", names[k], ranks, err)
			}
		}
	}
}

// Accuracy reads every event of the trace: on a distributed trace it says
// so instead of comparing with nothing.
func TestAccuracyOfADistributedTracePanics(t *testing.T) {
	_, trs, err := disttest.Traces("../..")
	if err != nil {
		t.Fatal(err)
	}
	sk := parttest.Distribute(trs[0], 3)
	g := ccg.BuildTrace(sk, ccg.Lossless)
	err = work.Try(func() { g.Accuracy(sk) })
	if err == nil || !strings.Contains(err.Error(), "ccg.Graph.Accuracy") || !strings.Contains(err.Error(), "distributed") {
		t.Errorf("Accuracy on a distributed trace: %v", err)
	}
	if a := g.Accuracy(trs[0]); a == nil {
		t.Error("Accuracy against the local trace: nil")
	}
}
