package align_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Weber's worked example (3.2.2, Figs. 3.6 and 3.7): sequence A mcacmam against B mcacbcmbm
// under the default scoring (match 2, mismatch -1, gap -1). The optimal score is 9: six equal
// pairs, one different (a against b) and two gaps where B has calls A lacks; the similarity of
// eq. 4.4-4.5 is (9/18 + 0.5)/1.5.
func Example() {
	r := align.Strings("mcacmam", "mcacbcmbm")
	fmt.Println(r)
	fmt.Println(r.Table().ColumnNames())
	st, _ := r.Table().Strings("State")
	fmt.Println(st)
	// Output:
	// alignment A vs B: 9 pairs (equal 6, diff 1, gapA 2, gapB 0), score 9, similarity 0.6667, method NW
	// A mcac--mam
	//   ====--=!=
	// B mcacbcmbm
	// [State Function A Function B Level]
	// [Equal Equal Equal Equal GapA GapA Equal Diff Equal]
}

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
