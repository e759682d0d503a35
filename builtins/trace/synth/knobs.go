package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/tracebook/tracebook/builtins/internal/mix"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// workload is the class table of GenConfig.Workloads.
type workload struct {
	cum     []float64 // cum[k]: summed weight of classes 0..k
	masks   []uint64  // paths class k takes
	callers int       // workloadCallers in use
}

// workload returns cfg's class table, nil without Workloads. The masks are
// distinct seeded random subsets of the paths, each path with probability 1/2.
func (cfg GenConfig) workload() *workload {
	if cfg.Workloads <= 0 || cfg.WorkloadPaths < 1 || cfg.WorkloadPaths > 62 || cfg.Workloads > 1<<min(cfg.WorkloadPaths, 20) {
		return nil // (Generate rejects the invalid ones)
	}
	w := &workload{cum: make([]float64, cfg.Workloads), masks: make([]uint64, 0, cfg.Workloads),
		callers: min(len(workloadCallers), cfg.WorkloadPaths)}
	sum := 0.0
	for k := range w.cum {
		sum += math.Pow(float64(k+1), -cfg.WorkloadSkew)
		w.cum[k] = sum
	}
	rnd := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x776f726b6c6f6164))
	seen := make(map[uint64]bool, cfg.Workloads)
	for len(w.masks) < cfg.Workloads {
		m := rnd.Uint64() & (1<<cfg.WorkloadPaths - 1)
		if !seen[m] {
			seen[m] = true
			w.masks = append(w.masks, m)
		}
	}
	return w
}

// class returns rank r's workload class.
func (w *workload) class(seed int64, r int) int {
	u := float64(mix.Mix64(mix.Mix64(uint64(seed))^uint64(r))>>11) / (1 << 53)
	x := u * w.cum[len(w.cum)-1]
	return min(sort.SearchFloat64s(w.cum, x), len(w.cum)-1)
}

// mask returns the paths rank r takes.
func (w *workload) mask(seed int64, r int) uint64 { return w.masks[w.class(seed, r)] }

// splitmix is a splitmix64 generator: the per-(rank, iteration) draws of
// the Recursion and Walk knobs.
type splitmix uint64

// newSplitmix seeds a generator from (seed, salt, r, it).
func newSplitmix(seed int64, salt uint64, r, it int) splitmix {
	return splitmix(mix.Mix64(mix.Mix64(mix.Mix64(uint64(seed)^salt)^uint64(r)) ^ uint64(it)))
}

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	return mix.Mix64(uint64(*s))
}

// float returns a uniform draw in [0, 1).
func (s *splitmix) float() float64 { return float64(s.next()>>11) / (1 << 53) }

// recursionContinue is the probability that the sort of GenConfig.Recursion
// goes one level deeper.
const recursionContinue = 0.75

// recursionDepth returns how deep rank r's sort recurses in iteration it
// (1..Recursion).
func (cfg GenConfig) recursionDepth(r, it int) int {
	s := newSplitmix(cfg.Seed, 0x726563757273696f, r, it)
	d := 1
	for d < cfg.Recursion && s.float() < recursionContinue {
		d++
	}
	return d
}

// walkKinds are the calls of the tree walk of GenConfig.Walk.
var walkKinds = [...]string{"interact_p2p", "interact_m2p", "traverse_node", "fetch_remote"}

// walkDur is the duration of each walk kind, in 1/100 units.
var walkDur = [len(walkKinds)]int64{8, 5, 2, 12}

// walk is the base sequence of GenConfig.Walk with a scratch buffer for
// the mutated ones (not safe for concurrent use).
type walk struct {
	seed int64
	p    float64
	base []uint8 // indices into walkKinds
	buf  []uint8
}

// walk returns cfg's tree walk, nil without Walk.
func (cfg GenConfig) walk() *walk {
	if cfg.Walk <= 0 {
		return nil
	}
	w := &walk{seed: cfg.Seed, p: cfg.WalkMutation, base: make([]uint8, cfg.Walk)}
	rnd := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7472656577616c6b))
	for i := range w.base {
		w.base[i] = uint8(rnd.IntN(len(walkKinds)))
	}
	return w
}

