package trace

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tracebook/tracebook/builtins/trace/otf2"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/internal/hugepage"
)

var regionRoles = [...]string{"unknown", "function", "wrapper", "loop", "code", "parallel", "sections",
	"section", "workshare", "single", "single_sblock", "master", "critical", "critical_sblock", "atomic",
	"barrier", "implicit_barrier", "flush", "ordered", "ordered_sblock", "task", "task_create", "task_wait",
	"coll_one2all", "coll_all2one", "coll_all2all", "coll_other", "file_io", "point2point", "rma",
	"data_transfer", "artificial", "thread_create", "thread_wait", "task_untied", "allocate", "deallocate",
	"reallocate", "file_io_metadata"}

var paradigms = [...]string{"unknown", "user", "compiler", "openmp", "mpi", "cuda", "measurement_system",
	"pthread", "hmpp", "ompss", "hardware", "gaspi", "upc", "shmem", "winthread", "qtthread", "acethread",
	"tbbthread", "openacc", "opencl", "mtapi", "sampling", "none", "hip", "kokkos"}

var locationTypes = [...]string{"unknown", "cpu_thread", "accelerator_stream", "metric"}
var groupTypes = [...]string{"unknown", "locations", "regions", "metric", "comm_locations", "comm_group", "comm_self"}
var locationGroupTypes = [...]string{"unknown", "process", "accelerator"}
var attributeTypes = [...]string{"none", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
	"int64", "float", "double", "string", "attribute", "location", "region", "group", "metric", "comm",
	"parameter", "rma_win", "source_code_location", "calling_context", "interrupt_generator", "io_file",
	"io_handle", "location_group"}

func enumName(names []string, v uint8) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%d", v)
}

// idIndex maps OTF2 definition ids to model indices: a slice when the ids
// are dense enough, a map otherwise.
type idIndex struct {
	dense []int32
	m     map[uint64]int32
}

func newIDIndex(ids []uint64) idIndex {
	var maxID uint64
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	if len(ids) > 0 && maxID < uint64(4*len(ids)+1024) {
		d := make([]int32, maxID+1)
		for i := range d {
			d[i] = -1
		}
		for i, id := range ids {
			if d[id] < 0 {
				d[id] = int32(i)
			}
		}
		return idIndex{dense: d}
	}
	m := make(map[uint64]int32, len(ids))
	for i, id := range ids {
		if _, ok := m[id]; !ok {
			m[id] = int32(i)
		}
	}
	return idIndex{m: m}
}

func (x *idIndex) get(id uint64) int32 {
	if x.dense != nil {
		if id < uint64(len(x.dense)) {
			return x.dense[id]
		}
		return -1
	}
	if v, ok := x.m[id]; ok {
		return v
	}
	return -1
}

// tickConv converts ticks to ns from the global offset.
type tickConv struct {
	offset, res uint64
}

func (c tickConv) ns(t uint64) int64 {
	if c.res == 1e9 {
		return int64(t - c.offset)
	}
	neg := t < c.offset
	d := t - c.offset
	if neg {
		d = c.offset - t
	}
	return c.scale(d, neg)
}

// fromOffset converts ticks from the offset (t - offset, as int64) to ns.
func (c tickConv) fromOffset(d int64) int64 {
	if c.res == 1e9 {
		return d
	}
	if d < 0 {
		return c.scale(uint64(-d), true)
	}
	return c.scale(uint64(d), false)
}

// scale converts d ticks to ns, negated when neg.
func (c tickConv) scale(d uint64, neg bool) int64 {
	hi, lo := bits.Mul64(d, 1e9)
	var q uint64
	if hi >= c.res {
		q = 1<<63 - 1 // out of range: saturate
	} else {
		q, _ = bits.Div64(hi, lo, c.res)
	}
	if neg {
		return -int64(q)
	}
	return int64(q)
}

// TicksToNs converts a timestamp in clock ticks to model ns with the
// clock's resolution and offset (truncating toward zero).
func (c Clock) TicksToNs(ticks uint64) int64 {
	res := c.Resolution
	if res == 0 {
		res = 1e9
	}
	return tickConv{offset: c.Offset, res: res}.ns(ticks)
}

