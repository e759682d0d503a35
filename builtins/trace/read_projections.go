package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/builtins/trace/projections"
	"github.com/tracebook/tracebook/builtins/work"
)

// A Charm++ Projections log set (see package projections) becomes a trace of
// one process per PE ("PE 0", "PE 1", ...), times in ns (the logs' µs ×
// 1000, from the start of the run, as pipit's Timestamp (ns)):
//
//   - BEGIN_PROCESSING / END_PROCESSING: Enter / Leave of the entry
//     method's region, named "Chare::entry" (Region.Canonical holds the
//     entry's own name, as pipit names the event);
//   - BEGIN_IDLE / END_IDLE, BEGIN_PACK / END_PACK, BEGIN_UNPACK /
//     END_UNPACK, BEGIN_INTERRUPT / END_INTERRUPT: regions "Idle", "Pack",
//     "Unpack", "Interrupt"; BEGIN_USER_EVENT_PAIR / END_USER_EVENT_PAIR:
//     a region named by the user event;
//   - BEGIN_COMPUTATION / END_COMPUTATION: ProgramBegin / ProgramEnd (a log
//     without END_COMPUTATION ends at its last time); BEGIN_TRACE /
//     END_TRACE: MeasurementOn / MeasurementOff;
//   - messages: a CREATION is an MpiSend on the creating PE, the first
//     BEGIN_PROCESSING of the message it created (same event id and entry
//     method, its PE field naming the creating PE, not earlier) an MpiRecv
//     just after that Enter on the receiving PE, in communicator "Charm++
//     messages" (tag: the entry method id; bytes: the creation's message
//     length). CREATION_BCAST and CREATION_MULTICAST send to every PE that
//     processed the message, in "Charm++ broadcasts" / "Charm++
//     multicasts". A CREATION whose message no log processed stays an
//     MpiSend to peer -1; a BEGIN_PROCESSING of a message no log created
//     (or processed before: a threaded entry method resumed) has no
//     MpiRecv; a broadcast or multicast nobody processed is dropped.
//
// Other records (ENQUEUE, DEQUEUE, MESSAGE_RECV, USER_EVENT, USER_STAT,
// notes, MEMORY_USAGE, BEGIN/END_FUNC, types the decoder does not know) are
// counted by name in Properties["projections:skipped"]. An End whose Begin
// is not open is skipped, calls still open at an End of an enclosing call or
// at the end of a log are ended there, and a time earlier than the one
// before it is raised to it; each is counted in
// Properties["projections:approximated"].

// projRegions are the regions every Projections trace has, before the entry
// methods.
var projRegions = []string{"Idle", "Pack", "Unpack", "Interrupt"}

const (
	projIdle int32 = iota
	projPack
	projUnpack
	projInterrupt
)

// communicators of Projections messages
const (
	projCommMsg int32 = iota
	projCommBcast
	projCommMulticast
)

// projCreation is a creation record: a send whose receivers are found when
// every log is read.
type projCreation struct {
	key   projMsgKey
	time  int64
	comm  int32
	entry int32
	bytes int64
	dests []int // multicast destinations
}

// projProc is a BEGIN_PROCESSING: a receive if its creation is found.
type projProc struct {
	key     projMsgKey
	time    int64
	entry   int32
	bytes   int64 // the creation's message length, once matched
	comm    int32 // of the creation it matched
	matched bool
}

// projPE is what one log reads into, before messages are matched.
type projPE struct {
	kind    []EventKind
	time    []int64
	ref     []int32 // region; for provisional MpiSend/MpiRecv the index in creates/procs
	creates []projCreation
	procs   []projProc
	peers   [][]int32 // per creation: the receiving PEs
	skipped map[string]int64
	notes   map[string]int64
	maxTime int64
	err     error
}

// projMsgKey names a message: the PE that created it, its event id there
// and the entry method it is for (event ids alone repeat: runtime messages
// and resumed threads reuse them).
type projMsgKey struct{ pe, event, entry int32 }

func projKey(rec *projections.Record) projMsgKey {
	return projMsgKey{int32(rec.PE), int32(rec.Event), int32(rec.Entry)}
}

