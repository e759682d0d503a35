package arrowio

import (
	"strings"
	"testing"
)

func TestCheckColumnName(t *testing.T) {
	cases := []struct {
		name, unit string
		bad        string // a word of the error, "" when the name is good
	}{
		{"Rank", "", ""},
		{"Process Name", "", ""},
		{"Time in Function (ns)", "ns", ""},
		{"Bytes (B)", "B", ""},
		{"Compute Change (%)", "%", ""},
		{"Time A (ns)", "ns", ""},
		{"Max |Deviation| (ns)", "ns", ""},
		{"Δ+ (ns)", "ns", ""},
		{"No. + vs −", "", ""},
		{"P50 A (ns)", "ns", ""},
		{"2nd Call", "", ""},
		{"SOS-time (ns)", "ns", ""},
		{"position", "", "capitalised"},
		{"time_a_ns", "", "underscores"},
		{"Time_A", "", "underscores"},
		{"Time A (ns)", "", "none in its metadata"},
		{"Time A", "ns", "not at the end"},
		{"Time A (ms)", "ns", `"ns" in its metadata`},
		{"Time A (nanoseconds)", "", "not one of"},
		{"Time (A) B", "", "parentheses"},
		{"Time (A) (ns)", "ns", "parentheses"},
		{"Time  A", "", "spaces"},
		{" Time", "", "spaces"},
		{"(ns)", "ns", "parenthesis"},
		{"in Function", "", "capitalised"},
		{"Time p50", "", `"P50"`},
		{"Bytes sent", "", `"Sent"`},
	}
	for _, c := range cases {
		err := checkColumnName(c.name, c.unit)
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%q (unit %q): %v", c.name, c.unit, err)
		case c.bad != "" && err == nil:
			t.Errorf("%q (unit %q): no error, want one about %s", c.name, c.unit, c.bad)
		case c.bad != "" && !strings.Contains(err.Error(), c.bad):
			t.Errorf("%q (unit %q): %v, want one about %s", c.name, c.unit, err, c.bad)
		}
	}
}

func TestCheckColumnNames(t *testing.T) {
	good := MustTable(Int32("Rank", []int32{1}), Int64("Enter (ns)", []int64{5}),
		Int64("Duration (ns)", []int64{2}).WithUnit("ns"), Float64("Similarity", []float64{0.5}))
	if err := CheckColumnNames(good, "Enter (ns)"); err != nil {
		t.Errorf("good table: %v", err)
	}
	// without the time point declared, its "(ns)" needs the unit
	err := CheckColumnNames(good)
	if err == nil || !strings.Contains(err.Error(), `"Enter (ns)"`) {
		t.Errorf("undeclared time point: %v", err)
	}
	bad := MustTable(Int32("rank", []int32{1}), Int64("Enter (ns)", []int64{5}).WithUnit("ns"),
		Int64("Duration", []int64{2}).WithUnit("ns"), Int64("Leave", []int64{2}))
	err = CheckColumnNames(bad, "Enter (ns)", "Leave", "Missing")
	if err == nil {
		t.Fatal("bad table: no error")
	}
	for _, want := range []string{`column "rank"`, `column "Enter (ns)": a time point with the unit`,
		`column "Duration": the unit "ns"`, `column "Leave": a time point not named`, `time point "Missing" is not a column`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("bad table: %v\nwant a line with %s", err, want)
		}
	}
}

func TestTitleCase(t *testing.T) {
	for in, want := range map[string]string{"late sender": "Late Sender", "wait at N×N": "Wait at N×N",
		"at the end": "At the End", "n×n completion": "N×n Completion", "": ""} {
		if got := TitleCase(in); got != want {
			t.Errorf("TitleCase(%q) = %q, want %q", in, got, want)
		}
		if in != "" {
			if err := checkColumnName(TitleCase(in), ""); err != nil {
				t.Errorf("TitleCase(%q) = %q: %v", in, TitleCase(in), err)
			}
		}
	}
}
