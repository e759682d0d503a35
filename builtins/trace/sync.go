package trace

import (
	"fmt"
	"path"
	"strings"

	"github.com/tracebook/tracebook/builtins/work"
)

// SyncClassifier decides the role of each region's time (TimeRole):
// synchronisation, set-up/tear-down or computation. Synchronisation calls
// are those in which a location waits for others. Weber 2016 (6.2.2, the synchronisation-oblivious
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
// Set-up and tear-down (TimeRole SetUp: neither computation nor
// synchronisation) are, unless an Include, Compute or Exclude pattern
// decides otherwise (see RoleOf for the order):
//
//   - MPI: MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Session_init,
//     MPI_Session_finalize;
//   - OpenSHMEM: shmem_init, shmem_init_thread, shmem_finalize, start_pes;
//   - the measurement system's own work, by Score-P's names: "TRACE BUFFER
//     FLUSH" and "MEASUREMENT OFF".
//
// OTF2 has no region role for set-up or tear-down (its roles name
// functions, loops, OpenMP constructs, collectives, point-to-point, RMA,
// file I/O, allocation, "artificial"; Score-P gives MPI_Init the role
// "function"), so the set-up rules go by name. The "artificial" role is not
// a rule: Score-P gives it to the program's own region as well.
//
// Not synchronisation: MPI_Test* and MPI_Iprobe (they return at once; the waiting of
// a polling loop lies in the code between the tests, which no rule can tell
// from computation), non-blocking calls, MPI_Init and MPI_Finalize (set-up,
// above), OpenMP critical sections and locks (the region
// holds the protected work as well as the wait).
//
// Patterns are path.Match globs ("MPI_Wait*", "spin_wait") matched against
// the whole region name without regard to case. Include, Exclude, SetUp and
// Compute return a new classifier and leave the receiver unchanged, so
// DefaultSync().Include("spin_wait") can be kept and reused.
type SyncClassifier struct {
	include, exclude []string   // lower-case patterns
	setUp, compute   []string   // lower-case patterns
	bound            *Trace     // see Bind
	roles            []TimeRole // Roles(bound)
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
	n.bound, n.roles = t, n.Roles(t)
	return n
}

// SetUp returns a classifier that counts regions whose names match any of
// the patterns as set-up/tear-down (neither computation nor
// synchronisation), unless they match an Include pattern: an application's
// own initialisation phase, for example DefaultSync().SetUp("read_input").
// A malformed pattern panics with an *Error.
func (c *SyncClassifier) SetUp(patterns ...string) *SyncClassifier {
	n := c.clone()
	n.setUp = append(n.setUp, lowerPatterns("SyncClassifier.SetUp", patterns)...)
	return n
}

// Compute returns a classifier that counts regions whose names match any of
// the patterns as computation, overriding the built-in set-up and
// synchronisation rules (not Include or SetUp patterns):
// DefaultSync().Compute("MPI_Init*", "MPI_Finalize") counts set-up as
// computation, as tracebook did before it had roles. A malformed pattern
// panics with an *Error.
func (c *SyncClassifier) Compute(patterns ...string) *SyncClassifier {
	n := c.clone()
	n.compute = append(n.compute, lowerPatterns("SyncClassifier.Compute", patterns)...)
	return n
}

func (c *SyncClassifier) clone() *SyncClassifier {
	n := &SyncClassifier{}
	if c != nil {
		n.include = append([]string(nil), c.include...)
		n.exclude = append([]string(nil), c.exclude...)
		n.setUp = append([]string(nil), c.setUp...)
		n.compute = append([]string(nil), c.compute...)
	}
	return n
}

func lowerPatterns(fn string, patterns []string) []string {
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = strings.ToLower(p)
		if _, err := path.Match(out[i], ""); err != nil {
			panic(&work.Error{Func: "trace." + fn, Msg: fmt.Sprintf("pattern %q: %v", p, err), Err: err})
		}
	}
	return out
}

