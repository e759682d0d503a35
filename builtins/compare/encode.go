package compare

import (
	"cmp"
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// canonical returns the order of s's paths in a depth-first walk with callees by name, so that
// the encoding of a summary does not depend on the order its subsets were merged in.
func (s *Summary) canonical() []int32 {
	kids := s.callees()
	order := make([]int32, 0, len(s.name))
	var walk func(k int)
	walk = func(k int) {
		c := kids[k]
		slices.SortFunc(c, func(a, b int32) int { return cmp.Compare(s.name[a], s.name[b]) })
		for _, id := range c {
			order = append(order, id)
			walk(int(id))
		}
	}
	walk(len(s.name))
	return order
}

// MarshalBinary encodes the summary canonically (layout version 1): the paths in depth-first
// order with callees by name (caller, name, role), then the processes by index with their
// paths by that order.
func (s *Summary) MarshalBinary() ([]byte, error) {
	order := s.canonical()
	rank := make([]int32, len(order))
	for r, id := range order {
		rank[id] = int32(r)
	}
	var e part.Enc
	e.Uint(summaryLayoutVersion)
	e.Uint(uint64(len(order)))
	for _, id := range order {
		par := int64(-1)
		if s.parent[id] >= 0 {
			par = int64(rank[s.parent[id]])
		}
		e.Int(par)
		e.String(s.name[id])
		e.Uint(uint64(s.role[id]))
	}
	e.Uint(uint64(len(s.procs)))
	for _, p := range s.procs {
		e.Int(int64(p.Index))
		e.Int(int64(p.Rank))
		e.Int(int64(p.Thread))
		e.String(p.Label)
		e.String(p.Kind)
		for _, v := range []int64{p.Sent, p.Recv, p.SentB, p.RecvB, p.Partners, p.Collectives, p.Total, p.SkippedEvents} {
			e.Int(v)
		}
		paths := slices.Clone(p.Paths)
		slices.SortFunc(paths, func(a, b pathStat) int { return cmp.Compare(rank[a.Path], rank[b.Path]) })
		e.Uint(uint64(len(paths)))
		for _, st := range paths {
			e.Uint(uint64(rank[st.Path]))
			e.Int(int64(st.First))
			e.Int(st.Calls)
			e.Int(st.Incl)
			e.Int(st.Excl)
		}
	}
	return e.B, nil
}

func decodeSummary(b []byte) (*Summary, error) {
	d := part.NewDec(b)
	d.Version("layout", summaryLayoutVersion)
	s := newSummary()
	n := d.Len(3)
	for i := 0; i < n && d.Err() == nil; i++ {
		par := d.Int()
		name := d.String()
		role := d.Uint()
		if par < -1 || par >= int64(i) {
			d.Fail("path %d: caller %d is not an earlier path", i, par)
			break
		}
		if role > uint64(trace.SetUp) {
			d.Fail("path %d: role %d", i, role)
			break
		}
		if id := s.path(int32(par), name, trace.TimeRole(role)); id != int32(i) {
			d.Fail("path %d: %q repeats path %d", i, name, id)
			break
		}
	}
	np := d.Len(14)
	for i := 0; i < np && d.Err() == nil; i++ {
		p := procSummary{Index: int32(d.Int()), Rank: int32(d.Int()), Thread: int32(d.Int()), Label: d.String(), Kind: d.String()}
		for _, v := range []*int64{&p.Sent, &p.Recv, &p.SentB, &p.RecvB, &p.Partners, &p.Collectives, &p.Total, &p.SkippedEvents} {
			*v = d.Int()
		}
		if i > 0 && p.Index <= s.procs[i-1].Index {
			d.Fail("process %d: index %d not after %d", i, p.Index, s.procs[i-1].Index)
			break
		}
		k := d.Len(5)
		p.Paths = make([]pathStat, 0, k)
		for j := 0; j < k && d.Err() == nil; j++ {
			st := pathStat{Path: int32(d.Uint()), First: int32(d.Int()), Calls: d.Int(), Incl: d.Int(), Excl: d.Int()}
			if int(st.Path) >= n || (j > 0 && st.Path <= p.Paths[j-1].Path) {
				d.Fail("process %d: path %d out of order or range", p.Index, st.Path)
				break
			}
			p.Paths = append(p.Paths, st)
		}
		s.procs = append(s.procs, p)
	}
	if err := d.Done(); err != nil {
		return nil, work.Errorf(summaryName, "decode: %v", err)
	}
	return s, nil
}
