package disttest_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// The structural cases render identically on each trace and on the trace
// distributed to 3 ranks.
func TestStructureCasesDistributed(t *testing.T) {
	names, trs, err := disttest.StructureTraces("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range disttest.Cases() {
		if !isStructureCase(c.Name) {
			continue
		}
		for k, tr := range trs {
			if c.Run2 != nil {
				b := trs[(k+1)%len(trs)]
				want, werr := c.Run2(tr, b)
				got, gerr := c.Run2(parttest.Distribute(tr, 3), parttest.Distribute(b, 3))
				structureSame(t, c.Name+" "+names[k], want, werr, got, gerr)
				continue
			}
			want, werr := c.Run(tr)
			got, gerr := c.Run(parttest.Distribute(tr, 3))
			structureSame(t, c.Name+" "+names[k], want, werr, got, gerr)
		}
	}
}

func isStructureCase(name string) bool {
	for _, p := range []string{"cluster.", "msa.", "ccg.", "compare."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func structureSame(t *testing.T, what, want string, werr error, got string, gerr error) {
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

// structureCounter wraps a job's executor and counts its rounds and the bytes of
// the merged partials it returns to the notebook.
type structureCounter struct {
	e      part.Executor
	rounds map[string]int
	bytes  map[string]int64
}

func (c *structureCounter) RunRound(m part.Method, procs []int, round int, decision []byte) (part.Partial, error) {
	p, err := c.e.RunRound(m, procs, round, decision)
	if err != nil {
		return nil, err
	}
	c.rounds[m.Name()]++
	b, err := part.Encode(m, round, p)
	c.bytes[m.Name()] += int64(len(b))
	return p, err
}

func structureCount(tr *trace.Trace, ranks int) (*trace.Trace, *structureCounter) {
	sk := parttest.Distribute(tr, ranks)
	c := &structureCounter{e: part.ExecutorOf(sk), rounds: map[string]int{}, bytes: map[string]int64{}}
	part.Attach(sk, c)
	return sk, c
}

// Each entry point takes the rounds its design says: one per method it
// runs on the job, one per Fetch; the bytes it brings to the notebook are
// logged beside the trace's events.
func TestStructureRounds(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank, cfg.SlowFactor = 32, 200, 5, 3
	tr := synth.Generate(cfg)
	var events int64
	for _, p := range tr.Processes() {
		events += int64(p.Len())
	}
	other := synth.Generate(synth.DefaultGenConfig())
	for _, e := range []struct {
		name string
		run  func(sk *trace.Trace)
		want map[string]int
	}{
		{"cluster.Structural", func(sk *trace.Trace) { cluster.Structural(sk).GroupTable() }, map[string]int{"cluster.hash": 1}},
		{"cluster.Coarsen", func(sk *trace.Trace) { cluster.Structural(sk).Coarsen(0).Table() },
			map[string]int{"cluster.hash": 1, "cluster.profiles": 1}},
		{"msa.Group", func(sk *trace.Trace) { msa.Group(sk.Processes()).Table() },
			map[string]int{"msa.stage1": 1, "part.events": 1, "msa.stats": 2}},
		{"ccg.BuildTrace", func(sk *trace.Trace) { ccg.BuildTrace(sk, ccg.Lossless).Summary(0, 1<<62).Table() }, map[string]int{"ccg.build": 1}},
		{"compare.Runs", func(sk *trace.Trace) { compare.Runs(sk, other).Functions() }, map[string]int{"compare.summary": 1}},
		{"compare.Runs.Where", func(sk *trace.Trace) { compare.Runs(sk, other).Where() }, map[string]int{"compare.summary": 1, "part.events": 1}},
	} {
		sk, c := structureCount(tr, 4)
		e.run(sk)
		if !maps.Equal(c.rounds, e.want) {
			t.Errorf("%s: rounds %v, want %v", e.name, c.rounds, e.want)
		}
		var total int64
		for _, n := range c.bytes {
			total += n
		}
		t.Logf("%-20s rounds %v, bytes to the notebook %v: %d in all for %d processes, %d events (%.2f%% of 13 bytes per event)",
			e.name, c.rounds, c.bytes, total, tr.NumProcesses(), events, 100*float64(total)/float64(13*events))
	}
}
