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
// loopback, before the program and its arguments:
//
//   - --oversubscribe: more ranks than cores is allowed (2 cores here, 4
//     ranks in the tests);
//   - --allow-run-as-root, only when the effective user is root (Open MPI
//     refuses to start as root otherwise);
//   - --bind-to none: ranks are not pinned to cores, so that oversubscribed
//     ranks and the notebook's kernel share the cores;
//   - --mca btl self,vader,tcp and --mca btl_tcp_if_include lo, --mca
//     oob_tcp_if_include lo: messages go through shared memory or loopback
//     TCP and the runtime's own connections stay on loopback, whatever
//     interfaces (or none) the machine has.
func MpirunArgs(np int) []string {
	args := []string{"-np", strconv.Itoa(np), "--oversubscribe"}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	return append(args, mcaArgs...)
}

var mcaArgs = []string{
	"--bind-to", "none",
	"--mca", "btl", "self,vader,tcp",
	"--mca", "btl_tcp_if_include", "lo",
	"--mca", "oob_tcp_if_include", "lo",
}

// MpirunEnv returns the environment variables (NAME=value) to add to the
// environment of mpirun for the same job.
func MpirunEnv() []string {
	return []string{
		// Ranks that wait for a message yield the core instead of spinning
		// on it, when they are more than the cores.
		"OMPI_MCA_mpi_yield_when_idle=1",
	}
}
