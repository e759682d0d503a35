package msa

import (
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// The merge of a group of processes of a distributed trace (part.Remote:
// a skeleton whose events are on the ranks of a job). Stage 1 runs on the
// job ("msa.stage1", as on the cores here); the merge itself reads only
// the representative of each Stage-1 class, whose events part.Fetch brings
// here; the time statistics are computed on the job ("msa.stats", see
// stats_remote.go), which needs only where each class's calls sit in the
// merged tree.

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

// repOf returns the representative of process p's Stage-1 class, whose
// call tree is identical to p's.
func (m *Tree) repOf(p int32) int32 {
	if m.stage1Of == nil {
		m.stage1Of = m.classOf()
	}
	return m.classes[m.stage1Of[p]].rep
}
