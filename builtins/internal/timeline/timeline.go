package timeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/fold"
	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// MaxLanes is the most lanes of locations a timeline shows unfolded: above it, groups of
// consecutive locations are folded into strips.
const MaxLanes = 64

// FoldColumns is the number of columns over the timeline's range at which folded strips are
// sampled: a strip is exact at this resolution, not below it.
const FoldColumns = 2000

// barBytes is the memory of one LiveBar with its share of the slice (the estimate checked
// before the bars are allocated).
const barBytes = 64

func init() {
	trace.RegisterTimeline(Build)
	plotting.SetInterruptCheck(work.Check) // the display of a timeline stops on interrupt too
}

// Error is the error of the timeline's builder (work.Error).
type Error = work.Error

const fn = "trace.Timeline"

func fail(format string, args ...any) { work.Fail(fn, format, args...) }

// Build returns the master timeline of tr as cfg asks (what tr.Timeline calls; see the
// package comment). It panics with an *Error for bad options, a distributed trace, an
// interrupt or too little memory.
func Build(tr *trace.Trace, cfg trace.TimelineConfig) *plotting.LiveTimeline {
	defer own()
	defer work.RecoverAs(fn)
	if tr == nil {
		fail("nil trace")
	}
	if cfg.Budget < 0 {
		fail("WithBudget(%d): need a positive number of bytes (0: the default, %d)", cfg.Budget, plotting.DefaultLiveBudget)
	}
	b := &builder{tr: tr, cfg: cfg, lt: &plotting.LiveTimeline{Budget: cfg.Budget}}
	b.selectProcesses()
	for _, p := range b.procs {
		if p.Remote() {
			fail("the events of %s (process %d) of %s are held by the ranks of an MPI job (a distributed trace): the timeline does not run distributed yet; bring a few processes' events here (dist.Fetch) and draw those with trace.WithProcesses", p.Label(), p.Index, tr.Name())
		}
	}
	b.span()
	b.layout()
	var events int64
	for _, p := range b.procs {
		events += int64(p.Len())
	}
	b.job = work.Start(fn, events, "events")
	defer b.job.Done()
	b.lanes()
	b.messages()
	b.collectives()
	b.shades()
	b.streams()
	b.title()
	return b.lt
}

// own makes an *Error of a builtin Build calls (profile.Messages, fold.NewIndex: an
// interrupt, a memory error) one of trace.Timeline, its cause kept.
func own() {
	if r := recover(); r != nil {
		if e, ok := r.(*Error); ok && e.Func != fn {
			panic(&Error{Func: fn, Msg: e.Error(), Err: e})
		}
		panic(r)
	}
}

// builder holds the state of one Build.
type builder struct {
	tr    *trace.Trace
	cfg   trace.TimelineConfig
	lt    *plotting.LiveTimeline
	job   *work.Job
	procs []*trace.Process // shown, in the trace's order
	pos   []int            // per process of tr.Processes(): its position in procs, -1 if not shown
	names []string         // region names by id

	t0, t1 int64 // the timeline's range

	groups    [][]int // folded groups: positions in procs (nil when not folded)
	groupSize int     // ranks (or GPUs) per group
	expanded  []bool  // per group
	groupOf   []int   // per position: its group, -1 when not folded
	lane      []int   // per position: its lane (its own or its group's strip), -1 before layout
	own       []bool  // per position: the lane is its own (not a strip)

	repaired int   // processes whose call stacks were repaired
	repairs  int64 // events and calls repaired (trace.CallRepairs.Count)
}

// selectProcesses sets the processes shown: WithProcesses, in the trace's order, or all.
func (b *builder) selectProcesses() {
	all := b.tr.Processes()
	if b.cfg.Processes == nil {
		b.procs = all
	} else {
		if len(b.cfg.Processes) == 0 {
			fail("WithProcesses: no processes")
		}
		want := map[*trace.Process]bool{}
		for i, p := range b.cfg.Processes {
			if p == nil || p.Trace != b.tr {
				fail("process %d of WithProcesses (%v) is not a location of this trace", i, p)
			}
			want[p] = true
		}
		for _, p := range all {
			if want[p] {
				b.procs = append(b.procs, p)
			}
		}
	}
	b.pos = make([]int, len(all))
	k := 0
	for j, p := range all {
		b.pos[j] = -1
		if k < len(b.procs) && b.procs[k] == p {
			b.pos[j] = k
			k++
		}
	}
	b.names = make([]string, len(b.tr.Defs.Regions))
	for i := range b.names {
		b.names[i] = b.tr.RegionName(int32(i))
	}
}

