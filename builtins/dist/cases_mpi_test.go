package dist

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/dist/disttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// caseTraces are the files the MPI job opens: generated runs written as
// event tables, and every real trace of the repository.
func caseTraces(t *testing.T) []string {
	dir := t.TempDir()
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank, cfg.SlowFactor = 7, 6, 3, 3
	gen := map[string]*trace.Trace{"synth.arrow": synth.Generate(cfg), "hybrid-gpu.arrow": synth.Generate(synth.HybridGPUConfig(3, 2, 4))}
	var paths []string
	for name, tr := range gen {
		p := filepath.Join(dir, name)
		arrowio.WriteIPC(p, tr.Events())
		paths = append(paths, p)
	}
	for _, p := range []string{"traces/ping-pong-otf2/traces.otf2", "traces/ping-pong-otf2-papi/traces.otf2", "traces/metric-streams/traces.otf2",
		"split-comm/traces.otf2", "traces/csv/ping-pong-csv.csv", "traces/csv/foo-bar.csv"} {
		paths = append(paths, filepath.Join("../../test/data", p))
	}
	return paths
}

// Every case of disttest (every method's entry points, all their tables
// rendered cell by cell) gives the same on a real job of 4 MPI ranks as on
// the trace loaded here, on generated and real traces.
func TestMPIJobCases(t *testing.T) {
	j := startMPI(t, 4)
	paths := caseTraces(t)
	local := make([]*trace.Trace, len(paths))
	remote := make([]*trace.Trace, len(paths))
	for i, p := range paths {
		var err error
		if local[i], err = trace.Load(p); err != nil {
			t.Fatal(err)
		}
		remote[i] = j.Open(p)
	}
	cases := disttest.Cases()
	if len(cases) < 20 {
		t.Fatalf("only %d cases registered", len(cases))
	}
	n, refused := 0, 0
	for _, c := range cases {
		for i, p := range paths {
			k := (i + 1) % len(paths)
			alike, err := disttest.Diff(c, [2]*trace.Trace{local[i], local[k]}, [2]*trace.Trace{remote[i], remote[k]})
			if err == nil && alike && !c.MayRefuse {
				err = errors.New("refused the trace, locally and on the job")
			}
			switch {
			case err != nil:
				t.Errorf("%s on %s: %v", c.Name, filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), err)
			case alike:
				refused++
			default:
				n++
			}
		}
	}
	t.Logf("%d case × trace results identical on 4 ranks, %d refused alike; %d requests, %s", n, refused, len(j.Records()), j)
}
