package imbalance

import (
	"errors"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// Method's rounds run by part.Run give Analyze's segments, and the result summarised from them
// equals Analyze's.
func TestMethodRunEqualsAnalyze(t *testing.T) {
	tr := seedTrace()
	whole := Analyze(tr)
	p, err := part.Run(tr, tr.Processes(), Method(tr))
	if err != nil {
		t.Fatal(err)
	}
	set := p.(*SegmentSet)
	if got := tr.RegionName(set.Function); got != whole.Function() {
		t.Fatalf("method segments by %s, Analyze by %s", got, whole.Function())
	}
	if tb := set.Table(); tb.NumRows() != 9 || !strings.Contains(set.String(), "3 processes: 9 segments") {
		t.Fatalf("segment set %s:\n%s", set, tb)
	}
	calls := CountCalls(tr.Processes())
	if ids, _ := calls.Table().Int32s("Region"); len(ids) != 7 || tr.RegionName(ids[0]) != "main" || !strings.Contains(calls.String(), "3 processes: 7 regions") {
		t.Fatalf("calls %s:\n%s", calls, calls.Table())
	}
	r := Summarize(tr, tr.Processes(), set.Function, set.Segments)
	if r.String() != whole.String() || len(r.SegmentList()) != len(whole.SegmentList()) {
		t.Fatalf("summarised partials:\n%s\nAnalyze:\n%s", r, whole)
	}
}

func TestMethodMismatches(t *testing.T) {
	tr := seedTrace()
	ps := tr.Processes()
	m := Method(tr)
	a, _ := m.Compute(tr, ps[:2], 0, nil)
	b, _ := m.Compute(tr, ps[1:], 0, nil)
	if err := a.Merge(b); err == nil || !strings.Contains(err.Error(), "in both partials") {
		t.Fatalf("merging counts of overlapping processes: %v", err)
	}
	d, err := m.Decide(0, a)
	if err != nil {
		t.Fatal(err)
	}
	s0, _ := m.Compute(tr, ps[:1], 1, d)
	other := Method(tr, WithFunction("calc"))
	d2, err := other.Decide(0, a)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := other.Compute(tr, ps[1:], 1, d2)
	if err := s0.Merge(s1); err == nil || !strings.Contains(err.Error(), "different functions") {
		t.Fatalf("merging segments of two functions: %v", err)
	}
	if _, err := m.Compute(tr, ps, 1, []byte{9}); err == nil {
		t.Fatal("a damaged decision was accepted")
	}
	if _, err := m.Compute(synth.Generate(synth.DefaultGenConfig()), nil, 0, nil); err == nil {
		t.Fatal("a method made for another trace's regions computed")
	}
	defer func() {
		var e *Error
		if err, ok := recover().(error); !ok || !errors.As(err, &e) || e.Func != "imbalance.Method" || !strings.Contains(e.Msg, `no region named "nope"`) {
			t.Errorf("Method with an unknown function: panic %v", err)
		}
	}()
	Method(tr, WithFunction("nope"))
}

// Decide picks as Analyze does, and says why when nothing qualifies.
func TestMethodDecide(t *testing.T) {
	tr := flatTrace(3, 1)
	m := Method(tr)
	c, _ := m.Compute(tr, tr.Processes(), 0, nil)
	if _, err := m.Decide(0, c); err == nil || !strings.Contains(err.Error(), "2p = 6") {
		t.Fatalf("Decide with no function invoked 2p times: %v", err)
	}
	tr = flatTrace(3, 4)
	m = Method(tr)
	c, _ = m.Compute(tr, tr.Processes(), 0, nil)
	d, err := m.Decide(0, c)
	if err != nil {
		t.Fatal(err)
	}
	dc, _ := decodeDecision(d)
	if got, want := tr.RegionName(dc.fn), Analyze(tr).Function(); got != want {
		t.Fatalf("Decide chose %s, Analyze %s", got, want)
	}
}

// Table is the result's main table, the iterations, in Title Case with units.
func TestResultTable(t *testing.T) {
	r := Analyze(seedTrace())
	tb := r.Table()
	if tb.NumRows() != len(r.IterationList()) || tb.String() != r.Iterations().String() {
		t.Fatalf("Table:\n%s\nIterations:\n%s", tb, r.Iterations())
	}
	for _, c := range []string{"Iteration", "Start (ns)", "Max SOS-time (ns)", "Culprit"} {
		if !strings.Contains(tb.String(), c) {
			t.Errorf("Table has no column %q:\n%s", c, tb)
		}
	}
}

// A nil option is ignored, as everywhere on the notebook surface.
func TestNilOptionIgnored(t *testing.T) {
	tr := seedTrace()
	if a, b := Analyze(tr, nil), Analyze(tr); a.String() != b.String() {
		t.Fatalf("with a nil option %s, without %s", a, b)
	}
}
