package waits_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	_ "github.com/tracebook/tracebook/builtins/internal/timeline"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/waits"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// slowRun is a generated SPMD run (halo exchange with MPI_Irecv/MPI_Isend/
// MPI_Waitall, an MPI_Allreduce per iteration) whose rank slow computes
// factor times longer.
func slowRun(ranks, iters, slow int, factor float64) *trace.Trace {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations, cfg.Threads = ranks, iters, 0
	cfg.SlowRank, cfg.SlowFactor = slow, factor
	return synth.Generate(cfg)
}

// The slow rank causes late-sender waits on its neighbours (it posts its
// sends last, so they wait in MPI_Waitall), every other rank waits for the
// last to enter MPI_Allreduce, and the critical path runs through the
// slow rank's kernels.
func TestSlowRankCausesTheWaits(t *testing.T) {
	const ranks, slow = 8, 3
	r := waits.Analyze(slowRun(ranks, 10, slow, 2))
	lsBy := map[int32]int64{}
	var nxn int64
	for _, in := range r.InstanceRows() {
		switch in.Kind {
		case waits.LateSender:
			lsBy[in.Culprit] += in.Wait
			if in.Process != slow-1 && in.Process != slow+1 && in.Culprit == slow {
				t.Errorf("rank %d waits for the slow rank in a late sender but is not its neighbour", in.Process)
			}
		case waits.WaitAtNxN:
			nxn += in.Wait
		}
	}
	var most int32 = -1
	for c, w := range lsBy {
		if most < 0 || w > lsBy[most] {
			most = c
		}
	}
	if most != slow {
		t.Errorf("late senders caused most by rank %d (%v), want the slow rank %d", most, lsBy, slow)
	}
	if nxn == 0 {
		t.Error("no wait at N×N in MPI_Allreduce")
	}
	var onSlow int64
	for _, s := range r.SegmentRows() {
		if s.Process == slow {
			onSlow += s.End - s.Start
		}
	}
	if onSlow*2 < r.PathLength() {
		t.Errorf("the slow rank holds %d of the critical path's %d ns, want most", onSlow, r.PathLength())
	}
}

// invariants checks what holds on any trace: the segments touch and sum to
// the path's length, the path's time per call path sums to it too, every
// wait lies in its call, and the delay costs with the waiting they could
// not attribute add up to the waits that have a culprit.
func invariants(t *testing.T, name string, r *waits.Result) {
	t.Helper()
	segs := r.SegmentRows()
	var sum int64
	for i, s := range segs {
		if s.End < s.Start {
			t.Errorf("%s: segment %d runs backward: %+v", name, i, s)
		}
		if i > 0 && segs[i-1].End != s.Start {
			t.Errorf("%s: segments %d and %d do not touch: %+v %+v", name, i-1, i, segs[i-1], s)
		}
		sum += s.End - s.Start
	}
	if sum != r.PathLength() {
		t.Errorf("%s: segments sum to %d, PathLength %d", name, sum, r.PathLength())
	}
	cp := r.CriticalPath()
	var byPath int64
	for _, v := range int64Column(t, cp, "Path (ns)") {
		byPath += v
	}
	if byPath != r.PathLength() {
		t.Errorf("%s: CriticalPath's rows sum to %d, PathLength %d", name, byPath, r.PathLength())
	}
	var culprit [waits.NumKinds]int64
	for _, in := range r.InstanceRows() {
		if in.Wait <= 0 || in.Wait > in.Leave-in.Enter {
			t.Errorf("%s: wait %d outside its call [%d, %d]: %+v", name, in.Wait, in.Enter, in.Leave, in)
		}
		if in.Kind.HasCulprit() != (in.Culprit >= 0) {
			t.Errorf("%s: %v with culprit %d", name, in.Kind, in.Culprit)
		}
		if in.Kind.HasCulprit() && !in.Clipped {
			culprit[in.Kind] += in.Wait
		}
	}
	var delay, unattributed, waiting int64
	for _, d := range r.DelayRows() {
		delay += d.Cost
	}
	for k := range culprit {
		unattributed += r.Unattributed(waits.Kind(k))
		waiting += culprit[k]
	}
	if delay+unattributed != waiting {
		t.Errorf("%s: delay costs %d + unattributed %d != waits with a culprit %d", name, delay, unattributed, waiting)
	}
	var byLoc int64
	for _, v := range int64Column(t, r.Processes(), "Delay Cost (ns)") {
		byLoc += v
	}
	if byLoc != delay {
		t.Errorf("%s: delay costs per location sum to %d, per call path to %d", name, byLoc, delay)
	}
}

