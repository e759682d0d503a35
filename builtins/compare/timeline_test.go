package compare

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/plotting"
)

func callMultiset(p *trace.Process) []string {
	ct := p.CallTree()
	var out []string
	for i := 1; i < ct.Len(); i++ {
		out = append(out, fmt.Sprintf("%d %s", ct.Depth[i]-1, p.RegionName(ct.Region[i])))
	}
	slices.Sort(out)
	return out
}

// A group's timeline shows the calls of the representatives Where aligns, one bar per call,
// with the states lane between them; a group out of range is an *Error.
func TestGroupTimeline(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Iterations = 3
	a := synth.Generate(cfg)
	a.SetName("a")
	cfg.Iterations = 4
	b := synth.Generate(cfg)
	b.SetName("b")
	r := Runs(a, b)
	checked := 0
	for g := range r.NumGroups() {
		ga, gb := r.Group(g)
		if len(ga) == 0 || len(gb) == 0 {
			continue
		}
		var rep [2]string // the representatives Where names
		for _, w := range r.WhereRows() {
			if w.Group == g {
				rep = w.Process
				break
			}
		}
		lt := r.Timeline(g)
		if len(lt.Lanes) != 3 || lt.Lanes[1].Kind != plotting.LaneStates {
			t.Fatalf("G%d: lanes %d", g, len(lt.Lanes))
		}
		for k, side := range [2][]*trace.Process{ga, gb} {
			lane := lt.Lanes[2*k]
			var p *trace.Process
			for _, q := range side {
				if strings.HasSuffix(lane.Name, " "+q.Label()) {
					p = q
				}
			}
			if p == nil || rep[k] != "" && p.Label() != rep[k] {
				t.Fatalf("G%d: lane %q is not the representative %q of the group", g, lane.Name, rep[k])
			}
			var bars []string
			for _, x := range lane.Bars {
				bars = append(bars, fmt.Sprintf("%d %s", x.Level, x.Label))
			}
			slices.Sort(bars)
			if !slices.Equal(bars, callMultiset(p)) {
				t.Errorf("G%d lane %s: %d bars, want the %d calls of %s", g, lane.Name, len(bars), p.CallTree().Len()-1, p)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no matched group")
	}
	if err := work.Try(func() { r.Timeline(r.NumGroups()) }); err == nil || !strings.Contains(err.Error(), "compare.Result.Timeline") {
		t.Errorf("group out of range: %v", err)
	}
}

// A group's Chrome export holds its representatives' calls, read back by trace.Open, and a
// track of the comparison states; a group out of range is an *Error.
func TestGroupWriteChrome(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Iterations = 3
	a := synth.Generate(cfg)
	cfg.Version = 1
	b := synth.Generate(cfg)
	r := Runs(a, b)
	checked := false
	for g := range r.NumGroups() {
		ga, gb := r.Group(g)
		if len(ga) == 0 || len(gb) == 0 {
			continue
		}
		lt := r.Timeline(g)
		path := filepath.Join(t.TempDir(), "g.json")
		r.WriteChrome(g, path)
		back := trace.Open(path)
		if back.NumProcesses() != 3 {
			t.Fatalf("G%d: %d locations back, want A, states, B: %v", g, back.NumProcesses(), back.Processes())
		}
		for k, li := range []int{0, 2} { // the two sides, as the timeline's lanes
			var want []string
			for _, x := range lt.Lanes[li].Bars {
				want = append(want, fmt.Sprintf("%d %s", x.Level, x.Label))
			}
			slices.Sort(want)
			if got := callMultiset(back.Process(2 * k)); !slices.Equal(got, want) {
				t.Errorf("G%d side %d: %d calls back, want the %d of the timeline", g, k, len(got), len(want))
			}
		}
		states := map[string]bool{}
		for _, x := range lt.Lanes[1].Bars {
			states[x.Label] = true
		}
		for _, s := range callMultiset(back.Process(1)) {
			if !states[strings.TrimPrefix(s, "0 ")] {
				t.Errorf("G%d: state %q back is not a state of the timeline %v", g, s, states)
			}
		}
		checked = true
		break
	}
	if !checked {
		t.Fatal("no matched group")
	}
	if err := work.Try(func() { r.WriteChrome(r.NumGroups(), filepath.Join(t.TempDir(), "x.json")) }); err == nil || !strings.Contains(err.Error(), "compare.Result.WriteChrome") {
		t.Errorf("group out of range: %v", err)
	}
}
