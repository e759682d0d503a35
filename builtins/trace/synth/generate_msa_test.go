package synth

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// msaBase is a small configuration for the Recursion and Walk knobs.
func msaBase() GenConfig {
	return GenConfig{Seed: 5, Ranks: 6, Iterations: 3, Depth: 1, Fanout: 2, MPI: true, UnitNs: 1000, Noise: 0.2,
		SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1}
}

// msaConfigs are the Recursion and Walk knobs alone, together and with the
// other shape knobs.
func msaConfigs() []GenConfig {
	var out []GenConfig
	add := func(f func(c *GenConfig)) {
		c := msaBase()
		f(&c)
		out = append(out, c)
	}
	add(func(c *GenConfig) { c.Recursion = 12 })
	add(func(c *GenConfig) { c.Recursion = 1 })
	add(func(c *GenConfig) { c.Walk = 40 })
	add(func(c *GenConfig) { c.Walk, c.WalkMutation = 40, 0.2 })
	add(func(c *GenConfig) { c.Walk, c.WalkMutation = 1, 1 })
	add(func(c *GenConfig) { c.Recursion, c.Walk, c.WalkMutation = 5, 30, 1 })
	add(func(c *GenConfig) { c.Recursion, c.Walk, c.WalkMutation, c.MPI, c.Threads = 8, 25, 0.1, false, 2 })
	add(func(c *GenConfig) { c.Recursion, c.Walk, c.WalkMutation, c.Iterations = 8, 25, 0.1, 0 })
	add(func(c *GenConfig) {
		c.Recursion, c.Walk, c.WalkMutation = 6, 20, 0.3
		c.ThreadKinds = []ThreadKind{{Count: 1, Start: "pthread_io", Calls: []string{"write_checkpoint"}}}
		c.GPUs, c.Streams, c.MasterWork, c.Workloads, c.WorkloadPaths = 2, 2, 3, 4, 5
	})
	return append(out, PEPCConfig(32))
}

// childNames returns the region names of node i's children.
func childNames(p *trace.Process, c *trace.CallTree, i int) []string {
	var out []string
	for _, j := range c.Children(i) {
		out = append(out, p.RegionName(c.Region[j]))
	}
	return out
}

// solves returns the solve nodes of p's call tree, in order.
func solves(p *trace.Process, c *trace.CallTree) []int {
	var out []int
	for i := 1; i < c.Len(); i++ {
		if p.RegionName(c.Region[i]) == "solve" {
			out = append(out, i)
		}
	}
	return out
}

// sortDepth returns the depth of the sort_step chain below solve node s
// (0 without one), checking its shape: each sort_step calls partition (a
// leaf), then at most one sort_step.
func sortDepth(t *testing.T, p *trace.Process, c *trace.CallTree, s int) int {
	t.Helper()
	var steps []int32
	for _, j := range c.Children(s) {
		if p.RegionName(c.Region[j]) == "sort_step" {
			steps = append(steps, j)
		}
	}
	if len(steps) == 0 {
		return 0
	}
	if len(steps) > 1 {
		t.Fatalf("%v: %d sort_step calls in one solve", p, len(steps))
	}
	d := 0
	for i := int(steps[0]); ; {
		d++
		kids := childNames(p, c, i)
		if len(kids) < 1 || len(kids) > 2 || kids[0] != "partition" || len(kids) == 2 && kids[1] != "sort_step" {
			t.Fatalf("%v: sort_step at depth %d calls %v", p, d, kids)
		}
		if c.NumChildren(i+1) != 0 {
			t.Fatalf("%v: partition at depth %d is no leaf", p, d)
		}
		if len(kids) == 1 {
			return d
		}
		i = int(c.Children(i)[1])
	}
}

// walkChildren returns the children names of the tree_walk below solve
// node s, nil without one.
func walkChildren(t *testing.T, p *trace.Process, c *trace.CallTree, s int) []string {
	t.Helper()
	for _, j := range c.Children(s) {
		if p.RegionName(c.Region[j]) == "tree_walk" {
			kids := childNames(p, c, int(j))
			for _, k := range c.Children(int(j)) {
				if c.NumChildren(int(k)) != 0 {
					t.Fatalf("%v: %s in tree_walk is no leaf", p, p.RegionName(c.Region[k]))
				}
			}
			if kids == nil {
				kids = []string{}
			}
			return kids
		}
	}
	return nil
}

