package trace

import (
	"fmt"
	"path"
	"strings"

	"github.com/tracebook/tracebook/builtins/work"
)

// SyncClassifier decides which regions are synchronisation: calls in which a
// location waits for others. Weber 2016 (6.2.2, the synchronisation-oblivious
// segment time) subtracts "synchronization operations, e.g., MPI_Wait,
// MPI_Reduce, or omp barrier" from a segment's time so that a location that
// merely waits for a slow one does not look slow itself; this classifier
// names those operations.
//
// The zero value (and a nil *SyncClassifier) applies the built-in rules. A
// region is synchronisation when, in this order:
//
//  1. its name matches a pattern given to Include: yes;
//  2. its name matches a pattern given to Exclude: no;
//  3. its OTF2 role is "barrier", "implicit_barrier", "coll_one2all",
//     "coll_all2one", "coll_all2all", "coll_other", "task_wait" or
//     "thread_wait" (MPI and SHMEM collectives, OpenMP barriers and taskwait,
//     thread joins), unless it is a non-blocking MPI call (name MPI_I...,
//     such as MPI_Ibarrier or MPI_Iallreduce);
//  4. its name is one of the blocking calls listed below, for traces whose
//     regions carry no roles (generated traces, traces from tables): yes;
//  5. otherwise no.
//
// The built-in names (compared without regard to case):
//
//   - MPI collectives: MPI_Barrier, MPI_Bcast, MPI_(All)Gather(v),
//     MPI_Scatter(v), MPI_Alltoall(v/w), MPI_(All)Reduce,
//     MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan, the
//     MPI_Neighbor_* collectives, MPI_Win_fence;
//   - MPI waits: MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Win_wait;
//   - blocking MPI point-to-point: MPI_Recv, MPI_Mrecv, MPI_Probe, MPI_Mprobe,
//     MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend, MPI_Sendrecv,
//     MPI_Sendrecv_replace. A blocking receive is a non-blocking one plus
//     MPI_Wait, and a blocking send may wait for its receiver (rendezvous),
//     so they count as MPI_Wait does;
//   - OpenMP, by Score-P's names: "!$omp barrier", "!$omp implicit barrier",
//     "!$omp taskwait" (each possibly followed by " @file:line");
//   - accelerators: cudaDeviceSynchronize, cudaThreadSynchronize,
//     cudaStreamSynchronize, cudaEventSynchronize, cuCtxSynchronize,
//     cuStreamSynchronize, cuEventSynchronize, hipDeviceSynchronize,
//     hipStreamSynchronize, hipEventSynchronize, clFinish, clWaitForEvents;
//   - threads: pthread_join, pthread_barrier_wait.
//
// Not counted: MPI_Test* and MPI_Iprobe (they return at once; the waiting of
// a polling loop lies in the code between the tests, which no rule can tell
// from computation), non-blocking calls, MPI_Init and MPI_Finalize (set-up;
// Include them if wanted), OpenMP critical sections and locks (the region
// holds the protected work as well as the wait).
//
// Patterns are path.Match globs ("MPI_Wait*", "spin_wait") matched against
// the whole region name without regard to case. Include and Exclude return
// a new classifier and leave the receiver unchanged, so
// DefaultSync().Include("spin_wait") can be kept and reused.
type SyncClassifier struct {
	include, exclude []string // lower-case patterns
	bound            *Trace   // see Bind
	regions          []bool   // Regions(bound)
}

// DefaultSync returns the classifier of the built-in rules (see
// SyncClassifier).
func DefaultSync() *SyncClassifier { return &SyncClassifier{} }

// Include returns a classifier that also counts regions whose names match
// any of the patterns (taking precedence over Exclude and the built-in
// rules). A malformed pattern panics with an *Error.
func (c *SyncClassifier) Include(patterns ...string) *SyncClassifier {
	n := c.clone()
	n.include = append(n.include, lowerPatterns("SyncClassifier.Include", patterns)...)
	return n
}

// Exclude returns a classifier that never counts regions whose names match
// any of the patterns, unless they match an Include pattern. A malformed
// pattern panics with an *Error.
func (c *SyncClassifier) Exclude(patterns ...string) *SyncClassifier {
	n := c.clone()
	n.exclude = append(n.exclude, lowerPatterns("SyncClassifier.Exclude", patterns)...)
	return n
}

// Bind returns the classifier with t's regions classified once, for
// classifying many locations of t (Nodes and Times otherwise classify the
// regions of the location's trace on every call). Locations of other traces
// are classified as by c.
func (c *SyncClassifier) Bind(t *Trace) *SyncClassifier {
	n := c.clone()
	n.bound, n.regions = t, n.Regions(t)
	return n
}

func (c *SyncClassifier) clone() *SyncClassifier {
	n := &SyncClassifier{}
	if c != nil {
		n.include = append([]string(nil), c.include...)
		n.exclude = append([]string(nil), c.exclude...)
	}
	return n
}

func lowerPatterns(fn string, patterns []string) []string {
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = strings.ToLower(p)
		if _, err := path.Match(out[i], ""); err != nil {
			panic(&Error{Path: fn, Offset: -1, Err: fmt.Errorf("pattern %q: %w", p, err)})
		}
	}
	return out
}

// String lists the overrides: "SyncClassifier(built-in rules, include
// [spin_wait], exclude [mpi_send])".
func (c *SyncClassifier) String() string {
	s := "SyncClassifier(built-in rules"
	if c != nil && len(c.include) > 0 {
		s += fmt.Sprintf(", include %v", c.include)
	}
	if c != nil && len(c.exclude) > 0 {
		s += fmt.Sprintf(", exclude %v", c.exclude)
	}
	return s + ")"
}

