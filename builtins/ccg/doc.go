// Package ccg stores traces as Complete Call Graphs (Knüpfer 2009, ch. 3-4):
// each location's call tree with run times as durations, equal or similar
// sub-trees replaced by references to one instance, and queries answered on
// the compressed graph without decompressing it.
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
// globally; message and collective byte counts and counter values under
// their own bounds (5.6.1). Request ids of non-blocking calls, which never
// repeat, are stored like time (3.2.1's "alternative time"): as differences
// from the location's latest id, which do repeat, so exact ids compress;
// Requests: -1 drops them. A property with a zero bound is exact
// and becomes part of the hash (5.6.1: "treated as hard properties"), so
// lossless compression needs no S-list scans. R_nodes and R_memory are
// counted during construction (4.2.5). The reported deviation interval is
// the exact hull of the events' deviations: Lemma 5's interval also holds
// time stamps that are no events (a node's own end, which its parent
// stores), which the bound checks keep, as the seed does.
//
// Queries: a random-access iterator forward and backward over events,
// up the graph and by timestamp search (4.5.1-4.5.2); the cached summary
// query over [t0, t1) with the cache-modulus and cache-references rules of
// 5.4.1 (4.5.3); a per-pixel timeline (4.5.4); message and collective
// matching across locations (3.4.5-3.4.6; see Messages and Collectives:
// receives in posting order, not 4.5.5's bounded pending lists).
// Recompress widens the bounds of a graph (4.4.1) and Merge combines graphs
// of disjoint locations, sharing equal sub-trees (4.4.2): the per-location
// part of the method, built anywhere and merged. Save and Load keep a graph
// in a versioned, checksummed binary file (4.6).
//
// Times are reconstructed top-down (Lemma 1): a node's enter and leave are
// the times its parent stores, the times inside it follow from its own
// durations. In a lossy graph the two can disagree by the bounds, so
// consecutive events of a location can be out of order by up to 2*Abs.
package ccg