// seq returns rank r's tree_walk children in iteration it, valid until the
// next call: the base sequence, each position mutated with probability p.
func (w *walk) seq(r, it int) []uint8 {
	out := w.buf[:0]
	if w.p <= 0 {
		return w.base
	}
	s := newSplitmix(w.seed, 0x6d75746174696f6e, r, it)
	const nk = uint64(len(walkKinds))
	for _, k := range w.base {
		if s.float() >= w.p {
			out = append(out, k)
			continue
		}
		x := s.next()
		pick := x & 0xffffffff
		switch (x >> 32) % 3 {
		case 0: // substitution by another kind
			out = append(out, uint8((uint64(k)+1+pick%(nk-1))%nk))
		case 1: // deletion
		case 2: // insertion after the call
			out = append(out, k, uint8(pick%nk))
		}
	}
	w.buf = out
	return out
}

// The shape knobs of GenConfig: each group (HelperThreads, GPU, Master,
// Workload, RecursiveSort, TreeWalk, GrowingImbalance) plans, in
// planRegions, the state of its writers (helperThreads, gpuStreams, ...),
// which Generate's phases call. A knob's zero value is off: it defines no
// region, writes no event and draws nothing, so the trace without it is
// the classic one.

// helperThreads is the ThreadKinds knob: count helper threads per rank,
// after its workers, kind by kind.
type helperThreads struct {
	kinds []genKind
	count int // threads per rank
}

// genKind is a ThreadKind with its region ids.
type genKind struct {
	ThreadKind
	start int32
	calls []int32
}

// plan defines the helper threads' regions.
func (k HelperThreads) plan(g *generator) helperThreads {
	kinds := k.ThreadKinds
	var h helperThreads
	if len(kinds) == 0 {
		return h
	}
	h.kinds = make([]genKind, len(kinds))
	for i, k := range kinds {
		h.kinds[i] = genKind{ThreadKind: k, start: g.region(k.Start, "pthread")}
		for _, c := range k.Calls {
			h.kinds[i].calls = append(h.kinds[i].calls, g.user(c))
		}
		h.count += k.Count
	}
	return h
}

// kindOf returns the index of the kind of helper thread i (0-based among a
// rank's helpers).
func kindOf(kinds []ThreadKind, i int) int {
	for k, kind := range kinds {
		if i < kind.Count {
			return k
		}
		i -= kind.Count
	}
	panic("synth: kindOf: helper index out of range")
}

// write writes one iteration of rank r's helper threads.
func (h *helperThreads) write(g *generator, r int) {
	if h.count == 0 {
		return
	}
	end := g.ranks[r].clock
	t := g.cfg.Threads + 1
	for _, k := range h.kinds {
		for range k.Count {
			h.writeThread(g, g.procs[r*g.stride+t], k, end)
			t++
		}
	}
}

// writeThread writes one iteration of a helper thread, ending near its
// rank's iteration end: Start enclosing its calls.
func (h *helperThreads) writeThread(g *generator, p *trace.Process, k genKind, end int64) {
	unit := g.cfg.UnitNs
	gp := genProc{p: p}
	t0 := end - int64(2+len(k.calls))*unit
	if n := len(p.Time); n > 0 {
		t0 = max(t0, p.Time[n-1])
	}
	gp.clock = max(t0, 0)
	gp.ev(trace.Enter, gp.clock, k.start)
	for _, id := range k.calls {
		gp.clock += unit / 10
		gp.call(id, unit+g.auxNoise())
	}
	gp.clock += unit / 10
	gp.ev(trace.Leave, gp.clock, k.start)
}

// gpuStreams is the GPUs and Streams knob: the last gpus ranks each drive
// a GPU with streams stream locations.
type gpuStreams struct {
	gpus, streams int
	launch, sync  int32
	kernels       []int32
	perRank       [][]genProc // per rank: its streams, nil for a rank without GPU
}

// plan defines the CUDA regions.
func (k GPU) plan(g *generator) gpuStreams {
	var s gpuStreams
	if k.Streams <= 0 {
		return s
	}
	s.gpus, s.streams = k.GPUs, k.Streams
	s.launch, s.sync = g.region("cudaLaunchKernel", "cuda"), g.region("cudaStreamSynchronize", "cuda")
	g.defs.Regions[s.launch].Role, g.defs.Regions[s.sync].Role = "wrapper", "wrapper"
	for _, k := range gpuKernels {
		s.kernels = append(s.kernels, g.region(k, "cuda"))
	}
	return s
}

// locations and groups return the stream locations and the accelerator
// location groups the knob adds.
func (s *gpuStreams) locations() int { return s.gpus * s.streams }
func (s *gpuStreams) groups() int    { return s.gpus }

