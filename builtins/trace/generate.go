package trace

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tracebook/tracebook/builtins/work"
)

// GenConfig configures Generate. The knobs match ../shared/tools/otf2gen.py
// spmd mode (--procs, --threads, --iters, --unit, --noise, --slow,
// --outlier, --variant) plus Depth/Fanout (nested calls inside each compute
// kernel), Imbalance (a linear per-rank slowdown) and MPI (off: ranks run
// their compute phases without communication).
type GenConfig struct {
	Seed       int64
	Ranks      int // MPI ranks (location groups), >= 1
	Threads    int // extra worker-thread locations per rank
	Iterations int // solver iterations
	Depth      int // levels of nested calls below each compute kernel (0: kernels are leaves)
	Fanout     int // calls per nested level
	MPI        bool
	UnitNs     int64   // duration of one work unit, ns (otf2gen --unit)
	Imbalance  float64 // rank r's kernels run (1 + Imbalance*r/(Ranks-1)) times longer
	SlowRank   int     // a rank whose kernels run SlowFactor times longer; -1 for none
	SlowFactor float64
	// OutlierRank's iteration OutlierIter runs OutlierFactor times longer; OutlierIter -1 for none.
	OutlierRank   int
	OutlierIter   int
	OutlierFactor float64
	Noise         float64 // OS noise per call, in units (exponentially distributed)
	Version       int     // code version: 0 (otf2gen variant A) or 1 (variant B: apply_bc removed, compute_flux_correction added)
}

// DefaultGenConfig returns otf2gen.py's spmd defaults: 4 ranks, 20
// iterations, unit 10 µs, noise 0.2, MPI on, no slow rank, no outlier.
func DefaultGenConfig() GenConfig {
	return GenConfig{
		Seed: 1, Ranks: 4, Iterations: 20, Fanout: 2, MPI: true, UnitNs: 10000,
		SlowRank: -1, SlowFactor: 1.8, OutlierRank: 0, OutlierIter: -1, OutlierFactor: 3,
		Noise: 0.2,
	}
}

// EventsPerRank returns the number of events Generate writes on rank r's
// master-thread location.
func (cfg GenConfig) EventsPerRank(r int) int {
	sub := 0
	for l, f := 1, 1; l <= cfg.Depth; l++ {
		f *= cfg.Fanout
		sub += f
	}
	perKernel := 2 * (1 + sub)
	n := 5
	perIter := 2 + 3*perKernel
	if cfg.MPI {
		nb := neighbours(r, cfg.Ranks)
		n += 4
		perIter += 8*len(nb) + 8
		n += 2 // finalize
	}
	n += cfg.Iterations*perIter + 1
	if r == 0 {
		n += 2 // write_output
	}
	return n
}

// NumEvents returns the total number of events Generate writes.
func (cfg GenConfig) NumEvents() int64 {
	var n int64
	for r := 0; r < cfg.Ranks; r++ {
		n += int64(cfg.EventsPerRank(r))
	}
	return n + int64(cfg.Ranks)*int64(cfg.Threads)*int64(cfg.Iterations)*4
}

func neighbours(r, n int) []int {
	if n <= 1 {
		return nil
	}
	a, b := (r-1+n)%n, (r+1)%n
	if a == b {
		return []int{a}
	}
	if a > b {
		a, b = b, a
	}
	return []int{a, b}
}

type genProc struct {
	p     *Process
	clock int64
	req   int64
}

func (g *genProc) ev(k EventKind, t int64, ref int32) {
	p := g.p
	p.Kind = append(p.Kind, k)
	p.Time = append(p.Time, t)
	p.Ref = append(p.Ref, ref)
}

func (g *genProc) msg(k EventKind, t int64, peer, tag int32, bytes, req int64) {
	m := &g.p.Msgs
	g.ev(k, t, int32(len(m.Peer)))
	m.Peer = append(m.Peer, peer)
	m.Comm = append(m.Comm, commOf(peer))
	m.Tag = append(m.Tag, tag)
	m.Bytes = append(m.Bytes, bytes)
	m.Request = append(m.Request, req)
}

func commOf(peer int32) int32 {
	if peer < 0 {
		return -1
	}
	return 0
}

type generator struct {
	cfg     GenConfig
	rnd     *rand.Rand
	defs    *Definitions
	regions map[string]int32
	subs    [][][]int32 // [kernel][level][j] region ids of nested calls
}

func (g *generator) region(name, paradigm string) int32 {
	if id, ok := g.regions[name]; ok {
		return id
	}
	id := int32(len(g.defs.Regions))
	g.defs.Regions = append(g.defs.Regions, Region{Name: name, Canonical: name, Role: "function", Paradigm: paradigm})
	g.regions[name] = id
	return id
}

