package timeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/fold"
	"github.com/tracebook/tracebook/builtins/internal/tooltest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
	"github.com/tracebook/tracebook/plotting"
)

func load(t *testing.T, dir string) (*trace.Trace, string) {
	t.Helper()
	anchor := filepath.Join(tooltest.Traces(), dir, "traces.otf2")
	tr, err := trace.Load(anchor)
	if err != nil {
		t.Fatal(err)
	}
	return tr, anchor
}

// record is one event line of otf2-print: record name, location, time in ticks, the rest.
type record struct {
	kind string
	loc  int
	tick uint64
	rest string
}

var recordLine = regexp.MustCompile(`^(\S+)\s+(\d+)\s+(\d+)\s+(.*)$`)

// otf2Print runs otf2-print (the reference reader) on anchor: its event records and its
// clock (ticks per second, global offset).
func otf2Print(t *testing.T, anchor string) (recs []record, res, offset uint64) {
	t.Helper()
	bin := tooltest.RequireBinary(t, "otf2-print")
	out, err := exec.Command(bin, anchor).Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := recordLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		loc, err1 := strconv.Atoi(m[2])
		tick, err2 := strconv.ParseUint(m[3], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		recs = append(recs, record{m[1], loc, tick, m[4]})
	}
	defs, err := exec.Command(bin, "-G", anchor).Output()
	if err != nil {
		t.Fatal(err)
	}
	cm := regexp.MustCompile(`Ticks per Seconds: (\d+), Global Offset: (\d+)`).FindSubmatch(defs)
	if cm == nil {
		t.Fatal("otf2-print -G shows no CLOCK_PROPERTIES")
	}
	res, _ = strconv.ParseUint(string(cm[1]), 10, 64)
	offset, _ = strconv.ParseUint(string(cm[2]), 10, 64)
	return recs, res, offset
}

// ns converts ticks as the model defines time: (ticks - offset) * 1e9 / res, truncated.
func ns(tick, res, offset uint64) int64 {
	d := new(big.Int).Sub(new(big.Int).SetUint64(tick), new(big.Int).SetUint64(offset))
	d.Mul(d, big.NewInt(1e9))
	d.Quo(d, new(big.Int).SetUint64(res))
	return d.Int64()
}

func lanesOf(lt *plotting.LiveTimeline, kind plotting.LaneKind) []plotting.LiveLane {
	var out []plotting.LiveLane
	for _, l := range lt.Lanes {
		if l.Kind == kind {
			out = append(out, l)
		}
	}
	return out
}

