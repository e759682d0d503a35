package ccg

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// bruteSummary evaluates the summary query over [t0, t1) directly on a
// location's events.
type bruteSum struct {
	calls, incl, excl map[int32]int64
	msg               MessageStats
}

func brute(p *trace.Process, t0, t1 int64) bruteSum {
	b := bruteSum{calls: map[int32]int64{}, incl: map[int32]int64{}, excl: map[int32]int64{}}
	type open struct {
		region int32
		enter  int64
	}
	var stack []open
	in := func(t int64) bool { return t >= t0 && t < t1 }
	for i, k := range p.Kind {
		t := p.Time[i]
		if i > 0 && len(stack) > 0 {
			b.excl[stack[len(stack)-1].region] += clip(p.Time[i-1], t, t0, t1)
		}
		switch k {
		case trace.Enter:
			stack = append(stack, open{p.Ref[i], t})
			if in(t) {
				b.calls[p.Ref[i]]++
			}
		case trace.Leave:
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			b.incl[o.region] += clip(o.enter, t, t0, t1)
		default:
			if !in(t) {
				continue
			}
			pay := payloadOf(p, i)
			switch k {
			case trace.MpiSend, trace.MpiIsend:
				b.msg.Sends++
				b.msg.BytesSent += pay[3]
			case trace.MpiRecv, trace.MpiIrecv:
				b.msg.Recvs++
				b.msg.BytesRecvd += pay[3]
			case trace.MpiCollectiveEnd:
				b.msg.Collectives++
				b.msg.CollSent += pay[3]
				b.msg.CollReceived += pay[4]
			case trace.Metric:
				b.msg.Metrics++
			}
		}
	}
	return b
}

func (b bruteSum) add(o bruteSum) {
	for r, v := range o.calls {
		b.calls[r] += v
	}
	for r, v := range o.incl {
		b.incl[r] += v
	}
	for r, v := range o.excl {
		b.excl[r] += v
	}
}

func sameSummary(t *testing.T, what string, s *Summary, want bruteSum, msg MessageStats) {
	t.Helper()
	got := map[int32]RegionSummary{}
	for _, r := range s.Regions {
		got[r.Region] = r
	}
	regions := map[int32]bool{}
	for r := range want.calls {
		regions[r] = true
	}
	for r := range want.incl {
		regions[r] = true
	}
	for r := range want.excl {
		regions[r] = true
	}
	for r := range regions {
		g := got[r]
		if g.Calls != want.calls[r] || g.Inclusive != want.incl[r] || g.Exclusive != want.excl[r] {
			t.Fatalf("%s: region %d: calls %d incl %d excl %d; brute force %d %d %d", what, r, g.Calls, g.Inclusive, g.Exclusive,
				want.calls[r], want.incl[r], want.excl[r])
		}
		delete(got, r)
	}
	for r, g := range got {
		if g.Calls != 0 || g.Inclusive != 0 || g.Exclusive != 0 {
			t.Fatalf("%s: region %d in the summary only: %+v", what, r, g)
		}
	}
	if s.Messages != msg {
		t.Fatalf("%s: messages %+v, brute force %+v", what, s.Messages, msg)
	}
}

// The cached summary query equals a brute-force evaluation on the events,
// for random intervals, in any order of queries (initial and successive).
func TestSummaryOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for it := range 150 {
		np := 1 + rng.IntN(3)
		procs := make([]*trace.Process, np)
		for i := range procs {
			procs[i] = randProc(rng, 2+rng.IntN(5), 1+rng.IntN(30), int64(rng.IntN(3)))
		}
		tr := traceOf(8, procs...)
		g := BuildTrace(tr, Lossless, WithBranching(2+rng.IntN(6)))
		end := g.End()
		for q := range 12 {
			t0, t1 := rng.Int64N(end+20)-10, rng.Int64N(end+20)-10
			if q == 0 || q == 5 {
				t0, t1 = 0, end
			}
			if t0 > t1 {
				t0, t1 = t1, t0
			}
			if t0 == t1 {
				t1++
			}
			want := bruteSum{calls: map[int32]int64{}, incl: map[int32]int64{}, excl: map[int32]int64{}}
			var msg MessageStats
			for _, p := range procs {
				b := brute(p, t0, t1)
				want.add(b)
				msg.add(&b.msg)
			}
			sameSummary(t, "summary", g.Summary(t0, t1), want, msg)
			// Per location through a view sharing the cache.
			l := rng.IntN(np)
			b := brute(procs[l], t0, t1)
			sameSummary(t, "location view", g.Loc(l).Summary(t0, t1), b, b.msg)
		}
		_ = it
	}
}

