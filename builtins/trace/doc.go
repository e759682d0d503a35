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
// Windows and phases cut a trace into another *Trace that every builtin
// accepts (window.go): Window(t0, t1) by time, [t0, t1), a call ending
// exactly at t0 outside; Between(region, from, to) per process, each at its
// own invocations (SPMD: every rank the same iterations; Span gives the
// global span for one Window); Without(regions...) and Main() cut the
// leading and trailing set-up and tear-down invocations on each process;
// Subset(locations...) keeps global location indices (Process.Index, and
// Trace.Process(i) looks up location i). Calls cut by a window's ends are
// clipped (a synthetic Enter at its start, Leave at its end) and counted in
// Process.Clip and in the summary's "cut" line; a cut shares definitions,
// Path and side tables with its source and copies events only when a call
// is clipped. Cuts of cuts cut the trace read or generated again (Root), so
// message matching sees the whole run (profile.Messages counts messages
// with one record outside as cut, not unmatched).
//
// Notebook convention: Open and Process panic with a *Error (or a message
// naming the bad argument) which the kernel renders as a cell error; Load is
// the Go-style (value, error) form of Open.
package trace
