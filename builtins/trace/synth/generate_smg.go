package synth

// An SMG2000-shaped synthetic trace: the benchmark trace of Knüpfer's
// Complete Call Graphs (seeds/knuepfer-2009-complete-call-graphs.txt §5.2:
// SMG2000, a semicoarsening multigrid solver, 8 CPUs, ~36 million events,
// an initialisation phase followed by the solver phase, §5.2.4).

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// SMGConfig shapes GenerateSMG's trace. SMG2000Config returns the
// benchmark preset; all fields are needed (the zero value is rejected).
type SMGConfig struct {
	// Seed makes the trace: the same config gives the same trace.
	Seed int64
	// Ranks is the number of MPI ranks (>= 1), one location each. They sit
	// on a periodic 3-D process grid shaped like MPI_Dims_create's (8 ranks:
	// 2x2x2), so every rank has the same neighbours count and events.
	Ranks int
	// Events is the target number of events per rank: every rank gets
	// the same count, at most 3 below Events (so within ±1% for Events >=
	// 300). The solver iterations take about 93% of them, the setup phase
	// the rest; Events below one iteration plus the setup is an error.
	Events int
	// Levels is the number of multigrid levels (>= 2): level 0 is the
	// finest, Levels-1 the coarsest, solved by relaxation.
	Levels int
	// TickNs is the timer resolution in ns (>= 1): every timestamp is a
	// multiple of it, as with a tick timer.
	TickNs int64
	// Noise is the relative standard deviation of the compute kernels'
	// durations (gaussian, 0 <= Noise <= 0.3), e.g. 0.02.
	Noise float64
	// JitterTicks is the largest jitter, in ticks, added to short calls
	// (MPI_Isend, MPI_Irecv, ...) and to the gaps between events: j ticks
	// with probability proportional to 2^-j, j = 0..JitterTicks (0..64),
	// so that equal durations recur.
	JitterTicks int
	// OutlierRate is the probability (0..1) that a compute kernel or
	// short call is hit by OS noise and lasts 10 to 50 times longer
	// (uniform integer factor), e.g. 1e-4.
	OutlierRate float64
	// GridPoints is the number of grid points per rank on level 0 (>= 1);
	// level l has GridPoints>>l (semicoarsening halves z), at least 1.
	GridPoints int
	// PointNs is the compute time of a unit-weight kernel per grid point,
	// ns (> 0); a kernel lasts PointNs * points(level) * its weight.
	PointNs float64
	// LatencyNs is a message's latency, ns (>= 0); a halo message arrives
	// LatencyNs + Bytes*ByteNs after its MPI_Isend.
	LatencyNs int64
	// ByteNs is a message's transfer time per byte, ns (>= 0).
	ByteNs float64
}

// SMG2000Config returns the benchmark preset of Knüpfer §5.2 at the given
// size: SMG2000Config(8, 4_500_000) is the seed's trace of 8 CPUs and 36
// million events (1,336 solver iterations of 7 levels, 3,132 events each,
// over 49.9 s; the setup takes the first 315,635 events and 2.6 s). 1 ns
// ticks, 2% compute noise, short calls jittered by up to 3 ticks, one
// outlier in 10^4 calls, 64^3 points per rank, a 5 µs, 1 GB/s network.
func SMG2000Config(ranks, eventsPerRank int) SMGConfig {
	return SMGConfig{Seed: 1, Ranks: ranks, Events: eventsPerRank, Levels: 7, TickNs: 1, Noise: 0.02,
		JitterTicks: 3, OutlierRate: 1e-4, GridPoints: 64 * 64 * 64, PointNs: 6.4, LatencyNs: 5000, ByteNs: 1}
}

// check returns why cfg cannot be generated, naming the field, or nil.
func (cfg SMGConfig) check() error {
	switch {
	case cfg.Ranks < 1 || cfg.Ranks > maxGenCount:
		return fmt.Errorf("config field Ranks %d: need 1..%d", cfg.Ranks, maxGenCount)
	case cfg.Levels < 2 || cfg.Levels > 40:
		return fmt.Errorf("config field Levels %d: need 2..40", cfg.Levels)
	case cfg.TickNs < 1:
		return fmt.Errorf("config field TickNs %d: need >= 1", cfg.TickNs)
	case !(cfg.Noise >= 0 && cfg.Noise <= 0.3):
		return fmt.Errorf("config field Noise %g: need 0 <= Noise <= 0.3", cfg.Noise)
	case cfg.JitterTicks < 0 || cfg.JitterTicks > 64:
		return fmt.Errorf("config field JitterTicks %d: need 0..64", cfg.JitterTicks)
	case !(cfg.OutlierRate >= 0 && cfg.OutlierRate <= 1):
		return fmt.Errorf("config field OutlierRate %g: need 0 <= OutlierRate <= 1", cfg.OutlierRate)
	case cfg.GridPoints < 1:
		return fmt.Errorf("config field GridPoints %d: need >= 1", cfg.GridPoints)
	case !(cfg.PointNs > 0 && cfg.PointNs < 1e9):
		return fmt.Errorf("config field PointNs %g: need 0 < PointNs < 1e9", cfg.PointNs)
	case cfg.LatencyNs < 0:
		return fmt.Errorf("config field LatencyNs %d: need >= 0", cfg.LatencyNs)
	case !(cfg.ByteNs >= 0 && cfg.ByteNs < 1e9):
		return fmt.Errorf("config field ByteNs %g: need 0 <= ByteNs < 1e9", cfg.ByteNs)
	case cfg.Events < 1 || cfg.Events > maxGenEvents:
		return fmt.Errorf("config field Events %d: need 1..%d", cfg.Events, int64(maxGenEvents))
	case int64(cfg.Ranks)*int64(cfg.Events) > maxGenEvents:
		return fmt.Errorf("config fields Ranks %d and Events %d: %d events, the limit is %d", cfg.Ranks, cfg.Events, int64(cfg.Ranks)*int64(cfg.Events), int64(maxGenEvents))
	}
	return nil
}

