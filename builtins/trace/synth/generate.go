package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Generate returns a deterministic synthetic SPMD trace (same Seed, same
// trace): an iterative solver modelled on otf2gen.py spmd mode, see GenConfig.
// Times are ns; with s = 1 + Threads + the ThreadKinds counts, location i*s
// is rank i's master thread, the Threads locations after it are its workers
// and the helper threads follow, kind by kind; GPU stream locations come
// after all ranks' (GPU g's stream m at Ranks*s + g*Streams + m). Generate
// panics with a *work.Error on an invalid configuration (Ranks < 1, negative
// counts, UnitNs < 1, inconsistent shape knobs).
//
// Generate plans (the regions, the locations with their exact capacities,
// the knobs' tables), then writes phase by phase: the set-up, each
// iteration (per rank the kernels and each knob's calls, then the
// communication, then the worker and helper threads), the end. The order
// of the random draws is part of the output: a knob draws its noise from
// its own generator (aux), so that the trace without it stays the same.
func Generate(cfg GenConfig) *trace.Trace {
	cfg.mustCheck()
	if cfg.Depth > 0 && cfg.Fanout == 0 {
		cfg.Depth = 0
	}
	// The memory check comes before NumEvents, whose loops take time in
	// proportion to the events.
	if err := work.Reserve(generateFunc, cfg.eventBound(false)*trace.EventBytes); err != nil {
		work.FailErr(generateFunc, err)
	}
	total := cfg.NumEvents()
	if err := work.Reserve(generateFunc, total*trace.EventBytes); err != nil {
		work.FailErr(generateFunc, err)
	}
	job := work.Start(generateFunc, int64(cfg.Iterations), "iterations")
	defer job.Done()
	g := newGenerator(cfg)
	g.planRegions()
	g.planLocations(job)
	g.writeSetUp()
	for it := 0; it < cfg.Iterations; it++ {
		job.Add(1)
		job.Check()
		g.writeIteration(it, job)
	}
	g.writeEnd()
	return g.trace()
}

// generator is Generate's state: the plan, then the clocks of the writing.
type generator struct {
	cfg     GenConfig
	rnd     *rand.Rand
	aux     *rand.Rand // noise of the shape knobs, so that they leave rnd's draws alone
	defs    *trace.Definitions
	regions map[string]int32

	// the classic solver's regions
	rMain, rInit, rRead, rSetup                                         int32
	rMPIInit, rIsend, rIrecv, rWaitall, rAllreduce, rFinalize, rBarrier int32 // with MPI
	rSolve, rExchange, rWrite, rOmp                                     int32
	kernels                                                             []int32
	subs                                                                [][][]int32 // [kernel][level][j] region ids of nested calls

	// the knobs, each off in its zero value
	helpers   helperThreads
	gpu       gpuStreams
	master    masterWork
	workloads workloadPaths
	sort      recursiveSort
	walk      treeWalk
	growth    growingImbalance

	// the locations
	stride int              // locations per rank: master, workers, helpers
	procs  []*trace.Process // all locations, in location order
	ranks  []genProc        // master threads
	post   []int64          // per rank: when its sends of this iteration were posted
}

func newGenerator(cfg GenConfig) *generator {
	return &generator{
		cfg:     cfg,
		rnd:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7472616365626f6f)),
		aux:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7368617065730a00)),
		defs:    &trace.Definitions{Properties: map[string]string{"generator": "tracebook trace.Generate"}},
		regions: map[string]int32{},
	}
}

func (g *generator) region(name, paradigm string) int32 {
	if id, ok := g.regions[name]; ok {
		return id
	}
	id := int32(len(g.defs.Regions))
	g.defs.Regions = append(g.defs.Regions, trace.Region{Name: name, Canonical: name, Role: "function", Paradigm: paradigm})
	g.regions[name] = id
	return id
}

func (g *generator) user(name string) int32 { return g.region(name, "user") }