// planLocations defines one accelerator location group per GPU rank and
// its stream locations, which follow the ncpu CPU locations.
func (s *gpuStreams) planLocations(g *generator, ncpu int, store []trace.Process) {
	if s.streams == 0 {
		return
	}
	cfg, defs := g.cfg, g.defs
	gpu0 := cfg.Ranks - s.gpus // first GPU rank
	s.perRank = make([][]genProc, cfg.Ranks)
	for r := gpu0; r < cfg.Ranks; r++ {
		gi := r - gpu0
		grp := cfg.Ranks + gi
		defs.LocationGroups[grp] = trace.LocationGroup{Name: fmt.Sprintf("GPU %d", gi), Type: "accelerator", SystemNode: 1}
		s.perRank[r] = make([]genProc, s.streams)
		n := cfg.eventsPerStream()
		for m := 0; m < s.streams; m++ {
			i := ncpu + gi*s.streams + m
			p := &store[i]
			p.Rank, p.Thread = int32(grp), int32(m)
			p.Name = fmt.Sprintf("GPU %d / CUDA Stream %d", gi, m)
			p.Kind, p.Time, p.Ref = make([]trace.EventKind, 0, n), make([]int64, 0, n), make([]int32, 0, n)
			defs.Locations[i] = trace.Location{Name: fmt.Sprintf("CUDA Stream %d", m), Type: "accelerator_stream", Group: int32(grp), NumEvents: uint64(n)}
			g.procs[i] = p
			s.perRank[r][m].p = p
		}
	}
}

// write writes a GPU rank's kernel launches on each of its streams and
// the synchronisations that wait for them; the streams run the kernels
// back to back, each starting no earlier than its launch.
func (s *gpuStreams) write(g *generator, gp *genProc, r int) {
	if s.perRank == nil || s.perRank[r] == nil {
		return
	}
	ss := s.perRank[r]
	unit := g.cfg.UnitNs
	for m := range ss {
		st := &ss[m]
		for k, id := range s.kernels {
			gp.call(s.launch, unit/10)
			st.clock = max(st.clock, gp.clock)
			st.call(id, int64(4+4*k)*unit+g.auxNoise())
		}
	}
	for m := range ss {
		gp.ev(trace.Enter, gp.clock, s.sync)
		gp.clock = max(gp.clock+unit/10, ss[m].clock)
		gp.ev(trace.Leave, gp.clock, s.sync)
	}
}

// masterWork is the MasterWork knob: rank 0 calls setup_grid after
// read_input and master_task_1.. before write_output; the other ranks
// call write_output too.
type masterWork struct {
	on    bool
	tasks []int32
}

// plan defines the master tasks' regions.
func (k Master) plan(g *generator) masterWork {
	n := k.MasterWork
	m := masterWork{on: n > 0}
	for i := 1; i < n; i++ {
		m.tasks = append(m.tasks, g.user(fmt.Sprintf("master_task_%d", i)))
	}
	return m
}

// writeSetUp writes rank 0's setup_grid.
func (m *masterWork) writeSetUp(g *generator, gp *genProc) {
	if m.on {
		gp.call(g.rSetup, 5*g.cfg.UnitNs+g.auxNoise())
	}
}

// writeTasks writes rank 0's master tasks.
func (m *masterWork) writeTasks(g *generator, gp *genProc) {
	for _, id := range m.tasks {
		gp.call(id, 2*g.cfg.UnitNs+g.auxNoise())
	}
}

// writeOutput writes another rank's write_output.
func (m *masterWork) writeOutput(g *generator, gp *genProc) {
	if m.on {
		gp.call(g.rWrite, 2*g.cfg.UnitNs+g.auxNoise())
	}
}

// workloadPaths is the Workloads knob: every iteration, solve calls the
// workload callers, which call the segment_op_ functions of the rank's
// workload class.
type workloadPaths struct {
	table   *workload // nil: off
	paths   int
	callers []int32
	ops     []int32
}

// plan draws the class table and defines the workload regions.
func (k Workload) plan(g *generator) workloadPaths {
	w := workloadPaths{table: g.cfg.workload(), paths: k.WorkloadPaths}
	if w.table == nil {
		return workloadPaths{}
	}
	for _, c := range workloadCallers[:w.table.callers] {
		w.callers = append(w.callers, g.user(c))
	}
	for j := 0; j*w.table.callers < k.WorkloadPaths; j++ {
		w.ops = append(w.ops, g.user(fmt.Sprintf("segment_op_%d", j)))
	}
	return w
}

