package otf2

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/tracebook/tracebook/builtins/internal/tooltest"
)

// BenchmarkReadOTF2 decodes every event of a ~1M-event otf2gen trace on
// one goroutine (the per-core rate; trace.BenchmarkLoadOTF2 measures all
// cores), with a callback per event like the C benchmark.
func BenchmarkReadOTF2(b *testing.B) {
	anchor := tooltest.BenchTrace(b)
	var events int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := Open(anchor)
		if err != nil {
			b.Fatal(err)
		}
		var sum uint64
		for _, l := range a.Defs.Locations {
			n, err := a.ReadLocation(l.Self, func(e *Event) error { sum += e.Time; return nil })
			if err != nil {
				b.Fatal(err)
			}
			events += n
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadOTF2CLibrary runs testdata/cbench (the reference C library
// reading the same trace with callbacks) and reports its events/s.
func BenchmarkReadOTF2CLibrary(b *testing.B) {
	anchor := tooltest.BenchTrace(b)
	bin := buildCBench(b)
	var rate float64
	for i := 0; i < b.N; i++ {
		out, err := exec.Command(bin, anchor, "1").Output()
		if err != nil {
			b.Fatal(err)
		}
		m := regexp.MustCompile(`events/s (\d+)`).FindSubmatch(out)
		if m == nil {
			b.Fatalf("cbench output %q", out)
		}
		r, _ := strconv.ParseFloat(string(m[1]), 64)
		rate = max(rate, r)
	}
	b.ReportMetric(rate, "events/s")
}

func buildCBench(b testing.TB) string {
	tooltest.RequireBinary(b, "otf2-config")
	gcc := tooltest.RequireBinary(b, "gcc")
	flags, err := exec.Command("otf2-config", "--cflags", "--ldflags", "--libs").Output()
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "cbench")
	args := append([]string{"-O2", "-o", bin, "testdata/cbench/cbench.c"}, regexp.MustCompile(`\s+`).Split(string(flags), -1)...)
	var clean []string
	for _, a := range args {
		if a != "" {
			clean = append(clean, a)
		}
	}
	if out, err := exec.Command(gcc, clean...).CombinedOutput(); err != nil {
		b.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// TestCBenchAgrees builds the C benchmark and checks it reads the same
// number of events as the Go reader on a generated trace.
func TestCBenchAgrees(t *testing.T) {
	anchor, expect := tooltest.Generate(t, t.TempDir(), "random", "--procs", "2", "--events", "3000", "--seed", "41")
	bin := buildCBench(t)
	out, err := exec.Command(bin, anchor).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`events (\d+) `).FindSubmatch(out)
	if m == nil || string(m[1]) != strconv.Itoa(len(expect)) {
		t.Fatalf("cbench: %q, want %d events", out, len(expect))
	}
}