func (g *generator) noise() int64 {
	if g.cfg.Noise <= 0 {
		return 0
	}
	return int64(g.rnd.ExpFloat64() * float64(g.cfg.UnitNs) * g.cfg.Noise)
}

// call writes Enter/Leave of region id lasting dur (>= 1) at gp's clock.
func (gp *genProc) call(id int32, dur int64) {
	gp.ev(Enter, gp.clock, id)
	gp.clock += max(1, dur)
	gp.ev(Leave, gp.clock, id)
}

// nested writes a kernel call with its subtree: each level splits its
// parent's duration into Fanout+1 parts, children take one part each.
func (g *generator) nested(gp *genProc, ids [][]int32, id int32, level int, t0, dur int64) {
	gp.ev(Enter, t0, id)
	end := t0 + max(1, dur)
	if level < len(ids) {
		f := int64(len(ids[level]))
		part := dur / (f + 1)
		gap := part / (f + 1)
		t := t0
		for _, c := range ids[level] {
			t += gap
			g.nested(gp, ids, c, level+1, t, part)
			t += max(1, part)
		}
		end = max(end, t)
	}
	gp.ev(Leave, end, id)
	gp.clock = end
}

// Generate returns a deterministic synthetic SPMD trace (same Seed, same
// trace): an iterative solver modelled on otf2gen.py spmd mode, see GenConfig.
// Times are ns; location i*(Threads+1) is rank i's master thread and the
// Threads locations after it are its workers. Generate panics on an
// invalid configuration (Ranks < 1, negative counts, UnitNs < 1).
func Generate(cfg GenConfig) *Trace {
	if cfg.Ranks < 1 || cfg.Threads < 0 || cfg.Iterations < 0 || cfg.Depth < 0 || cfg.Fanout < 0 || cfg.UnitNs < 1 {
		panic(fmt.Sprintf("trace: Generate: invalid config %+v (need Ranks >= 1, UnitNs >= 1, counts >= 0)", cfg))
	}
	if cfg.Depth > 0 && cfg.Fanout == 0 {
		cfg.Depth = 0
	}
	total := cfg.NumEvents()
	if err := work.Reserve("trace.Generate", total*eventBytes); err != nil {
		panic(&Error{Path: "generated", Offset: -1, Err: err})
	}
	job := work.Start("trace.Generate", int64(cfg.Iterations), "iterations")
	defer job.Done()
	g := &generator{
		cfg:     cfg,
		rnd:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7472616365626f6f)),
		defs:    &Definitions{Properties: map[string]string{"generator": "tracebook trace.Generate"}},
		regions: map[string]int32{},
	}
	defs := g.defs
	unit := cfg.UnitNs
	mpi := func(name string) int32 { return g.region(name, "mpi") }
	user := func(name string) int32 { return g.region(name, "user") }
	rMain, rInit, rRead, rSetup := user("main"), user("init"), user("read_input"), user("setup_grid")
	var rMPIInit, rIsend, rIrecv, rWaitall, rAllreduce, rFinalize, rBarrier int32
	if cfg.MPI {
		rMPIInit, rIsend, rIrecv = mpi("MPI_Init"), mpi("MPI_Isend"), mpi("MPI_Irecv")
		rWaitall, rAllreduce, rFinalize, rBarrier = mpi("MPI_Waitall"), mpi("MPI_Allreduce"), mpi("MPI_Finalize"), mpi("MPI_Barrier")
	}
	rSolve, rExchange, rWrite := user("solve"), user("exchange"), user("write_output")
	kernelNames := []string{"compute_flux", "update_cells", "apply_bc"}
	if cfg.Version == 1 {
		kernelNames = []string{"compute_flux", "compute_flux_correction", "update_cells"}
	}
	kernels := make([]int32, len(kernelNames))
	g.subs = make([][][]int32, len(kernelNames))
	for k, name := range kernelNames {
		kernels[k] = user(name)
		for l := 1; l <= cfg.Depth; l++ {
			var level []int32
			for j := 0; j < cfg.Fanout; j++ {
				level = append(level, user(fmt.Sprintf("%s_L%d_%d", name, l, j)))
			}
			g.subs[k] = append(g.subs[k], level)
		}
	}
	rOmp := -int32(1)
	if cfg.Threads > 0 {
		rOmp = g.region("omp_parallel_region", "openmp")
		defs.Regions[rOmp].Role = "parallel"
	}

	// Definitions: machine -> node 0 -> ranks -> locations.
	defs.SystemTree = []SystemTreeNode{{Name: "machine", Class: "machine", Parent: -1}, {Name: "node 0", Class: "node", Parent: 0}}
	stride := cfg.Threads + 1
	nloc := cfg.Ranks * stride
	defs.LocationGroups = make([]LocationGroup, cfg.Ranks)
	defs.Locations = make([]Location, nloc)
	procs := make([]*Process, nloc)
	store := make([]Process, nloc) // one allocation for 65,536 processes
	ranks := make([]genProc, cfg.Ranks)
	members := make([]uint64, cfg.Ranks)
	for r := 0; r < cfg.Ranks; r++ {
		members[r] = uint64(r)
		defs.LocationGroups[r] = LocationGroup{Name: fmt.Sprintf("MPI Rank %d", r), Type: "process", SystemNode: 1}
		for t := 0; t < stride; t++ {
			i := r*stride + t
			p := &store[i]
			p.Rank, p.Thread = int32(r), int32(t)
			n := 4 * cfg.Iterations
			locName := "Master thread"
			if t == 0 {
				n = cfg.EventsPerRank(r)
				p.Name = fmt.Sprintf("MPI Rank %d", r)
			} else {
				locName = fmt.Sprintf("Thread %d", t)
				p.Name = fmt.Sprintf("MPI Rank %d / Thread %d", r, t)
			}
			p.Kind, p.Time, p.Ref = make([]EventKind, 0, n), make([]int64, 0, n), make([]int32, 0, n)
			defs.Locations[i] = Location{Name: locName, Type: "cpu_thread", Group: int32(r), NumEvents: uint64(n)}
			procs[i] = p
		}
		ranks[r].p = procs[r*stride]
		if cfg.MPI {
			nb := len(neighbours(r, cfg.Ranks))
			m := &ranks[r].p.Msgs
			nm := 4 * nb * cfg.Iterations
			m.Peer, m.Comm, m.Tag = make([]int32, 0, nm), make([]int32, 0, nm), make([]int32, 0, nm)
			m.Bytes, m.Request = make([]int64, 0, nm), make([]int64, 0, nm)
			c := &ranks[r].p.Colls
			nc := cfg.Iterations
			c.Op, c.Comm, c.Root = make([]uint8, 0, nc), make([]int32, 0, nc), make([]uint32, 0, nc)
			c.Sent, c.Received = make([]int64, 0, nc), make([]int64, 0, nc)
		}
	}
	if cfg.MPI {
		defs.Groups = []Group{
			{Name: "MPI locations", Type: "comm_locations", Paradigm: "mpi", Members: members},
			{Name: "MPI_COMM_WORLD group", Type: "comm_group", Paradigm: "mpi", Members: members},
		}
		defs.Comms = []Comm{{Name: "MPI_COMM_WORLD", Group: 1, Parent: -1}}
	}

	// init
	for r := range ranks {
		gp := &ranks[r]
		gp.clock = int64(g.rnd.Float64() * float64(unit))
		gp.ev(Enter, gp.clock, rMain)
		gp.clock += unit
		if cfg.MPI {
			gp.call(rMPIInit, 50*unit+g.noise())
		}
		gp.ev(Enter, gp.clock, rInit)
		gp.clock += unit
		if r == 0 {
			gp.call(rRead, 20*unit+g.noise())
		} else {
			gp.call(rSetup, 5*unit+g.noise())
		}
		gp.ev(Leave, gp.clock, rInit)
	}
	if cfg.MPI {
		var tSync int64
		for r := range ranks {
			tSync = max(tSync, ranks[r].clock)
		}
		tSync += unit
		for r := range ranks {
			ranks[r].call(rBarrier, tSync-ranks[r].clock)
		}
	}

	post := make([]int64, cfg.Ranks)
	for it := 0; it < cfg.Iterations; it++ {
		job.Add(1)
		job.Check()
		for r := range ranks {
			gp := &ranks[r]
			gp.ev(Enter, gp.clock, rSolve)
			gp.clock += unit / 4
			factor := 1.0
			if cfg.Ranks > 1 {
				factor += cfg.Imbalance * float64(r) / float64(cfg.Ranks-1)
			}
			if r == cfg.SlowRank {
				factor *= cfg.SlowFactor
			}
			if cfg.OutlierIter == it && r == cfg.OutlierRank {
				factor *= cfg.OutlierFactor
			}
			for k, id := range kernels {
				dur := int64(float64(int64(10+3*k)*unit)*factor) + g.noise()
				g.nested(gp, g.subs[k], id, 0, gp.clock, dur)
			}
			if !cfg.MPI {
				gp.ev(Leave, gp.clock, rSolve)
				gp.clock += unit / 10
			}
		}
		if cfg.MPI {
			tag := int32(it % 1000)
			for r := range ranks {
				gp := &ranks[r]
				gp.ev(Enter, gp.clock, rExchange)
				gp.clock += unit / 8
				nb := neighbours(r, cfg.Ranks)
				for range nb {
					gp.req++
					gp.ev(Enter, gp.clock, rIrecv)
					gp.clock += unit / 10
					gp.msg(MpiIrecvRequest, gp.clock, -1, -1, 0, gp.req)
					gp.clock += unit / 10
					gp.ev(Leave, gp.clock, rIrecv)
				}
				for _, peer := range nb {
					gp.req++
					gp.ev(Enter, gp.clock, rIsend)
					gp.clock += unit / 10
					gp.msg(MpiIsend, gp.clock, int32(peer), tag, int64(4096*(1+r%3)), gp.req)
					gp.clock += unit / 10
					gp.ev(Leave, gp.clock, rIsend)
				}
				post[r] = gp.clock
			}
			for r := range ranks {
				gp := &ranks[r]
				gp.ev(Enter, gp.clock, rWaitall)
				done := post[r]
				nb := neighbours(r, cfg.Ranks)
				for _, p := range nb {
					done = max(done, post[p])
				}
				gp.clock = max(gp.clock+unit/10, done+unit/5)
				// requests of this iteration: receives first, then sends
				base := gp.req - int64(2*len(nb))
				for i, peer := range nb {
					gp.msg(MpiIrecv, gp.clock, int32(peer), tag, int64(4096*(1+peer%3)), base+int64(i)+1)
				}
				for i := range nb {
					gp.msg(MpiIsendComplete, gp.clock, -1, -1, 0, base+int64(len(nb)+i)+1)
				}
				gp.clock += unit / 10
				gp.ev(Leave, gp.clock, rWaitall)
				gp.ev(Leave, gp.clock, rExchange)
				gp.clock += unit / 10
			}
			var tAll int64
			for r := range ranks {
				gp := &ranks[r]
				gp.ev(Enter, gp.clock, rAllreduce)
				gp.ev(MpiCollectiveBegin, gp.clock, -1)
				tAll = max(tAll, gp.clock)
			}
			tAll += unit / 2
			for r := range ranks {
				gp := &ranks[r]
				gp.clock = tAll + g.noise()/10
				c := &gp.p.Colls
				gp.ev(MpiCollectiveEnd, gp.clock, int32(len(c.Op)))
				c.Op = append(c.Op, 11) // ALLREDUCE
				c.Comm = append(c.Comm, 0)
				c.Root = append(c.Root, RootNone)
				c.Sent = append(c.Sent, 8)
				c.Received = append(c.Received, 8)
				gp.clock += unit / 20
				gp.ev(Leave, gp.clock, rAllreduce)
				gp.ev(Leave, gp.clock, rSolve)
				gp.clock += unit / 10
			}
		}
		for r := 0; r < cfg.Ranks && cfg.Threads > 0; r++ {
			end := ranks[r].clock
			for t := 1; t <= cfg.Threads; t++ {
				p := procs[r*stride+t]
				t0 := end - 10*unit
				if n := len(p.Time); n > 0 {
					t0 = max(t0, p.Time[n-1])
				}
				t0 = max(t0, 0)
				kernel := kernels[0]
				a := t0 + unit
				b := max(a, t0+6*unit+g.noise())
				c := max(b, t0+7*unit+g.noise())
				for _, e := range [...]struct {
					k   EventKind
					t   int64
					ref int32
				}{{Enter, t0, rOmp}, {Enter, a, kernel}, {Leave, b, kernel}, {Leave, c, rOmp}} {
					p.Kind = append(p.Kind, e.k)
					p.Time = append(p.Time, e.t)
					p.Ref = append(p.Ref, e.ref)
				}
			}
		}
	}
	var last int64
	for r := range ranks {
		gp := &ranks[r]
		if r == 0 {
			gp.call(rWrite, 15*unit+g.noise())
		}
		if cfg.MPI {
			gp.call(rFinalize, 5*unit+g.noise())
		}
		gp.clock += unit
		gp.ev(Leave, gp.clock, rMain)
		last = max(last, gp.clock)
	}
	for _, p := range procs {
		if n := len(p.Time); n > 0 {
			last = max(last, p.Time[n-1])
		}
	}
	defs.Clock = Clock{Resolution: 1e9, Offset: 0, Length: uint64(last)}
	t := NewTrace(defs, procs)
	return t
}

func metricFloat(typ uint8, v uint64) float64 {
	switch typ {
	case MetricInt64:
		return float64(int64(v))
	case MetricUint64:
		return float64(v)
	}
	return math.Float64frombits(v)
}
