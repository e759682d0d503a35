package fold_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/fold"
	"github.com/tracebook/tracebook/builtins/trace"
)

// Weber's Figure 6.2: three streams folded into three pixels with each
// operation, each stream sampled at each pixel's start as in the figure. Region b is defined first, so b < a in the order on states.
func Example() {
	const b, a = 0, 1
	ev := func(spec ...int64) *trace.Process { // (kind, time, region) triples
		p := &trace.Process{}
		for i := 0; i < len(spec); i += 3 {
			p.Kind = append(p.Kind, trace.EventKind(spec[i]))
			p.Time = append(p.Time, spec[i+1])
			p.Ref = append(p.Ref, int32(spec[i+2]))
		}
		return p
	}
	E, L := int64(trace.Enter), int64(trace.Leave)
	tr := trace.NewTrace(&trace.Definitions{Regions: []trace.Region{{Name: "b"}, {Name: "a"}}}, []*trace.Process{
		ev(E, 0, a, L, 20, a),                     // a a -
		ev(E, 0, a, L, 10, a, E, 10, b, L, 20, b), // a b -
		ev(E, 0, b, L, 10, b, E, 25, a, L, 26, a), // b - -
	})
	for _, op := range []fold.Op{fold.Max, fold.Min, fold.Diff, fold.Idle} {
		f := fold.Timeline(tr, op, 3, fold.WithRange(0, 30), fold.WithTimeShare(false)) // the seed's sampling
		fmt.Println(op, f.State, f.Share)
	}
	// Idle by the time share within each pixel (its default): pixel 2, [20, 30), is busy
	// 1 ns of 10, so idle, for 90% of its time.
	f := fold.Timeline(tr, fold.Idle, 3, fold.WithRange(0, 30))
	fmt.Println("idle by time share", f.State, f.Share)
	// Output:
	// max [1 0 -1] [0.6666666666666666 0.3333333333333333 1]
	// min [0 0 -1] [0.3333333333333333 0.3333333333333333 1]
	// diff [0 0 -1] [0.3333333333333333 0.3333333333333333 1]
	// idle [1 0 -1] [0.6666666666666666 0.3333333333333333 1]
	// idle by time share [1 0 -1] [1 1 0.9]
}
