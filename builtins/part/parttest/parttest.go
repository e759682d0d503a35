// Package parttest is the contract suite of part: for a method and a
// trace, random splits of the processes, partials encoded and decoded,
// merged in random tree orders, must equal the partial of all processes, in
// every round; mismatches and damaged data must be errors, never panics. In
// the spirit of gonum's graph/testgraph, every method runs the same suite
// (builtins/part's TestEveryRegisteredMethod runs it on all of them).
package parttest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
)

// Config tunes Check. The zero value checks 6 random splits per round
// comparing partials by their encoding.
type Config struct {
	Trials int    // random splits per round (default 6)
	Seed   uint64 // of the random splits (default 1)
	// Equal compares the whole partial with the merged one; nil compares
	// their MarshalBinary bytes, right for partials whose encoding is
	// canonical (independent of the merge order).
	Equal func(whole, merged part.Partial) error
}

// Check runs the contract on m over the processes of tr.
func Check(t testing.TB, tr *trace.Trace, m part.Method, cfg Config) {
	t.Helper()
	if cfg.Trials == 0 {
		cfg.Trials = 6
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Equal == nil {
		cfg.Equal = equalBytes
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	if m.Rounds() < 1 {
		t.Fatalf("%s: Rounds() = %d, want >= 1", m.Name(), m.Rounds())
	}
	// The method rebuilds from its parameters under its name.
	if m2, err := part.Lookup(m.Name(), m.Params()); err != nil {
		t.Errorf("%s: Lookup(Name(), Params()): %v", m.Name(), err)
	} else if !bytes.Equal(m2.Params(), m.Params()) || m2.Rounds() != m.Rounds() {
		t.Errorf("%s: the rebuilt method has other parameters or rounds", m.Name())
	}
	procs := tr.Processes()
	var decision []byte
	for round := range m.Rounds() {
		whole, err := m.Compute(tr, procs, round, decision)
		if err != nil {
			t.Fatalf("%s round %d: Compute over all %d processes: %v", m.Name(), round, len(procs), err)
		}
		roundTrip(t, m, round, whole) // the whole partial survives its encoding

		// The empty partial is the identity of Merge.
		empty, err := m.Compute(tr, nil, round, decision)
		if err != nil {
			t.Fatalf("%s round %d: Compute over no processes: %v", m.Name(), round, err)
		}
		w2, _ := m.Compute(tr, procs, round, decision)
		if err := w2.Merge(empty); err != nil {
			t.Errorf("%s round %d: merging the empty partial: %v", m.Name(), round, err)
		} else if err := cfg.Equal(whole, w2); err != nil {
			t.Errorf("%s round %d: whole merged with the empty partial differs: %v", m.Name(), round, err)
		}
		e2, _ := m.Compute(tr, nil, round, decision)
		w3, _ := m.Compute(tr, procs, round, decision)
		if err := e2.Merge(w3); err != nil {
			t.Errorf("%s round %d: merging into the empty partial: %v", m.Name(), round, err)
		} else if err := cfg.Equal(whole, e2); err != nil {
			t.Errorf("%s round %d: the empty partial merged with the whole differs: %v", m.Name(), round, err)
		}

		for trial := range cfg.Trials {
			split := randomSplit(rng, procs)
			pool := make([]part.Partial, len(split))
			for i, s := range split {
				p, err := m.Compute(tr, s, round, decision)
				if err != nil {
					t.Fatalf("%s round %d trial %d: Compute over %d processes: %v", m.Name(), round, trial, len(s), err)
				}
				pool[i] = roundTrip(t, m, round, p)
			}
			// Merge in a random tree order: two random partials, either one
			// absorbing the other, sometimes through the wire in between.
			for len(pool) > 1 {
				i := rng.IntN(len(pool))
				j := rng.IntN(len(pool) - 1)
				if j >= i {
					j++
				}
				a, b := pool[i], pool[j]
				if rng.IntN(2) == 0 {
					b = roundTrip(t, m, round, b)
				}
				if err := a.Merge(b); err != nil {
					t.Fatalf("%s round %d trial %d: Merge: %v", m.Name(), round, trial, err)
				}
				pool[j] = pool[len(pool)-1]
				pool = pool[:len(pool)-1]
				if i == len(pool) {
					i = j
				}
				pool[i] = a
			}
			if err := cfg.Equal(whole, pool[0]); err != nil {
				t.Errorf("%s round %d trial %d: %d subsets merged differ from the whole: %v", m.Name(), round, trial, len(split), err)
			}
		}

		// Mismatches are errors, not panics.
		w4, _ := m.Compute(tr, procs, round, decision)
		noPanic(t, m.Name()+": Merge of a foreign partial", func() {
			if err := w4.Merge(foreign{}); err == nil {
				t.Errorf("%s round %d: merging a partial of another type returned no error", m.Name(), round)
			}
		})
		// Damaged data is an error, not a panic.
		b, err := whole.MarshalBinary()
		if err != nil {
			t.Fatalf("%s round %d: MarshalBinary: %v", m.Name(), round, err)
		}
		for cut := 0; cut < len(b); cut += 1 + len(b)/64 {
			noPanic(t, fmt.Sprintf("%s: Decode of %d of %d bytes", m.Name(), cut, len(b)), func() {
				if _, err := m.Decode(round, b[:cut]); err == nil {
					t.Errorf("%s round %d: Decode of the first %d of %d bytes returned no error", m.Name(), round, cut, len(b))
				}
			})
		}
		for k := range 64 {
			d := bytes.Clone(b)
			if len(d) == 0 {
				break
			}
			d[rng.IntN(len(d))] ^= byte(1 + rng.IntN(255))
			noPanic(t, fmt.Sprintf("%s: Decode of damaged bytes #%d", m.Name(), k), func() { m.Decode(round, d) })
		}
		fr, _ := part.Encode(m, round, whole)
		fr[len(fr)/2] ^= 0x40
		if _, err := part.Decode(m, round, fr); err == nil {
			t.Errorf("%s round %d: a damaged frame decoded without error", m.Name(), round)
		}

		if round+1 < m.Rounds() {
			if decision, err = m.Decide(round, whole); err != nil {
				t.Fatalf("%s round %d: Decide: %v", m.Name(), round, err)
			}
		}
	}
}

// roundTrip encodes p in a frame and decodes it.
func roundTrip(t testing.TB, m part.Method, round int, p part.Partial) part.Partial {
	t.Helper()
	b, err := part.Encode(m, round, p)
	if err != nil {
		t.Fatalf("%s round %d: Encode: %v", m.Name(), round, err)
	}
	q, err := part.Decode(m, round, b)
	if err != nil {
		t.Fatalf("%s round %d: Decode of its own encoding: %v", m.Name(), round, err)
	}
	if err := equalBytes(p, q); err != nil {
		t.Fatalf("%s round %d: decoded partial re-encodes differently: %v", m.Name(), round, err)
	}
	return q
}

// randomSplit partitions procs into 1..8 non-empty subsets of random
// members (not only runs of consecutive processes), in random order.
func randomSplit(rng *rand.Rand, procs []*trace.Process) [][]*trace.Process {
	if len(procs) == 0 {
		return [][]*trace.Process{nil}
	}
	k := 1 + rng.IntN(min(8, len(procs)))
	perm := rng.Perm(len(procs))
	split := make([][]*trace.Process, k)
	for i, pi := range perm {
		s := i % k
		if i >= k {
			s = rng.IntN(k)
		}
		split[s] = append(split[s], procs[pi])
	}
	// Subsets keep the trace's order of processes, as a worker's do.
	for _, s := range split {
		slices.SortFunc(s, func(a, b *trace.Process) int { return a.Index - b.Index })
	}
	return split
}

func equalBytes(a, b part.Partial) error {
	x, err := a.MarshalBinary()
	if err != nil {
		return err
	}
	y, err := b.MarshalBinary()
	if err != nil {
		return err
	}
	if !bytes.Equal(x, y) {
		i := 0
		for i < min(len(x), len(y)) && x[i] == y[i] {
			i++
		}
		return fmt.Errorf("encodings differ (%d vs %d bytes, first difference at byte %d)", len(x), len(y), i)
	}
	return nil
}

func noPanic(t testing.TB, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	f()
}

// foreign is a partial of no method.
type foreign struct{}

func (foreign) Merge(part.Partial) error       { return nil }
func (foreign) MarshalBinary() ([]byte, error) { return nil, nil }

// Distribute returns a skeleton of tr (trace.Trace.Skeleton, every process
// without its events) whose methods run as on an MPI job of n ranks (the
// test double of package dist's job): the processes are dealt to n shares
// of consecutive processes (tr.Subset), and every round Run or RunRound
// asks for is computed on each share, encoded, decoded and merged up a
// binomial tree to share 0, as the ranks do. Method packages check with it
// that their functions answer the same on a distributed trace as on tr.
func Distribute(tr *trace.Trace, n int) *trace.Trace {
	sk := tr.Skeleton()
	ps := tr.Processes()
	n = max(1, min(n, len(ps)))
	shares := make([]*trace.Trace, n)
	for r := range n {
		var locs []int
		for _, p := range ps[r*len(ps)/n : (r+1)*len(ps)/n] {
			locs = append(locs, p.Index)
		}
		shares[r] = tr.Subset(locs...)
	}
	part.Attach(sk, &shareExec{shares: shares})
	return sk
}

type shareExec struct {
	shares []*trace.Trace
}

func (e *shareExec) RunRound(m part.Method, procs []int, round int, decision []byte) (part.Partial, error) {
	// every share rebuilds the method from its name and parameters, as a
	// rank does
	parts := make([]part.Partial, len(e.shares))
	for r, sh := range e.shares {
		rm, err := part.Lookup(m.Name(), m.Params())
		if err != nil {
			return nil, err
		}
		var mine []*trace.Process
		for _, p := range sh.Processes() {
			if _, ok := slices.BinarySearch(procs, p.Index); ok {
				mine = append(mine, p)
			}
		}
		p, err := rm.Compute(sh, mine, round, decision)
		if err != nil {
			return nil, fmt.Errorf("rank %d: %w", r, err)
		}
		b, err := part.Encode(rm, round, p)
		if err != nil {
			return nil, err
		}
		if parts[r], err = part.Decode(m, round, b); err != nil {
			return nil, err
		}
	}
	for s := 1; s < len(parts); s *= 2 {
		for r := 0; r+s < len(parts); r += 2 * s {
			if err := parts[r].Merge(parts[r+s]); err != nil {
				return nil, fmt.Errorf("rank %d merging rank %d: %w", r, r+s, err)
			}
		}
	}
	return parts[0], nil
}

// Counter wraps the executor of a distributed trace (Count) and records
// every round it runs and the bytes of the merged partial it returns (what
// rank 0 sends to the notebook).
type Counter struct {
	inner part.Executor
	mu    sync.Mutex
	// Rounds lists the rounds run, as "method#round", in order.
	Rounds []string
	// PerMethod counts the rounds of each method.
	PerMethod map[string]int
	// Bytes is the encoded size of each method's merged partials, summed.
	Bytes map[string]int64
	// Total is the bytes of every round's merged partial.
	Total int64
}

// Count puts a Counter in front of the executor of sk, a trace with one
// (Distribute).
func Count(sk *trace.Trace) *Counter {
	c := &Counter{inner: part.ExecutorOf(sk), PerMethod: map[string]int{}, Bytes: map[string]int64{}}
	part.Attach(sk, c)
	return c
}

// RunRound runs the round on the wrapped executor and records it.
func (c *Counter) RunRound(m part.Method, procs []int, round int, decision []byte) (part.Partial, error) {
	p, err := c.inner.RunRound(m, procs, round, decision)
	if err != nil {
		return nil, err
	}
	b, err := part.Encode(m, round, p)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Rounds = append(c.Rounds, fmt.Sprintf("%s#%d", m.Name(), round))
	c.PerMethod[m.Name()]++
	c.Bytes[m.Name()] += int64(len(b))
	c.Total += int64(len(b))
	return p, nil
}