type projReader struct {
	sts     *projections.Sts
	entry   map[int]int32 // entry id -> region
	user    map[int]int32 // user event id -> region
	regions []Region
	mu      sync.Mutex // guards user and regions while logs are read
	job     *work.Job
}

// loadProjections reads a Charm++ Projections log set from its .sts file.
func loadProjections(sts string, cfg loadConfig) (*Trace, error) {
	s, err := projections.ReadStsFile(sts)
	if err != nil {
		return nil, projError(sts, err)
	}
	base := strings.TrimSuffix(sts, ".sts")
	n := s.NumPEs
	// Each PE has a log file: a PE count beyond the files there is a
	// corrupt .sts, refused before anything per PE is made.
	if entries, err := os.ReadDir(filepath.Dir(sts)); err == nil && n > len(entries) {
		return nil, &Error{Path: sts, Offset: -1, Err: fmt.Errorf("PROCESSORS %d: the directory holds only %d files, and each PE has a log", n, len(entries))}
	}
	logs := make([]string, n)
	var total int64
	for pe := range n {
		p := base + "." + strconv.Itoa(pe) + ".log.gz"
		if !isFile(p) && isFile(strings.TrimSuffix(p, ".gz")) {
			p = strings.TrimSuffix(p, ".gz")
		}
		logs[pe] = p
		if st, err := os.Stat(p); err == nil {
			total += st.Size()
		}
	}
	r := &projReader{sts: s, entry: map[int]int32{}, user: map[int]int32{}}
	for _, nm := range projRegions {
		r.regions = append(r.regions, Region{Name: nm, Canonical: nm, Role: "artificial", Paradigm: "charm"})
	}
	ids := make([]int, 0, len(s.Entries))
	for id := range s.Entries {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r.entry[id] = int32(len(r.regions))
		r.regions = append(r.regions, Region{Name: s.EntryName(id), Canonical: s.Entries[id].Name, Role: "function", Paradigm: "charm"})
	}

	// The regions of the user events the .sts names, in id order, so that
	// region ids do not depend on which log is read first (those of ids
	// the .sts lacks are made on first use).
	ids = ids[:0]
	for id := range s.UserEvents {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r.userRegion(id)
	}

	// Every log is read even for a share (WithShare, applied by Load once
	// the trace is read): a message's receive is in its receiver's log, so
	// the sends of a share cannot be matched without the other logs.
	read := make([]bool, n)
	for pe := range read {
		read[pe] = !cfg.noEvents
	}
	// a byte of a gzipped log holds about half a record; the provisional
	// events and the final ones are both held for a while
	if err := work.Reserve("loading "+sts, total/2*2*EventBytes); err != nil {
		return nil, &Error{Path: sts, Offset: -1, Err: err}
	}
	r.job = work.Start("loading "+filepath.Base(sts), total, "bytes")
	defer r.job.Done()
	pes := make([]*projPE, n)
	var mu sync.Mutex
	stop := false
	work.Each(n, func(_, pe int) {
		mu.Lock()
		st := stop
		mu.Unlock()
		if !read[pe] || st {
			pes[pe] = &projPE{}
			return
		}
		d := r.readLog(logs[pe])
		pes[pe] = d
		if d.err != nil && (!cfg.skipDamaged || errors.Is(d.err, work.ErrInterrupted)) {
			mu.Lock()
			stop = true
			mu.Unlock()
		}
	})
	kind := make([]locKind, n)
	var damaged []DamagedLocation
	for pe, d := range pes {
		if d.err == nil {
			continue
		}
		e := projError(logs[pe], d.err)
		if !cfg.skipDamaged || errors.Is(d.err, work.ErrInterrupted) {
			return nil, e
		}
		kind[pe] = locDamaged
		damaged = append(damaged, DamagedLocation{Location: pe, Name: "PE " + strconv.Itoa(pe), Err: e})
		pes[pe] = &projPE{}
	}
	if len(damaged) == n && n > 0 {
		return nil, &Error{Path: sts, Offset: -1, Err: fmt.Errorf("no log of the trace reads (WithSkipDamaged); the first: %w", damaged[0].Err)}
	}
	if err := r.job.Err(); err != nil {
		return nil, &Error{Path: sts, Offset: -1, Err: err}
	}

	unmatchedSends, unmatchedRecvs, err := projMatch(pes)
	if err != nil {
		return nil, &Error{Path: sts, Offset: -1, Err: err}
	}

	defs := &Definitions{Regions: r.regions, Properties: map[string]string{}}
	members := make([]uint64, n)
	for pe := range members {
		members[pe] = uint64(pe)
	}
	defs.Groups = []Group{{Name: "PEs", Type: "comm_locations", Paradigm: "charm", Members: members}}
	defs.Comms = []Comm{{Name: "Charm++ messages", Group: 0, Parent: -1}, {Name: "Charm++ broadcasts", Group: 0, Parent: -1},
		{Name: "Charm++ multicasts", Group: 0, Parent: -1}}
	procs := make([]*Process, n)
	var maxTime int64
	skipped, notes := map[string]int64{}, map[string]int64{}
	for pe := range n {
		name := "PE " + strconv.Itoa(pe)
		defs.LocationGroups = append(defs.LocationGroups, LocationGroup{Name: name, Type: "process", SystemNode: -1})
		defs.Locations = append(defs.Locations, Location{Name: name, Type: "cpu_thread", Group: int32(pe)})
		procs[pe] = &Process{Rank: int32(pe), Name: name}
		maxTime = max(maxTime, pes[pe].maxTime)
		for k, v := range pes[pe].skipped {
			skipped[k] += v
			procs[pe].Skipped += v
		}
		for k, v := range pes[pe].notes {
			notes[k] += v
		}
	}
	var berr error
	var bmu sync.Mutex
	work.Each(n, func(_, pe int) {
		if err := projBuild(pes[pe], procs[pe]); err != nil {
			bmu.Lock()
			berr = err
			bmu.Unlock()
		}
		*pes[pe] = projPE{}
	})
	if berr != nil {
		return nil, &Error{Path: sts, Offset: -1, Err: berr}
	}
	defs.Clock = Clock{Resolution: 1e9, Length: uint64(maxTime)}
	defs.Properties["format"] = fmt.Sprintf("Charm++ Projections (version %g)", s.Version)
	for k, v := range s.Info {
		defs.Properties["projections:"+strings.ToLower(k)] = v
	}
	if len(skipped) > 0 {
		defs.Properties["projections:skipped"] = countsByName(skipped)
	}
	if unmatchedSends > 0 {
		notes["creations of messages no log processed (MpiSend to peer -1)"] += unmatchedSends
	}
	if unmatchedRecvs > 0 {
		notes["BEGIN_PROCESSING of no message a log created, or of one processed before (no MpiRecv)"] += unmatchedRecvs
	}
	if len(notes) > 0 {
		defs.Properties["projections:approximated"] = countsByName(notes)
	}
	t := newTraceOf(defs, procs, kind)
	t.Path = sts
	t.damaged = damaged
	return t, nil
}

