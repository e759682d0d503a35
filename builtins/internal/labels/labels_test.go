package labels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// run returns a trace of the given (rank, thread) locations.
func run(path string, places ...[2]int32) *trace.Trace {
	var ps []*trace.Process
	for _, pl := range places {
		ps = append(ps, &trace.Process{Rank: pl[0], Thread: pl[1]})
	}
	t := trace.NewTrace(nil, ps)
	t.Path = path
	return t
}

func ranks(n int) [][2]int32 {
	out := make([][2]int32, n)
	for i := range out {
		out[i] = [2]int32{int32(i), 0}
	}
	return out
}

func TestExactRanges(t *testing.T) {
	tr := run("", ranks(64)...)
	r := NewRuns(tr.Processes())
	pick := func(idx ...int) []*trace.Process {
		var out []*trace.Process
		for _, i := range idx {
			out = append(out, tr.Process(i))
		}
		return out
	}
	if got := r.Of(pick(0, 2, 4), 0); got != "rank 0, rank 2, rank 4" {
		t.Errorf("ranks 0, 2, 4: %q", got)
	}
	var most []int
	for i := 1; i < 64; i++ {
		if i != 16 {
			most = append(most, i)
		}
	}
	if got := r.Of(pick(most...), 0); got != "rank 1 … rank 15, rank 17 … rank 63" {
		t.Errorf("62 ranks without 16: %q", got)
	}
	if got := r.Of(pick(5, 3, 4), 0); got != "rank 3 … rank 5" {
		t.Errorf("out of order: %q", got)
	}
	if got := r.Of(pick(0, 2, 4, 6, 8, 10), 20); got != "rank 0, rank 2, … (4 more)" {
		t.Errorf("limited: %q", got)
	}
}

func TestThreadsAndRuns(t *testing.T) {
	hy := run("", [2]int32{0, 0}, [2]int32{0, 1}, [2]int32{1, 0}, [2]int32{1, 1}, [2]int32{2, 1})
	r := NewRuns(hy.Processes())
	if got := r.Of(hy.Processes(), 0); got != "rank 0, rank 1, rank 0 thread 1 … rank 2 thread 1" {
		t.Errorf("hybrid: %q", got)
	}
	a := run("runs/v1/traces.otf2", ranks(4)...)
	b := run("runs/v2/traces.otf2", ranks(4)...)
	ps := []*trace.Process{b.Process(0), a.Process(1), a.Process(2), b.Process(1), a.Process(0)}
	r = NewRuns(ps)
	if got := r.Of(ps, 0); got != "v1: rank 0 … rank 2; v2: rank 0, rank 1" {
		t.Errorf("two runs: %q", got)
	}
	if r.Label(b.Process(3)) != "v2: rank 3" || r.Label(a.Process(3)) != "v1: rank 3" {
		t.Errorf("labels %q %q", r.Label(b.Process(3)), r.Label(a.Process(3)))
	}
	// Unnamed runs and runs of one name are numbered, in a stable order.
	c := run("", ranks(3)...)
	d := run("", ranks(2)...)
	for _, ps := range [][]*trace.Process{{c.Process(0), d.Process(0)}, {d.Process(0), c.Process(0)}} {
		r := NewRuns(ps)
		if r.Name(d) != "run 1" || r.Name(c) != "run 2" || r.Label(c.Process(0)) != "run 2: rank 0" {
			t.Errorf("unnamed runs: %q %q", r.Name(c), r.Name(d))
		}
	}
	e := run("x/v1.parquet", ranks(2)...)
	r = NewRuns([]*trace.Process{a.Process(0), e.Process(0)})
	if r.Name(e) != "v1 (1)" || r.Name(a) != "v1 (2)" {
		t.Errorf("same name: %q %q", r.Name(e), r.Name(a))
	}
	if r := NewRuns(a.Processes()); r.Multi() || r.Label(a.Process(1)) != "rank 1" {
		t.Errorf("one run: %q", r.Label(a.Process(1)))
	}
}

