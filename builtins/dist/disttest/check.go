package disttest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Traces returns the traces every case is checked on, with short names:
// generated ones (SPMD runs with a slow rank, hybrid runs with GPU streams)
// and the real traces of test/data in the repository at root.
func Traces(root string) (names []string, trs []*trace.Trace, err error) {
	spmd := synth.DefaultGenConfig()
	spmd.Ranks, spmd.Iterations, spmd.SlowRank = 7, 6, 3
	slow := synth.DefaultGenConfig()
	slow.Ranks, slow.SlowRank, slow.SlowFactor = 6, 2, 3
	names = []string{"synth", "synth-slow", "hybrid-gpu", "hybrid-gpu-short"}
	trs = []*trace.Trace{synth.Generate(spmd), synth.Generate(slow),
		synth.Generate(synth.HybridGPUConfig(3, 2, 4)), synth.Generate(synth.HybridGPUConfig(3, 2, 2))}
	for _, p := range [][2]string{
		{"ping-pong-otf2", "traces/ping-pong-otf2/traces.otf2"},
		{"ping-pong-otf2-papi", "traces/ping-pong-otf2-papi/traces.otf2"},
		{"metric-streams", "traces/metric-streams/traces.otf2"},
		{"split-comm", "split-comm/traces.otf2"},
		{"ping-pong-csv", "traces/csv/ping-pong-csv.csv"},
	} {
		tr, err := trace.Load(filepath.Join(root, "test/data", p[1]))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p[0], err)
		}
		names, trs = append(names, p[0]), append(trs, tr)
	}
	return names, trs, nil
}

// TraceMap is Traces by name.
func TraceMap(root string) (map[string]*trace.Trace, error) {
	names, trs, err := Traces(root)
	if err != nil {
		return nil, err
	}
	m := make(map[string]*trace.Trace, len(names))
	for i, n := range names {
		m[n] = trs[i]
	}
	return m, nil
}

// Diff runs c on local traces and on their distributed twins (a Run case
// on the first of each pair, a Run2 case on both) and says how they
// compare: refused when both failed with the same error; otherwise an error
// naming the difference (one side failed, the local run rendered almost
// nothing, or the first line where the renderings differ).
func Diff(c Case, local, remote [2]*trace.Trace) (refused bool, err error) {
	var want, got string
	var werr, gerr error
	if c.Run2 != nil {
		want, werr = c.Run2(local[0], local[1])
		got, gerr = c.Run2(remote[0], remote[1])
	} else {
		want, werr = c.Run(local[0])
		got, gerr = c.Run(remote[0])
	}
	switch {
	case werr != nil && gerr != nil && werr.Error() == gerr.Error():
		return true, nil
	case werr != nil || gerr != nil:
		return false, fmt.Errorf("local error %v, distributed error %v", werr, gerr)
	case len(want) < 100:
		return false, fmt.Errorf("the local run rendered %d bytes: %q", len(want), want)
	case got != want:
		return false, fmt.Errorf("the distributed rendering differs from the local one:\n%s", FirstDiff(want, got))
	}
	return false, nil
}

// Check runs every case whose name starts with prefix on each of Traces
// (under root) and on the trace distributed to 1, 3 and more ranks than it
// has processes (parttest.Distribute; a Run2 case takes the next trace as
// its second run, distributed to 3 ranks): the renderings must be
// identical, and a case may refuse a trace (the same error both ways) only
// if it says so (Case.MayRefuse).
func Check(t *testing.T, root, prefix string) {
	t.Helper()
	names, trs, err := Traces(root)
	if err != nil {
		t.Fatal(err)
	}
	cases := CasesOf(prefix)
	if len(cases) == 0 {
		t.Fatalf("no case named %s*", prefix)
	}
	for _, c := range cases {
		for k, tr := range trs {
			b := trs[(k+1)%len(trs)]
			for _, n := range []int{1, 3, tr.NumProcesses() + 2} {
				refused, err := Diff(c, [2]*trace.Trace{tr, b}, [2]*trace.Trace{parttest.Distribute(tr, n), parttest.Distribute(b, 3)})
				if err == nil && refused && !c.MayRefuse {
					err = fmt.Errorf("refused the trace, locally and distributed")
				}
				if err != nil {
					t.Errorf("%s on %s, %d ranks: %v", c.Name, names[k], n, err)
				}
			}
		}
	}
}

// FirstDiff shows the first line where a and b differ, around the first
// byte that differs.
func FirstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x == y {
			continue
		}
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
	return "(same lines)"
}