// projError turns a decoder error into an *Error naming file and offset.
func projError(path string, err error) error {
	var pe *projections.Error
	if errors.As(err, &pe) {
		if pe.Line > 0 {
			return &Error{Path: pe.File, Offset: pe.Offset, Err: fmt.Errorf("line %d: %w", pe.Line, pe.Err)}
		}
		return &Error{Path: pe.File, Offset: pe.Offset, Err: pe.Err}
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	return &Error{Path: path, Offset: -1, Err: err}
}

// readLog reads the log of PE pe into provisional events.
func (r *projReader) readLog(path string) *projPE {
	d := &projPE{skipped: map[string]int64{}, notes: map[string]int64{}}
	lg, err := projections.OpenLog(path, r.sts, func(f io.Reader) io.Reader { return &countingReader{r: f, job: r.job} })
	if err != nil {
		d.err = err
		return d
	}
	defer lg.Close()
	if st, err := os.Stat(path); err == nil {
		// a byte of a gzipped log holds about half an event, a byte of a
		// plain one about a thirtieth
		c := int(min(st.Size()/2, 1<<30))
		if !strings.HasSuffix(path, ".gz") {
			c = int(min(st.Size()/30, 1<<30))
		}
		d.kind, d.time, d.ref = make([]EventKind, 0, c), make([]int64, 0, c), make([]int32, 0, c)
	}
	var stack []int32
	var last int64
	ended := false
	emit := func(k EventKind, t int64, ref int32) {
		d.kind = append(d.kind, k)
		d.time = append(d.time, t)
		d.ref = append(d.ref, ref)
	}
	enter := func(t int64, reg int32) {
		emit(Enter, t, reg)
		stack = append(stack, reg)
	}
	leave := func(t int64, reg int32, what string) {
		k := len(stack) - 1
		for k >= 0 && stack[k] != reg {
			k--
		}
		if k < 0 {
			d.notes[what+" without an open begin (skipped)"]++
			return
		}
		for j := len(stack) - 1; j > k; j-- {
			d.notes["calls still open at the end of an enclosing call (ended there)"]++
			emit(Leave, t, stack[j])
		}
		emit(Leave, t, reg)
		stack = stack[:k]
	}
	var rec projections.Record
	for i := 0; ; i++ {
		if i&0xffff == 0xffff {
			if err := r.job.Err(); err != nil {
				d.err = err
				return d
			}
		}
		err := lg.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			d.err = err
			return d
		}
		if !rec.Known {
			d.skipped[projections.TypeName(rec.Type)]++
			continue
		}
		t := rec.Time * 1000
		if rec.Time >= 0 {
			if t < last {
				d.notes["times earlier than the record before (raised to it)"]++
				t = last
			}
			last = t
		}
		if ended {
			d.skipped["records after END_COMPUTATION"]++
			continue
		}
		switch rec.Type {
		case projections.BeginProcessing:
			enter(t, r.entry[rec.Entry])
			if rec.PE >= 0 {
				d.procs = append(d.procs, projProc{key: projKey(&rec), time: t, entry: int32(rec.Entry), bytes: rec.MsgLen})
				emit(MpiRecv, t, int32(len(d.procs)-1))
			}
		case projections.EndProcessing:
			leave(t, r.entry[rec.Entry], "END_PROCESSING")
		case projections.Creation, projections.CreationBcast, projections.CreationMulticast:
			c := projCreation{key: projKey(&rec), time: t, comm: projCommMsg, entry: int32(rec.Entry), bytes: rec.MsgLen}
			switch rec.Type {
			case projections.CreationBcast:
				c.comm = projCommBcast
			case projections.CreationMulticast:
				c.comm = projCommMulticast
				c.dests = append([]int(nil), rec.DestPEs...)
			}
			d.creates = append(d.creates, c)
			emit(MpiSend, t, int32(len(d.creates)-1))
		case projections.BeginIdle:
			enter(t, projIdle)
		case projections.EndIdle:
			leave(t, projIdle, "END_IDLE")
		case projections.BeginPack:
			enter(t, projPack)
		case projections.EndPack:
			leave(t, projPack, "END_PACK")
		case projections.BeginUnpack:
			enter(t, projUnpack)
		case projections.EndUnpack:
			leave(t, projUnpack, "END_UNPACK")
		case projections.BeginInterrupt:
			enter(t, projInterrupt)
		case projections.EndInterrupt:
			leave(t, projInterrupt, "END_INTERRUPT")
		case projections.BeginUserEventPair:
			enter(t, r.userRegion(rec.User))
		case projections.EndUserEventPair:
			leave(t, r.userRegion(rec.User), "END_USER_EVENT_PAIR")
		case projections.BeginComputation:
			emit(ProgramBegin, t, -1)
		case projections.EndComputation:
			for j := len(stack) - 1; j >= 0; j-- {
				d.notes["calls still open at the end of a log (ended there)"]++
				emit(Leave, t, stack[j])
			}
			stack = stack[:0]
			emit(ProgramEnd, t, -1)
			ended = true
		case projections.BeginTrace:
			emit(MeasurementOn, t, -1)
		case projections.EndTrace:
			emit(MeasurementOff, t, -1)
		default:
			d.skipped[projections.TypeName(rec.Type)]++
		}
	}
	for j := len(stack) - 1; j >= 0; j-- {
		d.notes["calls still open at the end of a log (ended there)"]++
		emit(Leave, last, stack[j])
	}
	if !ended && len(d.kind) > 0 {
		d.notes["logs without END_COMPUTATION (ended at their last time)"]++
		emit(ProgramEnd, last, -1)
	}
	d.maxTime = last
	return d
}

