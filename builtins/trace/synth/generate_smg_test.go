package synth

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// smgSmall is a small SMG config for the tests: ranks ranks, events
// events per rank, levels levels, a 3 ns tick.
func smgSmall(ranks, events, levels int) SMGConfig {
	cfg := SMG2000Config(ranks, events)
	cfg.Levels, cfg.TickNs, cfg.GridPoints = levels, 3, 16*16*16
	return cfg
}

func mustSMG(t *testing.T, cfg SMGConfig) *trace.Trace {
	t.Helper()
	tr, err := TryGenerateSMG(cfg)
	if err != nil {
		t.Fatalf("%+v: %v", cfg, err)
	}
	return tr
}

func TestGenerateSMGDeterministic(t *testing.T) {
	cfg := smgSmall(4, 20000, 3)
	cfg.OutlierRate = 0.01
	a, b := mustSMG(t, cfg), mustSMG(t, cfg)
	for i, p := range a.Processes() {
		q := b.Process(i)
		if !reflect.DeepEqual([]any{p.Kind, p.Time, p.Ref, p.Msgs, p.Colls}, []any{q.Kind, q.Time, q.Ref, q.Msgs, q.Colls}) {
			t.Fatalf("rank %d differs between two runs of the same config", i)
		}
	}
	if !reflect.DeepEqual(a.Defs, b.Defs) {
		t.Fatal("definitions differ between two runs of the same config")
	}
	cfg.Seed = 2
	c := mustSMG(t, cfg)
	for i, p := range a.Processes() {
		q := c.Process(i)
		if !slices.Equal(p.Kind, q.Kind) || !slices.Equal(p.Ref, q.Ref) {
			t.Errorf("rank %d: the seed changed the call structure", i)
		}
		if slices.Equal(p.Time, q.Time) {
			t.Errorf("rank %d: seeds 1 and 2 gave the same times", i)
		}
	}
}

func TestGenerateSMGEventCounts(t *testing.T) {
	for _, cfg := range []SMGConfig{
		smgSmall(1, 9000, 2), smgSmall(2, 25000, 4), smgSmall(6, 40000, 3), smgSmall(8, 60000, 5),
		SMG2000Config(8, 100000), SMG2000Config(3, 77777),
	} {
		tr := mustSMG(t, cfg)
		if tr.NumProcesses() != cfg.Ranks || len(tr.Defs.Locations) != cfg.Ranks {
			t.Fatalf("%d ranks: %d processes, %d locations", cfg.Ranks, tr.NumProcesses(), len(tr.Defs.Locations))
		}
		for i, p := range tr.Processes() {
			n := p.Len()
			if n > cfg.Events || n < cfg.Events-3 || math.Abs(float64(n-cfg.Events)) > 0.01*float64(cfg.Events) {
				t.Errorf("%d ranks, Events %d: rank %d has %d events", cfg.Ranks, cfg.Events, i, n)
			}
			if cap(p.Kind) != n || cap(p.Time) != n || cap(p.Ref) != n || tr.Defs.Locations[i].NumEvents != uint64(n) {
				t.Errorf("rank %d: %d events, capacity %d, declared %d (preallocation off)", i, n, cap(p.Kind), tr.Defs.Locations[i].NumEvents)
			}
			if cap(p.Msgs.Peer) != p.Msgs.Len() || cap(p.Msgs.Request) != p.Msgs.Len() || cap(p.Colls.Op) != p.Colls.Len() {
				t.Errorf("rank %d: %d message rows (capacity %d), %d collective rows (capacity %d)", i,
					p.Msgs.Len(), cap(p.Msgs.Peer), p.Colls.Len(), cap(p.Colls.Op))
			}
		}
	}
}

