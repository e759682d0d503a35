package trace

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/tracebook/tracebook/builtins/trace/hpctoolkit"
	"github.com/tracebook/tracebook/builtins/work"
)

// loadHPCToolkit reads an HPCToolkit v4 database directory: meta.db (the
// calling context tree), profile.db (who each trace line is) and trace.db
// (the samples), as pipit's from_hpctoolkit does.
//
// Each trace line becomes a process, named from its identifier tuple ("MPI
// Rank 1", "MPI Rank 1 / Thread 2", "MPI Rank 0 / GPU context 0 / GPU
// stream 3"), processes ordered by rank then thread. Each sample's context
// becomes a call path: the entry point ("main thread"), the functions and
// the loops from the root of the tree to the context, leaving out source
// lines and instructions (which belong to the function or loop that holds
// them). When the path changes from one sample to the next, the frames
// below the common ancestor are left and the new ones entered, at the
// sample's time; a sample of context 0 (the thread not running) leaves
// every frame. The frames still open after a line's last sample are left
// at the database's last timestamp (trace.db maxTimestamp), as pipit does.
// Times are ns from the database's first timestamp (trace.db
// minTimestamp), pipit's Timestamp (ns).
//
// Regions: one per function (name as hpcprof wrote it, file and line of
// its definition; paradigm "mpi" for MPI_ and PMPI_ names), one per loop
// (Role "loop", named "loop at file:line", where pipit writes "loop" with a
// "Loop Enter" event type), one per entry point (Role "artificial").
// Samples of a context id the tree does not define are skipped and counted
// in Definitions.Properties["hpctoolkit:skipped"]; samples whose timestamp
// goes back in time are kept at the previous time and counted in
// "hpctoolkit:approximated".
func loadHPCToolkit(dir string, cfg loadConfig) (*Trace, error) {
	meta, err := hpctoolkit.ReadMeta(filepath.Join(dir, "meta.db"))
	if err != nil {
		return nil, wrapHPCToolkit(dir, err)
	}
	profiles, err := hpctoolkit.ReadProfiles(filepath.Join(dir, "profile.db"))
	if err != nil {
		return nil, wrapHPCToolkit(dir, err)
	}
	tdb, err := hpctoolkit.OpenTrace(filepath.Join(dir, "trace.db"))
	if err != nil {
		return nil, wrapHPCToolkit(dir, err)
	}
	defer tdb.Close()

	defs := &Definitions{Properties: map[string]string{
		"creator":            "HPCToolkit",
		"hpctoolkit:title":   meta.Title,
		"hpctoolkit:version": fmt.Sprintf("%d.%d", hpctoolkit.MajorVersion, tdb.Minor),
	}}
	defs.Clock = Clock{Resolution: 1e9, Offset: tdb.MinTime}
	if tdb.MaxTime > tdb.MinTime {
		defs.Clock.Length = tdb.MaxTime - tdb.MinTime
	}
	cv := newHPCConv(meta, defs)

	// One process per trace line, ordered by identifier tuple.
	lines := make([]hpcLine, len(tdb.Lines))
	for i, l := range tdb.Lines {
		if int(l.Profile) >= len(profiles) {
			return nil, &Error{Path: tdb.Name(), Offset: l.Header, Err: fmt.Errorf("trace line %d names profile %d; profile.db has %d", i, l.Profile, len(profiles))}
		}
		lines[i] = hpcLine{line: i, id: hpcIdentity(meta, profiles[l.Profile].IDs)}
	}
	slices.SortStableFunc(lines, func(a, b hpcLine) int { return a.id.compare(b.id) })
	groups := map[hpcGroupKey]int32{}
	nodes := map[uint64]int32{}
	var threadNo []int32
	procs := make([]*Process, len(lines))
	store := make([]Process, len(lines))
	var total int64
	for j, ln := range lines {
		id := ln.id
		key := hpcGroupKey{id.hasRank, id.rank}
		g, ok := groups[key]
		if !ok {
			sn := int32(-1)
			if id.hasNode {
				if sn, ok = nodes[id.node]; !ok {
					sn = int32(len(defs.SystemTree))
					nodes[id.node] = sn
					defs.SystemTree = append(defs.SystemTree, SystemTreeNode{Name: fmt.Sprintf("node %#x", id.node), Class: "node", Parent: -1})
				}
			}
			g = int32(len(defs.LocationGroups))
			groups[key] = g
			defs.LocationGroups = append(defs.LocationGroups, LocationGroup{Name: id.groupName(), Type: "process", SystemNode: sn})
			threadNo = append(threadNo, 0)
		}
		typ := "cpu_thread"
		if id.gpu {
			typ = "accelerator_stream"
		}
		l := tdb.Lines[ln.line]
		defs.Locations = append(defs.Locations, Location{Name: id.locationName(), Type: typ, Group: g, NumEvents: 0})
		p := &store[j]
		p.Rank, p.Thread = g, threadNo[g]
		threadNo[g]++
		p.Name = id.name()
		procs[j] = p
		if !cfg.noEvents {
			total += l.NumSamples()
		}
	}
	want := func(j int) bool { return !cfg.noEvents && (!cfg.onlySet || slices.Contains(cfg.only, j)) }

	// Each sample changes the path by a few frames at most, most by none:
	// two events per sample is the estimate to reserve.
	if err := work.Reserve("loading "+dir, 2*total*EventBytes); err != nil {
		return nil, &Error{Path: dir, Offset: -1, Err: err}
	}
	prog := work.Start("loading "+filepath.Base(dir), total, "samples")
	defer prog.Done()
	// Trace lines are read in parallel, each into its process.
	errs := make([]error, len(lines))
	clampedBy := make([]int64, len(lines))
	var failed atomic.Bool
	work.Each(len(lines), func(_, j int) {
		if !want(j) || failed.Load() {
			return
		}
		procs[j].Skipped, clampedBy[j], errs[j] = cv.readLine(tdb, lines[j].line, procs[j], prog)
		if errs[j] != nil {
			failed.Store(true)
		}
	})
	var skipped, clamped int64
	for j, err := range errs {
		if err != nil {
			var he *hpctoolkit.Error
			if errors.As(err, &he) {
				return nil, wrapHPCToolkit(dir, err)
			}
			return nil, &Error{Path: tdb.Name(), Offset: tdb.Lines[lines[j].line].Start, Err: err}
		}
		skipped += procs[j].Skipped
		clamped += clampedBy[j]
	}
	if skipped > 0 {
		defs.Properties["hpctoolkit:skipped"] = fmt.Sprintf("samples of undefined contexts ×%d", skipped)
	}
	if clamped > 0 {
		defs.Properties["hpctoolkit:approximated"] = fmt.Sprintf("samples earlier than the previous one, kept at its time ×%d", clamped)
	}
	t := newTraceOf(defs, procs, make([]locKind, len(procs)))
	t.Path = dir
	return t, nil
}

