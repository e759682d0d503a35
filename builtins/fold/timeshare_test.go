package fold

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// deviceTrace returns a trace of one CPU process and one GPU with the given streams.
func deviceTrace(names []string, streams ...*trace.Process) *trace.Trace {
	d := &trace.Definitions{}
	for _, n := range names {
		d.Regions = append(d.Regions, trace.Region{Name: n})
	}
	d.LocationGroups = []trace.LocationGroup{{Name: "rank 0", Type: "process", SystemNode: -1}, {Name: "GPU 0", Type: "accelerator", SystemNode: -1}}
	d.Locations = []trace.Location{{Name: "rank 0", Type: "cpu_thread", Group: 0}}
	procs := []*trace.Process{newPB().enter(0, 0).leave(1000, 0).p}
	for i, p := range streams {
		d.Locations = append(d.Locations, trace.Location{Name: fmt.Sprintf("GPU 0 stream %d", i), Type: "accelerator_stream", Group: 1})
		p.Rank, p.Thread = 1, int32(i)
		procs = append(procs, p)
	}
	return trace.NewTrace(d, procs)
}

// Issue 31, finding 7: a GPU busy 90% of the time, its kernels starting 10 ns after each
// pixel's start, was drawn 100% idle beside its own "90.0%" label, because select_idle
// sampled each pixel's start. The seed's PIConGPU case (6.1.4) takes each pixel's time share:
// every pixel here is 90% busy, so every pixel shows the kernel.
func TestIdleByTimeShare(t *testing.T) {
	b := newPB()
	for x := range int64(10) {
		b.enter(100*x+10, 1).leave(100*x+100, 1)
	}
	tr := deviceTrace([]string{"main", "kernel"}, b.p)
	u := GPUUtilisation(tr, WithDevice(0), WithRange(0, 1000))
	if got := fmt.Sprintf("%.1f", 100*u.Of(0)); got != "90.0" {
		t.Fatalf("utilisation %s%%, want 90.0%%", got)
	}
	f := Timeline(tr, Idle, 10, WithDevice(0), WithRange(0, 1000))
	for x, s := range f.State {
		if s != 1 || f.Share[x] != 0.9 {
			t.Fatalf("pixel %d: state %d share %v, want the kernel, 90%% busy (states %v)", x, s, f.Share[x], f.State)
		}
	}
	if strings.Contains(f.String(), "no-state") {
		t.Fatalf("summary %q draws idle time", f.String())
	}
	strip := u.strip(0, 10)
	if !slices.Equal(strip.State, f.State) {
		t.Fatalf("Utilisation.Plot's strip %v, Timeline %v", strip.State, f.State)
	}
	// The option brings back the seed's sampling (6.1): every pixel's start is idle.
	sampled := Timeline(tr, Idle, 10, WithDevice(0), WithRange(0, 1000), WithTimeShare(false))
	for x, s := range sampled.State {
		if s != NoState {
			t.Fatalf("sampled pixel %d: state %d, want idle", x, s)
		}
	}
	// A pixel idle for more than half its time is idle: kernels of 40 ns in 100.
	b = newPB()
	for x := range int64(10) {
		b.enter(100*x+10, 1).leave(100*x+50, 1)
	}
	tr = deviceTrace([]string{"main", "kernel"}, b.p)
	f = Timeline(tr, Idle, 10, WithDevice(0), WithRange(0, 1000))
	for x, s := range f.State {
		if s != NoState || f.Share[x] != 0.6 {
			t.Fatalf("40%% busy, pixel %d: state %d share %v, want idle 60%%", x, s, f.Share[x])
		}
	}
}

// bruteTimeShare is the time-share fold of one pixel [a, b) by a scan of every ns: each
// stream's state is the one it spends the most ns in (ties to the smallest in the order);
// Idle is NoState when the ns at which some stream is busy are fewer than half the pixel, and
// otherwise the busy state with the most ns over all streams. A pixel of no length takes the
// states at its start. It returns the state and the share (see Folded.Share).
func bruteTimeShare(op Op, procs []*trace.Process, a, b int64) (int32, float64) {
	less := func(x, y int32) bool { return order(x) < order(y) }
	seq := make([]int32, len(procs))
	total := map[int32]int64{}
	var busy int64
	if b > a {
		states := make([][]int32, len(procs))
		for i, p := range procs {
			own := map[int32]int64{}
			for t := a; t < b; t++ {
				s := bruteState(p, t)
				states[i] = append(states[i], s)
				own[s]++
				total[s]++
			}
			best, bd := NoState, int64(-1)
			for s, d := range own {
				if d > bd || d == bd && less(s, best) {
					best, bd = s, d
				}
			}
			seq[i] = best
		}
		for t := range b - a {
			for i := range procs {
				if states[i][t] != NoState {
					busy++
					break
				}
			}
		}
	} else {
		for i, p := range procs {
			seq[i] = bruteState(p, a)
		}
	}
	if op == Idle && b > a {
		if 2*busy < b-a {
			return NoState, float64(b-a-busy) / float64(b-a)
		}
		best, bd := NoState, int64(0)
		for s, d := range total {
			if s != NoState && (d > bd || d == bd && less(s, best)) {
				best, bd = s, d
			}
		}
		return best, float64(busy) / float64(b-a)
	}
	w := bruteSelect(op, seq)
	n := 0
	for _, s := range seq {
		if s == w {
			n++
		}
	}
	return w, float64(n) / float64(len(procs))
}

