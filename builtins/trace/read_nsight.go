package trace

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tracebook/tracebook/builtins/internal/sqlite"
	"github.com/tracebook/tracebook/builtins/trace/nsight"
	"github.com/tracebook/tracebook/builtins/work"
)

// Nsight Systems reports become traces as follows (see package nsight for
// the files read):
//
//   - every CPU thread (PID, TID) with NVTX ranges or CUDA API calls is a
//     location "PID p / TID t" (type cpu_thread) of the location group
//     "PID p" (type process); every GPU stream with kernels or memory
//     operations is a location "GPU d / stream s" (type
//     accelerator_stream) of the group "GPU d" (type accelerator); when a
//     device has streams of several contexts, " / context c" is added;
//   - every NVTX range, API call, kernel, memcpy and memset is an Enter at
//     its start and a Leave at its end on its location, in a region of its
//     name: NVTX ranges have paradigm "user" and role "code"; CUDA API
//     calls paradigm "cuda", role "function"; kernels paradigm "cuda",
//     role "function"; memory operations ("[CUDA memcpy HtoD]", "[CUDA
//     memset]", as nsys names them) paradigm "cuda", role "data_transfer";
//   - times are ns from the earliest start of the report;
//   - the intervals of one location are nested by their times (an interval
//     inside another is its callee). An interval that overlaps another
//     without being inside it (NVTX start/end ranges may, and rows whose
//     clocks disagree) cannot be nested: it is left out, and the count is
//     in Properties["nsight:skipped"] with the other rows left out.

// isNsightCSV tells whether a .csv file is an Nsight Systems report rather
// than an event table: by the report's header line (after the lines nsys
// prints before it when its output is captured).
func isNsightCSV(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return nsight.Detect(f) != nsight.Unknown
}

// loadNsightCSV reads an Nsight Systems CSV report.
func loadNsightCSV(path string, cfg loadConfig) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	// a row is at least ~30 bytes; a span is ~100 bytes and 2 events
	if err := work.Reserve("loading "+path, st.Size()/30*(100+2*EventBytes)); err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	job := work.Start("reading "+filepath.Base(path), st.Size(), "bytes")
	defer job.Done()
	var last int64
	rep, err := nsight.ReadCSV(f, path, func(n int64) error {
		err := job.Add(n - last)
		last = n
		return err
	})
	if err != nil {
		return nil, nsightErr(path, err)
	}
	return nsightTrace(path, rep)
}

// loadNsightSQLite reads an Nsight Systems SQLite export.
func loadNsightSQLite(path string, cfg loadConfig) (*Trace, error) {
	job := work.Start("reading "+filepath.Base(path), 0, "rows")
	defer job.Done()
	rep, err := nsight.ReadSQLite(path, func(n int64) error { return job.Add(n) })
	if err != nil {
		return nil, nsightErr(path, err)
	}
	return nsightTrace(path, rep)
}

// nsightErr wraps err as an *Error naming the file; the row or line is in
// the message (the files have no byte offsets to give).
func nsightErr(path string, err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Offset > 0 {
		return &Error{Path: path, Offset: se.Offset, Err: err}
	}
	return &Error{Path: path, Offset: -1, Err: err}
}

// nsightLoc is one location of a report: a thread or a GPU stream.
type nsightLoc struct {
	gpu       bool
	a, b, ctx int64 // PID, TID or device, stream, context
	spans     []int32
	group     int32
	name      string
	proc      *Process
}