// span sets the timeline's range: a cut's range (the window's bounds), else the first to
// the last event of the processes shown and of the metric streams.
func (b *builder) span() {
	first := true
	for _, p := range b.procs {
		var a, e int64
		switch {
		case p.Clip != nil:
			a, e = p.Clip.Start, p.Clip.End
		case p.Len() > 0:
			a, e = p.Time[0], p.Time[p.Len()-1]
		default:
			continue
		}
		if first || a < b.t0 {
			b.t0 = a
		}
		if first || e > b.t1 {
			b.t1 = e
		}
		first = false
	}
	if b.tr.Cut == nil { // a trace read whole: the metric streams' samples too
		for _, s := range b.tr.MetricStreams() {
			if s.Len() == 0 {
				continue
			}
			if first || s.Time[0] < b.t0 {
				b.t0 = s.Time[0]
			}
			if first || s.Time[s.Len()-1] > b.t1 {
				b.t1 = s.Time[s.Len()-1]
			}
			first = false
		}
	}
	if b.t1 <= b.t0 {
		b.t1 = b.t0 + 1
	}
	b.lt.Start, b.lt.End = b.t0, b.t1
}

// layout decides the folding: groups of consecutive processes when there are more than
// MaxLanes, and which are expanded.
func (b *builder) layout() {
	n := len(b.procs)
	b.groupOf = make([]int, n)
	b.lane = make([]int, n)
	b.own = make([]bool, n)
	for i := range b.groupOf {
		b.groupOf[i], b.own[i] = -1, true
	}
	if b.cfg.GroupSize < 0 {
		fail("WithGroupSize(%d): need a positive number of ranks per group", b.cfg.GroupSize)
	}
	if n <= MaxLanes {
		if len(b.cfg.Expand) > 0 {
			fail("WithExpand(%v): the timeline has %d lanes of locations, none folded (locations are folded above %d)", b.cfg.Expand, n, MaxLanes)
		}
		return
	}
	// units: the locations of one rank (its threads) or one GPU (its streams), consecutive
	type place struct {
		gpu bool
		n   int32
	}
	var units [][]int
	var last place
	for i, p := range b.procs {
		gpu, num, _ := p.Place()
		if pl := (place{gpu, num}); i == 0 || pl != last {
			units = append(units, nil)
			last = pl
		}
		units[len(units)-1] = append(units[len(units)-1], i)
	}
	size := b.cfg.GroupSize
	if size == 0 {
		size = (len(units) + MaxLanes - 1) / MaxLanes
	}
	b.groupSize = size
	for lo := 0; lo < len(units); lo += size {
		var g []int
		for _, u := range units[lo:min(len(units), lo+size)] {
			for _, i := range u {
				g = append(g, i)
				b.groupOf[i] = len(b.groups)
			}
		}
		b.groups = append(b.groups, g)
	}
	b.expanded = make([]bool, len(b.groups))
	for _, g := range b.cfg.Expand {
		if g < 0 || g >= len(b.groups) {
			fail("WithExpand(%d): the groups are numbered 0..%d", g, len(b.groups)-1)
		}
		b.expanded[g] = true
	}
	for i, g := range b.groupOf {
		b.own[i] = g < 0 || b.expanded[g]
	}
}