func wrapHPCToolkit(dir string, err error) error {
	var he *hpctoolkit.Error
	if errors.As(err, &he) {
		return &Error{Path: he.File, Offset: he.Offset, Err: he.Err}
	}
	return &Error{Path: dir, Offset: -1, Err: err}
}

// hpcLine is a trace line and whom it traces.
type hpcLine struct {
	line int
	id   hpcID
}

type hpcGroupKey struct {
	hasRank bool
	rank    uint32
}

// hpcID is what an identifier tuple says of a trace line.
type hpcID struct {
	hasNode, hasRank, gpu bool
	node                  uint64
	rank                  uint32
	// the other identifications, in tuple order: THREAD, GPUCONTEXT,
	// GPUSTREAM, ... (NODE and CORE do not name a thread)
	kinds []string
	vals  []uint64
}

func hpcIdentity(meta *hpctoolkit.Meta, ids []hpctoolkit.ID) hpcID {
	var id hpcID
	for _, x := range ids {
		kind := fmt.Sprintf("KIND%d", x.Kind)
		if int(x.Kind) < len(meta.IDNames) {
			kind = meta.IDNames[x.Kind]
		}
		v := uint64(x.LogicalID)
		if x.IsPhysical {
			v = x.PhysicalID
		}
		switch kind {
		case "NODE":
			id.hasNode, id.node = true, x.PhysicalID
		case "RANK":
			id.hasRank, id.rank = true, x.LogicalID
		case "CORE", "SUMMARY":
		default:
			if strings.HasPrefix(kind, "GPU") {
				id.gpu = true
			}
			id.kinds = append(id.kinds, kind)
			id.vals = append(id.vals, v)
		}
	}
	return id
}

