package compare

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
	"github.com/tracebook/tracebook/builtins/trace/tracetest"
	"github.com/tracebook/tracebook/builtins/work"
)

// surfaceRuns are two generated runs of different sizes and code versions, B with a slow
// rank, named v1 and v2: every view has rows of every kind.
func surfaceRuns() (a, b *trace.Trace) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 8, 3
	a = synth.Generate(cfg)
	cfg.Ranks, cfg.Version, cfg.SlowRank = 16, 1, 3
	b = synth.Generate(cfg)
	a.SetName("v1")
	b.SetName("v2")
	return a, b
}

// Every table follows the notebook vocabulary (docs/surface.md): Title Case names, durations
// with their unit in the name and the metadata, time points (Where's Enter A and B) named
// "(ns)" without a unit.
func TestTableColumnNames(t *testing.T) {
	a, b := surfaceRuns()
	r := Runs(a, b)
	cases := []struct {
		name   string
		table  *arrowio.Table
		points []string
	}{
		{"Functions", r.Functions(), nil},
		{"Groups", r.Groups(), nil},
		{"Tree", r.Tree(), nil},
		{"Comm", r.Comm(), nil},
		{"Where", r.Where(), []string{"Enter A (ns)", "Enter B (ns)"}},
		{"Table", r.Table(), nil},
	}
	for _, c := range cases {
		if c.table.NumRows() == 0 {
			t.Errorf("%s: no rows", c.name)
		}
		if err := arrowio.CheckColumnNames(c.table, c.points...); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if na, nb := r.Names(); na != "v1" || nb != "v2" {
		t.Errorf("names %q, %q", na, nb)
	}
	// Where's rows are calls of the same function in the two representatives (the runs'
	// region ids differ: version 1 defines other kernels)
	byLabel := func(tr *trace.Trace, label string) *trace.Process {
		for _, p := range tr.Processes() {
			if p.Label() == label {
				return p
			}
		}
		t.Fatalf("no process %q", label)
		return nil
	}
	for _, w := range r.WhereRows() {
		if w.Change != w.Exclusive[1]-w.Exclusive[0] || w.Occurrence[0] < 1 || w.Occurrence[1] < 1 {
			t.Errorf("Where row %+v", w)
		}
		for k, tr := range []*trace.Trace{a, b} {
			p := byLabel(tr, w.Process[k])
			ct := p.CallTree()
			found := false
			for i := 1; i < ct.Len(); i++ {
				if ct.Enter[i] == w.Enter[k] && ct.Inclusive(i) == w.Time[k] && ct.Exclusive(i) == w.Exclusive[k] {
					found = found || p.RegionName(ct.Region[i]) == w.Function
				}
			}
			if !found {
				t.Errorf("Where row %+v: no call of %s at %d in %s", w, w.Function, w.Enter[k], w.Process[k])
			}
		}
	}
	h := r.MIMEBundle()["text/html"].(string)
	first, _, _ := strings.Cut(r.Headline(), "\n")
	for _, want := range []string{first, `<img src="data:image/png;base64,`} {
		if !strings.Contains(h, want) {
			t.Errorf("display lacks %.80s", want)
		}
	}
	if s := r.String(); !strings.HasPrefix(s, r.Headline()) {
		t.Errorf("String does not start with the headline:\n%s", s)
	}
}

// Runs of no common structure, an empty run and processes without events: every view and
// the display still work, and every process is accounted for.
func TestEdgeRuns(t *testing.T) {
	a := handRun(4, withRank0(baseSpec))
	empty := handRun(0, baseSpec)
	silent := tracetest.Trace(regionNames, &trace.Process{}, &trace.Process{}) // no events
	other := handRun(3, func(int) rankSpec { return rankSpec{loops: 1, compute: 5, mainExtra: []node{{"halo", 3, nil}}} })
	for name, b := range map[string]*trace.Trace{"empty": empty, "silent": silent, "other": other} {
		for _, pair := range [][2]*trace.Trace{{a, b}, {b, a}, {b, b}} {
			t.Run(name, func(t *testing.T) {
				r := Runs(pair[0], pair[1])
				checkAccounting(t, r, pair[0], pair[1], [2]int{})
				for _, tb := range []*arrowio.Table{r.Functions(), r.Groups(), r.Tree(), r.Comm(), r.Where()} {
					_ = tb.NumRows()
				}
				r.MIMEBundle()
				_ = r.String()
			})
		}
	}
}

// The per-process part honours the partial contract on random traces (repaired call trees,
// messages) as on the generated ones builtins/part checks.
func TestSummaryContract(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		tr := randomRun(rng, 3+rng.IntN(12), 80, seed%2 == 0)
		parttest.Check(t, tr, SummaryMethod(), parttest.Config{Seed: seed + 1})
	}
}

// wantError runs f and checks that it panics with an *Error of fn.
func wantError(t *testing.T, fn string, f func()) *Error {
	t.Helper()
	var got *Error
	func() {
		defer func() {
			v := recover()
			err, _ := v.(error)
			if !errors.As(err, &got) {
				t.Errorf("%s: panicked with %#v, want an *Error", fn, v)
			}
		}()
		f()
	}()
	if got != nil && got.Func != fn {
		t.Errorf("error of %q (%v), want %q", got.Func, got, fn)
	}
	return got
}

func TestBadArguments(t *testing.T) {
	a, b := handRun(4, baseSpec), handRun(8, baseSpec)
	wantError(t, "compare.Runs", func() { Runs(nil, b) })
	wantError(t, "compare.Runs", func() { Runs(a, nil) })
	wantError(t, "compare.WithSigma", func() { WithSigma(2) })
	wantError(t, "compare.WithSigma", func() { WithSigma(-0.1) })
	wantError(t, "compare.WithSigma", func() { WithSigma(math.NaN()) })
	wantError(t, "compare.WithTop", func() { WithTop(0) })
	wantError(t, "compare.WithMapping", func() { WithMapping(nil) })
	stranger := handRun(2, baseSpec)
	wantError(t, "compare.Runs", func() { Runs(a, b, WithProcesses(stranger.Process(1))) })
	wantError(t, "compare.Runs", func() { Runs(a, b, WithProcesses(nil)) })
	r := Runs(a, b)
	wantError(t, "compare.Result.Group", func() { r.Group(r.NumGroups()) })
	wantError(t, "compare.Result.State", func() { r.State(-1) })
	// the edges of the valid range are valid
	for _, o := range []Option{WithSigma(0), WithSigma(1), WithTop(1), nil} {
		Runs(a, b, o)
	}
}

// A cancelled cell stops Runs with work.ErrInterrupted inside an *Error of compare.Runs; the
// next call runs normally.
func TestInterrupted(t *testing.T) {
	a, b := surfaceRuns()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	work.SetContext(ctx)
	e := func() *Error {
		defer work.SetContext(context.Background())
		return wantError(t, "compare.Runs", func() { Runs(a, b) })
	}()
	if e == nil || !errors.Is(e, work.ErrInterrupted) {
		t.Errorf("interrupted Runs: %v, want work.ErrInterrupted", e)
	}
	if r := Runs(a, b); r.NumGroups() == 0 {
		t.Error("after the interrupt: no groups")
	}
}
