package msa_test

import (
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Every MSA case renders the same on each trace as on the trace
// distributed to 1, 3 and more ranks than processes, cell by cell.
func TestDistributedEqualsLocal(t *testing.T) {
	names, trs, err := disttest.StructureTraces("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range disttest.Cases() {
		if !strings.HasPrefix(c.Name, "msa.") {
			continue
		}
		n++
		for k, tr := range trs {
			want, err := c.Run(tr)
			if err != nil {
				t.Errorf("%s on %s: %v", c.Name, names[k], err)
				continue
			}
			for _, ranks := range []int{1, 3, tr.NumProcesses() + 2} {
				got, err := c.Run(parttest.Distribute(tr, ranks))
				if err != nil {
					t.Errorf("%s on %s, %d ranks: %v", c.Name, names[k], ranks, err)
				} else if got != want {
					t.Errorf("%s on %s, %d ranks: differs from the local run:\n%s", c.Name, names[k], ranks, firstDiff(want, got))
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no msa case")
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

// rounds counts a job's rounds per method.
type rounds struct {
	e part.Executor
	n map[string]int
}

func (r *rounds) RunRound(m part.Method, procs []int, round int, decision []byte) (part.Partial, error) {
	r.n[m.Name()]++
	return r.e.RunRound(m, procs, round, decision)
}

// With more processes than a node's values are shipped for, the medians
// are selected in rounds of bucket counts; the statistics are still the
// local ones, at every split.
func TestDistributedMediansBySelection(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank, cfg.SlowFactor = 90, 3, 7, 4
	tr := synth.Generate(cfg)
	local := msa.Group(tr.Processes())
	for _, ranks := range []int{1, 4, 100} {
		sk := parttest.Distribute(tr, ranks)
		r := &rounds{e: part.ExecutorOf(sk), n: map[string]int{}}
		part.Attach(sk, r)
		m := msa.Group(sk.Processes())
		if local.NumNodes() != m.NumNodes() {
			t.Fatalf("%d ranks: %d nodes, local %d", ranks, m.NumNodes(), local.NumNodes())
		}
		for v := range m.NumNodes() {
			if a, b := local.Stats(v), m.Stats(v); a != b {
				t.Errorf("%d ranks, node %d: stats %+v, local %+v", ranks, v, b, a)
			}
		}
		if a, b := local.Table().String(), m.Table().String(); a != b {
			t.Errorf("%d ranks: tables differ", ranks)
		}
		if r.n["msa.stats"] < 3 {
			t.Errorf("%d ranks: %d rounds of msa.stats: the selection by buckets did not run", ranks, r.n["msa.stats"])
		}
		t.Logf("%d ranks: rounds %v", ranks, r.n)
	}
}
