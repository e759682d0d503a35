package dist

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/cluster"
	"github.com/tracebook/tracebook/builtins/compare"
	"github.com/tracebook/tracebook/builtins/dist/worker"
	"github.com/tracebook/tracebook/builtins/fold"
	"github.com/tracebook/tracebook/builtins/imbalance"
	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// entry is one entry point as a notebook calls it, with its main table.
type entry struct {
	name string
	run  func(tr *trace.Trace) *arrowio.Table
}

// entryPoints are the entry points measured (disttest's cases render every
// drill-down, too much for 10M events).
func entryPoints() []entry {
	return []entry{
		{"profile.Boxes", func(tr *trace.Trace) *arrowio.Table { return profile.Boxes(tr).Table() }},
		{"profile.CallMatrix", func(tr *trace.Trace) *arrowio.Table { return profile.CallMatrix(tr).Table() }},
		{"profile.CommMatrix", func(tr *trace.Trace) *arrowio.Table { return profile.CommMatrix(tr).Table() }},
		{"profile.MessageHistogram", func(tr *trace.Trace) *arrowio.Table { return profile.MessageHistogram(tr, 20).Table() }},
		{"imbalance.Analyze", func(tr *trace.Trace) *arrowio.Table { return imbalance.Analyze(tr).Table() }},
		{"imbalance.Analyze Segments", func(tr *trace.Trace) *arrowio.Table { return imbalance.Analyze(tr).Segments() }},
		{"fold.Timeline", func(tr *trace.Trace) *arrowio.Table { return fold.Timeline(tr, fold.Max, 1600).Table() }},
		{"cluster.Structural", func(tr *trace.Trace) *arrowio.Table { return cluster.Structural(tr).Table() }},
		{"msa.Group", func(tr *trace.Trace) *arrowio.Table { return msa.Group(tr.Processes()).Table() }},
		{"ccg.BuildTrace lossless", func(tr *trace.Trace) *arrowio.Table { return ccg.BuildTrace(tr, ccg.Lossless).Table() }},
		{"ccg.BuildTrace lossy (WithShards)", func(tr *trace.Trace) *arrowio.Table {
			return ccg.BuildTrace(tr, ccg.Bounds{Abs: 1000, Rel: 0.05}, ccg.WithShards(tr.NumProcesses())).Table()
		}},
		{"compare.Runs (the run with itself)", func(tr *trace.Trace) *arrowio.Table { return compare.Runs(tr, tr).Functions() }},
	}
}

// TestMeasure prints, for the trace $TRACEBOOK_DIST_MEASURE, the figures of
// the report: per entry point as a notebook calls it (its main table
// compared cell by cell with the local one) the wall time locally and on jobs of 1,
// 2 and 4 ranks, the bytes sent to the kernel and between ranks on 4 ranks,
// and each rank's peak memory after the open and at the end. It measures;
// it asserts nothing but that the runs succeed and agree.
//
//	TRACEBOOK_DIST_MEASURE=/tmp/big/traces.otf2 go test ./builtins/dist -run Measure -v
func TestMeasure(t *testing.T) {
	path := os.Getenv("TRACEBOOK_DIST_MEASURE")
	if path == "" {
		t.Skip("set TRACEBOOK_DIST_MEASURE to a trace to measure")
	}
	w := mpiWorker(t)
	traceBytes := dirSize(path)
	cases := entryPoints()
	if f := os.Getenv("TRACEBOOK_DIST_MEASURE_CASES"); f != "" {
		var keep []entry
		for _, c := range cases {
			if strings.Contains(c.name, f) {
				keep = append(keep, c)
			}
		}
		cases = keep
	}
	type fig struct {
		wall      [4]float64 // local, np 1, 2, 4
		toK, betw [4]int64
		out       *arrowio.Table
	}
	figs := make([]fig, len(cases))
	start := time.Now()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	openWall := [4]float64{time.Since(start).Seconds()}
	for i, c := range cases {
		start := time.Now()
		figs[i].out = c.run(tr)
		figs[i].wall[0] = time.Since(start).Seconds()
	}
	fmt.Printf("trace %s: %d processes, %d events, %d bytes on disk; local peak RSS %d MiB\n", path, tr.NumProcesses(), tr.NumEvents(), traceBytes, worker.PeakRSS()>>20)
	tr = nil
	runtime.GC()
	for k, np := range []int{1, 2, 4} {
		var j *Job
		if err := work.Try(func() { j = Start(np, WithWorker(w)) }); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		sk := j.Open(path)
		openWall[k+1] = time.Since(start).Seconds()
		for i, c := range cases {
			before := len(j.Records())
			start := time.Now()
			out := c.run(sk)
			figs[i].wall[k+1] = time.Since(start).Seconds()
			if err := figs[i].out.Equal(out); err != nil {
				t.Errorf("np=%d %s: differs from the local run: %v", np, c.name, err)
			}
			for _, r := range j.Records()[before:] {
				figs[i].toK[k+1] += r.BytesToKernel
				figs[i].betw[k+1] += r.BytesBetween
			}
		}
		var opened []string
		for _, r := range j.opened[0].reports {
			opened = append(opened, fmt.Sprintf("rank %d: %d procs, %d events, read %.2fs, peak %d MiB", r.Rank, r.Procs, r.Events, r.Seconds, r.PeakRSS>>20))
		}
		var peak int64
		for _, r := range j.Records() {
			peak = max(peak, r.MaxPeakRSS)
		}
		fmt.Printf("np=%d: after open: %s; max peak of a rank at the end %d MiB\n", np, strings.Join(opened, "; "), peak>>20)
		j.Stop()
	}
	fmt.Printf("%-44s %8s %8s %8s %8s %11s %6s %11s\n", "entry point (disttest case)", "local s", "np1 s", "np2 s", "np4 s", "kernel B", "% tr", "between B")
	fmt.Printf("%-44s %8.3f %8.3f %8.3f %8.3f\n", "open", openWall[0], openWall[1], openWall[2], openWall[3])
	for i, c := range cases {
		f := figs[i]
		fmt.Printf("%-44s %8.3f %8.3f %8.3f %8.3f %11d %6.2f %11d\n", c.name, f.wall[0], f.wall[1], f.wall[2], f.wall[3], f.toK[3], 100*float64(f.toK[3])/float64(max(1, traceBytes)), f.betw[3])
	}
}

func dirSize(anchor string) int64 {
	dir := anchor
	if st, err := os.Stat(anchor); err == nil && !st.IsDir() {
		if strings.HasSuffix(anchor, ".otf2") {
			dir = strings.TrimSuffix(anchor, "traces.otf2")
		} else {
			return st.Size()
		}
	}
	var n int64
	_ = walk(dir, func(sz int64) { n += sz })
	return n
}

func walk(dir string, f func(int64)) error {
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.IsDir() {
			_ = walk(dir+"/"+e.Name(), f)
			continue
		}
		if i, err := e.Info(); err == nil {
			f(i.Size())
		}
	}
	return nil
}
