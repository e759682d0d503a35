package fold

import (
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Hierarchical folding (6.1.3) under the per-process contract (builtins/part): the method
// "fold.counts" computes the Counts of a subset of the streams on one pixel grid, and Counts
// of disjoint subsets merge exactly (Counts.Merge); any Op then selects from the merged
// counts.
func init() {
	part.Register(countsName, buildCounts, sampleCounts)
}

const countsName = "fold.counts"

// countsMethod is "fold.counts" with its grid fixed.
type countsMethod struct {
	t0, t1 int64
	width  int
	byTime bool
}

// CountsMethod returns the method of the per-process contract (part.Method, registered as
// "fold.counts") whose partial over a subset of the processes is their *Counts on width pixels
// over [t0, t1) ns: sampled at each pixel's start (Index.Counts), or by time share with the
// busy time Idle needs (Index.CountsByTime). Counts merge exactly, so a fold of many machines'
// streams is Select(op) of the merged partial. A bad grid panics with an *Error.
//
//	c, _ := part.Run(tr, tr.Processes(), fold.CountsMethod(t0, t1, 1600, false))
//	states := c.(*fold.Counts).Select(fold.Max)
func CountsMethod(t0, t1 int64, width int, byTime bool) part.Method {
	checkGrid("fold.CountsMethod", t0, t1, width)
	return &countsMethod{t0, t1, width, byTime}
}

func (m *countsMethod) Name() string { return countsName }
func (m *countsMethod) Rounds() int  { return 1 }

const countsParamsVersion = 1

// Params encodes the grid: t0, t1, width and whether states go by time share.
func (m *countsMethod) Params() []byte {
	var e part.Enc
	e.Uint(countsParamsVersion)
	e.Int(m.t0)
	e.Int(m.t1)
	e.Uint(uint64(m.width))
	e.Bool(m.byTime)
	return e.B
}

func buildCounts(params []byte) (part.Method, error) {
	d := part.NewDec(params)
	d.Version("parameter", countsParamsVersion)
	m := &countsMethod{t0: d.Int(), t1: d.Int()}
	w := d.Uint()
	m.byTime = d.Bool()
	if err := d.Done(); err != nil {
		return nil, work.Errorf(countsName, "parameters: %v", err)
	}
	if w < 1 || w > 1<<16 || m.t1 <= m.t0 {
		return nil, work.Errorf(countsName, "parameters: %d pixels over [%d, %d)", w, m.t0, m.t1)
	}
	m.width = int(w)
	return m, nil
}

// Compute indexes procs and counts their states on the grid.
func (m *countsMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(countsName, "round %d of 1", round)
	}
	if tr == nil {
		return nil, work.Errorf(countsName, "the trace is nil")
	}
	if len(procs) == 0 {
		return m.empty(), nil
	}
	if err := trace.EventsHere(countsName, procs...); err != nil {
		return nil, err
	}
	var c *Counts
	err := work.Try(func() {
		ix := newIndex(countsName, tr, procs)
		if m.byTime {
			c, _ = ix.timeCounts(countsName, nil, m.t0, m.t1, m.width, false, true)
		} else {
			c, _ = ix.counts(countsName, nil, m.t0, m.t1, m.width, false)
		}
		c.procs = ix.procsOf(nil)
	})
	if err != nil && work.Interrupted(err) {
		panic(work.ErrInterrupted)
	}
	return c, err
}

// empty is the counts of no streams: the identity of Merge.
func (m *countsMethod) empty() *Counts {
	c := &Counts{T0: m.t0, T1: m.t1, Width: m.width, ByTime: m.byTime, off: make([]int32, m.width+1), procs: []int32{}}
	if m.byTime {
		c.busyPx = make([]int64, m.width)
	}
	return c
}

func (m *countsMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(countsName, "one round: nothing to decide")
}

func (m *countsMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(countsName, "round %d of 1", round)
	}
	return decodeCounts(b)
}

// sampleCounts are the contract suite's instances: the trace's span in 7 and 64 pixels,
// sampled and by time share.
func sampleCounts(tr *trace.Trace) []part.Method {
	t0, t1 := localSpan(tr)
	var out []part.Method
	for _, w := range []int{7, 64} {
		for _, byTime := range []bool{false, true} {
			out = append(out, CountsMethod(t0, t1, w, byTime))
		}
	}
	return out
}