// GenerateSMG returns a deterministic synthetic trace shaped like
// SMG2000's (Knüpfer §5.2): Ranks locations ("MPI Rank r"), each running
//
//	main
//	  MPI_Init
//	  hypre_StructGridAssemble (MPI_Allgather)
//	  HYPRE_StructMatrixSetBoxValues -> hypre_StructMatrixSetBoxValues, many times
//	  hypre_StructMatrixAssemble (halo exchange)
//	  hypre_SMGSetup, per level l: hypre_SMGRelaxSetup, and above the coarsest
//	    hypre_SMGSetupInterpOp (-> hypre_SMGRelax, hypre_StructMatrixAssemble),
//	    hypre_SMGSetupRestrictOp, hypre_SMGSetupRAPOp (-> hypre_SMG3BuildRAPSym
//	    per box, hypre_StructMatrixAssemble of level l+1)
//	  hypre_SMGSolve: hypre_StructInnerProd (MPI_Allreduce), then per
//	    iteration a V-cycle: per level down hypre_SMGRelax, hypre_SMGResidual,
//	    hypre_SemiRestrict; hypre_SMGRelax on the coarsest level; per level up
//	    hypre_SemiInterp, hypre_StructAxpy, hypre_SMGRelax; hypre_StructInnerProd
//	    (MPI_Allreduce, the residual norm)
//	  MPI_Finalize
//
// where hypre_SMGRelax runs two sweeps of hypre_SMGResidual and
// hypre_CyclicReduction, hypre_SMGResidual calls hypre_StructCopy and
// hypre_StructMatvec, and every halo exchange (in hypre_StructMatvec,
// hypre_SemiRestrict, hypre_SemiInterp, hypre_StructMatrixAssemble) is
// hypre_InitializeCommunication (MPI_Irecv, then MPI_Isend, to each
// neighbour) and hypre_FinalizeCommunication (MPI_Waitall). Level 0
// exchanges with the face neighbours of the process grid, coarser levels
// (whose RAP operators have 27-point stencils) with all 26 directions;
// halo messages carry 8 bytes per point of the shared face (n^2 points),
// edge (n) or corner (1), n = cbrt(GridPoints), halved per level (at
// least 8 bytes); tag 16*level + exchange kind.
//
// Times are ns, multiples of TickNs. Compute kernels last PointNs *
// points(level) * weight * (1 + Noise*gaussian); short calls and the gaps
// between events a constant plus up to JitterTicks ticks; MPI_Waitall ends
// once its messages arrived, MPI_Allreduce once every rank entered it.
// GenerateSMG panics with a *work.Error naming the field of an invalid config
// (or wrapping work.ErrInterrupted when the running cell is interrupted),
// as Generate does; TryGenerateSMG returns it.
func GenerateSMG(cfg SMGConfig) *trace.Trace {
	tr, err := TryGenerateSMG(cfg)
	if err != nil {
		panic(err)
	}
	return tr
}

// TryGenerateSMG is GenerateSMG returning the error instead of panicking.
func TryGenerateSMG(cfg SMGConfig) (*trace.Trace, error) {
	if err := cfg.check(); err != nil {
		return nil, smgError(err)
	}
	// Every rank gets about Events events: check the memory before the
	// per-rank tables are built.
	if err := work.Reserve(smgFunc, int64(cfg.Ranks)*int64(cfg.Events)*(trace.EventBytes+12)); err != nil {
		return nil, smgError(err)
	}
	g := newSMGGen(cfg)
	if err := g.plan(); err != nil {
		return nil, smgError(err)
	}
	perRank := g.pro.events + g.iters*g.iter.events + g.epi.events
	if err := work.Reserve(smgFunc, int64(cfg.Ranks)*int64(perRank)*(trace.EventBytes+12)); err != nil {
		return nil, smgError(err)
	}
	job := work.Start(smgFunc, int64(g.iters), "iterations")
	defer job.Done()
	procs := g.alloc(perRank)
	g.run(&g.pro)
	for range g.iters {
		if err := job.Add(1); err != nil {
			return nil, smgError(err)
		}
		g.run(&g.iter)
	}
	g.run(&g.epi)
	var last int64
	for i := range g.ranks {
		last = max(last, g.ranks[i].clock)
	}
	g.defs.Clock = trace.Clock{Resolution: 1e9, Offset: 0, Length: uint64(last)}
	t := trace.NewTrace(g.defs, procs)
	t.SetGeneratorName(fmt.Sprintf("generated SMG, %d ranks", cfg.Ranks))
	return t, nil
}

