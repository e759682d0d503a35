package trace

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/arrowio"
)

// EventKind is the type of one event of a Process.
type EventKind uint8

// Event kinds. For Enter and Leave, Process.Ref holds the region id; for the
// message kinds it is a row of Process.Msgs; for MpiCollectiveEnd a row of
// Process.Colls; for Metric a row of Process.Metrics; otherwise it is -1.
const (
	Enter               EventKind = iota // region entered
	Leave                                // region left
	MpiSend                              // blocking send (Msgs row)
	MpiRecv                              // blocking receive (Msgs row)
	MpiIsend                             // non-blocking send posted (Msgs row)
	MpiIrecv                             // non-blocking receive completed (Msgs row)
	MpiIsendComplete                     // non-blocking send completed (Msgs row, request only)
	MpiIrecvRequest                      // non-blocking receive posted (Msgs row, request only)
	MpiCollectiveBegin                   // collective operation begins (Ref -1)
	MpiCollectiveEnd                     // collective operation ends (Colls row)
	Metric                               // metric sample (Metrics row)
	ProgramBegin                         // program start (Ref -1)
	ProgramEnd                           // program end (Ref -1)
	MpiRequestCancelled                  // non-blocking request cancelled (Msgs row, request only)
	MeasurementOff                       // measurement switched off (OTF2 MeasurementOnOff, mode OFF; Ref -1)
	MeasurementOn                        // measurement switched on again (MeasurementOnOff, mode ON; Ref -1)
	numEventKinds
)

// NumEventKinds is the number of event kinds: every EventKind is below it.
const NumEventKinds = numEventKinds

var kindNames = [...]string{
	Enter: "Enter", Leave: "Leave", MpiSend: "MpiSend", MpiRecv: "MpiRecv",
	MpiIsend: "MpiIsend", MpiIrecv: "MpiIrecv", MpiIsendComplete: "MpiIsendComplete",
	MpiIrecvRequest: "MpiIrecvRequest", MpiCollectiveBegin: "MpiCollectiveBegin",
	MpiCollectiveEnd: "MpiCollectiveEnd", Metric: "Metric",
	ProgramBegin: "ProgramBegin", ProgramEnd: "ProgramEnd", MpiRequestCancelled: "MpiRequestCancelled",
	MeasurementOff: "MeasurementOff", MeasurementOn: "MeasurementOn",
}

