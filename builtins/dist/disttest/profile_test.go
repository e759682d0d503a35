package disttest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// profileTraces are the traces the cases of profile, imbalance and fold run on: generated
// (an SPMD run with a slow rank, a hybrid run with GPU streams) and every real trace of
// test/data.
func profileTraces(t *testing.T) map[string]*trace.Trace {
	t.Helper()
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank = 7, 6, 3
	out := map[string]*trace.Trace{
		"synth":      synth.Generate(cfg),
		"hybrid-gpu": synth.Generate(synth.HybridGPUConfig(3, 2, 4)),
	}
	for name, path := range map[string]string{
		"ping-pong-otf2":      "../../../test/data/traces/ping-pong-otf2/traces.otf2",
		"ping-pong-otf2-papi": "../../../test/data/traces/ping-pong-otf2-papi/traces.otf2",
		"metric-streams":      "../../../test/data/traces/metric-streams/traces.otf2",
		"split-comm":          "../../../test/data/split-comm/traces.otf2",
		"ping-pong-csv":       "../../../test/data/traces/csv/ping-pong-csv.csv",
	} {
		tr, err := trace.Load(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = tr
	}
	return out
}

// isProfileCase tells the cases of profile.go.
func isProfileCase(c Case) bool {
	for _, p := range []string{"profile.", "imbalance.", "fold."} {
		if strings.HasPrefix(c.Name, p) {
			return true
		}
	}
	return false
}

// TestProfileCasesDistributed runs every case of profile, imbalance and fold on each trace
// and on the trace distributed to 3 ranks (parttest.Distribute): the renderings (every table
// cell, headline and plot data), or the errors, must be identical.
func TestProfileCasesDistributed(t *testing.T) {
	n := 0
	for name, tr := range profileTraces(t) {
		for _, c := range Cases() {
			if !isProfileCase(c) {
				continue
			}
			n++
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				compareCase(t, c, tr, parttest.Distribute(tr, 3))
			})
		}
	}
	if n == 0 {
		t.Fatal("no cases of profile, imbalance and fold are registered")
	}
}

// compareCase runs c on the local trace and on its distributed skeleton and compares.
func compareCase(t *testing.T, c Case, local, dist *trace.Trace) {
	t.Helper()
	var want, got string
	var werr, gerr error
	if c.Run2 != nil {
		want, werr = c.Run2(local, local)
		got, gerr = c.Run2(dist, dist)
	} else {
		want, werr = c.Run(local)
		got, gerr = c.Run(dist)
	}
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("local error %v, distributed error %v", werr, gerr)
	}
	if werr == nil && len(want) == 0 {
		t.Fatal("the local run rendered nothing")
	}
	if got != want {
		t.Fatalf("distributed rendering differs from the local one:\n%s", firstDiff(want, got))
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			k := 0
			for k < min(len(x), len(y)) && x[k] == y[k] {
				k++
			}
			from := max(0, k-200)
			cut := func(s string) string {
				if len(s) > from+400 {
					return "…" + s[from:from+400] + "…"
				}
				return "…" + s[min(from, len(s)):]
			}
			return "line " + strconv.Itoa(i+1) + ":\nlocal:       " + cut(x) + "\ndistributed: " + cut(y)
		}
	}
	return "(same lines)"
}