// On the ping-pong trace: one calls lane per rank with one bar per Enter record otf2-print
// shows, and the 8 messages each way with the send and receive times and bytes of its MPI_SEND
// and MPI_RECV records (paired in order per sender, receiver and tag).
func TestPingPong(t *testing.T) {
	tr, anchor := load(t, "ping-pong-otf2")
	recs, res, off := otf2Print(t, anchor)
	lt := tr.Timeline()
	calls := lanesOf(lt, plotting.LaneCalls)
	if len(calls) != 2 || len(lt.Lanes) != 2 || calls[0].Name != "rank 0" || calls[1].Name != "rank 1" {
		t.Fatalf("lanes %v, want rank 0 and rank 1", laneNames(lt))
	}
	enters := map[int]int{}
	for _, r := range recs {
		if r.kind == "ENTER" {
			enters[r.loc]++
		}
	}
	for i, l := range calls {
		if len(l.Bars) != enters[i] || len(l.Bars) != tr.Process(i).CallTree().Len()-1 {
			t.Errorf("%s: %d bars, want %d (ENTER records) = call-tree nodes %d", l.Name, len(l.Bars), enters[i], tr.Process(i).CallTree().Len()-1)
		}
		for _, b := range l.Bars {
			if b.End < b.Start || b.Start < lt.Start || b.End > lt.End || b.Label == "" {
				t.Errorf("%s: bad bar %+v in [%d, %d]", l.Name, b, lt.Start, lt.End)
			}
		}
	}
	// the expected messages: k-th send (from, to, tag) with the k-th receive
	type key struct{ from, to, tag int }
	type msg struct{ send, bytes int64 }
	sends, recvs := map[key][]msg{}, map[key][]int64{}
	peer := regexp.MustCompile(`(Receiver|Sender): (\d+) .*Tag: (\d+), Length: (\d+)`)
	var order []key
	for _, r := range recs {
		if r.kind != "MPI_SEND" && r.kind != "MPI_RECV" {
			continue
		}
		m := peer.FindStringSubmatch(r.rest)
		if m == nil {
			t.Fatalf("cannot parse %q", r.rest)
		}
		p, _ := strconv.Atoi(m[2])
		tag, _ := strconv.Atoi(m[3])
		n, _ := strconv.ParseInt(m[4], 10, 64)
		if r.kind == "MPI_SEND" {
			k := key{r.loc, p, tag}
			if _, ok := sends[k]; !ok {
				order = append(order, k)
			}
			sends[k] = append(sends[k], msg{send: ns(r.tick, res, off), bytes: n})
		} else {
			k := key{p, r.loc, tag}
			recvs[k] = append(recvs[k], ns(r.tick, res, off))
		}
	}
	var want []plotting.LiveMessage
	perDir := map[[2]int]int{}
	for _, k := range order {
		for i, s := range sends[k] {
			if i >= len(recvs[k]) {
				t.Fatalf("send %d of %v has no receive in otf2-print", i, k)
			}
			want = append(want, plotting.LiveMessage{From: k.from, To: k.to, Send: s.send, Recv: recvs[k][i], Bytes: s.bytes, Tag: int32(k.tag), Comm: "MPI_COMM_WORLD"})
			perDir[[2]int{k.from, k.to}]++
		}
	}
	if perDir[[2]int{0, 1}] != 8 || perDir[[2]int{1, 0}] != 8 {
		t.Fatalf("otf2-print shows %v messages per direction, want 8 each", perDir)
	}
	got := map[plotting.LiveMessage]int{}
	for _, m := range lt.Messages {
		got[m]++
	}
	for _, m := range want {
		if got[m] == 0 {
			t.Errorf("message %+v of otf2-print not in the timeline", m)
		}
		got[m]--
	}
	if len(lt.Messages) != len(want) {
		t.Errorf("%d messages, want %d", len(lt.Messages), len(want))
	}
}

func laneNames(lt *plotting.LiveTimeline) []string {
	var s []string
	for _, l := range lt.Lanes {
		s = append(s, fmt.Sprintf("%s(%d)", l.Name, l.Kind))
	}
	return s
}

// The PAPI counters Score-P records on each rank are counter lanes after the rank's lane, one
// per counter, with one sample per METRIC record of otf2-print on that location and its values.
func TestPAPICounters(t *testing.T) {
	tr, anchor := load(t, "ping-pong-otf2-papi")
	recs, res, off := otf2Print(t, anchor)
	lt := tr.Timeline()
	val := regexp.MustCompile(`\("([^"]+)" <\d+>; \w+; ([-0-9.e+]+)\)`)
	want := map[string][]plotting.LiveSample{} // "rank 0 · PAPI_TOT_CYC"
	for _, r := range recs {
		if r.kind != "METRIC" {
			continue
		}
		for _, m := range val.FindAllStringSubmatch(r.rest, -1) {
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("rank %d · %s", r.loc, m[1])
			want[name] = append(want[name], plotting.LiveSample{Time: ns(r.tick, res, off), Value: v})
		}
	}
	// units and modes of the members, from otf2-print -G
	defs, err := exec.Command(tooltest.RequireBinary(t, "otf2-print"), "-G", anchor).Output()
	if err != nil {
		t.Fatal(err)
	}
	unit, accumulated := map[string]string{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`METRIC_MEMBER .*Name: "([^"]+)".*Mode: (\w+),.*Unit: "([^"]*)"`).FindAllStringSubmatch(string(defs), -1) {
		unit[m[1]], accumulated[m[1]] = m[3], strings.HasPrefix(m[2], "ACCUMULATED")
	}
	counters := lanesOf(lt, plotting.LaneCounter)
	for _, l := range counters {
		name := l.Name[strings.Index(l.Name, " · ")+len(" · "):]
		if l.Unit != unit[name] || strings.Contains(l.Info, "accumulated") != accumulated[name] || !accumulated[name] {
			t.Errorf("%s: unit %q, info %q; otf2-print: unit %q, accumulated %v", l.Name, l.Unit, l.Info, unit[name], accumulated[name])
		}
	}
	if len(counters) != len(want) || len(want) != 6 {
		t.Fatalf("counter lanes %v, want %d (otf2-print)", laneNames(lt), len(want))
	}
	for _, l := range counters {
		w := want[l.Name]
		if len(l.Samples) != len(w) {
			t.Errorf("%s: %d samples, want %d", l.Name, len(l.Samples), len(w))
			continue
		}
		for i := range w {
			if l.Samples[i] != w[i] {
				t.Errorf("%s sample %d: %+v, want %+v", l.Name, i, l.Samples[i], w[i])
				break
			}
		}
	}
	if lt.Lanes[0].Name != "rank 0" || lt.Lanes[1].Kind != plotting.LaneCounter || lt.Lanes[4].Name != "rank 1" {
		t.Errorf("lane order %v: each rank then its counters", laneNames(lt))
	}
}