// The new knobs keep the event counts EventsPerRank and NumEvents promise,
// properly nested calls and non-decreasing times; the events they add are
// exactly the sort and walk calls found in the call trees (4 per sort
// level, 2 per walk call plus tree_walk's own 2), measured against the
// same configuration without them.
func TestMSAKnobCounts(t *testing.T) {
	for i, cfg := range msaConfigs() {
		tr := Generate(cfg)
		if got, want := tr.NumEvents(), cfg.NumEvents(); got != want {
			t.Errorf("config %d: %d events, NumEvents says %d", i, got, want)
		}
		off := cfg
		off.Recursion, off.Walk, off.WalkMutation = 0, 0, 0
		plain := Generate(off)
		if len(plain.Processes()) != len(tr.Processes()) {
			t.Fatalf("config %d: %d processes, %d without the knobs", i, len(tr.Processes()), len(plain.Processes()))
		}
		stride := 1 + cfg.Threads
		for _, k := range cfg.ThreadKinds {
			stride += k.Count
		}
		for j, p := range tr.Processes() {
			if cap(p.Kind) != len(p.Kind) || uint64(len(p.Kind)) != tr.Defs.Locations[j].NumEvents {
				t.Errorf("config %d: %v: %d events, capacity %d, declared %d", i, p, len(p.Kind), cap(p.Kind), tr.Defs.Locations[j].NumEvents)
			}
			for k := 1; k < len(p.Time); k++ {
				if p.Time[k] < p.Time[k-1] {
					t.Fatalf("config %d: %v: time goes backwards at %d", i, p, k)
				}
			}
			c := p.CallTree()
			if r := c.Repairs; !r.IsZero() {
				t.Errorf("config %d: %v: repairs %+v", i, p, r)
			}
			extra := 0
			for _, s := range solves(p, c) {
				d := sortDepth(t, p, c, s)
				if d > cfg.Recursion || cfg.Recursion > 0 && d < 1 {
					t.Errorf("config %d: %v: sort depth %d, Recursion %d", i, p, d, cfg.Recursion)
				}
				extra += 4 * d
				if w := walkChildren(t, p, c, s); w != nil {
					extra += 2 + 2*len(w)
				} else if cfg.Walk > 0 {
					t.Errorf("config %d: %v: no tree_walk", i, p)
				}
			}
			if p.Thread == 0 && j < cfg.Ranks*stride {
				if len(p.Kind) != cfg.EventsPerRank(int(p.Rank)) {
					t.Errorf("config %d: %v: %d events, EventsPerRank says %d", i, p, len(p.Kind), cfg.EventsPerRank(int(p.Rank)))
				}
				if n := len(solves(p, c)); n != cfg.Iterations {
					t.Errorf("config %d: %v: %d solves", i, p, n)
				}
			}
			if got, want := len(p.Kind)-len(plain.Processes()[j].Kind), extra; got != want {
				t.Errorf("config %d: %v: %d events more than without the knobs, sort and walk calls make %d", i, p, got, want)
			}
		}
		// The knobs' regions follow all others: the ids of the rest stay.
		if n := len(plain.Defs.Regions); len(tr.Defs.Regions) < n || !slices.Equal(tr.Defs.Regions[:n], plain.Defs.Regions) {
			t.Errorf("config %d: the knobs moved the other regions", i)
		}
		want := len(plain.Defs.Regions)
		if cfg.Recursion > 0 {
			want += 2
		}
		if cfg.Walk > 0 {
			want += 1 + len(walkKinds)
		}
		if len(tr.Defs.Regions) != want {
			t.Errorf("config %d: %d regions, want %d", i, len(tr.Defs.Regions), want)
		}
		for _, r := range tr.Defs.Regions[len(plain.Defs.Regions):] {
			if r.Paradigm != "user" || r.Role != "function" {
				t.Errorf("config %d: region %+v", i, r)
			}
		}
	}
}

// Left zero, the knobs change nothing (WalkMutation alone included).
func TestMSAKnobsOff(t *testing.T) {
	for _, cfg := range []GenConfig{msaBase(), BTMZConfig(3, 2), PIConGPUConfig(3, 2, 1)} {
		a := traceDigest(Generate(cfg))
		cfg.WalkMutation = 0.5
		if b := traceDigest(Generate(cfg)); a != b {
			t.Errorf("%+v: WalkMutation without Walk changed the trace", cfg)
		}
	}
}

