// Package hpctoolkit decodes the binary files of an HPCToolkit v4 database
// (hpcprof's output directory) in pure Go: meta.db, profile.db and
// trace.db, as the database's FORMATS.md (the "*.db formats v4.0"
// specification shipped with every database) describes them.
//
// ReadMeta reads meta.db whole: the general properties, the names of the
// identifier kinds, the metric names, the load modules, source files and
// functions, and the context tree flattened in depth-first order (each
// Context with its parent, lexical type, relation, function, source line and
// instruction). ReadProfiles reads the profile list of profile.db and each
// profile's hierarchical identifier tuple (node, rank, thread, GPU stream);
// the metric values themselves are not read. OpenTrace reads the trace
// headers of trace.db; TraceDB.ReadLine streams the (timestamp, context id)
// samples of one trace line in chunks, so a large trace.db is never held
// in memory. cct.db (the same values as profile.db, by context) is not
// needed for traces and is not read.
//
// Every size, count and pointer a file declares is checked against the
// bytes present before it is used or allocated; the version must be 4.x
// (higher minor versions are read as 4.0, using the structure sizes the
// file declares, as the specification's forward-compatibility rules ask).
// Errors are *Error values naming the file and the byte offset of the field
// at fault; the decoder never panics on bad input.
package hpctoolkit
