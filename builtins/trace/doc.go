// Package trace is tracebook's performance-trace data model and its readers.
//
// A Trace holds the definitions of a run (strings, regions, the system tree,
// processes and their locations, communicators, metrics, attributes and the
// clock) and one Process per OTF2 location of execution (an MPI rank's master
// thread, a worker thread, a GPU stream). Each Process stores its events in columns:
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
// Package trace/synth builds deterministic synthetic traces of any size in
// memory (synth.Generate); package trace/tracetest has the fixtures tests
// share.
//
// Files: the model (model.go, calltree.go, ranks.go, measurement.go,
// metricstreams.go); the readers (read.go: Open and Load; read_otf2.go
// over package trace/otf2; read_table.go: FromTable and the table files);
// the writer (write_table.go: Events) and the table format both share
// (table_format.go); the derived views (summary.go, sync.go, window.go,
// repair.go).
//
// Metric streams. An OTF2 METRIC location (Score-P's asynchronous metric
// plugins: rocm_smi, coretemp, ...) holds samples no thread recorded; it is a
// MetricStream (Trace.MetricStreams, Trace.MetricSamples), never a Process,
// so that process counts, lanes, means and per-process methods see only
// locations of execution. Definitions.Locations keeps all locations;
// Process.Location and MetricStream.Location index it, Process.Index indexes
// Trace.Processes. Threads are numbered among the locations of execution of
// their group (a METRIC location does not shift them).
//
// Measurement off. OTF2 MEASUREMENT_ON_OFF records (Score-P's measurement
// switched off and on) are events of kinds MeasurementOff and MeasurementOn
// (so the Events table and its round trip keep them);
// Process.MeasurementOffIntervals turns them into intervals, an interval
// still open at the location's end lasting to the trace's end. The Summary
// counts them. RegionStats (and so Profile and the Summary's top regions)
// do not count off time as time of any region: nothing was recorded then.
// The call tree keeps the recorded Enter and Leave times, so methods that
// measure calls from it directly still include the gaps.
//
// Damaged traces. Load(path, WithSkipDamaged()) reads the locations whose files
// read correctly and leaves out each one that does not (truncated, corrupt,
// missing, a record referencing an undefined region) whole: the events read
// before the damage are dropped rather than kept as a process that silently
// ends early. Trace.Damaged lists them with the error; String and Summary say
// so. Without the option any damaged location fails the load; with it, a
// trace none of whose locations reads still fails, and so does an
// interrupted load or damaged global files.
//
// Windows and phases cut a trace into another *Trace that every builtin
// accepts (window.go): Window(t0, t1) by time, [t0, t1), a call ending
// exactly at t0 outside; Between(region, from, to) per process, each at its
// own invocations (SPMD: every rank the same iterations; Span gives the
// global span for one Window); Without(regions...) and Main() cut the
// leading and trailing set-up and tear-down invocations on each process;
// Subset(processes...) keeps global process indices (Process.Index, and
// Trace.Process(i) looks up process i). Calls cut by a window's ends are
// clipped (a synthetic Enter at its start, Leave at its end) and counted in
// Process.Clip and in the summary's "cut" line; a cut shares definitions,
// Path and side tables with its source and copies events only when a call
// is clipped. Cuts of cuts cut the trace read or generated again (Root), so
// message matching sees the whole run (profile.Messages counts messages
// with one record outside as cut, not unmatched).
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
// Runs are named by Name: the name given by Named (trace.Open(path,
// trace.WithName("32 ranks"))), else the name an export carries, else the
// directory of an OTF2 archive (Score-P names every anchor traces.otf2),
// else the file's stem, else the generator's ("generated A, 4 ranks"). Every
// two-run table, headline and figure uses it.
//
// An export changes nothing: Events writes Partner as the partner's global
// rank (the column DuckDB and pandas users join with Process; the rank in the
// communicator is "Partner in Communicator") and keeps all definitions and
// the run's name in the schema metadata, so that Load of the Parquet or Arrow
// IPC file gives back the same model and every builtin the same result
// (table_format.go lists the choices; CSV has no metadata and keeps what its
// columns hold).
//
// Notebook convention: Open and Process panic with a *Error (or a message
// naming the bad argument) which the kernel renders as a cell error; Load is
// the Go-style (value, error) form of Open.
package trace
