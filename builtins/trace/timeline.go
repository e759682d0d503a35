package trace

import (
	"errors"
	"sync"

	"github.com/tracebook/tracebook/plotting"
)

// TimelineOption configures Trace.Timeline. A nil option is ignored.
type TimelineOption func(*TimelineConfig)

// TimelineConfig is what the options of Trace.Timeline asked for; the
// builder (package builtins/internal/timeline) reads it.
type TimelineConfig struct {
	TopLevel  bool       // WithTopLevel: only the outermost calls (level 0)
	Expand    []int      // WithExpand: folded groups shown as their member lanes
	GroupSize int        // WithGroupSize: ranks (or GPUs) per folded group (0: so that there are at most 64 strips)
	Budget    int        // WithBudget: bytes the view embeds (0: plotting.DefaultLiveBudget)
	Processes []*Process // WithProcesses: the locations shown (nil: all)
}

// WithTopLevel draws only the outermost calls of every location (call level 0)
// instead of the stacked call levels.
func WithTopLevel() TimelineOption { return func(c *TimelineConfig) { c.TopLevel = true } }

// WithExpand shows the folded groups given (numbered from 0, as the strips'
// names say) as their member lanes, in place of their strips.
func WithExpand(groups ...int) TimelineOption {
	return func(c *TimelineConfig) { c.Expand = append(c.Expand, groups...) }
}

// WithGroupSize sets the number of consecutive ranks (or GPUs), with all their
// threads (or streams), folded into one strip when a timeline has more than 64
// lanes of locations.
func WithGroupSize(n int) TimelineOption { return func(c *TimelineConfig) { c.GroupSize = n } }

// WithBudget bounds the bytes of data the interactive view embeds
// (plotting.LiveTimeline.Budget).
func WithBudget(bytes int) TimelineOption { return func(c *TimelineConfig) { c.Budget = bytes } }

// WithProcesses shows only the given locations (processes of the trace),
// in the trace's order; messages to locations left out are left out.
func WithProcesses(ps ...*Process) TimelineOption {
	return func(c *TimelineConfig) { c.Processes = append(c.Processes, ps...) }
}

var timelineBuilder struct {
	sync.Mutex
	f func(*Trace, TimelineConfig) *plotting.LiveTimeline
}

// RegisterTimeline sets the function Trace.Timeline calls: package
// builtins/internal/timeline registers its builder in its init (trace cannot import
// the packages the builder needs, such as fold, which import trace). It
// returns the builder it replaces (nil if none), so that a test can restore it.
func RegisterTimeline(f func(*Trace, TimelineConfig) *plotting.LiveTimeline) (previous func(*Trace, TimelineConfig) *plotting.LiveTimeline) {
	timelineBuilder.Lock()
	defer timelineBuilder.Unlock()
	previous, timelineBuilder.f = timelineBuilder.f, f
	return previous
}

// Timeline returns the master timeline of the trace (or of a window or
// phase of it: tr.Window(a, b).Timeline()): every CPU location as a lane of
// nested calls, accelerator streams, counter lanes of the metrics,
// point-to-point messages as lines from send to receive, collective
// operations as markers and the times the measurement was off shaded; above
// 64 locations, groups of consecutive ranks folded into strips of their
// dominant function (WithExpand shows a group's members). Its display is the
// interactive view of plotting.LiveTimeline. The builder is package
// builtins/internal/timeline (linked into the kernel); without it Timeline panics
// with an *Error saying so. See that package for what is drawn and how.
func (t *Trace) Timeline(opts ...TimelineOption) *plotting.LiveTimeline {
	timelineBuilder.Lock()
	f := timelineBuilder.f
	timelineBuilder.Unlock()
	if f == nil {
		path := ""
		if t != nil {
			path = t.Path
		}
		panic(&Error{Path: path, Offset: -1, Err: errors.New("Timeline: no timeline builder is linked: import _ \"github.com/tracebook/tracebook/builtins/internal/timeline\"")})
	}
	var c TimelineConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return f(t, c)
}
