package msa

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// treeTrace builds a trace with one process per spec. A spec lists the
// top-level calls, each a name optionally followed by its children in
// parentheses: "m(a(x y) b c)". Every call lasts 10 ns plus its
// children's time; dur(process, name) (nil: 0) adds to a call's own time.
func treeTrace(t testing.TB, specs []string, dur func(p int, name string) int64) *trace.Trace {
	t.Helper()
	defs := &trace.Definitions{}
	ids := map[string]int32{}
	region := func(name string) int32 {
		if id, ok := ids[name]; ok {
			return id
		}
		id := int32(len(defs.Regions))
		defs.Regions = append(defs.Regions, trace.Region{Name: name})
		ids[name] = id
		return id
	}
	var procs []*trace.Process
	for pi, spec := range specs {
		p := &trace.Process{Rank: int32(pi), Name: fmt.Sprintf("MPI Rank %d", pi)}
		var clock int64
		toks := tokenize(spec)
		var stack []string
		for i := 0; i < len(toks); i++ {
			switch tok := toks[i]; tok {
			case "(":
			case ")":
				name := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				clock += 10
				if dur != nil {
					clock += dur(pi, name)
				}
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, clock), append(p.Ref, region(name))
			default:
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Enter), append(p.Time, clock), append(p.Ref, region(tok))
				if i+1 < len(toks) && toks[i+1] == "(" {
					stack = append(stack, tok)
					continue
				}
				clock += 10
				if dur != nil {
					clock += dur(pi, tok)
				}
				p.Kind, p.Time, p.Ref = append(p.Kind, trace.Leave), append(p.Time, clock), append(p.Ref, region(tok))
			}
		}
		if len(stack) != 0 {
			t.Fatalf("spec %q: unbalanced", spec)
		}
		procs = append(procs, p)
	}
	return trace.NewTrace(defs, procs)
}

func tokenize(s string) []string {
	s = strings.NewReplacer("(", " ( ", ")", " ) ").Replace(s)
	return strings.Fields(s)
}

// render prints the merged tree one node per line: depth-indented
// "region [state count: members]".
func render(m *Tree) string {
	var b strings.Builder
	for v := 0; v < m.NumNodes(); v++ {
		fmt.Fprintf(&b, "%s%s [%s %v]\n", strings.Repeat("  ", m.Depth(v)), m.Region(v), m.State(v), m.Members(v))
	}
	return b.String()
}
