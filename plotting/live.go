package plotting

import (
	"image/color"
	"sync/atomic"
)

// LiveTimeline is the interactive master timeline (Vampir's view): lanes of nested call bars,
// accelerator streams, counter lanes and folded strips of groups of lanes, with messages drawn
// as lines from send to receive, markers (collectives) and shaded intervals (measurement off).
// Times are int64 nanoseconds on one clock (a trace's time from its start).
//
// It is built by the trace methods (trace.Trace.Timeline, align.Result.Timeline) and shown by
// MIMEBundle as a self-contained HTML/JS view (no network: the script is inlined) with the
// static PNG as fallback in the same bundle; SaveHTML writes the same view as a standalone
// page. The data embedded is bounded (Budget): see MIMEBundle for the level structure.
type LiveTimeline struct {
	Title string
	// Start and End are the time range shown at first (ns); End > Start. Zero values mean the
	// range of the lanes' contents.
	Start, End int64
	Lanes      []LiveLane
	Messages   []LiveMessage
	Markers    []LiveMarker
	Shades     []LiveShade
	// Notes are stated under the view: what was folded, merged, left out or bounded, in the
	// builder's words (the view adds its own notes on the levels it embeds).
	Notes []string
	// Budget is the most bytes of data the HTML view embeds (0: DefaultLiveBudget).
	Budget int
}

// DefaultLiveBudget is the default bound of the data a LiveTimeline embeds in a notebook.
const DefaultLiveBudget = 3 << 20

// LaneKind says what a lane of a LiveTimeline holds and how it is drawn.
type LaneKind int

const (
	// LaneCalls is a CPU location: bars of nested calls, one sub-row per call level.
	LaneCalls LaneKind = iota
	// LaneAccelerator is a GPU/accelerator stream: bars (kernels, copies), drawn like calls
	// with a distinct lane label style.
	LaneAccelerator
	// LaneCounter is a metric stream: Samples drawn as a step line scaled to the lane.
	LaneCounter
	// LaneFolded is a folded strip standing for a group of lanes (Members): one bar per
	// stretch of the group's dominant state (fold.Max), at level 0.
	LaneFolded
	// LaneStates is a lane of comparison states (StateColor fills), bars over the lane's
	// full height.
	LaneStates
)

// LiveLane is one row of a LiveTimeline.
type LiveLane struct {
	Name string
	Kind LaneKind
	// Bars of calls (Level = call depth, 0 outermost), kernels, folded states or comparison
	// states. Label is the function name; Fill (optional) overrides the label's colour, as in
	// Bar. Bars need not be sorted; bars of one level do not overlap.
	Bars []LiveBar
	// Samples of a counter lane, in time order.
	Samples []LiveSample
	// Unit of a counter lane's values ("" for a plain count).
	Unit string
	// Info is shown when hovering the lane's name (e.g. the members of a folded group and how
	// to expand it).
	Info string
}

// LiveBar is one interval of a lane.
type LiveBar struct {
	Start, End int64
	Level      int
	Label      string
	Fill       color.Color
}

// LiveSample is one value of a counter lane, valid from Time to the next sample.
type LiveSample struct {
	Time  int64
	Value float64
}

// LiveMessage is a point-to-point message: a line from (From, Send) to (To, Recv), lanes by
// index into Lanes.
type LiveMessage struct {
	From, To   int
	Send, Recv int64
	Bytes      int64
	Tag        int32
	Comm       string
}

// LiveMarker is a point or short interval on a lane (a collective operation instance, from
// its begin to its end).
type LiveMarker struct {
	Lane       int
	Start, End int64
	Label      string // e.g. "MPI_Allreduce (comm world, root -, 8 B)"
}

// LiveShade is a shaded interval (measurement off) on one lane, or on all when Lane < 0.
type LiveShade struct {
	Lane       int
	Start, End int64
	Label      string
}

// interruptCheck is what interruptPoint calls (SetInterruptCheck).
var interruptCheck atomic.Pointer[func()]

// SetInterruptCheck sets the function that building a LiveTimeline's display calls between
// lanes, so that a long build stops when its cell is interrupted: the builtins set it to
// work.Check, which panics then (plotting itself imports no builtin). nil removes it.
func SetInterruptCheck(f func()) {
	if f == nil {
		interruptCheck.Store(nil)
		return
	}
	interruptCheck.Store(&f)
}

func interruptPoint() {
	if f := interruptCheck.Load(); f != nil {
		(*f)()
	}
}
