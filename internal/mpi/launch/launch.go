// Package launch gives the arguments and environment with which tracebook
// starts Open MPI's mpirun on this machine: the tests of the MPI worker and
// the kernel's dist.Start use the same. It is pure Go (no cgo), so the
// kernel imports it without libmpi.
package launch

import (
	"os"
	"strconv"
)

// MpirunArgs returns the arguments after "mpirun" that start np ranks on
// this machine, before the program and its arguments. Open MPI 4.1 needs
// the first two; the others keep the job to this machine's loopback and
// shared memory:
//
//   - --oversubscribe: more ranks than cores (4 ranks on 2 cores in the
//     tests; without it mpirun refuses: not enough slots);
//   - --allow-run-as-root, only when the effective user is root (mpirun
//     refuses to start as root otherwise);
//   - --bind-to none: ranks are not pinned to a core each (Open MPI pins
//     when np <= cores), so that the ranks and the notebook's kernel share
//     the cores;
//   - --mca pml ob1, --mca btl self,vader,tcp, --mca btl_tcp_if_include lo
//     and --mca oob_tcp_if_include lo: messages go through shared memory
//     (vader) or loopback TCP, and the runtime's own connections listen on
//     loopback only, not on the machine's other interfaces. Debian's build
//     also has the UCX, OFI and openib transports, which are not tried:
//     on machines with RDMA devices they may print warnings or pick a
//     device (none of them was needed or printed anything here).
func MpirunArgs(np int) []string {
	args := []string{"-np", strconv.Itoa(np), "--oversubscribe"}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	return append(args, mcaArgs...)
}

var mcaArgs = []string{
	"--bind-to", "none",
	"--mca", "pml", "ob1",
	"--mca", "btl", "self,vader,tcp",
	"--mca", "btl_tcp_if_include", "lo",
	"--mca", "oob_tcp_if_include", "lo",
}

// MpirunEnv returns the environment variables (NAME=value) to add to the
// environment of mpirun for the same job.
func MpirunEnv() []string {
	return []string{
		// A rank waiting in a blocking call (MPI_Recv, MPI_Bcast,
		// MPI_Barrier) polls its transports; with this it calls
		// sched_yield between polls, giving the core to a rank or kernel
		// that has work. Open MPI sets it itself when oversubscribed; this
		// sets it when np <= cores too. It still uses the core when no one
		// else wants it: a worker idle for long waits with Probe and a
		// sleep instead.
		"OMPI_MCA_mpi_yield_when_idle=1",
	}
}
