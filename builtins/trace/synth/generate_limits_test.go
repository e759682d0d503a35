package synth

import (
	"errors"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/work"
)

// panicOf runs f and returns what it panicked with (nil if it returned).
func panicOf(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// Inputs far beyond any memory are rejected at once, naming the field and
// its limit, by Generate and by the counts it is sized by (which used to
// loop over 2^40 ranks, or allocate a 2^40-call walk, before any check).
func TestGenerateBoundsInputs(t *testing.T) {
	huge := 1 << 40
	for _, tc := range []struct {
		field string
		set   func(*GenConfig)
	}{
		{"Ranks", func(c *GenConfig) { c.Ranks = huge }},
		{"Iterations", func(c *GenConfig) { c.Iterations = huge }},
		{"Threads", func(c *GenConfig) { c.Threads = huge }},
		{"Depth", func(c *GenConfig) { c.Depth = huge }},
		{"Fanout", func(c *GenConfig) { c.Depth, c.Fanout = 8, 1<<20 }},
		{"Walk", func(c *GenConfig) { c.Walk = huge }},
		{"Recursion", func(c *GenConfig) { c.Recursion = huge }},
		{"MasterWork", func(c *GenConfig) { c.MasterWork = huge }},
		{"Streams", func(c *GenConfig) { c.GPUs, c.Streams = 1, huge }},
		{"ThreadKinds[0].Count", func(c *GenConfig) { c.ThreadKinds = []ThreadKind{{Count: huge, Start: "helper"}} }},
		{"Ranks", func(c *GenConfig) { c.Ranks, c.Threads = 1<<20, 1<<10 }},         // locations
		{"Iterations", func(c *GenConfig) { c.Ranks, c.Iterations = 1<<16, 1<<20 }}, // events
	} {
		cfg := DefaultGenConfig()
		tc.set(&cfg)
		for name, f := range map[string]func(){
			"Generate":      func() { Generate(cfg) },
			"NumEvents":     func() { cfg.NumEvents() },
			"EventsPerRank": func() { cfg.EventsPerRank(0) },
		} {
			r := panicOf(f)
			e, ok := r.(*work.Error)
			if !ok || !strings.Contains(e.Error(), tc.field) || !strings.Contains(e.Error(), "limit") {
				t.Errorf("%s with %s too large: panicked with %v, want a *work.Error naming %s and its limit", name, tc.field, r, tc.field)
			}
		}
	}
}

// GenerateSMG bounds its inputs likewise, before building per-rank tables.
func TestGenerateSMGBoundsInputs(t *testing.T) {
	for field, cfg := range map[string]SMGConfig{
		"Ranks":                    SMG2000Config(1<<40, 1000),
		"Events":                   SMG2000Config(8, 1<<40),
		"Ranks 1048576 and Events": SMG2000Config(1<<20, 1<<20),
	} {
		_, err := TryGenerateSMG(cfg)
		var e *work.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), field) {
			t.Errorf("TryGenerateSMG with %s too large: error %v, want a *work.Error naming %s", field, err, field)
		}
	}
}

// The bounds the limits and the memory check use bracket the exact count.
func TestGenerateEventBounds(t *testing.T) {
	cfgs := []GenConfig{DefaultGenConfig(), BTMZConfig(8, 3), PIConGPUConfig(6, 2, 3), ParaDiSConfig(16), FD4Config(8),
		PEPCConfig(8), COSMOSPECSConfig(9, 4), HybridGPUConfig(4, 2, 3), ImbalanceBenchConfig()}
	for i, cfg := range cfgs {
		lo, n, hi := cfg.eventBound(false), cfg.NumEvents(), cfg.eventBound(true)
		if !(lo <= n && n <= hi) {
			t.Errorf("config %d: bounds %d <= %d <= %d do not hold", i, lo, n, hi)
		}
	}
}

// The memory check comes before the events are counted or allocated.
func TestGenerateReservesMemory(t *testing.T) {
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "1M")
	cfg := DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 1<<10, 1<<10
	r := panicOf(func() { Generate(cfg) })
	var me *work.MemoryError
	if e, ok := r.(*work.Error); !ok || !errors.As(e, &me) {
		t.Errorf("Generate of about 50M events with 1 MB available panicked with %v, want a *work.Error wrapping a *work.MemoryError", r)
	}
}
