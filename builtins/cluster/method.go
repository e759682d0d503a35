package cluster

import (
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The per-process parts of structural clustering under the contract of builtins/part: the
// hash clustering ("cluster.hash", partial *HashClustering) and the concept lattice
// ("cluster.lattice", partial *Lattice) of a subset of the processes; partials of disjoint
// subsets merge into those of the union (HashClustering.Merge, Lattice.Merge, SC VI.C).
// Both encode canonically (attributes by name, groups by their first process), so equal
// clusterings and lattices have equal bytes whatever the order of their merges.
func init() {
	part.Register(hashName, buildHash, sampleHash)
	part.Register(latticeName, buildLattice, sampleLattice)
}

const (
	hashName    = "cluster.hash"
	latticeName = "cluster.lattice"
)

// hashMethod is "cluster.hash" with its measure; latticeMethod "cluster.lattice" with its
// measure and node limit.
type hashMethod struct{ measure Measure }

type latticeMethod struct {
	measure Measure
	limit   int
}

// HashMethod returns the hash clustering of measure m (Weber 5.1.2) as a method of the
// per-process contract (part.Method, registered as "cluster.hash"): its partial over a subset
// of the processes is their *HashClustering.
//
//	p, _ := part.Run(tr, tr.Processes(), cluster.HashMethod(cluster.Pairs))
//	groups := p.(*cluster.HashClustering).Groups()
func HashMethod(m Measure) part.Method {
	if !m.valid() {
		fail("cluster.HashMethod", "unknown measure %d (use cluster.Pairs, cluster.PairsPlus or cluster.Funcs)", int(m))
	}
	return hashMethod{m}
}

// LatticeMethod returns the concept lattice of measure m with the node guard limit (0: none)
// as a method of the per-process contract (part.Method, registered as "cluster.lattice"):
// its partial over a subset of the processes is their *Lattice; a lattice past the guard is
// an error of Compute or Merge.
func LatticeMethod(m Measure, limit int) part.Method {
	if !m.valid() {
		fail("cluster.LatticeMethod", "unknown measure %d (use cluster.Pairs, cluster.PairsPlus or cluster.Funcs)", int(m))
	}
	if limit < 0 {
		fail("cluster.LatticeMethod", "node limit %d is negative (0 means no limit)", limit)
	}
	return latticeMethod{m, limit}
}

func (hashMethod) Name() string    { return hashName }
func (latticeMethod) Name() string { return latticeName }
func (hashMethod) Rounds() int     { return 1 }
func (latticeMethod) Rounds() int  { return 1 }

const paramsVersion = 1

func (m hashMethod) Params() []byte {
	var e part.Enc
	e.Uint(paramsVersion)
	e.Uint(uint64(m.measure))
	return e.B
}

func (m latticeMethod) Params() []byte {
	var e part.Enc
	e.Uint(paramsVersion)
	e.Uint(uint64(m.measure))
	e.Uint(uint64(m.limit))
	return e.B
}

// readParams reads the measure and, with limit, the node limit of the parameters.
func readParams(name string, params []byte, limit bool) (Measure, int, error) {
	d := part.NewDec(params)
	d.Version("parameter", paramsVersion)
	m := Measure(min(d.Uint(), 1<<16))
	var n uint64
	if limit {
		n = d.Uint()
	}
	if err := d.Done(); err != nil {
		return 0, 0, work.Errorf(name, "parameters: %v", err)
	}
	if !m.valid() || n > 1<<40 {
		return 0, 0, work.Errorf(name, "parameters: measure %d, node limit %d", int(m), n)
	}
	return m, int(n), nil
}

func buildHash(params []byte) (part.Method, error) {
	m, _, err := readParams(hashName, params, false)
	return hashMethod{m}, err
}

func buildLattice(params []byte) (part.Method, error) {
	m, n, err := readParams(latticeName, params, true)
	return latticeMethod{m, n}, err
}

// checkProcs returns an error unless procs are distinct processes of tr.
func checkProcs(name string, tr *trace.Trace, procs []*trace.Process) error {
	if tr == nil {
		return work.Errorf(name, "the trace is nil")
	}
	seen := make(map[*trace.Process]bool, len(procs))
	for i, p := range procs {
		if p == nil || p.Trace != tr {
			return work.Errorf(name, "process %d (%v) is not a process of this trace", i, p)
		}
		if seen[p] {
			return work.Errorf(name, "process %s is given twice", p.Label())
		}
		seen[p] = true
	}
	return nil
}

// hashOf returns the hash clustering of procs under m, equal pair sets found first on region
// ids (pairSets), as Structural does.
func hashOf(procs []*trace.Process, m Measure) *HashClustering {
	h := NewHashClustering(m)
	for _, d := range pairSets(procs, nil) {
		ids := make([]int32, len(d.procs))
		for k, i := range d.procs {
			ids[k] = int32(procs[i].Index)
		}
		h.addSet(ids, h.dict.idsOf(d.struc.Of(m)))
	}
	return h
}

func (m hashMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(hashName, "round %d of 1", round)
	}
	if err := checkProcs(hashName, tr, procs); err != nil {
		return nil, err
	}
	return hashOf(procs, m.measure), nil
}