// members names the processes of group g: "rank 48–63" for ranks (with "(128 locations)"
// when they have threads), "GPU 2–3" for GPUs, else the first and last labels.
func (b *builder) members(g int) string {
	ps := b.groups[g]
	first, last := b.procs[ps[0]], b.procs[ps[len(ps)-1]]
	if len(ps) == 1 {
		return first.Label()
	}
	gpu0, n0, _ := first.Place()
	gpu1, n1, _ := last.Place()
	if gpu0 != gpu1 {
		return fmt.Sprintf("%s … %s (%d locations)", first.Label(), last.Label(), len(ps))
	}
	what := "rank"
	if gpu0 {
		what = "GPU"
	}
	s := fmt.Sprintf("%s %d", what, n0)
	if n1 != n0 {
		s = fmt.Sprintf("%s %d–%d", what, n0, n1)
	}
	if int(n1-n0)+1 != len(ps) {
		s += fmt.Sprintf(" (%d locations)", len(ps))
	}
	return s
}

// lanes builds the lanes of the processes (own lanes with their counters, and strips) in order.
func (b *builder) lanes() {
	var bars int64              // at most one per Enter of the lanes drawn whole
	var folded []*trace.Process // processes in strips (not expanded), for the state index
	for i, p := range b.procs {
		if !b.own[i] {
			folded = append(folded, p)
			continue
		}
		for _, k := range p.Kind {
			if k == trace.Enter {
				bars++
			}
		}
	}
	if err := work.Reserve(fn+": bars", bars*barBytes); err != nil {
		panic(err)
	}
	var ix *fold.Index
	if len(folded) > 0 {
		ix = fold.NewIndex(b.tr, folded...)
	}
	stream := map[*trace.Process]int{}
	for i, p := range folded {
		stream[p] = i
	}
	// the lanes of the locations drawn whole, on all cores
	own := make([][]plotting.LiveLane, len(b.procs))
	repairs := make([]trace.CallRepairs, len(b.procs))
	work.Each(len(b.procs), func(_, i int) {
		if !b.own[i] {
			return
		}
		p := b.procs[i]
		var l plotting.LiveLane
		l, repairs[i] = b.calls(p, b.groupOf[i])
		own[i] = append([]plotting.LiveLane{l}, b.counters(p)...)
		if err := b.job.Add(int64(p.Len())); err != nil {
			panic(err)
		}
	})
	for _, r := range repairs {
		if !r.IsZero() {
			b.repaired++
			b.repairs += r.Count()
		}
	}
	counted := 0 // folded locations recording metrics
	for _, p := range folded {
		if slices.Contains(p.Kind, trace.Metric) {
			counted++
		}
	}
	if counted > 0 {
		b.note("the metrics recorded by %s folded locations are not drawn (expand their groups)", arrowio.FormatCount(int64(counted)))
	}
	foldedGroups, foldedProcs := 0, 0
	for i := 0; i < len(b.procs); {
		if !b.own[i] {
			g := b.groupOf[i]
			ps := b.groups[g]
			streams := make([]int, len(ps))
			for k, j := range ps {
				streams[k] = stream[b.procs[j]]
				b.lane[j] = len(b.lt.Lanes)
			}
			b.lt.Lanes = append(b.lt.Lanes, b.strip(g, ix, streams))
			foldedGroups++
			foldedProcs += len(ps)
			i += len(ps)
			for _, j := range ps {
				if err := b.job.Add(int64(b.procs[j].Len())); err != nil {
					panic(err)
				}
			}
			continue
		}
		b.lane[i] = len(b.lt.Lanes)
		b.lt.Lanes = append(b.lt.Lanes, own[i]...)
		i++
	}
	if foldedGroups > 0 {
		b.note("%s of %s locations folded into %s strips (groups of %d consecutive ranks or GPUs with their threads or streams, above %d lanes): each strip shows its group's dominant function, fold.Max over the members' innermost calls sampled at %d columns over the range, so it is exact at that resolution only, and empty where most members are outside every call; expand a group with tr.Timeline(trace.WithExpand(g))",
			arrowio.FormatCount(int64(foldedProcs)), arrowio.FormatCount(int64(len(b.procs))), arrowio.FormatCount(int64(foldedGroups)), b.groupSize, MaxLanes, FoldColumns)
	}
	if b.cfg.Processes != nil {
		b.note("%d of %d locations shown (WithProcesses)", len(b.procs), b.tr.NumProcesses())
	}
	if b.repaired > 0 {
		b.note("the call stacks of %d locations were repaired (%s events and calls, see trace.CallRepairs): the bars are those of the repaired call trees", b.repaired, arrowio.FormatCount(b.repairs))
	}
	if b.cfg.TopLevel {
		b.note("outermost calls only (WithTopLevel)")
	}
}

