// Command tracebook-mpi is what every rank of a tracebook MPI job runs,
// started by mpirun or srun:
//
//	tracebook-mpi worker ...                        a rank of the notebook's job (package dist)
//	tracebook-mpi convert TRACE OUTDIR [--format parquet|arrow]
//	                                                one events table per rank
//	tracebook-mpi version
//
// It is built with cgo against libmpi (package internal/mpi); the kernel,
// tracebook, stays pure Go and starts it through mpirun.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/tracebook/tracebook/builtins/dist/worker"
	"github.com/tracebook/tracebook/internal/mpi"
	"github.com/tracebook/tracebook/kernel"
)

// The world is what the worker's loop talks through.
var _ worker.Comm = (*mpi.World)(nil)

// MPI is initialised FUNNELED: every MPI call from main's goroutine, which
// runs on the main thread when it is locked here, before main starts.
func init() { runtime.LockOSThread() }

func usage() {
	fmt.Fprint(os.Stderr, `usage (under mpirun or srun):
  tracebook-mpi worker ...                        a rank of a notebook's job (dist.Start)
  tracebook-mpi convert TRACE OUTDIR [--format parquet|arrow]
                                                  OUTDIR/part-RANK.parquet: the events table of each rank's share
  tracebook-mpi version
`)
}

func main() { os.Exit(run(os.Args[1:])) }

// run runs a subcommand and returns the exit status. MPI is initialised
// once, for the subcommands that need it, and finalised on every path out.
func run(args []string) int {
	if len(args) == 0 {
		usage()
		return 2
	}
	var sub func(*mpi.World, []string) int
	switch args[0] {
	case "version", "--version":
		fmt.Printf("tracebook-mpi %s\n", kernel.Version)
		return 0
	case "help", "-h", "--help":
		usage()
		return 0
	case "worker":
		sub = runWorker
	case "convert":
		sub = runConvert
	default:
		fmt.Fprintf(os.Stderr, "tracebook-mpi: unknown command %q\n", args[0])
		usage()
		return 2
	}
	world, err := mpi.Init()
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracebook-mpi %s: %v\n", args[0], err)
		return 1
	}
	status := func() (status int) {
		defer func() {
			if r := recover(); r != nil {
				// A panic on one rank would leave the others waiting for it.
				fmt.Fprintf(os.Stderr, "tracebook-mpi %s: rank %d: panic: %v\n", args[0], world.Rank(), r)
				world.Abort(1)
			}
		}()
		return sub(world, args[1:])
	}()
	if err := world.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "tracebook-mpi %s: rank %d: %v\n", args[0], world.Rank(), err)
		if status == 0 {
			status = 1
		}
	}
	return status
}