// parse reads a printed list back into labels (run prefix included).
func parse(t *testing.T, s string) []string {
	var out []string
	for _, runPart := range strings.Split(s, "; ") {
		prefix := ""
		if i := strings.Index(runPart, ": "); i >= 0 {
			prefix, runPart = runPart[:i+2], runPart[i+2:]
		}
		for _, part := range strings.Split(runPart, ", ") {
			lo, hi, ok := strings.Cut(part, " … ")
			if !ok {
				out = append(out, prefix+part)
				continue
			}
			lf, hf := strings.Fields(lo), strings.Fields(hi)
			if len(lf) != len(hf) || lf[0] != hf[0] || len(lf) == 4 && lf[3] != hf[3] {
				t.Fatalf("range %q mixes kinds or threads", part)
			}
			a, _ := strconv.Atoi(lf[1])
			b, _ := strconv.Atoi(hf[1])
			if a >= b {
				t.Fatalf("range %q is not increasing", part)
			}
			for k := a; k <= b; k++ {
				f := slices.Clone(lf)
				f[1] = strconv.Itoa(k)
				out = append(out, prefix+strings.Join(f, " "))
			}
		}
	}
	slices.Sort(out)
	return out
}

// Random subsets of random hybrid runs print back to exactly their labels.
func TestListOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for trial := range 2000 {
		var traces []*trace.Trace
		for k := range 1 + rng.IntN(3) {
			var places [][2]int32
			nr, nt := 1+rng.IntN(12), 1+rng.IntN(3)
			for rk := range nr {
				for th := range nt {
					places = append(places, [2]int32{int32(rk), int32(th)})
				}
			}
			traces = append(traces, run(fmt.Sprintf("r%d.csv", k), places...))
		}
		var ps []*trace.Process
		for _, tr := range traces {
			for _, p := range tr.Processes() {
				if rng.IntN(3) > 0 {
					ps = append(ps, p)
				}
			}
		}
		if len(ps) == 0 {
			continue
		}
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		r := NewRuns(ps)
		var want []string
		for _, p := range ps {
			want = append(want, r.Label(p))
		}
		slices.Sort(want)
		if got := parse(t, r.Of(ps, 0)); !slices.Equal(got, want) {
			t.Fatalf("trial %d: %q reads back as\n%q, want\n%q", trial, r.Of(ps, 0), got, want)
		}
	}
}

// Order sorts by (run, kind, thread, rank) whatever the input order.
func TestOrder(t *testing.T) {
	a := run("b.csv", [2]int32{1, 0}, [2]int32{0, 1}, [2]int32{0, 0})
	b := run("a.csv", [2]int32{0, 0})
	ps := []*trace.Process{a.Process(0), a.Process(1), b.Process(0), a.Process(2)}
	r := NewRuns(ps)
	var got []string
	for _, i := range r.Order(ps) {
		got = append(got, r.Label(ps[i]))
	}
	if want := []string{"a: rank 0", "b: rank 0", "b: rank 1", "b: rank 0 thread 1"}; !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
	for i := range ps {
		for j := range ps {
			if c := r.Compare(ps[i], ps[j]); (c == 0) != (i == j) {
				t.Errorf("Compare(%d, %d) = %d", i, j, c)
			}
		}
	}
}

// A bounded list fed in Order's order prints what the full list prints.
func TestBoundedList(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	for range 2000 {
		var places [][2]int32
		for rk := range 1 + rng.IntN(60) {
			for th := range 1 + rng.IntN(2) {
				if rng.IntN(3) > 0 {
					places = append(places, [2]int32{int32(rk), int32(th)})
				}
			}
		}
		if len(places) == 0 {
			continue
		}
		ps := run("", places...).Processes()
		r := NewRuns(ps)
		limit := 1 + rng.IntN(100)
		full, bounded := r.NewList(), r.NewListUpTo(limit)
		for _, i := range r.Order(ps) {
			full.Add(ps[i])
			bounded.Add(ps[i])
		}
		if a, b := full.String(limit), bounded.String(limit); a != b {
			t.Fatalf("limit %d: bounded %q, full %q", limit, b, a)
		}
		// Printed without a limit, a bounded list still accounts for every
		// process: the ranges shown plus "… (k more)".
		s := bounded.String(0)
		more := 0
		if i := strings.Index(s, ", … ("); i >= 0 {
			fmt.Sscanf(s[i:], ", … (%d more)", &more)
			s = s[:i]
		}
		if got := len(parse(t, s)) + more; got != len(ps) {
			t.Fatalf("unlimited print of a bounded list %q accounts for %d of %d processes", bounded.String(0), got, len(ps))
		}
	}
}
