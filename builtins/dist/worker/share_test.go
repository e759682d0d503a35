package worker

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// checkSplit checks the blocks splitBalanced gives: n of them, contiguous,
// covering every position in order, none empty when there are at least n
// weights, and none heavier than total/n plus the heaviest weight.
func checkSplit(t *testing.T, weights []int64, n int) {
	t.Helper()
	blocks := splitBalanced(weights, n)
	if len(blocks) != n {
		t.Fatalf("%v into %d: %d blocks", weights, n, len(blocks))
	}
	var total, heaviest int64
	for _, w := range weights {
		total += w
		heaviest = max(heaviest, w)
	}
	next := 0
	for r, b := range blocks {
		if b[0] != next || b[1] < b[0] {
			t.Fatalf("%v into %d: block %d is %v after position %d", weights, n, r, b, next)
		}
		next = b[1]
		if len(weights) >= n && b[1] == b[0] {
			t.Fatalf("%v into %d: block %d is empty: %v", weights, n, r, blocks)
		}
		var load int64
		for _, w := range weights[b[0]:b[1]] {
			load += w
		}
		if float64(load) > float64(total)/float64(n)+float64(heaviest) {
			t.Fatalf("%v into %d: block %d %v weighs %d > total/n + heaviest = %g", weights, n, r, b, load, float64(total)/float64(n)+float64(heaviest))
		}
	}
	if next != len(weights) {
		t.Fatalf("%v into %d: blocks end at %d of %d", weights, n, next, len(weights))
	}
}

func TestSplitBalanced(t *testing.T) {
	for _, c := range []struct {
		weights []int64
		n       int
		want    [][2]int
	}{
		{[]int64{1, 1, 1, 1}, 2, [][2]int{{0, 2}, {2, 4}}},
		{[]int64{1, 1, 1, 1, 1, 1}, 4, nil},
		{[]int64{10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 2, [][2]int{{0, 1}, {1, 11}}},
		{[]int64{1, 1, 1, 100}, 2, [][2]int{{0, 3}, {3, 4}}},
		{[]int64{100, 1, 1, 1}, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}}},
		{[]int64{5, 5}, 4, [][2]int{{0, 1}, {1, 1}, {1, 2}, {2, 2}}},
		{nil, 3, [][2]int{{0, 0}, {0, 0}, {0, 0}}},
	} {
		checkSplit(t, c.weights, c.n)
		if got := splitBalanced(c.weights, c.n); c.want != nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitBalanced(%v, %d) = %v, want %v", c.weights, c.n, got, c.want)
		}
	}
	// equal weights: block sizes differ by at most one
	for m := 1; m < 40; m++ {
		for n := 1; n <= m; n++ {
			w := make([]int64, m)
			for i := range w {
				w[i] = 3
			}
			lo, hi := m, 0
			for _, b := range splitBalanced(w, n) {
				lo, hi = min(lo, b[1]-b[0]), max(hi, b[1]-b[0])
			}
			if hi-lo > 1 {
				t.Fatalf("%d equal weights into %d: sizes from %d to %d", m, n, lo, hi)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		w := make([]int64, rng.IntN(30))
		for i := range w {
			w[i] = 1 + rng.Int64N(1+rng.Int64N(1000))
		}
		checkSplit(t, w, 1+rng.IntN(12))
	}
}

// pingPong is a real Score-P trace of the repository.
const pingPong = "../../../test/data/traces/ping-pong-otf2/traces.otf2"

// TestShares splits a real trace, read without its events as the ranks of
// convert read it, and checks the shares against the events a full load
// counts: every process once, in order, and no rank reading more than the
// total/n plus the largest location.
func TestShares(t *testing.T) {
	skel, err := trace.Load(pingPong, trace.WithoutEvents())
	if err != nil {
		t.Fatal(err)
	}
	full, err := trace.Load(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	events := map[int]int64{}
	var total, largest int64
	for _, p := range full.Processes() {
		events[p.Index] = int64(p.Len())
		total += int64(p.Len())
		largest = max(largest, int64(p.Len()))
	}
	for n := 1; n <= skel.NumProcesses()+2; n++ {
		got := Shares(skel, n)
		if !reflect.DeepEqual(got, Shares(full, n)) {
			t.Fatalf("n=%d: shares of the skeleton %v and of the full trace %v differ", n, got, Shares(full, n))
		}
		var all []int
		for r, s := range got {
			all = append(all, s...)
			var load int64
			for _, i := range s {
				load += events[i]
			}
			if float64(load) > float64(total)/float64(n)+float64(largest)+float64(len(s)) {
				t.Errorf("n=%d: rank %d reads %d of %d events (shares %v)", n, r, load, total, got)
			}
			if len(s) == 0 && n <= skel.NumProcesses() {
				t.Errorf("n=%d: rank %d has no process", n, r)
			}
		}
		var want []int
		for _, p := range full.Processes() {
			want = append(want, p.Index)
		}
		if !reflect.DeepEqual(all, want) {
			t.Fatalf("Shares(%d) = %v: not the processes in order %v", n, got, want)
		}
	}
}
