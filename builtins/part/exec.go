package part

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"slices"
	"sync"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Executor computes methods where the events of a trace are: on the ranks
// of an MPI job (package dist). A trace with an executor (Attach) is a
// skeleton (trace.Trace.Skeleton, Load WithoutEvents): its definitions and
// processes are here, their events there. Run and RunRound on such a trace
// hand the method to the executor, so every method that computes through
// them answers the same on one machine and on many.
type Executor interface {
	// RunRound computes round of m over the processes with the given
	// indices (Process.Index, ascending) where their events are, and
	// returns the merged partial.
	RunRound(m Method, procs []int, round int, decision []byte) (Partial, error)
}

var executors sync.Map // *trace.Trace -> Executor

// Attach makes e the executor of tr, a skeleton whose events e's workers
// hold; Attach(tr, nil) detaches it.
func Attach(tr *trace.Trace, e Executor) {
	if e == nil {
		executors.Delete(tr)
		return
	}
	executors.Store(tr, e)
}

// ExecutorOf returns the executor attached to tr, nil for a trace whose
// events are here.
func ExecutorOf(tr *trace.Trace) Executor {
	if tr == nil {
		return nil
	}
	if e, ok := executors.Load(tr); ok {
		return e.(Executor)
	}
	return nil
}

// Remote reports whether tr's methods run on an executor (its events are
// elsewhere): method packages take the way through Run and RunRound then.
func Remote(tr *trace.Trace) bool { return ExecutorOf(tr) != nil }

func indices(procs []*trace.Process) []int {
	out := make([]int, len(procs))
	for i, p := range procs {
		out[i] = p.Index
	}
	if !slices.IsSorted(out) {
		slices.Sort(out)
	}
	return out
}

// Fetch brings the events of procs, processes of a skeleton trace with an
// executor, to this machine (Process.SetEvents): what a method needs of a
// few processes whole, such as the representatives of groups. Processes
// that hold their events already are skipped; on a trace whose events are
// here, Fetch does nothing.
func Fetch(tr *trace.Trace, procs []*trace.Process) error {
	e := ExecutorOf(tr)
	if e == nil {
		return nil
	}
	var want []*trace.Process
	for _, p := range procs {
		if p.Remote() {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return nil
	}
	m := EventsMethod(indices(want))
	p, err := e.RunRound(m, m.idx, 0, nil)
	if err != nil {
		return err
	}
	ev := p.(*Events)
	for _, q := range want {
		src, ok := ev.byIndex(q.Index)
		if !ok {
			return work.Errorf("part.Fetch", "the job returned no events of %s (process %d)", q.Name, q.Index)
		}
		q.SetEvents(src)
	}
	return nil
}

// eventsName is the registered name of EventsMethod.
const eventsName = "part.events"

func init() {
	Register(eventsName, func(params []byte) (Method, error) {
		var idx []int
		for len(params) > 0 {
			v, n := binary.Uvarint(params)
			if n <= 0 {
				return nil, work.Errorf("part.Lookup", "%s: bad parameters", eventsName)
			}
			idx = append(idx, int(v))
			params = params[n:]
		}
		return EventsMethod(idx), nil
	}, func(tr *trace.Trace) []Method {
		ps := tr.Processes()
		idx := []int{ps[0].Index, ps[len(ps)-1].Index}
		if len(ps) == 1 {
			idx = idx[:1]
		}
		return []Method{EventsMethod(idx)}
	})
}

// EventsMethod returns the method whose partial over a subset of the
// processes is the events of those among them with the given indices
// (*Events): what Fetch runs to bring processes whole to the notebook.
func EventsMethod(indices []int) *eventsMethod {
	idx := slices.Clone(indices)
	slices.Sort(idx)
	idx = slices.Compact(idx)
	var params []byte // uvarints: gob's bytes differ between processes
	for _, i := range idx {
		params = binary.AppendUvarint(params, uint64(i))
	}
	return &eventsMethod{idx: idx, params: params}
}

type eventsMethod struct {
	idx    []int
	params []byte
}

func (m *eventsMethod) Name() string   { return eventsName }
func (m *eventsMethod) Params() []byte { return m.params }
func (m *eventsMethod) Rounds() int    { return 1 }
func (m *eventsMethod) Decide(int, Partial) ([]byte, error) {
	return nil, work.Errorf(eventsName+".Decide", "one round only")
}

func (m *eventsMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (Partial, error) {
	ev := &Events{}
	for _, p := range procs {
		if _, ok := slices.BinarySearch(m.idx, p.Index); !ok {
			continue
		}
		if err := trace.EventsHere(eventsName, p); err != nil {
			return nil, err
		}
		ev.Procs = append(ev.Procs, processEvents{Index: p.Index, Rank: p.Rank, Thread: p.Thread, Name: p.Name,
			Kind: p.Kind, Time: p.Time, Ref: p.Ref, Msgs: p.Msgs, Colls: p.Colls, Metrics: p.Metrics, Skipped: p.Skipped})
	}
	return ev, nil
}

func (m *eventsMethod) Decode(round int, data []byte) (Partial, error) {
	ev := &Events{}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&ev.Procs); err != nil {
		return nil, work.Errorf(eventsName+".Decode", "damaged events: %v", err)
	}
	if !slices.IsSortedFunc(ev.Procs, func(a, b processEvents) int { return a.Index - b.Index }) {
		return nil, work.Errorf(eventsName+".Decode", "processes out of order")
	}
	return ev, nil
}

// Events is the partial of EventsMethod: the events of some processes,
// ordered by index.
type Events struct {
	Procs []processEvents
}

type processEvents struct {
	Index        int
	Rank, Thread int32
	Name         string
	Kind         []trace.EventKind
	Time         []int64
	Ref          []int32
	Msgs         trace.Messages
	Colls        trace.Collectives
	Metrics      trace.Metrics
	Skipped      int64
}

func (e *Events) byIndex(i int) (*trace.Process, bool) {
	k, ok := slices.BinarySearchFunc(e.Procs, i, func(p processEvents, i int) int { return p.Index - i })
	if !ok {
		return nil, false
	}
	p := &e.Procs[k]
	return &trace.Process{Index: p.Index, Rank: p.Rank, Thread: p.Thread, Name: p.Name, Kind: p.Kind, Time: p.Time, Ref: p.Ref,
		Msgs: p.Msgs, Colls: p.Colls, Metrics: p.Metrics, Skipped: p.Skipped}, true
}

// Merge absorbs the events of other processes.
func (e *Events) Merge(o Partial) error {
	oe, ok := o.(*Events)
	if !ok {
		return Mismatch(eventsName, e, o)
	}
	out, err := MergeSorted(eventsName+".Merge", "process", e.Procs, oe.Procs, func(p processEvents) int { return p.Index })
	if err != nil {
		return err
	}
	e.Procs = out
	return nil
}

// MarshalBinary encodes the events (gob, version 1 of this layout).
func (e *Events) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(e.Procs); err != nil {
		return nil, fmt.Errorf("%s: %w", eventsName, err)
	}
	return b.Bytes(), nil
}
