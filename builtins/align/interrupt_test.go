package align

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

func randomString(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// Every flat method, on input that takes seconds, stops at an interrupt
// with an *Error that unwraps to work.ErrInterrupted (the kernel reports
// the cell as interrupted), and the next call runs normally.
func TestFlatAlignmentStopsAtInterrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a, b := randomString(r, 200_000, "acgt"), randomString(r, 200_000, "acgt")
	// 95% equal, for the wavefront methods.
	bb := []byte(a)
	for i := range bb {
		if r.IntN(20) == 0 {
			bb[i] = "acgt"[r.IntN(4)]
		}
	}
	similar := string(bb)
	cases := []struct {
		name string
		b    string
		opts []Option
	}{
		{"Auto", b, nil},
		{"BitParallel", b, []Option{WithMethod(BitParallel)}},
		{"Hirschberg", b, []Option{WithMethod(Hirschberg)}},
		{"BiWFA", similar, []Option{WithMethod(BiWFA)}},
		{"WFA", similar, []Option{WithMethod(WFA)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := worktest.Interrupt(t, 150*time.Millisecond, 10*time.Second, func() { Strings(a, c.b, c.opts...) })
			if out.Finished {
				t.Skip("finished before the interrupt (machine too fast for this input)")
			}
			e, ok := out.Panic.(*Error)
			if !ok || !errors.Is(e, work.ErrInterrupted) || e.Func != "align.Strings" {
				t.Fatalf("interrupted alignment panicked with %#v", out.Panic)
			}
			t.Logf("stopped %v after the interrupt", out.Latency)
		})
	}
	if got := Strings("mcacmam", "mcacbcmbm").Score(); got != 9 {
		t.Fatalf("alignment after interrupts: score %d", got)
	}
}

// NW's full matrix is checked against the memory available before it is
// allocated.
func TestNWRefusesImpossibleMatrix(t *testing.T) {
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "100M")
	r := rand.New(rand.NewPCG(3, 4))
	a, b := randomString(r, 20_000, "acgt"), randomString(r, 20_000, "acgt")
	defer func() {
		e, ok := recover().(*Error)
		var me *work.MemoryError
		if !ok || !errors.As(e, &me) || me.Need < 1<<30 {
			t.Fatalf("NW on 20k x 20k under a 100 MiB limit: %#v", e)
		}
	}()
	Strings(a, b, WithMethod(NW))
}

// Runs and hierarchical Pair stop too; a panic in one of Runs's goroutines
// reaches the caller instead of killing the process.
func TestRunsAndPairStopAtInterrupt(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 8, 4000
	ta := synth.Generate(cfg)
	cfg.Version = 1
	tb := synth.Generate(cfg)
	// Each is interrupted well before it would end (Runs takes 20-35 ms
	// here since the bit-vector kernel, Pair about 2.4 s): an interrupt
	// near the end could come after the last check and let it return.
	for name, c := range map[string]struct {
		after time.Duration
		fn    func()
	}{
		"Runs": {5 * time.Millisecond, func() { Runs(ta, tb) }},
		"Pair": {30 * time.Millisecond, func() { Pair(ta.Process(0), tb.Process(1), WithFlat(), WithMethod(Hirschberg)) }},
	} {
		t.Run(name, func(t *testing.T) {
			out := worktest.Interrupt(t, c.after, 10*time.Second, c.fn)
			if out.Finished {
				t.Skip("finished before the interrupt")
			}
			e, ok := out.Panic.(*Error)
			if !ok || !errors.Is(e, work.ErrInterrupted) {
				t.Fatalf("interrupted %s panicked with %#v", name, out.Panic)
			}
			t.Logf("stopped %v after the interrupt", out.Latency)
		})
	}
}

// BenchmarkInterruptLatency reports how long an alignment in its
// bit-parallel kernel takes to stop after the interrupt (target: 100 ms).
func BenchmarkInterruptLatency(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x, y := randomString(r, 300_000, "acgt"), randomString(r, 300_000, "acgt")
	var worst time.Duration
	for b.Loop() {
		out := worktest.Interrupt(b, 100*time.Millisecond, 10*time.Second, func() { Strings(x, y) })
		worst = max(worst, out.Latency)
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms-worst-stop")
}
