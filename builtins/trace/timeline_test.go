package trace_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/plotting"
)

// Timeline hands the options to the registered builder (nil options ignored) and, without a
// builder, panics with an *Error saying which package to link.
func TestTimelineOptions(t *testing.T) {
	tr := synth.Generate(synth.DefaultGenConfig())
	var got trace.TimelineConfig
	var gotTrace *trace.Trace
	want := &plotting.LiveTimeline{Title: "fake"}
	prev := trace.RegisterTimeline(func(tr *trace.Trace, c trace.TimelineConfig) *plotting.LiveTimeline {
		gotTrace, got = tr, c
		return want
	})
	defer func() { trace.RegisterTimeline(prev) }()
	w := tr.Window(0, 1000)
	ps := tr.Processes()[1:3]
	lt := w.Timeline(trace.WithTopLevel(), nil, trace.WithExpand(1, 2), trace.WithExpand(4), trace.WithGroupSize(8),
		trace.WithBudget(1<<20), trace.WithProcesses(ps...))
	if lt != want || gotTrace != w {
		t.Fatal("Timeline did not return the builder's timeline of its trace")
	}
	if !got.TopLevel || !slices.Equal(got.Expand, []int{1, 2, 4}) || got.GroupSize != 8 || got.Budget != 1<<20 || !slices.Equal(got.Processes, ps) {
		t.Errorf("config %+v", got)
	}
	tr.Timeline()
	if got.TopLevel || got.Expand != nil || got.Processes != nil || got.GroupSize != 0 || got.Budget != 0 {
		t.Errorf("no options gave %+v, want the zero config", got)
	}

	trace.RegisterTimeline(nil)
	defer func() {
		var e *trace.Error
		err, _ := recover().(error)
		if !errors.As(err, &e) || !strings.Contains(e.Error(), "builtins/internal/timeline") {
			t.Errorf("without a builder: %v, want a *trace.Error naming the package", err)
		}
	}()
	tr.Timeline()
}