// Lossy graphs: the full-range summary has the exact counts and every
// region's inclusive and exclusive time within Rel of the original.
func TestSummaryLossyWithinRel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 150 {
		p := randProc(rng, 2+rng.IntN(4), 5+rng.IntN(30), int64(1+rng.IntN(3)))
		b := Bounds{Abs: -1, Rel: []float64{0.05, 0.2, 0.5}[rng.IntN(3)]}
		g := Build(traceOf(8, p).Process(0), b, WithBranching(2+rng.IntN(5)))
		// The whole run, original and reconstructed (with Abs unlimited
		// the reconstructed run may end earlier or later).
		end := max(g.End(), p.Time[len(p.Time)-1]+1)
		s := g.Summary(0, end)
		want := brute(p, 0, end)
		for _, r := range s.Regions {
			if r.Calls != want.calls[r.Region] {
				t.Fatalf("region %d: %d calls, original %d", r.Region, r.Calls, want.calls[r.Region])
			}
			for _, c := range [][2]int64{{r.Inclusive, want.incl[r.Region]}, {r.Exclusive, want.excl[r.Region]}} {
				if math.Abs(float64(c[0]-c[1])) > b.Rel*float64(c[1])+1e-9 {
					t.Fatalf("%s region %d: time %d, original %d", b, r.Region, c[0], c[1])
				}
			}
		}
	}
}

// A lossy graph's summaries are those of its own decompressed events,
// exactly: every query (the whole run by multiplicities, ranges
// recursively with the caches) reads the times the iterator reads (a
// call's leave where its parent puts it).
func TestSummaryLossyEqualsDecompressed(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	for it := range 150 {
		var procs []*trace.Process
		for range 1 + rng.IntN(3) {
			procs = append(procs, randProc(rng, 2+rng.IntN(4), 5+rng.IntN(30), int64(1+rng.IntN(4))))
		}
		b := Bounds{Abs: []int64{-1, 20, 200}[rng.IntN(3)], Rel: []float64{0.05, 0.3, 1, -1}[rng.IntN(4)]}
		g := BuildTrace(traceOf(8, procs...), b, WithBranching(2+rng.IntN(5)))
		dec := g.Trace().Processes()
		end := g.End()
		for q := range 12 {
			t0, t1 := int64(0), end
			if q > 0 {
				t0 = rng.Int64N(end)
				t1 = t0 + 1 + rng.Int64N(end-t0)
			}
			want := bruteSum{calls: map[int32]int64{}, incl: map[int32]int64{}, excl: map[int32]int64{}}
			var msg MessageStats
			for _, p := range dec {
				b := brute(p, t0, t1)
				want.add(b)
				msg.add(&b.msg)
			}
			sameSummary(t, fmt.Sprintf("case %d (%s) [%d, %d)", it, b, t0, t1), g.Summary(t0, t1), want, msg)
		}
	}
}

