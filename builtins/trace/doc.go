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
// Runs are named by Name: the name given by Named (trace.Open(path,
// trace.Named("32 ranks"))), else the name an export carries, else the
// directory of an OTF2 archive (Score-P names every anchor traces.otf2),
// else the file's stem, else the generator's ("generated A, 4 ranks"). Every
// two-run table, headline and figure uses it.
//
// An export changes nothing: Events writes Partner as the partner's global
// rank (the column DuckDB and pandas users join with Process; the rank in the
// communicator is "Partner in Communicator") and keeps all definitions and
// the run's name in the schema metadata, so that Load of the Parquet or Arrow
// IPC file gives back the same model and every builtin the same result
// (export.go lists the choices; CSV has no metadata and keeps what its
// columns hold).
//
// Notebook convention: Open and Process panic with a *Error (or a message
// naming the bad argument) which the kernel renders as a cell error; Load is
// the Go-style (value, error) form of Open.
package trace
