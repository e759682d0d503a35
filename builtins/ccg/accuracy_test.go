package ccg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// The brute-force oracle of the deviation bounds (Knüpfer eq. 3.5-3.6):
// every location is decompressed and compared event by event with the
// original. Every timestamp within Abs; every duration between consecutive
// events of a location within Rel of the original (within the MPI bound
// inside MPI calls); no event before its predecessor where the original
// has them in order.

// violations lists what breaks the bounds b in graph g built from tr
// (at most max lines) and counts the durations checked.
func violations(tr *trace.Trace, g *Graph, b Bounds, max int) (bad []string, checked int) {
	mpi := mpiRegionSet(tr.Defs)
	for i, l := range g.Locations() {
		p := tr.Processes()[l.Index]
		q := g.Process(i)
		if len(p.Kind) != len(q.Kind) {
			return append(bad, fmt.Sprintf("%s: %d events, original %d", l.Name, len(q.Kind), len(p.Kind))), checked
		}
		depthMPI := 0 // open MPI calls
		var stack []bool
		for k := range p.Kind {
			if p.Kind[k] != q.Kind[k] {
				return append(bad, fmt.Sprintf("%s: event %d is %s, original %s", l.Name, k, q.Kind[k], p.Kind[k])), checked
			}
			if d := q.Time[k] - p.Time[k]; b.Abs >= 0 && (d > b.Abs || d < -b.Abs) {
				bad = append(bad, fmt.Sprintf("%s: event %d (%s) at %d, original %d: off by %d > Abs %d", l.Name, k, p.Kind[k], q.Time[k], p.Time[k], d, b.Abs))
			}
			// The duration from event k-1 to k lies inside the calls open
			// after event k-1.
			if k > 0 {
				checked++
				d0, d1 := p.Time[k]-p.Time[k-1], q.Time[k]-q.Time[k-1]
				rel := relInside(b, depthMPI > 0)
				switch {
				case d0 >= 0 && d1 < 0:
					bad = append(bad, fmt.Sprintf("%s: event %d (%s) before its predecessor: %d ns after it, originally %d", l.Name, k, p.Kind[k], d1, d0))
				case rel >= 0 && math.Abs(float64(d1-d0)) > rel*float64(d0):
					bad = append(bad, fmt.Sprintf("%s: events %d-%d (%s, %s): %d ns, originally %d (%.3g%% > %.3g%%)", l.Name, k-1, k, p.Kind[k-1], p.Kind[k], d1, d0,
						100*math.Abs(float64(d1-d0))/float64(d0), 100*rel))
				}
			}
			switch p.Kind[k] {
			case trace.Enter:
				m := mpi[p.Ref[k]]
				stack = append(stack, m)
				if m {
					depthMPI++
				}
			case trace.Leave:
				if len(stack) > 0 {
					if stack[len(stack)-1] {
						depthMPI--
					}
					stack = stack[:len(stack)-1]
				}
			}
			if len(bad) >= max {
				return bad, checked
			}
		}
	}
	return bad, checked
}

// relInside is the relative bound of a duration inside an MPI call or not.
func relInside(b Bounds, mpi bool) float64 {
	if mpi && b.MPIRel > 0 && (b.Rel < 0 || b.MPIRel < b.Rel) {
		return b.MPIRel
	}
	return b.Rel
}

// mpiRegionSet is the set of MPI regions: paradigm "mpi", or named
// "MPI_..." with an unknown paradigm.
func mpiRegionSet(d *trace.Definitions) map[int32]bool {
	m := map[int32]bool{}
	if d == nil {
		return m
	}
	for i, r := range d.Regions {
		if r.Paradigm == "mpi" || (r.Paradigm == "" || r.Paradigm == "unknown") && strings.HasPrefix(r.Name, "MPI_") {
			m[int32(i)] = true
		}
	}
	return m
}

func checkBounds(t *testing.T, what string, tr *trace.Trace, g *Graph, b Bounds) {
	t.Helper()
	bad, checked := violations(tr, g, b, 5)
	if len(bad) > 0 {
		t.Fatalf("%s (%s): %d durations checked; bounds broken:\n  %s", what, b, checked, strings.Join(bad, "\n  "))
	}
	if checked == 0 {
		t.Fatalf("%s: no durations checked", what)
	}
}