// smgFunc names GenerateSMG in its errors.
const smgFunc = "synth.GenerateSMG"

// smgError is GenerateSMG's *work.Error of err: a bad field, the memory
// limit or an interrupt (errors.Is and errors.As find the cause).
func smgError(err error) *work.Error {
	return &work.Error{Func: smgFunc, Msg: err.Error(), Err: err}
}

// smgOp is an instruction of the rank-independent program GenerateSMG
// interprets for every rank.
type smgOp uint8

const (
	smgEnter     smgOp = iota // Enter region
	smgLeave                  // Leave region
	smgWork                   // compute time inside the current region, no event
	smgCompute                // a leaf call lasting a compute kernel's time
	smgShort                  // a leaf call lasting a near-constant time
	smgIrecv                  // MPI_Irecv from neighbour peer
	smgIsend                  // MPI_Isend to neighbour peer
	smgRepeat                 // the next peer instructions, base times (no sync among them)
	smgWaitall                // MPI_Waitall for the exchange's requests (sync)
	smgAllreduce              // MPI_Allreduce (sync)
	smgAllgather              // MPI_Allgather (sync)
)

// smgInstr is one instruction. Every instruction first advances the clock
// by a gap.
type smgInstr struct {
	op     smgOp
	set    uint8 // neighbour set of Irecv/Isend/Waitall: 0 faces, 1 all directions
	region int32
	peer   int32   // neighbour index (Irecv, Isend); body length (Repeat)
	tag    int32   // message tag
	level  int32   // multigrid level (message bytes)
	mean   float64 // compute: mean duration, ns
	base   int64   // short: base duration, ticks; Repeat: count
}

// smgProg is a program with its per-rank counts.
type smgProg struct {
	ins                 []smgInstr
	events, msgs, colls int
	syncs               []int // indices of the sync instructions, in order
}

// smgRank is one rank's generation state.
type smgRank struct {
	genProc
	rnd     *rand.Rand
	src     *rand.PCG
	sendT   []int64 // MpiIsend time to neighbour j in the current exchange
	sendReq []int64
	recvReq []int64
	begin   int64 // collective begin
}

// smgGen holds the definitions, the neighbour tables and the programs.
type smgGen struct {
	cfg     SMGConfig
	defs    *trace.Definitions
	regions map[string]int32
	tick    int64
	gap     int64        // gap base, ticks
	jit     [256]int64   // jitter in ticks by a random byte
	nb      [2][][]int32 // [set][rank] neighbour ranks
	rev     [2][][]int32 // [set][rank][j]: index of rank in nb[set][nb[set][rank][j]]
	class   [2][][]uint8 // [set][rank][j]: 1 face, 2 edge, 3 corner
	side    int          // n = cbrt(GridPoints)
	ranks   []smgRank
	fill    int // units of 4 setup events that bring a rank to Events
	iters   int
	pro     smgProg // main .. hypre_SMGSolve's first inner product
	iter    smgProg // one V-cycle iteration
	epi     smgProg // the end of hypre_SMGSolve .. main
}

// Tunables of the shape (ns unless noted).
const (
	smgSetupShare   = 0.07 // share of the events in the setup phase
	smgGapNs        = 40   // gap between consecutive events
	smgIsendNs      = 1500
	smgIrecvNs      = 900
	smgWaitallNs    = 700  // MPI_Waitall without waiting
	smgCollNs       = 6000 // per log2(Ranks) step of a collective
	smgBoxPoints    = 4096 // a box of the driver's SetBoxValues loop
	smgCRLevels     = 3    // hypre_CyclicReductionCompute calls per cyclic reduction
	smgRelaxSweeps  = 2
	smgTagsPerLevel = 16
)

// Exchange kinds (tag = 16*level + kind).
const (
	smgTagMatvec   = 1
	smgTagRestrict = 2
	smgTagInterp   = 3
	smgTagAssemble = 4
)

func newSMGGen(cfg SMGConfig) *smgGen {
	g := &smgGen{cfg: cfg, tick: cfg.TickNs, regions: map[string]int32{},
		defs: &trace.Definitions{Properties: map[string]string{"generator": "tracebook trace.GenerateSMG"}}}
	g.gap = max(1, int64(math.Round(smgGapNs/float64(g.tick))))
	// jitter: j ticks with probability ∝ 2^-j, j = 0..JitterTicks
	var w, sum float64
	for j := 0; j <= cfg.JitterTicks; j++ {
		sum += math.Ldexp(1, -j)
	}
	j := 0
	w = 1 / sum
	acc := w
	for b := range g.jit {
		for (float64(b)+0.5)/256 > acc && j < cfg.JitterTicks {
			j++
			w /= 2
			acc += w
		}
		g.jit[b] = int64(j)
	}
	g.side = max(1, int(math.Round(math.Cbrt(float64(cfg.GridPoints)))))
	g.neighbours()
	return g
}