// calls is the lane of p's call tree and the repairs of its call stack; g is p's expanded
// group, or -1. It is called for several processes at once: it changes nothing in b.
func (b *builder) calls(p *trace.Process, g int) (plotting.LiveLane, trace.CallRepairs) {
	ct := p.CallTree()
	gpu, _, _ := p.Place()
	l := plotting.LiveLane{Name: p.Label(), Kind: plotting.LaneCalls, Info: p.Name}
	if gpu {
		l.Kind = plotting.LaneAccelerator
	}
	if g >= 0 {
		l.Info = fmt.Sprintf("%s; member of group %d (%s), expanded", p.Name, g, b.members(g))
	}
	n := ct.Len() - 1
	if b.cfg.TopLevel {
		n = ct.NumChildren(0)
	}
	l.Bars = make([]plotting.LiveBar, 0, n)
	for i := 1; i < ct.Len(); i++ {
		if i&(1<<16-1) == 0 {
			work.Check()
		}
		if b.cfg.TopLevel && ct.Depth[i] != 1 {
			continue
		}
		l.Bars = append(l.Bars, plotting.LiveBar{Start: ct.Enter[i], End: ct.Leave[i], Level: int(ct.Depth[i]) - 1, Label: b.name(ct.Region[i])})
	}
	return l, ct.Repairs
}

func (b *builder) name(r int32) string {
	if r >= 0 && int(r) < len(b.names) {
		return b.names[r]
	}
	return b.tr.RegionName(r)
}

// strip is the folded lane of group g: the runs of equal dominant state over FoldColumns
// columns of [t0, t1).
func (b *builder) strip(g int, ix *fold.Index, streams []int) plotting.LiveLane {
	width := FoldColumns
	c := ix.Counts(streams, b.t0, b.t1, width)
	st := c.Select(fold.Max)
	l := plotting.LiveLane{Name: fmt.Sprintf("group %d: %s", g, b.members(g)), Kind: plotting.LaneFolded,
		Info: fmt.Sprintf("%d locations folded (%s): the dominant function per column, fold.Max of their innermost calls sampled at %d columns; expand with tr.Timeline(trace.WithExpand(%d))",
			len(streams), b.memberList(g), width, g)}
	for x := 0; x < width; {
		e := x + 1
		for e < width && st[e] == st[x] {
			e++
		}
		if st[x] != fold.NoState {
			a, _ := c.Pixel(x)
			_, z := c.Pixel(e - 1)
			l.Bars = append(l.Bars, plotting.LiveBar{Start: a, End: z, Label: b.name(st[x])})
		}
		x = e
	}
	return l
}

// memberList lists the labels of group g's members (the first 8, then how many more).
func (b *builder) memberList(g int) string {
	ps := b.groups[g]
	var s []string
	for _, j := range ps[:min(8, len(ps))] {
		s = append(s, b.procs[j].Label())
	}
	if len(ps) > 8 {
		s = append(s, fmt.Sprintf("… %d more", len(ps)-8))
	}
	return strings.Join(s, ", ")
}

// counters are the lanes of the metrics p records itself (Metric events), one per metric,
// samples inside the timeline's range.
func (b *builder) counters(p *trace.Process) []plotting.LiveLane {
	var out []plotting.LiveLane
	idx := map[int32]int{} // member -> lane in out
	m := &p.Metrics
	for i, k := range p.Kind {
		if k != trace.Metric {
			continue
		}
		t := p.Time[i]
		row := int(p.Ref[i])
		if t < b.t0 || t > b.t1 || row < 0 || row >= m.Len() {
			continue
		}
		for j := range m.Count(row) {
			mem := m.MemberID(b.tr.Defs, row, j)
			k, ok := idx[mem]
			if !ok {
				k = len(out)
				idx[mem] = k
				name, unit, how := b.member(mem)
				out = append(out, plotting.LiveLane{Name: p.Label() + " · " + name, Kind: plotting.LaneCounter, Unit: unit,
					Info: fmt.Sprintf("%s recorded by %s%s", name, p.Name, how)})
			}
			out[k].Samples = append(out[k].Samples, plotting.LiveSample{Time: t, Value: m.Float(row, j)})
		}
	}
	return out
}

