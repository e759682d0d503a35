package link

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// Frame types. Kernel to rank 0 (and rank 0 to every rank): Open, Run,
// Close, Interrupt, Quit. Rank 0 to the kernel: Hello, Opened, Result,
// Error, Progress.
const (
	TOpen byte = iota + 1
	TRun
	TClose
	TInterrupt
	TQuit
	THello
	TOpened
	TResult
	TError
	TProgress
)

// OpenReq asks every rank to load its share of the trace at Path.
type OpenReq struct {
	TraceID uint64
	Path    string
	// Share is the processes the receiving rank reads (worker.Shares):
	// rank 0 reads the definitions once and deals the shares, so that no
	// other rank reads the global definitions twice.
	Share []int
}

// RunReq asks every rank to compute Round of the method Method (rebuilt
// from Params) over the processes Procs of its share of trace TraceID.
type RunReq struct {
	TraceID  uint64
	Method   string
	Params   []byte
	Procs    []int
	Round    int
	Decision []byte
}

// Report is what a rank says of its part of one request.
type Report struct {
	Rank      int
	Host      string
	PID       int
	Procs     int     // processes of its share (Open)
	Events    int64   // events of its share (Open)
	Seconds   float64 // wall time of its own computation
	PeakRSS   int64   // bytes (VmHWM)
	SentBytes int64   // bytes of the partial it sent to its parent in the tree
	// StopSeconds is, for an interrupted request, the time from the
	// interrupt's arrival at the rank to the end of its computation.
	StopSeconds float64
}

// ProcInfo describes one process of an opened trace.
type ProcInfo struct {
	Rank, Thread int32
	Name         string
}

// Opened answers OpenReq: the trace's definitions (gob of
// *trace.Definitions) and processes, and every rank's report.
type Opened struct {
	Defs    []byte
	Procs   []ProcInfo
	Reports []Report
}

// Result answers RunReq: the merged partial (part.Encode's frame) and every
// rank's report.
type Result struct {
	Data    []byte
	Reports []Report
}

// Error answers a request that failed on some rank.
type Error struct {
	Rank        int
	Host        string
	Msg         string
	Interrupted bool
	Reports     []Report // every rank's, when rank 0 sends it
}

func (e *Error) Error() string {
	if e.Interrupted {
		return "interrupted"
	}
	return fmt.Sprintf("rank %d (%s): %s", e.Rank, e.Host, e.Msg)
}

// Progress is the progress of a request over all ranks: each rank's
// fraction of its current job in thousandths, summed.
type Progress struct {
	Done, Total int64
}

// Hello is rank 0's first frame: the job's ranks.
type Hello struct {
	Size  int
	Hosts []string
	PIDs  []int
}

// Encode is gob of v.
func Encode(v any) []byte {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		panic(fmt.Sprintf("link.Encode %T: %v", v, err))
	}
	return b.Bytes()
}

// Decode reads the gob of v.
func Decode(b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("link: damaged %T: %w", v, err)
	}
	return nil
}