// smgDims factors n into a 3-D process grid as MPI_Dims_create does:
// prime factors, largest first, each onto the smallest dimension.
func smgDims(n int) [3]int {
	d := [3]int{1, 1, 1}
	var ps []int
	for p := 2; p*p <= n; p++ {
		for n%p == 0 {
			ps = append(ps, p)
			n /= p
		}
	}
	if n > 1 {
		ps = append(ps, n)
	}
	for i := len(ps) - 1; i >= 0; i-- {
		k := 0
		for m := 1; m < 3; m++ {
			if d[m] < d[k] {
				k = m
			}
		}
		d[k] *= ps[i]
	}
	// largest first, as MPI_Dims_create
	if d[0] < d[1] {
		d[0], d[1] = d[1], d[0]
	}
	if d[1] < d[2] {
		d[1], d[2] = d[2], d[1]
	}
	if d[0] < d[1] {
		d[0], d[1] = d[1], d[0]
	}
	return d
}

// neighbours fills the neighbour tables of the periodic process grid:
// set 0 the 6 face directions, set 1 all 26 (faces, edges, corners),
// each distinct peer once with the class of its first direction.
func (g *smgGen) neighbours() {
	n := g.cfg.Ranks
	d := smgDims(n)
	var offs [][3]int
	for c := 1; c <= 3; c++ {
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				for dz := -1; dz <= 1; dz++ {
					if smgAbs(dx)+smgAbs(dy)+smgAbs(dz) == c {
						offs = append(offs, [3]int{dx, dy, dz})
					}
				}
			}
		}
	}
	rankOf := func(x, y, z int) int32 {
		x, y, z = (x+d[0])%d[0], (y+d[1])%d[1], (z+d[2])%d[2]
		return int32((x*d[1]+y)*d[2] + z)
	}
	for set, m := range [2]int{6, 26} {
		g.nb[set] = make([][]int32, n)
		g.class[set] = make([][]uint8, n)
		g.rev[set] = make([][]int32, n)
		for r := 0; r < n; r++ {
			x, y, z := r/(d[1]*d[2]), r/d[2]%d[1], r%d[2]
			seen := map[int32]bool{int32(r): true}
			for _, o := range offs[:m] {
				p := rankOf(x+o[0], y+o[1], z+o[2])
				if !seen[p] {
					seen[p] = true
					g.nb[set][r] = append(g.nb[set][r], p)
					g.class[set][r] = append(g.class[set][r], uint8(smgAbs(o[0])+smgAbs(o[1])+smgAbs(o[2])))
				}
			}
		}
		for r := 0; r < n; r++ {
			g.rev[set][r] = make([]int32, len(g.nb[set][r]))
			for j, p := range g.nb[set][r] {
				g.rev[set][r][j] = -1
				for i, q := range g.nb[set][p] {
					if q == int32(r) {
						g.rev[set][r][j] = int32(i)
					}
				}
			}
		}
	}
}

func smgAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bytes returns the halo message size between rank r and its neighbour j
// of set at level l (the same from both ends: the class is symmetric).
func (g *smgGen) bytes(set uint8, r int, j int32, l int32) int64 {
	n := int64(g.side)
	var b int64
	switch g.class[set][r][j] {
	case 1:
		b = 8 * n * n
	case 2:
		b = 8 * n
	default:
		b = 8
	}
	return max(8, b>>l)
}

// points returns the grid points of level l.
func (g *smgGen) points(l int) float64 {
	return float64(max(1, g.cfg.GridPoints>>l))
}

func (g *smgGen) region(name, paradigm, role string) int32 {
	if id, ok := g.regions[name]; ok {
		return id
	}
	id := int32(len(g.defs.Regions))
	g.defs.Regions = append(g.defs.Regions, trace.Region{Name: name, Canonical: name, Role: role, Paradigm: paradigm})
	g.regions[name] = id
	return id
}

func (g *smgGen) user(name string) int32 { return g.region(name, "user", "function") }

// plan builds the three programs and picks the iteration count and the
// setup fill so that each rank gets Events events, at most 3 fewer.
func (g *smgGen) plan() error {
	cfg := g.cfg
	g.fill = 0 // (region ids in order of first call: the prologue first)
	g.pro = g.build(0, 2, func(b *smgBuilder) { b.prologue() })
	g.iter = g.build(2, 2, func(b *smgBuilder) { b.iteration() })
	g.epi = g.build(2, 0, func(b *smgBuilder) { b.epilogue() })
	fixed := g.pro.events + g.epi.events
	g.iters = int((1 - smgSetupShare) * float64(cfg.Events) / float64(g.iter.events))
	if fixed+g.iters*g.iter.events > cfg.Events {
		g.iters = (cfg.Events - fixed) / g.iter.events
	}
	if g.iters < 1 || cfg.Events-fixed < g.iter.events {
		//lint:ignore ST1005 the message starts with the field's name, as the others here do
		return fmt.Errorf("Events %d: too few for the setup (%d) and one iteration (%d) of %d levels on %d ranks",
			cfg.Events, fixed, g.iter.events, cfg.Levels, cfg.Ranks)
	}
	g.fill = (cfg.Events - fixed - g.iters*g.iter.events) / 4
	g.pro = g.build(0, 2, func(b *smgBuilder) { b.prologue() })
	return nil
}