var syncRoles = map[string]bool{"barrier": true, "implicit_barrier": true, "coll_one2all": true,
	"coll_all2one": true, "coll_all2all": true, "coll_other": true, "task_wait": true, "thread_wait": true}

var syncNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`MPI_Barrier MPI_Bcast MPI_Gather MPI_Gatherv MPI_Allgather
		MPI_Allgatherv MPI_Scatter MPI_Scatterv MPI_Alltoall MPI_Alltoallv MPI_Alltoallw MPI_Reduce
		MPI_Allreduce MPI_Reduce_scatter MPI_Reduce_scatter_block MPI_Scan MPI_Exscan
		MPI_Neighbor_allgather MPI_Neighbor_allgatherv MPI_Neighbor_alltoall MPI_Neighbor_alltoallv
		MPI_Neighbor_alltoallw MPI_Win_fence
		MPI_Wait MPI_Waitall MPI_Waitany MPI_Waitsome MPI_Win_wait
		MPI_Recv MPI_Mrecv MPI_Probe MPI_Mprobe MPI_Send MPI_Ssend MPI_Bsend MPI_Rsend MPI_Sendrecv
		MPI_Sendrecv_replace
		cudaDeviceSynchronize cudaThreadSynchronize cudaStreamSynchronize cudaEventSynchronize
		cuCtxSynchronize cuStreamSynchronize cuEventSynchronize hipDeviceSynchronize
		hipStreamSynchronize hipEventSynchronize clFinish clWaitForEvents
		pthread_join pthread_barrier_wait`) {
		m[strings.ToLower(n)] = true
	}
	return m
}()

// syncPrefixes are Score-P's OpenMP construct names, matched as the whole
// name or followed by " @file:line".
var syncPrefixes = []string{"!$omp barrier", "!$omp implicit barrier", "!$omp taskwait"}

// IsSync reports whether region r is synchronisation (see SyncClassifier).
func (c *SyncClassifier) IsSync(r Region) bool {
	name := strings.ToLower(r.Name)
	if c != nil {
		for _, p := range c.include {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
		for _, p := range c.exclude {
			if ok, _ := path.Match(p, name); ok {
				return false
			}
		}
	}
	if syncRoles[r.Role] {
		return !strings.HasPrefix(name, "mpi_i")
	}
	if syncNames[name] {
		return true
	}
	for _, p := range syncPrefixes {
		if name == p || strings.HasPrefix(name, p+" @") {
			return true
		}
	}
	return false
}

// Regions classifies every region of t: out[id] tells whether region id
// is synchronisation.
func (c *SyncClassifier) Regions(t *Trace) []bool {
	out := make([]bool, len(t.Defs.Regions))
	for i, r := range t.Defs.Regions {
		out[i] = c.IsSync(r)
	}
	return out
}

// Nodes marks the nodes of p's call tree (p.CallTree()) that lie inside
// synchronisation: out[i] is true when node i or one of its ancestors is a
// synchronisation call. The root ε is never marked.
func (c *SyncClassifier) Nodes(p *Process) []bool {
	var regions []bool
	switch {
	case c != nil && c.bound != nil && c.bound == p.Trace:
		regions = c.regions
	case p.Trace != nil:
		regions = c.Regions(p.Trace)
	}
	return syncNodes(p.CallTree(), regions)
}

func syncNodes(ct *CallTree, regions []bool) []bool {
	out := make([]bool, ct.Len())
	for i := 1; i < ct.Len(); i++ {
		if i&0xFFFF == 0 {
			work.Check()
		}
		r := ct.Region[i]
		out[i] = out[ct.Parent[i]] || r >= 0 && int(r) < len(regions) && regions[r]
	}
	return out
}

// SyncTimes splits one location's time (ns). SpanNs = IdleNs + SyncNs +
// ComputeNs.
type SyncTimes struct {
	// SpanNs runs from the location's first to its last event (the span
	// of the call tree's root ε), not from the trace's begin: a location
	// that starts late is not charged for the time before it started.
	SpanNs int64
	// IdleNs is the time within the span outside every call (a worker
	// thread between parallel regions): neither computation nor
	// synchronisation.
	IdleNs int64
	// SyncNs is the time inside synchronisation calls; a synchronisation
	// call inside another one is counted once (the outermost call's
	// inclusive time).
	SyncNs int64
	// ComputeNs is the time inside calls and outside synchronisation:
	// SpanNs - IdleNs - SyncNs, and the sum of the exclusive times of all
	// calls not inside synchronisation.
	ComputeNs int64
}

// Times splits p's time into idle, synchronisation and computation (see
// SyncTimes), from its call tree.
func (c *SyncClassifier) Times(p *Process) SyncTimes {
	ct := p.CallTree()
	return syncTimes(ct, c.Nodes(p))
}

func syncTimes(ct *CallTree, in []bool) SyncTimes {
	var s SyncTimes
	if ct.Len() == 0 {
		return s
	}
	s.SpanNs = ct.Inclusive(0)
	var busy int64
	for i := 1; i < ct.Len(); i++ {
		if i&0xFFFF == 0 {
			work.Check()
		}
		par := ct.Parent[i]
		if par == 0 {
			busy += ct.Inclusive(i)
		}
		if in[i] && !in[par] {
			s.SyncNs += ct.Inclusive(i)
		}
	}
	s.IdleNs = s.SpanNs - busy
	s.ComputeNs = busy - s.SyncNs
	return s
}
