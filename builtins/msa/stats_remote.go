package msa

import (
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The time statistics of a merged tree of a distributed trace, computed on
// the job ("msa.stats") without bringing any process's times here. The
// method's parameters are the placement: per Stage-1 class its members and
// the merged node of each node of their (identical) call trees. Round 0
// gives per merged node the count, minimum, maximum and slowest process
// (merged exactly: the larger maximum, on ties the first process in the
// stable order). The lower median is then selected exactly, for all nodes
// at once, in further rounds: each node's value lies in an interval of 16
// buckets; every rank counts its values below the interval and in each
// bucket, the counts add up, and the bucket holding the median becomes the
// next interval (4 bits a round); a node whose interval holds at most
// selectValues values asks for those values instead and is resolved. A
// round moves 18 numbers per unresolved node, whatever the number of
// calls: at most 16 rounds after the first for 64-bit times, far fewer
// in practice (the candidates shrink 16-fold a round).

const (
	statsName     = "msa.stats"
	statsVersion  = 1
	selectBuckets = 16
	selectValues  = 32
)

func init() {
	part.Register(statsName, func(params []byte) (part.Method, error) {
		m, err := decodeStatsParams(params)
		if err != nil {
			return nil, work.Errorf(statsName, "parameters: %v", err)
		}
		return m, nil
	}, sampleStats)
}

// statsMethod is "msa.stats" with its placement.
type statsMethod struct {
	nodes   int
	classes []statsClass
	params  []byte
	byIndex map[int]int32 // process index -> class, built on first use
}

type statsClass struct {
	members []int32 // process indices, ascending
	pos     []int32 // each member's position in the stable order
	place   []int32 // merged node of each call-tree node
}

// StatsMethod returns the per-process part of the merged tree's time
// statistics as a method of the partial contract ("msa.stats") for a tree
// of nodes merged nodes whose Stage-1 classes have the given members (process
// indices), their positions in the stable order and the placement of their
// call-tree nodes. Round 0's partial holds count, minimum, maximum and
// slowest per node; the later rounds select the lower medians (Decide
// gives each round's decision).
func StatsMethod(nodes int, members, positions, place [][]int32) part.Method {
	const fn = "msa.StatsMethod"
	if len(members) != len(place) || len(positions) != len(members) {
		fail(fn, "%d member lists, %d position lists, %d placements: need one of each per class", len(members), len(positions), len(place))
	}
	m := &statsMethod{nodes: nodes}
	for c := range members {
		if len(members[c]) != len(positions[c]) {
			fail(fn, "class %d: %d members, %d positions", c, len(members[c]), len(positions[c]))
		}
		m.classes = append(m.classes, statsClass{members: members[c], pos: positions[c], place: place[c]})
	}
	var e part.Enc
	e.Uint(statsVersion)
	e.Uint(uint64(nodes))
	e.Uint(uint64(len(m.classes)))
	for _, c := range m.classes {
		part.Ints(&e, c.members)
		part.Ints(&e, c.pos)
		part.Ints(&e, c.place)
	}
	m.params = e.B
	if err := m.check(); err != nil {
		failErr(fn, err)
	}
	return m
}

func failErr(fn string, err error) { work.FailErr(fn, err) }

func decodeStatsParams(b []byte) (*statsMethod, error) {
	d := part.NewDec(b)
	d.Version("parameter", statsVersion)
	m := &statsMethod{nodes: int(min(d.Uint(), 1<<40)), params: slices.Clone(b)}
	m.classes = make([]statsClass, d.Len(3))
	for c := range m.classes {
		m.classes[c] = statsClass{members: part.ReadInts[int32](d), pos: part.ReadInts[int32](d), place: part.ReadInts[int32](d)}
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	return m, m.check()
}

func (m *statsMethod) check() error {
	seen := map[int32]bool{}
	for c, cl := range m.classes {
		if len(cl.members) != len(cl.pos) {
			return work.Errorf(statsName, "class %d: %d members, %d positions", c, len(cl.members), len(cl.pos))
		}
		for i, x := range cl.members {
			if x < 0 || seen[x] || i > 0 && x <= cl.members[i-1] {
				return work.Errorf(statsName, "class %d: process %d repeated or out of order", c, x)
			}
			seen[x] = true
		}
		for _, v := range cl.place {
			if v < 0 || int(v) >= m.nodes {
				return work.Errorf(statsName, "class %d: merged node %d of %d", c, v, m.nodes)
			}
		}
	}
	return nil
}

func sampleStats(tr *trace.Trace) []part.Method {
	// The merge of all processes gives a real placement.
	var m *Tree
	if err := work.Try(func() { m = Align(tr.Processes()...) }); err != nil {
		return nil
	}
	return []part.Method{m.statsMethod()}
}

func (m *statsMethod) Name() string   { return statsName }
func (m *statsMethod) Params() []byte { return m.params }

// Rounds is the most rounds the selection can take: round 0 and 4 bits of
// a 64-bit interval a round.
func (m *statsMethod) Rounds() int { return 1 + 64/4 }

// class returns the class of process index x, -1 if none.
func (m *statsMethod) class(x int) int32 {
	if m.byIndex == nil {
		m.byIndex = map[int]int32{}
		for c, cl := range m.classes {
			for _, p := range cl.members {
				m.byIndex[int(p)] = int32(c)
			}
		}
	}
	if c, ok := m.byIndex[x]; ok {
		return c
	}
	return -1
}

// each calls f with every call of procs (those of the placement): its
// merged node, its inclusive time and its process's stable position.
func (m *statsMethod) each(procs []*trace.Process, f func(v int32, d int64, pos int32)) {
	for i, p := range procs {
		if i&63 == 63 {
			work.Check()
		}
		c := m.class(p.Index)
		if c < 0 {
			continue
		}
		cl := &m.classes[c]
		k, _ := slices.BinarySearch(cl.members, int32(p.Index))
		pos := cl.pos[k]
		t := p.CallTree()
		if t.Len() != len(cl.place) {
			work.Fail(statsName, "%s has %d call-tree nodes, its class %d", p.Label(), t.Len(), len(cl.place))
		}
		for x, v := range cl.place {
			f(v, t.Leave[x]-t.Enter[x], pos)
		}
	}
}

func (m *statsMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, decision []byte) (p part.Partial, err error) {
	err = work.Try(func() {
		defer work.RecoverAs(statsName)
		if round == 0 {
			s := newStats0(m.nodes)
			m.each(procs, func(v int32, d int64, pos int32) { s.add(v, d, pos) })
			p = s
			return
		}
		sel, err := decodeSelect(decision, false)
		if err != nil {
			work.FailErr(statsName, err)
		}
		at := make([]int32, m.nodes)
		for i := range at {
			at[i] = -1
		}
		for k := range sel.e {
			if v := sel.e[k].v; v < 0 || int(v) >= m.nodes || at[v] >= 0 {
				work.Fail(statsName, "decision: node %d out of range or repeated", v)
			}
			at[sel.e[k].v] = int32(k)
		}
		m.each(procs, func(v int32, d int64, _ int32) {
			if k := at[v]; k >= 0 {
				sel.e[k].add(d)
			}
		})
		for k := range sel.e {
			slices.Sort(sel.e[k].vals) // canonical: the same bytes whatever the split
		}
		p = sel
	})
	return p, err
}

func (m *statsMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round == 0 {
		return decodeStats0(b, m.nodes)
	}
	return decodeSelect(b, true)
}

// Decide turns a round's merged partial into the next round's decision:
// the nodes still to select, each with its interval.
func (m *statsMethod) Decide(round int, merged part.Partial) ([]byte, error) {
	var next *selection
	switch p := merged.(type) {
	case *stats0:
		next, _ = p.start()
	case *selection:
		next, _ = p.next()
	default:
		return nil, part.Mismatch(statsName, &stats0{}, merged)
	}
	return next.MarshalBinary()
}

// stats0 is round 0's partial: per merged node the number of calls, the
// minimum, the maximum and the stable position of the first process with
// the maximum.
type stats0 struct {
	count, min, max []int64
	slow            []int32
}

func newStats0(n int) *stats0 {
	s := &stats0{count: make([]int64, n), min: make([]int64, n), max: make([]int64, n), slow: make([]int32, n)}
	for i := range s.slow {
		s.slow[i] = -1
	}
	return s
}

func (s *stats0) add(v int32, d int64, pos int32) {
	switch {
	case s.count[v] == 0:
		s.min[v], s.max[v], s.slow[v] = d, d, pos
	case d > s.max[v] || d == s.max[v] && pos < s.slow[v]:
		s.max[v], s.slow[v] = d, pos
	}
	s.min[v] = min(s.min[v], d)
	s.count[v]++
}

func (s *stats0) Merge(o part.Partial) error {
	t, ok := o.(*stats0)
	if !ok {
		return part.Mismatch(statsName, s, o)
	}
	if len(t.count) != len(s.count) {
		return work.Errorf(statsName+".Merge", "%d nodes and %d", len(s.count), len(t.count))
	}
	for v := range s.count {
		switch {
		case t.count[v] == 0:
			continue
		case s.count[v] == 0:
			s.min[v], s.max[v], s.slow[v] = t.min[v], t.max[v], t.slow[v]
		default:
			s.min[v] = min(s.min[v], t.min[v])
			if t.max[v] > s.max[v] || t.max[v] == s.max[v] && t.slow[v] < s.slow[v] {
				s.max[v], s.slow[v] = t.max[v], t.slow[v]
			}
		}
		s.count[v] += t.count[v]
	}
	return nil
}

func (s *stats0) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(statsVersion)
	e.Uint(uint64(len(s.count)))
	for v := range s.count {
		e.Uint(uint64(s.count[v]))
		if s.count[v] > 0 {
			e.Int(s.min[v])
			e.Int(s.max[v])
			e.Uint(uint64(s.slow[v]))
		}
	}
	return e.B, nil
}

func decodeStats0(b []byte, nodes int) (*stats0, error) {
	d := part.NewDec(b)
	d.Version("stats", statsVersion)
	n := d.Len(1)
	if n != nodes && d.Err() == nil {
		d.Fail("%d nodes, the placement has %d", n, nodes)
	}
	s := newStats0(n)
	for v := range s.count {
		s.count[v] = int64(min(d.Uint(), 1<<62))
		if s.count[v] > 0 {
			s.min[v], s.max[v], s.slow[v] = d.Int(), d.Int(), int32(min(d.Uint(), 1<<31-1))
		}
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(statsName, "decoding: %v", err)
	}
	return s, nil
}

// start returns the first selection of the lower medians and the medians
// known already (nodes of one distinct time or of few calls are selected
// among their values at once).
func (s *stats0) start() (*selection, map[int32]int64) {
	sel := &selection{}
	done := map[int32]int64{}
	for v := range s.count {
		c := s.count[v]
		switch {
		case c == 0:
		case s.min[v] == s.max[v]:
			done[int32(v)] = s.min[v]
		default:
			e := selectEntry{v: int32(v), k: (c - 1) / 2, lo: s.min[v], hi: s.max[v], values: c <= selectValues}
			if !e.values {
				span := uint64(s.max[v]) - uint64(s.min[v])
				for span>>e.shift >= selectBuckets {
					e.shift++
				}
			}
			sel.e = append(sel.e, e)
		}
	}
	return sel, done
}

// selection is the partial of a selection round: per node still to
// select, its interval and what the ranks found in it.
type selection struct {
	e []selectEntry
}

// selectEntry is one node's selection: the lower median is the k-th
// smallest (0-based) of its calls' times, known to lie in [lo, hi]. With
// values, the ranks return the values in [lo, hi]; otherwise the counts of
// the 16 buckets of width 2^shift from lo.
type selectEntry struct {
	v      int32
	k      int64
	lo, hi int64
	shift  uint8
	values bool

	below int64 // values < lo
	cnt   [selectBuckets]int64
	vals  []int64
}

func (e *selectEntry) add(d int64) {
	switch {
	case d < e.lo:
		e.below++
	case e.values:
		if d <= e.hi {
			e.vals = append(e.vals, d)
		}
	default:
		if i := (uint64(d) - uint64(e.lo)) >> e.shift; i < selectBuckets {
			e.cnt[i]++
		}
	}
}

func (s *selection) Merge(o part.Partial) error {
	t, ok := o.(*selection)
	if !ok {
		return part.Mismatch(statsName, s, o)
	}
	if len(t.e) != len(s.e) {
		return work.Errorf(statsName+".Merge", "selections of %d and %d nodes", len(s.e), len(t.e))
	}
	for k := range s.e {
		a, b := &s.e[k], &t.e[k]
		if a.v != b.v || a.k != b.k || a.lo != b.lo || a.hi != b.hi || a.shift != b.shift || a.values != b.values {
			return work.Errorf(statsName+".Merge", "entry %d: selections of other intervals", k)
		}
		a.below += b.below
		for i := range a.cnt {
			a.cnt[i] += b.cnt[i]
		}
		if len(b.vals) > 0 {
			a.vals = append(a.vals, b.vals...)
			slices.Sort(a.vals)
		}
	}
	return nil
}

// next returns the next selection and the medians this round resolved.
func (s *selection) next() (*selection, map[int32]int64) {
	out := &selection{}
	done := map[int32]int64{}
	for _, e := range s.e {
		t := e.k - e.below // rank among the values >= lo
		if e.values {
			vs := slices.Clone(e.vals)
			slices.Sort(vs)
			if t >= 0 && t < int64(len(vs)) {
				done[e.v] = vs[t]
			}
			continue
		}
		var cum int64
		for i, c := range e.cnt {
			if t >= cum+c {
				cum += c
				continue
			}
			lo := e.lo + int64(uint64(i)<<e.shift)
			switch {
			case e.shift == 0:
				done[e.v] = lo
			case c <= selectValues:
				out.e = append(out.e, selectEntry{v: e.v, k: e.k, lo: lo, hi: lo + int64(uint64(1)<<e.shift-1), values: true})
			default:
				out.e = append(out.e, selectEntry{v: e.v, k: e.k, lo: lo, hi: lo + int64(uint64(1)<<e.shift-1), shift: max(e.shift, 4) - 4})
			}
			break
		}
	}
	return out, done
}

// MarshalBinary encodes the selection: per entry its interval and, once
// computed, the counts or values.
func (s *selection) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(statsVersion)
	e.Uint(uint64(len(s.e)))
	for _, x := range s.e {
		e.Uint(uint64(x.v))
		e.Uint(uint64(x.k))
		e.Int(x.lo)
		e.Int(x.hi)
		e.Uint(uint64(x.shift))
		e.Bool(x.values)
		e.Uint(uint64(x.below))
		if x.values {
			part.Ints(&e, x.vals)
		} else {
			for _, c := range x.cnt {
				e.Uint(uint64(c))
			}
		}
	}
	return e.B, nil
}

