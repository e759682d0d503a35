package fold

import (
	"math"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// NoState is the state of a stream outside every call (Weber's no-state).
const NoState int32 = -1

// blockShift sets the block size of a stream's transitions: a transition
// is one uint64, its time as a uint32 offset from an int64 base per block
// of 1<<blockShift transitions in the high half and its state in the low
// half (8 bytes per transition, 8 per block for the base). A block is two
// cache lines and the state lies beside the time that was searched.
const blockShift = 4

const blockSize = 1 << blockShift

// stream is one stream's state transitions in time order: from time(j) on
// (up to the next transition) the stream is in state(j); before the first
// transition it is in NoState. Consecutive transitions have different
// states and strictly increasing times, except padding (see add), which
// repeats the previous transition.
type stream struct {
	states int32    // 1 + the largest state entered (an upper bound of the states)
	base   []int64  // time of the first transition of each block
	ent    []uint64 // offset from the block's base << 32 | uint32(state)
}

func pack(off uint32, st int32) uint64 { return uint64(off)<<32 | uint64(uint32(st)) }

func (s *stream) len() int { return len(s.ent) }

func (s *stream) time(j int) int64 { return s.base[j>>blockShift] + int64(s.ent[j]>>32) }

func (s *stream) state(j int) int32 { return int32(uint32(s.ent[j])) }

// add records that the stream is in state st from time t on (t at least the
// last transition's time).
func (s *stream) add(t int64, st int32) {
	n := len(s.ent)
	if n > 0 && s.time(n-1) == t {
		// Several events at one time: the last one's state holds.
		s.ent[n-1] = pack(uint32(s.ent[n-1]>>32), st)
		if (n >= 2 && s.state(n-2) == st) || (n == 1 && st == NoState) {
			s.pop()
		}
		return
	}
	prev := NoState
	if n > 0 {
		prev = s.state(n - 1)
	}
	if st == prev {
		return
	}
	if n&(blockSize-1) != 0 && t-s.base[len(s.base)-1] > math.MaxUint32 {
		// The offset does not fit: pad the block with copies of its last
		// transition (harmless to every query) and start a new one.
		for e := s.ent[n-1]; n&(blockSize-1) != 0; n++ {
			s.ent = append(s.ent, e)
		}
	}
	if n&(blockSize-1) == 0 {
		s.base = append(s.base, t)
	}
	s.ent = append(s.ent, pack(uint32(t-s.base[len(s.base)-1]), st))
}

func (s *stream) pop() {
	n := len(s.ent) - 1
	s.ent = s.ent[:n]
	if n&(blockSize-1) == 0 {
		s.base = s.base[:len(s.base)-1]
	}
}

// last returns the last transition j with time(j) <= t, or -1.
func (s *stream) last(t int64) int {
	b := s.block(-1, t)
	if b < 0 {
		return -1
	}
	return s.inBlock(b, t)
}

// block returns the block holding the last transition with time <= t
// (-1 if none), galloping over the block bases from transition j's block
// (j -1 or time(j) <= t).
func (s *stream) block(j int, t int64) int {
	nb := len(s.base)
	if nb == 0 || t < s.base[0] {
		return -1
	}
	b := max(j, 0) >> blockShift
	// A few steps forward (predictable branches, bases read in order),
	// then galloping for long jumps.
	for e := min(b+16, nb-1); b < e && s.base[b+1] <= t; {
		b++
	}
	if b+1 < nb && s.base[b+1] <= t {
		// Last block with base <= t, in (b, nb).
		lo, hi, step := b+1, nb, 1
		for lo+step < nb {
			if s.base[lo+step] > t {
				hi = lo + step
				break
			}
			lo, step = lo+step, step*2
		}
		for hi-lo > 1 {
			m := int(uint(lo+hi) >> 1)
			if s.base[m] <= t {
				lo = m
			} else {
				hi = m
			}
		}
		b = lo
	}
	return b
}

// inBlock returns the last transition of block b with time <= t (b from
// block): a binary search of the block's entries (two cache lines). Its
// branches let the processor run ahead speculatively into the next stream's
// search, so that the cache misses of several streams overlap; a branchless
// (arithmetic) form measured 50% slower on 100M events, where each sample
// is a miss.
func (s *stream) inBlock(b int, t int64) int {
	lo := b << blockShift
	hi := min(lo+blockSize, len(s.ent))
	d := t - s.base[b]
	if d > math.MaxUint32 {
		return hi - 1
	}
	key := uint64(d)<<32 | math.MaxUint32 // entries <= key: offset <= d
	ent := s.ent[lo:hi]
	k, n := 0, len(ent)
	for n > 1 {
		half := n >> 1
		if ent[k+half] <= key {
			k += half
		}
		n -= half
	}
	return lo + k
}

func (s *stream) bytes() int64 {
	return int64(cap(s.base))*8 + int64(cap(s.ent))*8 + 48
}

// build computes p's transitions: the top of its call stack after each
// Enter and Leave, the stack repaired as CallTree repairs it
// (trace.LeaveDepth), calls left open closed at the last event's time.
func build(p *trace.Process, job *work.Job) stream {
	var calls int
	for _, k := range p.Kind {
		if k == trace.Enter || k == trace.Leave {
			calls++
		}
	}
	n := calls + 1 + blockSize // room for the final close and one padding
	s := stream{base: make([]int64, 0, n/blockSize+2), ent: make([]uint64, 0, n)}
	var stack []int32
	var rep trace.CallRepairs
	const chunk = 1 << 16
	for i, kind := range p.Kind {
		if i&(chunk-1) == chunk-1 {
			if err := job.Add(chunk); err != nil {
				panic(err)
			}
		}
		switch kind {
		case trace.Enter:
			stack = append(stack, p.Ref[i])
			s.states = max(s.states, p.Ref[i]+1)
		case trace.Leave:
			d := trace.LeaveDepth(stack, p.Ref[i], &rep)
			if d < 0 {
				continue
			}
			stack = stack[:d]
		default:
			continue
		}
		top := NoState
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		s.add(p.Time[i], top)
	}
	job.Add(int64(len(p.Kind) % chunk))
	if len(stack) > 0 {
		s.add(p.Time[len(p.Time)-1], NoState)
	}
	if len(s.ent) < cap(s.ent)*3/4 {
		s = stream{states: s.states, base: append([]int64(nil), s.base...), ent: append([]uint64(nil), s.ent...)}
	}
	return s
}

// Index holds every stream's state transitions (the top of its call stack
// after each Enter and Leave) so that the state at any time is a binary
// search: the O(log k) query of Weber 6.1. A stream is one location
// (process, thread or GPU stream) of the trace. An Index is immutable and
// safe for concurrent use; it costs about 8.5 bytes per state change
// (Bytes).
type Index struct {
	tr     *trace.Trace
	procs  []*trace.Process
	st     []stream
	pos    map[*trace.Process]int
	states int32 // 1 + the largest state (an upper bound)
}

// NewIndex indexes the given processes of tr (all of them when none are
// given), building the streams in parallel. It panics with an *Error for a
// process of another trace.
func NewIndex(tr *trace.Trace, procs ...*trace.Process) *Index {
	const fn = "fold.NewIndex"
	defer work.RecoverAs(fn)
	return newIndex(fn, tr, procs)
}

func newIndex(fn string, tr *trace.Trace, procs []*trace.Process) *Index {
	if tr == nil {
		fail(fn, "nil trace")
	}
	if len(procs) == 0 {
		procs = tr.Processes()
	}
	ix := &Index{tr: tr, procs: append([]*trace.Process(nil), procs...), st: make([]stream, len(procs)),
		pos: make(map[*trace.Process]int, len(procs))}
	var events, calls int64
	for i, p := range ix.procs {
		if p == nil || p.Trace != tr {
			fail(fn, "process %d (%v) is not a location of this trace", i, p)
		}
		if _, dup := ix.pos[p]; dup {
			fail(fn, "process %s given twice", p.Label())
		}
		p.NeedEvents(fn)
		ix.pos[p] = i
		events += int64(p.Len())
	}
	calls = events // an upper bound on the transitions
	if err := work.Reserve(fn+": state index", calls*8+int64(len(procs))*128); err != nil {
		panic(err)
	}
	job := work.Start(fn, events, "events")
	defer job.Done()
	work.Each(len(procs), func(_, i int) { ix.st[i] = build(ix.procs[i], job) })
	for i := range ix.st {
		ix.states = max(ix.states, ix.st[i].states)
	}
	return ix
}

// Streams returns the indexed processes; stream i of every method is
// Streams()[i]. Shared; do not modify.
func (ix *Index) Streams() []*trace.Process { return ix.procs }

// StateAt returns the state of stream i at time t (ns): the state after the
// last event e with t_e <= t, that is the region of an Enter, or for a Leave
// the region of the call it returns to (after the call-stack repair of
// trace.CallTree), NoState at the top. Before the stream's first event the
// state is NoState, and from its last event on too (calls never left are
// closed there, as CallTree closes them). It panics with an *Error for a
// stream out of range.
func (ix *Index) StateAt(i int, t int64) int32 {
	if i < 0 || i >= len(ix.st) {
		fail("fold.Index.StateAt", "stream %d out of range [0, %d)", i, len(ix.st))
	}
	s := &ix.st[i]
	if j := s.last(t); j >= 0 {
		return s.state(j)
	}
	return NoState
}

// Bytes returns the memory held by the index.
func (ix *Index) Bytes() int64 {
	n := int64(len(ix.procs))*8 + int64(len(ix.pos))*16 + 96
	for i := range ix.st {
		n += ix.st[i].bytes()
	}
	return n
}