// The metric streams' samples are counter lanes, one per stream and metric, with the samples of
// tr.MetricSamples() and their unit; the rank with measurement off has its intervals shaded.
func TestMetricStreams(t *testing.T) {
	tr, _ := load(t, "metric-streams")
	lt := tr.Timeline()
	tb := tr.MetricSamples()
	streams, err1 := tb.Strings("Stream")
	metrics, err2 := tb.Strings("Metric")
	units, err3 := tb.Strings("Unit")
	stamps, err4 := tb.Int64s("Timestamp (ns)")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	unit := map[string]string{}
	first := map[string]int64{}
	for i := range streams {
		k := streams[i] + " · " + metrics[i]
		if _, ok := want[k]; !ok {
			first[k] = stamps[i]
		}
		want[k]++
		unit[k] = units[i]
	}
	got := map[string]int{}
	own := map[string]bool{} // the processes' own counters
	for _, p := range tr.Processes() {
		for i, k := range p.Kind {
			if k == trace.Metric {
				for _, m := range tr.Defs.MetricClasses[p.Metrics.Metric[p.Ref[i]]].Members {
					own[p.Label()+" · "+tr.Defs.MetricMembers[m].Name] = true
				}
			}
		}
	}
	for _, l := range lanesOf(lt, plotting.LaneCounter) {
		if own[l.Name] {
			continue
		}
		got[l.Name] += len(l.Samples)
		if l.Unit != unit[l.Name] {
			t.Errorf("%s: unit %q, want %q", l.Name, l.Unit, unit[l.Name])
		}
		if len(l.Samples) > 0 && l.Samples[0].Time != first[l.Name] {
			t.Errorf("%s: first sample at %d, want %d", l.Name, l.Samples[0].Time, first[l.Name])
		}
	}
	if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("samples per counter lane %v, want %v", got, want)
	}
	var off int
	for _, p := range tr.Processes() {
		off += len(p.MeasurementOffIntervals())
	}
	if off == 0 || len(lt.Shades) != off {
		t.Errorf("%d shades, want the %d measurement-off intervals", len(lt.Shades), off)
	}
	for _, s := range lt.Shades {
		if lt.Lanes[s.Lane].Name != "rank 1" || s.End <= s.Start {
			t.Errorf("shade %+v on %s", s, lt.Lanes[s.Lane].Name)
		}
	}
	// a window inside an off interval is shaded whole (its own events start with the
	// MeasurementOn that ends the interval)
	iv := tr.Process(1).MeasurementOffIntervals()[0]
	wa, wb := iv.Start+(iv.End-iv.Start)/4, iv.End+1
	ws := tr.Window(time.Duration(wa), time.Duration(wb)).Timeline().Shades
	if len(ws) != 1 || ws[0].Start != wa || ws[0].End != iv.End {
		t.Errorf("window [%d, %d) inside the off interval %v: shades %+v", wa, wb, iv, ws)
	}
	// a window keeps the samples inside it
	a, b := lt.Start+(lt.End-lt.Start)/3, lt.Start+(lt.End-lt.Start)/2
	inside := 0
	for _, ts := range stamps {
		if ts >= a && ts <= b {
			inside++
		}
	}
	n := 0
	for _, l := range lanesOf(tr.Window(time.Duration(a), time.Duration(b)).Timeline(), plotting.LaneCounter) {
		if own[l.Name] {
			continue
		}
		for _, s := range l.Samples {
			if s.Time < a || s.Time > b {
				t.Errorf("%s: sample at %d outside the window [%d, %d]", l.Name, s.Time, a, b)
			}
			n++
		}
	}
	if inside == 0 || n != inside {
		t.Errorf("window: %d stream samples, want %d", n, inside)
	}
}

