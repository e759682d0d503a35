package main

import (
	"os"

	"github.com/tracebook/tracebook/builtins/dist/worker"
	"github.com/tracebook/tracebook/internal/mpi"

	// every method registers its per-process part (part.Register): a rank
	// rebuilds the method a request names
	_ "github.com/tracebook/tracebook/builtins/ccg"
	_ "github.com/tracebook/tracebook/builtins/cluster"
	_ "github.com/tracebook/tracebook/builtins/compare"
	_ "github.com/tracebook/tracebook/builtins/fold"
	_ "github.com/tracebook/tracebook/builtins/imbalance"
	_ "github.com/tracebook/tracebook/builtins/msa"
	_ "github.com/tracebook/tracebook/builtins/profile"
	_ "github.com/tracebook/tracebook/builtins/waits"
)

// runWorker is `tracebook-mpi worker`: a rank of a notebook's job.
func runWorker(w *mpi.World, args []string) int { return worker.Main(w, args, os.Stderr) }
