package synth_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Eight ranks of otf2gen's solver for 50 iterations, rank 3 slow.
func ExampleGenerate() {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.SlowRank = 8, 50, 3
	tr := synth.Generate(cfg)
	fmt.Println(tr.Name())
	fmt.Println(tr.NumProcesses(), "processes,", tr.NumEvents(), "events")
	fmt.Println(cfg.EventsPerRank(0), "events on rank 0")
	// Output:
	// generated A, 8 ranks
	// 8 processes, 12898 events
	// 1614 events on rank 0
}
