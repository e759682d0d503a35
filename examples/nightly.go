// nightly.go: a regression report for a batch job, a cron job after the
// nightly benchmark, or a CI step:
//
//	tracebook run examples/nightly.go [BASELINE NEW [LIMIT]]
//
// BASELINE and NEW are traces of two runs (OTF2 anchors, events tables, any
// format trace.Load reads). Without them the script generates a baseline
// run and a run of the same program in which rank 5 is 30% slower. It
// prints the comparison's headline and its five costliest changes, shows
// the figure (written to nightly-1.png next to the script, or where
// --figures says), writes all changes to changes.parquet for pandas or R,
// and exits with status 1 when the time per process (set-up and tear-down
// left out) grew by more than LIMIT, 5% unless given.

// %% the runs
var base, run *trace.Trace
limit := 0.05
if len(os.Args) >= 3 {
	var err error
	if base, err = trace.Load(os.Args[1]); err != nil {
		panic(err)
	}
	if run, err = trace.Load(os.Args[2]); err != nil {
		panic(err)
	}
	if len(os.Args) == 4 {
		if limit, err = strconv.ParseFloat(strings.TrimSuffix(os.Args[3], "%"), 64); err != nil {
			panic(err)
		}
		if strings.HasSuffix(os.Args[3], "%") {
			limit /= 100
		}
	}
} else {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 16, 20
	base = synth.Generate(cfg)
	base.SetName("baseline")
	cfg.SlowRank, cfg.SlowFactor = 5, 1.3
	run = synth.Generate(cfg)
	run.SetName("tonight")
}

// %% the comparison: what changed, ranked by what it costs
cr := compare.Runs(base, run)
fmt.Println(cr.Headline())
cr.Functions().Head(5)

// %% the figure, and every change for pandas or R
display.Show(cr.Plot())
arrowio.WriteParquet("changes.parquet", cr.Functions())

// %% the verdict: time per process outside set-up and tear-down, in each run
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