// Random traces at random bounds: every inter-event duration of every
// location within the bounds after decompression.
func TestEveryDurationWithinBoundsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for it := range 400 {
		var procs []*trace.Process
		for range 1 + rng.IntN(3) {
			procs = append(procs, randProc(rng, 2+rng.IntN(4), 5+rng.IntN(40), int64(1+rng.IntN(6))))
		}
		b := Bounds{Abs: int64(rng.IntN(40)), Rel: []float64{0, 0.05, 0.1, 0.3, 1, 2, -1}[rng.IntN(7)]}
		if rng.IntN(5) == 0 {
			b.Abs = -1
		}
		tr := traceOf(8, procs...)
		g := BuildTrace(tr, b, WithBranching(2+rng.IntN(6)), WithSearch(1+rng.IntN(8)))
		checkBounds(t, fmt.Sprintf("case %d", it), tr, g, b)
		if a := g.Accuracy(tr); !a.Within() {
			t.Fatalf("case %d: %s", it, a)
		}
		// Graph.Accuracy counts what the brute force finds, also for
		// bounds tighter than the graph's.
		tight := Bounds{Abs: 3, Rel: 0.01}
		g.bounds = tight
		bad, _ := violations(tr, g, tight, 1<<30)
		a := g.Accuracy(tr)
		tot := a.totals()
		if n := tot.OverAbs + tot.OverRel; n != int64(len(bad)) || a.Within() != (len(bad) == 0) {
			t.Fatalf("case %d: Accuracy counts %d beyond %s (%s), brute force %d", it, n, tight, a, len(bad))
		}
	}
}

// The seed's bound settings and the package's scenarios.
var presets = []struct {
	name string
	b    Bounds
}{
	{"lossless", Lossless}, {"small", SmallScale}, {"medium", MediumScale}, {"large", LargeScale},
	{"visual", Visual}, {"replay", Replay}, {"readme", Bounds{Abs: 1000, Rel: 0.05}}, {"unlimited", Unlimited},
	{"mpi 1%", Bounds{Abs: 10_000, Rel: 0.5, MPIRel: 0.01}},
}

// The SMG2000-shaped trace at every preset.
func TestEveryDurationWithinBoundsSMG(t *testing.T) {
	ev := 60_000
	if testing.Short() {
		ev = 20_000
	}
	tr := synth.GenerateSMG(synth.SMG2000Config(4, ev))
	for _, ps := range presets {
		g := BuildTrace(tr, ps.b)
		checkBounds(t, "SMG "+ps.name, tr, g, ps.b)
	}
}

// The generator's application presets, small, at every preset.
func TestEveryDurationWithinBoundsGenerated(t *testing.T) {
	cfgs := map[string]synth.GenConfig{
		"default":   synth.DefaultGenConfig(),
		"bt-mz":     synth.BTMZConfig(4, 2),
		"picongpu":  synth.PIConGPUConfig(3, 2, 2),
		"paradis":   synth.ParaDiSConfig(8),
		"fd4":       synth.FD4Config(8),
		"pepc":      synth.PEPCConfig(4),
		"cosmo":     synth.COSMOSPECSConfig(9, 12),
		"hybridgpu": synth.HybridGPUConfig(2, 2, 8),
	}
	for name, cfg := range cfgs {
		tr := synth.Generate(cfg)
		for _, ps := range presets {
			g := BuildTrace(tr, ps.b)
			checkBounds(t, name+" "+ps.name, tr, g, ps.b)
		}
	}
}

// mpiCalls returns the duration of every MPI call of p, in order.
func mpiCalls(p *trace.Process, mpi map[int32]bool) []int64 {
	var out []int64
	var stack []int
	for i, k := range p.Kind {
		switch k {
		case trace.Enter:
			stack = append(stack, i)
		case trace.Leave:
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if mpi[p.Ref[e]] {
				out = append(out, p.Time[i]-p.Time[e])
			}
		}
	}
	return out
}

// Bounds.MPIRel: the time spent in every MPI call stays within it, while
// the rest of the run is free (Replay: exact below a second); without it,
// the same times move.
func TestMPICallDurations(t *testing.T) {
	tr := synth.GenerateSMG(synth.SMG2000Config(2, 40_000))
	mpi := mpiRegionSet(tr.Defs)
	for _, c := range []struct {
		b     Bounds
		tight bool
	}{{Replay, true}, {Bounds{Abs: -1, Rel: -1, MPIRel: 0.02}, true}, {Bounds{Abs: -1, Rel: -1}, false}} {
		g := BuildTrace(tr, c.b)
		moved, calls := 0, 0
		for i, l := range g.Locations() {
			orig, got := mpiCalls(tr.Processes()[l.Index], mpi), mpiCalls(g.Process(i), mpi)
			if len(orig) != len(got) || len(orig) == 0 {
				t.Fatalf("%s: %d MPI calls, original %d", c.b, len(got), len(orig))
			}
			for k := range orig {
				calls++
				if got[k] != orig[k] {
					moved++
				}
				if c.tight && math.Abs(float64(got[k]-orig[k])) > c.b.MPIRel*float64(orig[k]) {
					t.Fatalf("%s: %s MPI call %d lasts %d ns, originally %d", c.b, l.Name, k, got[k], orig[k])
				}
			}
		}
		t.Logf("%s: %d of %d MPI calls changed duration; R_nodes %.4g", c.b, moved, calls, g.Stats().RNodes)
		if !c.tight && moved == 0 {
			t.Fatalf("%s: no MPI call changed: the test shows nothing", c.b)
		}
		checkBounds(t, "SMG", tr, g, c.b)
	}
}