// planRegions defines the regions: the classic solver's, then each knob's
// (region ids follow this order).
func (g *generator) planRegions() {
	cfg := g.cfg
	// Roles as Score-P writes them: MPI_Init and MPI_Finalize "function",
	// the CUDA runtime calls "wrapper" (the kernels "function").
	mpi := func(name, role string) int32 {
		id := g.region(name, "mpi")
		g.defs.Regions[id].Role = role
		return id
	}
	g.rMain, g.rInit, g.rRead, g.rSetup = g.user("main"), g.user("init"), g.user("read_input"), g.user("setup_grid")
	if cfg.MPI {
		g.rMPIInit, g.rIsend, g.rIrecv = mpi("MPI_Init", "function"), mpi("MPI_Isend", "point2point"), mpi("MPI_Irecv", "point2point")
		g.rWaitall, g.rAllreduce = mpi("MPI_Waitall", "point2point"), mpi("MPI_Allreduce", "coll_all2all")
		g.rFinalize, g.rBarrier = mpi("MPI_Finalize", "function"), mpi("MPI_Barrier", "barrier")
	}
	g.rSolve, g.rExchange, g.rWrite = g.user("solve"), g.user("exchange"), g.user("write_output")
	kernelNames := []string{"compute_flux", "update_cells", "apply_bc"}
	if cfg.Version == 1 {
		kernelNames = []string{"compute_flux", "compute_flux_correction", "update_cells"}
	}
	g.kernels = make([]int32, len(kernelNames))
	g.subs = make([][][]int32, len(kernelNames))
	for k, name := range kernelNames {
		g.kernels[k] = g.user(name)
		for l := 1; l <= cfg.Depth; l++ {
			var level []int32
			for j := 0; j < cfg.Fanout; j++ {
				level = append(level, g.user(fmt.Sprintf("%s_L%d_%d", name, l, j)))
			}
			g.subs[k] = append(g.subs[k], level)
		}
	}
	g.rOmp = -1
	if cfg.Threads > 0 {
		g.rOmp = g.region("omp_parallel_region", "openmp")
		g.defs.Regions[g.rOmp].Role = "parallel"
	}
	// Shape knobs: their regions follow the classic ones.
	g.helpers = cfg.HelperThreads.plan(g)
	g.gpu = cfg.GPU.plan(g)
	g.master = cfg.Master.plan(g)
	g.workloads = cfg.Workload.plan(g)
	g.sort = cfg.RecursiveSort.plan(g)
	g.walk = cfg.TreeWalk.plan(g)
	g.growth = cfg.GrowingImbalance.plan(cfg)
}

// planLocations defines the system tree, the location groups, the
// locations and the communicator, and allocates every location's events
// at their exact count.
func (g *generator) planLocations(job *work.Job) {
	cfg, defs := g.cfg, g.defs
	// Definitions: machine -> node 0 -> ranks -> locations.
	defs.SystemTree = []trace.SystemTreeNode{{Name: "machine", Class: "machine", Parent: -1}, {Name: "node 0", Class: "node", Parent: 0}}
	g.stride = cfg.Threads + 1 + g.helpers.count
	ncpu := cfg.Ranks * g.stride
	nloc := ncpu + g.gpu.locations()
	defs.LocationGroups = make([]trace.LocationGroup, cfg.Ranks+g.gpu.groups())
	defs.Locations = make([]trace.Location, nloc)
	g.procs = make([]*trace.Process, nloc)
	store := make([]trace.Process, nloc) // one allocation for 65,536 processes
	g.ranks = make([]genProc, cfg.Ranks)
	members := make([]uint64, cfg.Ranks)
	for r := 0; r < cfg.Ranks; r++ {
		if r%4096 == 4095 {
			job.Check()
		}
		members[r] = uint64(r)
		defs.LocationGroups[r] = trace.LocationGroup{Name: fmt.Sprintf("MPI Rank %d", r), Type: "process", SystemNode: 1}
		for t := 0; t < g.stride; t++ {
			i := r*g.stride + t
			p := &store[i]
			p.Rank, p.Thread = int32(r), int32(t)
			n := 4 * cfg.Iterations
			if t > cfg.Threads {
				n = cfg.eventsPerThread(cfg.ThreadKinds[kindOf(cfg.ThreadKinds, t-cfg.Threads-1)])
			}
			locName := "Master thread"
			if t == 0 {
				n = cfg.eventsPerRank(r, g.workloads.table, g.walk.w)
				p.Name = fmt.Sprintf("MPI Rank %d", r)
			} else {
				locName = fmt.Sprintf("Thread %d", t)
				p.Name = fmt.Sprintf("MPI Rank %d / Thread %d", r, t)
			}
			p.Kind, p.Time, p.Ref = make([]trace.EventKind, 0, n), make([]int64, 0, n), make([]int32, 0, n)
			defs.Locations[i] = trace.Location{Name: locName, Type: "cpu_thread", Group: int32(r), NumEvents: uint64(n)}
			g.procs[i] = p
		}
		g.ranks[r].p = g.procs[r*g.stride]
		if cfg.MPI {
			nb := len(neighbours(r, cfg.Ranks))
			m := &g.ranks[r].p.Msgs
			nm := 4 * nb * cfg.Iterations
			m.Peer, m.Comm, m.Tag = make([]int32, 0, nm), make([]int32, 0, nm), make([]int32, 0, nm)
			m.Bytes, m.Request = make([]int64, 0, nm), make([]int64, 0, nm)
			c := &g.ranks[r].p.Colls
			nc := cfg.Iterations
			c.Op, c.Comm, c.Root = make([]uint8, 0, nc), make([]int32, 0, nc), make([]uint32, 0, nc)
			c.Sent, c.Received = make([]int64, 0, nc), make([]int64, 0, nc)
		}
	}
	g.gpu.planLocations(g, ncpu, store)
	if cfg.MPI {
		defs.Groups = []trace.Group{
			{Name: "MPI locations", Type: "comm_locations", Paradigm: "mpi", Members: members},
			{Name: "MPI_COMM_WORLD group", Type: "comm_group", Paradigm: "mpi", Members: members},
		}
		defs.Comms = []trace.Comm{{Name: "MPI_COMM_WORLD", Group: 1, Parent: -1}}
		g.post = make([]int64, cfg.Ranks)
	}
}