// String lists the overrides: "SyncClassifier(built-in rules, include
// [spin_wait], exclude [mpi_send], set-up [read_input], compute [mpi_init])".
func (c *SyncClassifier) String() string {
	s := "SyncClassifier(built-in rules"
	if c != nil && len(c.include) > 0 {
		s += fmt.Sprintf(", include %v", c.include)
	}
	if c != nil && len(c.exclude) > 0 {
		s += fmt.Sprintf(", exclude %v", c.exclude)
	}
	if c != nil && len(c.setUp) > 0 {
		s += fmt.Sprintf(", set-up %v", c.setUp)
	}
	if c != nil && len(c.compute) > 0 {
		s += fmt.Sprintf(", compute %v", c.compute)
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

var setUpNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range DefaultSetup { // the MPI and SHMEM set-up and tear-down Main cuts away
		m[strings.ToLower(n)] = true
	}
	m["trace buffer flush"], m["measurement off"] = true, true
	return m
}()

// TimeRole is what a location's time inside a region counts as.
type TimeRole uint8

const (
	// Computation is time inside calls that are neither synchronisation nor
	// set-up: the work a slow location does more of.
	Computation TimeRole = iota
	// Synchronisation is time inside calls in which a location waits for
	// others (MPI waits and collectives, barriers, ...).
	Synchronisation
	// SetUp is the program's set-up and tear-down (MPI_Init, MPI_Finalize,
	// ...) and the measurement system's own work: neither computation nor
	// synchronisation. Its differences between runs are mostly launch skew.
	SetUp
)

// String returns "computation", "synchronisation" or "set-up/tear-down".
func (r TimeRole) String() string {
	switch r {
	case Computation:
		return "computation"
	case Synchronisation:
		return "synchronisation"
	case SetUp:
		return "set-up/tear-down"
	}
	return fmt.Sprintf("TimeRole(%d)", int(r))
}

// OutsideRegions names a location's time outside every instrumented region
// (SyncTimes.OutsideNs): un-instrumented code, often the application's own
// computation in an MPI-only trace. It is neither idle nor computation.
const OutsideRegions = "outside instrumented regions"

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// RoleOf returns the role of region r's time. The first rule that applies,
// in this order: an Include pattern (synchronisation), a SetUp pattern
// (set-up), a Compute pattern (computation), the built-in set-up names
// (set-up), an Exclude pattern (not synchronisation: computation), the
// built-in synchronisation rules (synchronisation); otherwise computation.
func (c *SyncClassifier) RoleOf(r Region) TimeRole {
	name := strings.ToLower(r.Name)
	if c != nil {
		switch {
		case matchAny(c.include, name):
			return Synchronisation
		case matchAny(c.setUp, name):
			return SetUp
		case matchAny(c.compute, name):
			return Computation
		}
	}
	if setUpNames[name] {
		return SetUp
	}
	if c != nil && matchAny(c.exclude, name) {
		return Computation
	}
	if builtinSync(r.Role, name) {
		return Synchronisation
	}
	return Computation
}

func builtinSync(role, name string) bool {
	if syncRoles[role] {
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

// IsSync reports whether region r is synchronisation (see SyncClassifier
// and RoleOf).
func (c *SyncClassifier) IsSync(r Region) bool { return c.RoleOf(r) == Synchronisation }

// Roles classifies every region of t: out[id] is region id's role.
func (c *SyncClassifier) Roles(t *Trace) []TimeRole {
	out := make([]TimeRole, len(t.Defs.Regions))
	for i, r := range t.Defs.Regions {
		out[i] = c.RoleOf(r)
	}
	return out
}

// Regions classifies every region of t: out[id] tells whether region id
// is synchronisation.
func (c *SyncClassifier) Regions(t *Trace) []bool {
	out := make([]bool, len(t.Defs.Regions))
	for i, r := range c.Roles(t) {
		out[i] = r == Synchronisation
	}
	return out
}

// NodeRoles gives every node of p's call tree (p.CallTree()) the role of
// its time: the role of the outermost call on its path that is not
// computation (a barrier inside MPI_Init is set-up, an MPI_Wait inside a
// collective synchronisation), else computation. The root ε (time outside
// every call) is Computation here; SyncTimes counts it apart, as
// OutsideNs.
func (c *SyncClassifier) NodeRoles(p *Process) []TimeRole {
	var roles []TimeRole
	switch {
	case c != nil && c.bound != nil && c.bound == p.Trace:
		roles = c.roles
	case p.Trace != nil:
		roles = c.Roles(p.Trace)
	}
	return nodeRoles(p.CallTree(), roles)
}

func nodeRoles(ct *CallTree, roles []TimeRole) []TimeRole {
	out := make([]TimeRole, ct.Len())
	for i := 1; i < ct.Len(); i++ {
		if i&0xFFFF == 0 {
			work.Check()
		}
		out[i] = out[ct.Parent[i]]
		if r := ct.Region[i]; out[i] == Computation && r >= 0 && int(r) < len(roles) {
			out[i] = roles[r]
		}
	}
	return out
}

// Nodes marks the nodes of p's call tree (p.CallTree()) whose time is
// synchronisation (NodeRoles): out[i] is true when the outermost call on
// node i's path that is not computation is a synchronisation call. The
// root ε is never marked.
func (c *SyncClassifier) Nodes(p *Process) []bool {
	roles := c.NodeRoles(p)
	out := make([]bool, len(roles))
	for i, r := range roles {
		out[i] = r == Synchronisation
	}
	return out
}

// SyncTimes splits one location's time (ns): SpanNs = OutsideNs + SetUpNs +
// SyncNs + ComputeNs.
type SyncTimes struct {
	// SpanNs runs from the location's first to its last event (the span
	// of the call tree's root ε), not from the trace's begin: a location
	// that starts late is not charged for the time before it started.
	SpanNs int64
	// OutsideNs is the time within the span outside every instrumented
	// region (OutsideRegions): a worker thread between parallel regions,
	// or the application's own code between the MPI calls of an MPI-only
	// trace. Neither idle nor computation: the trace does not say.
	OutsideNs int64
	// SetUpNs is the time inside set-up and tear-down calls (MPI_Init,
	// MPI_Finalize, ...; TimeRole SetUp), the outermost call counted once.
	SetUpNs int64
	// SyncNs is the time inside synchronisation calls; a synchronisation
	// call inside another one is counted once (the outermost call's
	// inclusive time).
	SyncNs int64
	// ComputeNs is the time inside calls and outside synchronisation and
	// set-up: SpanNs - OutsideNs - SetUpNs - SyncNs, and the sum of the
	// exclusive times of all calls whose role is Computation (NodeRoles).
	ComputeNs int64
}

// Times splits p's time into the time outside instrumented regions,
// set-up, synchronisation and computation (see SyncTimes), from its call
// tree.
func (c *SyncClassifier) Times(p *Process) SyncTimes {
	return roleTimes(p.CallTree(), c.NodeRoles(p))
}

func roleTimes(ct *CallTree, roles []TimeRole) SyncTimes {
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
		if roles[i] != roles[par] || par == 0 {
			switch roles[i] {
			case Synchronisation:
				s.SyncNs += ct.Inclusive(i)
			case SetUp:
				s.SetUpNs += ct.Inclusive(i)
			}
		}
	}
	s.OutsideNs = s.SpanNs - busy
	s.ComputeNs = busy - s.SyncNs - s.SetUpNs
	return s
}