// smgBuilder appends instructions to a program, counting its events,
// message rows and collective rows.
type smgBuilder struct {
	g     *smgGen
	p     *smgProg
	depth int
}

// build returns the program f writes, which starts inside from open
// calls and ends inside to.
func (g *smgGen) build(from, to int, f func(*smgBuilder)) smgProg {
	var p smgProg
	b := &smgBuilder{g: g, p: &p, depth: from}
	f(b)
	if b.depth != to {
		panic(fmt.Sprintf("trace: GenerateSMG: program ends %d calls deep, want %d", b.depth, to))
	}
	return p
}

func (b *smgBuilder) add(in smgInstr) {
	p := b.p
	k := len(b.g.nb[in.set][0])
	switch in.op {
	case smgEnter, smgLeave:
		p.events++
	case smgCompute, smgShort:
		p.events += 2
	case smgIrecv, smgIsend:
		p.events += 3
		p.msgs++
	case smgWaitall:
		p.events += 2 + 2*k
		p.msgs += 2 * k
	case smgAllreduce, smgAllgather:
		p.events += 4
		p.colls++
	}
	if in.op >= smgWaitall {
		p.syncs = append(p.syncs, len(p.ins))
	}
	p.ins = append(p.ins, in)
}

// repeat adds body n times as one Repeat instruction (n >= 0): the
// setup's box loops stay a few instructions long at any Events.
func (b *smgBuilder) repeat(n int, body func()) {
	p := b.p
	at := len(p.ins)
	b.add(smgInstr{op: smgRepeat, base: int64(n)})
	events, msgs, colls, syncs := p.events, p.msgs, p.colls, len(p.syncs)
	body()
	if len(p.syncs) != syncs {
		panic("trace: GenerateSMG: sync instruction in a repeated body")
	}
	p.ins[at].peer = int32(len(p.ins) - at - 1)
	p.events += (n - 1) * (p.events - events)
	p.msgs += (n - 1) * (p.msgs - msgs)
	p.colls += (n - 1) * (p.colls - colls)
}

func (b *smgBuilder) enter(name string) {
	b.depth++
	b.add(smgInstr{op: smgEnter, region: b.g.user(name)})
}
func (b *smgBuilder) leave(name string) {
	b.depth--
	b.add(smgInstr{op: smgLeave, region: b.g.user(name)})
}

// work adds exclusive compute time of weight w on level l.
func (b *smgBuilder) work(l int, w float64) {
	b.add(smgInstr{op: smgWork, mean: w * b.g.points(l) * b.g.cfg.PointNs})
}

// compute adds a leaf kernel of weight w on level l.
func (b *smgBuilder) compute(name string, l int, w float64) {
	b.add(smgInstr{op: smgCompute, region: b.g.user(name), mean: w * b.g.points(l) * b.g.cfg.PointNs})
}

// short adds a leaf call of near-constant duration ns.
func (b *smgBuilder) short(id int32, ns float64) {
	b.add(smgInstr{op: smgShort, region: id, base: max(1, int64(math.Round(ns/float64(b.g.tick))))})
}

func (b *smgBuilder) mpi(name, role string) int32 { return b.g.region(name, "mpi", role) }

// exchange adds a halo exchange on level l; mid runs between posting
// and waiting (the overlapped interior computation), may be nil.
func (b *smgBuilder) exchange(l int, kind int32, mid func()) {
	set := uint8(0)
	if l > 0 {
		set = 1
	}
	k := len(b.g.nb[set][0])
	tag := int32(smgTagsPerLevel*l) + kind
	b.enter("hypre_InitializeCommunication")
	irecv, isend := b.mpi("MPI_Irecv", "point2point"), b.mpi("MPI_Isend", "point2point")
	for j := range k {
		b.add(smgInstr{op: smgIrecv, set: set, region: irecv, peer: int32(j), tag: tag, level: int32(l),
			base: max(1, int64(math.Round(smgIrecvNs/float64(b.g.tick))))})
	}
	for j := range k {
		b.add(smgInstr{op: smgIsend, set: set, region: isend, peer: int32(j), tag: tag, level: int32(l),
			base: max(1, int64(math.Round(smgIsendNs/float64(b.g.tick))))})
	}
	b.leave("hypre_InitializeCommunication")
	if mid != nil {
		mid()
	}
	b.enter("hypre_FinalizeCommunication")
	b.add(smgInstr{op: smgWaitall, set: set, region: b.mpi("MPI_Waitall", "point2point"), tag: tag, level: int32(l),
		base: max(1, int64(math.Round(smgWaitallNs/float64(b.g.tick))))})
	b.leave("hypre_FinalizeCommunication")
}

func (b *smgBuilder) matvec(l int) {
	b.enter("hypre_StructMatvec")
	b.exchange(l, smgTagMatvec, func() { b.compute("hypre_StructMatvecCompute", l, 0.9) })
	b.compute("hypre_StructMatvecCompute", l, 0.1)
	b.leave("hypre_StructMatvec")
}