// TestGenerateSMGWellFormed: properly nested calls (an explicit stack and
// CallRepairs), non-decreasing timestamps on multiples of TickNs, side
// table rows referenced once each in order.
func TestGenerateSMGWellFormed(t *testing.T) {
	for _, cfg := range []SMGConfig{smgSmall(8, 30000, 4), smgSmall(5, 20000, 3)} {
		cfg.TickNs = 7
		cfg.OutlierRate = 0.01
		tr := mustSMG(t, cfg)
		for _, p := range tr.Processes() {
			if r := p.CallRepairs(); !r.IsZero() {
				t.Errorf("%v: call repairs %v", p, r)
			}
			var stack []int32
			msg, coll := int32(0), int32(0)
			for i, k := range p.Kind {
				if i > 0 && p.Time[i] < p.Time[i-1] {
					t.Fatalf("%v: time goes back at event %d (%d after %d)", p, i, p.Time[i], p.Time[i-1])
				}
				if p.Time[i]%cfg.TickNs != 0 {
					t.Fatalf("%v: event %d at %d ns, not a multiple of %d", p, i, p.Time[i], cfg.TickNs)
				}
				switch k {
				case trace.Enter:
					stack = append(stack, p.Ref[i])
				case trace.Leave:
					if len(stack) == 0 || stack[len(stack)-1] != p.Ref[i] {
						t.Fatalf("%v: event %d leaves %s, open: %v", p, i, p.RegionName(p.Ref[i]), stack)
					}
					stack = stack[:len(stack)-1]
				case trace.MpiIsend, trace.MpiIrecv, trace.MpiIrecvRequest, trace.MpiIsendComplete:
					if p.Ref[i] != msg {
						t.Fatalf("%v: event %d refers to message row %d, want %d", p, i, p.Ref[i], msg)
					}
					msg++
					if len(stack) == 0 || !strings.HasPrefix(p.RegionName(stack[len(stack)-1]), "MPI_") {
						t.Fatalf("%v: message event %d outside an MPI call", p, i)
					}
				case trace.MpiCollectiveEnd:
					if p.Ref[i] != coll {
						t.Fatalf("%v: event %d refers to collective row %d, want %d", p, i, p.Ref[i], coll)
					}
					coll++
				case trace.MpiCollectiveBegin:
				default:
					t.Fatalf("%v: unexpected event %v", p, k)
				}
			}
			if len(stack) != 0 || int(msg) != p.Msgs.Len() || int(coll) != p.Colls.Len() {
				t.Errorf("%v: %d calls open, %d of %d message rows, %d of %d collective rows", p, len(stack), msg, p.Msgs.Len(), coll, p.Colls.Len())
			}
		}
	}
}

// smgSend is a message as seen by one end.
type smgSend struct {
	time, bytes int64
}