func (m latticeMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(latticeName, "round %d of 1", round)
	}
	if err := checkProcs(latticeName, tr, procs); err != nil {
		return nil, err
	}
	h := hashOf(procs, m.measure)
	l := NewLattice(m.measure, m.limit)
	l.tr = tr
	for g, hg := range h.groups {
		if _, err := l.insert(hg.procs, l.dict.idsOf(h.dict.namesOf(hg.set)), len(h.groups)-g-1); err != nil {
			return nil, &work.Error{Func: latticeName, Msg: err.Error(), Err: err}
		}
	}
	return l, nil
}

func (hashMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(hashName, "one round: nothing to decide")
}

func (latticeMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(latticeName, "one round: nothing to decide")
}

func (hashMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(hashName, "round %d of 1", round)
	}
	return decodeHash(b)
}

func (latticeMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(latticeName, "round %d of 1", round)
	}
	return decodeLattice(b)
}

func sampleHash(*trace.Trace) []part.Method {
	return []part.Method{hashMethod{Pairs}, hashMethod{PairsPlus}, hashMethod{Funcs}}
}

func sampleLattice(*trace.Trace) []part.Method {
	return []part.Method{latticeMethod{Pairs, 0}, latticeMethod{Funcs, DefaultNodeLimit}}
}

// A canonical encoding of groups: the attribute names they use, sorted, and per group its
// attribute set (ids into those names) and its processes, ascending, groups by their first
// process.
type canonGroup struct {
	set   []int32
	procs []int32
}

// encodeGroups appends the canonical encoding of groups whose attribute sets are ids of d.
func encodeGroups(e *part.Enc, d *dict, sets, procs [][]int32) {
	used := map[int32]bool{}
	for _, s := range sets {
		for _, a := range s {
			used[a] = true
		}
	}
	names := make([]string, 0, len(used))
	for a := range used {
		names = append(names, d.names[a])
	}
	slices.Sort(names)
	at := make(map[string]int32, len(names))
	for i, n := range names {
		at[n] = int32(i)
	}
	gs := make([]canonGroup, len(sets))
	for i, s := range sets {
		g := canonGroup{set: make([]int32, len(s)), procs: slices.Clone(procs[i])}
		for k, a := range s {
			g.set[k] = at[d.names[a]]
		}
		slices.Sort(g.set)
		slices.Sort(g.procs)
		gs[i] = g
	}
	slices.SortFunc(gs, func(a, b canonGroup) int { return int(a.procs[0]) - int(b.procs[0]) })
	e.Uint(uint64(len(names)))
	for _, n := range names {
		e.String(n)
	}
	e.Uint(uint64(len(gs)))
	for _, g := range gs {
		part.Ints(e, g.set)
		part.Ints(e, g.procs)
	}
}

