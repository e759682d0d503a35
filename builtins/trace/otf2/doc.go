// Package otf2 reads OTF2 trace archives (Open Trace Format 2, as written by
// Score-P and the OTF2 library) in pure Go, without cgo.
//
// Open reads the anchor file (formats 1-3) and the global definitions;
// ReadLocation reads one location's local definitions (ID mapping tables,
// clock offsets) and streams its events, in file order, to a callback.
// Event files are read chunk by chunk in either byte order, with OTF2's
// compressed integers, timestamp records and attribute lists. Every event
// record of the OTF2 3.0 specification is recognised: the records a trace
// model needs (Enter, Leave, MPI point-to-point and collectives, Metric,
// ProgramBegin/End, ...) are decoded, the rest are delivered with their
// type, time and raw payload and skipped by their length. Like the
// reference library, event references are mapped to global definitions and
// timestamps are corrected by the location's clock offsets.
//
// Archives of every OTF2 version, 1.0 to 3.x, are read like the reference
// library reads them: a record's fields added by a later version (the
// layout files' "since" annotations) are read only when the record holds
// them, otherwise they get their documented default (a Region of 1.0 gets
// role, paradigm and flags from its 1.0 region type, a Group of 1.0/1.1
// from its pre-1.2 group type, a Comm of 2.x no flags, ...), and the bytes
// a newer version appended to a record are skipped by the record length.
// Definition records of a kind the package does not model, and records of
// unknown type, are skipped by their length and counted by name in
// GlobalDefs.Skipped and LocalDefs.Skipped (DefName, LocalDefName);
// GlobalDefs.Counts counts every definition read. Event records of kinds
// not decoded, unknown types included, are delivered with their raw
// payload (EventName names them, Decoded tells which are decoded).
//
// Errors are *Error values naming the file and the byte offset. A
// truncated, missing or corrupt file is an error: the reader never panics
// and never returns a partial location silently.
package otf2
