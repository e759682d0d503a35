package profile_test

import (
	"fmt"

	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace"
)

// Brendel's walk-through of a ping-pong program (section 3.2, Figs. 16-19), on the ping-pong
// trace of the repository: the whole call matrix of inclusive time, the calls main makes, those
// of them that do real work, and the same per process.
func Example() {
	tr, err := trace.Load("../../test/data/traces/ping-pong-otf2/traces.otf2")
	if err != nil {
		panic(err)
	}
	const main = "int main(int, char**)"
	fig16 := profile.CallMatrix(tr, profile.WithInclusive())
	fmt.Println("Fig. 16:", fig16.Headline())
	fig17 := profile.CallMatrix(tr, profile.WithInclusive(), profile.WithCaller(main))
	fmt.Println("Fig. 17:", fig17.Headline())
	fig18 := profile.CallMatrix(tr, profile.WithInclusive(), profile.WithCaller(main), profile.WithFunctions("MPI_Send", "MPI_Recv"))
	for _, c := range fig18.Cells {
		// "at least two percent of all MPI_Send and MPI_Recv calls take considerably longer than
		// 75% (the third quartile) of all calls"
		d := c.Inclusive
		fmt.Printf("Fig. 18: %s: %d calls, median %.0f µs, 75th percentile %.0f µs, 98th %.0f µs\n", c.Callee, d.Count, d.P50/1e3, d.P75/1e3, d.P98/1e3)
	}
	fig19 := profile.CallMatrix(tr, profile.WithInclusive(), profile.WithCaller(main), profile.WithFunctions("MPI_Send"), profile.WithPerProcess())
	for _, c := range fig19.Cells {
		fmt.Printf("Fig. 19: %s on %s: %d calls, median %.0f µs\n", c.Callee, fig19.Series[c.Series], c.Inclusive.Count, c.Inclusive.P50/1e3)
	}
	// Output:
	// Fig. 16: call matrix: 7 cells, 120 events; first by sum inclusive time: (root) -> int main(int, char**) (2 calls, median 199.4 ms, 98th percentile 199.5 ms)
	// Fig. 17: call matrix: 7 cells, 120 events; first by sum inclusive time: int main(int, char**) -> MPI_Init (2 calls, median 193.5 ms, 98th percentile 193.6 ms)
	// Fig. 18: MPI_Send: 16 calls, median 77 µs, 75th percentile 283 µs, 98th 870 µs
	// Fig. 18: MPI_Recv: 16 calls, median 67 µs, 75th percentile 235 µs, 98th 735 µs
	// Fig. 19: MPI_Send on rank 0: 8 calls, median 76 µs
	// Fig. 19: MPI_Send on rank 1: 8 calls, median 83 µs
}
