package cluster_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/part/parttest"
)

// Every cluster case renders the same on each trace as on the trace
// distributed to 1, 3 and more ranks than processes, cell by cell.
func TestDistributedEqualsLocal(t *testing.T) { disttest.Check(t, "../..", "cluster.") }

// The functions that read one process's events name themselves on a
// process of a distributed trace instead of answering for no events.
func TestEventReadersPanicOnADistributedProcess(t *testing.T) {
	_, trs, err := disttest.Traces("../..")
	if err != nil {
		t.Fatal(err)
	}
	p := parttest.Distribute(trs[0], 3).Process(1)
	for name, f := range map[string]func(){
		"cluster.StructureOf":        func() { cluster.StructureOf(p) },
		"cluster.HashClustering.Add": func() { cluster.NewHashClustering(cluster.Pairs).Add(p) },
	} {
		var msg string
		func() {
			defer func() { msg = fmt.Sprint(recover()) }()
			f()
		}()
		if !strings.Contains(msg, name) || !strings.Contains(msg, "MPI job") {
			t.Errorf("%s on a distributed process: %q", name, msg)
		}
	}
}
