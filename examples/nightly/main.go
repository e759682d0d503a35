// Command nightly is a regression report for a batch job, a cron job after
// the nightly benchmark, or a CI step, run by tracebook's session:
//
//	tracebook run examples/nightly/main.go [BASELINE NEW [LIMIT]]
//
// (or compiled: go run ./examples/nightly, without the figure). BASELINE
// and NEW are traces of two runs (OTF2 anchors, events tables, any format
// trace.Load reads). Without them it generates a baseline run and a run of
// the same program in which rank 5 is 30% slower. It prints the
// comparison's headline and its five costliest changes, shows the figure
// (tracebook run writes it to main-1.png next to this file, or where
// --figures says), writes every change to changes.parquet for pandas or R,
// and exits with status 1 when the time per process, set-up and tear-down
// left out, grew by more than LIMIT (5% unless given, "5%" or "0.05").
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

func main() {
	base, run, limit, err := runs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "nightly:", err)
		os.Exit(2)
	}

	// what changed, ranked by what it costs
	cr := compare.Runs(base, run)
	fmt.Println(cr.Headline())
	fmt.Println(cr.Functions().Head(5))
	display.Show(cr.Plot())
	arrowio.WriteParquet("changes.parquet", cr.Functions())

	// the verdict: time per process outside set-up and tear-down
	var perProcess [2]float64
	for _, r := range cr.FunctionRows() {
		if r.Role == trace.SetUp {
			continue
		}
		for s := range 2 {
			perProcess[s] += float64(r.Mean[s]) * float64(r.Processes[s])
		}
	}
	perProcess[0] /= float64(base.NumProcesses())
	perProcess[1] /= float64(run.NumProcesses())
	change := perProcess[1]/perProcess[0] - 1
	fmt.Printf("time per process: %.3f ms -> %.3f ms (%+.1f%%, limit %+.1f%%)\n",
		perProcess[0]/1e6, perProcess[1]/1e6, 100*change, 100*limit)
	if change > limit {
		os.Exit(1)
	}
}

// runs loads the two runs named by args, or generates them.
func runs(args []string) (base, run *trace.Trace, limit float64, err error) {
	limit = 0.05
	switch len(args) {
	case 0:
		cfg := synth.DefaultGenConfig()
		cfg.Ranks, cfg.Iterations = 16, 20
		base = synth.Generate(cfg)
		base.SetName("baseline")
		cfg.SlowRank, cfg.SlowFactor = 5, 1.3
		run = synth.Generate(cfg)
		run.SetName("tonight")
		return base, run, limit, nil
	case 3:
		if limit, err = strconv.ParseFloat(strings.TrimSuffix(args[2], "%"), 64); err != nil {
			return nil, nil, 0, fmt.Errorf("LIMIT %q: %v", args[2], err)
		}
		if strings.HasSuffix(args[2], "%") {
			limit /= 100
		}
		fallthrough
	case 2:
		if base, err = trace.Load(args[0]); err != nil {
			return nil, nil, 0, err
		}
		if run, err = trace.Load(args[1]); err != nil {
			return nil, nil, 0, err
		}
		return base, run, limit, nil
	}
	return nil, nil, 0, fmt.Errorf("usage: nightly [BASELINE NEW [LIMIT]]")
}
