package imbalance

import (
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Segment is one invocation of the dominant function on one process (6.2.2).
type Segment struct {
	Location  int   // index of the process in its trace
	Iteration int   // k for the process's k-th invocation, from 0
	Start     int64 // enter time, ns
	End       int64 // leave time, ns
	Sync      int64 // time inside synchronisation calls within [Start, End], ns (nested calls once)
}

// Duration is the segment's inclusive time in ns.
func (s Segment) Duration() int64 { return s.End - s.Start }

// SOS is the synchronisation-oblivious segment time: Duration minus Sync, ns.
func (s Segment) SOS() int64 { return s.End - s.Start - s.Sync }

// SegmentsOf returns the segments of p for the function with region id fn: one per invocation
// (recursive invocations are part of the outermost one), with the synchronisation time inside
// each; sync[r] tells whether region r synchronises (trace.SyncClassifier.Regions). This is the
// per-process second stage; Summarize combines the segments of all processes.
func SegmentsOf(p *trace.Process, fn int32, sync []bool) []Segment {
	const name = "imbalance.SegmentsOf"
	defer recoverAs(name)
	if p == nil || p.Trace == nil || p.Trace.Defs == nil {
		fail(name, "the process has no trace")
	}
	if fn < 0 || int(fn) >= len(p.Trace.Defs.Regions) {
		fail(name, "region id %d is not a region of the trace (0..%d)", fn, len(p.Trace.Defs.Regions)-1)
	}
	var s segmenter
	s.process(p, fn, sync, nil)
	return s.out
}

// segmenter is one worker's pass state for the segments.
type segmenter struct {
	reg []int32 // call stack
	out []Segment

	fn           int32
	sync         []bool
	loc          int
	inFn, inSync int   // open invocations of fn, open synchronisation calls
	segStart     int64 // start of the open segment
	mark         int64 // since when the open segment is inside synchronisation
	syncSum      int64 // synchronisation time of the open segment so far
	iter         int
}

func (s *segmenter) isSync(r int32) bool { return uint32(r) < uint32(len(s.sync)) && s.sync[r] }

func (s *segmenter) enter(r int32, t int64) {
	if r == s.fn {
		if s.inFn++; s.inFn == 1 {
			s.segStart, s.syncSum = t, 0
			if s.inSync > 0 {
				s.mark = t
			}
		}
	}
	if s.isSync(r) {
		if s.inSync++; s.inSync == 1 && s.inFn > 0 {
			s.mark = t
		}
	}
}

func (s *segmenter) leave(r int32, t int64) {
	if s.isSync(r) {
		if s.inSync--; s.inSync == 0 && s.inFn > 0 {
			s.syncSum += t - s.mark
		}
	}
	if r == s.fn {
		if s.inFn--; s.inFn == 0 {
			if s.inSync > 0 {
				s.syncSum += t - s.mark
			}
			s.out = append(s.out, Segment{Location: s.loc, Iteration: s.iter, Start: s.segStart, End: t, Sync: s.syncSum})
			s.iter++
		}
	}
}

// process appends p's segments to s.out. Only the regions fn and the synchronisation regions
// matter, so other calls cost a push and a pop.
func (s *segmenter) process(p *trace.Process, fn int32, sync []bool, job *work.Job) {
	s.fn, s.sync, s.loc = fn, sync, p.Index
	s.inFn, s.inSync, s.iter = 0, 0, 0
	reg := s.reg[:0]
	times, refs := p.Time, p.Ref
	nreg := uint32(len(p.Trace.Defs.Regions))
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
			if r == fn || s.isSync(r) {
				s.enter(r, times[i])
			}
		case trace.Leave:
			n, r := len(reg), refs[i]
			if n > 0 && (r < 0 || reg[n-1] == r) {
				if q := reg[n-1]; q == fn || s.isSync(q) {
					s.leave(q, times[i])
				}
				reg = reg[:n-1]
			} else if d := trace.MatchLeave(n, r, func(d int) int32 { return reg[d] }, &repairs); d >= 0 {
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
		s.leave(reg[n-1], t)
	}
	return reg[:d]
}
