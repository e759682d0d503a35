package cluster

import (
	"bytes"
	"encoding/gob"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Structural clustering of a distributed trace (part.Remote: a skeleton
// whose events are on the ranks of a job). The groups, the lattice and the
// matrices need only each process's structure, and every structure follows
// from the process's pair set by name: the job computes "cluster.hash"
// under Pairs (its partial holds each group's serialised pairs and its
// processes) and the notebook rebuilds the distinct structures from the
// names. The time pairs of Coarsen need each member's exclusive time per
// function: "cluster.profiles" brings those, one profile per process.

// remoteSets returns the distinct structures of procs (processes of a
// distributed trace, ascending by index) with their batch positions,
// in order of their first process, computed by the job.
func remoteSets(fn string, tr *trace.Trace, procs []*trace.Process) []*distinct {
	p, err := part.Run(tr, procs, HashMethod(Pairs))
	if err != nil {
		failErr(fn, err)
	}
	pos := make(map[int]int32, len(procs))
	for i, q := range procs {
		pos[q.Index] = int32(i)
	}
	gs := p.(*HashClustering).Groups()
	out := make([]*distinct, len(gs))
	n := 0
	for k, g := range gs {
		n += len(g.Procs)
		d := &distinct{procs: make([]int32, len(g.Procs))}
		for i, x := range g.Procs {
			b, ok := pos[x]
			if !ok {
				fail(fn, "the job returned process %d, which was not asked for", x)
			}
			d.procs[i] = b
		}
		nps := make([]namedPair, len(g.Attrs))
		for i, a := range g.Attrs {
			q, ok := parsePair(a)
			if !ok {
				fail(fn, "the job returned the pair %q, which is not a serialised pair", a)
			}
			nps[i] = q
		}
		d.struc = structureOf(nps)
		out[k] = d
	}
	if n != len(procs) {
		fail(fn, "the job clustered %d of %d processes", n, len(procs))
	}
	return out
}

// parsePair reads a pair serialised by namedPair.name: "caller → callee"
// with escaped names, the caller ε for the root.
func parsePair(s string) (namedPair, bool) {
	c, e, ok := strings.Cut(s, " → ")
	if !ok {
		return namedPair{}, false
	}
	callee, ok := unescapeName(e)
	if !ok {
		return namedPair{}, false
	}
	if c == Root {
		return namedPair{callee: callee, root: true}, true
	}
	caller, ok := unescapeName(c)
	return namedPair{caller: caller, callee: callee}, ok
}

// unescapeName inverts escapeName; a bare "ε" is not a name.
func unescapeName(s string) (string, bool) {
	switch s {
	case `\0`:
		return "", true
	case `\` + Root:
		return Root, true
	case Root, "":
		return "", false
	}
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", false
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 's':
			b.WriteByte(' ')
		case '>':
			b.WriteString("→")
		default:
			return "", false
		}
	}
	return b.String(), true
}

const profilesName = "cluster.profiles"

func init() {
	part.Register(profilesName, func(params []byte) (part.Method, error) {
		if len(params) != 1 || params[0] != profilesVersion {
			return nil, work.Errorf(profilesName, "parameters: version %v, this build reads %d", params, profilesVersion)
		}
		return ProfilesMethod(), nil
	}, func(*trace.Trace) []part.Method { return []part.Method{ProfilesMethod()} })
}

const profilesVersion = 1

// ProfilesMethod returns the per-process part of Coarsen's time pairs as a
// method of the per-process contract (registered as "cluster.profiles"):
// its partial over a subset of the processes is their exclusive time per
// function name (*Profiles).
func ProfilesMethod() part.Method { return profilesMethod{} }

type profilesMethod struct{}

func (profilesMethod) Name() string   { return profilesName }
func (profilesMethod) Params() []byte { return []byte{profilesVersion} }
func (profilesMethod) Rounds() int    { return 1 }
func (profilesMethod) Decide(int, part.Partial) ([]byte, error) {
	return nil, work.Errorf(profilesName, "one round: nothing to decide")
}

func (profilesMethod) Compute(tr *trace.Trace, procs []*trace.Process, round int, _ []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(profilesName, "round %d of 1", round)
	}
	if err := checkProcs(profilesName, tr, procs); err != nil {
		return nil, err
	}
	out := &Profiles{}
	err := work.Try(func() {
		for i, p := range procs {
			if i&63 == 63 {
				work.Check()
			}
			pr := profileOf(p)
			out.Procs = append(out.Procs, ProcessProfile{Index: p.Index, Names: pr.names, Exclusive: pr.excl})
		}
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out.Procs, func(a, b ProcessProfile) int { return a.Index - b.Index })
	return out, nil
}

func (profilesMethod) Decode(round int, b []byte) (part.Partial, error) {
	if round != 0 {
		return nil, work.Errorf(profilesName, "round %d of 1", round)
	}
	out := &Profiles{}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&out.Procs); err != nil {
		return nil, work.Errorf(profilesName, "decoding: %v", err)
	}
	for i, p := range out.Procs {
		if i > 0 && p.Index <= out.Procs[i-1].Index || len(p.Names) != len(p.Exclusive) || !slices.IsSorted(p.Names) {
			return nil, work.Errorf(profilesName, "decoding: process %d: bad profile", i)
		}
	}
	return out, nil
}

// Profiles is the partial of ProfilesMethod: per process (by index,
// ascending) its exclusive time per region name, names sorted.
type Profiles struct {
	Procs []ProcessProfile
}

// ProcessProfile is one process's exclusive time (ns) per region name.
type ProcessProfile struct {
	Index     int
	Names     []string
	Exclusive []float64
}

// Merge absorbs the profiles of a disjoint subset of the processes.
func (p *Profiles) Merge(o part.Partial) error {
	q, ok := o.(*Profiles)
	if !ok {
		return part.Mismatch(profilesName, p, o)
	}
	out, err := part.MergeSorted(profilesName+".Merge", "process", p.Procs, q.Procs, func(x ProcessProfile) int { return x.Index })
	if err != nil {
		return err
	}
	p.Procs = out
	return nil
}

// MarshalBinary encodes the profiles (gob, layout version 1).
func (p *Profiles) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(p.Procs); err != nil {
		return nil, work.Errorf(profilesName, "encoding: %v", err)
	}
	return b.Bytes(), nil
}

// remoteProfiles brings the profiles of the members (batch positions) of
// the groups Coarsen compares from the job, once per clustering.
func (c *Clustering) remoteProfiles(fn string, members []int) {
	var want []*trace.Process
	for _, i := range members {
		if _, ok := c.profiles[i]; !ok {
			want = append(want, c.procs[i])
		}
	}
	if len(want) == 0 {
		return
	}
	slices.SortFunc(want, func(a, b *trace.Process) int { return a.Index - b.Index })
	p, err := part.Run(c.tr, want, ProfilesMethod())
	if err != nil {
		failErr(fn, err)
	}
	pos := make(map[int]int, len(c.procs))
	for i, q := range c.procs {
		pos[q.Index] = i
	}
	if c.profiles == nil {
		c.profiles = map[int]profile{}
	}
	for _, pp := range p.(*Profiles).Procs {
		if i, ok := pos[pp.Index]; ok {
			c.profiles[i] = profile{names: pp.Names, excl: pp.Exclusive}
		}
	}
	for _, q := range want {
		if _, ok := c.profiles[pos[q.Index]]; !ok {
			fail(fn, "the job returned no profile of %s", q.Label())
		}
	}
}

// profile returns the profile of the process at batch position i: from
// its events, or from the job's profiles on a distributed trace.
func (c *Clustering) profile(i int) profile {
	if pr, ok := c.profiles[i]; ok {
		return pr
	}
	return profileOf(c.procs[i])
}
