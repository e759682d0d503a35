package compare

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Benchmarks of the figures (issue 34, "Measure and report"):
//
//	go test ./builtins/compare -run '^$' -bench 'Runs1024vs2048' -benchmem -count 5
//	go test ./builtins/compare -run '^$' -bench 'Runs16384' -benchmem -count 3
//
// The runs are generated once per test process (several seconds and some GB each). "After
// loading" means the traces are in memory; the sub-benchmarks say whether their call trees
// (Process.CallTree, built once per process and cached) are built before the timer (Runs,
// Cell, the parts) or inside it (RunsAndCallTrees: each iteration compares fresh processes
// over the same event columns, so every call tree is built again).
//
// BenchmarkRuns16384 (about 40M events) runs only when -bench names it ("16384" in the
// pattern) and not with -short, so that -bench . stays affordable on a shared machine.

// pair1024vs2048 is a strong-scaling pair of about 10M events each: the COSMO-SPECS shape
// with nested kernels (Depth 2, Fanout 4: 152 events per rank and iteration) at 1,024 ranks
// and 64 iterations, and at 2,048 ranks and 32 iterations.
func pair1024vs2048() (a, b synth.GenConfig) {
	a = synth.COSMOSPECSConfig(1024, 64)
	a.Depth, a.Fanout = 2, 4
	b = synth.COSMOSPECSConfig(2048, 32)
	b.Depth, b.Fanout = 2, 4
	return a, b
}

// pair16384 is two runs of the same program at 16,384 ranks, about 20M events each: the same
// shape at 8 iterations, the second run with another seed (other noise) and rank 5,000 twice
// as slow, so that its groups match and Where aligns representatives.
func pair16384() (a, b synth.GenConfig) {
	a = synth.COSMOSPECSConfig(16384, 8)
	a.Depth, a.Fanout = 2, 4
	b = a
	b.Seed, b.SlowRank, b.SlowFactor = 2, 5000, 2
	return a, b
}

type runPair struct{ a, b *trace.Trace }

var benchPairs sync.Map // name -> *runPair

// benchRuns generates the pair once per process and builds every call tree.
func benchRuns(b *testing.B, name string, ca, cb synth.GenConfig) *runPair {
	if v, ok := benchPairs.Load(name); ok {
		return v.(*runPair)
	}
	t0 := time.Now()
	p := &runPair{a: synth.Generate(ca), b: synth.Generate(cb)}
	gen := time.Since(t0)
	t0 = time.Now()
	for _, tr := range []*trace.Trace{p.a, p.b} {
		for _, q := range tr.Processes() {
			q.CallTree()
		}
	}
	b.Logf("%s: generated %d + %d events (%d + %d processes, %d + %d MB) in %v; call trees in %v",
		name, p.a.NumEvents(), p.b.NumEvents(), p.a.NumProcesses(), p.b.NumProcesses(),
		p.a.MemoryBytes()>>20, p.b.MemoryBytes()>>20, gen, time.Since(t0))
	benchPairs.Store(name, p)
	return p
}

// fresh returns a trace over the same definitions and event columns as tr with new processes,
// whose call trees are not built yet.
func fresh(tr *trace.Trace) *trace.Trace {
	ps := make([]*trace.Process, tr.NumProcesses())
	for i, p := range tr.Processes() {
		ps[i] = &trace.Process{Rank: p.Rank, Thread: p.Thread, Name: p.Name, Kind: p.Kind, Time: p.Time, Ref: p.Ref,
			Msgs: p.Msgs, Colls: p.Colls, Metrics: p.Metrics, Skipped: p.Skipped}
	}
	out := trace.NewTrace(tr.Defs, ps)
	out.SetGeneratorName(tr.Name())
	return out
}

// summaryBytes estimates the memory of a summary: its paths and its processes with their
// per-path statistics.
func summaryBytes(s *Summary) int64 {
	n := int64(len(s.name)) * (4 + 16 + 1 + 40)
	for _, p := range s.procs {
		n += 120 + int64(len(p.Label)+len(p.Kind)) + int64(len(p.Paths))*32
	}
	return n
}

