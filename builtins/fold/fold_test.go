package fold

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
)

const ns = NoState

// Figure 6.1: one stream enters a, enters b, leaves b (back in a), leaves a
// (no-state); three pixels sample a, a, no-state.
func TestFigure61(t *testing.T) {
	p := newPB().enter(0, 0).enter(1, 1).leave(3, 1).leave(7, 0).enter(11, 1).leave(12, 1).p
	tr := traceOf([]string{"a", "b"}, p)
	f := Timeline(tr, Max, 3, WithRange(0, 12)) // pixels start at 0, 4, 8
	if want := []int32{0, 0, ns}; !slices.Equal(f.State, want) {
		t.Fatalf("states %v, want %v", f.State, want)
	}
	if want := []float64{1, 1, 1}; !slices.Equal(f.Share, want) {
		t.Fatalf("shares %v, want %v", f.Share, want)
	}
	names, _ := f.Table().Strings("State")
	valid, _ := f.Table().Valid("State")
	if !slices.Equal(names[:2], []string{"a", "a"}) || !slices.Equal(valid, []bool{true, true, false}) {
		t.Fatalf("table states %q valid %v", names, valid)
	}
}

// Figure 6.2: three streams whose samples at pixels 0-2 are (a, a, b),
// (a, b, no-state) and (no-state x3). Region b is defined before a (b has
// the smaller id) so that b < a in the total order, as the seed's pixel 1
// (select_max picks b from a, b, no-state) requires.
func TestFigure62(t *testing.T) {
	const b, a = 0, 1
	s0 := newPB().enter(0, a).leave(20, a).p             // a a -
	s1 := newPB().enter(0, a).leave(10, a).enter(10, b). // a b -
								leave(20, b).p
	s2 := newPB().enter(0, b).leave(10, b).enter(25, a).leave(26, a).p // b - -
	tr := traceOf([]string{"b", "a"}, s0, s1, s2)
	want := map[Op][]int32{
		Max:  {a, b, ns},
		Min:  {b, b, ns},
		Diff: {b, b, ns},
		Idle: {a, b, ns},
	}
	shares := map[Op][]float64{
		Max:  {2. / 3, 1. / 3, 1},
		Min:  {1. / 3, 1. / 3, 1},
		Diff: {1. / 3, 1. / 3, 1},
		Idle: {2. / 3, 1. / 3, 1},
	}
	for op, w := range want {
		f := Timeline(tr, op, 3, WithRange(0, 30), WithTimeShare(false)) // the seed's sampling; pixels start at 0, 10, 20
		if !slices.Equal(f.State, w) || !slices.Equal(f.Share, shares[op]) {
			t.Errorf("%s: states %v shares %v, want %v %v", op, f.State, f.Share, w, shares[op])
		}
	}
}

// Every op on random traces with non-nesting Leaves equals the literal
// equations over a brute-force stack scan of every stream at every pixel.
func TestFoldOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var repairs int64
	defer func() {
		if repairs == 0 {
			t.Error("no random trace needed a call-stack repair")
		}
	}()
	for it := range 60 {
		nreg := 1 + rng.IntN(5)
		k := 1 + rng.IntN(9)
		var procs []*trace.Process
		for range k {
			procs = append(procs, randProc(rng, nreg, rng.IntN(120)))
		}
		tr := traceOf(regionNames(nreg), procs...)
		for _, p := range procs {
			repairs += p.CallRepairs().Count()
		}
		ix := NewIndex(tr)
		t0, t1 := localSpan(tr)
		if it%2 == 1 { // a random range, beyond the events too
			t0 = int64(rng.IntN(200)) - 30
			t1 = t0 + 1 + int64(rng.IntN(300))
		}
		width := 1 + rng.IntN(80)
		c := ix.Counts(nil, t0, t1, width)
		for _, op := range []Op{Max, Min, Diff, Idle} {
			got := c.Select(op)
			f := Timeline(tr, op, width, WithRange(t0, t1), WithTimeShare(false))
			for x := range width {
				at, _ := c.Pixel(x)
				seq := make([]int32, k)
				for i, p := range procs {
					seq[i] = bruteState(p, at)
				}
				w := bruteSelect(op, seq)
				n := 0
				for _, s := range seq {
					if s == w {
						n++
					}
				}
				if got[x] != w || f.State[x] != w || f.Share[x] != float64(n)/float64(k) {
					t.Fatalf("trace %d %s pixel %d at %d: seq %v: got %d (Timeline %d share %v), want %d share %v",
						it, op, x, at, seq, got[x], f.State[x], f.Share[x], w, float64(n)/float64(k))
				}
			}
		}
	}
}