// userRegion returns the region of user event id, made on first use.
func (r *projReader) userRegion(id int) int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if reg, ok := r.user[id]; ok {
		return reg
	}
	nm, ok := r.sts.UserEvents[id]
	if !ok {
		nm = "user event " + strconv.Itoa(id)
	}
	reg := int32(len(r.regions))
	r.regions = append(r.regions, Region{Name: nm, Canonical: nm, Role: "user", Paradigm: "charm"})
	r.user[id] = reg
	return reg
}

// projMatch finds the receivers of every creation among the
// BEGIN_PROCESSING records of its message (see projMsgKey) at or after its
// time: the earliest one not yet taken for a point-to-point message, the
// earliest on each PE for a broadcast (each PE of its list for a
// multicast). Later processings of one message (a threaded entry method
// resumed) get no receive. An interrupt stops it (work.Err).
func projMatch(pes []*projPE) (unmatchedSends, unmatchedRecvs int64, err error) {
	type recv struct {
		pe, idx int32
		time    int64
	}
	by := map[projMsgKey][]recv{}
	for pe, d := range pes {
		for i := range d.procs {
			k := d.procs[i].key
			by[k] = append(by[k], recv{int32(pe), int32(i), d.procs[i].time})
		}
	}
	for _, rs := range by {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].time < rs[j].time })
	}
	var seen []bool
	for _, d := range pes {
		d.peers = make([][]int32, len(d.creates))
		for ci := range d.creates {
			if ci&0xfff == 0 {
				if err := work.Err(); err != nil {
					return 0, 0, err
				}
			}
			c := &d.creates[ci]
			if c.comm != projCommMsg {
				seen = append(seen[:0], make([]bool, len(pes))...)
			}
			for _, rv := range by[c.key] {
				p := &pes[rv.pe].procs[rv.idx]
				if p.matched || rv.time < c.time {
					continue
				}
				if c.comm != projCommMsg {
					if seen[rv.pe] || c.comm == projCommMulticast && len(c.dests) > 0 && !containsInt(c.dests, int(rv.pe)) {
						continue
					}
					seen[rv.pe] = true
				}
				p.matched, p.comm, p.bytes = true, c.comm, c.bytes
				d.peers[ci] = append(d.peers[ci], rv.pe)
				if c.comm == projCommMsg {
					break
				}
			}
			if len(d.peers[ci]) == 0 && c.comm == projCommMsg {
				unmatchedSends++
			}
		}
	}
	for _, d := range pes {
		for i := range d.procs {
			if !d.procs[i].matched {
				unmatchedRecvs++
			}
		}
	}
	return unmatchedSends, unmatchedRecvs, nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// projBuild turns d's provisional events into p's events: a creation