// The iterator: Next reproduces the events, Prev walks them back in
// reverse, any mix of Next and Prev stays consistent, SeekTime finds the
// first event at or after a time.
func TestIteratorOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		p := randProc(rng, 2+rng.IntN(5), 1+rng.IntN(20), int64(rng.IntN(3)))
		g := Build(traceOf(8, p).Process(0), Lossless, WithBranching(2+rng.IntN(5)))
		it := g.Iter(0)
		var fwd []Event
		for {
			e, ok := it.Next()
			if !ok {
				break
			}
			fwd = append(fwd, e)
		}
		if len(fwd) != len(p.Kind) {
			t.Fatalf("%d events, want %d", len(fwd), len(p.Kind))
		}
		for i := len(fwd) - 1; i >= 0; i-- {
			e, ok := it.Prev()
			if !ok || !sameEvent(e, fwd[i]) {
				t.Fatalf("Prev at %d: %+v, want %+v", i, e, fwd[i])
			}
		}
		if _, ok := it.Prev(); ok {
			t.Fatal("Prev before the first event")
		}
		pos := 0
		for range 4 * len(fwd) {
			if rng.IntN(2) == 0 {
				e, ok := it.Next()
				if ok != (pos < len(fwd)) || ok && !sameEvent(e, fwd[pos]) {
					t.Fatalf("Next at %d: %+v %v", pos, e, ok)
				}
				if ok {
					pos++
				}
			} else {
				e, ok := it.Prev()
				if ok != (pos > 0) || ok && !sameEvent(e, fwd[pos-1]) {
					t.Fatalf("Prev at %d: %+v %v", pos, e, ok)
				}
				if ok {
					pos--
				}
			}
		}
		for range 20 {
			tm := rng.Int64N(p.Time[len(p.Time)-1] + 10)
			it.SeekTime(tm)
			want, _ := slices.BinarySearch(p.Time, tm)
			e, ok := it.Next()
			if want == len(p.Time) {
				if ok {
					t.Fatalf("SeekTime(%d) past the end gave %+v", tm, e)
				}
				continue
			}
			if !ok || !sameEvent(e, fwd[want]) {
				t.Fatalf("SeekTime(%d): %+v, want event %d %+v", tm, e, want, fwd[want])
			}
			// And backward from there.
			if want > 0 {
				it.Prev()
				if e, _ := it.Prev(); !sameEvent(e, fwd[want-1]) {
					t.Fatalf("Prev after SeekTime(%d): %+v, want %+v", tm, e, fwd[want-1])
				}
			}
		}
	}
}

func sameEvent(a, b Event) bool {
	return a.Kind == b.Kind && a.Time == b.Time && a.Region == b.Region && a.Depth == b.Depth && a.Peer == b.Peer &&
		a.Tag == b.Tag && a.Bytes == b.Bytes && a.Request == b.Request && a.Sent == b.Sent &&
		slices.Equal(a.Types, b.Types) && slices.Equal(a.Values, b.Values)
}

// At finds the innermost call running at t, as a scan of the events does.
func TestAtOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 100 {
		p := randProc(rng, 2+rng.IntN(5), 1+rng.IntN(20), int64(rng.IntN(3)))
		tr := traceOf(8, p)
		g := Build(tr.Process(0), Lossless, WithBranching(2+rng.IntN(5)))
		for range 20 {
			tm := rng.Int64N(p.Time[len(p.Time)-1] + 10)
			var stack []int
			var want []string
			var enter int64
			for i, k := range p.Kind {
				if p.Time[i] > tm {
					break
				}
				if k == trace.Enter {
					stack = append(stack, i)
				} else if k == trace.Leave {
					stack = stack[:len(stack)-1]
				}
			}
			for _, i := range stack {
				want = append(want, tr.Defs.Regions[p.Ref[i]].Name)
				enter = p.Time[i]
			}
			tb := g.At(tm)
			paths, _ := tb.Strings("Call Path")
			ent, _ := tb.Int64s("Enter (ns)")
			if paths[0] != strings.Join(want, " > ") || len(want) > 0 && ent[0] != enter {
				t.Fatalf("At(%d): %q (enter %d), want %q (enter %d)", tm, paths[0], ent[0], strings.Join(want, " > "), enter)
			}
		}
	}
}

// The timeline's pixel states are the regions with the most exclusive time
// in each pixel, as a brute-force summary per pixel finds.
func TestTimelineOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for range 60 {
		p := randProc(rng, 2+rng.IntN(5), 1+rng.IntN(20), int64(rng.IntN(3)))
		g := Build(traceOf(8, p).Process(0), Lossless, WithBranching(2+rng.IntN(5)))
		w := 1 + rng.IntN(40)
		tl := g.Timeline(w)
		for x := range w {
			a, b := tl.Pixel(x)
			bs := brute(p, a, b)
			best, bt := int32(-1), int64(0)
			for r, e := range bs.excl {
				if e > bt || e == bt && e > 0 && r < best {
					best, bt = r, e
				}
			}
			if tl.State[0][x] != best {
				t.Fatalf("pixel %d [%d, %d): state %d, brute force %d (%v)", x, a, b, tl.State[0][x], best, bs.excl)
			}
			if best >= 0 && tl.Share[0][x] != float64(bt)/float64(b-a) {
				t.Fatalf("pixel %d: share %v, want %v", x, tl.Share[0][x], float64(bt)/float64(b-a))
			}
		}
		if tb := tl.Table(); tb.NumRows() != w {
			t.Fatalf("timeline table has %d rows, want %d", tb.NumRows(), w)
		}
	}
}

