package waits

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/work"
)

// Error is the error every waits builtin panics with (work.Error).
type Error = work.Error

// Kind is a kind of wait state (Scalasca's performance properties).
type Kind uint8

// The kinds of wait state. The first seven have a culprit (the location whose
// late arrival caused the wait) and are followed by the critical path and the
// delay analysis; the two completion kinds have none.
const (
	LateSender        Kind = iota // a receive (MPI_Recv, MPI_Wait*, MPI_Sendrecv) entered before its send
	LateReceiver                  // a blocking send (MPI_Send, MPI_Ssend, MPI_Wait of an MPI_Isend) entered before its receive was posted
	WaitAtBarrier                 // MPI_Barrier entered before the last participant
	WaitAtNxN                     // an n-to-n collective entered before the last participant
	LateBroadcast                 // a 1-to-n collective entered before its root
	EarlyReduce                   // the root of an n-to-1 collective entered before the first sender
	EarlyScan                     // MPI_Scan/MPI_Exscan entered before the last of the ranks before it
	BarrierCompletion             // time in MPI_Barrier after the first participant left
	NxNCompletion                 // time in an n-to-n collective after the first participant left
	numKinds
)

// NumKinds is the number of kinds: every Kind is below it.
const NumKinds = int(numKinds)

var kindNames = [...]string{LateSender: "late sender", LateReceiver: "late receiver", WaitAtBarrier: "wait at barrier",
	WaitAtNxN: "wait at N×N", LateBroadcast: "late broadcast", EarlyReduce: "early reduce", EarlyScan: "early scan",
	BarrierCompletion: "barrier completion", NxNCompletion: "N×N completion"}

// String returns the property's name, "late sender", "wait at N×N", ...
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// HasCulprit reports whether waits of kind k are caused by another location's
// late arrival (all kinds but the two completions).
func (k Kind) HasCulprit() bool { return k < BarrierCompletion }

// Instance is one wait state: the waiting time of one MPI call of one
// location.
type Instance struct {
	Kind    Kind
	Process int32 // the waiting location: index in tr.Processes()
	// Call is the event index (in Process) of the Enter of the MPI call that
	// waits; -1 when the operation's record lies in no MPI region (the call
	// is then the record alone, Enter = Leave = its time, or for a
	// collective its MpiCollectiveBegin to its End).
	Call   int32
	Region int32 // the call's region id; -1 without a call
	// Path is the call's call path (Result.PathName); without a call, the
	// call path the record lies in.
	Path         int32
	Enter, Leave int64 // the call, ns
	Wait         int64 // ns, > 0
	// Culprit is the location that caused the wait: the sender (late
	// sender), the receiver (late receiver), the last to enter (barrier,
	// N×N, scan), the root (late broadcast), the first sender (early
	// reduce); -1 for the completion kinds. When several participants
	// enter at the same time, the first of them in location order.
	Culprit int32
	// CulpritCall is the event index of the Enter of the culprit's call (its
	// send, its receive's posting call, its collective call); -1 when it
	// has none or for the completion kinds.
	CulpritCall int32
	// CulpritEnter is when the culprit entered that call (ns); the wait ends
	// then, unless the clocks disagree (Clipped).
	CulpritEnter int64
	// Clipped marks a wait cut at the call's Leave because the culprit
	// entered after it (a clock condition violation).
	Clipped bool
}

// Segment is one piece of the critical path: on Process from Start to End
// (ns). Segments follow each other in time; the path jumps from one
// location to another at the end of a wait, to its culprit.
type Segment struct {
	Process    int32
	Start, End int64
}
