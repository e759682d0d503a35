package ccg

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// replacedAsBuilt, read off a lossless graph, gives the Replaced counts
// the build counted, for every number of shards.
func TestReplacedAsBuilt(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.SlowRank, cfg.SlowFactor = 7, 2, 3
	trs := []*trace.Trace{synth.Generate(cfg), synth.Generate(synth.HybridGPUConfig(3, 2, 2))}
	for _, p := range []string{"traces/ping-pong-otf2", "traces/metric-streams", "split-comm/traces.otf2"} {
		trs = append(trs, trace.Open(filepath.Join("../../test/data", p)))
	}
	for k, tr := range trs {
		for _, shards := range []int{1, 2, DefaultShards, 16} {
			g := BuildTrace(tr, Lossless, WithShards(shards))
			want := make([]int64, g.NumLocations())
			for i, l := range g.locs {
				want[i] = l.Replaced
			}
			if got := replacedAsBuilt(g, shards); !slices.Equal(got, want) {
				t.Errorf("trace %d, %d shards: replacedAsBuilt %v, the build counted %v", k, shards, got, want)
			}
		}
	}
}