// cpuTime returns the CPU time the test process has used (user and system, all threads): on a
// shared machine it varies less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS returns the process's peak resident set (VmHWM) in MiB, 0 if unknown.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func benchCompare(b *testing.B, name string, ca, cb synth.GenConfig) {
	p := benchRuns(b, name, ca, cb)
	events := float64(p.a.NumEvents() + p.b.NumEvents())
	report := func(b *testing.B) {
		b.ReportMetric(events*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
	}
	cpu := func(b *testing.B, d time.Duration) {
		b.ReportMetric(d.Seconds()*1e3/float64(b.N), "cpu-ms/op")
	}
	b.Run("Runs", func(b *testing.B) {
		b.ReportAllocs()
		var r *Result
		c0 := cpuTime()
		for b.Loop() {
			r = Runs(p.a, p.b)
		}
		cpu(b, cpuTime()-c0)
		report(b)
		b.ReportMetric(float64(summaryBytes(r.runs[0].sum)+summaryBytes(r.runs[1].sum))/(1<<20), "summaries-MiB")
		b.ReportMetric(float64(len(r.groups)), "groups")
		b.ReportMetric(peakRSS(), "peakRSS-MiB")
	})
	b.Run("RunsAndCallTrees", func(b *testing.B) {
		b.ReportAllocs()
		var used time.Duration
		for b.Loop() {
			b.StopTimer()
			fa, fb := fresh(p.a), fresh(p.b)
			runtime.GC()
			b.StartTimer()
			c0 := cpuTime()
			Runs(fa, fb)
			used += cpuTime() - c0
		}
		cpu(b, used)
		report(b)
	})
	// Cell is what a notebook cell showing the result does: Runs, then the headline, the
	// first rows of Functions and the figure (the diffed tree included).
	b.Run("Cell", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			if m := Runs(p.a, p.b).MIMEBundle(); len(m) == 0 {
				b.Fatal("empty bundle")
			}
		}
		cpu(b, cpuTime()-c0)
		report(b)
	})
	b.Run("Summary", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			for _, tr := range []*trace.Trace{p.a, p.b} {
				if _, err := part.Run(tr, tr.Processes(), SummaryMethod()); err != nil {
					b.Fatal(err)
				}
			}
		}
		cpu(b, cpuTime()-c0)
		report(b)
	})
	r := Runs(p.a, p.b)
	b.Run("Group", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			q := &Result{opts: r.opts, runs: r.runs}
			q.join()
			q.group()
		}
		cpu(b, cpuTime()-c0)
	})
	b.Run("Functions", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			r.fnRows = nil
			r.functions()
		}
		cpu(b, cpuTime()-c0)
	})
	b.Run("Tree", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			r.treeRows = nil
			r.tree()
		}
		cpu(b, cpuTime()-c0)
		b.ReportMetric(float64(len(r.treeRows)), "rows")
	})
	b.Run("Where", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			r.where, r.whereOK = nil, false
			r.whereRows()
		}
		cpu(b, cpuTime()-c0)
	})
}

// BenchmarkRuns1024vs2048: two runs of about 10M events each, 1,024 and 2,048 ranks (target
// <= 1 s after loading).
func BenchmarkRuns1024vs2048(b *testing.B) {
	ca, cb := pair1024vs2048()
	benchCompare(b, "1024vs2048", ca, cb)
}

// BenchmarkRuns16384: two 16,384-rank runs, about 20M events each (target
// <= 10 s). Only when -bench names it.
func BenchmarkRuns16384(b *testing.B) {
	if testing.Short() || !strings.Contains(flag.Lookup("test.bench").Value.String(), "16384") {
		b.Skip("heavy (about 40M events): run with -bench Runs16384")
	}
	ca, cb := pair16384()
	benchCompare(b, "16384", ca, cb)
}

// BenchmarkRunsManyGroups: ParaDiS-shaped runs at 4,096 and 8,192 ranks, whose call structure
// depends on each rank's workload (about 200 groups a run, most matched as similar): the
// grouping, the matching and the per-group views with many groups rather than many events.
func BenchmarkRunsManyGroups(b *testing.B) {
	benchCompare(b, "paradis", synth.ParaDiSConfig(4096), synth.ParaDiSConfig(8192))
}
