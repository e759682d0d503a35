// Package dist runs tracebook's methods on many machines under MPI (Open
// MPI, or the site's srun): the notebook side of a job of tracebook-mpi
// workers. A trace opened on a job answers the methods with the same result
// types and views as a trace opened here, so a notebook moves from one
// machine to many by changing the line that opens the trace:
//
//	job := dist.Start(4)                      // mpirun -np 4 --oversubscribe on this machine
//	tr := job.Open("run/traces.otf2")         // instead of trace.Open: every rank reads its share
//	profile.CommMatrix(tr)                    // computed on the ranks, merged up a binomial tree
//	job.Records()                             // per request: wall time, bytes moved, peak memory
//	dist.Stop()
//
// On a cluster, dist.Listen() prints the worker command for the job script
// (srun or mpirun) and the ranks connect back: bind an address the compute
// nodes reach with WithBind.
//
// # How it runs
//
// Rank 0 reads the trace's definitions and deals the processes to the ranks
// in contiguous blocks of process indices balanced by the events each
// location declares (worker.Shares), and every rank loads its share: OTF2
// keeps one file per location, so a rank reads only its share's files
// (trace.WithShare), keeping the processes' global indices. The notebook holds the definitions and the processes without
// their events (trace.Trace.Skeleton) with an executor attached
// (part.Attach): part.Run and part.RunRound hand each round of a method of
// the partial contract (package part) to the job. Rank 0 relays the request
// to every rank; each computes the partial of its share, and partials move
// up a binomial tree (at step s = 1, 2, 4, ... a rank with bit s set sends
// its encoded partial to rank-s, which decodes and merges it) to rank 0,
// which sends the merged partial to the kernel. Between rounds the kernel
// decides (part.Method.Decide), as on one machine. part.Fetch brings the
// events of a few processes (the representatives of groups) to the
// notebook.
//
// The link between the kernel and rank 0 is TCP, bound to loopback unless
// WithBind says otherwise, and authenticated with a fresh key (a file
// readable by its owner only): a handshake in which both sides prove the
// key with HMAC-SHA256 over fresh nonces, and an HMAC on every frame over a
// sequence number (package internal/link). A connection without the key is
// refused (Job.Refused counts them).
//
// Long work: every rank reports the progress of its current job; the cell's
// bar shows their sum. Interrupting the cell sends an interrupt that rank 0
// relays to every rank, which stop within the polling interval of their
// loops (work.Check); the job stays usable. A rank that dies ends the job
// (mpirun aborts the others): the cell fails with an error naming the rank
// and the signal mpirun reported, the kernel's session survives, and
// dist.Start makes a new job.
package dist