func (b *smgBuilder) residual(l int) {
	b.enter("hypre_SMGResidual")
	b.compute("hypre_StructCopy", l, 0.15)
	b.matvec(l)
	b.leave("hypre_SMGResidual")
}

func (b *smgBuilder) relax(l int) {
	b.enter("hypre_SMGRelax")
	b.work(l, 0.05)
	for range smgRelaxSweeps {
		b.residual(l)
		b.enter("hypre_CyclicReduction")
		for c := range smgCRLevels {
			b.compute("hypre_CyclicReductionCompute", l, 0.5/float64(int(1)<<c))
		}
		b.leave("hypre_CyclicReduction")
	}
	b.leave("hypre_SMGRelax")
}

func (b *smgBuilder) innerProd() {
	b.enter("hypre_StructInnerProd")
	b.work(0, 0.1)
	b.add(smgInstr{op: smgAllreduce, region: b.mpi("MPI_Allreduce", "coll_all2all")})
	b.leave("hypre_StructInnerProd")
}

func (b *smgBuilder) assemble(l int) {
	b.enter("hypre_StructMatrixAssemble")
	b.compute("hypre_CommPkgCreate", l, 0.05)
	b.exchange(l, smgTagAssemble, nil)
	b.leave("hypre_StructMatrixAssemble")
}

// iteration is one V(1,1)-cycle and the residual norm.
func (b *smgBuilder) iteration() {
	L := b.g.cfg.Levels
	for l := 0; l < L-1; l++ {
		b.relax(l)
		b.residual(l)
		b.enter("hypre_SemiRestrict")
		b.exchange(l, smgTagRestrict, nil)
		b.work(l, 0.3)
		b.leave("hypre_SemiRestrict")
	}
	b.relax(L - 1)
	for l := L - 2; l >= 0; l-- {
		b.enter("hypre_SemiInterp")
		b.exchange(l+1, smgTagInterp, nil)
		b.work(l, 0.3)
		b.leave("hypre_SemiInterp")
		b.compute("hypre_StructAxpy", l, 0.1)
		b.relax(l)
	}
	b.innerProd()
}

// prologue is main's start, the setup phase and hypre_SMGSolve's start;
// g.fill units of 4 events (box loops) bring a rank to its target.
func (b *smgBuilder) prologue() {
	g := b.g
	L := g.cfg.Levels
	b.enter("main")
	b.add(smgInstr{op: smgCompute, region: b.mpi("MPI_Init", "function"), mean: 150e6})
	b.enter("hypre_StructGridAssemble")
	b.work(0, 0.2)
	b.add(smgInstr{op: smgAllgather, region: b.mpi("MPI_Allgather", "coll_all2all")})
	b.leave("hypre_StructGridAssemble")
	// half the fill: the driver's SetBoxValues loop; the rest: RAP boxes
	// by level, proportional to the level's points.
	driver := (g.fill + 1) / 2
	rap := make([]int, max(1, L-1))
	rest := g.fill - driver
	var wsum float64
	for l := range rap {
		wsum += math.Ldexp(1, -l)
	}
	used := 0
	for l := range rap {
		rap[l] = int(float64(rest) * math.Ldexp(1, -l) / wsum)
		used += rap[l]
	}
	rap[0] += rest - used
	box := float64(smgBoxPoints) / g.points(0)
	b.repeat(driver, func() {
		b.enter("HYPRE_StructMatrixSetBoxValues")
		b.compute("hypre_StructMatrixSetBoxValues", 0, box)
		b.leave("HYPRE_StructMatrixSetBoxValues")
	})
	b.assemble(0)
	b.enter("hypre_SMGSetup")
	for l := 0; l < L; l++ {
		b.enter("hypre_SMGRelaxSetup")
		b.compute("hypre_SMGRelaxSetupARem", l, 0.2)
		b.compute("hypre_CyclicReductionSetup", l, 0.3)
		b.leave("hypre_SMGRelaxSetup")
		if l == L-1 {
			break
		}
		b.enter("hypre_SMGSetupInterpOp")
		b.relax(l)
		b.work(l, 0.2)
		b.assemble(l)
		b.leave("hypre_SMGSetupInterpOp")
		b.compute("hypre_SMGSetupRestrictOp", l, 0.05)
		b.enter("hypre_SMGSetupRAPOp")
		b.repeat(rap[l], func() {
			b.enter("hypre_SMG3BuildRAPSym")
			b.short(b.g.user("hypre_StructMatrixExtractPointerByIndex"), 200)
			b.work(l, 2*box)
			b.leave("hypre_SMG3BuildRAPSym")
		})
		b.assemble(l + 1)
		b.leave("hypre_SMGSetupRAPOp")
	}
	b.leave("hypre_SMGSetup")
	b.enter("hypre_SMGSolve")
	b.innerProd()
}

// epilogue ends hypre_SMGSolve and main.
func (b *smgBuilder) epilogue() {
	b.leave("hypre_SMGSolve")
	b.add(smgInstr{op: smgCompute, region: b.mpi("MPI_Finalize", "function"), mean: 2e6})
	b.leave("main")
}