// writeSetUp writes main's start and init on every rank, then the
// barrier that ends the set-up with MPI.
func (g *generator) writeSetUp() {
	cfg, unit := g.cfg, g.cfg.UnitNs
	for r := range g.ranks {
		gp := &g.ranks[r]
		gp.clock = int64(g.rnd.Float64() * float64(unit))
		gp.ev(trace.Enter, gp.clock, g.rMain)
		gp.clock += unit
		if cfg.MPI {
			gp.call(g.rMPIInit, 50*unit+g.noise())
		}
		gp.ev(trace.Enter, gp.clock, g.rInit)
		gp.clock += unit
		if r == 0 {
			gp.call(g.rRead, 20*unit+g.noise())
			g.master.writeSetUp(g, gp)
		} else {
			gp.call(g.rSetup, 5*unit+g.noise())
		}
		gp.ev(trace.Leave, gp.clock, g.rInit)
	}
	if cfg.MPI {
		var tSync int64
		for r := range g.ranks {
			tSync = max(tSync, g.ranks[r].clock)
		}
		tSync += unit
		for r := range g.ranks {
			g.ranks[r].call(g.rBarrier, tSync-g.ranks[r].clock)
		}
	}
}

// writeIteration writes iteration it: every rank's compute phase, the
// communication, the worker threads and the helper threads.
func (g *generator) writeIteration(it int, job *work.Job) {
	cfg := g.cfg
	for r := range g.ranks {
		if r%4096 == 4095 {
			job.Check() // one iteration of 65,536 ranks takes ~0.3 s
		}
		g.writeCompute(r, it, job)
	}
	if cfg.MPI {
		g.writeExchange(it)
		g.writeAllreduce()
	}
	for r := 0; r < cfg.Ranks && cfg.Threads > 0; r++ {
		g.writeWorkers(r)
	}
	for r := 0; r < cfg.Ranks; r++ {
		g.helpers.write(g, r)
	}
}

// factor returns how much longer rank r's kernels run in iteration it:
// the linear imbalance, the slow rank, the outlier and the growth.
func (g *generator) factor(r, it int) float64 {
	cfg := g.cfg
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
	return g.growth.apply(factor, r, it, cfg)
}