// Building locations separately and merging them (the per-process part of
// the method and its merge) gives the graph BuildTrace gives: the same
// decompressed events, the same summaries, and exact sharing of equal
// sub-trees across locations.
func TestMergeOfPartsEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for range 60 {
		np := 2 + rng.IntN(4)
		procs := make([]*trace.Process, np)
		base := rng.Uint64()
		for i := range procs {
			// Equal seeds for some locations: identical locations share everything.
			r := rand.New(rand.NewPCG(base, uint64(i%2)))
			procs[i] = randProc(r, 4, 1+r.IntN(20), 1)
		}
		tr := traceOf(8, procs...)
		b := []Bounds{Lossless, {Abs: 20, Rel: 0.2}}[rng.IntN(2)]
		whole := BuildTrace(tr, b)
		var parts []*Graph
		for _, p := range procs {
			parts = append(parts, Build(p, b))
		}
		merged := Merge(parts...)
		for i := range procs {
			sameProcess(t, "merged", parts[i].Process(0), merged.Process(i))
			if b == Lossless { // lossy: BuildTrace's locations also replace by each other's nodes
				sameProcess(t, "whole", parts[i].Process(0), whole.Process(i))
			}
		}
		if b != Lossless {
			continue
		}
		if merged.Locations()[0].Root != merged.Locations()[2%np].Root && np > 2 {
			t.Fatalf("identical locations 0 and 2 do not share their root")
		}
		end := whole.End()
		for range 5 {
			t0 := rng.Int64N(end)
			t1 := t0 + 1 + rng.Int64N(end)
			a, c := whole.Summary(t0, t1), merged.Summary(t0, t1)
			if !slices.Equal(a.Regions, c.Regions) || a.Messages != c.Messages {
				t.Fatalf("summaries differ: %+v vs %+v", a, c)
			}
		}
		some := BuildProcesses(Lossless, procs...)
		for i := range procs {
			sameProcess(t, "BuildProcesses", parts[i].Process(0), some.Process(i))
		}
		mustPanic(t, "from another trace", func() { BuildProcesses(Lossless, procs[0], traceOf(8, randProc(rng, 2, 2, 0)).Process(0)) })
		ws, ms := whole.Stats(), merged.Stats()
		if ws.N != ms.N || ws.Nodes != ms.Nodes || ws.Events != ms.Events {
			t.Fatalf("whole %+v, merged %+v", ws, ms)
		}
	}
}

// Recompress: the result is within the new bounds of the original events,
// reports deviation bounds that hold, and never has more nodes.
func TestRecompressWithinNewBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for range 150 {
		p := randProc(rng, 2+rng.IntN(4), 5+rng.IntN(30), int64(1+rng.IntN(4)))
		old := Bounds{Abs: int64(rng.IntN(10)), Rel: 0.05 * float64(rng.IntN(3))}
		nb := Bounds{Abs: old.Abs + int64(rng.IntN(30)), Rel: old.Rel + 0.1*float64(rng.IntN(4))}
		g := Build(traceOf(8, p).Process(0), old)
		r := g.Recompress(nb)
		if r.Stats().Nodes > g.Stats().Nodes {
			t.Fatalf("recompression grew the graph: %d -> %d", g.Stats().Nodes, r.Stats().Nodes)
		}
		q := r.Process(0)
		l := r.Locations()[0]
		for i := range p.Time {
			d := q.Time[i] - p.Time[i]
			if d > nb.Abs || d < -nb.Abs || d < l.DevMin || d > l.DevMax {
				t.Fatalf("%s -> %s: event %d deviates %d (reported [%d, %d])", old, nb, i, d, l.DevMin, l.DevMax)
			}
		}
	}
	g := Build(traceOf(8, randProc(rng, 3, 5, 1)).Process(0), Bounds{Abs: 10, Rel: 0.1})
	mustPanic(t, "narrower", func() { g.Recompress(Bounds{Abs: 5, Rel: 0.1}) })
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		e, ok := r.(*Error)
		if !ok || !strings.Contains(e.Error(), want) {
			t.Fatalf("panic %v, want an *Error containing %q", r, want)
		}
	}()
	f()
}

