package profile

import (
	"testing"

	"github.com/tracebook/tracebook/builtins/work"
)

// BenchmarkWalk100M: one walk over the 100M-event trace on all cores, records discarded.
func BenchmarkWalk100M(b *testing.B) {
	tr := bigTrace(b)
	e := &engine{fn: "walk", procs: tr.Processes(), nreg: len(tr.Defs.Regions), events: tr.NumEvents()}
	b.ResetTimer()
	for b.Loop() {
		walkers := []*walker{newWalker(newCells(e.nreg), false), newWalker(newCells(e.nreg), false)}
		var n [2]int
		e.pass("walk", func(w, i int, job *work.Job) {
			walkers[w].walk(e.procs[i], job, func(r []record) { n[w] += len(r) })
		})
	}
	mevents(b, tr.NumEvents())
}