// StateAt equals the innermost call-tree node with Enter <= t < Leave, at
// random times, at every event time, and before and after all events.
func TestStateAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := range 80 {
		nreg := 1 + rng.IntN(4)
		procs := []*trace.Process{randProc(rng, nreg, rng.IntN(150)), randProc(rng, nreg, rng.IntN(10))}
		tr := traceOf(regionNames(nreg), procs...)
		ix := NewIndex(tr)
		for i, p := range procs {
			ct := p.CallTree()
			times := []int64{-5, 0}
			for _, x := range p.Time {
				times = append(times, x-1, x, x+1)
			}
			for range 20 {
				times = append(times, int64(rng.IntN(400)))
			}
			times = append(times, 1<<40)
			for _, at := range times {
				want := NoState
				for n := 1; n < ct.Len(); n++ {
					if ct.Enter[n] <= at && at < ct.Leave[n] {
						want = ct.Region[n] // pre-order: the innermost comes last
					}
				}
				if got := ix.StateAt(i, at); got != want {
					t.Fatalf("trace %d stream %d at %d: %d, want %d (events %v %v %v)", it, i, at, got, want, p.Kind, p.Time, p.Ref)
				}
				if b := bruteState(p, at); b != want {
					t.Fatalf("brute force disagrees with the call tree at %d: %d, want %d", at, b, want)
				}
			}
		}
	}
}

// Transition times beyond 2^32 ns apart force padded blocks; StateAt still
// equals the brute force.
func TestLongGaps(t *testing.T) {
	b := newPB()
	tm := int64(0)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		tm += int64(rng.IntN(3)) + 1
		if i%300 == 7 {
			tm += 1 << 33
		}
		if i%2 == 0 {
			b.enter(tm, int32(i%3))
		} else {
			b.leave(tm, int32((i-1)%3))
		}
	}
	p := b.p
	tr := traceOf(regionNames(3), p)
	ix := NewIndex(tr)
	for j, at := range p.Time {
		for _, d := range []int64{-1, 0, 1, 1 << 32} {
			if got, want := ix.StateAt(0, at+d), bruteState(p, at+d); got != want {
				t.Fatalf("event %d at %d%+d: %d, want %d", j, at, d, got, want)
			}
		}
	}
	pad := 0
	s := &ix.st[0]
	for j := 1; j < s.len(); j++ {
		if s.state(j) == s.state(j-1) {
			pad++
		}
	}
	if pad == 0 {
		t.Fatalf("no padded block: %d blocks, %d transitions", len(s.base), s.len())
	}
}

// Merging the Counts of random partitions, in random tree orders and through their encoding,
// equals the Counts of all streams (the contract suite on random traces and grids), and so
// does every selection.
func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for it := range 40 {
		nreg := 1 + rng.IntN(6)
		k := 2 + rng.IntN(12)
		var procs []*trace.Process
		for range k {
			procs = append(procs, randProc(rng, nreg, rng.IntN(100)))
		}
		tr := traceOf(regionNames(nreg), procs...)
		t0, t1 := localSpan(tr)
		width := 1 + rng.IntN(50)
		m := CountsMethod(t0, t1, width, false)
		parttest.Check(t, tr, m, parttest.Config{Trials: 3, Seed: uint64(it + 1)})
		all := NewIndex(tr).Counts(nil, t0, t1, width)
		half, _ := m.Compute(tr, procs[:k/2], 0, nil)
		rest, _ := m.Compute(tr, procs[k/2:], 0, nil)
		if err := rest.Merge(half); err != nil {
			t.Fatal(err)
		}
		for _, op := range []Op{Max, Min, Diff, Idle} {
			if !slices.Equal(rest.(*Counts).Select(op), all.Select(op)) {
				t.Fatalf("trace %d %s: merged selection differs", it, op)
			}
		}
	}
}