func loadOTF2(path string, cfg loadConfig) (*Trace, error) {
	a, err := otf2.Open(path)
	if err != nil {
		return nil, wrapOTF2(path, err)
	}
	g := a.Defs
	defs := &Definitions{Properties: map[string]string{}}
	str := func(id uint32) string { return g.String(id) }
	defs.Strings = make([]string, 0, len(g.Strings))
	for i := uint32(0); i < uint32(len(g.Strings)); i++ {
		defs.Strings = append(defs.Strings, g.Strings[i])
	}
	defs.Properties["creator"] = a.Anchor.Creator
	defs.Properties["machine"] = a.Anchor.Machine
	defs.Properties["otf2_version"] = fmt.Sprintf("%d.%d.%d", a.Anchor.Version[0], a.Anchor.Version[1], a.Anchor.Version[2])
	for _, p := range a.Anchor.Properties {
		defs.Properties[p[0]] = p[1]
	}
	res := g.Clock.Resolution
	if !g.HaveClock || res == 0 {
		res = 1e9
	}
	defs.Clock = Clock{Resolution: res, Offset: g.Clock.GlobalOffset, Length: g.Clock.Length}
	conv := tickConv{offset: g.Clock.GlobalOffset, res: res}

	ids := make([]uint64, len(g.Regions))
	for i, r := range g.Regions {
		ids[i] = uint64(r.Self)
		defs.Regions = append(defs.Regions, Region{Name: str(r.Name), Canonical: str(r.CanonicalName),
			Role: enumName(regionRoles[:], r.Role), Paradigm: enumName(paradigms[:], r.Paradigm),
			File: str(r.SourceFile), BeginLine: r.BeginLine, EndLine: r.EndLine})
	}
	regionIdx := newIDIndex(ids)

	ids = ids[:0]
	for _, n := range g.SystemTree {
		ids = append(ids, uint64(n.Self))
	}
	stIdx := newIDIndex(ids)
	for _, n := range g.SystemTree {
		parent := int32(-1)
		if n.Parent != otf2.Undefined {
			parent = stIdx.get(uint64(n.Parent))
		}
		defs.SystemTree = append(defs.SystemTree, SystemTreeNode{Name: str(n.Name), Class: str(n.ClassName), Parent: parent})
	}
	ids = ids[:0]
	for _, lg := range g.LocationGroups {
		ids = append(ids, uint64(lg.Self))
		defs.LocationGroups = append(defs.LocationGroups, LocationGroup{Name: str(lg.Name),
			Type: enumName(locationGroupTypes[:], lg.Type), SystemNode: stIdx.get(uint64(lg.SystemTreeParent))})
	}
	lgIdx := newIDIndex(ids)
	ids = ids[:0]
	for _, gr := range g.Groups {
		ids = append(ids, uint64(gr.Self))
		defs.Groups = append(defs.Groups, Group{Name: str(gr.Name), Type: enumName(groupTypes[:], gr.Type),
			Paradigm: enumName(paradigms[:], gr.Paradigm), Members: gr.Members})
	}
	grIdx := newIDIndex(ids)
	ids = ids[:0]
	for _, c := range g.Comms {
		ids = append(ids, uint64(c.Self))
	}
	commIdx := newIDIndex(ids)
	for _, c := range g.Comms {
		defs.Comms = append(defs.Comms, Comm{Name: str(c.Name), Group: grIdx.get(uint64(c.Group)), Parent: commIdx.get(uint64(c.Parent))})
	}
	ids = ids[:0]
	for _, m := range g.MetricMembers {
		ids = append(ids, uint64(m.Self))
		defs.MetricMembers = append(defs.MetricMembers, MetricMember{Name: str(m.Name), Description: str(m.Description),
			Unit: str(m.Unit), ValueType: enumName(attributeTypes[:], m.ValueType), Mode: metricMode(m.Mode)})
	}
	memberIdx := newIDIndex(ids)
	// Metric events reference a class or an instance (same id space).
	ids = ids[:0]
	for _, mc := range g.MetricClasses {
		ids = append(ids, uint64(mc.Self))
		cl := MetricClass{}
		for _, m := range mc.Members {
			cl.Members = append(cl.Members, memberIdx.get(uint64(m)))
		}
		defs.MetricClasses = append(defs.MetricClasses, cl)
	}
	classOf := newIDIndex(ids)
	metricIDs := append([]uint64(nil), ids...)
	metricTarget := make([]int32, 0, len(ids)+len(g.MetricInstances))
	for i := range g.MetricClasses {
		metricTarget = append(metricTarget, int32(i))
	}
	for _, mi := range g.MetricInstances {
		metricIDs = append(metricIDs, uint64(mi.Self))
		metricTarget = append(metricTarget, classOf.get(uint64(mi.Class)))
	}
	metricIdx := newIDIndex(metricIDs)
	for _, at := range g.Attributes {
		defs.Attributes = append(defs.Attributes, Attribute{Name: str(at.Name), Description: str(at.Description), Type: enumName(attributeTypes[:], at.Type)})
	}

	nloc := len(g.Locations)
	procs := make([]*Process, nloc)
	store := make([]Process, nloc)
	threadNo := make([]int32, len(g.LocationGroups))
	metric := make([]bool, nloc) // METRIC locations become metric streams
	var total, estimate int64    // declared events; those the files can hold
	for i, l := range g.Locations {
		grp := lgIdx.get(uint64(l.LocationGroup))
		typ := enumName(locationTypes[:], l.Type)
		metric[i] = typ == "metric"
		defs.Locations = append(defs.Locations, Location{Name: str(l.Name), Type: typ, Group: grp, NumEvents: l.NumEvents})
		p := &store[i]
		p.Rank = grp
		if grp >= 0 {
			if !metric[i] { // threads are numbered among the group's locations of execution
				p.Thread = threadNo[grp]
				threadNo[grp]++
			}
			p.Name = defs.LocationGroups[grp].Name
			if p.Thread > 0 || str(l.Name) != "Master thread" {
				p.Name += " / " + str(l.Name)
			}
		} else {
			p.Name = str(l.Name)
		}
		procs[i] = p
	}
	// which locations to read: all, those of the processes WithShare
	// names (process indices count the locations of execution), none
	// WithoutEvents
	read := make([]bool, nloc)
	capacity := make([]int, nloc)
	var want map[int]bool
	if cfg.onlySet {
		want = make(map[int]bool, len(cfg.only))
		for _, i := range cfg.only {
			want[i] = true
		}
	}
	for i, pi := 0, 0; i < nloc; i++ {
		switch {
		case cfg.noEvents:
		case metric[i]:
			read[i] = !cfg.onlySet
		default:
			read[i] = !cfg.onlySet || want[pi]
		}
		if !metric[i] {
			pi++
		}
		if read[i] {
			l := g.Locations[i]
			total += int64(l.NumEvents)
			capacity[i] = eventCapacity(l.NumEvents, a.LocationFile(l.Self, "evt"))
			estimate += int64(capacity[i])
		}
	}

	if err := work.Reserve("loading "+path, estimate*EventBytes); err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	// The columns of all locations are cut from one allocation per column,
	// made before the readers start: the heap grows (and the collector
	// runs) before decoding, not during it, and the allocations are big
	// enough to be backed by huge pages.
	kindAll, timeAll, refAll := make([]EventKind, 0, estimate), make([]int64, 0, estimate), make([]int32, 0, estimate)
	hugepage.Advise(kindAll)
	hugepage.Advise(timeAll)
	hugepage.Advise(refAll)
	for i, off := 0, 0; i < nloc; i++ {
		if n := capacity[i]; n > 0 {
			p := procs[i]
			p.Kind, p.Time, p.Ref = kindAll[off:off:off+n], timeAll[off:off:off+n], refAll[off:off:off+n]
			off += n
		}
	}
	prog := work.Start("loading "+filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), estimate, "events")
	defer prog.Done()
	workers := min(runtime.GOMAXPROCS(0), max(nloc, 1))
	cv := &otf2Conv{conv: conv, region: &regionIdx, comm: &commIdx, metric: &metricIdx, metricTarget: metricTarget}
	errs := make([]error, nloc)
	skipped := make([][256]int64, workers)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= nloc {
					return
				}
				if !read[i] {
					continue
				}
				l := g.Locations[i]
				if err := cv.readLocation(a, l, procs[i], prog, &skipped[w]); err != nil {
					errs[i] = err
					if !cfg.skipDamaged || errors.Is(err, work.ErrInterrupted) {
						failed.Store(true)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	var damaged []DamagedLocation
	kind := make([]locKind, nloc)
	for i, err := range errs {
		switch {
		case err == nil:
			if metric[i] {
				kind[i] = locStream
			}
			continue
		case !cfg.skipDamaged || errors.Is(err, work.ErrInterrupted) || failed.Load():
			return nil, wrapOTF2(path, err)
		}
		kind[i] = locDamaged
		procs[i].Kind, procs[i].Time, procs[i].Ref = nil, nil, nil
		procs[i].Msgs, procs[i].Colls, procs[i].Metrics = Messages{}, Collectives{}, Metrics{}
		damaged = append(damaged, DamagedLocation{Location: i, Name: procs[i].Name, Err: wrapOTF2(path, err)})
	}
	if len(damaged) == nloc && nloc > 0 {
		return nil, &Error{Path: path, Offset: -1, Err: fmt.Errorf("no location of the trace reads (WithSkipDamaged); the first: %w", damaged[0].Err)}
	}
	if s := otf2Skipped(skipped, a.Defs.Skipped); s != "" {
		defs.Properties["otf2:skipped"] = s
	}
	t := newTraceOf(defs, procs, kind)
	t.Path = path
	t.damaged = damaged
	return t, nil
}

// otf2Skipped says which records the model does not hold, by OTF2 record
// name with counts: event records summed over the workers' counts, then
// definitions the reader skipped (defs, by name).
func otf2Skipped(events [][256]int64, defs map[string]int64) string {
	byName := map[string]int64{}
	for _, w := range events {
		for t, n := range w {
			if n > 0 {
				byName[otf2.EventName(uint8(t))] += n
			}
		}
	}
	var parts []string
	if len(byName) > 0 {
		parts = append(parts, "event records "+countsByName(byName))
	}
	if d := countsByName(defs); d != "" {
		parts = append(parts, "definitions "+d)
	}
	return strings.Join(parts, "; ")
}

func wrapOTF2(path string, err error) error {
	var oe *otf2.Error
	if errors.As(err, &oe) {
		return &Error{Path: oe.File, Offset: oe.Offset, Err: oe.Err}
	}
	return &Error{Path: path, Offset: -1, Err: err}
}

type otf2Conv struct {
	conv         tickConv
	region       *idIndex
	comm         *idIndex
	metric       *idIndex
	metricTarget []int32
}

// eventCapacity is the number of events to preallocate for a location.
// NumEvents comes from the definitions: it is trusted only as far as the event
// file can hold (an event record takes at least 2 bytes), so a corrupt count
// cannot allocate more than the file's size (an out-of-memory error is fatal
// in Go, not a panic the kernel could recover).
func eventCapacity(numEvents uint64, evtPath string) int {
	st, err := os.Stat(evtPath)
	if err != nil {
		return 0 // the reader reports the missing file
	}
	return int(min(numEvents, uint64(st.Size()/2)))
}

// readLocation reads location l's events into p; skipped counts the
// records the model does not hold by record type.
func (cv *otf2Conv) readLocation(a *otf2.Archive, l otf2.Location, p *Process, prog *work.Job, skipped *[256]int64) error {
	c := &otf2.Columns{
		EnterKind: uint8(Enter), LeaveKind: uint8(Leave),
		Region:     cv.region.dense,
		TimeOffset: cv.conv.offset,
		Kind:       *(*[]uint8)(unsafe.Pointer(&p.Kind)), // EventKind is a uint8
		Time:       p.Time,
		Ref:        p.Ref,
	}
	c.Progress = prog.Add // ErrInterrupted stops the reader
	// Side tables grow by projection: once a sixteenth of the declared
	// events is read, a full table is made as big as its share of the
	// records so far projects for the whole location (so it is copied once
	// or twice, not at every doubling); before that, and when the count
	// declared is exceeded or missing, it doubles. A projection never
	// exceeds the location's event capacity.
	capEvents := cap(p.Time)
	project := func(rows int) int {
		grow := 2*rows + 64
		if declared := int64(l.NumEvents); c.Read*16 >= declared && c.Read < declared {
			proj := int(float64(rows)*float64(declared)/float64(c.Read)*1.05) + 64
			grow = min(max(proj, rows+rows/4+64), max(capEvents, rows+rows/4+64))
		}
		return grow
	}
	c.Other = func(e *otf2.Event) (uint8, int32, bool, error) {
		var kind EventKind
		ref := int32(-1)
		switch e.Type {
		case otf2.EvEnter, otf2.EvLeave: // a region the dense table does not hold
			kind = Enter
			if e.Type == otf2.EvLeave {
				kind = Leave
			}
			ref = cv.region.get(uint64(e.Region))
			if ref < 0 {
				return 0, 0, false, &otf2.Error{File: a.LocationFile(l.Self, "evt"), Offset: -1,
					Err: fmt.Errorf("location %d: %s references undefined region %d", l.Self, otf2.EventName(e.Type), e.Region)}
			}
		case otf2.EvMpiSend, otf2.EvMpiRecv, otf2.EvMpiIsend, otf2.EvMpiIrecv:
			switch e.Type {
			case otf2.EvMpiSend:
				kind = MpiSend
			case otf2.EvMpiRecv:
				kind = MpiRecv
			case otf2.EvMpiIsend:
				kind = MpiIsend
			default:
				kind = MpiIrecv
			}
			p.Msgs.makeRoom(project)
			ref = p.Msgs.Add(int32(e.Peer), cv.comm.get(uint64(e.Comm)), int32(e.Tag), int64(e.Bytes), int64(e.Request))
		case otf2.EvMpiIsendComplete, otf2.EvMpiIrecvRequest, otf2.EvMpiRequestCancelled:
			switch e.Type {
			case otf2.EvMpiIsendComplete:
				kind = MpiIsendComplete
			case otf2.EvMpiIrecvRequest:
				kind = MpiIrecvRequest
			default:
				kind = MpiRequestCancelled
			}
			p.Msgs.makeRoom(project)
			ref = p.Msgs.Add(-1, -1, -1, 0, int64(e.Request))
		case otf2.EvMpiCollectiveBegin:
			kind = MpiCollectiveBegin
		case otf2.EvMpiCollectiveEnd:
			kind = MpiCollectiveEnd
			p.Colls.makeRoom(project)
			ref = p.Colls.Add(e.CollOp, cv.comm.get(uint64(e.Comm)), e.Root, int64(e.Sent), int64(e.Received))
		case otf2.EvMetric:
			kind = Metric
			target := int32(-1)
			if j := cv.metric.get(uint64(e.Metric)); j >= 0 {
				target = cv.metricTarget[j]
			}
			ref = p.Metrics.Add(target, e.MetricTypes, e.MetricValues)
		case otf2.EvMeasurementOnOff:
			switch e.MeasurementMode {
			case otf2.MeasurementOff:
				kind = MeasurementOff
			case otf2.MeasurementOn:
				kind = MeasurementOn
			default:
				p.Skipped++
				skipped[e.Type]++
				return 0, 0, false, nil
			}
		case otf2.EvProgramBegin:
			kind = ProgramBegin
		case otf2.EvProgramEnd:
			kind = ProgramEnd
		default:
			p.Skipped++
			skipped[e.Type]++
			return 0, 0, false, nil
		}
		return uint8(kind), ref, true, nil
	}
	count, err := a.ReadColumns(l.Self, c)
	if err != nil {
		return err
	}
	p.Kind = *(*[]EventKind)(unsafe.Pointer(&c.Kind))
	p.Time, p.Ref = c.Time, c.Ref
	if cv.conv.res != 1e9 { // Time holds ticks from the offset: to ns
		for i, d := range p.Time {
			p.Time[i] = cv.conv.fromOffset(d)
		}
	}
	if l.NumEvents != 0 && uint64(count) != l.NumEvents {
		return &otf2.Error{File: a.LocationFile(l.Self, "evt"), Offset: -1,
			Err: fmt.Errorf("%d events read, the definitions declare %d (file truncated?)", count, l.NumEvents)}
	}
	return nil
}

// metricMode names an OTF2_MetricMode: the value property (low 4 bits:
// accumulated, absolute, relative) and the timing (high 4 bits: start,
// point, last, next), e.g. "accumulated_start"; "" for other codes.
func metricMode(m uint8) string {
	values := [...]string{"accumulated", "absolute", "relative"}
	timings := [...]string{"start", "point", "last", "next"}
	v, t := int(m&15), int(m>>4)
	if v >= len(values) || t >= len(timings) {
		return ""
	}
	return values[v] + "_" + timings[t]
}