// A window's timeline has only bars inside the window, one per node of the window's call trees.
func TestWindow(t *testing.T) {
	tr, _ := load(t, "ping-pong-otf2")
	d := tr.Duration()
	a, b := d/3, d/2
	w := tr.Window(time.Duration(a), time.Duration(b))
	lt := w.Timeline()
	if lt.Start != a || lt.End != b {
		t.Errorf("range [%d, %d], want the window [%d, %d]", lt.Start, lt.End, a, b)
	}
	full := tr.Timeline()
	for i, l := range lanesOf(lt, plotting.LaneCalls) {
		if len(l.Bars) != w.Process(i).CallTree().Len()-1 || len(l.Bars) >= len(full.Lanes[i].Bars) {
			t.Errorf("%s: %d bars, want %d of the window (of %d)", l.Name, len(l.Bars), w.Process(i).CallTree().Len()-1, len(full.Lanes[i].Bars))
		}
		for _, x := range l.Bars {
			if x.Start < a || x.End > b {
				t.Errorf("%s: bar %+v outside the window [%d, %d]", l.Name, x, a, b)
			}
		}
	}
	for _, m := range lt.Messages {
		if m.Send < a || m.Recv >= b {
			t.Errorf("message %+v outside the window", m)
		}
	}
	top := w.Timeline(trace.WithTopLevel())
	for _, l := range top.Lanes {
		for _, x := range l.Bars {
			if x.Level != 0 {
				t.Fatalf("WithTopLevel: bar %+v at level %d", x, x.Level)
			}
		}
	}
}