func int64Column(t *testing.T, tb interface{ Int64s(string) ([]int64, error) }, name string) []int64 {
	t.Helper()
	v, err := tb.Int64s(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestInvariants(t *testing.T) {
	traces := map[string]*trace.Trace{"slow": slowRun(6, 5, 2, 3), "balanced": slowRun(5, 4, -1, 1)}
	for _, path := range []string{"../../test/data/traces/ping-pong-otf2/traces.otf2", "../../test/data/split-comm/traces.otf2",
		"../../test/data/traces/csv/ping-pong-csv.csv"} {
		tr, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		traces[path] = tr
	}
	hy := synth.HybridGPUConfig(3, 2, 4)
	traces["hybrid"] = synth.Generate(hy)
	for name, tr := range traces {
		invariants(t, name, waits.Analyze(tr))
	}
}

// The per-location part merged from any split gives the analysis of the
// whole trace (the contract suite checks the partials; this checks what
// Analyze makes of them).
func TestReplayOfMergedParts(t *testing.T) {
	tr := slowRun(7, 4, 5, 2)
	whole := waits.Analyze(tr)
	rng := rand.New(rand.NewPCG(3, 4))
	procs := tr.Processes()
	for range 5 {
		perm := rng.Perm(len(procs))
		cut := 1 + rng.IntN(len(procs)-1)
		var a, b []*trace.Process
		for i, j := range perm {
			if i < cut {
				a = append(a, procs[j])
			} else {
				b = append(b, procs[j])
			}
		}
		m := waits.Method()
		pa, err := m.Compute(tr, a, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := m.Compute(tr, b, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := part.Encode(m, 0, pb)
		if err != nil {
			t.Fatal(err)
		}
		if pb, err = part.Decode(m, 0, enc); err != nil {
			t.Fatal(err)
		}
		if err := pb.Merge(pa); err != nil {
			t.Fatal(err)
		}
		got := waits.Replay(tr, pb.(*waits.Calls))
		if got.String() != whole.String() || !reflect.DeepEqual(got.InstanceRows(), whole.InstanceRows()) ||
			!reflect.DeepEqual(got.DelayRows(), whole.DelayRows()) || !reflect.DeepEqual(got.SegmentRows(), whole.SegmentRows()) {
			t.Fatalf("split %v: the replay of the merged parts differs:\n%s\n%s", perm[:cut], got, whole)
		}
	}
}

// A damaged partial is an error of Decode, never a panic of the replay.
func TestDamagedPartial(t *testing.T) {
	tr := slowRun(3, 2, -1, 1)
	m := waits.Method()
	p, err := m.Compute(tr, tr.Processes(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	refused := 0
	for range 300 {
		c := append([]byte(nil), b...)
		for range 1 + rng.IntN(4) {
			c[rng.IntN(len(c))] = byte(rng.IntN(256))
		}
		if rng.IntN(4) == 0 {
			c = c[:rng.IntN(len(c))]
		}
		q, err := m.Decode(0, c)
		if err != nil {
			refused++
			continue
		}
		// decoded: the replay must not panic
		if err := work.Try(func() { waits.Replay(tr, q.(*waits.Calls)) }); err != nil {
			var we *work.Error
			if !errors.As(err, &we) {
				t.Fatalf("replay of a damaged partial: %v", err)
			}
		}
	}
	if refused == 0 {
		t.Error("no damaged partial was refused")
	}
}

func TestBadArguments(t *testing.T) {
	err := work.Try(func() { waits.Analyze(nil) })
	var we *work.Error
	if !errors.As(err, &we) || we.Func != "waits.Analyze" {
		t.Fatalf("Analyze(nil): %v", err)
	}
	err = work.Try(func() { waits.Replay(slowRun(2, 1, -1, 1), nil) })
	if !errors.As(err, &we) || we.Func != "waits.Replay" {
		t.Fatalf("Replay(tr, nil): %v", err)
	}
}

// Analyze stops when the cell is interrupted.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large run")
	}
	tr := slowRun(32, 400, 3, 2)
	out := worktest.Interrupt(t, 20*time.Millisecond, 10*time.Second, func() { waits.Analyze(tr) })
	if out.Finished {
		t.Skip("finished before the interrupt")
	}
	err, _ := out.Panic.(error)
	if !errors.Is(err, work.ErrInterrupted) {
		t.Fatalf("interrupted Analyze panicked with %v, want work.ErrInterrupted", out.Panic)
	}
	t.Logf("stopped %v after the interrupt", out.Latency)
}

// The critical path is shaded on the timeline, one shade per segment on its
// location's lane, covering the segment.
func TestTimelineShadesThePath(t *testing.T) {
	tr, err := trace.Load("../../test/data/traces/ping-pong-otf2/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	r := waits.Analyze(tr)
	lt := r.Timeline()
	plain := tr.Timeline()
	segs := r.SegmentRows()
	shades := lt.Shades[len(plain.Shades):]
	if len(segs) == 0 || len(shades) != len(segs) {
		t.Fatalf("%d shades for %d segments", len(shades), len(segs))
	}
	for i, s := range segs {
		sh := shades[i]
		if lt.Lanes[sh.Lane].Name != tr.Process(int(s.Process)).Label() || sh.Start != s.Start || sh.End != s.End {
			t.Errorf("segment %d %+v shaded as %+v on lane %q", i, s, sh, lt.Lanes[sh.Lane].Name)
		}
	}
}

// The real Score-P ping-pong (two ranks, messages of growing size, no
// collectives): every wait is a late sender or late receiver whose culprit
// is the other rank; most waiting is late receiver in MPI_Send (large
// messages wait for their receive: rendezvous); the critical path
// alternates between the ranks, and without MPI_Init (Main) it is mostly
// main's own time and MPI_Send.
func TestRealPingPong(t *testing.T) {
	tr, err := trace.Load("../../test/data/traces/ping-pong-otf2/traces.otf2")
	if err != nil {
		t.Fatal(err)
	}
	r := waits.Analyze(tr.Main())
	var byKind [waits.NumKinds]int64
	for _, in := range r.InstanceRows() {
		if in.Kind != waits.LateSender && in.Kind != waits.LateReceiver {
			t.Errorf("a %v on a trace without collectives", in.Kind)
		}
		if in.Culprit != 1-in.Process {
			t.Errorf("rank %d waits for %d", in.Process, in.Culprit)
		}
		byKind[in.Kind] += in.Wait
	}
	if byKind[waits.LateReceiver] <= byKind[waits.LateSender] {
		t.Errorf("late receiver %d ns, late sender %d ns: want late receivers to dominate", byKind[waits.LateReceiver], byKind[waits.LateSender])
	}
	if r.Messages != 16 {
		t.Errorf("%d messages matched, want the trace's 16", r.Messages)
	}
	switches := 0
	segs := r.SegmentRows()
	for i := 1; i < len(segs); i++ {
		if segs[i].Process != segs[i-1].Process {
			switches++
		}
	}
	if switches < 8 {
		t.Errorf("the critical path switches ranks %d times, want it to follow the messages back and forth", switches)
	}
	main, send := r.PathTime("int main(int, char**)"), r.PathTime("MPI_Send")
	if main+send < r.PathLength()*9/10 {
		t.Errorf("main %d + MPI_Send %d of a path of %d: want most of it", main, send, r.PathLength())
	}
	invariants(t, "ping-pong main", r)
}

// Every location has its own MPI_COMM_SELF under one definition: its
// collectives synchronise with no one. Rank 0's barrier on it [10,70] and
// rank 1's [60,62] after computing [5,55] are no instance of one barrier.
func TestCommSelfSynchronisesNoOne(t *testing.T) {
	ls := mains(100, 100)
	ls[0].call(rBarrier, 10, 70)
	ls[0].comm = 1
	ls[0].coll(11, 69, 0, trace.RootNone, 0, 0)
	ls[1].call(rCompute, 5, 55)
	ls[1].call(rBarrier, 60, 62)
	ls[1].comm = 1
	ls[1].coll(61, 61, 0, trace.RootNone, 0, 0)
	tr := buildTrace(simNames, ls)
	d := tr.Defs
	d.Groups = append(d.Groups, trace.Group{Name: "self", Type: "comm_self", Members: []uint64{0}})
	d.Comms = append(d.Comms[:1], trace.Comm{Name: "MPI_COMM_SELF", Group: int32(len(d.Groups) - 1), Parent: -1})
	r := waits.Analyze(tr)
	if n := len(r.InstanceRows()); n != 0 {
		t.Errorf("%d wait states on MPI_COMM_SELF: %+v", n, r.InstanceRows())
	}
	if len(r.DelayRows()) != 0 || r.Collectives != 0 {
		t.Errorf("delays %v, %d collective instances: want none", r.DelayRows(), r.Collectives)
	}
	invariants(t, "comm self", r)
}

// The delay analysis splits its waits among the cores: with more cores than
// a few waits (8 workers for 10 waits) every wait is still counted once.
func TestDelaysOnManyCores(t *testing.T) {
	ls := mains(1000, 1000)
	for k := range int64(10) {
		at := 10 + 80*k
		ls[0].call(rCompute, at, at+40)
		ls[0].call(rSend, at+50, at+52)
		ls[0].send(trace.MpiSend, at+51, 1, 0, 0)
		ls[1].call(rRecv, at+5, at+60)
		ls[1].send(trace.MpiRecv, at+59, 0, 0, 0)
	}
	tr := buildTrace(simNames, ls)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	r := waits.Analyze(tr)
	if n := len(r.InstanceRows()); n != 10 {
		t.Fatalf("%d late senders, want 10", n)
	}
	invariants(t, "10 waits on 8 cores", r)
}

// A record whose side-table row is missing (a hand-made trace) is no
// message: Analyze and the timeline (profile.Messages) skip it.
func TestRecordWithoutRow(t *testing.T) {
	ls := mains(100, 100)
	ls[0].call(rSend, 10, 20)
	ls[0].send(trace.MpiSend, 15, 1, 0, 0)
	ls[1].call(rRecv, 5, 30)
	ls[1].send(trace.MpiRecv, 25, 0, 0, 0)
	tr := buildTrace(simNames, ls)
	p := tr.Process(0)
	for i, k := range p.Kind {
		if k == trace.MpiSend {
			p.Ref[i] = 99
		}
	}
	if err := work.Try(func() {
		r := waits.Analyze(tr)
		if r.Messages != 0 {
			t.Errorf("%d messages matched with the send's row missing", r.Messages)
		}
		r.Timeline()
		invariants(t, "record without row", r)
	}); err != nil {
		t.Fatal(err)
	}
}

// Every table's columns follow the notebook vocabulary (docs/surface.md).
func TestColumnNames(t *testing.T) {
	r := waits.Analyze(slowRun(6, 3, 2, 2))
	for _, c := range []struct {
		name   string
		tb     *arrowio.Table
		points []string
	}{{"Table", r.Table(), nil}, {"Instances", r.Instances(), []string{"Enter (ns)", "Leave (ns)", "Culprit Enter (ns)"}},
		{"Processes", r.Processes(), nil}, {"Delays", r.Delays(), nil}, {"CriticalPath", r.CriticalPath(), nil},
		{"Segments", r.Segments(), []string{"Start (ns)", "End (ns)"}}} {
		if err := arrowio.CheckColumnNames(c.tb, c.points...); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := r.Processes().Int64s("Wait at N×N (ns)"); err != nil {
		t.Errorf("Processes: %v", err)
	}
}
