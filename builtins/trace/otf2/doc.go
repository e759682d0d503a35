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
// Errors are *Error values naming the file and the byte offset. A
// truncated, missing or corrupt file is an error: the reader never panics
// and never returns a partial location silently.
package otf2