// genWide writes an spmd run of n ranks with the reference library.
func genWide(t *testing.T, n int) *trace.Trace {
	t.Helper()
	anchor, _ := tooltest.Generate(t, t.TempDir(), "spmd", "--procs", strconv.Itoa(n), "--iters", "3", "--noise", "1", "--seed", "3")
	tr, err := trace.Load(anchor)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// pixel is the start of column x of width over [t0, t1), as the fold's grid.
func pixel(t0, t1 int64, width, x int) int64 {
	hi, lo := bits.Mul64(uint64(t1-t0), uint64(x))
	q, _ := bits.Div64(hi, lo, uint64(width))
	return t0 + int64(q)
}

// innermost is p's innermost call at t by brute force: the deepest call-tree node with
// Enter <= t < Leave, its region, or -1.
func innermost(ct *trace.CallTree, t int64) int32 {
	best, depth := int32(-1), int32(0)
	for i := 1; i < ct.Len(); i++ {
		if ct.Enter[i] <= t && t < ct.Leave[i] && ct.Depth[i] > depth {
			best, depth = ct.Region[i], ct.Depth[i]
		}
	}
	return best
}

// Above 64 ranks: strips of groups whose bars are, per column, the majority of the members'
// innermost regions (ties to the smaller region id, outside every call last), by brute force;
// WithExpand shows a group's members in place.
func TestFolded(t *testing.T) {
	tr := genWide(t, 80)
	for _, size := range []int{0, 5} {
		lt := tr.Timeline(trace.WithGroupSize(size))
		g := size
		if g == 0 {
			g = 2
		}
		strips := lanesOf(lt, plotting.LaneFolded)
		if len(strips) != 80/g || len(lt.Lanes) != 80/g || len(lt.Notes) == 0 {
			t.Fatalf("group size %d: lanes %v, want %d strips", size, laneNames(lt), 80/g)
		}
		for s, l := range strips {
			var cts []*trace.CallTree
			for j := s * g; j < (s+1)*g; j++ {
				cts = append(cts, tr.Process(j).CallTree())
			}
			for x := range FoldColumns {
				at := pixel(lt.Start, lt.End, FoldColumns, x)
				count := map[int32]int{}
				for _, ct := range cts {
					count[innermost(ct, at)]++
				}
				best, bc := int32(-1), -1
				for r, c := range count {
					better := c > bc || c == bc && (best == -1 || r != -1 && r < best)
					if better {
						best, bc = r, c
					}
				}
				label := ""
				for _, b := range l.Bars {
					if b.Start <= at && at < b.End {
						label = b.Label
					}
				}
				if want := tr.RegionName(best); label != want {
					t.Fatalf("group size %d, %s column %d (t=%d): %q, want %q (counts %v)", size, l.Name, x, at, label, want, count)
				}
			}
		}
	}
	// messages between strips; none inside one
	lt := tr.Timeline(trace.WithGroupSize(5))
	for _, m := range lt.Messages {
		if m.From == m.To {
			t.Fatalf("message %+v inside a strip", m)
		}
	}
	// expand group 3: its 5 members in place of its strip
	ex := tr.Timeline(trace.WithGroupSize(5), trace.WithExpand(3))
	if len(ex.Lanes) != 16-1+5 {
		t.Fatalf("expanded: %d lanes, want 20", len(ex.Lanes))
	}
	for k := range 5 {
		l := ex.Lanes[3+k]
		p := tr.Process(15 + k)
		if l.Kind != plotting.LaneCalls || l.Name != p.Label() || len(l.Bars) != p.CallTree().Len()-1 {
			t.Errorf("lane %d: %s (%d) with %d bars, want %s with %d", 3+k, l.Name, l.Kind, len(l.Bars), p.Label(), p.CallTree().Len()-1)
		}
	}
	if ex.Lanes[2].Kind != plotting.LaneFolded || ex.Lanes[8].Kind != plotting.LaneFolded {
		t.Error("the strips around the expanded group are not folded")
	}
	if err := work.Try(func() { tr.Timeline(trace.WithExpand(99)) }); err == nil {
		t.Error("WithExpand(99) accepted")
	}
	// a window of the folded timeline: strips and expanded lanes inside it
	a, b := lt.Start+(lt.End-lt.Start)/4, lt.Start+(lt.End-lt.Start)/3
	w := tr.Window(time.Duration(a), time.Duration(b)).Timeline(trace.WithGroupSize(5), trace.WithExpand(0))
	if w.Start != a || w.End != b || len(lanesOf(w, plotting.LaneFolded)) != 15 {
		t.Fatalf("window: [%d, %d] with lanes %v", w.Start, w.End, laneNames(w))
	}
	bars := 0
	for _, l := range w.Lanes {
		for _, x := range l.Bars {
			if x.Start < a || x.End > b {
				t.Fatalf("window: %s bar %+v outside [%d, %d]", l.Name, x, a, b)
			}
			bars++
		}
	}
	if bars == 0 {
		t.Error("window: no bars")
	}
}

// The states of the strips are fold's (a cross-check of the grid with another fold).
func TestFoldedAgreesWithFold(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 70, 3
	tr := synth.Generate(cfg)
	lt := tr.Timeline(trace.WithGroupSize(7))
	for s, l := range lanesOf(lt, plotting.LaneFolded) {
		f := fold.Timeline(tr, fold.Max, FoldColumns, fold.WithProcesses(tr.Processes()[s*7:(s+1)*7]...), fold.WithRange(lt.Start, lt.End))
		for x, st := range f.State {
			a, _ := f.Pixel(x)
			label := ""
			for _, b := range l.Bars {
				if b.Start <= a && a < b.End {
					label = b.Label
				}
			}
			if want := tr.RegionName(st); st != fold.NoState && label != want || st == fold.NoState && label != "" {
				t.Fatalf("%s column %d: %q, want %q", l.Name, x, label, want)
			}
		}
	}
}

// Collectives are markers on the lanes of their locations; a skeleton is refused.
func TestCollectivesAndErrors(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	tr := synth.Generate(cfg)
	lt := tr.Timeline()
	want := 0
	for _, p := range tr.Processes() {
		for _, k := range p.Kind {
			if k == trace.MpiCollectiveEnd {
				want++
			}
		}
	}
	if want == 0 || len(lt.Markers) != want {
		t.Errorf("%d markers, want %d collectives", len(lt.Markers), want)
	}
	for _, m := range lt.Markers {
		if m.End < m.Start || m.Label == "" || lt.Lanes[m.Lane].Kind != plotting.LaneCalls {
			t.Errorf("marker %+v", m)
		}
	}
	err := work.Try(func() { tr.Skeleton().Timeline() })
	var e *Error
	if !errors.As(err, &e) || e.Func != "trace.Timeline" {
		t.Errorf("skeleton: %v, want an *Error of trace.Timeline", err)
	}
	// a skeleton with the events of one process brought here: that process, no messages
	sk := tr.Skeleton()
	sk.Process(1).SetEvents(tr.Process(1))
	one := sk.Timeline(trace.WithProcesses(sk.Process(1)))
	if len(one.Lanes) != 1 || len(one.Lanes[0].Bars) != tr.Process(1).CallTree().Len()-1 || len(one.Messages) != 0 || len(one.Notes) < 2 {
		t.Errorf("a fetched process of a skeleton: lanes %v, %d messages, notes %q", laneNames(one), len(one.Messages), one.Notes)
	}
	if err := work.Try(func() { sk.Timeline() }); !errors.As(err, &e) || !strings.Contains(err.Error(), "rank 0") {
		t.Errorf("skeleton with remote processes: %v", err)
	}
	other := synth.Generate(cfg)
	for name, bad := range map[string]trace.TimelineOption{
		"foreign process": trace.WithProcesses(other.Process(0)),
		"negative budget": trace.WithBudget(-1),
		"group size":      trace.WithGroupSize(-2),
		"expand unfolded": trace.WithExpand(0),
	} {
		err := work.Try(func() { tr.Timeline(bad) })
		if !errors.As(err, &e) || e.Func != "trace.Timeline" {
			t.Errorf("%s: %v, want an *Error of trace.Timeline", name, err)
		}
	}
	sub := tr.Timeline(trace.WithProcesses(tr.Process(1), tr.Process(2)))
	if len(lanesOf(sub, plotting.LaneCalls)) != 2 {
		t.Errorf("WithProcesses: lanes %v", laneNames(sub))
	}
	for _, m := range sub.Messages {
		if m.From < 0 || m.From >= len(sub.Lanes) || m.To < 0 || m.To >= len(sub.Lanes) {
			t.Errorf("message %+v to a lane not shown", m)
		}
	}
}

// A long build stops at an interrupt with an *Error of trace.Timeline wrapping
// work.ErrInterrupted.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a large trace")
	}
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Depth, cfg.Fanout = 16, 4000, 2, 4
	tr := synth.Generate(cfg)
	out := worktest.Interrupt(t, 20*time.Millisecond, 10*time.Second, func() { tr.Timeline() })
	if out.Finished {
		t.Skip("finished before the interrupt (machine too fast for this input)")
	}
	err, _ := out.Panic.(error)
	var e *Error
	if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &e) || e.Func != "trace.Timeline" {
		t.Fatalf("interrupted build panicked with %#v", out.Panic)
	}
	t.Logf("stopped %v after the interrupt", out.Latency)
}