// alloc writes the location definitions and allocates every rank's
// columns at their exact final size.
func (g *smgGen) alloc(perRank int) []*trace.Process {
	cfg := g.cfg
	defs := g.defs
	nodes := (cfg.Ranks + 1) / 2 // dual-CPU nodes, as the seed's cluster
	defs.SystemTree = make([]trace.SystemTreeNode, 1+nodes)
	defs.SystemTree[0] = trace.SystemTreeNode{Name: "machine", Class: "machine", Parent: -1}
	for i := range nodes {
		defs.SystemTree[1+i] = trace.SystemTreeNode{Name: fmt.Sprintf("node %d", i), Class: "node", Parent: 0}
	}
	defs.LocationGroups = make([]trace.LocationGroup, cfg.Ranks)
	defs.Locations = make([]trace.Location, cfg.Ranks)
	members := make([]uint64, cfg.Ranks)
	store := make([]trace.Process, cfg.Ranks)
	procs := make([]*trace.Process, cfg.Ranks)
	g.ranks = make([]smgRank, cfg.Ranks)
	msgs := g.pro.msgs + g.iters*g.iter.msgs + g.epi.msgs
	colls := g.pro.colls + g.iters*g.iter.colls + g.epi.colls
	kmax := len(g.nb[1][0])
	for r := range cfg.Ranks {
		members[r] = uint64(r)
		defs.LocationGroups[r] = trace.LocationGroup{Name: fmt.Sprintf("MPI Rank %d", r), Type: "process", SystemNode: int32(1 + r/2)}
		defs.Locations[r] = trace.Location{Name: "Master thread", Type: "cpu_thread", Group: int32(r), NumEvents: uint64(perRank)}
		p := &store[r]
		p.Rank, p.Name = int32(r), fmt.Sprintf("MPI Rank %d", r)
		p.Kind, p.Time, p.Ref = make([]trace.EventKind, 0, perRank), make([]int64, 0, perRank), make([]int32, 0, perRank)
		m := &p.Msgs
		m.Peer, m.Comm, m.Tag = make([]int32, 0, msgs), make([]int32, 0, msgs), make([]int32, 0, msgs)
		m.Bytes, m.Request = make([]int64, 0, msgs), make([]int64, 0, msgs)
		c := &p.Colls
		c.Op, c.Comm, c.Root = make([]uint8, 0, colls), make([]int32, 0, colls), make([]uint32, 0, colls)
		c.Sent, c.Received = make([]int64, 0, colls), make([]int64, 0, colls)
		procs[r] = p
		rk := &g.ranks[r]
		rk.p = p
		rk.src = rand.NewPCG(uint64(cfg.Seed), 0x736d673230303000^uint64(r))
		rk.rnd = rand.New(rk.src)
		rk.sendT, rk.sendReq, rk.recvReq = make([]int64, kmax), make([]int64, kmax), make([]int64, kmax)
		// ranks start within 100 ticks of each other
		rk.clock = int64(rk.src.Uint64()%100) * g.tick
	}
	defs.Groups = []trace.Group{
		{Name: "MPI locations", Type: "comm_locations", Paradigm: "mpi", Members: members},
		{Name: "MPI_COMM_WORLD group", Type: "comm_group", Paradigm: "mpi", Members: members},
	}
	defs.Comms = []trace.Comm{{Name: "MPI_COMM_WORLD", Group: 1, Parent: -1}}
	return procs
}

// run interprets p for every rank: rank by rank up to each sync
// instruction, then the sync instruction across the ranks.
func (g *smgGen) run(p *smgProg) {
	start := 0
	for s := 0; s <= len(p.syncs); s++ {
		end := len(p.ins)
		if s < len(p.syncs) {
			end = p.syncs[s]
		}
		seg := p.ins[start:end]
		for r := range g.ranks {
			g.exec(&g.ranks[r], seg)
		}
		if s < len(p.syncs) {
			g.sync(&p.ins[end])
		}
		start = end + 1
	}
}

// gapTicks draws a gap before an event from u's low byte.
func (g *smgGen) gapTicks(u uint64) int64 { return (g.gap + g.jit[u&255]) * g.tick }

// short returns a short call's duration, ns: base plus jitter from u's
// second byte, rarely an outlier.
func (g *smgGen) short(base int64, u uint64) int64 {
	return g.outlier(base+g.jit[u>>8&255], u) * g.tick
}

// compute returns a compute kernel's duration, ns.
func (g *smgGen) compute(rk *smgRank, mean float64, u uint64) int64 {
	d := mean
	if g.cfg.Noise > 0 {
		d *= 1 + g.cfg.Noise*rk.rnd.NormFloat64()
	}
	return g.outlier(max(1, int64(math.Round(d/float64(g.tick)))), u) * g.tick
}

// outlier multiplies ticks by 10..50 with probability OutlierRate, drawn
// from u's upper 40 bits (and bits 16..23 for the factor).
func (g *smgGen) outlier(ticks int64, u uint64) int64 {
	if g.cfg.OutlierRate > 0 && float64(u>>24) < g.cfg.OutlierRate*(1<<40) {
		return ticks * (10 + int64(u>>16&255)%41)
	}
	return ticks
}

