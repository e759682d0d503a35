package fold

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// gpuTrace returns a trace of one CPU process and devs devices with
// streams[g] random streams each (kernels as top-level calls, some
// nested, some never left).
func gpuTrace(rng *rand.Rand, streams []int) *trace.Trace {
	d := &trace.Definitions{Regions: []trace.Region{{Name: "main"}, {Name: "k0"}, {Name: "k1"}, {Name: "k2"}}}
	d.LocationGroups = append(d.LocationGroups, trace.LocationGroup{Name: "rank 0", Type: "process", SystemNode: -1})
	d.Locations = append(d.Locations, trace.Location{Name: "rank 0", Type: "cpu_thread", Group: 0})
	procs := []*trace.Process{newPB().enter(0, 0).leave(500, 0).p}
	for g, n := range streams {
		gi := int32(len(d.LocationGroups))
		d.LocationGroups = append(d.LocationGroups, trace.LocationGroup{Name: fmt.Sprintf("GPU %d", g), Type: "accelerator", SystemNode: -1})
		for m := range n {
			d.Locations = append(d.Locations, trace.Location{Name: fmt.Sprintf("GPU %d stream %d", g, m), Type: "accelerator_stream", Group: gi})
			p := randProc(rng, 4, rng.IntN(60))
			p.Rank, p.Thread = gi, int32(m)
			procs = append(procs, p)
		}
	}
	return trace.NewTrace(d, procs)
}

// bruteBusy marks every ns of [t0, t1) at which some stream of device g
// is inside a call (a depth-1 call-tree node) and counts the marks per
// window.
func bruteBusy(tr *trace.Trace, g int32, t0, t1 int64, windows int) (busy []int64, streams int) {
	mark := make([]bool, t1-t0)
	for _, p := range tr.Processes() {
		gpu, num, _ := p.Place()
		if !gpu || num != g {
			continue
		}
		streams++
		ct := p.CallTree()
		for n := 1; n < ct.Len(); n++ {
			if ct.Depth[n] != 1 {
				continue
			}
			for x := max(ct.Enter[n], t0); x < min(ct.Leave[n], t1); x++ {
				mark[x-t0] = true
			}
		}
	}
	busy = make([]int64, windows)
	for w := range windows {
		a, b := pixelStart(t0, t1, windows, w), pixelStart(t0, t1, windows, w+1)
		for x := a; x < b; x++ {
			if mark[x-t0] {
				busy[w]++
			}
		}
	}
	return busy, streams
}

func TestGPUUtilisationOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for it := range 40 {
		ns := make([]int, 1+rng.IntN(4))
		for i := range ns {
			ns[i] = 1 + rng.IntN(4)
		}
		tr := gpuTrace(rng, ns)
		var opts []Option
		t0, t1 := localSpan(tr)
		if it%2 == 1 {
			t0 = int64(rng.IntN(100)) - 10
			t1 = t0 + 1 + int64(rng.IntN(300))
			opts = append(opts, WithRange(t0, t1))
		}
		windows := 1 + rng.IntN(7)
		if windows > 1 {
			opts = append(opts, WithWindows(windows))
		}
		u := GPUUtilisation(tr, opts...)
		if !slices.Equal(u.Devices, []int32{0, 1, 2, 3}[:len(ns)]) || !slices.Equal(u.Streams, ns) {
			t.Fatalf("trace %d: devices %v streams %v, want %d devices, %v", it, u.Devices, u.Streams, len(ns), ns)
		}
		tb := u.Table()
		busyCol, _ := tb.Int64s("Busy (ns)")
		idleCol, _ := tb.Int64s("Idle (ns)")
		for d, g := range u.Devices {
			want, _ := bruteBusy(tr, g, t0, t1, windows)
			if !slices.Equal(u.Busy[d], want) {
				t.Fatalf("trace %d device %d over [%d, %d) in %d windows: busy %v, want %v", it, g, t0, t1, windows, u.Busy[d], want)
			}
			for w := range windows {
				a, b := u.Window(w)
				if busyCol[d*windows+w] != want[w] || idleCol[d*windows+w] != b-a-want[w] {
					t.Fatalf("table row %d", d*windows+w)
				}
			}
		}
		g := rng.IntN(len(ns))
		u1 := GPUUtilisation(tr, append(opts, WithDevice(g))...)
		if !slices.Equal(u1.Devices, []int32{int32(g)}) || !slices.Equal(u1.Busy[0], u.Busy[g]) {
			t.Fatalf("WithDevice(%d): %v %v", g, u1.Devices, u1.Busy)
		}
	}
}

// The generated PIConGPU shape: ranks 1-3 drive GPUs 0-2 with 3 streams each.
func TestGPUUtilisationPIConGPU(t *testing.T) {
	tr := synth.Generate(synth.PIConGPUConfig(4, 0, 3))
	u := GPUUtilisation(tr, WithWindows(4))
	if !slices.Equal(u.Devices, []int32{0, 1, 2}) || !slices.Equal(u.Streams, []int{3, 3, 3}) {
		t.Fatalf("devices %v streams %v", u.Devices, u.Streams)
	}
	for d, g := range u.Devices {
		want, _ := bruteBusy(tr, g, u.T0, u.T1, 4)
		if !slices.Equal(u.Busy[d], want) {
			t.Fatalf("device %d: busy %v, want %v", g, u.Busy[d], want)
		}
		if u.Of(d) <= 0 || u.Of(d) >= 1 {
			t.Fatalf("device %d utilisation %v: the generator's GPUs are neither idle nor always busy", g, u.Of(d))
		}
	}
	t.Log(u)
	// Idle-folding one device's streams: NoState exactly where the exact
	// union says the device is idle for more than half the pixel (by time
	// share, the default), or idle at the pixel's start (sampled).
	f := Timeline(tr, Idle, 200, WithDevice(1))
	sampled := Timeline(tr, Idle, 200, WithDevice(1), WithTimeShare(false))
	if f.Streams != 3 {
		t.Fatalf("WithDevice(1): %d streams", f.Streams)
	}
	drawn := 0
	for x := range f.Width {
		a, e := f.Pixel(x)
		b, _ := bruteBusy(tr, 1, a, e, 1)
		if (f.State[x] == NoState) != (2*b[0] < e-a) {
			t.Fatalf("pixel %d [%d, %d): state %d, busy %d", x, a, e, f.State[x], b[0])
		}
		if f.State[x] != NoState {
			drawn++
		}
		b, _ = bruteBusy(tr, 1, a, a+1, 1)
		if (sampled.State[x] == NoState) != (b[0] == 0) {
			t.Fatalf("sampled pixel %d at %d: state %d, busy %d", x, a, sampled.State[x], b[0])
		}
	}
	t.Logf("GPU 1: %d of %d pixels drawn busy (utilisation %.1f%%)", drawn, f.Width, 100*u.Of(1))
	if h, ok := u.MIMEBundle()["text/html"].(string); !ok || !strings.Contains(h, "data:image/png;base64,") {
		t.Fatal("no plot")
	}
}