// write writes rank r's workload calls of one iteration.
func (w *workloadPaths) write(g *generator, gp *genProc, r int) {
	if w.table == nil {
		return
	}
	unit := g.cfg.UnitNs
	mask := w.table.mask(g.cfg.Seed, r)
	for c, id := range w.callers {
		gp.ev(trace.Enter, gp.clock, id)
		gp.clock += unit / 10
		for j := c; j < w.paths; j += len(w.callers) {
			if mask>>j&1 != 0 {
				gp.call(w.ops[j/len(w.callers)], unit/2+g.auxNoise())
			}
		}
		gp.clock += unit / 10
		gp.ev(trace.Leave, gp.clock, id)
	}
}

// recursiveSort is the Recursion knob: every iteration, solve calls a
// chain of sort_step, each calling partition, 1..max levels deep.
type recursiveSort struct {
	max             int // 0: off
	step, partition int32
}

// plan defines the sort's regions.
func (k RecursiveSort) plan(g *generator) recursiveSort {
	if k.Recursion <= 0 {
		return recursiveSort{}
	}
	return recursiveSort{max: k.Recursion, step: g.user("sort_step"), partition: g.user("partition")}
}

// write writes rank r's sort of iteration it, recursionDepth levels deep:
// each sort_step calls partition, then (above the deepest) sort_step.
func (s *recursiveSort) write(g *generator, gp *genProc, r, it int) {
	if s.max == 0 {
		return
	}
	unit := g.cfg.UnitNs
	d := g.cfg.recursionDepth(r, it)
	for range d {
		gp.ev(trace.Enter, gp.clock, s.step)
		gp.clock += unit / 50
		gp.call(s.partition, unit/8+g.auxNoise()/8)
	}
	for range d {
		gp.clock += unit / 50
		gp.ev(trace.Leave, gp.clock, s.step)
	}
}

// treeWalk is the Walk knob: every iteration, solve calls tree_walk,
// whose children are the rank's mutated walk sequence.
type treeWalk struct {
	w     *walk // nil: off
	calls int
	root  int32
	ids   []int32 // region of each walk kind
}

// plan draws the base sequence and defines the walk's regions.
func (k TreeWalk) plan(g *generator) treeWalk {
	w := g.cfg.walk()
	if w == nil {
		return treeWalk{}
	}
	t := treeWalk{w: w, calls: k.Walk, root: g.user("tree_walk")}
	for _, k := range walkKinds {
		t.ids = append(t.ids, g.user(k))
	}
	return t
}

// write writes rank r's tree walk of iteration it: tree_walk calling the
// kinds of its sequence in order.
func (t *treeWalk) write(g *generator, gp *genProc, r, it int, job *work.Job) {
	if t.w == nil {
		return
	}
	if t.calls > 1024 {
		job.Check()
	}
	unit := g.cfg.UnitNs
	gp.ev(trace.Enter, gp.clock, t.root)
	gp.clock += unit / 20
	for _, k := range t.w.seq(r, it) {
		gp.clock += unit / 100
		gp.call(t.ids[k], walkDur[k]*unit/100+g.auxNoise()/20)
	}
	gp.clock += unit / 20
	gp.ev(trace.Leave, gp.clock, t.root)
}

// growingImbalance is the Growth knob: rank r's kernels run longer and
// longer over the iterations, in proportion to its weight.
type growingImbalance struct {
	weight []float64 // GrowthWeight per rank; nil: off (or one iteration)
}

// plan computes every rank's weight.
func (k GrowingImbalance) plan(cfg GenConfig) growingImbalance {
	if !(cfg.Growth > 0 && cfg.Iterations > 1) {
		return growingImbalance{}
	}
	w := make([]float64, cfg.Ranks)
	for r := range w {
		w[r] = cfg.GrowthWeight(r)
	}
	return growingImbalance{weight: w}
}

// apply returns factor grown for rank r in iteration it.
func (gr *growingImbalance) apply(factor float64, r, it int, cfg GenConfig) float64 {
	if gr.weight != nil && gr.weight[r] > 0 {
		factor *= 1 + cfg.Growth*gr.weight[r]*float64(it)/float64(cfg.Iterations-1)
	}
	return factor
}
