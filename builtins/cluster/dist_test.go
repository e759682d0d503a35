package cluster_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/part/parttest"
)

// distSplits are the job sizes the distributed runs are checked at: one
// rank, three, and more ranks than processes (Distribute gives each rank
// one process then).
func distSplits(procs int) []int { return []int{1, 3, procs + 2} }

// Every clustering case renders the same on each trace as on the trace
// distributed, cell by cell.
func TestDistributedEqualsLocal(t *testing.T) {
	checkCases(t, "cluster.")
}

func checkCases(t *testing.T, prefix string) {
	names, trs, err := disttest.StructureTraces("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range disttest.Cases() {
		if !strings.HasPrefix(c.Name, prefix) {
			continue
		}
		n++
		for k, tr := range trs {
			want, err := c.Run(tr)
			if err != nil {
				t.Errorf("%s on %s: %v", c.Name, names[k], err)
				continue
			}
			for _, ranks := range distSplits(tr.NumProcesses()) {
				got, err := c.Run(parttest.Distribute(tr, ranks))
				if err != nil {
					t.Errorf("%s on %s, %d ranks: %v", c.Name, names[k], ranks, err)
					continue
				}
				if got != want {
					t.Errorf("%s on %s, %d ranks: differs from the local run:\n%s", c.Name, names[k], ranks, firstDiff(want, got))
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("no case named %s*", prefix)
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

// The functions that read one process's events name themselves on a
// process of a distributed trace instead of answering for no events.
func TestEventReadersPanicOnADistributedProcess(t *testing.T) {
	_, trs, err := disttest.StructureTraces("../..")
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
