package ccg

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Benchmarks of Knüpfer 5.2 / Table 5.2 (DESIGN §5): an SMG2000-shaped
// trace of 8 locations and ~36M events, built at the seed's settings from
// lossless to maximum compression, queried, saved and restored:
//   go test ./builtins/ccg -run '^$' -bench . -benchtime 3x -benchmem
// Each benchmark reports R_nodes, R_memory and bytes per event of the
// graph (b/event) next to the trace model's (model-b/event).

var (
	smgOnce sync.Once
	smg     *trace.Trace
)

func smgTrace() *trace.Trace {
	smgOnce.Do(func() { smg = synth.GenerateSMG(synth.SMG2000Config(8, 4_500_000)) })
	return smg
}

var benchSettings = []struct {
	name string
	b    Bounds
}{
	{"lossless", Lossless},
	{"small", SmallScale},
	{"medium", MediumScale},
	{"large", LargeScale},
	{"max", Unlimited},
}

func report(b *testing.B, g *Graph, tr *trace.Trace) {
	s := g.Stats()
	var model int64
	for _, p := range tr.Processes() {
		model += p.MemoryBytes()
	}
	b.ReportMetric(s.RNodes, "R_nodes")
	b.ReportMetric(s.RMemory, "R_memory")
	b.ReportMetric(float64(s.Bytes)/float64(s.Events), "b/event")
	b.ReportMetric(float64(model)/float64(s.Events), "model-b/event")
	b.ReportMetric(float64(s.Events), "events")
}

func BenchmarkBuild(b *testing.B) {
	tr := smgTrace()
	for _, st := range benchSettings {
		b.Run(st.name, func(b *testing.B) {
			var g *Graph
			for range b.N {
				g = BuildTrace(tr, st.b)
			}
			b.StopTimer()
			report(b, g, tr)
		})
	}
}

// BenchmarkSummary: the initial whole-run query (fresh caches), the
// successive one (cached), and a 1/30 range first and again (the seed's
// "sum query 1/30").
func BenchmarkSummary(b *testing.B) {
	tr := smgTrace()
	for _, st := range benchSettings {
		g := BuildTrace(tr, st.b)
		end := g.End()
		b.Run(st.name+"/initial", func(b *testing.B) {
			for range b.N {
				g.sh.sum = nil
				g.Summary(0, end)
			}
		})
		b.Run(st.name+"/successive", func(b *testing.B) {
			g.Summary(0, end)
			b.ResetTimer()
			for range b.N {
				g.Summary(0, end)
			}
		})
		b.Run(st.name+"/range30-initial", func(b *testing.B) {
			for range b.N {
				g.sh.sum = nil
				g.Summary(end/2, end/2+end/30)
			}
		})
		b.Run(st.name+"/range30-successive", func(b *testing.B) {
			g.Summary(end/2, end/2+end/30)
			b.ResetTimer()
			for range b.N {
				g.Summary(end/2, end/2+end/30)
			}
		})
	}
}

func BenchmarkRestore(b *testing.B) {
	tr := smgTrace()
	for _, st := range benchSettings {
		g := BuildTrace(tr, st.b)
		var buf bytes.Buffer
		if _, err := g.WriteTo(&buf); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(st.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if _, err := Read(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/float64(g.Stats().Events), "file-b/event")
		})
	}
}

func BenchmarkTimeline(b *testing.B) {
	tr := smgTrace()
	g := BuildTrace(tr, MediumScale)
	g.Summary(0, g.End())
	b.ResetTimer()
	for range b.N {
		g.Timeline(1600)
	}
}

func BenchmarkMessagesSMG(b *testing.B) {
	tr := smgTrace()
	g := BuildTrace(tr, MediumScale)
	var m *MessageMatch
	for range b.N {
		m = Messages(g)
	}
	b.ReportMetric(float64(m.Len()), "messages")
	_ = fmt.Sprint()
}
