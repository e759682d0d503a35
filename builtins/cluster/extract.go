package cluster

import (
	"slices"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// distinct is one distinct pair set among a batch of processes.
type distinct struct {
	pairs []trace.Pair // region ids of the first process's trace
	owner *trace.Process
	procs []int32 // indices into the batch
	key   uint64
	next  int32
	struc Structure // by name, filled by structures
}

// pairSets groups procs by equal pair sets (Weber 5.1.2): the first step of
// hash clustering on region ids, before any name is looked at. Processes of
// different traces are grouped apart here and joined by name later.
func pairSets(procs []*trace.Process, job *work.Job) []*distinct {
	var out []*distinct
	type tkey struct {
		t *trace.Trace
		k uint64
	}
	head := map[tkey]int32{}
	for i, p := range procs {
		ps := p.Pairs()
		k := pairKey(ps)
		h, ok := head[tkey{p.Trace, k}]
		found := false
		if ok {
			for g := h; g >= 0; g = out[g].next {
				if slices.Equal(out[g].pairs, ps) {
					out[g].procs = append(out[g].procs, int32(i))
					found = true
					break
				}
			}
		} else {
			h = -1
		}
		if !found {
			head[tkey{p.Trace, k}] = int32(len(out))
			out = append(out, &distinct{pairs: ps, owner: p, procs: []int32{int32(i)}, key: k, next: h})
		}
		if i&255 == 255 {
			job.Add(256)
			job.Check()
		}
	}
	for _, d := range out {
		d.struc = structureOf(namedPairs(d.owner, d.pairs))
	}
	return out
}

func pairKey(ps []trace.Pair) uint64 {
	h := keyStart(len(ps))
	for _, q := range ps {
		h = keyMix(h, uint64(uint32(q.Caller))<<32|uint64(uint32(q.Callee)))
	}
	return keyEnd(h)
}
