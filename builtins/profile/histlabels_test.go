package profile

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/plotting/plottest"
)

// Issue 32: a histogram of one size in ten bins was labelled "[262144, 262144)" ten times.
func TestHistogramLabelsDistinct(t *testing.T) {
	h := MessageHistogram(sendsTrace([]int64{262144, 262144, 262144}), 10)
	got := plottest.Texts(t, h.Plot())
	if !slices.Contains(got, "256 KiB") {
		t.Errorf("no bar labelled 256 KiB: %q", got)
	}
	for _, s := range got {
		if strings.Contains(s, "262144") || strings.Contains(s, "262,144") && strings.HasPrefix(s, "[") {
			t.Errorf("bar label %q in bytes with no unit", s)
		}
	}
	if s := h.String(); !strings.Contains(s, "fullest bin 256 KiB: 3 sends") {
		t.Errorf("headline %q", s)
	}
	h = MessageHistogram(sendsTrace([]int64{0, 1 << 20, 3 << 20, 5 << 20}), 5)
	var bars []string
	for _, s := range plottest.Texts(t, h.Plot()) {
		if strings.HasPrefix(s, "[") {
			bars = append(bars, s)
		}
	}
	// The last bin is closed: it holds 5 MiB.
	want := []string{"[0 B, 1 MiB)", "[1 MiB, 2 MiB)", "[2 MiB, 3 MiB)", "[3 MiB, 4 MiB)", "[4 MiB, 5 MiB]"}
	if !slices.Equal(bars, want) {
		t.Errorf("bars %q, want %q", bars, want)
	}
}

// On random sizes: the sizes each bin is said to hold are exactly the sizes counted in it
// (brute force), and the labels of bins that hold sizes are distinct.
func TestHistogramSizeBinsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 4))
	for it := 0; it < 300; it++ {
		n := 1 + r.IntN(50)
		lo := r.Int64N(1 << uint(r.IntN(40)+1))
		span := 1 + r.Int64N(1<<uint(r.IntN(30)+1))
		if r.IntN(4) == 0 {
			span = 1 + r.Int64N(20)
		}
		sizes := make([]int64, n)
		for i := range sizes {
			sizes[i] = lo + r.Int64N(span)
		}
		bins := 1 + r.IntN(40)
		h := MessageHistogram(sendsTrace(sizes), bins)
		classes := h.sizeBins()
		counts := make([]int64, bins)
		for _, s := range sizes {
			k := -1
			for i, c := range classes {
				if s >= c.lo && s < c.hi {
					if k >= 0 {
						t.Fatalf("%d in bins %d and %d", s, k, i)
					}
					k = i
				}
			}
			if k < 0 {
				t.Fatalf("%d in no bin of %+v", s, classes)
			}
			counts[k]++
		}
		if !slices.Equal(counts, h.Counts) {
			t.Fatalf("sizes %v in %d bins: classes count %v, histogram %v", sizes, bins, counts, h.Counts)
		}
		seen := map[string]bool{}
		for _, c := range classes {
			if c.hi > c.lo {
				if seen[c.label] {
					t.Fatalf("label %q twice in %+v", c.label, classes)
				}
				seen[c.label] = true
			}
		}
	}
}
