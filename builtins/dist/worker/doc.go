// Package worker is what every rank of a tracebook MPI job runs
// (cmd/tracebook-mpi worker): it loads its share of a trace's processes,
// computes the rounds of methods the notebook asks for, and merges the
// encoded partials up a binomial tree of ranks to rank 0, which holds the
// authenticated link to the notebook's kernel (package dist).
package worker