// Bad arguments name what was wrong.
func TestBadArguments(t *testing.T) {
	p := randProc(rand.New(rand.NewPCG(1, 1)), 3, 3, 0)
	tr := traceOf(8, p)
	g := Build(tr.Process(0), Lossless)
	mustPanic(t, "ccg.Build: nil process", func() { Build(nil, Lossless) })
	mustPanic(t, "branching factor 1", func() { Build(tr.Process(0), Lossless, WithBranching(1)) })
	mustPanic(t, "search length 0", func() { Build(tr.Process(0), Lossless, WithSearch(0)) })
	mustPanic(t, "Bounds.Rel is NaN", func() { Build(tr.Process(0), Bounds{Rel: math.NaN()}) })
	mustPanic(t, "empty interval", func() { g.Summary(5, 5) })
	mustPanic(t, "width 0", func() { g.Timeline(0) })
	mustPanic(t, "location 3 out of range", func() { g.Iter(3) })
	mustPanic(t, "location -1 out of range", func() { g.Loc(-1) })
	mustPanic(t, "no graphs", func() { Merge() })
}

// SweepBounds records each setting's graph as BuildTrace builds it.
func TestSweepBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	tr := traceOf(8, randProc(rng, 4, 40, 2), randProc(rng, 4, 40, 2))
	sw := SweepBounds(tr)
	if len(sw.Stats) != 5 || sw.Settings[0] != Lossless || sw.Settings[4] != Unlimited {
		t.Fatalf("default settings %v", sw.Settings)
	}
	for i, b := range sw.Settings {
		if want := BuildTrace(tr, b).Stats(); sw.Stats[i] != want {
			t.Fatalf("setting %s: %+v, BuildTrace gives %+v", b, sw.Stats[i], want)
		}
	}
	// The successive query is the seed's: a range query again with the
	// node caches filled; it evaluates nodes (not a memo lookup), fewer
	// than the first time, and its answer is the brute-force one.
	for i, b := range sw.Settings {
		g := BuildTrace(tr, b)
		t0, t1 := successiveRange(g)
		_, first := g.summarizeBy(t0, t1, nil, false)
		a, nodes := g.summarizeBy(t0, t1, nil, false)
		if sw.NextNodes[i] != nodes || nodes == 0 || nodes > first {
			t.Fatalf("%s: successive query evaluated %d nodes (again %d), the first %d", b, sw.NextNodes[i], nodes, first)
		}
		if b == Lossless {
			want := bruteSum{calls: map[int32]int64{}, incl: map[int32]int64{}, excl: map[int32]int64{}}
			for _, p := range tr.Processes() {
				want.add(brute(p, t0, t1))
			}
			for _, r := range a.touched {
				if a.excl[r] != want.excl[r] || a.incl[r] != want.incl[r] || a.calls[r] != want.calls[r] {
					t.Fatalf("region %d: successive query %d/%d/%d, brute force %d/%d/%d", r, a.excl[r], a.incl[r], a.calls[r], want.excl[r], want.incl[r], want.calls[r])
				}
			}
		}
	}
	// On a deeper run the caches answer part of it (the nodes the
	// cache-modulus and cache-references rules select).
	smg := synth.GenerateSMG(synth.SMG2000Config(2, 30_000))
	ssw := SweepBounds(smg, Lossless, MediumScale)
	for i := range ssw.Settings {
		g := BuildTrace(smg, ssw.Settings[i])
		t0, t1 := successiveRange(g)
		_, first := g.summarizeBy(t0, t1, nil, false)
		t.Logf("SMG %s: successive query %d nodes, first %d, graph %d", ssw.Settings[i], ssw.NextNodes[i], first, ssw.Stats[i].Nodes)
		if ssw.NextNodes[i] == 0 || ssw.NextNodes[i] >= first {
			t.Fatalf("SMG %s: successive query evaluated %d nodes, the first %d", ssw.Settings[i], ssw.NextNodes[i], first)
		}
	}
	if sw.Stats[4].RNodes < sw.Stats[0].RNodes {
		t.Fatalf("unlimited compresses less than lossless: %v < %v", sw.Stats[4].RNodes, sw.Stats[0].RNodes)
	}
	tb := sw.Table()
	if names, _ := tb.Strings("Bounds"); !slices.Equal(names, []string{"lossless", "abs 100 ns, rel 1%", "abs 10.00 µs, rel 10%", "abs 1.000 ms, rel 100%", "unlimited"}) {
		t.Fatalf("setting names %v", names)
	}
	if _, err := tb.Int64s("Successive Query Nodes"); err != nil {
		t.Fatal(err)
	}
	if h, _ := sw.MIMEBundle()["text/html"].(string); !strings.Contains(h, "data:image/png;base64,") {
		t.Fatal("sweep bundle has no figure")
	}
}