// decodeSelect reads a selection; a decision (partial false) carries no
// counts yet, which the encoding holds as zeros.
func decodeSelect(b []byte, partial bool) (*selection, error) {
	d := part.NewDec(b)
	d.Version("selection", statsVersion)
	s := &selection{e: make([]selectEntry, d.Len(8))}
	for k := range s.e {
		x := &s.e[k]
		x.v, x.k = int32(min(d.Uint(), 1<<31-1)), int64(min(d.Uint(), 1<<62))
		x.lo, x.hi = d.Int(), d.Int()
		x.shift = uint8(min(d.Uint(), 63))
		x.values = d.Bool()
		x.below = int64(min(d.Uint(), 1<<62))
		if x.values {
			x.vals = part.ReadInts[int64](d)
		} else {
			for i := range x.cnt {
				x.cnt[i] = int64(min(d.Uint(), 1<<62))
			}
		}
		if !partial && (x.below != 0 || len(x.vals) > 0 || x.cnt != [selectBuckets]int64{}) {
			d.Fail("a decision with counts")
		}
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(statsName, "decoding: %v", err)
	}
	return s, nil
}

// statsMethod returns the placement of m as the method "msa.stats".
func (m *Tree) statsMethod() part.Method {
	members, positions, place := make([][]int32, m.stage1), make([][]int32, m.stage1), make([][]int32, m.stage1)
	for s := range m.stage1 {
		ps := m.classes[s].procs // stable positions, ascending
		type mp struct{ idx, pos int32 }
		xs := make([]mp, len(ps))
		for i, p := range ps {
			xs[i] = mp{int32(m.procs[p].Index), p}
		}
		slices.SortFunc(xs, func(a, b mp) int { return int(a.idx - b.idx) })
		for _, x := range xs {
			members[s], positions[s] = append(members[s], x.idx), append(positions[s], x.pos)
		}
		place[s] = m.place[s]
	}
	return StatsMethod(len(m.parent), members, positions, place)
}