// member returns the name and unit of metric member m, and what its values mean when they
// accumulate (", values accumulated since the start of the measurement (mode ...)").
func (b *builder) member(m int32) (name, unit, how string) {
	if m >= 0 && int(m) < len(b.tr.Defs.MetricMembers) {
		mm := b.tr.Defs.MetricMembers[m]
		if mm.Accumulated() {
			how = fmt.Sprintf("; values accumulated since the start of the measurement (mode %s): the lane rises, its slope is the rate", mm.Mode)
		}
		return mm.Name, mm.Unit, how
	}
	return fmt.Sprintf("metric %d", -1-m), "", ""
}

// streams adds the lanes of the trace's metric streams: one per stream and metric.
func (b *builder) streams() {
	left := 0
	for _, s := range b.tr.MetricStreams() {
		idx := map[int32]int{}
		var lanes []plotting.LiveLane
		for i := range s.Metrics.Len() {
			t := s.Time[i]
			if t < b.t0 || t > b.t1 {
				left++
				continue
			}
			for j := range s.Metrics.Count(i) {
				mem := s.Metrics.MemberID(b.tr.Defs, i, j)
				k, ok := idx[mem]
				if !ok {
					k = len(lanes)
					idx[mem] = k
					name, unit, how := b.member(mem)
					lanes = append(lanes, plotting.LiveLane{Name: s.Name + " · " + name, Kind: plotting.LaneCounter, Unit: unit,
						Info: fmt.Sprintf("%s sampled by the metric stream %s (an OTF2 METRIC location)%s", name, s.Name, how)})
				}
				lanes[k].Samples = append(lanes[k].Samples, plotting.LiveSample{Time: t, Value: s.Metrics.Float(i, j)})
			}
		}
		b.lt.Lanes = append(b.lt.Lanes, lanes...)
	}
	if left > 0 {
		b.note("%s samples of metric streams outside the range left out", arrowio.FormatCount(int64(left)))
	}
}

// messages adds the matched point-to-point messages between the lanes shown.
func (b *builder) messages() {
	if b.tr.IsSkeleton() {
		b.note("messages left out: they are matched over every process of a trace (profile.Messages), and the events of some are held by the ranks of an MPI job")
		return
	}
	m := profile.Messages(b.tr)
	inGroup, hidden := 0, 0
	comms := map[int32]string{}
	for i := range m.Len() {
		ps, pr := b.pos[m.SendProcess[i]], b.pos[m.RecvProcess[i]]
		if ps < 0 || pr < 0 {
			hidden++
			continue
		}
		ls, lr := b.lane[ps], b.lane[pr]
		if ls == lr && !b.own[ps] {
			inGroup++
			continue
		}
		comm, ok := comms[m.Comm[i]]
		if !ok {
			comm = b.tr.Defs.CommName(m.Comm[i])
			comms[m.Comm[i]] = comm
		}
		b.lt.Messages = append(b.lt.Messages, plotting.LiveMessage{From: ls, To: lr, Send: m.Send[i], Recv: m.Recv[i],
			Bytes: m.Bytes[i], Tag: m.Tag[i], Comm: comm})
	}
	if inGroup > 0 {
		b.note("%s messages inside folded groups left out; messages between folded groups are drawn between their strips", arrowio.FormatCount(int64(inGroup)))
	} else if len(b.groups) > 0 {
		b.note("messages between folded groups are drawn between their strips")
	}
	if hidden > 0 {
		b.note("%s messages with a partner not shown left out", arrowio.FormatCount(int64(hidden)))
	}
	if n := m.UnmatchedSends + m.UnmatchedRecvs; n > 0 {
		b.note("%s sends and %s receives without a partner not drawn (profile.Messages(tr).Problems() lists them)",
			arrowio.FormatCount(m.UnmatchedSends), arrowio.FormatCount(m.UnmatchedRecvs))
	}
	if m.CutSends+m.CutRecvs > 0 {
		b.note("%s messages with one end outside the window not drawn", arrowio.FormatCount(m.CutSends+m.CutRecvs))
	}
}

