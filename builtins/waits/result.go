package waits

import (
	"github.com/tracebook/tracebook/builtins/trace"
)

// Delay is the delay cost of one call path (Böhme et al. 2010): the part of
// the waiting time of kind Kind elsewhere that the excess time of this call
// path on the culprit caused.
type Delay struct {
	Kind Kind
	Path string // the call path on the culprit, "main → solve → compute"
	Cost int64  // ns
}

// Result is the wait-state analysis of one trace (Analyze).
type Result struct {
	tr *trace.Trace
}

// Analyze finds the wait states of tr's MPI operations with their culprits,
// the delays that caused them and the critical path.
func Analyze(tr *trace.Trace) *Result { panic("waits.Analyze: being written") }

// InstanceRows returns the wait states, by process and time.
func (r *Result) InstanceRows() []Instance { panic("unimplemented") }

// SegmentRows returns the critical path, by time.
func (r *Result) SegmentRows() []Segment { panic("unimplemented") }

// PathLength returns the critical path's length, ns: the sum of its segments.
func (r *Result) PathLength() int64 { panic("unimplemented") }

// PathTime returns the time on the critical path spent exclusively in the
// regions named name (all their call paths), ns.
func (r *Result) PathTime(name string) int64 { panic("unimplemented") }

// DelayRows returns the delay costs per kind and call path of the culprits.
func (r *Result) DelayRows() []Delay { panic("unimplemented") }