// exec interprets the instructions of seg (no sync among them) on rk.
func (g *smgGen) exec(rk *smgRank, seg []smgInstr) {
	for i := 0; i < len(seg); i++ {
		in := &seg[i]
		if in.op != smgRepeat {
			g.step(rk, in)
			continue
		}
		body := seg[i+1 : i+1+int(in.peer)]
		for range in.base {
			g.exec(rk, body)
		}
		i += len(body)
	}
}

// step interprets one non-sync instruction on rank rk.
func (g *smgGen) step(rk *smgRank, in *smgInstr) {
	u := rk.src.Uint64()
	rk.clock += g.gapTicks(u)
	switch in.op {
	case smgEnter:
		rk.ev(trace.Enter, rk.clock, in.region)
	case smgLeave:
		rk.ev(trace.Leave, rk.clock, in.region)
	case smgWork:
		rk.clock += g.compute(rk, in.mean, u)
	case smgCompute:
		rk.ev(trace.Enter, rk.clock, in.region)
		rk.clock += g.compute(rk, in.mean, u)
		rk.ev(trace.Leave, rk.clock, in.region)
	case smgShort:
		rk.ev(trace.Enter, rk.clock, in.region)
		rk.clock += g.short(in.base, u)
		rk.ev(trace.Leave, rk.clock, in.region)
	case smgIrecv, smgIsend:
		d := g.short(in.base, u)
		t := rk.clock + d/g.tick/2*g.tick
		rk.ev(trace.Enter, rk.clock, in.region)
		rk.req++
		if in.op == smgIrecv {
			rk.recvReq[in.peer] = rk.req
			rk.msg(trace.MpiIrecvRequest, t, -1, -1, 0, rk.req)
		} else {
			r := int(rk.p.Rank)
			rk.sendT[in.peer], rk.sendReq[in.peer] = t, rk.req
			rk.msg(trace.MpiIsend, t, g.nb[in.set][r][in.peer], in.tag, g.bytes(in.set, r, in.peer, in.level), rk.req)
		}
		rk.clock += d
		rk.ev(trace.Leave, rk.clock, in.region)
	default:
		panic("trace: GenerateSMG: sync instruction in a segment")
	}
}

// sync interprets a sync instruction on every rank.
func (g *smgGen) sync(in *smgInstr) {
	switch in.op {
	case smgWaitall:
		for r := range g.ranks {
			g.waitall(&g.ranks[r], in)
		}
	case smgAllreduce, smgAllgather:
		var last int64
		for r := range g.ranks {
			rk := &g.ranks[r]
			rk.clock += g.gapTicks(rk.src.Uint64())
			rk.ev(trace.Enter, rk.clock, in.region)
			rk.ev(trace.MpiCollectiveBegin, rk.clock, -1)
			rk.begin = rk.clock
			last = max(last, rk.clock)
		}
		steps := int64(bits.Len(uint(len(g.ranks) - 1)))
		coll := max(1, (smgCollNs*steps+g.tick-1)/g.tick) * g.tick
		op, sent, recv := uint8(11), int64(8), int64(8) // ALLREDUCE of one double
		if in.op == smgAllgather {
			op, sent, recv = 6, 48, 48*int64(len(g.ranks)) // ALLGATHER of a box
		}
		for r := range g.ranks {
			rk := &g.ranks[r]
			u := rk.src.Uint64()
			rk.clock = last + coll + g.jit[u&255]*g.tick
			rk.ev(trace.MpiCollectiveEnd, rk.clock, rk.p.Colls.Add(op, 0, trace.RootNone, sent, recv))
			rk.clock += g.gapTicks(u >> 8)
			rk.ev(trace.Leave, rk.clock, in.region)
		}
	}
}

// waitall completes rk's exchange: its receives once their messages have
// arrived (sender's MpiIsend + latency + bytes), then its sends.
func (g *smgGen) waitall(rk *smgRank, in *smgInstr) {
	u := rk.src.Uint64()
	rk.clock += g.gapTicks(u)
	rk.ev(trace.Enter, rk.clock, in.region)
	r := int(rk.p.Rank)
	done := rk.clock + g.short(in.base, u)
	nb := g.nb[in.set][r]
	for j, p := range nb {
		bytes := g.bytes(in.set, r, int32(j), in.level)
		sent := g.ranks[p].sendT[g.rev[in.set][r][j]]
		arrive := sent + g.cfg.LatencyNs + int64(math.Ceil(float64(bytes)*g.cfg.ByteNs))
		done = max(done, (arrive+g.tick-1)/g.tick*g.tick)
	}
	for j, p := range nb {
		rk.msg(trace.MpiIrecv, done, p, in.tag, g.bytes(in.set, r, int32(j), in.level), rk.recvReq[j])
	}
	for j := range nb {
		rk.msg(trace.MpiIsendComplete, done, -1, -1, 0, rk.sendReq[j])
	}
	rk.clock = done + g.gapTicks(rk.src.Uint64())
	rk.ev(trace.Leave, rk.clock, in.region)
}