// collectives adds a marker per collective operation of the processes on their own lanes.
func (b *builder) collectives() {
	left := 0
	// Labels repeat (the same operation, communicator and sizes every iteration): made
	// once per distinct collective, not once per marker.
	labels := map[collKey]string{}
	label := func(p *trace.Process, r int) string {
		c := &p.Colls
		if r < 0 || r >= c.Len() {
			return "collective"
		}
		k := collKey{c.Op[r], c.Comm[r], c.Root[r], c.Sent[r], c.Received[r]}
		s, ok := labels[k]
		if !ok {
			s = b.collective(p, r)
			labels[k] = s
		}
		return s
	}
	for i, p := range b.procs {
		begin := int64(-1)
		for e, k := range p.Kind {
			switch k {
			case trace.MpiCollectiveBegin:
				begin = p.Time[e]
			case trace.MpiCollectiveEnd:
				if !b.own[i] {
					left++
					continue
				}
				start := begin
				if start < 0 {
					start = p.Time[e]
				}
				begin = -1
				b.lt.Markers = append(b.lt.Markers, plotting.LiveMarker{Lane: b.lane[i], Start: start, End: p.Time[e], Label: label(p, int(p.Ref[e]))})
			}
		}
	}
	if left > 0 {
		b.note("%s collective operations of folded locations not marked", arrowio.FormatCount(int64(left)))
	}
}

// collKey is what a collective's label says.
type collKey struct {
	op             uint8
	comm           int32
	root           uint32
	sent, received int64
}

// collective labels row r of p's collectives: "MPI_Allreduce (comm MPI_COMM_WORLD, root -, sent 8 B, received 8 B)".
func (b *builder) collective(p *trace.Process, r int) string {
	c := &p.Colls
	if r < 0 || r >= c.Len() {
		return "collective"
	}
	op := trace.CollectiveOpName(c.Op[r])
	name := "MPI_" + op[:1] + strings.ToLower(op[1:])
	root := "-"
	if c.Root[r] != trace.RootNone {
		root = fmt.Sprint(c.Root[r])
	}
	return fmt.Sprintf("%s (comm %s, root %s, sent %s, received %s)", name, b.tr.Defs.CommName(c.Comm[r]), root,
		arrowio.FormatBytes(c.Sent[r]), arrowio.FormatBytes(c.Received[r]))
}

// shades adds the measurement-off intervals of the processes shown, on their lanes (a cut's
// are its source's clipped to its range, including those begun before it).
func (b *builder) shades() {
	for i, p := range b.procs {
		lo, hi := b.t0, b.t1
		for _, iv := range p.MeasurementOffIntervals() {
			if iv.Start >= hi || iv.End <= lo {
				continue
			}
			label := "measurement off"
			if !b.own[i] {
				label += " on " + p.Label()
			}
			if a, e := max(iv.Start, lo), min(iv.End, hi); a < e {
				b.lt.Shades = append(b.lt.Shades, plotting.LiveShade{Lane: b.lane[i], Start: a, End: e, Label: label})
			}
		}
	}
}

// title names the trace, its cut and its lanes.
func (b *builder) title() {
	name := b.tr.Name()
	if name == "" {
		name = "trace"
	}
	if b.tr.Cut != nil {
		name += " · " + b.tr.Cut.String()
	}
	b.lt.Title = fmt.Sprintf("%s: %s locations, %s messages", name, arrowio.FormatCount(int64(len(b.procs))), arrowio.FormatCount(int64(len(b.lt.Messages))))
	if b.tr.Cut != nil {
		if s, e, n := b.tr.Clipped(); s+e > 0 {
			b.note("%s calls clipped at the window's start and %s at its end (on %d locations), drawn as clipped", arrowio.FormatCount(s), arrowio.FormatCount(e), n)
		}
	}
}

func (b *builder) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !slices.Contains(b.lt.Notes, s) {
		b.lt.Notes = append(b.lt.Notes, s)
	}
}
