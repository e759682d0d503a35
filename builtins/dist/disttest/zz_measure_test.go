package disttest

import (
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

func TestZZMeasure(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 64, 400
	tr := synth.Generate(cfg)
	hy := synth.Generate(synth.HybridGPUConfig(16, 4, 200))
	for name, tr := range map[string]any{"spmd": tr, "hybrid": hy} {
		_ = name
		_ = tr
	}
	for _, x := range []struct {
		name string
		tr   any
	}{{"spmd", tr}, {"hybrid", hy}} {
		tr := x.tr.(interface{ NumEvents() int64 })
		_ = tr
	}
	for _, pr := range []struct {
		name string
	}{{"spmd"}, {"hybrid"}} {
		t0 := tr
		if pr.name == "hybrid" {
			t0 = hy
		}
		t.Logf("%s: %d processes, %d events (~%d MB at 21 B/event)", pr.name, t0.NumProcesses(), t0.NumEvents(), t0.NumEvents()*21>>20)
		for _, c := range profileCasesOf() {
			sk := parttest.Distribute(t0, 4)
			ce := &counting{inner: part.ExecutorOf(sk)}
			part.Attach(sk, ce)
			start := time.Now()
			var err error
			if c.Run2 != nil {
				_, err = c.Run2(sk, sk)
			} else {
				_, err = c.Run(sk)
			}
			if err != nil {
				t.Logf("  %-30s error %v", c.Name, err)
				continue
			}
			t.Logf("  %-30s %2d rounds %9d bytes (%.4f%% of the trace) %v %v", c.Name, len(ce.rounds), ce.bytes, 100*float64(ce.bytes)/float64(t0.NumEvents()*21), ce.sizes, time.Since(start).Round(time.Millisecond))
		}
	}
}