// Every op by time share on random traces with non-nesting Leaves (and grids with pixels of
// no length) equals the brute-force scan; the partial counts of random splits of the streams
// merge to the whole.
func TestTimeShareOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	for it := range 80 {
		nreg := 1 + rng.IntN(5)
		k := 1 + rng.IntN(7)
		var procs []*trace.Process
		for range k {
			procs = append(procs, randProc(rng, nreg, rng.IntN(100)))
		}
		tr := traceOf(regionNames(nreg), procs...)
		ix := NewIndex(tr)
		t0, t1 := localSpan(tr)
		if it%2 == 1 {
			t0 = int64(rng.IntN(200)) - 30
			t1 = t0 + 1 + int64(rng.IntN(300))
		}
		width := 1 + rng.IntN(60)
		if it%5 == 0 {
			width = int(t1-t0) + 1 + rng.IntN(20) // pixels of no length
		}
		c := ix.CountsByTime(nil, t0, t1, width)
		// Merged partials equal the whole (the contract suite).
		parttest.Check(t, tr, CountsMethod(t0, t1, width, true), parttest.Config{Trials: 3, Seed: uint64(it + 1)})
		// The busy time per pixel, which the encoding leaves out (it follows from the busy
		// intervals), too.
		if k > 1 {
			m := ix.CountsByTime([]int{0}, t0, t1, width)
			rest := make([]int, k-1)
			for i := range rest {
				rest[i] = i + 1
			}
			if err := m.Merge(ix.CountsByTime(rest, t0, t1, width)); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.busyPx, c.busyPx) {
				t.Fatalf("trace %d: merged busy time per pixel %v, whole %v", it, m.busyPx, c.busyPx)
			}
		}
		for _, op := range []Op{Max, Min, Diff, Idle} {
			got := c.Select(op)
			f := Timeline(tr, op, width, WithRange(t0, t1), WithTimeShare(true))
			for x := range width {
				a, b := c.Pixel(x)
				w, share := bruteTimeShare(op, procs, a, b)
				if got[x] != w || f.State[x] != w || f.Share[x] != share {
					t.Fatalf("trace %d %s pixel %d [%d, %d): got %d (Timeline %d share %v), want %d share %v",
						it, op, x, a, b, got[x], f.State[x], f.Share[x], w, share)
				}
			}
		}
	}
}

func TestMergeTimeShareWithSampled(t *testing.T) {
	tr := traceOf(regionNames(1), newPB().enter(0, 0).leave(10, 0).p)
	ix := NewIndex(tr)
	expectMergeError(t, ix.Counts(nil, 0, 10, 5).Merge(ix.CountsByTime(nil, 0, 10, 5)), "by time share")
}

// A long fold by time share (the index cached, so only the fold runs) stops at an interrupt.
func TestTimeShareStopsAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a large trace")
	}
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout = 16, 4000, 2, 4
	tr := synth.Generate(cfg)
	Timeline(tr, Max, 10) // builds and caches the index
	for i, width := range []int{1, 65536, 1, 65536} {
		op := []Op{Max, Idle}[i/2] // Idle also unites the busy time
		out := worktest.Interrupt(t, 2*time.Millisecond, 10*time.Second, func() {
			for range 100 {
				Timeline(tr, op, width, WithTimeShare(true))
			}
		})
		if out.Finished {
			t.Skipf("width %d: finished before the interrupt (machine too fast for this input)", width)
		}
		err, _ := out.Panic.(error)
		var e *Error
		if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != "fold.Timeline" {
			t.Fatalf("width %d: interrupted fold panicked with %#v", width, out.Panic)
		}
		t.Logf("%s, width %d: fold by time share stopped %v after the interrupt", op, width, out.Latency)
	}
}