// BuildTrace is deterministic: the same lossy graph however the two
// workers are scheduled.
func TestBuildTraceDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	var procs []*trace.Process
	for range 7 {
		procs = append(procs, randProc(rng, 4, 30, 3))
	}
	tr := traceOf(8, procs...)
	var first []byte
	for range 6 {
		var buf bytes.Buffer
		if _, err := BuildTrace(tr, Bounds{Abs: 30, Rel: 0.3}).WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = buf.Bytes()
		} else if !bytes.Equal(first, buf.Bytes()) {
			t.Fatal("two builds of the same trace differ")
		}
	}
}

// A lossy graph does not depend on the number of cores: BuildTrace with
// GOMAXPROCS 1, 2 and 3 writes the same bytes (and so do the shard
// counts for a lossless graph's nodes).
func TestBuildIndependentOfCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	var procs []*trace.Process
	for range 7 {
		procs = append(procs, randProc(rng, 4, 30, 3))
	}
	tr := traceOf(8, procs...)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, b := range []Bounds{{Abs: 30, Rel: 0.3}, MediumScale, Unlimited} {
		var first []byte
		for _, procs := range []int{1, 2, 3} {
			runtime.GOMAXPROCS(procs)
			var buf bytes.Buffer
			if _, err := BuildTrace(tr, b).WriteTo(&buf); err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = buf.Bytes()
			} else if !bytes.Equal(first, buf.Bytes()) {
				t.Fatalf("%s: the graph built with GOMAXPROCS %d differs from the one with 1", b, procs)
			}
		}
	}
	n := BuildTrace(tr, Lossless, WithShards(1)).Stats().Nodes
	for _, k := range []int{2, 3, 7, 20} {
		if m := BuildTrace(tr, Lossless, WithShards(k)).Stats().Nodes; m != n {
			t.Fatalf("lossless, %d shards: %d nodes, 1 shard %d", k, m, n)
		}
	}
	mustPanic(t, "0 shards", func() { BuildTrace(tr, Lossless, WithShards(0)) })
}

// Recompressing with the same bounds changes nothing.
func TestRecompressSameBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	p := randProc(rng, 3, 20, 2)
	b := Bounds{Abs: 10, Rel: 0.1}
	g := Build(traceOf(8, p).Process(0), b)
	r := g.Recompress(b)
	sameProcess(t, "recompressed", g.Process(0), r.Process(0))
	if r.Stats().Nodes != g.Stats().Nodes {
		t.Fatalf("%d nodes, was %d", r.Stats().Nodes, g.Stats().Nodes)
	}
}

// A graph's own nodes are all reachable: Stats' count without a walk
// equals the walk's.
func TestStatsWithoutWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for range 40 {
		procs := []*trace.Process{randProc(rng, 3, 10, 1), randProc(rng, 3, 10, 1), randProc(rng, 3, 10, 1)}
		b := []Bounds{Lossless, {Abs: 20, Rel: 0.2}}[rng.IntN(2)]
		g := BuildTrace(traceOf(8, procs...), b)
		for _, h := range []*Graph{g, Merge(g.Loc(1), g.Loc(2)), g.Recompress(Unlimited)} {
			n, m := h.reachable()
			if s := h.Stats(); s.Nodes != n || s.Bytes != m+locationBytes(h.locs) {
				t.Fatalf("Stats %d nodes %d bytes, reachable %d %d", s.Nodes, s.Bytes, n, m)
			}
		}
	}
}
