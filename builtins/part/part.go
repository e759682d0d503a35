package part

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"slices"
	"sync"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Partial is what a method computes over a subset of the processes in one
// round.
type Partial interface {
	// Merge absorbs o, a partial of the same method, parameters and round
	// over a disjoint subset of the processes, into the receiver, which
	// becomes the partial of the union. Merging is associative and
	// commutative. A mismatch is an error (and may leave the receiver
	// partly merged: discard it then).
	Merge(o Partial) error
	// MarshalBinary encodes the partial in its own versioned layout; the
	// method's Decode reads it back.
	MarshalBinary() ([]byte, error)
}

// Method is one mergeable computation with its parameters fixed.
type Method interface {
	// Name is the name the method is registered under, e.g. "profile.comm".
	Name() string
	// Params encodes the parameters: Lookup(Name(), Params()) rebuilds an
	// equal method on another machine.
	Params() []byte
	// Rounds is the number of rounds, at least 1.
	Rounds() int
	// Compute returns round's partial over procs, processes of tr (a subset,
	// possibly empty: the empty partial is the identity of Merge). decision
	// is what Decide returned after the previous round, nil in round 0.
	// Long computations poll work.Check and stop when interrupted.
	Compute(tr *trace.Trace, procs []*trace.Process, round int, decision []byte) (Partial, error)
	// Decide turns round's merged partial (over all processes) into the
	// decision of round+1. It is not called after the last round.
	Decide(round int, merged Partial) ([]byte, error)
	// Decode reads the MarshalBinary of one of round's partials.
	Decode(round int, data []byte) (Partial, error)
}

// Builder rebuilds a registered method from its encoded parameters.
type Builder func(params []byte) (Method, error)

// Sampler returns methods with typical parameters for tr, for the contract
// suite (parttest) to check.
type Sampler func(tr *trace.Trace) []Method

type entry struct {
	build  Builder
	sample Sampler
}

var (
	regMu    sync.RWMutex
	registry = map[string]entry{}
)

// Register makes a method known by name: build rebuilds it from its
// parameters (Lookup), sample gives instances for the contract suite. Method
// packages register in init; registering a name twice panics.
func Register(name string, build Builder, sample Sampler) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("part.Register: " + name + " registered twice")
	}
	registry[name] = entry{build, sample}
}

// Lookup rebuilds the method registered as name from its parameters.
func Lookup(name string, params []byte) (Method, error) {
	regMu.RLock()
	e, ok := registry[name]
	regMu.RUnlock()
	if !ok {
		return nil, work.Errorf("part.Lookup", "no method is registered as %q (registered: %v)", name, Names())
	}
	return e.build(params)
}

// Names returns the registered names, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var s []string
	for n := range registry {
		s = append(s, n)
	}
	slices.Sort(s)
	return s
}

// Samples returns the sample instances of the method registered as name for
// tr (nil if none).
func Samples(name string, tr *trace.Trace) []Method {
	regMu.RLock()
	e := registry[name]
	regMu.RUnlock()
	if e.sample == nil {
		return nil
	}
	return e.sample(tr)
}

// Run computes m over procs of tr on this machine: in each round one subset
// of consecutive processes per core, merged in order, and the root's
// decision between rounds. It returns the merged partial of the last round.
func Run(tr *trace.Trace, procs []*trace.Process, m Method) (Partial, error) {
	var decision []byte
	var merged Partial
	for round := range m.Rounds() {
		var err error
		if merged, err = RunRound(tr, procs, m, round, decision); err != nil {
			return nil, err
		}
		if round+1 < m.Rounds() {
			if decision, err = m.Decide(round, merged); err != nil {
				return nil, err
			}
		}
	}
	return merged, nil
}

// RunRound computes one round of m over procs, one subset per core, and
// merges the partials.
//
// On a trace with an executor (Attach: its events are on the ranks of an
// MPI job) the executor computes the round where the events are.
func RunRound(tr *trace.Trace, procs []*trace.Process, m Method, round int, decision []byte) (Partial, error) {
	if e := ExecutorOf(tr); e != nil {
		return e.RunRound(m, indices(procs), round, decision)
	}
	n := min(runtime.GOMAXPROCS(0), len(procs))
	if n <= 1 {
		return m.Compute(tr, procs, round, decision)
	}
	parts := make([]Partial, n)
	errs := make([]error, n)
	work.Parallel(n, func(w int) {
		lo, hi := w*len(procs)/n, (w+1)*len(procs)/n
		parts[w], errs[w] = m.Compute(tr, procs[lo:hi], round, decision)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, p := range parts[1:] {
		if err := parts[0].Merge(p); err != nil {
			return nil, err
		}
	}
	return parts[0], nil
}

// The frame of an encoded partial: magic, frame version, method name,
// parameter hash, round, payload, CRC-32C of everything before it.
var magic = []byte("TBPART")

const frameVersion = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode encodes p, round's partial of m, in a frame that Decode checks.
func Encode(m Method, round int, p Partial) ([]byte, error) {
	payload, err := p.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("part.Encode: %s round %d: %w", m.Name(), round, err)
	}
	b := slices.Clone(magic)
	b = binary.AppendUvarint(b, frameVersion)
	b = binary.AppendUvarint(b, uint64(len(m.Name())))
	b = append(b, m.Name()...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(m.Params(), castagnoli))
	b = binary.AppendUvarint(b, uint64(round))
	b = binary.AppendUvarint(b, uint64(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// Decode decodes a frame written by Encode for round of m. A damaged frame,
// or one of another method, parameters or round, is an error.
func Decode(m Method, round int, b []byte) (Partial, error) {
	fail := func(format string, args ...any) (Partial, error) {
		return nil, work.Errorf("part.Decode", "%s round %d: %s", m.Name(), round, fmt.Sprintf(format, args...))
	}
	if len(b) < len(magic)+4 || !bytes.Equal(b[:len(magic)], magic) {
		return fail("not an encoded partial (%d bytes, no %q header)", len(b), magic)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return fail("checksum mismatch: the %d bytes were damaged", len(b))
	}
	r := body[len(magic):]
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(r)
		if n <= 0 {
			return 0, false
		}
		r = r[n:]
		return v, true
	}
	v, ok := next()
	if !ok || v != frameVersion {
		return fail("frame version %d, this build reads %d", v, frameVersion)
	}
	nl, ok := next()
	if !ok || nl > uint64(len(r)) {
		return fail("truncated method name")
	}
	name := string(r[:nl])
	r = r[nl:]
	if name != m.Name() {
		return fail("the partial is of method %q", name)
	}
	if len(r) < 4 {
		return fail("truncated parameter hash")
	}
	if binary.LittleEndian.Uint32(r) != crc32.Checksum(m.Params(), castagnoli) {
		return fail("the partial was computed with other parameters")
	}
	r = r[4:]
	rd, ok := next()
	if !ok || rd != uint64(round) {
		return fail("the partial is of round %d", rd)
	}
	pl, ok := next()
	if !ok || pl != uint64(len(r)) {
		return fail("payload length %d, %d bytes present", pl, len(r))
	}
	p, err := m.Decode(round, r)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Mismatch returns the error of merging o into a partial of type want
// (named by method) when o is another type.
func Mismatch(method string, want Partial, o Partial) error {
	return work.Errorf(method+".Merge", "cannot merge a %T into a %T", o, want)
}