// The counterexample of doc.go: per-partition minima are not enough for
// select_min, the full vectors are.
func TestMergeMinCounterexample(t *testing.T) {
	mk := func(na, nb int) *Counts {
		return &Counts{T0: 0, T1: 1, Width: 1, n: na + nb, off: []int32{0, 2}, state: []int32{0, 1}, count: []int32{int32(na), int32(nb)}}
	}
	a, b := mk(1, 2), mk(5, 1)
	if a.Select(Min)[0] != 0 || b.Select(Min)[0] != 1 {
		t.Fatal("partition minima")
	}
	if n, _ := a.Table().Int32s("Streams"); !slices.Equal(n, []int32{1, 2}) || !strings.Contains(a.String(), "3 streams, 1 pixels") {
		t.Fatalf("counts table %v, %s", n, a)
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if got := a.Select(Min); got[0] != 1 { // a:6, b:3
		t.Fatalf("min of merged counts %v, want b (1)", got)
	}
}

func TestMergeGridMismatch(t *testing.T) {
	tr := traceOf(regionNames(1), newPB().enter(0, 0).leave(10, 0).p)
	ix := NewIndex(tr)
	expectMergeError(t, ix.Counts(nil, 0, 10, 5).Merge(ix.Counts(nil, 0, 10, 6)), "pixel grids differ")
	expectMergeError(t, ix.Counts(nil, 0, 10, 5).Merge(ix.Counts(nil, 0, 10, 5)), "process 0 is in both partials")
}

// expectMergeError checks that err is an *Error of Counts.Merge saying want.
func expectMergeError(t *testing.T, err error, want string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Func != "fold.Counts.Merge" || !strings.Contains(e.Msg, want) {
		t.Fatalf("Merge returned %v, want an *Error of fold.Counts.Merge saying %q", err, want)
	}
}

func expectError(t *testing.T, fn string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		var e *Error
		if err, ok := r.(error); !ok || !errors.As(err, &e) || e.Func != fn {
			t.Fatalf("panic %#v, want *fold.Error from %s", r, fn)
		}
	}()
	f()
}

func TestBadArguments(t *testing.T) {
	tr := traceOf(regionNames(2), newPB().enter(0, 0).leave(10, 0).p, newPB().enter(2, 1).leave(9, 1).p)
	other := traceOf(regionNames(1), newPB().enter(0, 0).leave(1, 0).p)
	cases := []struct {
		fn string
		f  func()
	}{
		{"fold.Timeline", func() { Timeline(tr, Max, 0) }},
		{"fold.Timeline", func() { Timeline(tr, Max, 65537) }},
		{"fold.Timeline", func() { Timeline(tr, Op(7), 10) }},
		{"fold.Timeline", func() { Timeline(tr, Max, 10, WithRange(5, 5)) }},
		{"fold.Timeline", func() { Timeline(tr, Max, 10, WithDevice(0)) }},
		{"fold.Timeline", func() { Timeline(tr, Max, 10, WithProcesses(other.Process(0))) }},
		{"fold.NewIndex", func() { NewIndex(tr, other.Process(0)) }},
		{"fold.Index.Counts", func() { NewIndex(tr).Counts([]int{2}, 0, 10, 3) }},
		{"fold.Index.Counts", func() { NewIndex(tr).Counts(nil, 10, 0, 3) }},
		{"fold.Counts.Select", func() { NewIndex(tr).Counts(nil, 0, 10, 3).Select(-1) }},
		{"fold.GPUUtilisation", func() { GPUUtilisation(tr) }},
		{"fold.Index.StateAt", func() { NewIndex(tr).StateAt(5, 0) }},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) { expectError(t, c.fn, c.f) })
	}
}

