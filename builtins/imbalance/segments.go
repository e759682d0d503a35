package imbalance

import (
	"slices"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Segment is one invocation of the dominant function on one process (6.2.2).
type Segment struct {
	Location   int   // index of the process in its trace
	Invocation int   // k for the process's k-th invocation, from 0
	Iteration  int   // the iteration it is aligned to (Summarize); SegmentsOf sets Invocation
	Start      int64 // enter time, ns
	End        int64 // leave time, ns
	Sync       int64 // time inside synchronisation calls within [Start, End], ns (nested calls once)
}

// Duration is the segment's inclusive time in ns.
func (s Segment) Duration() int64 { return s.End - s.Start }

// SOS is the synchronisation-oblivious segment time: Duration minus Sync, ns.
func (s Segment) SOS() int64 { return s.End - s.Start - s.Sync }

// SegmentsOf returns the segments of p for the function with region id fn: one per invocation
// (recursive invocations are part of the outermost one), with the synchronisation time inside
// each; sync[r] tells whether region r synchronises (trace.SyncClassifier.Regions). This is the
// per-process second stage; Summarize combines the segments of all processes and aligns
// their iterations (until then Iteration is Invocation).
func SegmentsOf(p *trace.Process, fn int32, sync []bool) []Segment {
	const name = "imbalance.SegmentsOf"
	defer work.RecoverAs(name)
	if p == nil || p.Trace == nil || p.Trace.Defs == nil {
		fail(name, "the process has no trace")
	}
	if fn < 0 || int(fn) >= len(p.Trace.Defs.Regions) {
		fail(name, "region id %d is not a region of the trace (0..%d)", fn, len(p.Trace.Defs.Regions)-1)
	}
	p.NeedEvents(name)
	s := newSegmenter(len(p.Trace.Defs.Regions), fn, sync)
	s.process(p, nil)
	return slices.Clip(s.out)
}

// segmenter is one worker's pass state for the segments.
type segmenter struct {
	reg []int32 // call stack
	out []Segment

	mark         []uint8 // per region: markFn, markSync or both
	loc          int
	inFn, inSync int   // open invocations of fn, open synchronisation calls
	segStart     int64 // start of the open segment
	since        int64 // since when the open segment is inside synchronisation
	syncSum      int64 // synchronisation time of the open segment so far
	iter         int
}

const (
	markFn   = 1
	markSync = 2
)

// marks returns per region whether it is fn (markFn) or synchronisation (markSync), so that the
// pass looks up one byte per call.
func marks(nreg int, fn int32, sync []bool) []uint8 {
	m := make([]uint8, nreg)
	for r := range m {
		if r < len(sync) && sync[r] {
			m[r] |= markSync
		}
	}
	if fn >= 0 && int(fn) < nreg {
		m[fn] |= markFn
	}
	return m
}

// enter and leave handle a call of region r >= 0 marked markFn or markSync.
func (s *segmenter) enter(r int32, t int64) {
	m := s.mark[r]
	if m&markFn != 0 {
		if s.inFn++; s.inFn == 1 {
			s.segStart, s.syncSum = t, 0
			if s.inSync > 0 {
				s.since = t
			}
		}
	}
	if m&markSync != 0 {
		if s.inSync++; s.inSync == 1 && s.inFn > 0 {
			s.since = t
		}
	}
}

func (s *segmenter) leave(r int32, t int64) {
	m := s.mark[r]
	if m&markSync != 0 {
		if s.inSync--; s.inSync == 0 && s.inFn > 0 {
			s.syncSum += t - s.since
		}
	}
	if m&markFn != 0 {
		if s.inFn--; s.inFn == 0 {
			if s.inSync > 0 {
				s.syncSum += t - s.since
			}
			s.out = append(s.out, Segment{Location: s.loc, Invocation: s.iter, Iteration: s.iter, Start: s.segStart, End: t, Sync: s.syncSum})
			s.iter++
		}
	}
}

// newSegmenter returns a segmenter for the segments of fn with the synchronisation regions
// sync, over a trace of nreg regions.
func newSegmenter(nreg int, fn int32, sync []bool) *segmenter {
	return &segmenter{mark: marks(nreg, fn, sync)}
}

// begin starts the segments of p.
func (s *segmenter) begin(p *trace.Process) {
	s.loc = p.Index
	s.inFn, s.inSync, s.iter = 0, 0, 0
}

// processNested is process for a location that nests properly (every Leave closes the
// innermost call, with its region, and no call is left open): without a call stack, a Leave's
// region is the call it closes.
func (s *segmenter) processNested(p *trace.Process, job *work.Job) {
	s.begin(p)
	nreg := uint32(len(s.mark))
	times, refs, mark := p.Time, p.Ref, s.mark
	kinds := p.Kind
	for lo := 0; lo < len(kinds); lo += chunk {
		hi := min(lo+chunk, len(kinds))
		for i, k := range kinds[lo:hi] {
			if k > trace.Leave {
				continue
			}
			r := refs[lo+i]
			if uint32(r) >= nreg || mark[r] == 0 {
				continue
			}
			if k == trace.Enter {
				s.enter(r, times[lo+i])
			} else {
				s.leave(r, times[lo+i])
			}
		}
		if err := job.Add(int64(hi - lo)); err != nil {
			panic(err)
		}
	}
}

// process appends p's segments to s.out. Only the regions fn and the synchronisation regions
// matter, so other calls cost a push and a pop.
func (s *segmenter) process(p *trace.Process, job *work.Job) {
	s.begin(p)
	nreg := uint32(len(s.mark))
	reg := s.reg[:0]
	times, refs, mark := p.Time, p.Ref, s.mark
	var repairs trace.CallRepairs
	for i, k := range p.Kind {
		if i&(chunk-1) == chunk-1 {
			if err := job.Add(chunk); err != nil {
				panic(err)
			}
		}
		switch k {
		case trace.Enter:
			r := refs[i]
			if uint32(r) >= nreg {
				r = -1
			}
			reg = append(reg, r)
			if r >= 0 && mark[r] != 0 {
				s.enter(r, times[i])
			}
		case trace.Leave:
			if d := trace.LeaveDepth(reg, refs[i], &repairs); d >= 0 {
				reg = s.closeTo(reg, d, times[i])
			}
		}
	}
	job.Add(int64(len(p.Kind) % chunk))
	if n := len(p.Time); n > 0 {
		reg = s.closeTo(reg, 0, p.Time[n-1])
	}
	s.reg = reg
}

func (s *segmenter) closeTo(reg []int32, d int, t int64) []int32 {
	for n := len(reg); n > d; n-- {
		if r := reg[n-1]; r >= 0 && s.mark[r] != 0 {
			s.leave(r, t)
		}
	}
	return reg[:d]
}