// TestGenerateSMGMessages matches every MpiIsend with the MpiIrecv of its
// receiver, first in first out per (sender, receiver, comm, tag): same
// bytes, received no earlier than sent; every request posted once and
// completed once, later; collectives the same on every rank and ending
// after the last rank began them.
func TestGenerateSMGMessages(t *testing.T) {
	for _, cfg := range []SMGConfig{smgSmall(8, 30000, 4), smgSmall(6, 20000, 3), smgSmall(2, 12000, 3), smgSmall(27, 20000, 3)} {
		cfg.OutlierRate = 0.01
		tr := mustSMG(t, cfg)
		type key struct{ from, to, comm, tag int32 }
		sends := map[key][]smgSend{}
		recvs := map[key][]smgSend{}
		nsend := 0
		for r, p := range tr.Processes() {
			m := &p.Msgs
			posted := map[int64]int64{} // request -> post time
			done := map[int64]bool{}
			for i, k := range p.Kind {
				row := p.Ref[i]
				switch k {
				case trace.MpiIsend, trace.MpiIrecvRequest:
					req := m.Request[row]
					if _, dup := posted[req]; dup || req <= 0 {
						t.Fatalf("rank %d: request %d posted twice or invalid", r, req)
					}
					posted[req] = p.Time[i]
					if k == trace.MpiIsend {
						nsend++
						if m.Peer[row] < 0 || int(m.Peer[row]) >= cfg.Ranks || m.Peer[row] == int32(r) || m.Comm[row] != 0 {
							t.Fatalf("rank %d: send to %d on comm %d", r, m.Peer[row], m.Comm[row])
						}
						kk := key{int32(r), m.Peer[row], m.Comm[row], m.Tag[row]}
						sends[kk] = append(sends[kk], smgSend{p.Time[i], m.Bytes[row]})
					} else if m.Peer[row] != -1 || m.Tag[row] != -1 || m.Bytes[row] != 0 {
						t.Fatalf("rank %d: request-only row %d has payload", r, row)
					}
				case trace.MpiIrecv, trace.MpiIsendComplete:
					req := m.Request[row]
					t0, ok := posted[req]
					if !ok || done[req] || t0 > p.Time[i] {
						t.Fatalf("rank %d: request %d completed without a post, twice or before it", r, req)
					}
					done[req] = true
					if k == trace.MpiIrecv {
						kk := key{m.Peer[row], int32(r), m.Comm[row], m.Tag[row]}
						recvs[kk] = append(recvs[kk], smgSend{p.Time[i], m.Bytes[row]})
					} else if m.Peer[row] != -1 {
						t.Fatalf("rank %d: request-only row %d has a peer", r, row)
					}
				}
			}
			if len(done) != len(posted) {
				t.Errorf("rank %d: %d requests posted, %d completed", r, len(posted), len(done))
			}
		}
		if cfg.Ranks > 1 && nsend == 0 {
			t.Fatalf("%d ranks: no messages", cfg.Ranks)
		}
		if len(sends) != len(recvs) {
			t.Errorf("%d ranks: %d send channels, %d receive channels", cfg.Ranks, len(sends), len(recvs))
		}
		for k, ss := range sends {
			rs := recvs[k]
			if len(rs) != len(ss) {
				t.Errorf("%+v: %d sends, %d receives", k, len(ss), len(rs))
				continue
			}
			for i := range ss {
				if rs[i].bytes != ss[i].bytes || rs[i].time < ss[i].time {
					t.Fatalf("%+v: message %d sent %+v, received %+v", k, i, ss[i], rs[i])
				}
			}
		}
		// collectives: same rows everywhere, each ending after every begin
		var begins [][]int64
		p0 := tr.Process(0)
		for _, p := range tr.Processes() {
			if !reflect.DeepEqual(p.Colls, p0.Colls) {
				t.Fatalf("%v: collective rows differ from rank 0's", p)
			}
			var b []int64
			for i, k := range p.Kind {
				if k == trace.MpiCollectiveBegin {
					b = append(b, p.Time[i])
				}
			}
			begins = append(begins, b)
		}
		for _, p := range tr.Processes() {
			for i, k := range p.Kind {
				if k != trace.MpiCollectiveEnd {
					continue
				}
				for q := range begins {
					if begins[q][p.Ref[i]] > p.Time[i] {
						t.Fatalf("%v: collective %d ends at %d before rank %d begins it at %d", p, p.Ref[i], p.Time[i], q, begins[q][p.Ref[i]])
					}
				}
			}
		}
	}
}

