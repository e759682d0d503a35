package waits_test

import (
	"testing"

	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/waits"
)

func TestSmokeSynth(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Threads = 8, 5, 0
	cfg.SlowRank, cfg.SlowFactor = 3, 2
	tr := synth.Generate(cfg)
	r := waits.Analyze(tr)
	counts := map[waits.Kind]int64{}
	culprits := map[int32]int64{}
	for _, in := range r.InstanceRows() {
		counts[in.Kind] += in.Wait
		culprits[in.Culprit] += in.Wait
	}
	t.Logf("msgs %d colls %d counts %v culprits %v", r.Messages, r.Collectives, counts, culprits)
	t.Logf("path %d segs %d", r.PathLength(), len(r.SegmentRows()))
	for _, s := range r.SegmentRows() {
		t.Logf("%+v", s)
	}
	for _, d := range r.DelayRows() {
		t.Logf("%v %s %d", d.Kind, d.Path, d.Cost)
	}
	t.Logf("skipped %v", r.Skipped())
}
