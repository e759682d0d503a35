package msa

import (
	"slices"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The merge of a group of processes of a distributed trace (part.Remote:
// a skeleton whose events are on the ranks of a job). Stage 1 runs on the
// job ("msa.stage1", as on the cores here); the merge itself reads only
// the representative of each Stage-1 class, whose events part.Fetch brings
// here; the time statistics need every process's inclusive time per call,
// which "msa.durations" brings: per process the durations of its call
// tree's nodes, in pre-order.

// remote returns the distributed trace of the group's processes, nil when
// their events are here. Processes of a distributed trace merge only with
// processes of that trace.
func (m *Tree) remote(fn string) *trace.Trace {
	var tr *trace.Trace
	for _, p := range m.procs {
		if p.Trace != nil && part.Remote(p.Trace) {
			tr = p.Trace
			break
		}
	}
	if tr == nil {
		return nil
	}
	for _, p := range m.procs {
		if p.Trace != tr {
			fail(fn, "%s is of %q, %s of the distributed trace %q: a group of a distributed trace merges only with processes of that trace",
				p.Label(), traceName(p.Trace), m.procs[0].Label(), traceName(tr))
		}
	}
	if t, _ := m.oneTrace(); t == nil {
		fail(fn, "the processes are not processes of the distributed trace %q", traceName(tr))
	}
	return tr
}

func traceName(tr *trace.Trace) string {
	if tr == nil {
		return ""
	}
	return tr.Name()
}

// fetchReps brings the events of the Stage-1 classes' representatives and
// reads their call trees.
func (m *Tree) fetchReps(fn string, tr *trace.Trace) {
	reps := make([]*trace.Process, len(m.classes))
	for c := range m.classes {
		reps[c] = m.procs[m.classes[c].rep]
	}
	if err := part.Fetch(tr, reps); err != nil {
		work.FailErr(fn, err)
	}
	for c := range m.classes {
		r := m.classes[c].rep
		m.trees[r] = m.procs[r].CallTree()
	}
}

// fetchDurations brings every process's durations from the job.
func (m *Tree) fetchDurations(fn string, tr *trace.Trace) {
	byIndex := slices.Clone(m.procs)
	slices.SortFunc(byIndex, func(a, b *trace.Process) int { return a.Index - b.Index })
	p, err := part.Run(tr, byIndex, DurationsMethod())
	if err != nil {
		work.FailErr(fn, err)
	}
	d := p.(*Durations)
	pos := make(map[int]int32, len(m.procs))
	for i, q := range m.procs {
		pos[q.Index] = int32(i)
	}
	m.dur = make([][]int64, len(m.procs))
	for k, x := range d.index {
		if i, ok := pos[x]; ok {
			m.dur[i] = d.dur[k]
		}
	}
	for s := 0; s < m.stage1; s++ {
		want := len(m.place[s])
		for _, i := range m.classes[s].procs {
			if len(m.dur[i]) != want {
				fail(fn, "the job returned %d durations of %s, whose call tree has %d nodes", len(m.dur[i]), m.procs[i].Label(), want)
			}
		}
	}
}

const durationsName = "msa.durations"

func init() {
	part.Register(durationsName, func(params []byte) (part.Method, error) {
		d := part.NewDec(params)
		d.Version("parameter", durationsVersion)
		if err := d.Done(); err != nil {
			return nil, work.Errorf(durationsName, "parameters: %v", err)
		}
		return DurationsMethod(), nil
	}, func(*trace.Trace) []part.Method { return []part.Method{DurationsMethod()} })
}

const durationsVersion = 1

// DurationsMethod returns the per-process part of the merged tree's time
// statistics as a method of the partial contract ("msa.durations"): its
// partial over a subset of the processes is, per process, the inclusive
// time of each node of its call tree in pre-order (*Durations).
func DurationsMethod() part.Method { return durationsMethod{} }

type durationsMethod struct{}

func (durationsMethod) Name() string   { return durationsName }
func (durationsMethod) Params() []byte { return []byte{durationsVersion} }
func (durationsMethod) Rounds() int    { return 1 }
func (durationsMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(durationsName, "one round: nothing to decide")
}

func (durationsMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (p part.Partial, err error) {
	if round != 0 {
		return nil, work.Errorf(durationsName, "round %d of 1", round)
	}
	d := &Durations{}
	err = work.Try(func() {
		defer work.RecoverAs(durationsName)
		sorted := slices.Clone(procs)
		slices.SortFunc(sorted, func(a, b *trace.Process) int { return a.Index - b.Index })
		for i, q := range sorted {
			if i&63 == 63 {
				work.Check()
			}
			if i > 0 && q.Index == sorted[i-1].Index {
				work.Fail(durationsName, "process %s is given twice", q.Label())
			}
			t := q.CallTree()
			ds := make([]int64, t.Len())
			for x := range ds {
				ds[x] = t.Leave[x] - t.Enter[x]
			}
			d.index, d.dur = append(d.index, q.Index), append(d.dur, ds)
		}
	})
	return d, err
}

func (durationsMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(durationsName, "round %d of 1", round)
	}
	dec := part.NewDec(b)
	dec.Version("Durations", durationsVersion)
	d := &Durations{}
	n := dec.Len(2)
	for k := 0; k < n && dec.Err() == nil; k++ {
		x := int(dec.Int())
		if k > 0 && x <= d.index[k-1] {
			dec.Fail("process %d out of order", x)
		}
		ds := make([]int64, dec.Len(1))
		for i := range ds {
			ds[i] = dec.Int()
		}
		d.index, d.dur = append(d.index, x), append(d.dur, ds)
	}
	if err := dec.Done(); err != nil {
		return nil, work.Errorf(durationsName, "decoding: %v", err)
	}
	return d, nil
}

// Durations is the partial of DurationsMethod: per process (by index,
// ascending) the inclusive time (ns) of each node of its call tree, in
// pre-order.
type Durations struct {
	index []int
	dur   [][]int64
}

// Merge absorbs the durations of a disjoint subset of the processes.
func (d *Durations) Merge(o part.Partial) error {
	e, ok := o.(*Durations)
	if !ok {
		return part.Mismatch(durationsName, d, o)
	}
	idx := make([]int, 0, len(d.index)+len(e.index))
	dur := make([][]int64, 0, len(d.index)+len(e.index))
	i, j := 0, 0
	for i < len(d.index) || j < len(e.index) {
		switch {
		case j == len(e.index) || i < len(d.index) && d.index[i] < e.index[j]:
			idx, dur = append(idx, d.index[i]), append(dur, d.dur[i])
			i++
		case i == len(d.index) || e.index[j] < d.index[i]:
			idx, dur = append(idx, e.index[j]), append(dur, e.dur[j])
			j++
		default:
			return work.Errorf(durationsName+".Merge", "process %d is in both partials", d.index[i])
		}
	}
	d.index, d.dur = idx, dur
	return nil
}

// MarshalBinary encodes the durations (layout version 1: per process its
// index and its durations as varints).
func (d *Durations) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(durationsVersion)
	e.Uint(uint64(len(d.index)))
	for k, x := range d.index {
		e.Int(int64(x))
		e.Uint(uint64(len(d.dur[k])))
		for _, v := range d.dur[k] {
			e.Int(v)
		}
	}
	return e.B, nil
}

// repOf returns the representative of process p's Stage-1 class, whose
// call tree is identical to p's.
func (m *Tree) repOf(p int32) int32 {
	if m.stage1Of == nil {
		m.stage1Of = m.classOf()
	}
	return m.classes[m.stage1Of[p]].rep
}