// TestGenerateSMGShape: the region list, the events of one iteration
// against the hand count, the iteration count and the setup share.
func TestGenerateSMGShape(t *testing.T) {
	cfg := smgSmall(8, 200000, 4)
	tr := mustSMG(t, cfg)
	var names []string
	for _, r := range tr.Defs.Regions {
		names = append(names, r.Paradigm+":"+r.Role+":"+r.Name)
	}
	want := []string{"user:function:main", "mpi:function:MPI_Init", "user:function:hypre_StructGridAssemble",
		"mpi:coll_all2all:MPI_Allgather", "user:function:HYPRE_StructMatrixSetBoxValues",
		"user:function:hypre_StructMatrixSetBoxValues", "user:function:hypre_StructMatrixAssemble",
		"user:function:hypre_CommPkgCreate", "user:function:hypre_InitializeCommunication",
		"mpi:point2point:MPI_Irecv", "mpi:point2point:MPI_Isend", "user:function:hypre_FinalizeCommunication",
		"mpi:point2point:MPI_Waitall", "user:function:hypre_SMGSetup", "user:function:hypre_SMGRelaxSetup",
		"user:function:hypre_SMGRelaxSetupARem", "user:function:hypre_CyclicReductionSetup",
		"user:function:hypre_SMGSetupInterpOp", "user:function:hypre_SMGRelax", "user:function:hypre_SMGResidual",
		"user:function:hypre_StructCopy", "user:function:hypre_StructMatvec", "user:function:hypre_StructMatvecCompute",
		"user:function:hypre_CyclicReduction", "user:function:hypre_CyclicReductionCompute",
		"user:function:hypre_SMGSetupRestrictOp", "user:function:hypre_SMGSetupRAPOp",
		"user:function:hypre_SMG3BuildRAPSym", "user:function:hypre_StructMatrixExtractPointerByIndex",
		"user:function:hypre_SMGSolve", "user:function:hypre_StructInnerProd", "mpi:coll_all2all:MPI_Allreduce",
		"user:function:hypre_SemiRestrict", "user:function:hypre_SemiInterp", "user:function:hypre_StructAxpy",
		"mpi:function:MPI_Finalize"}
	if !slices.Equal(names, want) {
		t.Errorf("regions:\n%q\nwant\n%q", names, want)
	}
	// Hand count with k neighbours: an exchange is x = 6+8k events, a
	// non-coarsest level 7x+92 (level 0 6x0+x1+92: its interpolation
	// exchanges level 1's data), the coarsest 2x+38, the norm 6. 8 ranks
	// on 2x2x2: 3 face neighbours (level 0), 7 in all (coarser levels).
	x0, x1 := 6+8*3, 6+8*7
	perIter := 6*x0 + x1 + 92 + (cfg.Levels-2)*(7*x1+92) + 2*x1 + 38 + 6
	p := tr.Process(0)
	norm := tr.RegionID("hypre_StructInnerProd")
	solve := tr.RegionID("hypre_SMGSolve")
	var ends []int
	setup := -1
	for i, k := range p.Kind {
		if k == trace.Leave && p.Ref[i] == norm {
			ends = append(ends, i)
		}
		if k == trace.Enter && p.Ref[i] == solve && setup < 0 {
			setup = i
		}
	}
	iters := len(ends) - 1 // the first norm is |b|
	for i := 1; i < len(ends); i++ {
		if ends[i]-ends[i-1] != perIter {
			t.Fatalf("iteration %d: %d events, want %d", i, ends[i]-ends[i-1], perIter)
		}
	}
	if wantIters := int(0.93 * float64(cfg.Events) / float64(perIter)); iters != wantIters {
		t.Errorf("%d iterations, want %d", iters, wantIters)
	}
	if share := float64(setup) / float64(p.Len()); share < smgSetupShare || share > smgSetupShare+float64(perIter)/float64(cfg.Events) {
		t.Errorf("setup takes %.4f of the events", share)
	}
	// the message sizes shrink with the level: face messages of level 0
	// carry 8*16*16 bytes, level 1 half of it
	sizes := map[int32]map[int64]bool{}
	for _, m := range tr.Processes() {
		for i, b := range m.Msgs.Bytes {
			if m.Msgs.Peer[i] >= 0 {
				l := m.Msgs.Tag[i] / smgTagsPerLevel
				if sizes[l] == nil {
					sizes[l] = map[int64]bool{}
				}
				sizes[l][b] = true
			}
		}
	}
	if !sizes[0][2048] || !sizes[1][1024] || !sizes[1][64] || !sizes[1][8] || sizes[0][64] || len(sizes) != cfg.Levels {
		t.Errorf("message sizes by level: %v", sizes)
	}
}