// nsightTrace builds the trace of a report.
func nsightTrace(path string, rep *nsight.Report) (*Trace, error) {
	spans := rep.Spans
	if err := work.Reserve("building the trace of "+path, int64(len(spans))*2*EventBytes); err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	type key struct {
		gpu       bool
		a, b, ctx int64
	}
	locs := map[key]*nsightLoc{}
	var order []*nsightLoc
	type regionKey struct {
		name, role, paradigm string
	}
	regions := map[regionKey]int32{}
	var defs Definitions
	defs.Properties = map[string]string{"format": "Nsight Systems " + rep.Kind.String()}
	if rep.Kind != nsight.SQLite {
		defs.Properties["format"] += " report (CSV)"
	} else {
		defs.Properties["format"] = "Nsight Systems SQLite export"
	}
	regionOf := func(s *nsight.Span) int32 {
		name, role, paradigm := s.Name, "function", "cuda"
		switch s.Src {
		case nsight.SrcNVTX:
			role, paradigm = "code", "user"
		case nsight.SrcMemcpy, nsight.SrcMemset, nsight.SrcGPUOther:
			role = "data_transfer"
		}
		k := regionKey{name, role, paradigm}
		if id, ok := regions[k]; ok {
			return id
		}
		id := int32(len(defs.Regions))
		defs.Regions = append(defs.Regions, Region{Name: name, Canonical: name, Role: role, Paradigm: paradigm})
		regions[k] = id
		return id
	}
	ref := make([]int32, len(spans))
	minT, maxT := int64(0), int64(0)
	for i := range spans {
		s := &spans[i]
		if i == 0 || s.Start < minT {
			minT = s.Start
		}
		if i == 0 || s.End > maxT {
			maxT = s.End
		}
		k := key{gpu: s.OnGPU(), a: s.PID, b: s.TID}
		if k.gpu {
			k.a, k.b, k.ctx = s.Device, s.Stream, s.Context
		}
		l := locs[k]
		if l == nil {
			l = &nsightLoc{gpu: k.gpu, a: k.a, b: k.b, ctx: k.ctx}
			locs[k] = l
			order = append(order, l)
		}
		l.spans = append(l.spans, int32(i))
		ref[i] = regionOf(s)
	}
	// CPU threads by PID, TID; then GPU streams by device, stream, context
	slices.SortFunc(order, func(x, y *nsightLoc) int {
		if x.gpu != y.gpu {
			if y.gpu {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b), cmp.Compare(x.ctx, y.ctx))
	})
	ctxs := map[int64]map[int64]bool{} // device -> contexts
	for _, l := range order {
		if l.gpu {
			if ctxs[l.a] == nil {
				ctxs[l.a] = map[int64]bool{}
			}
			ctxs[l.a][l.ctx] = true
		}
	}
	groupOf := map[[2]int64]int32{}
	var procs []*Process
	var kinds []locKind
	thread := map[int32]int32{}
	for _, l := range order {
		gk := [2]int64{0, l.a}
		gname, gtype, ltype := fmt.Sprintf("PID %d", l.a), "process", "cpu_thread"
		l.name = fmt.Sprintf("PID %d / TID %d", l.a, l.b)
		if l.gpu {
			gk[0] = 1
			gname, gtype, ltype = fmt.Sprintf("GPU %d", l.a), "accelerator", "accelerator_stream"
			l.name = fmt.Sprintf("GPU %d / stream %d", l.a, l.b)
			if len(ctxs[l.a]) > 1 {
				l.name += fmt.Sprintf(" / context %d", l.ctx)
			}
		}
		g, ok := groupOf[gk]
		if !ok {
			g = int32(len(defs.LocationGroups))
			groupOf[gk] = g
			defs.LocationGroups = append(defs.LocationGroups, LocationGroup{Name: gname, Type: gtype, SystemNode: -1})
		}
		l.group = g
		defs.Locations = append(defs.Locations, Location{Name: l.name, Type: ltype, Group: g, NumEvents: uint64(2 * len(l.spans))})
		l.proc = &Process{Rank: g, Thread: thread[g], Name: l.name}
		thread[g]++
		procs = append(procs, l.proc)
		kinds = append(kinds, locProcess)
	}
	defs.Clock = Clock{Resolution: 1e9}
	if len(spans) > 0 {
		defs.Clock.Offset = uint64(minT)
		defs.Clock.Length = uint64(maxT - minT)
	}
	job := work.Start("building the trace model", int64(len(spans)), "intervals")
	defer job.Done()
	var overlapping int64
	for _, l := range order {
		if err := job.Add(int64(len(l.spans))); err != nil {
			return nil, &Error{Path: path, Offset: -1, Err: err}
		}
		overlapping += nsightNest(l, spans, ref, minT)
	}
	skipped := map[string]int64{}
	for k, v := range rep.Skipped {
		skipped[k] += v
	}
	if overlapping > 0 {
		skipped["overlapping another interval of their location without being inside it"] += overlapping
	}
	if len(skipped) > 0 {
		defs.Properties["nsight:skipped"] = "rows: " + countsByName(skipped)
	}
	t := newTraceOf(&defs, procs, kinds)
	t.Path = path
	return t, nil
}

// nsightNest turns the spans of one location into its events: sorted by
// start (the longer first at equal starts, then by row), each one inside
// the open one is its callee; one that overlaps the open one without being
// inside it is left out and counted.
func nsightNest(l *nsightLoc, spans []nsight.Span, ref []int32, offset int64) (skipped int64) {
	idx := l.spans
	slices.SortFunc(idx, func(x, y int32) int {
		a, b := &spans[x], &spans[y]
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End), cmp.Compare(a.Row, b.Row))
	})
	p := l.proc
	n := 2 * len(idx)
	p.makeEvents(n)
	emit := func(k EventKind, ts int64, r int32) { p.addEvent(k, ts-offset, r) }
	var stack []int32
	for _, i := range idx {
		s := &spans[i]
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if spans[top].End > s.Start {
				break
			}
			emit(Leave, spans[top].End, ref[top])
			stack = stack[:len(stack)-1]
		}
		if s.End < s.Start || len(stack) > 0 && s.End > spans[stack[len(stack)-1]].End {
			skipped++
			continue
		}
		stack = append(stack, i)
		emit(Enter, s.Start, ref[i])
	}
	for k := len(stack) - 1; k >= 0; k-- {
		emit(Leave, spans[stack[k]].End, ref[stack[k]])
	}
	p.Skipped = skipped
	return skipped
}