// decodeGroups reads encodeGroups: the attribute names and the groups.
func decodeGroups(d *part.Dec) ([]string, []canonGroup) {
	names := make([]string, d.Len(1))
	for i := range names {
		names[i] = d.String()
		if i > 0 && names[i] <= names[i-1] && d.Err() == nil {
			d.Fail("attribute names out of order")
		}
	}
	gs := make([]canonGroup, d.Len(2))
	seen := map[int32]bool{}
	for i := range gs {
		g := canonGroup{set: part.ReadInts[int32](d), procs: part.ReadInts[int32](d)}
		if d.Err() != nil {
			break
		}
		for k, a := range g.set {
			if a < 0 || int(a) >= len(names) || k > 0 && a <= g.set[k-1] {
				d.Fail("group %d: bad attribute set", i)
			}
		}
		for k, p := range g.procs {
			if p < 0 || k > 0 && p <= g.procs[k-1] || seen[p] {
				d.Fail("group %d: bad process list", i)
			}
			seen[p] = true
		}
		if len(g.procs) == 0 || i > 0 && g.procs[0] <= gs[i-1].procs[0] {
			d.Fail("group %d: groups out of order", i)
		}
		gs[i] = g
	}
	return names, gs
}

const hashVersion = 1

// MarshalBinary encodes the clustering canonically (layout version 1): the measure, the
// attribute names in use, sorted, and per group its attribute set and processes, groups by
// their first process.
func (h *HashClustering) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(hashVersion)
	e.Uint(uint64(h.measure))
	sets, procs := make([][]int32, len(h.groups)), make([][]int32, len(h.groups))
	for i, g := range h.groups {
		sets[i], procs[i] = g.set, g.procs
	}
	encodeGroups(&e, &h.dict, sets, procs)
	return e.B, nil
}

func decodeHash(b []byte) (*HashClustering, error) {
	d := part.NewDec(b)
	d.Version("HashClustering", hashVersion)
	m := Measure(min(d.Uint(), 1<<16))
	names, gs := decodeGroups(d)
	if err := d.Done(); err != nil {
		return nil, work.Errorf("cluster.HashClustering", "decoding: %v", err)
	}
	if !m.valid() {
		return nil, work.Errorf("cluster.HashClustering", "decoding: measure %d", int(m))
	}
	h := NewHashClustering(m)
	for _, g := range gs {
		set := make([]string, len(g.set))
		for k, a := range g.set {
			set[k] = names[a]
		}
		h.addSet(g.procs, h.dict.idsOf(set))
	}
	return h, nil
}

const latticeVersion = 1

// MarshalBinary encodes the lattice canonically (layout version 1): the measure, the node
// limit, and the intents of the nodes that hold processes with their processes, in the form
// of HashClustering.MarshalBinary. The lattice of those objects is unique, so this is all of
// it: decoding inserts them again.
func (l *Lattice) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(latticeVersion)
	e.Uint(uint64(l.measure))
	e.Uint(uint64(l.limit))
	var sets, procs [][]int32
	for i := range l.nodes {
		if n := &l.nodes[i]; len(n.procs) > 0 {
			sets, procs = append(sets, bitsOf(n.intent)), append(procs, n.procs)
		}
	}
	encodeGroups(&e, &l.dict, sets, procs)
	return e.B, nil
}

func decodeLattice(b []byte) (*Lattice, error) {
	d := part.NewDec(b)
	d.Version("Lattice", latticeVersion)
	m := Measure(min(d.Uint(), 1<<16))
	limit := d.Uint()
	names, gs := decodeGroups(d)
	if err := d.Done(); err != nil {
		return nil, work.Errorf("cluster.Lattice", "decoding: %v", err)
	}
	if !m.valid() || limit > 1<<40 {
		return nil, work.Errorf("cluster.Lattice", "decoding: measure %d, node limit %d", int(m), limit)
	}
	l := NewLattice(m, int(limit))
	for _, g := range gs {
		set := make([]string, len(g.set))
		for k, a := range g.set {
			set[k] = names[a]
		}
		if _, err := l.insert(g.procs, l.dict.idsOf(set), 0); err != nil {
			return nil, work.Errorf("cluster.Lattice", "decoding: %v", err)
		}
	}
	return l, nil
}
