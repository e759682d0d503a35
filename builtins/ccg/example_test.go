package ccg_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/ccg"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
)

// figure32 is the process of Knüpfer's Figure 3.2: main calls foo once,
// foo calls bar twice, bar calls MPI_Send three times, each call with its
// send event; the first send of each bar goes to another peer.
func figure32(rank int32) *trace.Process {
	const main, foo, bar, send = 0, 1, 2, 3
	p := &trace.Process{Rank: rank, Name: fmt.Sprintf("rank %d", rank)}
	ev := func(k trace.EventKind, t int64, ref int32) {
		p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, t), append(p.Ref, ref)
	}
	ev(trace.Enter, 0, main)
	ev(trace.Enter, 10, foo)
	t := int64(10)
	for range 2 {
		t += 10
		ev(trace.Enter, t, bar)
		for k := range 3 {
			peer := int32(2)
			if k == 0 {
				peer = 1
			}
			ev(trace.Enter, t+10, send)
			ev(trace.MpiSend, t+15, p.Msgs.Add(peer, 0, 0, 100, 0))
			ev(trace.Leave, t+20, send)
			t += 10
		}
		t += 10
		ev(trace.Leave, t, bar)
	}
	ev(trace.Leave, t+10, foo)
	ev(trace.Leave, t+20, main)
	return p
}

func regions() *trace.Definitions {
	d := &trace.Definitions{}
	for _, name := range []string{"main", "foo", "bar", "MPI_Send"} {
		d.Regions = append(d.Regions, trace.Region{Name: name, Role: "function"})
	}
	return d
}

// Knüpfer's Figures 3.2 and 3.4: the Complete Call Graph of one process
// has 17 nodes; compressed, the two equal calls of bar, and the two equal
// calls of MPI_Send in each, are stored once: 8 nodes, the same events.
func Example() {
	tr := trace.NewTrace(regions(), []*trace.Process{figure32(0)})
	g := ccg.Build(tr.Process(0), ccg.Lossless)
	s := g.Stats()
	fmt.Printf("uncompressed %d nodes, compressed %d (R_nodes %.3g)\n", s.N, s.Nodes, s.RNodes)
	fmt.Println(g.Summary(0, g.End()))
	it := g.Iter(0)
	for range 5 {
		e, _ := it.Next()
		fmt.Println(e.Kind, e.Time, e.Region)
	}
	// Output:
	// uncompressed 17 nodes, compressed 8 (R_nodes 2.12)
	// [0 ns, 131 ns): 4 regions; 6 sends (600 bytes), 0 receives (0 bytes), 0 collectives
	// Enter 0 0
	// Enter 10 1
	// Enter 20 2
	// Enter 30 3
	// MpiSend 35 -1
}

// The per-location part of the method: graphs of disjoint locations,
// built anywhere, merge into the graph of all of them, equal sub-trees
// stored once (4.4.2). Four locations of Figure 3.2 in two halves share
// everything.
func ExampleGraph_Merge() {
	tr := trace.NewTrace(regions(), []*trace.Process{figure32(0), figure32(1), figure32(2), figure32(3)})
	m := ccg.BuildMethod(ccg.Lossless)
	ps := tr.Processes()
	a, _ := m.Compute(tr, ps[:2], 0, nil)
	b, _ := m.Compute(tr, ps[2:], 0, nil)
	wire, _ := part.Encode(m, 0, b) // as a worker sends it
	b, _ = part.Decode(m, 0, wire)
	if err := a.Merge(b); err != nil {
		fmt.Println(err)
	}
	g := a.(*ccg.Graph)
	s := g.Stats()
	fmt.Printf("%s: %d locations, %d events, %d nodes\n", m.Name(), g.NumLocations(), s.Events, s.Nodes)
	// Output:
	// ccg.build: 4 locations, 104 events, 8 nodes
}