// The sort's depths over 1,024 ranks: every rank sorts once per iteration,
// depths 1..Recursion; the number of ranks reaching a depth falls with the
// depth, by about 3/4 per level (within 4 standard deviations), down to
// the cap; a rank's depth varies from iteration to iteration.
func TestRecursionDepths(t *testing.T) {
	for _, rec := range []int{12, 3} {
		cfg := GenConfig{Seed: 7, Ranks: 1024, Iterations: 2, UnitNs: 1000, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1, RecursiveSort: RecursiveSort{Recursion: rec}}
		tr := Generate(cfg)
		reach := make([]int, rec+2) // reach[d]: ranks whose iteration-0 sort reaches depth d
		varies := 0
		for _, p := range tr.Processes() {
			c := p.CallTree()
			s := solves(p, c)
			d0, d1 := sortDepth(t, p, c, s[0]), sortDepth(t, p, c, s[1])
			if d0 < 1 || d0 > rec {
				t.Fatalf("Recursion %d: %v: depth %d", rec, p, d0)
			}
			if d0 != d1 {
				varies++
			}
			for d := 1; d <= d0; d++ {
				reach[d]++
			}
		}
		distinct := 0
		for d := 1; d <= rec; d++ {
			if reach[d] > reach[d+1] {
				distinct++
			}
			if reach[d+1] > reach[d] {
				t.Errorf("Recursion %d: %d ranks reach depth %d, %d depth %d", rec, reach[d], d, reach[d+1], d+1)
			}
			if n := float64(reach[d]); n >= 100 && d < rec {
				sd := math.Sqrt(n * recursionContinue * (1 - recursionContinue))
				if got := float64(reach[d+1]); math.Abs(got-n*recursionContinue) > 4*sd {
					t.Errorf("Recursion %d: %d of the %d ranks at depth %d go deeper, want about %g", rec, reach[d+1], reach[d], d, n*recursionContinue)
				}
			}
		}
		if reach[1] != cfg.Ranks || reach[rec+1] != 0 || distinct < 2 {
			t.Errorf("Recursion %d: reach %v", rec, reach)
		}
		if rec == 3 && reach[3] < 500 { // 1024 * 9/16 = 576
			t.Errorf("Recursion 3: only %d ranks reach the cap", reach[3])
		}
		if varies < cfg.Ranks/4 {
			t.Errorf("Recursion %d: depth varies between iterations on %d ranks only", rec, varies)
		}
		t.Logf("Recursion %d: ranks reaching depth 1..: %v", rec, reach[1:rec+1])
	}
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// walks returns every rank's tree_walk children per iteration.
func walks(t *testing.T, tr *trace.Trace) [][]string {
	var out [][]string
	for _, p := range tr.Processes() {
		c := p.CallTree()
		for _, s := range solves(p, c) {
			out = append(out, walkChildren(t, p, c, s))
		}
	}
	return out
}

// WalkMutation 0: every rank's tree_walk calls the same Walk children in
// every iteration, of all four kinds. WalkMutation p > 0: the sequences
// differ, are longer and shorter than Walk, and lie about p*Walk edits
// from the unmutated one (each mutation is one edit).
func TestWalkMutation(t *testing.T) {
	cfg := GenConfig{Seed: 9, Ranks: 256, Iterations: 2, UnitNs: 1000, Noise: 0.1, SlowRank: -1, SlowFactor: 1, OutlierIter: -1, OutlierFactor: 1, TreeWalk: TreeWalk{Walk: 100}}
	same := walks(t, Generate(cfg))
	base := same[0]
	kinds := map[string]int{}
	for _, k := range base {
		kinds[k]++
	}
	if len(base) != cfg.Walk || len(kinds) != len(walkKinds) {
		t.Fatalf("base walk of %d calls, kinds %v", len(base), kinds)
	}
	for _, k := range walkKinds {
		if kinds[k] < cfg.Walk/10 {
			t.Errorf("base walk: kinds %v", kinds)
		}
	}
	for i, w := range same {
		if !slices.Equal(w, base) {
			t.Fatalf("WalkMutation 0: walk %d differs: %v", i, w)
		}
	}
	for _, p := range []float64{0.03, 0.2} {
		cfg.WalkMutation = p
		ws := walks(t, Generate(cfg))
		if len(ws) != cfg.Ranks*cfg.Iterations {
			t.Fatalf("%d walks", len(ws))
		}
		distinct := map[string]bool{}
		longer, shorter, edits := 0, 0, 0
		for _, w := range ws {
			distinct[strings.Join(w, ",")] = true
			if len(w) > cfg.Walk {
				longer++
			}
			if len(w) < cfg.Walk {
				shorter++
			}
			edits += editDistance(w, base)
		}
		mean := float64(edits) / float64(len(ws)) / float64(cfg.Walk)
		// Mutations per walk: binomial(Walk, p); a few coincide with
		// their neighbours and cost no edit.
		sd := math.Sqrt(p * (1 - p) / float64(cfg.Walk) / float64(len(ws))) // of the mean
		if mean > p+4*sd || mean < 0.85*p-4*sd {
			t.Errorf("WalkMutation %g: %.4f edits per position", p, mean)
		}
		if len(distinct) < len(ws)/2 || longer == 0 || shorter == 0 {
			t.Errorf("WalkMutation %g: %d distinct walks of %d, %d longer, %d shorter", p, len(distinct), len(ws), longer, shorter)
		}
		t.Logf("WalkMutation %g: %.4f edits per position, %d distinct walks of %d, %d longer, %d shorter", p, mean, len(distinct), len(ws), longer, shorter)
	}
}

// Same configuration, same trace (every Kind, Time, Ref); another Seed,
// another sort and walk.
func TestMSADeterministic(t *testing.T) {
	for i, cfg := range msaConfigs() {
		a, b := Generate(cfg), Generate(cfg)
		for j, p := range a.Processes() {
			q := b.Processes()[j]
			if !slices.Equal(p.Kind, q.Kind) || !slices.Equal(p.Time, q.Time) || !slices.Equal(p.Ref, q.Ref) {
				t.Fatalf("config %d: %v differs between runs", i, p)
			}
		}
		if traceDigest(a) != traceDigest(b) {
			t.Errorf("config %d: digests differ", i)
		}
	}
	cfg := msaBase()
	cfg.Recursion, cfg.Walk, cfg.WalkMutation, cfg.Ranks = 12, 50, 0.1, 16
	a := Generate(cfg)
	cfg.Seed++
	b := Generate(cfg)
	depths := func(tr *trace.Trace) []int {
		var out []int
		for _, p := range tr.Processes() {
			c := p.CallTree()
			for _, s := range solves(p, c) {
				out = append(out, sortDepth(t, p, c, s))
			}
		}
		return out
	}
	if slices.Equal(depths(a), depths(b)) {
		t.Error("seed+1: same sort depths")
	}
	if wa, wb := walks(t, a), walks(t, b); slices.EqualFunc(wa, wb, slices.Equal) {
		t.Error("seed+1: same walks")
	}
}

// PEPCConfig gives the counts its doc comment promises.
func TestPEPCShape(t *testing.T) {
	cfg := PEPCConfig(16384)
	if got := cfg.NumEvents(); got != 38984200 {
		t.Errorf("PEPCConfig(16384): %d events", got)
	}
	lo, hi := math.MaxInt, 0
	for r := 0; r < cfg.Ranks; r++ {
		n := cfg.EventsPerRank(r)
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo != 2300 || hi != 2522 {
		t.Errorf("PEPCConfig(16384): %d..%d events per rank", lo, hi)
	}
	tr := Generate(PEPCConfig(64))
	for _, name := range []string{"sort_step", "partition", "tree_walk", "interact_p2p", "interact_m2p", "traverse_node", "fetch_remote", "compute_flux_L1_3", "MPI_Allreduce"} {
		if tr.RegionID(name) < 0 {
			t.Errorf("PEPCConfig: no region %s", name)
		}
	}
	if tr.NumProcesses() != 64 {
		t.Errorf("PEPCConfig(64): %d processes", tr.NumProcesses())
	}
}

// Negative Recursion or Walk and WalkMutation outside [0, 1] panic with an
// *work.Error naming Generate and the knob.
func TestGenerateBadMSAKnobs(t *testing.T) {
	for _, f := range []struct {
		knob string
		set  func(c *GenConfig)
	}{
		{"Recursion", func(c *GenConfig) { c.Recursion = -1 }},
		{"Walk", func(c *GenConfig) { c.Walk = -1 }},
		{"WalkMutation", func(c *GenConfig) { c.Walk, c.WalkMutation = 5, -0.1 }},
		{"WalkMutation", func(c *GenConfig) { c.Walk, c.WalkMutation = 5, 1.01 }},
		{"WalkMutation", func(c *GenConfig) { c.Walk, c.WalkMutation = 5, math.NaN() }},
		{"WalkMutation", func(c *GenConfig) { c.WalkMutation = math.Inf(1) }},
	} {
		c := msaBase()
		f.set(&c)
		func() {
			defer func() {
				var e *work.Error
				if r, _ := recover().(error); !errors.As(r, &e) || e.Func != "synth.Generate" || !strings.Contains(e.Error(), f.knob+" ") {
					t.Errorf("%s: panic %v", f.knob, r)
				}
			}()
			Generate(c)
		}()
	}
	c := msaBase()
	c.Recursion, c.Walk, c.WalkMutation = 1, 1, 1
	Generate(c)
}

// BenchmarkGeneratePEPC: pepc-like, 16,384 ranks (Weber Table 5.9).
func BenchmarkGeneratePEPC(b *testing.B) { benchShape(b, PEPCConfig(16384)) }