// GPU streams are accelerator lanes named by their place, with one bar per kernel; a
// collective's marker names its operation, communicator and bytes as the trace records them.
func TestAcceleratorsAndCollectiveLabels(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.GPUs, cfg.Streams = 2, 2
	tr := synth.Generate(cfg)
	lt := tr.Timeline()
	var want []string
	for _, p := range tr.Processes() {
		if gpu, _, _ := p.Place(); gpu {
			want = append(want, p.Label())
		}
	}
	acc := lanesOf(lt, plotting.LaneAccelerator)
	if len(want) != 4 || len(acc) != len(want) {
		t.Fatalf("accelerator lanes %v, want %v", laneNames(lt), want)
	}
	for i, l := range acc {
		p := tr.Processes()[len(tr.Processes())-len(want)+i]
		if l.Name != want[i] || len(l.Bars) != p.CallTree().Len()-1 || len(l.Bars) == 0 {
			t.Errorf("%s: %d bars, want %s with %d", l.Name, len(l.Bars), want[i], p.CallTree().Len()-1)
		}
	}
	k := 0
	for _, p := range tr.Processes() {
		for e, kind := range p.Kind {
			if kind != trace.MpiCollectiveEnd {
				continue
			}
			r := p.Ref[e]
			m := lt.Markers[k]
			k++
			op := trace.CollectiveOpName(p.Colls.Op[r])
			if lt.Lanes[m.Lane].Name != p.Label() || m.End != p.Time[e] ||
				!strings.Contains(strings.ToUpper(m.Label), "MPI_"+op+" ") || !strings.Contains(m.Label, tr.Defs.CommName(p.Colls.Comm[r])) {
				t.Fatalf("marker %+v for %s of %s on %s", m, op, tr.Defs.CommName(p.Colls.Comm[r]), p.Label())
			}
		}
	}
}