// writeCompute writes rank r's compute phase of iteration it: solve
// entered, the kernels, then each knob's calls (the sort, the tree walk,
// the workload paths, the GPU launches); solve is left here without MPI.
func (g *generator) writeCompute(r, it int, job *work.Job) {
	cfg, unit := g.cfg, g.cfg.UnitNs
	gp := &g.ranks[r]
	gp.ev(trace.Enter, gp.clock, g.rSolve)
	gp.clock += unit / 4
	factor := g.factor(r, it)
	for k, id := range g.kernels {
		dur := int64(float64(int64(10+3*k)*unit)*factor) + g.noise()
		g.nested(gp, g.subs[k], id, 0, gp.clock, dur)
	}
	g.sort.write(g, gp, r, it)
	g.walk.write(g, gp, r, it, job)
	g.workloads.write(g, gp, r)
	g.gpu.write(g, gp, r)
	if !cfg.MPI {
		gp.ev(trace.Leave, gp.clock, g.rSolve)
		gp.clock += unit / 10
	}
}

// writeExchange writes iteration it's halo exchange: every rank posts
// its receives and sends to its neighbours, then waits for all of them.
func (g *generator) writeExchange(it int) {
	cfg, unit := g.cfg, g.cfg.UnitNs
	tag := int32(it % 1000)
	for r := range g.ranks {
		gp := &g.ranks[r]
		gp.ev(trace.Enter, gp.clock, g.rExchange)
		gp.clock += unit / 8
		nb := neighbours(r, cfg.Ranks)
		for range nb {
			gp.req++
			gp.ev(trace.Enter, gp.clock, g.rIrecv)
			gp.clock += unit / 10
			gp.msg(trace.MpiIrecvRequest, gp.clock, -1, -1, 0, gp.req)
			gp.clock += unit / 10
			gp.ev(trace.Leave, gp.clock, g.rIrecv)
		}
		for _, peer := range nb {
			gp.req++
			gp.ev(trace.Enter, gp.clock, g.rIsend)
			gp.clock += unit / 10
			gp.msg(trace.MpiIsend, gp.clock, int32(peer), tag, int64(4096*(1+r%3)), gp.req)
			gp.clock += unit / 10
			gp.ev(trace.Leave, gp.clock, g.rIsend)
		}
		g.post[r] = gp.clock
	}
	for r := range g.ranks {
		gp := &g.ranks[r]
		gp.ev(trace.Enter, gp.clock, g.rWaitall)
		done := g.post[r]
		nb := neighbours(r, cfg.Ranks)
		for _, p := range nb {
			done = max(done, g.post[p])
		}
		gp.clock = max(gp.clock+unit/10, done+unit/5)
		// requests of this iteration: receives first, then sends
		base := gp.req - int64(2*len(nb))
		for i, peer := range nb {
			gp.msg(trace.MpiIrecv, gp.clock, int32(peer), tag, int64(4096*(1+peer%3)), base+int64(i)+1)
		}
		for i := range nb {
			gp.msg(trace.MpiIsendComplete, gp.clock, -1, -1, 0, base+int64(len(nb)+i)+1)
		}
		gp.clock += unit / 10
		gp.ev(trace.Leave, gp.clock, g.rWaitall)
		gp.ev(trace.Leave, gp.clock, g.rExchange)
		gp.clock += unit / 10
	}
}

// writeAllreduce writes the MPI_Allreduce that ends every rank's solve.
func (g *generator) writeAllreduce() {
	unit := g.cfg.UnitNs
	var tAll int64
	for r := range g.ranks {
		gp := &g.ranks[r]
		gp.ev(trace.Enter, gp.clock, g.rAllreduce)
		gp.ev(trace.MpiCollectiveBegin, gp.clock, -1)
		tAll = max(tAll, gp.clock)
	}
	tAll += unit / 2
	for r := range g.ranks {
		gp := &g.ranks[r]
		gp.clock = tAll + g.noise()/10
		gp.ev(trace.MpiCollectiveEnd, gp.clock, gp.p.Colls.Add(11, 0, trace.RootNone, 8, 8)) // ALLREDUCE
		gp.clock += unit / 20
		gp.ev(trace.Leave, gp.clock, g.rAllreduce)
		gp.ev(trace.Leave, gp.clock, g.rSolve)
		gp.clock += unit / 10
	}
}