// becomes one MpiSend per receiver (one to peer -1 for a point-to-point
// message nobody processed, none for an unprocessed broadcast), a
// processing an MpiRecv if its creation was found.
func projBuild(d *projPE, p *Process) error {
	n := 0
	for i, k := range d.kind {
		switch k {
		case MpiSend:
			c := &d.creates[d.ref[i]]
			if m := len(d.peers[d.ref[i]]); m > 0 {
				n += m
			} else if c.comm == projCommMsg {
				n++
			}
		case MpiRecv:
			if d.procs[d.ref[i]].matched {
				n++
			}
		default:
			n++
		}
	}
	p.makeEvents(n)
	emit := p.addEvent
	for i, k := range d.kind {
		if i&0xfffff == 0xfffff {
			if err := work.Err(); err != nil {
				return err
			}
		}
		t := d.time[i]
		switch k {
		case MpiSend:
			c := &d.creates[d.ref[i]]
			peers := d.peers[d.ref[i]]
			if len(peers) == 0 && c.comm == projCommMsg {
				emit(MpiSend, t, p.Msgs.Add(-1, c.comm, c.entry, c.bytes, 0))
			}
			for _, q := range peers {
				emit(MpiSend, t, p.Msgs.Add(q, c.comm, c.entry, c.bytes, 0))
			}
		case MpiRecv:
			pr := &d.procs[d.ref[i]]
			if pr.matched {
				emit(MpiRecv, t, p.Msgs.Add(pr.key.pe, pr.comm, pr.entry, pr.bytes, 0))
			}
		default:
			emit(k, t, d.ref[i])
		}
	}
	return nil
}
