// Package projections decodes Charm++ Projections logs: the summary file
// (<program>.sts) and one log per PE (<program>.<pe>.log, usually gzipped as
// <program>.<pe>.log.gz), on plain types.
//
// The .sts file is a list of lines, a keyword and its values: VERSION,
// PROCESSORS (the number of PEs), TOTAL_CHARES, TOTAL_EPS, TOTAL_MSGS,
// CHARE <id> "<name>" <dimensions>, ENTRY CHARE <id> "<name>" <chare>
// <message>, MESSAGE <id> <size>, EVENT <id> <name>, STAT <id> <name>,
// TOTAL_PAPI_EVENTS and PAPI_EVENT <id> <name>, and descriptive keys
// (MACHINE, USERNAME, HOSTNAME, COMMANDLINE, TIMESTAMP, CHARMVERSION) kept
// in Sts.Info. Unknown keys are ignored.
//
// A log starts with a "PROJECTIONS-RECORD <n>" line and holds one record a
// line: its type number then its fields, times in microseconds from the
// start of the run. The fields of every record type Charm++ writes are
// decoded into Record (see the Type constants); a record of a type this
// package does not know is returned with Known false, to be counted and
// skipped. BEGIN_PROCESSING carries, after the message length, the
// receive time, the chare's index (as many integers as Charm++ wrote), the
// CPU start time and the PAPI counters the .sts declares: the integers
// between the receive time and the CPU time are the index.
//
// Errors are *Error values naming the file, the line and the byte offset of
// the line in the (decompressed) text; the decoder never panics on bad
// input and allocates in proportion to the bytes read.
package projections
