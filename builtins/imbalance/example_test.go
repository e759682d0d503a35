package imbalance_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/imbalance"
	"github.com/tracebook/tracebook/builtins/trace"
)

// The worked example of Weber 2016, Figs. 6.9 and 6.10: three processes run main with three
// invocations of a, each a calc followed by a synchronising MPI call, then i (which calls b and
// c). main has the most inclusive time but only p = 3 invocations, so a, invoked 9 >= 2p times,
// is the dominant function. In the first iteration process 0 computes for 5 steps, process 1
// for 3 and process 2 for 1, waiting in MPI for the rest: SOS-times 5, 3 and 1.
func Example() {
	type call struct {
		region     int32
		enter, end int64
	}
	const main, i, a, b, c, calc, mpi = 0, 1, 2, 3, 4, 5, 6
	defs := &trace.Definitions{}
	for _, n := range []string{"main", "i", "a", "b", "c", "calc", "MPI"} {
		defs.Regions = append(defs.Regions, trace.Region{Name: n})
	}
	var procs []*trace.Process
	for rank, first := range []int64{5, 3, 1} {
		p := &trace.Process{Rank: int32(rank), Name: fmt.Sprint("rank ", rank)}
		var open []call
		add := func(k trace.EventKind, t int64, r int32) {
			p.Kind, p.Time, p.Ref = append(p.Kind, k), append(p.Time, t), append(p.Ref, r)
		}
		for _, x := range []call{ // properly nested, in pre-order
			{main, 0, 18},
			{a, 0, 6}, {calc, 0, first}, {mpi, first, 6},
			{a, 6, 9}, {calc, 6, 8}, {mpi, 8, 9},
			{a, 9, 12}, {calc, 9, 11}, {mpi, 11, 12},
			{i, 12, 17}, {b, 12, 14}, {c, 14, 16},
			{-1, 1 << 62, 0}, // closes everything
		} {
			for len(open) > 0 && open[len(open)-1].end <= x.enter {
				add(trace.Leave, open[len(open)-1].end, open[len(open)-1].region)
				open = open[:len(open)-1]
			}
			if x.region >= 0 {
				add(trace.Enter, x.enter, x.region)
				open = append(open, x)
			}
		}
		procs = append(procs, p)
	}
	tr := trace.NewTrace(defs, procs)

	r := imbalance.Analyze(tr, imbalance.WithSync(trace.DefaultSync().Include("MPI")))
	fmt.Println("dominant function:", r.Function())
	for _, it := range r.IterationList() {
		fmt.Printf("iteration %d: max SOS-time %d, mean %.0f, max/mean %.2f, culprit %d\n", it.Index, it.MaxSOS, it.MeanSOS, it.Ratio(), it.Culprit)
	}
	fmt.Println("culprit of the run:", r.Culprit().Label())
	// Output:
	// dominant function: a
	// iteration 0: max SOS-time 5, mean 3, max/mean 1.67, culprit 0
	// iteration 1: max SOS-time 2, mean 2, max/mean 1.00, culprit -1
	// iteration 2: max SOS-time 2, mean 2, max/mean 1.00, culprit -1
	// culprit of the run: rank 0
}