// writeWorkers writes one iteration of rank r's worker threads: an OpenMP
// parallel region around the first kernel, ending near the rank's
// iteration end.
func (g *generator) writeWorkers(r int) {
	cfg, unit := g.cfg, g.cfg.UnitNs
	end := g.ranks[r].clock
	for t := 1; t <= cfg.Threads; t++ {
		p := g.procs[r*g.stride+t]
		t0 := end - 10*unit
		if n := len(p.Time); n > 0 {
			t0 = max(t0, p.Time[n-1])
		}
		t0 = max(t0, 0)
		kernel := g.kernels[0]
		a := t0 + unit
		b := max(a, t0+6*unit+g.noise())
		c := max(b, t0+7*unit+g.noise())
		for _, e := range [...]struct {
			k   trace.EventKind
			t   int64
			ref int32
		}{{trace.Enter, t0, g.rOmp}, {trace.Enter, a, kernel}, {trace.Leave, b, kernel}, {trace.Leave, c, g.rOmp}} {
			p.Kind = append(p.Kind, e.k)
			p.Time = append(p.Time, e.t)
			p.Ref = append(p.Ref, e.ref)
		}
	}
}

// writeEnd writes the end of every rank: the master work, write_output,
// MPI_Finalize and main's end.
func (g *generator) writeEnd() {
	cfg, unit := g.cfg, g.cfg.UnitNs
	for r := range g.ranks {
		gp := &g.ranks[r]
		if r == 0 {
			g.master.writeTasks(g, gp)
			gp.call(g.rWrite, 15*unit+g.noise())
		} else {
			g.master.writeOutput(g, gp)
		}
		if cfg.MPI {
			gp.call(g.rFinalize, 5*unit+g.noise())
		}
		gp.clock += unit
		gp.ev(trace.Leave, gp.clock, g.rMain)
	}
}

// trace returns the trace written, its clock spanning every location.
func (g *generator) trace() *trace.Trace {
	var last int64
	for r := range g.ranks {
		last = max(last, g.ranks[r].clock)
	}
	for _, p := range g.procs {
		if n := len(p.Time); n > 0 {
			last = max(last, p.Time[n-1])
		}
	}
	g.defs.Clock = trace.Clock{Resolution: 1e9, Offset: 0, Length: uint64(last)}
	t := trace.NewTrace(g.defs, g.procs)
	t.SetGeneratorName(fmt.Sprintf("generated %s, %d ranks", string(rune('A'+g.cfg.Version)), g.cfg.Ranks))
	return t
}

func (g *generator) noise() int64 {
	if g.cfg.Noise <= 0 {
		return 0
	}
	return int64(g.rnd.ExpFloat64() * float64(g.cfg.UnitNs) * g.cfg.Noise)
}

// auxNoise is noise drawn from aux.
func (g *generator) auxNoise() int64 {
	if g.cfg.Noise <= 0 {
		return 0
	}
	return int64(g.aux.ExpFloat64() * float64(g.cfg.UnitNs) * g.cfg.Noise)
}

// nested writes a kernel call with its subtree: each level splits its
// parent's duration into Fanout+1 parts, children take one part each.
func (g *generator) nested(gp *genProc, ids [][]int32, id int32, level int, t0, dur int64) {
	gp.ev(trace.Enter, t0, id)
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
	gp.ev(trace.Leave, end, id)
	gp.clock = end
}

// genProc is a location being written, with its clock and its last MPI
// request id.
type genProc struct {
	p     *trace.Process
	clock int64
	req   int64
}

func (g *genProc) ev(k trace.EventKind, t int64, ref int32) {
	p := g.p
	p.Kind = append(p.Kind, k)
	p.Time = append(p.Time, t)
	p.Ref = append(p.Ref, ref)
}

func (g *genProc) msg(k trace.EventKind, t int64, peer, tag int32, bytes, req int64) {
	g.ev(k, t, g.p.Msgs.Add(peer, commOf(peer), tag, bytes, req))
}

func commOf(peer int32) int32 {
	if peer < 0 {
		return -1
	}
	return 0
}

// call writes Enter/Leave of region id lasting dur (>= 1) at gp's clock.
func (gp *genProc) call(id int32, dur int64) {
	gp.ev(trace.Enter, gp.clock, id)
	gp.clock += max(1, dur)
	gp.ev(trace.Leave, gp.clock, id)
}

// neighbours returns rank r's halo partners among n ranks on a ring.
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
