package profile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/part/parttest"
	"github.com/tracebook/tracebook/builtins/trace"
)

// roundCounter wraps a distributed trace's executor and counts the rounds of each method.
type roundCounter struct {
	inner part.Executor
	mu    sync.Mutex
	n     map[string]int
}

func (c *roundCounter) RunRound(m part.Method, procs []int, round int, decision []byte) (part.Partial, error) {
	c.mu.Lock()
	c.n[m.Name()]++
	c.mu.Unlock()
	return c.inner.RunRound(m, procs, round, decision)
}

func distribute(tr *trace.Trace, n int) (*trace.Trace, *roundCounter) {
	sk := parttest.Distribute(tr, n)
	c := &roundCounter{inner: part.ExecutorOf(sk), n: map[string]int{}}
	part.Attach(sk, c)
	return sk, c
}

// sameOn returns the processes of sk with the indices of ps.
func sameOn(sk *trace.Trace, ps []*trace.Process) []*trace.Process {
	out := make([]*trace.Process, len(ps))
	for i, p := range ps {
		out[i] = sk.Process(p.Index)
	}
	return out
}

// TestRemoteBoxesEqualLocal: on random traces with call-stack repairs and tiny refinement
// limits (so that the refinement takes several passes, each a round of "profile.refine" on
// the shares), Boxes and CallMatrix of a distributed trace equal the local ones field by
// field, for one series, a series per process, groups, restricted processes and the closure,
// on 1, 2, 3 and more shares than processes.
func TestRemoteBoxesEqualLocal(t *testing.T) {
	smallRefinement(t)
	rng := rand.New(rand.NewPCG(35, 1))
	maxRefine := 0
	for it := range 24 {
		tr := randomTrace(rng, 1+rng.IntN(6), 1+rng.IntN(7), 10+rng.IntN(300))
		procs := tr.Processes()
		for _, n := range []int{1, 2, 3, len(procs) + 2} {
			sk, rc := distribute(tr, n)
			half := procs[:(len(procs)+1)/2]
			rest := procs[len(half):]
			for k, opts := range [][2][]Option{
				{nil, nil},
				{{WithClosure()}, {WithClosure()}},
				{{WithPerProcess()}, {WithPerProcess()}},
				{{WithProcesses(half...), WithInclusive()}, {WithProcesses(sameOn(sk, half)...), WithInclusive()}},
				{{WithGroups(half, rest)}, {WithGroups(sameOn(sk, half), sameOn(sk, rest))}},
			} {
				if len(rest) == 0 && k == 4 {
					continue
				}
				what := fmt.Sprintf("it %d, %d shares, options %d", it, n, k)
				forget()
				wb, wm := Boxes(tr, opts[0]...), CallMatrix(tr, opts[0]...)
				forget()
				gb := Boxes(sk, opts[1]...)
				gm := CallMatrix(sk, opts[1]...)
				if !slices.Equal(wb.Rows, gb.Rows) || wb.Events != gb.Events || wb.Repairs != gb.Repairs || wb.Functions != gb.Functions {
					t.Fatalf("%s: Boxes differ:\nlocal       %+v %d %v\ndistributed %+v %d %v", what, wb.Rows, wb.Events, wb.Repairs, gb.Rows, gb.Events, gb.Repairs)
				}
				if !slices.Equal(wm.Cells, gm.Cells) || wm.NumCells != gm.NumCells {
					t.Fatalf("%s: CallMatrix differs:\nlocal       %+v\ndistributed %+v", what, wm.Cells, gm.Cells)
				}
			}
			maxRefine = max(maxRefine, rc.n[refineName])
			if rc.n[singleName] == 0 || len(procs) > 1 && rc.n["profile.boxes"] == 0 {
				t.Fatalf("it %d: the executor ran %v", it, rc.n)
			}
		}
	}
	if maxRefine < 3 {
		t.Errorf("at most %d refinement rounds: the multi-pass refinement was not exercised", maxRefine)
	}
}

// TestRemoteCommMethodOnShares: the lead's first bug, CommMethod() run on a trace distributed
// to 3 ranks, merges (its partials do not depend on the share's other processes) and equals
// CommMatrix of the whole trace; so does CommMatrix of the distributed trace.
func TestRemoteCommMethodOnShares(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	var traces []*trace.Trace
	for _, path := range []string{pingPong, "../../test/data/split-comm/traces.otf2"} {
		tr, err := trace.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	for range 16 {
		traces = append(traces, genComm(rng, 1+rng.IntN(8), rng.IntN(300)).tr)
	}
	for it, tr := range traces {
		want := CommMatrix(tr)
		for _, n := range []int{1, 2, 3, 9} {
			sk := parttest.Distribute(tr, n)
			p, err := part.Run(sk, sk.Processes(), CommMethod())
			if err != nil {
				t.Fatalf("it %d, %d shares: %v", it, n, err)
			}
			for _, got := range []*Comm{p.(*Comm), CommMatrix(sk)} {
				if !slices.Equal(got.Ranks, want.Ranks) || got.Sends != want.Sends || got.Bytes != want.Bytes || got.Outside != want.Outside ||
					got.Unresolved != want.Unresolved || !equalCells(cellsOf(t, got), cellsOf(t, want)) || !tableEqual(got.Collectives(), want.Collectives()) {
					t.Fatalf("it %d, %d shares: distributed %v, local %v", it, n, got, want)
				}
			}
		}
	}
}

// TestRemoteMessagesRefuses: Messages needs every process's messages in one place; on a
// distributed trace it panics with an *Error naming itself, never an empty result.
func TestRemoteMessagesRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	g := genComm(rng, 3, 20)
	sk := parttest.Distribute(g.tr, 2)
	defer func() {
		var e *Error
		err, _ := recover().(error)
		if !errors.As(err, &e) || e.Func != "profile.Messages" || !strings.Contains(e.Msg, "does not run distributed") {
			t.Fatalf("Messages of a distributed trace: %v, want an *Error of profile.Messages", err)
		}
	}()
	Messages(sk)
}