func (a hpcID) compare(b hpcID) int {
	switch {
	case a.hasRank != b.hasRank:
		if a.hasRank {
			return -1
		}
		return 1
	case a.rank != b.rank:
		if a.rank < b.rank {
			return -1
		}
		return 1
	case a.gpu != b.gpu:
		if b.gpu {
			return -1
		}
		return 1
	}
	for i := 0; i < min(len(a.vals), len(b.vals)); i++ {
		if c := strings.Compare(a.kinds[i], b.kinds[i]); c != 0 {
			return c
		}
		if a.vals[i] != b.vals[i] {
			if a.vals[i] < b.vals[i] {
				return -1
			}
			return 1
		}
	}
	return len(a.vals) - len(b.vals)
}

func (a hpcID) groupName() string {
	if a.hasRank {
		return fmt.Sprintf("MPI Rank %d", a.rank)
	}
	return "Process"
}

// locationName names the thread within its process: "Thread 2", "GPU
// context 0 / GPU stream 3"; "Master thread" for thread 0 (or none).
func (a hpcID) locationName() string {
	var parts []string
	for i, k := range a.kinds {
		if k == "THREAD" && a.vals[i] == 0 && len(a.kinds) == 1 {
			continue
		}
		parts = append(parts, hpcKindName(k)+" "+fmt.Sprint(a.vals[i]))
	}
	if len(parts) == 0 {
		return "Master thread"
	}
	return strings.Join(parts, " / ")
}

// name is the process name: "MPI Rank 1", "MPI Rank 1 / Thread 2".
func (a hpcID) name() string {
	if l := a.locationName(); l != "Master thread" {
		return a.groupName() + " / " + l
	}
	return a.groupName()
}

func hpcKindName(k string) string {
	switch k {
	case "THREAD":
		return "Thread"
	case "GPUDEVICE":
		return "GPU device"
	case "GPUCONTEXT":
		return "GPU context"
	case "GPUSTREAM":
		return "GPU stream"
	}
	return k
}

// hpcConv maps contexts to frames of call paths.
type hpcConv struct {
	meta *hpctoolkit.Meta
	// frame[i] is the frame of context i: itself for an entry point,
	// function or loop, else its nearest such ancestor (-1 if none).
	frame  []int32
	parent []int32 // the frame of context i's parent frame, for frames
	depth  []int32 // frames above a frame
	region []int32 // region of a frame
}

func newHPCConv(meta *hpctoolkit.Meta, defs *Definitions) *hpcConv {
	n := len(meta.Contexts)
	cv := &hpcConv{meta: meta, frame: make([]int32, n), parent: make([]int32, n), depth: make([]int32, n), region: make([]int32, n)}
	regionOf := map[Region]int32{}
	fnRegion := make([]int32, len(meta.Functions))
	for i := range fnRegion {
		fnRegion[i] = -1
	}
	intern := func(r Region) int32 {
		if id, ok := regionOf[r]; ok {
			return id
		}
		id := int32(len(defs.Regions))
		regionOf[r] = id
		defs.Regions = append(defs.Regions, r)
		return id
	}
	file := func(i int32) string {
		if i >= 0 {
			return meta.Files[i].Path
		}
		return ""
	}
	for i, c := range meta.Contexts {
		up := int32(-1)
		if c.Parent >= 0 {
			up = cv.frame[c.Parent] // parents come first
		}
		var r int32
		switch {
		case c.EntryPoint:
			r = intern(Region{Name: c.Name, Canonical: c.Name, Role: "artificial", Paradigm: "user"})
		case c.Lexical == hpctoolkit.LexLoop:
			name := "loop"
			if c.File >= 0 {
				name = fmt.Sprintf("loop at %s:%d", filepath.Base(file(c.File)), c.Line)
			}
			r = intern(Region{Name: name, Canonical: name, Role: "loop", Paradigm: "user", File: file(c.File), BeginLine: c.Line})
		case c.Lexical == hpctoolkit.LexFunction && c.Function >= 0:
			if fnRegion[c.Function] < 0 {
				fnRegion[c.Function] = intern(hpcFunctionRegion(meta, meta.Functions[c.Function]))
			}
			r = fnRegion[c.Function]
		case c.Lexical == hpctoolkit.LexFunction:
			r = intern(Region{Name: "<unknown function>", Canonical: "<unknown function>", Role: "function", Paradigm: "user"})
		default: // a line or an instruction: part of the enclosing frame
			cv.frame[i] = up
			cv.region[i] = -1
			continue
		}
		cv.frame[i] = int32(i)
		cv.parent[i] = up
		if up >= 0 {
			cv.depth[i] = cv.depth[up] + 1
		}
		cv.region[i] = r
	}
	return cv
}

