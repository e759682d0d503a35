package arrowio_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tracebook/tracebook/arrowio"
)

func Example() {
	events := arrowio.MustTable(
		arrowio.Int64("Timestamp (ns)", []int64{0, 150, 900, 1000}),
		arrowio.Dict("Event Type", []string{"Enter", "Enter", "Leave", "Leave"}),
		arrowio.Dict("Name", []string{"main", "MPI_Send", "MPI_Send", "main"}),
		arrowio.Int32("Process", []int32{0, 0, 0, 0}),
		arrowio.NullableInt64("Message Size", []int64{0, 1024, 0, 0}, []bool{false, true, false, false}),
	)
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "events.parquet")
	arrowio.Write(path, events) // panics if the write fails
	back, err := arrowio.Read(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back)
	// Output:
	//    Timestamp (ns)  Event Type  Name      Process  Message Size
	// 0               0  Enter       main            0          null
	// 1             150  Enter       MPI_Send        0         1,024
	// 2             900  Leave       MPI_Send        0          null
	// 3           1,000  Leave       main            0          null
	//
	// 4 rows x 5 columns
}

// Durations marked with their unit stay int64 nanoseconds in the data and read as times.
func ExampleColumn_WithUnit() {
	profile := arrowio.MustTable(
		arrowio.Dict("Function", []string{"MPI_Init", "solve", "MPI_Send"}),
		arrowio.Int64("Calls", []int64{16, 12800, 25600}),
		arrowio.Int64("Exclusive (ns)", []int64{386_912_345, 1_234_567, 56_700}).WithUnit("ns"),
	)
	fmt.Println(profile)
	// Output:
	//    Function   Calls  Exclusive (ns)
	// 0  MPI_Init      16        386.9 ms
	// 1  solve     12,800        1.235 ms
	// 2  MPI_Send  25,600        56.70 µs
	//
	// 3 rows x 3 columns
}
