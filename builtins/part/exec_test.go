package part_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

func TestFetchFromADistributedTrace(t *testing.T) {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 7, 3
	tr := synth.Generate(cfg)
	sk := parttest.Distribute(tr, 3)
	if !part.Remote(sk) || part.Remote(tr) {
		t.Fatal("Remote: the skeleton has an executor, the trace none")
	}
	p5 := sk.Process(5)
	var err error
	func() {
		defer func() { err, _ = recover().(error) }()
		p5.CallTree()
	}()
	var te *trace.Error
	if !errors.As(err, &te) {
		t.Fatalf("CallTree of a remote process: %v, want a *trace.Error", err)
	}
	if err := part.Fetch(sk, []*trace.Process{sk.Process(0), p5}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 5} {
		a, b := tr.Process(i), sk.Process(i)
		if b.Remote() || !slices.Equal(a.Kind, b.Kind) || !slices.Equal(a.Time, b.Time) || !slices.Equal(a.Ref, b.Ref) ||
			!slices.Equal(a.Msgs.Bytes, b.Msgs.Bytes) || !slices.Equal(a.Colls.Op, b.Colls.Op) {
			t.Errorf("process %d: fetched events differ", i)
		}
	}
	if !sk.Process(1).Remote() {
		t.Error("process 1 was not asked for and holds events")
	}
}
