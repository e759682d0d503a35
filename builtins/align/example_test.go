package align_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

func ExampleStrings() {
	r := align.Strings("mcacmam", "mcacbcmbm")
	a, b, st := r.AlignedStrings()
	fmt.Println(a)
	fmt.Println(b)
	fmt.Println(st)
	fmt.Println(r.Score(), fmt.Sprintf("%.3f", r.Similarity()))
	// Output:
	// mcac--mam
	// mcacbcmbm
	// ====--=!=
	// 9 0.667
}

// The cells of notebooks/alignment.ipynb, compiled.
func Example_notebook() {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth = 4, 10, 2
	runA := synth.Generate(cfg)
	cfg.Version, cfg.SlowRank = 1, 3
	runB := synth.Generate(cfg)
	_ = align.Strings("mcacmam", "mcacbcmbm").MIMEBundle()
	runs := align.Runs(runA, runB)
	_ = runs.Table()
	_ = runs.Plot()
	slow := align.Pair(runA.Process(3), runB.Process(3))
	_ = slow.MIMEBundle()
	_ = slow.Plot()
	fmt.Println(slow.Counts())
	_ = slow.Table().Head(20)
	_ = slow.FunctionTimeDiff()
	fmt.Printf("corrected HA %d, flat optimum %d, error %.4f\n", slow.CorrectedScore(), slow.FlatOptimum(), slow.HAError())
	// Output:
	// 226 0 70 70
	// corrected HA 622, flat optimum 622, error 0.0000
}
