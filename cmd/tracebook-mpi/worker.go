package main

import (
	"fmt"
	"os"

	"github.com/tracebook/tracebook/internal/mpi"
)

// runWorker is a stub until the worker lands.
func runWorker(world *mpi.World, args []string) int {
	fmt.Fprintln(os.Stderr, "tracebook-mpi worker: not yet")
	return 1
}
