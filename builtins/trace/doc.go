// Package trace is tracebook's performance-trace data model and its readers.
//
// A Trace holds the definitions of a run (strings, regions, the system tree,
// processes and their locations, communicators, metrics, attributes and the
// clock) and one Process per OTF2 location (an MPI rank's master thread, a
// worker thread, a GPU stream). Each Process stores its events in columns:
// Kind, Time (int64 nanoseconds from the trace's start) and Ref (the region of
// an Enter/Leave, or a row of a payload side table for messages, collectives
// and metrics). Enter/Leave-heavy traces cost about 13 bytes per event.
//
// Derived views are computed once per Process and cached: the call tree
// (CallTree, pre-order and columnar, rooted at the virtual root ε), the flat
// pre-order function sequence (Sequence, the input of alignment) and the
// caller->callee pair set (Pairs). Identity across traces is by region name.
//
// Open and Load read OTF2 archives (through the pure-Go reader in package
// trace/otf2) and events tables in LLNL pipit's schema stored as Parquet,
// Arrow IPC (Feather v2) or CSV. Events and Profile return Arrow tables.
// Generate builds deterministic synthetic SPMD traces of any size in memory.
//
// Roles of time: SyncClassifier (DefaultSync) gives each region's time a
// TimeRole — synchronisation, set-up/tear-down (MPI_Init, MPI_Finalize,
// SHMEM init/finalize, Score-P's buffer flushes; neither computation nor
// synchronisation) or computation — with a call inside another taking the
// outermost non-computation role; SyncTimes splits a location's span into
// these and the time outside every instrumented region (OutsideRegions),
// which is never called idle or computation. Users: align.Runs (every
// role), imbalance's SOS-time (synchronisation only, as Weber 6.2.2
// defines it), fold (the name of no-state on CPU streams).
//
// Notebook convention: Open and Process panic with a *Error (or a message
// naming the bad argument) which the kernel renders as a cell error; Load is
// the Go-style (value, error) form of Open.
package trace