// String returns the OTF2 record name of the kind ("Enter", "MpiSend", ...).
func (k EventKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// ParseEventKind returns the kind named s (as printed by EventKind.String).
func ParseEventKind(s string) (EventKind, bool) {
	for i, n := range kindNames {
		if n == s {
			return EventKind(i), true
		}
	}
	return 0, false
}

// Paradigm and role names follow OTF2 (OTF2_PARADIGM_*, OTF2_REGION_ROLE_*),
// kept as lower-case strings such as "mpi", "openmp", "user", "function".

// Region is a code region (function, loop, MPI call...).
type Region struct {
	Name      string
	Canonical string // canonical (e.g. mangled) name; may equal Name
	Role      string // OTF2 region role: "function", "wrapper", "barrier", ...
	Paradigm  string // OTF2 paradigm: "user", "mpi", "openmp", "compiler", ...
	File      string
	BeginLine uint32
	EndLine   uint32
}

// SystemTreeNode is one node of the machine hierarchy (machine, node, socket).
type SystemTreeNode struct {
	Name   string
	Class  string
	Parent int32 // index into Definitions.SystemTree, -1 for the root
}

// LocationGroup is a process (an MPI rank) or accelerator context.
type LocationGroup struct {
	Name       string
	Type       string // "process", "accelerator", ...
	SystemNode int32  // index into Definitions.SystemTree, -1 if unknown
}

// Location is a thread of execution (a rank's master thread, a worker
// thread, a GPU stream) or a metric stream (an OTF2 METRIC location).
// Definitions.Locations holds every location of the trace; a Process is a
// location of execution, a MetricStream a METRIC location. Process.Location
// and MetricStream.Location are their indices in Definitions.Locations;
// Process.Index (the index in Trace.Processes) equals Process.Location
// only while the trace has no metric streams before it.
type Location struct {
	Name      string
	Type      string // "cpu_thread", "accelerator_stream", "metric"
	Group     int32  // index into Definitions.LocationGroups
	NumEvents uint64 // as declared by the trace (may be 0 when unknown)
}

// Group is an OTF2 group: a set of locations, ranks or regions.
type Group struct {
	Name     string
	Type     string // "comm_locations", "comm_group", "comm_self", "locations", ...
	Paradigm string
	Members  []uint64
}

// Comm is a communicator (MPI_COMM_WORLD, ...).
type Comm struct {
	Name   string
	Group  int32 // index into Definitions.Groups, -1 if none
	Parent int32 // index into Definitions.Comms, -1 if none
}

// MetricMember is one recorded counter (e.g. PAPI_TOT_CYC).
type MetricMember struct {
	Name        string
	Description string
	Unit        string
	ValueType   string // "int64", "uint64", "double"
	// Mode is the OTF2 metric mode: what a value means ("accumulated",
	// "absolute", "relative") and when it was taken ("start", "point",
	// "last", "next"), e.g. "accumulated_start" for a PAPI counter that
	// Score-P reads at every event; "" when unknown.
	Mode string
}

// Accumulated reports whether m's values accumulate from the start of the
// measurement (an OTF2 "accumulated" mode), like a hardware counter.
func (m MetricMember) Accumulated() bool { return strings.HasPrefix(m.Mode, "accumulated") }

// MetricClass is a set of counters recorded together by one Metric event.
type MetricClass struct {
	Members []int32 // indices into Definitions.MetricMembers
}

// Attribute is a definition of an attribute attached to events.
type Attribute struct {
	Name        string
	Description string
	Type        string
}

// Clock describes the timer of the trace. Times in the model are
// nanoseconds from Offset: ns = (ticks - Offset) * 1e9 / Resolution.
type Clock struct {
	Resolution uint64 // ticks per second
	Offset     uint64 // global offset, in ticks (time 0 of the model)
	Length     uint64 // trace length, in ticks
}

// Definitions are a trace's global definitions. Model ids (region id,
// location index, ...) are indices into these slices.
type Definitions struct {
	Strings        []string
	Regions        []Region
	SystemTree     []SystemTreeNode
	LocationGroups []LocationGroup
	Locations      []Location
	Groups         []Group
	Comms          []Comm
	MetricMembers  []MetricMember
	MetricClasses  []MetricClass
	Attributes     []Attribute
	Clock          Clock
	Properties     map[string]string // OTF2 trace properties, creator, machine name
}

// Messages is the side table of point-to-point records, one row per
// MpiSend, MpiRecv, MpiIsend, MpiIrecv, MpiIsendComplete, MpiIrecvRequest
// or MpiRequestCancelled event. Request-only rows (MpiIsendComplete,
// MpiIrecvRequest, MpiRequestCancelled) have Peer, Comm and Tag -1 and
// Bytes 0.
type Messages struct {
	Peer    []int32 // partner rank in Comm
	Comm    []int32 // index into Definitions.Comms
	Tag     []int32
	Bytes   []int64
	Request []int64 // request id of non-blocking operations, 0 otherwise
}

// Len returns the number of rows.
func (m *Messages) Len() int { return len(m.Peer) }

// Add appends a row and returns its index (the event's Ref).
func (m *Messages) Add(peer, comm, tag int32, bytes, req int64) int32 {
	i := int32(len(m.Peer))
	m.Peer = append(m.Peer, peer)
	m.Comm = append(m.Comm, comm)
	m.Tag = append(m.Tag, tag)
	m.Bytes = append(m.Bytes, bytes)
	m.Request = append(m.Request, req)
	return i
}

// makeRoom, when the table is full, gives it room for size(rows) rows in
// all (a reader's growth rule), so that appending up to that many copies
// nothing.
func (m *Messages) makeRoom(size func(rows int) int) {
	if n := m.Len(); n == cap(m.Peer) {
		more := size(n) - n
		m.Peer, m.Comm, m.Tag = slices.Grow(m.Peer, more), slices.Grow(m.Comm, more), slices.Grow(m.Tag, more)
		m.Bytes, m.Request = slices.Grow(m.Bytes, more), slices.Grow(m.Request, more)
	}
}

// Collectives is the side table of MpiCollectiveEnd records.
type Collectives struct {
	Op       []uint8  // OTF2 collective op (see CollectiveOpName)
	Comm     []int32  // index into Definitions.Comms
	Root     []uint32 // root rank; 0xFFFFFFFF when the operation has none
	Sent     []int64  // bytes
	Received []int64  // bytes
}

// Len returns the number of rows.
func (c *Collectives) Len() int { return len(c.Op) }

// Add appends a row and returns its index (the event's Ref).
func (c *Collectives) Add(op uint8, comm int32, root uint32, sent, received int64) int32 {
	i := int32(len(c.Op))
	c.Op = append(c.Op, op)
	c.Comm = append(c.Comm, comm)
	c.Root = append(c.Root, root)
	c.Sent = append(c.Sent, sent)
	c.Received = append(c.Received, received)
	return i
}

// makeRoom is Messages.makeRoom for collectives.
func (c *Collectives) makeRoom(size func(rows int) int) {
	if n := c.Len(); n == cap(c.Op) {
		more := size(n) - n
		c.Op, c.Comm, c.Root = slices.Grow(c.Op, more), slices.Grow(c.Comm, more), slices.Grow(c.Root, more)
		c.Sent, c.Received = slices.Grow(c.Sent, more), slices.Grow(c.Received, more)
	}
}

// RootNone is Collectives.Root for operations without a root.
const RootNone = 0xFFFFFFFF

var collectiveOps = [...]string{"BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV",
	"ALLGATHER", "ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE",
	"REDUCE_SCATTER", "SCAN", "EXSCAN", "REDUCE_SCATTER_BLOCK", "CREATE_HANDLE", "DESTROY_HANDLE",
	"ALLOCATE", "DEALLOCATE", "CREATE_HANDLE_AND_ALLOCATE", "DESTROY_HANDLE_AND_DEALLOCATE"}

// CollectiveOpName returns the OTF2 name of a collective op ("ALLREDUCE").
func CollectiveOpName(op uint8) string {
	if int(op) < len(collectiveOps) {
		return collectiveOps[op]
	}
	return fmt.Sprintf("OP_%d", op)
}

var collectiveOpID = func() map[string]uint8 {
	m := make(map[string]uint8, len(collectiveOps))
	for i, o := range collectiveOps {
		m[o] = uint8(i)
	}
	return m
}()

// ParseCollectiveOp is the inverse of CollectiveOpName. It also takes the
// spellings other tools write: a dotted prefix ("otf2.ALLREDUCE"), an MPI_
// prefix and any case ("MPI_Allreduce").
func ParseCollectiveOp(name string) (uint8, bool) {
	if op, ok := collectiveOpID[name]; ok {
		return op, true
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if op, ok := collectiveOpID[strings.ToUpper(strings.TrimPrefix(name, "MPI_"))]; ok {
		return op, true
	}
	if rest, ok := strings.CutPrefix(name, "OP_"); ok {
		if v, err := strconv.Atoi(rest); err == nil && v >= 0 && v < 256 {
			return uint8(v), true
		}
	}
	return 0, false
}

// Metrics is the side table of Metric records. Row i recorded metric class
// (or instance) Metric[i] with the values Values[Start[i]:Start[i+1]], whose
// OTF2 types are Types[Start[i]:Start[i+1]] (MetricUint64, MetricInt64 or
// MetricDouble; values are stored as raw 64-bit patterns, see Float).
type Metrics struct {
	Metric []int32
	Start  []int32 // len(Metric)+1 offsets once non-empty
	Types  []uint8
	Values []uint64
}

// Len returns the number of rows.
func (m *Metrics) Len() int { return len(m.Metric) }

// Count returns the number of values of row i.
func (m *Metrics) Count(i int) int { return int(m.Start[i+1] - m.Start[i]) }

// MemberID returns the metric member of value j of row i: that of its
// metric class in defs, or -1-j when the class is unknown (or defs nil).
func (m *Metrics) MemberID(defs *Definitions, i, j int) int32 {
	if c := m.Metric[i]; defs != nil && c >= 0 && int(c) < len(defs.MetricClasses) && j < len(defs.MetricClasses[c].Members) {
		return defs.MetricClasses[c].Members[j]
	}
	return int32(-1 - j)
}

// Add appends a row of metric (class or instance) with its values and
// their types, and returns its index (the event's Ref).
func (m *Metrics) Add(metric int32, types []uint8, values []uint64) int32 {
	if len(m.Start) == 0 {
		m.Start = append(m.Start, 0)
	}
	i := int32(len(m.Metric))
	m.Metric = append(m.Metric, metric)
	m.Types = append(m.Types, types...)
	m.Values = append(m.Values, values...)
	m.Start = append(m.Start, int32(len(m.Values)))
	return i
}

// Metric value types in Metrics.Types (OTF2_Type codes).
const (
	MetricUint64 = 4
	MetricInt64  = 8
	MetricDouble = 10
)

// makeEvents gives p empty event columns with room for n events.
func (p *Process) makeEvents(n int) {
	p.Kind, p.Time, p.Ref = make([]EventKind, 0, n), make([]int64, 0, n), make([]int32, 0, n)
}

// addEvent appends an event to p's columns (a reader building p).
func (p *Process) addEvent(k EventKind, t int64, ref int32) {
	p.Kind = append(p.Kind, k)
	p.Time = append(p.Time, t)
	p.Ref = append(p.Ref, ref)
}

// Process is one location of a trace with its events in columns.
type Process struct {
	Trace *Trace
	Index int // index in Trace.Processes()
	// Location is the index in Definitions.Locations: Index unless the
	// trace has metric streams (METRIC locations are not processes).
	Location int
	Rank     int32  // location group (process) index
	Thread   int32  // index of this location within its group
	Name     string // e.g. "MPI Rank 3" or "MPI Rank 3 / Thread 1"

	Kind []EventKind
	Time []int64 // ns from trace start, non-decreasing
	Ref  []int32 // region id or side-table row, see EventKind

	Msgs    Messages
	Colls   Collectives
	Metrics Metrics

	// Skipped counts the records of the source that the model does not
	// represent (e.g. OpenMP, RMA or I/O records of an OTF2 trace).
	Skipped int64

	// Clip says which events of the full trace a process of a window or
	// phase holds and which calls were clipped (see Trace.Window); nil
	// for a process of a trace read or generated.
	Clip *Clip

	remote bool // its events are held elsewhere (see Remote)

	treeOnce  sync.Once
	tree      *CallTree
	pairsOnce sync.Once
	pairs     []Pair
	statsOnce sync.Once
	stats     []RegionStat
	offOnce   sync.Once
	off       []OffInterval
}

// EventBytes is the model's memory per event (kind, time, ref): the
// estimate readers and generators reserve (work.Reserve) before they build
// a trace.
const EventBytes = 13

// Trace is a loaded or generated trace.
type Trace struct {
	Defs *Definitions
	Path string // file the trace came from ("" if generated)

	// Cut says how a window or phase (Window, Between, Without, Main,
	// Subset) was cut from the trace read or generated; nil for that trace.
	Cut *Cut

	name    string // see Name: given by Named or carried by an export
	genName string // see Name: a generator's name, used when nothing else names the trace

	procs   []*Process
	byLoc   map[int]int       // process index -> position, for a Subset (see Process)
	streams []*MetricStream   // METRIC locations, see MetricStream
	damaged []DamagedLocation // locations WithSkipDamaged left out

	groupNoOnce sync.Once
	groupNo     []int32 // see groupNumbers
}

// DamagedLocation is a location of the trace that Load with WithSkipDamaged
// left out because reading it failed.
type DamagedLocation struct {
	Location int    // index in Definitions.Locations
	Name     string // the process name it would have had, "MPI Rank 1"
	Err      error  // why: an *Error naming the file and, when known, the byte offset
}

func (d DamagedLocation) String() string {
	return fmt.Sprintf("location %d (%s): %v", d.Location, d.Name, d.Err)
}

// Damaged returns the locations that Load with WithSkipDamaged could not read
// and left out (neither processes nor metric streams), in location order;
// empty for a trace read whole.
func (t *Trace) Damaged() []DamagedLocation { return t.damaged }

// Error is the error of reading a trace: the file, the byte offset in it
// (-1 when not applicable) and the cause.
type Error struct {
	Path   string
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("trace: %s: offset %d: %v", e.Path, e.Offset, e.Err)
	}
	return fmt.Sprintf("trace: %s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// NewTrace returns a trace over the given definitions and processes; it sets
// each process's Trace, Index and Location. Process i is location i, except
// when defs has METRIC locations and as many other locations as procs: then
// process i is the i-th location that is not METRIC (the processes of a
// trace with metric streams, rebuilt over its definitions, as ccg does).
// Used by readers and generators.
func NewTrace(defs *Definitions, procs []*Process) *Trace {
	if defs == nil {
		defs = &Definitions{}
	}
	t := &Trace{Defs: defs, procs: procs}
	var exec []int // locations of execution, when they are not all
	for i, l := range defs.Locations {
		if l.Type != "metric" {
			exec = append(exec, i)
		}
	}
	if len(exec) != len(procs) || len(exec) == len(defs.Locations) {
		exec = nil
	}
	for i, p := range procs {
		p.Trace = t
		p.Index = i
		p.Location = i
		if exec != nil {
			p.Location = exec[i]
		}
	}
	return t
}

// locKind is what a location read from a file becomes.
type locKind uint8

const (
	locProcess locKind = iota
	locStream          // a METRIC location: a MetricStream
	locDamaged         // left out by WithSkipDamaged
)

// newTraceOf returns a trace of the locations read from a file: locs[i] is
// location i of defs, a process, a metric stream or left out, as kind[i] says.
func newTraceOf(defs *Definitions, locs []*Process, kind []locKind) *Trace {
	var procs []*Process
	var streams []*MetricStream
	var where []int
	for i, p := range locs {
		switch kind[i] {
		case locStream:
			streams = append(streams, metricStream(p, i))
			continue
		case locDamaged:
			continue
		}
		procs = append(procs, p)
		where = append(where, i)
	}
	t := NewTrace(defs, procs)
	for j, p := range procs {
		p.Location = where[j]
	}
	for j, s := range streams {
		s.Trace, s.Index = t, j
	}
	t.streams = streams
	return t
}

// Name returns the run's name, which two-run tables, headlines and figures
// use: the name given to Open or Load by Named; else the name an export
// carries (Events stores it); else the name of the trace's directory for an
// OTF2 archive or a file called traces.* (Score-P names every anchor
// traces.otf2, so runs/v1/traces.otf2 is "v1" and a Score-P experiment
// scorep-20240101_1200_42/traces.otf2 is "scorep-20240101_1200_42"); else
// the file's name without its extension ("v1.parquet" is "v1"); else, for
// a generated trace, its generator's name ("generated A, 4 ranks": code
// version and ranks); "" when nothing names it.
func (t *Trace) Name() string {
	if t == nil {
		return ""
	}
	if t.name != "" {
		return t.name
	}
	if n := nameFromPath(t.Path); n != "" {
		return n
	}
	return t.genName
}

// SetName names the run (see Name); readers and generators use it.
func (t *Trace) SetName(name string) { t.name = name }

// SetGeneratorName gives a generated trace the name Name falls back to
// when nothing else names it ("generated A, 4 ranks"); exports do not carry
// it. Generators (package synth) use it.
func (t *Trace) SetGeneratorName(name string) { t.genName = name }

func nameFromPath(path string) string {
	if path == "" {
		return ""
	}
	p := filepath.Clean(path)
	base := filepath.Base(p)
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if strings.EqualFold(ext, ".otf2") || stem == "traces" || stem == "" {
		if d := filepath.Base(filepath.Dir(p)); d != "." && d != string(filepath.Separator) {
			return d
		}
	}
	return stem
}

// Remote reports whether p's events are held elsewhere (a trace loaded
// WithoutEvents, or a Skeleton): p then has no events until SetEvents.
func (p *Process) Remote() bool { return p.remote }

// NeedEvents panics with the *Error of EventsHere when p's events are held
// elsewhere (Remote): what a function that reads events calls first, so
// that a trace of an MPI job never gives a silently empty result.
func (p *Process) NeedEvents(fn string) {
	if err := EventsHere(fn, p); err != nil {
		panic(err)
	}
}

// EventsHere returns nil when every process of procs holds its events here,
// else an *Error naming fn and the first that does not (Remote): what a
// method's Compute returns rather than a silently empty partial.
func EventsHere(fn string, procs ...*Process) error {
	for _, p := range procs {
		if p == nil || !p.remote {
			continue
		}
		path := ""
		if p.Trace != nil {
			path = p.Trace.Path
		}
		return &Error{Path: path, Offset: -1, Err: fmt.Errorf("%s: the events of %s (process %d) are held by the ranks of an MPI job, not in this notebook: this function does not run distributed (package dist lists those that do); dist.Fetch(processes...) brings a few processes' events here", fn, p.Name, p.Index)}
	}
	return nil
}

// SetEvents gives p, a process whose events are held elsewhere (Remote),
// the events of src, the same process read where they are; p is then an
// ordinary process. It panics if p is not Remote or src is another process.
func (p *Process) SetEvents(src *Process) {
	if !p.remote {
		panic(fmt.Sprintf("trace: SetEvents: %s already holds its events", p.Name))
	}
	if src.Index != p.Index || src.Rank != p.Rank || src.Thread != p.Thread {
		panic(fmt.Sprintf("trace: SetEvents: events of process %d (%s) given to process %d (%s)", src.Index, src.Name, p.Index, p.Name))
	}
	p.Kind, p.Time, p.Ref = src.Kind, src.Time, src.Ref
	p.Msgs, p.Colls, p.Metrics, p.Skipped = src.Msgs, src.Colls, src.Metrics, src.Skipped
	p.remote = false
}

// Skeleton returns a trace with t's definitions, path, name and processes
// (indices, ranks, threads, names) and none of their events, every process
// Remote: what a notebook holds of a trace whose events are on the ranks of
// an MPI job (Load WithoutEvents gives the same from a file).
func (t *Trace) Skeleton() *Trace {
	procs := make([]*Process, len(t.procs))
	for i, p := range t.procs {
		procs[i] = &Process{Index: p.Index, Location: p.Location, Rank: p.Rank, Thread: p.Thread, Name: p.Name, remote: true}
	}
	nt := &Trace{Defs: t.Defs, Path: t.Path, name: t.name, genName: t.genName, procs: procs}
	for _, p := range procs {
		p.Trace = nt
	}
	if t.byLoc != nil {
		nt.indexByProcess()
	}
	return nt
}

// IsSkeleton reports whether some process of t holds its events elsewhere
// (Process.Remote).
func (t *Trace) IsSkeleton() bool {
	for _, p := range t.procs {
		if p.remote {
			return true
		}
	}
	return false
}

// dropEvents marks every process of a trace loaded WithoutEvents remote.
func (t *Trace) dropEvents() {
	for _, p := range t.procs {
		p.Kind, p.Time, p.Ref = nil, nil, nil
		p.Msgs, p.Colls, p.Metrics = Messages{}, Collectives{}, Metrics{}
		p.remote = true
	}
}

// keepOnly keeps the processes of t with the given indices (WithShare),
// looked up by index as in a Subset, and no metric streams.
func (t *Trace) keepOnly(indices []int) (*Trace, error) {
	keep := make([]bool, len(t.procs))
	for _, i := range indices {
		if i < 0 || i >= len(t.procs) {
			return nil, &Error{Path: t.Path, Offset: -1, Err: fmt.Errorf("WithShare: process %d is out of range: the trace has %d processes (0..%d)", i, len(t.procs), len(t.procs)-1)}
		}
		keep[i] = true
	}
	var procs []*Process
	for _, p := range t.procs {
		if keep[p.Index] {
			procs = append(procs, p)
		}
	}
	t.procs, t.streams = procs, nil
	t.indexByProcess()
	return t, nil
}

// indexByProcess makes Process(i) look processes up by their index, for a
// trace holding some of a trace's processes (Subset, WithShare).
func (t *Trace) indexByProcess() {
	t.byLoc = make(map[int]int, len(t.procs))
	for i, p := range t.procs {
		t.byLoc[p.Index] = i
	}
}

// NumProcesses returns the number of locations.
func (t *Trace) NumProcesses() int { return len(t.procs) }

// Process returns location i; it panics with a clear message if i is out
// of range. In a Subset, i is the location's index in the full trace
// (Process.Index), and a location left out panics.
func (t *Trace) Process(i int) *Process {
	if t.byLoc != nil {
		j, ok := t.byLoc[i]
		if !ok {
			how := "WithShare"
			if t.Cut != nil {
				how = t.Cut.String()
			}
			panic(fmt.Sprintf("trace: Process(%d): location %d is not in this subset (%s)", i, i, how))
		}
		return t.procs[j]
	}
	if i < 0 || i >= len(t.procs) {
		panic(fmt.Sprintf("trace: Process(%d): index out of range, trace has %d processes (0..%d)",
			i, len(t.procs), len(t.procs)-1))
	}
	return t.procs[i]
}

// Processes returns all locations in order. The slice is shared; do not modify.
func (t *Trace) Processes() []*Process { return t.procs }

// NumEvents returns the number of events over all locations.
func (t *Trace) NumEvents() int64 {
	var n int64
	for _, p := range t.procs {
		n += int64(len(p.Kind))
	}
	return n
}

// RegionName returns the name of region id, or "" for -1 (the virtual root
// ε) and "<region N>" for unknown ids.
func (t *Trace) RegionName(id int32) string {
	if id == -1 {
		return ""
	}
	if id < 0 || int(id) >= len(t.Defs.Regions) {
		return fmt.Sprintf("<region %d>", id)
	}
	return t.Defs.Regions[id].Name
}

// RegionID returns the id of the first region called name, or -1.
func (t *Trace) RegionID(name string) int32 {
	for i, r := range t.Defs.Regions {
		if r.Name == name {
			return int32(i)
		}
	}
	return -1
}

// Duration returns the time from the first to the last event, in ns.
func (t *Trace) Duration() int64 {
	if t.IsSkeleton() { // the events are elsewhere: the clock's length
		if c := t.Defs.Clock; c.Resolution > 0 {
			return int64(float64(c.Length) * 1e9 / float64(c.Resolution))
		}
		return 0
	}
	first, last, ok := t.span()
	if !ok {
		return 0
	}
	return last - first
}

func (t *Trace) span() (first, last int64, ok bool) {
	for _, p := range t.procs {
		if len(p.Time) == 0 {
			continue
		}
		a, b := p.Time[0], p.Time[len(p.Time)-1]
		if !ok || a < first {
			first = a
		}
		if !ok || b > last {
			last = b
		}
		ok = true
	}
	return
}

// Len returns the number of events of p.
func (p *Process) Len() int { return len(p.Kind) }

// RegionName returns the name of region id in p's trace.
func (p *Process) RegionName(id int32) string {
	if p.Trace == nil {
		return fmt.Sprintf("<region %d>", id)
	}
	return p.Trace.RegionName(id)
}

// EventName returns the pipit Name of event i: the region name for Enter
// and Leave, the kind otherwise.
func (p *Process) EventName(i int) string {
	switch p.Kind[i] {
	case Enter, Leave:
		return p.RegionName(p.Ref[i])
	}
	return p.Kind[i].String()
}

// MemoryBytes returns the bytes held by p's event columns and side tables
// (not by cached derived views).
func (p *Process) MemoryBytes() int64 {
	n := int64(cap(p.Kind)) + 8*int64(cap(p.Time)) + 4*int64(cap(p.Ref))
	m := &p.Msgs
	n += 4*int64(cap(m.Peer)+cap(m.Comm)+cap(m.Tag)) + 8*int64(cap(m.Bytes)+cap(m.Request))
	c := &p.Colls
	n += int64(cap(c.Op)) + 4*int64(cap(c.Comm)+cap(c.Root)) + 8*int64(cap(c.Sent)+cap(c.Received))
	mt := &p.Metrics
	n += 4*int64(cap(mt.Metric)+cap(mt.Start)) + int64(cap(mt.Types)) + 8*int64(cap(mt.Values))
	return n
}

// MemoryBytes returns the bytes of all processes' event data and metric
// streams' samples.
func (t *Trace) MemoryBytes() int64 {
	var n int64
	for _, p := range t.procs {
		n += p.MemoryBytes()
	}
	for _, s := range t.streams {
		mt := &s.Metrics
		n += 8*int64(cap(s.Time)) + 4*int64(cap(mt.Metric)+cap(mt.Start)) + int64(cap(mt.Types)) + 8*int64(cap(mt.Values))
	}
	return n
}

// String returns a one-line summary.
func (t *Trace) String() string {
	src := t.Path
	if src == "" {
		src = "generated"
	}
	if t.Cut != nil {
		src += " · " + t.Cut.String()
	}
	damaged := ""
	if n := len(t.damaged); n > 0 {
		damaged = fmt.Sprintf(", %d damaged locations left out", n)
	}
	if t.IsSkeleton() {
		return fmt.Sprintf("Trace(%s: %s processes, %s events on an MPI job, %s regions)",
			src, arrowio.FormatCount(int64(len(t.procs))), arrowio.FormatCount(t.declaredEvents()), arrowio.FormatCount(int64(len(t.Defs.Regions))))
	}
	return fmt.Sprintf("Trace(%s: %s processes, %s events, %s regions, %s%s)",
		src, arrowio.FormatCount(int64(len(t.procs))), arrowio.FormatCount(t.NumEvents()), arrowio.FormatCount(int64(len(t.Defs.Regions))), arrowio.FormatDuration(t.Duration()), damaged)
}

// Label returns p's short name for plots and tables: "rank 3" for a
// rank's master thread, "rank 3 thread 2" for another CPU thread, "GPU 0
// stream 7" for an accelerator stream. Ranks and GPUs are numbered among
// location groups of their own kind, in definition order (so GPU groups
// defined between ranks do not shift the rank numbers); Name keeps the full
// name.
func (p *Process) Label() string {
	gpu, n, thread := p.Place()
	switch {
	case gpu:
		return fmt.Sprintf("GPU %d stream %d", n, thread)
	case thread == 0:
		return fmt.Sprintf("rank %d", n)
	}
	return fmt.Sprintf("rank %d thread %d", n, thread)
}

// Place is where p runs, as Label names it: whether it is an accelerator
// stream, the number of its rank (or GPU) and its thread (or stream),
// Process.Thread. A location whose Rank differs from its location group's
// index has a rank the trace states (a table's Process column); one whose
// Rank is the group's index (OTF2) is numbered among the groups of its
// kind, in definition order; one without definitions by Rank.
func (p *Process) Place() (gpu bool, number, thread int32) {
	t := p.Trace
	if t == nil || p.Location < 0 || p.Location >= len(t.Defs.Locations) {
		return false, p.Rank, p.Thread
	}
	l := t.Defs.Locations[p.Location]
	g := l.Group
	if g < 0 || int(g) >= len(t.Defs.LocationGroups) {
		return l.Type == "accelerator_stream", p.Rank, p.Thread
	}
	gpu = t.Defs.LocationGroups[g].Type == "accelerator" || l.Type == "accelerator_stream"
	if p.Rank != g {
		return gpu, p.Rank, p.Thread
	}
	return gpu, t.groupNumbers()[g], p.Thread
}

// groupNumbers numbers each location group among the groups of its kind
// (accelerator or not), computed once.
func (t *Trace) groupNumbers() []int32 {
	t.groupNoOnce.Do(func() {
		var cpu, gpu int32
		t.groupNo = make([]int32, len(t.Defs.LocationGroups))
		for i, lg := range t.Defs.LocationGroups {
			if lg.Type == "accelerator" {
				t.groupNo[i], gpu = gpu, gpu+1
			} else {
				t.groupNo[i], cpu = cpu, cpu+1
			}
		}
	})
	return t.groupNo
}

// String returns a one-line summary of p: its label, then its full name and event count,
// "rank 0 (MPI Rank 0, 1,234 events)".
func (p *Process) String() string {
	if p.Name == "" {
		return fmt.Sprintf("%s (%s events)", p.Label(), arrowio.FormatCount(int64(len(p.Kind))))
	}
	return fmt.Sprintf("%s (%s, %s events)", p.Label(), p.Name, arrowio.FormatCount(int64(len(p.Kind))))
}

// Float returns value j of metric row i as float64.
func (m *Metrics) Float(i, j int) float64 {
	k := int(m.Start[i]) + j
	return metricFloat(m.Types[k], m.Values[k])
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
