package msa

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
)

// The contract (random splits merged in random orders equal the whole) is
// checked by builtins/part's TestEveryRegisteredMethod; these tests check
// that the partial's classes are the merge's Stage 1 and its refusals.

func TestStage1ClassesAreTheMergesStage1(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		base := randomGroup(rng, 1+rng.IntN(4))
		var specs []string
		for range 2 + rng.IntN(30) {
			specs = append(specs, strings.Join(tokenize(base[rng.IntN(len(base))]), " "))
		}
		tr := treeTrace(t, specs, nil)
		p, err := Stage1Method().Compute(tr, tr.Processes(), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := p.(*Classes)
		m := Align(tr.Processes()...)
		if c.Len() != m.stage1 || c.Len() != len(uniq(specs)) {
			t.Fatalf("%q: %d classes, the merge's Stage 1 has %d, for %d distinct trees", specs, c.Len(), m.stage1, len(uniq(specs)))
		}
		for k := range c.Len() {
			var want []int
			for _, q := range m.classes[k].procs {
				want = append(want, m.procs[q].Index)
			}
			if got := c.Members(k); !slices.Equal(got, want) {
				t.Fatalf("%q: class %d holds %v, the merge's %v", specs, k, got, want)
			}
			for _, q := range want {
				if specs[q] != specs[want[0]] {
					t.Fatalf("%q: %d and %d grouped but differ", specs, q, want[0])
				}
			}
		}
	}
}

func TestStage1MergeRefusesOverlaps(t *testing.T) {
	tr := treeTrace(t, []string{"m(a b)", "m(a)", "m(a b)"}, nil)
	ps := tr.Processes()
	m := Stage1Method()
	a, _ := m.Compute(tr, ps[:2], 0, nil)
	b, _ := m.Compute(tr, ps[1:], 0, nil)
	var e *Error
	if err := a.Merge(b); !errors.As(err, &e) || !strings.Contains(err.Error(), "process 1 is in both") {
		t.Errorf("overlap: got %v", err)
	}
	if err := a.Merge((*Classes)(nil)); err == nil {
		t.Errorf("nil partial: no error")
	}
	c, _ := m.Compute(tr, ps[2:], 0, nil)
	if err := a.Merge(c); err != nil {
		t.Fatal(err)
	}
	cl := a.(*Classes)
	if got := cl.String(); got != "Stage 1: 3 processes in 2 classes of identical call trees" {
		t.Errorf("String = %q", got)
	}
	if got, err := cl.Table().Strings("Process Indexes"); err != nil || !slices.Equal(got, []string{"0, 2", "1"}) {
		t.Errorf("Process Indexes = %q", got)
	}
}

// Partials of single processes merge into the classes of the whole,
// whatever their order.
func TestStage1MergeOfSingles(t *testing.T) {
	tr := treeTrace(t, []string{"m(a b)", "m(b a)", "m(a b)"}, nil)
	ps := tr.Processes()
	m := Stage1Method()
	parts := make([]part.Partial, 3)
	for i := range parts {
		parts[i], _ = m.Compute(tr, []*trace.Process{ps[i]}, 0, nil)
	}
	for _, i := range []int{2, 1} {
		if err := parts[0].Merge(parts[i]); err != nil {
			t.Fatal(err)
		}
	}
	c := parts[0].(*Classes)
	if c.Len() != 2 || !slices.Equal(c.Members(0), []int{0, 2}) || !slices.Equal(c.Members(1), []int{1}) {
		t.Errorf("classes %v", c.Table())
	}
}
