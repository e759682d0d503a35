package part_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

// eventCounts is a toy two-round method for the suite's own tests: round 0
// counts the events of each process; Decide picks the largest count; round
// 1 counts the processes with at least half of it.
type eventCounts struct{ broken bool }

func (m eventCounts) Name() string {
	if m.broken {
		return "parttest.broken"
	}
	return "parttest.events"
}
func (eventCounts) Params() []byte { return []byte{1} }
func (eventCounts) Rounds() int    { return 2 }

type counts struct {
	broken bool
	n      map[int]int64 // process index -> events (round 0) or 0/1 (round 1)
}

func (c *counts) Merge(o part.Partial) error {
	oc, ok := o.(*counts)
	if !ok {
		return part.Mismatch("parttest.events", c, o)
	}
	for k, v := range oc.n {
		if _, dup := c.n[k]; dup {
			return fmt.Errorf("process %d in both partials", k)
		}
		if c.broken && len(c.n) > 0 {
			continue // drops data: not the partial of the union
		}
		c.n[k] = v
	}
	return nil
}

func (c *counts) MarshalBinary() ([]byte, error) {
	var e part.Enc
	e.Uint(1)
	keys := slices.Sorted(func(yield func(int) bool) {
		for k := range c.n {
			if !yield(k) {
				return
			}
		}
	})
	e.Uint(uint64(len(keys)))
	for _, k := range keys {
		e.Uint(uint64(k))
		e.Int(c.n[k])
	}
	return e.B, nil
}

func (m eventCounts) Decode(round int, b []byte) (part.Partial, error) {
	d := part.NewDec(b)
	d.Version("counts", 1)
	n := d.Len(2)
	c := &counts{broken: m.broken, n: map[int]int64{}}
	for range n {
		k := d.Uint()
		c.n[int(k)] = d.Int()
	}
	return c, d.Done()
}

func (m eventCounts) Compute(tr *trace.Trace, procs []*trace.Process, round int, decision []byte) (part.Partial, error) {
	c := &counts{broken: m.broken, n: map[int]int64{}}
	var limit int64
	if round == 1 {
		d := part.NewDec(decision)
		limit = d.Int()
		if err := d.Done(); err != nil {
			return nil, err
		}
	}
	for _, p := range procs {
		n := int64(len(p.Time))
		if round == 1 {
			n = 0
			if 2*int64(len(p.Time)) >= limit {
				n = 1
			}
		}
		c.n[p.Index] = n
	}
	return c, nil
}

func (eventCounts) Decide(round int, merged part.Partial) ([]byte, error) {
	var top int64
	for _, v := range merged.(*counts).n {
		top = max(top, v)
	}
	var e part.Enc
	e.Int(top)
	return e.B, nil
}

func init() {
	part.Register("parttest.events", func([]byte) (part.Method, error) { return eventCounts{}, nil }, nil)
	part.Register("parttest.broken", func([]byte) (part.Method, error) { return eventCounts{broken: true}, nil }, nil)
}

func smallTrace(t *testing.T) *trace.Trace {
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 12, 3
	return synth.Generate(cfg)
}

func TestSuitePassesACorrectMethod(t *testing.T) {
	parttest.Check(t, smallTrace(t), eventCounts{}, parttest.Config{})
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.msgs = append(r.msgs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(f, a...))
	panic(r)
}

func TestSuiteCatchesALossyMerge(t *testing.T) {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if v := recover(); v != nil && v != any(r) {
				panic(v)
			}
		}()
		parttest.Check(r, smallTrace(t), eventCounts{broken: true}, parttest.Config{})
	}()
	if len(r.msgs) == 0 || !strings.Contains(strings.Join(r.msgs, "\n"), "differ from the whole") {
		t.Fatalf("the suite did not catch a merge that drops data; reported: %q", r.msgs)
	}
}

func TestRunEqualsOneSubset(t *testing.T) {
	tr := smallTrace(t)
	got, err := part.Run(tr, tr.Processes(), eventCounts{})
	if err != nil {
		t.Fatal(err)
	}
	m := eventCounts{}
	p0, _ := m.Compute(tr, tr.Processes(), 0, nil)
	d, _ := m.Decide(0, p0)
	want, _ := m.Compute(tr, tr.Processes(), 1, d)
	a, _ := got.MarshalBinary()
	b, _ := want.MarshalBinary()
	if string(a) != string(b) {
		t.Fatal("Run differs from the rounds computed over all processes at once")
	}
}

func TestDecodeRefusesOtherFrames(t *testing.T) {
	tr := smallTrace(t)
	m := eventCounts{}
	p, _ := m.Compute(tr, tr.Processes(), 0, nil)
	b, err := part.Encode(m, 0, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		m     part.Method
		round int
		b     []byte
		want  string
	}{
		{"other round", m, 1, b, "round 0"},
		{"other method", eventCounts{broken: true}, 0, b, `method "parttest.events"`},
		{"not a frame", m, 0, []byte("hello, world"), "not an encoded partial"},
		{"truncated", m, 0, b[:len(b)-3], "checksum"},
	} {
		_, err := part.Decode(c.m, c.round, c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Decode error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	if _, err := part.Lookup("no.such", nil); err == nil || !strings.Contains(err.Error(), "no.such") {
		t.Fatalf("Lookup of an unknown name: %v", err)
	}
}

func TestDecVersion(t *testing.T) {
	var e part.Enc
	e.Uint(3)
	e.Int(7)
	d := part.NewDec(e.B)
	d.Version("Comm", 1)
	if got := d.Int(); got != 0 {
		t.Errorf("a read after a failed version check gave %d, want 0", got)
	}
	if err := d.Done(); err == nil || err.Error() != "offset 1: Comm layout version 3, this build reads 1" {
		t.Errorf("Done after a wrong version: %v", err)
	}
	d = part.NewDec(e.B[:1])
	d.Version("Comm", 3)
	if err := d.Done(); err != nil {
		t.Errorf("the right version: %v", err)
	}
}