// remoteStats computes the time statistics on the job: round 0, then
// selection rounds until every lower median is known.
func (m *Tree) remoteStats(fn string, tr *trace.Trace) {
	sm := m.statsMethod()
	procs := slices.Clone(m.procs)
	slices.SortFunc(procs, func(a, b *trace.Process) int { return a.Index - b.Index })
	p, err := part.RunRound(tr, procs, sm, 0, nil)
	if err != nil {
		work.FailErr(fn, err)
	}
	s0 := p.(*stats0)
	m.stats = make([]Stats, len(m.parent))
	for v := range m.stats {
		st := &m.stats[v]
		st.Slowest = -1
		if s0.count[v] != int64(m.count[v]) {
			fail(fn, "the job counted %d calls at merged node %d, the tree %d", s0.count[v], v, m.count[v])
		}
		if s0.count[v] > 0 {
			st.Min, st.Max, st.Slowest = s0.min[v], s0.max[v], int(m.inputPos[s0.slow[v]])
		}
	}
	sel, done := s0.start()
	for round := 1; ; round++ {
		for v, x := range done {
			m.stats[v].Median = x
		}
		if len(sel.e) == 0 {
			return
		}
		if round >= sm.Rounds() {
			fail(fn, "the selection of the medians took more than %d rounds", sm.Rounds()-1)
		}
		dec, err := sel.MarshalBinary()
		if err != nil {
			work.FailErr(fn, err)
		}
		p, err := part.RunRound(tr, procs, sm, round, dec)
		if err != nil {
			work.FailErr(fn, err)
		}
		want := len(sel.e)
		sel, done = p.(*selection).next()
		if len(done)+len(sel.e) != want {
			fail(fn, "round %d: %d of %d medians selected or left", round, len(done)+len(sel.e), want)
		}
	}
}
