package trace

import "testing"

// Labels are short and consistent: rank, rank and thread, GPU and stream
// (accelerator groups numbered among themselves, in definition order).
func TestProcessLabel(t *testing.T) {
	defs := &Definitions{
		LocationGroups: []LocationGroup{
			{Name: "MPI Rank 0", Type: "process"},
			{Name: "GPU A", Type: "accelerator"},
			{Name: "MPI Rank 1", Type: "process"},
			{Name: "GPU B", Type: "accelerator"},
		},
		Locations: []Location{
			{Name: "Master thread", Type: "cpu_thread", Group: 0},
			{Name: "OMP thread 2", Type: "cpu_thread", Group: 0},
			{Name: "CUDA stream 0", Type: "accelerator_stream", Group: 1},
			{Name: "Master thread", Type: "cpu_thread", Group: 2},
			{Name: "CUDA stream 7", Type: "accelerator_stream", Group: 3},
		},
	}
	procs := []*Process{{Rank: 0, Thread: 0}, {Rank: 0, Thread: 2}, {Rank: 1, Thread: 0}, {Rank: 2, Thread: 0}, {Rank: 3, Thread: 7}}
	tr := NewTrace(defs, procs)
	want := []string{"rank 0", "rank 0 thread 2", "GPU 0 stream 0", "rank 1", "GPU 1 stream 7"}
	for i, w := range want {
		if got := tr.Process(i).Label(); got != w {
			t.Errorf("process %d (%s): label %q, want %q", i, defs.Locations[i].Name, got, w)
		}
	}
	// A table's Process column (sparse ranks 2 and 5, groups 0 and 1) is
	// the rank the label names.
	sparse := NewTrace(&Definitions{
		LocationGroups: []LocationGroup{{Name: "2", Type: "process"}, {Name: "5", Type: "process"}},
		Locations:      []Location{{Type: "cpu_thread", Group: 0}, {Type: "cpu_thread", Group: 1}},
	}, []*Process{{Rank: 2}, {Rank: 5}})
	if a, b := sparse.Process(0).Label(), sparse.Process(1).Label(); a != "rank 2" || b != "rank 5" {
		t.Errorf("sparse ranks: labels %q, %q, want rank 2, rank 5", a, b)
	}
	// A process outside a trace still has a label.
	if got := (&Process{Rank: 5, Thread: 1}).Label(); got != "rank 5 thread 1" {
		t.Errorf("detached process: %q", got)
	}
}
