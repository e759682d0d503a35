// Package nsight reads the trace reports of NVIDIA Nsight Systems on plain
// types: the CSV files that `nsys stats --format csv` writes for the
// nvtx_pushpop_trace, cuda_api_trace and cuda_gpu_trace reports, and the
// SQLite export (`nsys export --type sqlite`): its NVTX_EVENTS push/pop
// ranges, CUPTI_ACTIVITY_KIND_RUNTIME API calls and the kernels, memory
// copies and memsets of CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET.
//
// Every record becomes a Span: an interval in nanoseconds with a name, on
// a CPU thread (PID, TID) or on a GPU stream (device, context, stream).
// Columns are found by their names in the header line (the unit suffix
// such as " (ns)" or " (us)" is read and applied to times), so columns
// added by later versions of nsys are ignored.
//
// Errors are *Error values naming the file and the line (CSV) or the table
// and row (SQLite). The reader never panics on bad input.
package nsight
