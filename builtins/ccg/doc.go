// Package ccg stores traces as Complete Call Graphs (Knüpfer 2009, ch. 3-4;
// shared/seeds/knuepfer-2009-complete-call-graphs.txt): each location's
// call tree with run times as durations, equal or similar sub-trees
// replaced by references to one instance, and queries answered on the
// compressed graph without decompressing it.
//
//	g := ccg.BuildTrace(tr, ccg.Bounds{Abs: 1000, Rel: 0.05}) // all locations; ccg.Lossless keeps every event exact
//	g.Stats()                         // N, n, M, m, R_nodes, R_memory (4.2.5); g.Table(): one row per location
//	g.Summary(t0, t1)                 // calls, inclusive and exclusive time per region in [t0, t1), messages
//	g.At(t); g.Timeline(600).Plot()   // what runs at t on each location; the per-pixel timeline (4.5.4)
//	g.Iter(loc); g.Process(loc)       // events forward, backward, by time; a location decompressed
//	g.Accuracy(tr)                    // the graph compared event by event with the trace
//	ccg.Messages(g); ccg.Collectives(g) // messages and collectives matched on the graph
//	g.Recompress(wider); ccg.Merge(g, h) // wider bounds (4.4.1); graphs of disjoint locations (4.4.2)
//	g.Save(path); ccg.Load(path)      // a versioned, checksummed file (4.6)
//	ccg.SweepBounds(tr)               // compression and accuracy at the seed's bound settings
//
// Options: WithBranching, WithSearch, WithShards. Bad arguments panic with
// an *Error naming the function; long builds show progress and stop when
// the cell is interrupted.
//
// # Method
//
// Construction and compression run in one pass over a location's events
// (4.1, 4.3): Enter opens a node, Leave finalises it, every other event
// (messages, collectives, metric samples) is an atomic leaf. A node stores
// its 2n+1 durations (3.2.1: before, of and between its n children) in the
// smallest integer width that holds them (4.1.3) in arenas without Go
// pointers (4.1.4). Nodes with more than b children are split while they
// grow (4.1.2: early stage) and before they are finalised (late stage) into
// a minimum-depth tree of artificial nodes; unlike Figure 4.3, the late
// stage adds no artificial node with a single child.
//
// At finalisation a node looks for a replacement (4.2): a hash of its type,
// hard properties (region, event kind, message envelope, metric) and child
// references selects an S-list of candidates with equal hard properties,
// searched front to back over its first L candidates as a priority cache
// (4.2.2: a hit moves one place forward, a new node goes to the end and
// pushes the last one out of the cache). Soft properties are compared under
// Bounds: durations relatively (eq. 3.6), time stamps absolutely with the
// deviation intervals of Lemmas 4-5 propagated bottom-up so the bound holds
// globally (how both hold for every event: below); message and collective
// byte counts and counter values under their own bounds (5.6.1). Request ids of non-blocking calls, which never
// repeat, are stored like time (3.2.1's "alternative time"): as differences
// from the location's latest id, which do repeat, so exact ids compress;
// Requests: -1 drops them. Accumulated counters (hardware counters read at
// every event, trace.MetricMember.Accumulated) are stored the way 3.2.1
// says: as differences of successive samples, with Bounds.Counter bounding
// the differences (see deltaType). A property with a zero bound is exact
// and becomes part of the hash (5.6.1: "treated as hard properties"), so
// lossless compression needs no S-list scans. R_nodes and R_memory are
// counted during construction (4.2.5); m is what the built graph holds:
// the replacement index, S-lists and node hashes serve construction only
// and are released at its end, the arenas cut to their length, so a
// fresh graph's heap is m (query caches come on top as queries run). The reported deviation interval is
// the exact hull of the events' deviations: Lemma 5's interval also holds
// time stamps that are no events (a node's own end, which its parent
// stores), which the bound checks keep, as the seed does.
//
// Queries: a random-access iterator forward and backward over events,
// up the graph and by timestamp search (4.5.1-4.5.2); the cached summary
// query over [t0, t1) with the cache-modulus and cache-references rules of
// 5.4.1 (4.5.3); a per-pixel timeline (4.5.4); message and collective
// matching across locations (3.4.5-3.4.6; see Messages and Collectives:
// receives in posting order, not 4.5.5's bounded pending lists);
// MessageOrder, the check that lossy times reversed no message (a receive
// before its send, 5.6.1), reported in a lossy graph's summary line.
// Recompress widens the bounds of a graph (4.4.1; by rebuilding from its
// decompressed events, the seed's re-start of 4.4.3) and Merge combines graphs
// of disjoint locations, sharing equal sub-trees (4.4.2): the per-location
// part of the method, built anywhere and merged. Save and Load keep a graph
// in a versioned, checksummed binary file (4.6).
//
// # Deviation bounds that hold for every event
//
// Times are reconstructed top-down (Lemma 1): a node's enter and leave are
// the times its parent stores, the times inside it follow from its own
// durations. So a node's own last duration (from its last inner event to
// its leave) is never read: its leave is its start plus the total its
// parent stores. The seed stores there the original total and bounds only
// a node's own durations, so when a node is replaced, the time between
// the replacement's last event and the leave is the original total less
// the replacement's other durations — bounded by nothing; its claim that
// bounding every stored duration bounds every duration by additivity
// (3.3.2) needs that last gap bounded too. Here the builder places every
// leave: the total a parent stores for a child puts the child's last gap
// within Rel of the original last gap, and a replacement of a parent is
// accepted only if every child's last gap, as the replacement's totals put
// it, is within the bound too (besides the gaps between children). So the
// time between any two consecutive events of a location — a gap of one
// node, or a child's last gap as its parent puts it, or a sum of gaps
// through artificial nodes — is within Rel of the original (eq. 3.6 for
// every duration after decompression, and for any duration between two
// events by additivity), never negative where the original is not, and no
// event moves before its predecessor. A leaf call's one duration is its
// last gap: its parent holds it, and leaf calls of one region share one
// node; under lossless bounds too, so lossless graphs compress more.
// Queries read the same times (a call's exclusive time counts its last
// gap as its parent puts it), so a summary is that of the decompressed
// events, exactly.
//
// Replacements move events earlier or later than the originals. The
// builder carries that drift through the enclosing call and, while it is
// beyond 3/4 of Abs, places the following gaps back towards the original
// times, each by no more than Rel allows (a zero gap not at all). The
// absolute bound (eq. 3.5) stays global: during the single pass the
// builder knows how far the start of every open call has drifted
// (assuming the open calls are kept), and accepts a replacement only if
// its time stamps, moved by that drift, stay within Abs — Lemma 4 with
// the interval T shifted by the drift; placed gaps never increase a
// drift; and an open call that is replaced after all is checked against
// its own original durations by Lemma 4 as before. A negative original gap
// (a clock that ran backwards) is stored exactly.
//
// Bounds.MPIRel bounds the durations inside MPI calls (and whatever they
// call) more tightly than Rel, for replay (5.6.1's dur_send/receive and
// dur_collective, there absolute): the same per-gap guarantee with the
// tighter bound, so the time spent in every MPI call is within it.
//
// # Many machines
//
// The graph of each location is built alone: BuildMethod, registered as
// "ccg.build", builds the graph of a subset of the locations of a trace
// (its partial is the *Graph, encoded in the file format of Save, version
// 2), and Graph.Merge absorbs the graph of a disjoint subset, sharing
// exactly equal sub-trees (4.4.2); Merge(gs...) is the convenience over
// it. A lossless graph holds the same events, whatever the split; a lossy
// one shares similar sub-trees within a subset only, so its events are
// within the bounds of the trace, but depend on the split (the method's
// Equal compares them within the bounds).
//
// On one machine, BuildTrace deals the locations to a fixed number of
// shards (WithShards, default DefaultShards: the larger first,
// round-robin), builds each shard into its own store on any free core and
// merges the stores in shard order, sharing exactly equal sub-trees
// (4.4.2). The graph depends on the shard count only, never on the number
// of cores or on timing (part.Run's one subset per core would make a lossy
// graph depend on the machine); a lossy graph shares similar sub-trees
// within a shard, so fewer shards compress more, and WithShards(1) builds
// the most compressed graph on one core.
//
// On a distributed trace (a skeleton whose events are on the ranks of a job,
// part.Remote), Build, BuildProcesses and BuildTrace build on the job: each
// rank builds its share of the locations ("ccg.build", WithShards shards
// within its share) and the graphs merge up the job's tree (one round). A
// Lossless graph is the one BuildTrace builds on one machine, view for
// view: the same nodes, and the per-location Replaced counts (which depend
// on which locations shared a store) are read off the merged graph for
// BuildTrace's shards. A lossy graph built with a shard per location
// (WithShards(n), n at least the locations) is identical too: every
// location is built alone here and there. Otherwise a lossy graph depends
// on the split, as above: its events are within the bounds either way, but
// its sharing, its replaced counts and its times differ from the local
// graph's. Accuracy reads every
// event of the trace and panics on a distributed one; SweepBounds builds on
// the job like BuildTrace.
package ccg
