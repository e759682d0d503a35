package align

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

// callsOf is the multiset of a process's calls as "level name", sorted.
func callsOf(p *trace.Process) []string {
	ct := p.CallTree()
	var out []string
	for i := 1; i < ct.Len(); i++ {
		out = append(out, fmt.Sprintf("%d %s", ct.Depth[i]-1, p.RegionName(ct.Region[i])))
	}
	slices.Sort(out)
	return out
}

func barsOf(l plotting.LiveLane) []string {
	var out []string
	for _, b := range l.Bars {
		out = append(out, fmt.Sprintf("%d %s", b.Level, b.Label))
	}
	slices.Sort(out)
	return out
}

// The timeline of two aligned processes of runs of 3 and 4 iterations: each side's lane has
// one bar per call of its process at its call level, and the state lane runs through the
// alignment's state row (AlignedStrings) with the states' colours.
func TestPairTimeline(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Iterations = 3
	a := synth.Generate(cfg)
	cfg.Iterations = 4
	b := synth.Generate(cfg)
	r := Pair(a.Process(1), b.Process(1))
	lt := r.Timeline()
	if len(lt.Lanes) != 3 || lt.Lanes[1].Kind != plotting.LaneStates || lt.Lanes[0].Kind != plotting.LaneCalls || lt.Lanes[2].Kind != plotting.LaneCalls {
		t.Fatalf("lanes %+v", lt.Lanes)
	}
	if got, want := barsOf(lt.Lanes[0]), callsOf(a.Process(1)); !slices.Equal(got, want) {
		t.Errorf("lane A: %d bars, want the %d calls of A", len(got), len(want))
	}
	if got, want := barsOf(lt.Lanes[2]), callsOf(b.Process(1)); !slices.Equal(got, want) {
		t.Errorf("lane B: %d bars, want the %d calls of B", len(got), len(want))
	}
	checkStates(t, r, lt)
	if _, _, gapA, _ := r.Counts(); gapA == 0 {
		t.Error("no gap: the test does not exercise the gap states")
	}
}

// checkStates compares the state lane with the state row of AlignedStrings, as runs of marks.
func checkStates(t *testing.T, r *Result, lt *plotting.LiveTimeline) {
	t.Helper()
	_, _, row := r.AlignedStrings()
	runs := func(marks []byte) string {
		var out []byte
		for _, m := range marks {
			if len(out) == 0 || out[len(out)-1] != m {
				out = append(out, m)
			}
		}
		return string(out)
	}
	var want []byte
	for _, c := range []byte(row) {
		if c != ' ' {
			want = append(want, c)
		}
	}
	var got []byte
	end := lt.Start
	for _, b := range lt.Lanes[1].Bars {
		s := State(99)
		for st := Equal; st <= GapB; st++ {
			if b.Label == stateNames(r.sides.run(true, r.LabelA), r.sides.run(false, r.LabelB))[st] {
				s = st
			}
		}
		if s == 99 || b.Fill != plotting.StateColor(int(s)) || b.Start != end {
			t.Fatalf("state bar %+v (state %d) after %d", b, s, end)
		}
		end = b.End
		got = append(got, stateMark[s][0])
	}
	if end != lt.End {
		t.Errorf("the states end at %d, the timeline at %d", end, lt.End)
	}
	if runs(got) != runs(want) {
		t.Errorf("state runs %q, want %q", runs(got), runs(want))
	}
}

// Aligned strings: a pair is 1 ns.
func TestSequenceTimeline(t *testing.T) {
	r := Strings("abcx", "abdx")
	lt := r.Timeline()
	var s []string
	for _, b := range lt.Lanes[1].Bars {
		s = append(s, fmt.Sprintf("%d-%d %s", b.Start, b.End, b.Label))
	}
	if got := strings.Join(s, ", "); got != "0-2 Equal, 2-3 Diff, 3-4 Equal" || lt.Start != 0 || lt.End != 4 {
		t.Errorf("states %s over [%d, %d]", got, lt.Start, lt.End)
	}
	checkStates(t, r, lt)
}

// A row of Runs: its alignment's timeline; a bad row is an *Error.
func TestRunsTimeline(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	a := synth.Generate(cfg)
	cfg.Iterations++
	b := synth.Generate(cfg)
	rr := Runs(a, b)
	lt := rr.Timeline(2)
	if want := rr.Results[2].Timeline(); lt.Title != want.Title || len(lt.Lanes[1].Bars) != len(want.Lanes[1].Bars) {
		t.Errorf("row 2: %q, want %q", lt.Title, want.Title)
	}
	if err := work.Try(func() { rr.Timeline(len(rr.Results)) }); err == nil || !strings.Contains(err.Error(), "align.RunsResult.Timeline") {
		t.Errorf("row out of range: %v", err)
	}
}
