package dist

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/dist/worker"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// BenchmarkDist opens a trace and runs the entry points (entryPoints)
// locally and on jobs of 1, 2 and 4 ranks: per entry point the wall time
// (s-NAME), and for a job the bytes of merged partials sent to the kernel and
// between ranks and the largest peak memory of a rank (the kernel's own
// locally). The trace is $TRACEBOOK_DIST_BENCH_TRACE (the note's 10M-event
// trace: otf2gen.py spmd --procs 32 --iters 10000), else otf2gen's
// 1M-event benchmark trace. TestMeasure prints the same as a table.
//
//	TRACEBOOK_DIST_BENCH_TRACE=/tmp/big/traces.otf2 go test ./builtins/dist -run '^$' -bench Dist -benchtime 1x
func BenchmarkDist(b *testing.B) {
	path := os.Getenv("TRACEBOOK_DIST_BENCH_TRACE")
	if path == "" {
		path = tooltest.BenchTrace(b)
	}
	metric := func(name string) string { return "s-" + strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(name) }
	b.Run("local", func(b *testing.B) {
		for range b.N {
			start := time.Now()
			tr, err := trace.Load(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(start).Seconds(), "s-open")
			for _, e := range entryPoints() {
				start := time.Now()
				e.run(tr)
				b.ReportMetric(time.Since(start).Seconds(), metric(e.name))
			}
			b.ReportMetric(float64(worker.PeakRSS())/(1<<20), "MiB-peak")
			runtime.GC()
		}
	})
	for _, np := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("np=%d", np), func(b *testing.B) {
			w, err := FindWorker()
			if err != nil {
				b.Skip(err)
			}
			for range b.N {
				var j *Job
				if err := work.Try(func() { j = Start(np, WithWorker(w)) }); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				tr := j.Open(path)
				b.ReportMetric(time.Since(start).Seconds(), "s-open")
				for _, e := range entryPoints() {
					start := time.Now()
					e.run(tr)
					b.ReportMetric(time.Since(start).Seconds(), metric(e.name))
				}
				var rss, between, toK int64
				for _, r := range j.Records() {
					rss = max(rss, r.MaxPeakRSS)
					between += r.BytesBetween
					toK += r.BytesToKernel
				}
				b.ReportMetric(float64(rss)/(1<<20), "MiB-peak-rank")
				b.ReportMetric(float64(between), "B-between")
				b.ReportMetric(float64(toK), "B-kernel")
				j.Stop()
			}
		})
	}
}
