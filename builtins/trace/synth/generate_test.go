package synth

import (
	"context"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

func TestGenerateCounts(t *testing.T) {
	for _, cfg := range []GenConfig{
		DefaultGenConfig(),
		{Seed: 2, Ranks: 1, Iterations: 3, Depth: 2, Fanout: 3, UnitNs: 100, SlowRank: -1, OutlierIter: -1},
		{Seed: 3, Ranks: 2, Threads: 2, Iterations: 5, Depth: 1, Fanout: 2, MPI: true, UnitNs: 1000, SlowRank: 1, SlowFactor: 2, OutlierIter: 2, OutlierFactor: 3, Noise: 0.5, Version: 1, Imbalance: 0.3},
		{Seed: 4, Ranks: 7, Threads: 1, Iterations: 4, MPI: true, UnitNs: 1, Noise: 1, SlowRank: -1, OutlierIter: -1},
	} {
		tr := Generate(cfg)
		if got, want := tr.NumEvents(), cfg.NumEvents(); got != want {
			t.Errorf("%+v: %d events, NumEvents says %d", cfg, got, want)
		}
		if tr.NumProcesses() != cfg.Ranks*(cfg.Threads+1) {
			t.Errorf("%d processes", tr.NumProcesses())
		}
		for _, p := range tr.Processes() {
			if cap(p.Kind) != len(p.Kind) {
				t.Errorf("%v: capacity %d != length %d (count formula off)", p, cap(p.Kind), len(p.Kind))
			}
			for i := 1; i < len(p.Time); i++ {
				if p.Time[i] < p.Time[i-1] {
					t.Fatalf("%v: time goes backwards at %d", p, i)
				}
			}
			depth := 0
			for i, k := range p.Kind {
				switch k {
				case trace.Enter:
					depth++
				case trace.Leave:
					depth--
					if depth < 0 {
						t.Fatalf("%v: unbalanced at %d", p, i)
					}
				}
			}
			if depth != 0 {
				t.Fatalf("%v: %d calls left open", p, depth)
			}
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	cfg := DefaultGenConfig()
	cfg.Seed = 9
	a, b := Generate(cfg), Generate(cfg)
	for i := range a.Processes() {
		p, q := a.Process(i), b.Process(i)
		for j := range p.Time {
			if p.Time[j] != q.Time[j] || p.Kind[j] != q.Kind[j] || p.Ref[j] != q.Ref[j] {
				t.Fatalf("process %d event %d differs", i, j)
			}
		}
	}
	cfg.Seed = 10
	c := Generate(cfg)
	same := true
	for j := range c.Process(0).Time {
		same = same && c.Process(0).Time[j] == a.Process(0).Time[j]
	}
	if same {
		t.Error("different seeds gave identical times")
	}
}

// Generate in an interrupted cell stops with work.ErrInterrupted.
func TestGenerateStopsAtInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	work.SetContext(ctx)
	defer work.SetContext(context.Background())
	var p any
	func() {
		defer func() { p = recover() }()
		Generate(DefaultGenConfig())
	}()
	if !work.Interrupted(p) {
		t.Errorf("Generate in an interrupted cell panicked with %v", p)
	}
}