// TestGenerateSMGTiming: short calls last their base plus 0..JitterTicks
// ticks (so equal durations recur), compute kernels vary by Noise, and
// about OutlierRate of the calls are 10-50 times longer.
func TestGenerateSMGTiming(t *testing.T) {
	cfg := smgSmall(4, 60000, 3)
	cfg.TickNs, cfg.OutlierRate = 1, 0
	tr := mustSMG(t, cfg)
	durs := func(tr *trace.Trace, name string) []int64 {
		id := tr.RegionID(name)
		var d []int64
		for _, p := range tr.Processes() {
			var open int64
			for i, k := range p.Kind {
				if p.Ref[i] == id && k == trace.Enter {
					open = p.Time[i]
				} else if p.Ref[i] == id && k == trace.Leave {
					d = append(d, p.Time[i]-open)
				}
			}
		}
		return d
	}
	isend := durs(tr, "MPI_Isend")
	counts := map[int64]int{}
	for _, d := range isend {
		counts[d]++
	}
	// P(j) ∝ 2^-j, j = 0..3: 8/15, 4/15, 2/15, 1/15
	for j, p := range []float64{8. / 15, 4. / 15, 2. / 15, 1. / 15} {
		got := float64(counts[smgIsendNs+int64(j)]) / float64(len(isend))
		if math.Abs(got-p) > 0.02 {
			t.Errorf("MPI_Isend lasts %d ns in %.3f of the calls, want %.3f (%v)", smgIsendNs+j, got, p, counts)
		}
	}
	if len(counts) != 4 {
		t.Errorf("MPI_Isend durations %v, want 4 values", counts)
	}
	box := durs(tr, "hypre_StructMatrixSetBoxValues")
	var sum, sq float64
	for _, d := range box {
		sum += float64(d)
		sq += float64(d) * float64(d)
	}
	mean := sum / float64(len(box))
	sd := math.Sqrt(sq/float64(len(box)) - mean*mean)
	if want := smgBoxPoints * cfg.PointNs; math.Abs(mean-want) > 0.005*want || math.Abs(sd/mean-cfg.Noise) > 0.003 {
		t.Errorf("%d box kernels: mean %.1f ns (want %.1f), relative sd %.4f (want %g)", len(box), mean, want, sd/mean, cfg.Noise)
	}
	cfg.OutlierRate = 0.01
	out := durs(mustSMG(t, cfg), "MPI_Isend")
	n := 0
	for _, d := range out {
		if d >= 10*smgIsendNs {
			n++
			if d > 50*(smgIsendNs+3) {
				t.Errorf("outlier of %d ns", d)
			}
		}
	}
	if rate := float64(n) / float64(len(out)); math.Abs(rate-0.01) > 0.003 {
		t.Errorf("%d of %d MPI_Isend calls are outliers (%.4f), want 0.01", n, len(out), rate)
	}
}

func TestGenerateSMGErrors(t *testing.T) {
	good := smgSmall(4, 20000, 3)
	for _, c := range []struct {
		field string
		edit  func(*SMGConfig)
	}{
		{"Ranks", func(c *SMGConfig) { c.Ranks = 0 }},
		{"Events", func(c *SMGConfig) { c.Events = 0 }},
		{"Events", func(c *SMGConfig) { c.Events = 1000 }}, // less than setup + one iteration
		{"Levels", func(c *SMGConfig) { c.Levels = 1 }},
		{"TickNs", func(c *SMGConfig) { c.TickNs = 0 }},
		{"Noise", func(c *SMGConfig) { c.Noise = -0.1 }},
		{"Noise", func(c *SMGConfig) { c.Noise = math.NaN() }},
		{"JitterTicks", func(c *SMGConfig) { c.JitterTicks = -1 }},
		{"OutlierRate", func(c *SMGConfig) { c.OutlierRate = 2 }},
		{"GridPoints", func(c *SMGConfig) { c.GridPoints = 0 }},
		{"PointNs", func(c *SMGConfig) { c.PointNs = 0 }},
		{"LatencyNs", func(c *SMGConfig) { c.LatencyNs = -1 }},
		{"ByteNs", func(c *SMGConfig) { c.ByteNs = math.Inf(1) }},
	} {
		cfg := good
		c.edit(&cfg)
		tr, err := TryGenerateSMG(cfg)
		var e *work.Error
		if tr != nil || !errors.As(err, &e) || e.Func != "synth.GenerateSMG" || !strings.Contains(err.Error(), c.field+" ") {
			t.Errorf("bad %s: trace %v, error %v", c.field, tr, err)
		}
	}
	if _, err := TryGenerateSMG(good); err != nil {
		t.Errorf("good config: %v", err)
	}
}

// BenchmarkGenerateSMG2000 generates the seed's SMG2000 trace: 8 ranks x
// 4.5M events (Knüpfer §5.2).
func BenchmarkGenerateSMG2000(b *testing.B) {
	var events int64
	for i := 0; i < b.N; i++ {
		tr, err := TryGenerateSMG(SMG2000Config(8, 4_500_000))
		if err != nil {
			b.Fatal(err)
		}
		events += tr.NumEvents()
		if i == b.N-1 {
			b.ReportMetric(float64(tr.MemoryBytes())/float64(tr.NumEvents()), "bytes/event")
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
