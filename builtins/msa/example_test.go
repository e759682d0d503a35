package msa_test

import (
	"fmt"
	"strings"

	"github.com/tracebook/tracebook/builtins/msa"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
)

// Weber's worked example of 5.2.2: Max2FreqHashing of "research" and
// "sequence" is 5; the similarity matrix of the sequences of Figure 5.8,
// sorted (Table 5.2), gives the guide order 1-2, 1-5, 5-3, 3-4, and the
// progressive MSA in that order the block of Figure 5.9, in which the
// calls to d and e of Sequences 3, 4 and 5 share columns.
func Example() {
	fmt.Println("Max2FreqHashing(research, sequence) =", msa.FreqSimilarity("research", "sequence", 2))
	b := msa.Strings([]string{"ababababab", "aaaabbbb", "cde", "dec", "decb"}, msa.WithGuide(msa.GuideMatrix))
	_, steps := b.Guide()
	var order []string
	for _, s := range steps {
		order = append(order, fmt.Sprintf("%d-%d", s.Partner+1, s.New+1))
	}
	fmt.Println("guide order:", strings.Join(order, ", "))
	for _, row := range b.Aligned() {
		fmt.Println(row)
	}
	// Output:
	// Max2FreqHashing(research, sequence) = 5
	// guide order: 1-2, 1-5, 5-3, 3-4
	// -ababababab
	// -aaa-abbb-b
	// cde--------
	// -dec-------
	// -decb------
}

// processes builds one process per spec, a call tree written as
// "m(b(d(c)) c)": a call is a name, its children follow in parentheses.
func processes(specs ...string) *trace.Trace {
	defs := &trace.Definitions{}
	ids := map[string]int32{}
	var procs []*trace.Process
	for rank, spec := range specs {
		p := &trace.Process{Rank: int32(rank), Name: fmt.Sprintf("rank %d", rank)}
		var clock int64
		var open []int32
		ev := func(k trace.EventKind, r int32) {
			clock += 10
			p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, clock), append(p.Ref, r)
		}
		for _, tok := range strings.Fields(strings.NewReplacer("(", " ( ", ")", " ) ").Replace(spec)) {
			switch tok {
			case "(":
				open = append(open, p.Ref[len(p.Ref)-1])
				p.Kind, p.Time, p.Ref = p.Kind[:len(p.Kind)-1], p.Time[:len(p.Time)-1], p.Ref[:len(p.Ref)-1]
			case ")":
				ev(trace.Leave, open[len(open)-1])
				open = open[:len(open)-1]
			default:
				id, ok := ids[tok]
				if !ok {
					id = int32(len(defs.Regions))
					ids[tok] = id
					defs.Regions = append(defs.Regions, trace.Region{Name: tok})
				}
				ev(trace.Enter, id)
				ev(trace.Leave, id) // undone by a "(" that follows
			}
		}
		procs = append(procs, p)
	}
	return trace.NewTrace(defs, procs)
}

// Weber's Figures 5.11-5.13: three call trees merged by hierarchical MSA
// (Algorithm 7). a is called by the third process only (a gap), b's child
// is d in two processes and e in the third (different), and c below it is
// missing in the third.
func ExampleAlign() {
	tr := processes("m(b(d(c)) c)", "m(b(d(c)) c)", "m(a(x y) b(e) c)")
	t := msa.Align(tr.Processes()...)
	for v := range t.NumNodes() {
		fmt.Printf("%s%s: %s, %d of 3\n", strings.Repeat("  ", t.Depth(v)), t.Region(v), t.State(v), t.Count(v))
	}
	// Output:
	// ε: equal, 3 of 3
	//   m: equal, 3 of 3
	//     a: gap, 1 of 3
	//       x: gap, 1 of 3
	//       y: gap, 1 of 3
	//     b: equal, 3 of 3
	//       d | e: different, 3 of 3
	//         c: gap, 2 of 3
	//     c: equal, 3 of 3
}

// Stage 1 (Table 5.9) is the per-process part of the method: subsets of
// the processes, grouped by identical call trees on any machine, merge
// into the grouping of all of them.
func ExampleStage1Method() {
	tr := processes("m(a b)", "m(a)", "m(a b)", "m(a)", "m(c)")
	m := msa.Stage1Method()
	ps := tr.Processes()
	x, _ := m.Compute(tr, ps[:2], 0, nil)
	y, _ := m.Compute(tr, ps[2:], 0, nil)
	wire, _ := part.Encode(m, 0, y) // as a worker sends it
	y, _ = part.Decode(m, 0, wire)
	if err := x.Merge(y); err != nil {
		fmt.Println(err)
	}
	c := x.(*msa.Classes)
	fmt.Println(c)
	for i := range c.Len() {
		fmt.Println(i, c.Members(i))
	}
	// Output:
	// Stage 1: 5 processes in 3 classes of identical call trees
	// 0 [0 2]
	// 1 [1 3]
	// 2 [4]
}
