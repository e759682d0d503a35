package session

import (
	"testing"
)

// The generators from a cell: synth's knob groups' fields are promoted
// (cfg.GPUs sets GPU.GPUs), and the old names trace.Generate and
// trace.DefaultGenConfig, kept for one release, build the same trace.
func TestGeneratorsFromCell(t *testing.T) {
	s, _, _, _ := newTest(t)
	mustRun(t, s, `import "github.com/tracebook/tracebook/builtins/trace"`)
	mustRun(t, s, `import "github.com/tracebook/tracebook/builtins/trace/synth"`)
	mustRun(t, s, `cfg := synth.DefaultGenConfig()
cfg.GPUs, cfg.Streams = 2, 3
cfg.Walk = 5
gpu := synth.Generate(cfg)
old := trace.DefaultGenConfig()
old.GPUs, old.Streams = 2, 3
old.Walk = 5`)
	if r := text(mustRun(t, s, `gpu.NumProcesses() == 4+2*3 && cfg.GPU.Streams == 3 && cfg.TreeWalk.Walk == 5`)); r != "true" {
		t.Errorf("knob groups from a cell: %s", r)
	}
	if r := text(mustRun(t, s, `trace.Generate(old).NumEvents() == gpu.NumEvents()`)); r != "true" {
		t.Errorf("trace.Generate and synth.Generate differ: %s", r)
	}
}
