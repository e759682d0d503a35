package trace

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The committed Score-P-shaped trace switches rank 1's measurement off at
// 300 us, on at 600 us (inside compute), and off for good at 950 us
// (otf2metrics.py); rank 0's main ends at 1000 us, the trace's end.
func TestMeasurementOffIntervals(t *testing.T) {
	tr := metricsTrace(t)
	if got := tr.Process(0).MeasurementOffIntervals(); len(got) != 0 {
		t.Errorf("rank 0: %v", got)
	}
	want := []OffInterval{{300_000, 600_000}, {950_000, 1_000_000}}
	if got := tr.Process(1).MeasurementOffIntervals(); !slices.Equal(got, want) {
		t.Errorf("rank 1: %v, want %v", got, want)
	}
	// a cut holds its source's intervals clipped to its range, also those begun before it
	for _, w := range []struct {
		a, b int64
		want []OffInterval
	}{
		{375_000, 600_001, []OffInterval{{375_000, 600_000}}},
		{200_000, 960_000, []OffInterval{{300_000, 600_000}, {950_000, 960_000}}},
		{610_000, 900_000, nil},
	} {
		got := tr.Window(time.Duration(w.a), time.Duration(w.b)).Process(1).MeasurementOffIntervals()
		if !slices.Equal(got, w.want) {
			t.Errorf("Window(%d, %d) rank 1: %v, want %v", w.a, w.b, got, w.want)
		}
	}
	if got := tr.Subset(1).Process(1).MeasurementOffIntervals(); !slices.Equal(got, want) {
		t.Errorf("Subset(1) rank 1: %v, want %v", got, want)
	}
	c := tr.KindCounts()
	if c[MeasurementOff] != 2 || c[MeasurementOn] != 1 {
		t.Errorf("kind counts %v", c)
	}
	if tr.Process(1).Skipped != 0 {
		t.Errorf("rank 1 skipped %d records", tr.Process(1).Skipped)
	}

	// shown in the summary and in the events table, kept through a round trip
	sum := tr.Summary()
	for _, w := range []string{"measurement off 2 intervals on 1 of 2 processes", "MeasurementOff", "MeasurementOn"} {
		if !strings.Contains(sum, w) {
			t.Errorf("Summary lacks %q:\n%s", w, sum)
		}
	}
	ev := tr.Events()
	defer ev.Release()
	names, err := ev.Strings(ColName)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, s := range names {
		n[s]++
	}
	if n["MeasurementOff"] != 2 || n["MeasurementOn"] != 1 {
		t.Errorf("Events: %d MeasurementOff, %d MeasurementOn rows", n["MeasurementOff"], n["MeasurementOn"])
	}
	back, err := FromTable(ev)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Process(1).MeasurementOffIntervals(); !slices.Equal(got, want) {
		t.Errorf("after Events/FromTable: %v, want %v", got, want)
	}

	// region times exclude the off time: compute [200, 800] holds MPI_Recv
	// [250, 290] and the off interval [300, 600]
	stats := map[string]RegionStat{}
	for _, s := range tr.Process(1).RegionStats() {
		stats[tr.RegionName(s.Region)] = s
	}
	for name, w := range map[string][2]int64{"main": {500_000, 200_000}, "compute": {300_000, 260_000}, "MPI_Recv": {40_000, 40_000}} {
		if s := stats[name]; s.Inclusive != w[0] || s.Exclusive != w[1] {
			t.Errorf("%s: inclusive %d exclusive %d, want %d %d", name, s.Inclusive, s.Exclusive, w[0], w[1])
		}
	}
	if s := stats["compute"]; s.Min != 300_000 || s.Max != 300_000 {
		t.Errorf("compute min/max %d %d", s.Min, s.Max)
	}
}

// Randomized against a brute force: random properly nested calls with
// random MeasurementOff/On events (repeats included); per region, the
// inclusive and exclusive times of RegionStats equal those summed over
// the segments between consecutive events, counting a segment for every
// open call (inclusive) and the innermost (exclusive) unless the
// measurement is off.
func TestMeasurementOffRegionStatsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 5))
	defs := &Definitions{Regions: []Region{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}}
	for round := range 300 {
		p := &Process{}
		var stack []int32
		tm := int64(0)
		for len(p.Kind) < 10+rng.IntN(60) || len(stack) > 0 {
			tm += int64(rng.IntN(5)) // equal times included
			var k EventKind
			ref := int32(-1)
			switch r := rng.IntN(10); {
			case r < 4 && len(p.Kind) < 60:
				k, ref = Enter, int32(rng.IntN(len(defs.Regions)))
				stack = append(stack, ref)
			case r < 8 && len(stack) > 0:
				k, ref = Leave, stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			case r == 8:
				k = MeasurementOff
			case r == 9:
				k = MeasurementOn
			default:
				continue
			}
			p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, tm), append(p.Ref, ref)
		}
		NewTrace(defs, []*Process{p})

		inc, exc := map[int32]int64{}, map[int32]int64{}
		off := false
		stack = stack[:0]
		for i, k := range p.Kind {
			if i > 0 && !off {
				dt := p.Time[i] - p.Time[i-1]
				for _, r := range stack { // recursive calls count again
					inc[r] += dt
				}
				if len(stack) > 0 {
					exc[stack[len(stack)-1]] += dt
				}
			}
			switch k {
			case Enter:
				stack = append(stack, p.Ref[i])
			case Leave:
				stack = stack[:len(stack)-1]
			case MeasurementOff:
				off = true
			case MeasurementOn:
				off = false
			}
		}
		got := p.RegionStats()
		for _, s := range got {
			if s.Inclusive != inc[s.Region] || s.Exclusive != exc[s.Region] {
				t.Fatalf("round %d region %d: inclusive %d exclusive %d, brute force %d %d\nkinds %v\ntimes %v\nrefs %v",
					round, s.Region, s.Inclusive, s.Exclusive, inc[s.Region], exc[s.Region], p.Kind, p.Time, p.Ref)
			}
			delete(inc, s.Region)
		}
		for r, v := range inc {
			if v != 0 {
				t.Fatalf("round %d: region %d has %d ns but no stat", round, r, v)
			}
		}
	}
}
