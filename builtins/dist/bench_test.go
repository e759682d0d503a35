package dist

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// benchTrace is $TRACEBOOK_DIST_BENCH_TRACE (the note's 10M-event trace:
// otf2gen.py spmd --procs 32 --iters 10000), else otf2gen's 1M-event
// benchmark trace.
func benchTrace(b *testing.B) string {
	if p := os.Getenv("TRACEBOOK_DIST_BENCH_TRACE"); p != "" {
		return p
	}
	return tooltest.BenchTrace(b)
}

// BenchmarkDist opens the trace and runs every registered method's sample
// instances locally and on jobs of 1, 2 and 4 ranks, reporting per request
// the wall time, the bytes moved to the kernel and between ranks, and the
// largest peak memory of a rank (the kernel's own for local).
//
//	TRACEBOOK_DIST_BENCH_TRACE=/tmp/big/traces.otf2 go test ./builtins/dist -run '^$' -bench Dist -benchtime 1x
func BenchmarkDist(b *testing.B) {
	path := benchTrace(b)
	local, err := trace.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	methods := []part.Method{}
	for _, name := range part.Names() {
		if name == "part.events" {
			continue
		}
		methods = append(methods, part.Samples(name, local)[0])
	}
	local = nil
	runtime.GC()
	b.Run("local", func(b *testing.B) {
		for range b.N {
			start := time.Now()
			tr, err := trace.Load(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(start).Seconds(), "s-open")
			for _, m := range methods {
				start := time.Now()
				if _, err := part.Run(tr, tr.Processes(), m); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(time.Since(start).Seconds(), "s-"+m.Name())
			}
			b.ReportMetric(float64(peakRSS())/(1<<20), "MiB-peak")
		}
	})
	for _, np := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("np=%d", np), func(b *testing.B) {
			w := mpiWorkerB(b)
			for range b.N {
				var j *Job
				if err := work.Try(func() { j = Start(np, WithWorker(w)) }); err != nil {
					b.Fatal(err)
				}
				tr := j.Open(path)
				for _, m := range methods {
					if _, err := part.Run(tr, tr.Processes(), m); err != nil {
						b.Fatal(err)
					}
				}
				var rss, between, toK int64
				for _, r := range j.Records() {
					name := r.Request
					if len(name) > 4 && name[:4] == "open" {
						name = "open"
					}
					b.ReportMetric(r.Seconds, "s-"+strings.ReplaceAll(name, " ", "-"))
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

func mpiWorkerB(b *testing.B) string {
	w, err := FindWorker()
	if err != nil {
		b.Skip(err)
	}
	return w
}

func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	var kb int64
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Sscanf(strings.TrimPrefix(l, "VmHWM:"), "%d", &kb)
		}
	}
	return kb << 10
}
