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
	if err := arrowio.Write(path, events); err != nil {
		fmt.Println(err)
		return
	}
	back, err := arrowio.Read(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back)
	// Output:
	//    Timestamp (ns)  Event Type  Name      Process  Message Size
	// 0               0  Enter       main            0          null
	// 1             150  Enter       MPI_Send        0          1024
	// 2             900  Leave       MPI_Send        0          null
	// 3            1000  Leave       main            0          null
	//
	// 4 rows x 5 columns
}
