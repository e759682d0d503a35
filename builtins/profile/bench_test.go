package profile

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

var (
	benchOnce sync.Once
	benchTr   *trace.Trace
)

// bigTrace is the 100M-event generated run of the imbalance benchmark (1,024 ranks).
func bigTrace(b *testing.B) *trace.Trace {
	benchOnce.Do(func() {
		t0 := time.Now()
		benchTr = synth.Generate(synth.ImbalanceBenchConfig())
		b.Logf("generated %d events on %d locations in %v (%d MB)", benchTr.NumEvents(), benchTr.NumProcesses(), time.Since(t0), benchTr.MemoryBytes()>>20)
	})
	return benchTr
}

func mevents(b *testing.B, n int64) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// BenchmarkBoxes100M: the box-plot profile of all processes together over 100M events
// (target, with the call matrix: <= 1 s on 2 cores).
func BenchmarkBoxes100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		forget()
		if p := Boxes(tr); len(p.Rows) == 0 {
			b.Fatal("no rows")
		}
	}
	mevents(b, tr.NumEvents())
}

// BenchmarkBoxesAndCallMatrix100M: what a notebook does, the profile then the call matrix of
// the same processes (one engine run computes both; the second call takes its result).
func BenchmarkBoxesAndCallMatrix100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		forget()
		if p, m := Boxes(tr), CallMatrix(tr); len(p.Rows) == 0 || len(m.Cells) == 0 {
			b.Fatal("empty")
		}
	}
	mevents(b, tr.NumEvents())
}

// BenchmarkCompare100M: two 100M-event runs (the second a copy with other region ids) compared
// (target <= 2 s on 2 cores).
func BenchmarkCompare100M(b *testing.B) {
	tr := bigTrace(b)
	other := permutedRegions(tr, rand.New(rand.NewPCG(1, 1)))
	b.ResetTimer()
	for b.Loop() {
		forget()
		if c := Compare(tr, other); len(c.Rows) == 0 {
			b.Fatal("no rows")
		}
	}
	mevents(b, 2*tr.NumEvents())
}

// BenchmarkCallMatrix100M: the direct call matrix of all processes together over 100M events.
func BenchmarkCallMatrix100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		forget()
		if m := CallMatrix(tr); len(m.Cells) == 0 {
			b.Fatal("no cells")
		}
	}
	mevents(b, tr.NumEvents())
}

// BenchmarkBoxesPerProcess100M: one series per process (exact selection per process).
func BenchmarkBoxesPerProcess100M(b *testing.B) {
	tr := bigTrace(b)
	b.ResetTimer()
	for b.Loop() {
		forget()
		if p := Boxes(tr, WithPerProcess()); len(p.Rows) == 0 {
			b.Fatal("no rows")
		}
	}
	mevents(b, tr.NumEvents())
}
