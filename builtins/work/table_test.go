package work_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
	"github.com/tracebook/tracebook/builtins/work/worktest"
)

// eventsTable is an events table of n rows in the trace schema's types (ns timestamps,
// dictionary-encoded names, int32 processes, nullable byte counts).
func eventsTable(n int) *arrowio.Table {
	r := rand.New(rand.NewPCG(1, 2))
	ts, bytes := make([]int64, n), make([]int64, n)
	proc := make([]int32, n)
	name, label := make([]string, n), make([]string, n)
	valid := make([]bool, n)
	for i := range ts {
		ts[i] = int64(r.IntN(1 << 40))
		proc[i] = int32(r.IntN(64))
		name[i] = fmt.Sprintf("f%d", r.IntN(50))
		label[i] = fmt.Sprintf("call %d", r.IntN(n))
		if valid[i] = r.IntN(4) == 0; valid[i] {
			bytes[i] = int64(r.IntN(1 << 20))
		}
	}
	return arrowio.MustTable(arrowio.Int64("Timestamp (ns)", ts), arrowio.Dict("Name", name),
		arrowio.Int32("Process", proc), arrowio.NullableInt64("Bytes", bytes, valid), arrowio.String("Label", label))
}

// TestTableOpsStopAtInterrupt interrupts each table operation mid-way: it must stop with a
// TableError wrapping ErrInterrupted (the hang guard is 10 s; latencies are logged).
func TestTableOpsStopAtInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 4M-row table")
	}
	ev := eventsTable(4_000_000)
	half := ev.Slice(0, 2_000_000)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"Filter", func() { ev.Filter(arrowio.Col("Name").StartsWith("f1").Or(arrowio.Col("Bytes").Gt(5))) }},
		{"Sort", func() { ev.Sort("Process", "Timestamp (ns) desc") }},
		{"Sort", func() { ev.Sort("Label") }},
		{"GroupBy.Agg", func() { ev.GroupBy("Label").Agg(arrowio.Count()) }},
		{"GroupBy.Agg", func() { ev.GroupBy("Name", "Process").Agg(arrowio.Median("Timestamp (ns)")) }},
		{"Join", func() { ev.Join(half, "Timestamp (ns)") }},
		{"WithColumn", func() { ev.WithColumn("x", arrowio.Col("Timestamp (ns)").Div(arrowio.Col("Process"))) }},
	} {
		// Early and late interrupts land in different phases of the operation.
		for _, after := range []time.Duration{5 * time.Millisecond, 250 * time.Millisecond} {
			out := worktest.Interrupt(t, after, 10*time.Second, c.f)
			if out.Finished {
				t.Logf("%s finished before the interrupt at %v", c.name, after)
				continue
			}
			err, _ := out.Panic.(error)
			var te *arrowio.TableError
			if !errors.Is(err, work.ErrInterrupted) || !errors.As(err, &te) || te.Op != c.name {
				t.Fatalf("%s interrupted at %v panicked with %#v", c.name, after, out.Panic)
			}
			t.Logf("%s interrupted at %v stopped %v later", c.name, after, out.Latency)
		}
	}
}

// TestTableOpsCheckMemory: an operation that needs more memory than there is fails before
// allocating, with a TableError wrapping the MemoryError.
func TestTableOpsCheckMemory(t *testing.T) {
	t.Setenv("TRACEBOOK_MEMORY_LIMIT", "1MB")
	ev := eventsTable(100_000)
	defer func() {
		err, _ := recover().(error)
		var me *work.MemoryError
		var te *arrowio.TableError
		if !errors.As(err, &me) || !errors.As(err, &te) || te.Op != "Sort" {
			t.Fatalf("Sort over the memory limit panicked with %#v", err)
		}
	}()
	ev.Sort("Process")
}
