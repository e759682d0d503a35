// Package mpi is a thin cgo binding over Open MPI's libmpi: what a tracebook
// worker needs of MPI and nothing more. Messages are bytes (MPI_BYTE) on
// MPI_COMM_WORLD; init and finalize, rank and size, blocking send, probe
// without blocking, receive, broadcast, barrier and abort.
//
// MPI is initialised with MPI_THREAD_FUNNELED: every MPI call must come from
// the goroutine that called Init, locked to its OS thread. A command calls
// runtime.LockOSThread in an init function (so that main runs on the main
// thread, locked) and makes every call of this package from main's
// goroutine:
//
//	func init() { runtime.LockOSThread() }
//
//	func main() {
//		w, err := mpi.Init()
//		if err != nil { ... }
//		defer w.Finalize()
//		...
//	}
//
// The package builds against the pkg-config module ompi-c (Debian's
// libopenmpi-dev). The kernel does not import it: it stays pure Go and
// starts mpirun with the arguments of package launch.
package mpi
