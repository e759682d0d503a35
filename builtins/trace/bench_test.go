package trace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// BenchmarkLoadOTF2 loads a ~1M-event otf2gen trace into the model,
// locations in parallel (run with -cpu 1,2,... for one core vs all cores).
func BenchmarkLoadOTF2(b *testing.B) {
	anchor := tooltest.BenchTrace(b) // written by otf2gen on first use: not timed
	var events, bytes int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr, err := trace.Load(anchor)
		if err != nil {
			b.Fatal(err)
		}
		events += tr.NumEvents()
		bytes = tr.MemoryBytes()
		if i == b.N-1 {
			b.ReportMetric(float64(bytes)/float64(tr.NumEvents()), "bytes/event")
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCallTree builds the call tree of a 1M-event location.
func BenchmarkCallTree(b *testing.B) {
	tr := synth.Generate(synth.GenConfig{Seed: 1, Ranks: 1, Iterations: 6000, Depth: 3, Fanout: 4, UnitNs: 100000, SlowRank: -1, OutlierIter: -1})
	p := tr.Process(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		(&trace.Process{Kind: p.Kind, Time: p.Time, Ref: p.Ref}).CallTree() // a fresh process: no cached tree
	}
	b.ReportMetric(float64(int64(b.N)*int64(p.Len()))/b.Elapsed().Seconds(), "events/s")
}

// benchExport writes tr's events as ext once (not timed) and times reading
// the file back into a trace (Load); it reports the file's size.
func benchExport(b *testing.B, tr *trace.Trace, ext string) {
	p := filepath.Join(b.TempDir(), "events"+ext)
	arrowio.Write(p, tr.Events())
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		back, err := trace.Load(p)
		if err != nil {
			b.Fatal(err)
		}
		if back.NumEvents() != tr.NumEvents() {
			b.Fatalf("%d events read back, want %d", back.NumEvents(), tr.NumEvents())
		}
	}
	b.ReportMetric(float64(tr.NumEvents()*int64(b.N))/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(st.Size()), "file-bytes")
	b.ReportMetric(float64(st.Size())/float64(tr.NumEvents()), "file-bytes/event")
}

// BenchmarkExportSplitComm: export size and read-back time of the
// split-communicator trace (test/tools/splitcomm.py; issue 32, "Measure").
func BenchmarkExportSplitComm(b *testing.B) {
	tr, err := trace.Load(filepath.Join(filepath.Dir(tooltest.Traces()), "split-comm", "traces.otf2"))
	if err != nil {
		b.Fatal(err)
	}
	for _, ext := range []string{".parquet", ".arrow", ".csv"} {
		b.Run(ext[1:], func(b *testing.B) { benchExport(b, tr, ext) })
	}
}

// BenchmarkExport10M: export size and read-back time of a 10M-event
// generated trace (64 ranks, MPI, depth-2 kernels).
func BenchmarkExport10M(b *testing.B) {
	cfg := synth.GenConfig{Seed: 1, Ranks: 64, Iterations: 1, Depth: 2, Fanout: 2, MPI: true, UnitNs: 10000, SlowRank: -1, OutlierIter: -1, Noise: 0.2}
	per := cfg.NumEvents()
	cfg.Iterations = 2
	per = cfg.NumEvents() - per
	cfg.Iterations = int(10_000_000 / per)
	tr := synth.Generate(cfg)
	for _, ext := range []string{".parquet", ".arrow", ".csv"} {
		b.Run(ext[1:], func(b *testing.B) { benchExport(b, tr, ext) })
	}
}

// BenchmarkLoadTraceFile loads the trace named by $TRACEBOOK_BENCH_TRACE
// (any format Load reads), for measuring the readers on traces too big to
// generate in a test: e.g. the otf2-speed workloads of
// builtins/trace/otf2/testdata/cbench (README there).
func BenchmarkLoadTraceFile(b *testing.B) {
	path := os.Getenv("TRACEBOOK_BENCH_TRACE")
	if path == "" {
		b.Skip("TRACEBOOK_BENCH_TRACE is not set")
	}
	var events int64
	for i := 0; i < b.N; i++ {
		tr, err := trace.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		events += tr.NumEvents()
		if i == b.N-1 {
			b.ReportMetric(float64(tr.MemoryBytes())/float64(tr.NumEvents()), "bytes/event")
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
