// Package arrowio builds Apache Arrow tables from plain Go columns, renders them for
// notebooks (aligned text and escaped HTML showing the schema, head, tail and row count) and
// reads and writes them as Parquet, Arrow IPC files (Feather v2) and CSV. A [Table] owns one
// retained arrow.RecordBatch allocated from memory.DefaultAllocator; it is immutable, so slices
// such as [Table.Head] share its buffers. Every I/O error names the file, and corrupt or
// truncated files are reported as errors, never as panics. The package imports neither the
// builtins nor the kernel; the kernel displays a Table through [Table.MIMEBundle].
package arrowio