func hpcFunctionRegion(meta *hpctoolkit.Meta, f hpctoolkit.Function) Region {
	name := f.Name
	if name == "" { // anonymous: name it by its place, as hpcprof names unknown procedures
		mod := ""
		if f.Module >= 0 {
			mod = " [" + filepath.Base(meta.Modules[f.Module].Path) + "]"
		}
		name = fmt.Sprintf("<unknown procedure> %#x%s", f.Offset, mod)
	}
	r := Region{Name: name, Canonical: name, Role: "function", Paradigm: "user", BeginLine: f.Line}
	if f.File >= 0 {
		r.File = meta.Files[f.File].Path
	}
	if strings.HasPrefix(name, "MPI_") || strings.HasPrefix(name, "PMPI_") {
		r.Paradigm = "mpi"
	}
	return r
}

// readLine turns the samples of trace line i into the events of p. It
// returns the samples skipped (undefined contexts) and clamped (earlier
// than the previous one).
func (cv *hpcConv) readLine(tdb *hpctoolkit.TraceDB, i int, p *Process, prog *work.Job) (skipped, clamped int64, err error) {
	l := tdb.Lines[i]
	n := l.NumSamples()
	guess := min(n, 4096) // most samples repeat the context: let append grow it
	p.makeEvents(int(guess))
	emit := p.addEvent
	cur := int32(-1) // the frame on top of the path
	var last int64
	var lastCtx uint32
	first := true
	var path []int32
	// move changes the path from cur to frame f at time t.
	move := func(f int32, t int64) {
		a, b := cur, f
		path = path[:0]
		for a >= 0 && (b < 0 || cv.depth[a] > cv.depth[b]) {
			emit(Leave, t, cv.region[a])
			a = cv.parent[a]
		}
		for b >= 0 && (a < 0 || cv.depth[b] > cv.depth[a]) {
			path = append(path, b)
			b = cv.parent[b]
		}
		for a != b {
			emit(Leave, t, cv.region[a])
			a = cv.parent[a]
			path = append(path, b)
			b = cv.parent[b]
		}
		for k := len(path) - 1; k >= 0; k-- {
			emit(Enter, t, cv.region[path[k]])
		}
		cur = f
	}
	off := tdb.MinTime
	err = tdb.ReadLine(i, func(ss []hpctoolkit.Sample) error {
		for _, s := range ss {
			if !first && s.Ctx == lastCtx {
				continue
			}
			f := int32(-1)
			if s.Ctx != 0 {
				c := cv.meta.Context(s.Ctx)
				if c < 0 {
					skipped++
					continue
				}
				f = cv.frame[c]
			}
			t := int64(s.Time - off)
			if s.Time < off { // before the database's first time: at it
				t = 0
				clamped++
			}
			if !first && t < last {
				t = last
				clamped++
			}
			first, last, lastCtx = false, t, s.Ctx
			if f != cur {
				move(f, t)
			}
		}
		return prog.Add(int64(len(ss)))
	})
	if err != nil {
		return 0, 0, err
	}
	end := int64(tdb.MaxTime - off)
	move(-1, max(end, last))
	return skipped, clamped, nil
}