// The cache: a second fold of the same processes (or a subset) reuses the
// index; another set replaces it.
func TestIndexCache(t *testing.T) {
	procs := []*trace.Process{newPB().enter(0, 0).leave(10, 0).p, newPB().enter(2, 1).leave(9, 1).p}
	tr := traceOf(regionNames(2), procs...)
	Timeline(tr, Max, 10)
	ix := cache.ix
	Timeline(tr, Min, 20, WithRange(3, 5))
	f := Timeline(tr, Max, 10, WithProcesses(procs[1]))
	if cache.ix != ix || !slices.Equal(f.State, []int32{ns, ns, 1, 1, 1, 1, 1, 1, 1, ns}) {
		t.Fatalf("subset fold: index rebuilt %v, states %v", cache.ix != ix, f.State)
	}
	tr2 := traceOf(regionNames(1), newPB().enter(0, 0).leave(1, 0).p)
	Timeline(tr2, Max, 10)
	if cache.ix == ix || cache.ix.tr != tr2 {
		t.Fatal("another trace did not replace the cached index")
	}
}

func TestTableAndPlot(t *testing.T) {
	p := newPB().enter(0, 0).enter(1, 1).leave(3, 1).leave(7, 0).p
	q := newPB().enter(4, 1).leave(12, 1).p
	tr := traceOf([]string{"a", "b"}, p, q)
	f := Timeline(tr, Idle, 3, WithRange(0, 12), WithTimeShare(false))
	tb := f.Table()
	px, _ := tb.Int32s("Pixel")
	a, _ := tb.Int64s("Start (ns)")
	b, _ := tb.Int64s("End (ns)")
	st, _ := tb.Strings("State")
	valid, _ := tb.Valid("State")
	share, _ := tb.Float64s("Share")
	// pixel 0 at 0: (a, -) -> a; pixel 1 at 4: (a, b) -> a (a < b); pixel 2 at 8: (-, b) -> b
	if !slices.Equal(px, []int32{0, 1, 2}) || !slices.Equal(a, []int64{0, 4, 8}) || !slices.Equal(b, []int64{4, 8, 12}) ||
		!slices.Equal(st, []string{"a", "a", "b"}) || !slices.Equal(valid, []bool{true, true, true}) ||
		!slices.Equal(share, []float64{0.5, 0.5, 0.5}) {
		t.Fatalf("table %v %v %v %q %v %v", px, a, b, st, valid, share)
	}
	if got := f.String(); got != "fold.idle: 2 streams, 3 pixels over [0 ns, 12 ns): a 66.7%, b 33.3%" {
		t.Fatalf("String %q", got)
	}
	if h, ok := f.MIMEBundle()["text/html"].(string); !ok || !strings.Contains(h, "data:image/png;base64,") {
		t.Fatal("no plot")
	}
	// By time share (Idle's default): pixel 0 [0, 4): a 2 ns, b 2 ns -> a (a < b), the device
	// busy all 4 ns; pixel 1 [4, 8): a 3 ns, b 4 ns -> b; pixel 2 [8, 12): b.
	f = Timeline(tr, Idle, 3, WithRange(0, 12))
	if !slices.Equal(f.State, []int32{0, 1, 1}) || !slices.Equal(f.Share, []float64{1, 1, 1}) || !f.ByTime {
		t.Fatalf("by time share: states %v shares %v", f.State, f.Share)
	}
	if got := f.String(); got != "fold.idle: 2 streams, 3 pixels over [0 ns, 12 ns): b 66.7%, a 33.3%" {
		t.Fatalf("String %q", got)
	}
	if got := f.Plot().Title(); !strings.Contains(got, "(by time share)") {
		t.Fatalf("title %q", got)
	}
}

// Pixel boundaries in 128-bit arithmetic: no overflow for long ranges.
func TestPixelStart(t *testing.T) {
	if got := pixelStart(0, 1<<62, 65536, 65535); got != (1<<62)/65536*65535 {
		t.Fatalf("pixelStart %d", got)
	}
	if got := pixelStart(10, 17, 3, 2); got != 10+14/3 {
		t.Fatalf("pixelStart %d", got)
	}
}

// A nil option is ignored, as everywhere on the notebook surface.
func TestNilOptionIgnored(t *testing.T) {
	tr := traceOf(regionNames(1), newPB().enter(0, 0).leave(10, 0).p)
	if a, b := Timeline(tr, Max, 4, nil), Timeline(tr, Max, 4); !slices.Equal(a.State, b.State) {
		t.Fatalf("with a nil option %v, without %v", a.State, b.State)
	}
}
