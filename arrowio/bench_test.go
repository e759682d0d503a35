package arrowio

import (
	"path/filepath"
	"testing"
)

// eventsTable is an events table of n rows in the schema of DESIGN §3: Enter/Leave pairs of
// a few region names on 16 processes, with a nullable message size on MPI_Send rows.
func eventsTable(n int) *Table {
	names := []string{"main", "compute", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "io_write"}
	ts := make([]int64, n)
	typ := make([]string, n)
	name := make([]string, n)
	proc := make([]int32, n)
	thread := make([]int32, n)
	size := make([]int64, n)
	hasSize := make([]bool, n)
	for i := range n {
		ts[i] = int64(i)*137 + int64(i%7)
		typ[i] = [...]string{"Enter", "Leave"}[i%2]
		if i%50 == 49 {
			typ[i] = "Instant"
		}
		name[i] = names[(i/2)%len(names)]
		proc[i] = int32(i % 16)
		thread[i] = int32(i % 3)
		if name[i] == "MPI_Send" {
			size[i], hasSize[i] = int64(8<<(i%10)), true
		}
	}
	return MustTable(
		Int64("Timestamp (ns)", ts), Dict("Event Type", typ), Dict("Name", name),
		Int32("Process", proc), Int32("Thread", thread), NullableInt64("Message Size", size, hasSize),
	)
}

const benchRows = 1 << 20

func BenchmarkWriteParquet(b *testing.B) {
	tb := eventsTable(benchRows)
	path := filepath.Join(b.TempDir(), "events.parquet")
	b.ResetTimer()
	for b.Loop() {
		if err := writeParquet(path, tb); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkReadParquet(b *testing.B) {
	tb := eventsTable(benchRows)
	path := filepath.Join(b.TempDir(), "events.parquet")
	if err := writeParquet(path, tb); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := ReadParquet(path)
		if err != nil {
			b.Fatal(err)
		}
		if got.NumRows() != benchRows {
			b.Fatalf("%d rows", got.NumRows())
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkWriteIPC(b *testing.B) {
	tb := eventsTable(benchRows)
	path := filepath.Join(b.TempDir(), "events.arrow")
	b.ResetTimer()
	for b.Loop() {
		if err := writeIPC(path, tb); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkReadIPC(b *testing.B) {
	tb := eventsTable(benchRows)
	path := filepath.Join(b.TempDir(), "events.arrow")
	if err := writeIPC(path, tb); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadIPC(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