// Ranks with threads fold by rank: 20 ranks of 4 locations are 20 strips, each holding one
// rank's threads; WithGroupSize counts ranks.
func TestFoldByRank(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Threads, cfg.Iterations = 20, 3, 2
	tr := synth.Generate(cfg)
	if tr.NumProcesses() != 80 {
		t.Fatalf("%d locations, want 80", tr.NumProcesses())
	}
	ranks := map[int32]int{}
	for _, p := range tr.Processes() {
		_, n, _ := p.Place()
		ranks[n]++
	}
	lt := tr.Timeline()
	strips := lanesOf(lt, plotting.LaneFolded)
	if len(strips) != 20 || strips[3].Name != fmt.Sprintf("group 3: rank 3 (%d locations)", ranks[3]) {
		t.Fatalf("strips %v", laneNames(lt))
	}
	lt = tr.Timeline(trace.WithGroupSize(6))
	if s := lanesOf(lt, plotting.LaneFolded); len(s) != 4 || s[3].Name != fmt.Sprintf("group 3: rank 18–19 (%d locations)", ranks[18]+ranks[19]) {
		t.Fatalf("6 ranks per group: %v", laneNames(lt))
	}
}

// Non-blocking messages of a run written by the reference library: from the MpiIsend's time to
// the completion (MpiIrecv) of the receive the MPI order gives it (the k-th send on a channel
// to the k-th receive posted, by MpiIrecvRequest, on it), as otf2gen's expected events say.
func TestNonBlockingMessages(t *testing.T) {
	dir := t.TempDir()
	anchor, exp := tooltest.Generate(t, dir, "spmd", "--procs", "6", "--iters", "3", "--seed", "5")
	tr, err := trace.Load(anchor)
	if err != nil {
		t.Fatal(err)
	}
	_, res, off := otf2Print(t, anchor)
	type ch struct{ from, to, tag int }
	sends := map[ch][]plotting.LiveMessage{}
	type post struct {
		loc int
		req uint64
	}
	posted := map[post]int{} // posting order of each pending receive request
	type recv struct {
		order int
		at    int64
	}
	recvs := map[ch][]recv{}
	n := 0
	for _, e := range exp {
		switch e.Kind {
		case "MpiIsend", "MpiSend":
			k := ch{e.Loc, int(e.Peer), int(e.Tag)}
			sends[k] = append(sends[k], plotting.LiveMessage{From: e.Loc, To: int(e.Peer), Send: ns(e.T, res, off), Bytes: int64(e.Bytes), Tag: int32(e.Tag), Comm: e.Comm})
		case "MpiIrecvRequest":
			posted[post{e.Loc, e.Req}] = n
			n++
		case "MpiIrecv", "MpiRecv":
			order, ok := posted[post{e.Loc, e.Req}]
			if !ok || e.Kind == "MpiRecv" {
				order = n
				n++
			}
			delete(posted, post{e.Loc, e.Req})
			k := ch{int(e.Peer), e.Loc, int(e.Tag)}
			recvs[k] = append(recvs[k], recv{order, ns(e.T, res, off)})
		}
	}
	want := map[plotting.LiveMessage]int{}
	total := 0
	for k, ss := range sends {
		rs := recvs[k]
		slices.SortStableFunc(rs, func(a, b recv) int { return a.order - b.order })
		for i := range min(len(ss), len(rs)) {
			m := ss[i]
			m.Recv = rs[i].at
			want[m]++
			total++
		}
	}
	lt := tr.Timeline()
	if total == 0 || len(lt.Messages) != total {
		t.Fatalf("%d messages, want %d", len(lt.Messages), total)
	}
	for _, m := range lt.Messages {
		if want[m] == 0 {
			t.Fatalf("message %+v is not one of the expected", m)
		}
		want[m]--
	}
}
